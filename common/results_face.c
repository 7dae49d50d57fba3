/* SPDX-License-Identifier: BSD-3-Clause */
/* A face probe's shape in the results document (include/nodebw/results.h, struct
 * nbw_face_rec; doc/results-schema.md "shape"), and its typed view (nbw_rv_face_read). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/face.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"
#include "results_priv.h"

uint64_t nbw_face_rec_stream_bytes(const struct nbw_face_rec *f, unsigned i)
{
	return i < NBW_MAX_STREAMS ? nbw_face_bytes(&f->shape, (enum nbw_face)f->faces[i]) : 0;
}

uint64_t nbw_face_rec_step_bytes(const struct nbw_face_rec *f, unsigned nstreams)
{
	uint64_t b = 0;
	for (unsigned i = 0; i < nstreams && i < NBW_MAX_STREAMS; i++)
		b += nbw_face_rec_stream_bytes(f, i);
	return b * (uint64_t)(f->fields > 1 ? f->fields : 1);
}

void nbw_face_rec_to_json(const struct nbw_measurement *m, json_t *j)
{
	const struct nbw_face_rec *f = &m->face;
	json_t *sh = json_pack("{s:[I, I, I], s:s, s:I, s:I, s:s, s:I, s:I, s:I}", "box",
			       (json_int_t)f->shape.n[0], (json_int_t)f->shape.n[1],
			       (json_int_t)f->shape.n[2], "face",
			       nbw_face_name((enum nbw_face)f->faces[0]), "depth",
			       (json_int_t)f->shape.depth, "element_bytes", (json_int_t)f->shape.elem,
			       "method", nbw_face_method_name(f->method), "face_bytes",
			       (json_int_t)nbw_face_rec_stream_bytes(f, 0), "step_bytes",
			       (json_int_t)nbw_face_rec_step_bytes(f, m->nstreams), "messages",
			       (json_int_t)m->nstreams);
	if (f->decomp[0] > 0) {
		char dl[48];
		nbw_face_decomp_label(f->decomp, dl, sizeof(dl));
		json_object_set_new(sh, "decomp", json_string(dl));
		json_object_set_new(sh, "path", json_string(f->staged ? "host-staged" : "device"));
		json_object_set_new(sh, "fields", json_integer(f->fields > 1 ? f->fields : 1));
	}
	json_object_set_new(j, "shape", sh);
	json_t *st = json_object_get(j, "streams");
	for (unsigned i = 0; i < m->nstreams; i++)
		json_object_set_new(json_array_get(st, i), "face",
				    json_string(nbw_face_name((enum nbw_face)f->faces[i])));
}

int nbw_face_rec_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen)
{
	json_t *sh = json_object_get(j, "shape");
	if (!sh || json_is_null(sh))
		return 0;
	json_int_t nx, ny, nz, depth, elem;
	const char *face, *method;
	json_error_t je;
	if (json_unpack_ex(sh, &je, 0, "{s:[I, I, I], s:s, s:I, s:I, s:s}", "box", &nx, &ny, &nz,
			   "face", &face, "depth", &depth, "element_bytes", &elem, "method",
			   &method)) {
		snprintf(err, errlen, "shape: %s", je.text);
		return -1;
	}
	char label[160], why[256];
	snprintf(label, sizeof(label), "%lldx%lldx%lld:%lld:%lld", (long long)nx, (long long)ny,
		 (long long)nz, (long long)depth, (long long)elem);
	int f = nbw_face_parse(face), me = nbw_face_method_parse(method);
	if (nx < 0 || ny < 0 || nz < 0 || depth < 0 || elem < 0 ||
	    nbw_face_shape_parse(label, &m->face.shape, why, sizeof(why)) || f < 0 || me < 0) {
		snprintf(err, errlen, "shape: not a box, face and method nodebw measures (%s)",
			 label);
		return -1;
	}
	m->face.has = true;
	m->face.method = (enum nbw_face_method)me;
	json_t *dc = json_object_get(sh, "decomp"), *pa = json_object_get(sh, "path");
	if (dc && (!json_is_string(dc) ||
		   nbw_face_decomp_parse(json_string_value(dc), m->face.decomp, why, sizeof(why)))) {
		snprintf(err, errlen, "shape.decomp: not PXxPYxPZ");
		return -1;
	}
	const char *ps = json_string_value(pa);
	if (pa && (!ps || (strcmp(ps, "device") && strcmp(ps, "host-staged")))) {
		snprintf(err, errlen, "shape.path: not \"device\" or \"host-staged\"");
		return -1;
	}
	m->face.staged = ps && !strcmp(ps, "host-staged");
	json_t *fl = json_object_get(sh, "fields");
	if (fl && (!json_is_integer(fl) || json_integer_value(fl) < 1 ||
		   json_integer_value(fl) > NBW_FACE_MAX_FIELDS)) {
		snprintf(err, errlen, "shape.fields: not an integer from 1 to %d",
			 NBW_FACE_MAX_FIELDS);
		return -1;
	}
	m->face.fields = fl ? (int)json_integer_value(fl) : 1;
	json_t *st = json_object_get(j, "streams");
	for (size_t i = 0; i < json_array_size(st) && i < NBW_MAX_STREAMS; i++) {
		json_t *sf = json_object_get(json_array_get(st, i), "face");
		int v = sf ? nbw_face_parse(json_string_value(sf)) : f;
		if (v < 0) {
			snprintf(err, errlen, "streams[%zu].face is not z, y or x", i);
			return -1;
		}
		m->face.faces[i] = (unsigned char)v;
	}
	if (json_array_size(st) == 0)
		m->face.faces[0] = (unsigned char)f;
	return 0;
}

static long long jll(json_t *v, long long dflt)
{
	return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

bool nbw_rv_face_read(const struct nbw_rv_meas *x, struct nbw_rv_face *out)
{
	memset(out, 0, sizeof(*out));
	out->face = out->method = out->kind = out->exchange = "";
	out->seconds = out->gbps = NAN;
	json_t *sh = x->face ? json_object_get(x->j, "shape") : NULL;
	if (!json_is_object(sh))
		return false;
	json_t *box = json_object_get(sh, "box");
	for (size_t a = 0; a < 3; a++)
		out->box[a] = (unsigned)jll(json_array_get(box, a), 0);
	out->depth = (unsigned)jint(sh, "depth", 0);
	out->element_bytes = (unsigned)jint(sh, "element_bytes", 0);
	out->face = jstr(sh, "face");
	out->method = jstr(sh, "method");
	out->kind = x->concurrency;
	const char *path = jstr(sh, "path");
	out->exchange = *path ? path : strcmp(x->direction, "p2p") == 0 ? "device" : "host-staged";
	const char *dc = jstr(sh, "decomp");
	char why[160];
	int d[3];
	if (*dc && nbw_face_decomp_parse(dc, d, why, sizeof(why)) == 0)
		memcpy(out->decomp, d, sizeof(out->decomp));
	out->face_bytes = jll(json_object_get(sh, "face_bytes"), -1);
	out->step_bytes = jll(json_object_get(sh, "step_bytes"), -1);
	out->messages = (int)jint(sh, "messages", -1);
	out->fields = (int)jint(sh, "fields", 1);
	if (out->fields < 1)
		out->fields = 1;
	out->seconds = x->seconds;
	out->gbps = x->gbps;
	return true;
}
