/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calibration's face probes ("faces"; include/nodebw/model.h struct nbw_facerun): the
 * OpenMP face copies `nodebw probe --faces` measured, per box, face, method, path and mode,
 * read from the results through the typed view (nbw_rv_face_read), and what the application
 * model costs a halo message with (models/app_model.c, doc/model.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_priv.h"
#include "nodebw/face.h"
#include "nodebw/probe.h"
#include "nodebw/results_view.h"

double nbw_facerun_bytes(const struct nbw_facerun *f)
{
	struct nbw_face_shape s = {.n = {(uint32_t)f->box[0], (uint32_t)f->box[1],
					 (uint32_t)f->box[2]},
				   .depth = (uint32_t)f->depth, .elem = (uint32_t)f->elem};
	int face = nbw_face_parse(f->face);
	return face < 0 ? 0.0 : (double)nbw_face_bytes(&s, (enum nbw_face)face);
}

static bool is_exchange(const struct nbw_facerun *f)
{
	return !strcmp(f->kind, "exchange");
}

static bool same_shape(const struct nbw_facerun *a, const struct nbw_facerun *b)
{
	return !strcmp(a->kind, b->kind) && !memcmp(a->box, b->box, sizeof(a->box)) &&
	       a->depth == b->depth && a->elem == b->elem && !strcmp(a->face, b->face) &&
	       !strcmp(a->method, b->method) && !strcmp(a->path, b->path) &&
	       !strcmp(a->mode, b->mode) && !memcmp(a->decomp, b->decomp, sizeof(a->decomp)) &&
	       a->fields == b->fields;
}

int nbw_calib_add_face(struct nbw_calib *c, const struct nbw_facerun *in)
{
	struct nbw_facerun one = *in;
	struct nbw_facerun *f = &one;
	if (!f->kind[0]) /* a face copy unless said otherwise */
		snprintf(f->kind, sizeof(f->kind), "face");
	if (f->fields < 1 || !is_exchange(f))
		f->fields = 1;
	for (size_t i = 0; i < c->nfaces; i++)
		if (same_shape(&c->faces[i], f)) {
			if (f->seconds < c->faces[i].seconds)
				c->faces[i].seconds = f->seconds;
			return 0;
		}
	struct nbw_facerun *a = realloc(c->faces, (c->nfaces + 1) * sizeof(*a));
	if (!a)
		return -1;
	c->faces = a;
	a[c->nfaces++] = *f;
	return 0;
}

int nbw_calib_faces_from_results(struct nbw_calib *c, json_t *measurements)
{
	size_t i;
	json_t *m;
	json_array_foreach(measurements, i, m) {
		struct nbw_rv_meas x;
		struct nbw_rv_face v;
		nbw_rv_meas_read(NULL, m, &x);
		if (!x.face || !nbw_rv_meas_verified(&x) || strcmp(x.api, "omp") ||
		    !nbw_rv_face_read(&x, &v) || !(v.seconds > 0.0))
			continue;
		bool xchg = !strcmp(v.kind, "exchange-decomp") && v.decomp[0] > 0;
		if (strcmp(v.kind, "face") && !xchg)
			continue;
		/* A field count the calibration could not read back is not taken. */
		if (xchg && (v.fields < 1 || v.fields > NBW_FACE_MAX_FIELDS))
			continue;
		if (strcmp(x.direction, "htod") && strcmp(x.direction, "dtoh") &&
		    strcmp(x.direction, "p2p"))
			continue;
		if (strcmp(x.mode, "sync") && strcmp(x.mode, "async"))
			continue;
		struct nbw_facerun f = {.box = {v.box[0], v.box[1], v.box[2]},
					.depth = (int)v.depth, .elem = (int)v.element_bytes,
					.seconds = v.seconds};
		snprintf(f.kind, sizeof(f.kind), "%s", xchg ? "exchange" : "face");
		snprintf(f.face, sizeof(f.face), "%s", xchg ? "" : v.face);
		snprintf(f.method, sizeof(f.method), "%s", v.method);
		/* An exchange's step: its path as recorded ("device", "host-staged"). */
		snprintf(f.path, sizeof(f.path), "%s", xchg ? v.exchange : x.direction);
		if (xchg)
			memcpy(f.decomp, v.decomp, sizeof(f.decomp));
		f.fields = xchg ? v.fields : 1;
		snprintf(f.mode, sizeof(f.mode), "%s", x.mode);
		if (nbw_calib_add_face(c, &f))
			return -1;
	}
	return 0;
}

int nbw_calib_add_face_doc(struct nbw_calib *c, json_t *doc)
{
	struct nbw_rv_doc d;
	nbw_rv_doc_read(doc, &d);
	return nbw_calib_faces_from_results(c, d.measurements);
}

json_t *nbw_calib_faces_json(const struct nbw_calib *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->nfaces; i++) {
		const struct nbw_facerun *f = &c->faces[i];
		json_t *o = json_pack("{s:s, s:[I, I, I], s:i, s:i, s:s, s:s, s:s, s:f}", "kind",
				      is_exchange(f) ? "exchange" : "face", "box", (json_int_t)f->box[0],
				      (json_int_t)f->box[1], (json_int_t)f->box[2], "depth",
				      f->depth, "element_bytes", f->elem, "method", f->method,
				      "path", f->path, "mode", f->mode, "seconds", f->seconds);
		if (is_exchange(f)) {
			json_object_set_new(o, "decomp", json_pack("[i, i, i]", f->decomp[0],
								   f->decomp[1], f->decomp[2]));
			json_object_set_new(o, "fields", json_integer(f->fields));
		}
		else
			json_object_set_new(o, "face", json_string(f->face));
		json_array_append_new(a, o);
	}
	return a;
}

