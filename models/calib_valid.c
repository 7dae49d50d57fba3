/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "validation" of a calibration file: what the run that wrote it validated, each
 * model's MAPE against the measured solver runtimes per (G, version), as the report's
 * accuracy table computed it (include/nodebw/advice.h). Read and written here; computed
 * only by the report (nbw_model_summary).
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

static const char *const model_names[NBW_MODEL_COUNT] = {"paper", "one-device",
							  "compute-calibrated", "fitted"};

const char *nbw_model_name(enum nbw_model_id m)
{
	return (unsigned)m < NBW_MODEL_COUNT ? model_names[m] : "?";
}

void nbw_validation_free(struct nbw_validation *v)
{
	if (!v)
		return;
	free(v->e);
	memset(v, 0, sizeof(*v));
}

static int vbad(char *err, size_t errlen, const char *at, const char *what)
{
	snprintf(err, errlen, "%s: %s", at, what);
	return -1;
}

/* A MAPE: a fraction >= 0 (a model may miss by more than 100 %), or absent (NAN). */
static int mape_of(json_t *m, const char *key, double *out, const char *at, char *err,
		   size_t errlen)
{
	json_t *x = json_object_get(m, key);
	*out = NAN;
	if (!x)
		return 0;
	if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0.0 ||
	    json_number_value(x) > 1e6) {
		char where[160];
		snprintf(where, sizeof(where), "%s.mape.%s", at, key);
		return vbad(err, errlen, where, "must be a fraction >= 0 (0.05 = 5 %)");
	}
	*out = json_number_value(x);
	return 0;
}

static int read_entry(json_t *o, const char *at, struct nbw_valid_entry *e, char *err,
		      size_t errlen)
{
	memset(e, 0, sizeof(*e));
	if (!json_is_object(o))
		return vbad(err, errlen, at, "must be an object");
	json_t *g = json_object_get(o, "G"), *ns = json_object_get(o, "n");
	json_t *u = json_object_get(o, "unstable_sizes"), *m = json_object_get(o, "mape");
	const char *v = json_string_value(json_object_get(o, "version"));
	const char *meas = json_string_value(json_object_get(o, "measure"));
	if (!json_is_integer(g) || json_integer_value(g) < 2 ||
	    json_integer_value(g) > NBW_MAX_DEVICES)
		return vbad(err, errlen, at, "\"G\" must be an integer 2 to 64");
	if (!v || strlen(v) != 2 || v[0] != 'v' || v[1] < '1' || v[1] > '4')
		return vbad(err, errlen, at, "\"version\" must be \"v1\" to \"v4\"");
	if (!json_is_array(ns) || json_array_size(ns) < 1 ||
	    json_array_size(ns) > NBW_VALID_MAX_N)
		return vbad(err, errlen, at, "\"n\" must be an array of 1 to 32 grid sizes");
	if (u && (!json_is_integer(u) || json_integer_value(u) < 0 ||
		  json_integer_value(u) > NBW_GRID_MAX_SIDE))
		return vbad(err, errlen, at, "\"unstable_sizes\" must be an integer >= 0");
	if (!json_is_object(m))
		return vbad(err, errlen, at, "\"mape\" must be an object of the models' MAPEs");
	e->g = (int)json_integer_value(g);
	snprintf(e->version, sizeof(e->version), "%s", v);
	snprintf(e->measure, sizeof(e->measure), "%s", meas ? meas : "");
	e->unstable = u ? (int)json_integer_value(u) : 0;
	size_t i;
	json_t *x;
	json_array_foreach(ns, i, x) {
		if (!json_is_integer(x) || json_integer_value(x) < 3 ||
		    json_integer_value(x) > NBW_GRID_MAX_SIDE ||
		    (i && json_integer_value(x) <= e->n[i - 1]))
			return vbad(err, errlen, at, "\"n\" must hold grid sizes 3 to 100000, "
						     "ascending");
		e->n[e->nn++] = (int)json_integer_value(x);
	}
	bool any = false;
	for (int k = 0; k < NBW_MODEL_COUNT; k++) {
		if (mape_of(m, model_names[k], &e->mape[k], at, err, errlen))
			return -1;
		any |= !isnan(e->mape[k]);
	}
	if (mape_of(m, "compute-only", &e->conly_mape, at, err, errlen))
		return -1;
	if (!any)
		return vbad(err, errlen, at, "\"mape\" holds no model's MAPE");
	return 0;
}

int nbw_validation_read(json_t *j, struct nbw_validation *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!j)
		return 0;
	if (!json_is_object(j))
		return vbad(err, errlen, "validation", "must be an object (\"accuracy\" or \"why\")");
	json_t *why = json_object_get(j, "why"), *acc = json_object_get(j, "accuracy");
	if (why && !json_is_string(why))
		return vbad(err, errlen, "validation.why", "must be a string");
	if (acc && !json_is_array(acc))
		return vbad(err, errlen, "validation.accuracy", "must be an array");
	snprintf(out->why, sizeof(out->why), "%s", why ? json_string_value(why) : "");
	size_t n = json_array_size(acc);
	if (n > (size_t)4 * NBW_MAX_DEVICES)
		return vbad(err, errlen, "validation.accuracy", "more entries than (G, version) "
								"pairs");
	if (n == 0)
		return 0;
	out->e = calloc(n, sizeof(*out->e));
	if (!out->e)
		return vbad(err, errlen, "validation", "out of memory");
	for (size_t i = 0; i < n; i++) {
		char at[64];
		snprintf(at, sizeof(at), "validation.accuracy[%zu]", i);
		if (read_entry(json_array_get(acc, i), at, &out->e[i], err, errlen))
			return -1;
		for (size_t k = 0; k < i; k++)
			if (out->e[k].g == out->e[i].g &&
			    strcmp(out->e[k].version, out->e[i].version) == 0)
				return vbad(err, errlen, at, "a second entry of the same G and "
							     "version");
		out->n = i + 1;
	}
	return 0;
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
				json_object_set_new(m, model_names[k], json_real(e->mape[k]));
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
