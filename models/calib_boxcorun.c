/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calibration's co-runs of application local boxes ("local_box_coruns";
 * include/nodebw/model.h struct nbw_boxcorun): `nodebw heat --corun --nx --ny --nz` with
 * the application's radius and field count, every one of G devices computing the whole box
 * at once with the one-device code (at_once of them when a host thread drives each): how
 * G devices computing the application's own box share the hardware. Added from the
 * solver runs (calib_solver.c), written (calib_write.c), read back and looked up here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_priv.h"
#include "nodebw/app.h"
#include "nodebw/jget.h"

bool nbw_calib_is_paper_slab(int radius, int fields, const long box[3], int g)
{
	return radius == 1 && fields == 1 && g >= 2 && box[0] == box[1] && box[0] > 2 &&
	       box[2] == (box[0] - 2 + g - 1) / g + 2;
}

int nbw_calib_add_box_corun(struct nbw_calib *c, const struct nbw_boxcorun *k)
{
	for (size_t i = 0; i < c->nboxcoruns; i++) {
		struct nbw_boxcorun *b = &c->boxcoruns[i];
		if (b->radius == k->radius && b->fields == k->fields && b->g == k->g &&
		    b->per_device == k->per_device && !memcmp(b->box, k->box, sizeof(b->box))) {
			if (k->step_s < b->step_s)
				*b = *k; /* the fastest record, with its devices at once */
			return 0;
		}
	}
	struct nbw_boxcorun *a = realloc(c->boxcoruns, (c->nboxcoruns + 1) * sizeof(*a));
	if (!a)
		return -1;
	c->boxcoruns = a;
	a[c->nboxcoruns++] = *k;
	return 0;
}

json_t *nbw_calib_box_coruns_json(const struct nbw_calib *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->nboxcoruns; i++) {
		const struct nbw_boxcorun *b = &c->boxcoruns[i];
		json_array_append_new(
			a, json_pack("{s:s, s:i, s:i, s:[I, I, I], s:i, s:i, s:f}", "form",
				     b->per_device ? "per-device" : "one-thread", "radius", b->radius,
				     "fields", b->fields, "box", (json_int_t)b->box[0],
				     (json_int_t)b->box[1], (json_int_t)b->box[2], "G", b->g,
				     "at_once", b->at_once, "step_s", b->step_s));
	}
	return a;
}

static int bad(char *err, size_t errlen, size_t i, const char *what)
{
	snprintf(err, errlen, "local_box_coruns[%zu]: %s", i, what);
	return -1;
}

static int read_one(json_t *o, size_t i, struct nbw_boxcorun *k, char *err, size_t errlen)
{
	const char *form = json_string_value(json_object_get(o, "form"));
	json_t *g = json_object_get(o, "G"), *ao = json_object_get(o, "at_once");
	json_t *b = json_object_get(o, "box");
	k->radius = jint(o, "radius", 0);
	k->fields = jint(o, "fields", 0);
	k->step_s = jnum(o, "step_s");
	if (!form || (strcmp(form, "one-thread") != 0 && strcmp(form, "per-device") != 0))
		return bad(err, errlen, i, "\"form\" must be \"one-thread\" or \"per-device\"");
	k->per_device = strcmp(form, "per-device") == 0;
	if (k->radius < 1 || k->radius > NBW_APP_MAX_RADIUS)
		return bad(err, errlen, i, "\"radius\" must be an integer from 1 to 4");
	if (k->fields < 1 || k->fields > NBW_APP_MAX_FIELDS)
		return bad(err, errlen, i, "\"fields\" must be an integer from 1 to 16");
	if (!json_is_integer(g) || json_integer_value(g) < 2 || json_integer_value(g) > 64)
		return bad(err, errlen, i, "\"G\" must be an integer from 2 to 64");
	k->g = (int)json_integer_value(g);
	if (!json_is_integer(ao) || json_integer_value(ao) < 1 || json_integer_value(ao) > k->g)
		return bad(err, errlen, i, "\"at_once\" must be an integer 1 to G");
	k->at_once = (int)json_integer_value(ao);
	if (!(k->step_s >= 1e-12 && k->step_s <= 1e5))
		return bad(err, errlen, i, "\"step_s\" must be seconds from 1e-12 to 1e5");
	if (!json_is_array(b) || json_array_size(b) != 3)
		return bad(err, errlen, i, "\"box\" must be [nx, ny, nz]");
	for (int d = 0; d < 3; d++) {
		json_t *x = json_array_get(b, (size_t)d);
		if (!json_is_integer(x) || json_integer_value(x) < 2L * k->radius + 1 ||
		    json_integer_value(x) > NBW_APP_MAX_SIDE)
			return bad(err, errlen, i, "\"box\" sides must be integers from 2 radius + 1 "
						   "to 100000");
		k->box[d] = (long)json_integer_value(x);
	}
	return 0;
}

int nbw_calib_box_coruns_read(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0; /* calibrations before the box co-runs */
	if (!json_is_array(a)) {
		snprintf(err, errlen, "local_box_coruns: must be an array");
		return -1;
	}
	size_t i;
	json_t *o;
	json_array_foreach(a, i, o) {
		struct nbw_boxcorun k;
		memset(&k, 0, sizeof(k));
		if (read_one(o, i, &k, err, errlen))
			return -1;
		if (nbw_calib_add_box_corun(c, &k))
			return bad(err, errlen, i, "out of memory");
	}
	return 0;
}

int nbw_calib_box_corun(const struct nbw_calib *c, int radius, int fields, const long box[3],
			int g, double *step_s, int *at_once, char *how, size_t howlen)
{
	for (size_t i = 0; i < c->nboxcoruns; i++) {
		const struct nbw_boxcorun *b = &c->boxcoruns[i];
		if (!b->per_device || b->radius != radius || b->fields != fields || b->g != g ||
		    memcmp(b->box, box, sizeof(b->box)) != 0)
			continue;
		*step_s = b->step_s;
		*at_once = b->at_once;
		if (how && howlen)
			snprintf(how, howlen,
				 "co-run of the box %ldx%ldx%ld (radius %d, %d field%s) for G = %d: "
				 "%d device%s at once, a host thread each",
				 box[0], box[1], box[2], radius, fields, fields == 1 ? "" : "s", g,
				 b->at_once, b->at_once == 1 ? "" : "s");
		return 0;
	}
	/* The paper's slab of an N^3 grid is the slab co-run probe's box ("corun"). */
	for (size_t i = 0; nbw_calib_is_paper_slab(radius, fields, box, g) && i < c->ncorun; i++) {
		const struct nbw_corun *k = &c->corun[i];
		if (!k->per_device || k->g != g || k->n != box[0])
			continue;
		*step_s = k->step_s;
		*at_once = k->at_once;
		if (how && howlen)
			snprintf(how, howlen,
				 "co-run probe of G = %d's slab %ldx%ldx%ld of N = %d: %d device%s "
				 "at once, a host thread each",
				 g, box[0], box[1], box[2], k->n, k->at_once,
				 k->at_once == 1 ? "" : "s");
		return 0;
	}
	return -1;
}
