/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calibration's one-device runs of application local boxes ("local_boxes";
 * include/nodebw/model.h struct nbw_boxrun): what the application model's compute takes for
 * an app of that radius and field count (models/app_model.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_priv.h"
#include "nodebw/app.h"
#include "nodebw/results_view_app.h"

int nbw_calib_add_box(struct nbw_calib *c, int radius, int fields, const long box[3],
		      double step_s)
{
	for (size_t i = 0; i < c->nboxes; i++) {
		struct nbw_boxrun *b = &c->boxes[i];
		if (b->radius == radius && b->fields == fields && !memcmp(b->box, box, sizeof(b->box))) {
			if (step_s < b->step_s)
				b->step_s = step_s;
			return 0;
		}
	}
	struct nbw_boxrun *a = realloc(c->boxes, (c->nboxes + 1) * sizeof(*a));
	if (!a)
		return -1;
	c->boxes = a;
	a[c->nboxes] = (struct nbw_boxrun){.radius = radius, .fields = fields,
					   .box = {box[0], box[1], box[2]}, .step_s = step_s};
	c->nboxes++;
	return 0;
}

bool nbw_calib_is_app_run(json_t *r)
{
	struct nbw_rv_solver_app a;
	nbw_rv_solver_app_read(r, &a);
	return a.general || a.radius != 1 || a.fields != 1;
}

json_t *nbw_calib_boxes_json(const struct nbw_calib *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->nboxes; i++) {
		const struct nbw_boxrun *b = &c->boxes[i];
		json_array_append_new(a, json_pack("{s:i, s:i, s:[I, I, I], s:f}", "radius",
						   b->radius, "fields", b->fields, "box",
						   (json_int_t)b->box[0], (json_int_t)b->box[1],
						   (json_int_t)b->box[2], "step_s", b->step_s));
	}
	return a;
}

void nbw_calib_app_validation_json(json_t *j, json_t *doc)
{
	json_t *v = nbw_rv_appval_json(doc), *val = json_object_get(j, "validation");
	if (!v)
		return;
	if (!val) {
		val = json_object();
		json_object_set_new(j, "validation", val);
	}
	json_object_set_new(val, "applications", json_deep_copy(v));
}
