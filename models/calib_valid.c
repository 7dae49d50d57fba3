/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "validation" of a calibration file: what the run that wrote it validated, each
 * model's MAPE against the measured solver runtimes per (G, version), as the report's
 * accuracy table computed it (include/nodebw/advice.h). Written here, read by calib_read.c
 * (the one reader of calibration.json); computed only by the report (nbw_model_summary).
 *
 *   "validation": {"accuracy": [{"G": 2, "version": "v4", "measure": "speed-matched",
 *                   "n": [40, 52, 64, 76], "unstable_sizes": 0,
 *                   "mape": {"paper": 0.50, "one-device": 0.027, "compute-calibrated":
 *                            0.011, "fitted": 0.009, "compute-only": 0.045}}]}
 *   or {"why": "no verified solver runs ..."} when the run validated nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/advice.h"
#include "nodebw/limits.h"
#include "calib_priv.h"

const char *const nbw_model_names[NBW_MODEL_COUNT] = {"paper", "one-device",
							  "compute-calibrated", "fitted"};

const char *nbw_model_name(enum nbw_model_id m)
{
	return (unsigned)m < NBW_MODEL_COUNT ? nbw_model_names[m] : "?";
}

void nbw_validation_free(struct nbw_validation *v)
{
	if (!v)
		return;
	free(v->e);
	memset(v, 0, sizeof(*v));
}

json_t *nbw_validation_json(const struct nbw_validation *v)
{
	json_t *o = json_object();
	if (v->n == 0) {
		json_object_set_new(o, "why", json_string(v->why[0] ? v->why
								    : "nothing was validated"));
		return o;
	}
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++) {
		const struct nbw_valid_entry *e = &v->e[i];
		json_t *ns = json_array(), *m = json_object();
		for (int k = 0; k < e->nn; k++)
			json_array_append_new(ns, json_integer(e->n[k]));
		for (int k = 0; k < NBW_MODEL_COUNT; k++)
			if (!isnan(e->mape[k]))
				json_object_set_new(m, nbw_model_names[k], json_real(e->mape[k]));
		if (!isnan(e->conly_mape))
			json_object_set_new(m, "compute-only", json_real(e->conly_mape));
		json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:o, s:i, s:o}", "G", e->g,
						   "version", e->version, "measure", e->measure,
						   "n", ns, "unstable_sizes", e->unstable, "mape",
						   m));
	}
	json_object_set_new(o, "accuracy", a);
	return o;
}