int nbw_calib_face_s(const struct nbw_calib *c, const long box[3], int depth, int elem,
		     const char *face, const char *method, const char *path, const char *mode,
		     double *t, bool *exact, char *how, size_t howlen)
{
	struct nbw_facerun want = {.box = {box[0], box[1], box[2]}, .depth = depth, .elem = elem};
	snprintf(want.face, sizeof(want.face), "%s", face);
	double bytes = nbw_facerun_bytes(&want);
	const struct nbw_facerun *same = NULL, *near = NULL;
	double neard = INFINITY;
	for (size_t i = 0; i < c->nfaces; i++) {
		const struct nbw_facerun *f = &c->faces[i];
		if (is_exchange(f) || strcmp(f->face, face) || strcmp(f->method, method) ||
		    strcmp(f->path, path))
			continue;
		bool shape = !memcmp(f->box, box, sizeof(f->box)) && f->depth == depth &&
			     f->elem == elem;
		if (shape && (!same || !strcmp(f->mode, mode)))
			same = f;
		/* The nearest by bytes; the asked mode before the other at equal distance. */
		double d = fabs(log(nbw_facerun_bytes(f) / bytes));
		if (d < neard || (d == neard && near && strcmp(near->mode, mode) && !strcmp(f->mode, mode))) {
			neard = d;
			near = f;
		}
	}
	*exact = same != NULL;
	if (same) {
		*t = same->seconds;
		snprintf(how, howlen, "%s %s %s/%s", face, method, path, same->mode);
		return 0;
	}
	if (!near || !(bytes > 0.0))
		return -1;
	*t = near->seconds * bytes / nbw_facerun_bytes(near);
	snprintf(how, howlen, "%s %s %s/%s of %ldx%ldx%ld:%d:%d scaled by bytes", face, method,
		 path, near->mode, near->box[0], near->box[1], near->box[2], near->depth,
		 near->elem);
	return 0;
}

int nbw_calib_exchange_s(const struct nbw_calib *c, const long box[3], int depth, int elem,
			 const int decomp[3], const char *method, const char *path,
			 const char *mode, double *t, char *how, size_t howlen)
{
	return nbw_calib_exchange_fields_s(c, box, depth, elem, decomp, 1, method, path, mode, t,
					   how, howlen);
}

int nbw_calib_exchange_fields_s(const struct nbw_calib *c, const long box[3], int depth,
				int elem, const int decomp[3], int fields, const char *method,
				const char *path, const char *mode, double *t, char *how,
				size_t howlen)
{
	const struct nbw_facerun *same = NULL;
	for (size_t i = 0; i < c->nfaces; i++) {
		const struct nbw_facerun *f = &c->faces[i];
		if (!is_exchange(f) || memcmp(f->box, box, sizeof(f->box)) || f->depth != depth ||
		    f->elem != elem || memcmp(f->decomp, decomp, sizeof(f->decomp)) ||
		    f->fields != (fields > 1 ? fields : 1) ||
		    strcmp(f->method, method) || strcmp(f->path, path))
			continue;
		if (!same || (strcmp(same->mode, mode) && !strcmp(f->mode, mode)))
			same = f;
	}
	if (!same)
		return -1;
	*t = same->seconds;
	char dl[48];
	nbw_face_decomp_label(decomp, dl, sizeof(dl));
	bool asked = !strcmp(same->mode, mode);
	char fl[24] = "";
	if (same->fields > 1)
		snprintf(fl, sizeof(fl), " %d fields", same->fields);
	snprintf(how, howlen, "exchange %s%s %s %s/%s%s%s", dl, fl, method, path, same->mode,
		 asked ? "" : " in place of ", asked ? "" : mode);
	return 0;
}
