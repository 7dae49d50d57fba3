/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calibration's co-runs of application local boxes ("local_box_coruns";
 * include/nodebw/model.h struct nbw_boxcorun): `nodebw heat --corun --nx --ny --nz` with
 * the application's radius and field count, every one of G devices computing the whole box
 * at once with the one-device code (at_once of them when a host thread drives each): how
 * G devices computing the application's own box share the hardware. Added from the
 * solver runs (calib_solver.c) and written here, read back in calib_read.c, looked up here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_priv.h"

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

/* Written: "local_box_coruns" (read back in calib_read.c). */
json_t *nbw_calib_box_coruns_json(const struct nbw_calib *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->nboxcoruns; i++) {
		const struct nbw_boxcorun *b = &c->boxcoruns[i];
		json_array_append_new(
			a, json_pack("{s:s, s:i, s:i, s:[I, I, I], s:i, s:i, s:f}", "form",
				     b->per_device ? "per-device" : "one-thread", "radius",
				     b->radius, "fields", b->fields, "box", (json_int_t)b->box[0],
				     (json_int_t)b->box[1], (json_int_t)b->box[2], "G", b->g,
				     "at_once", b->at_once, "step_s", b->step_s));
	}
	return a;
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
