/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw predict`'s recommendation and range warnings (doc/model.md "Which model to trust"
 * and "Outside the calibration"): printed and put in JSON here; chosen by
 * models/recommend.c on the run's own validation, checked by models/range.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict_advice.h"
#include "nodebw/curves.h"
#include "nodebw/report.h"

/* The key of each model's object in a row of `nodebw predict --json`. */
static const char *const row_key[NBW_MODEL_COUNT] = {"paper", "one_device",
						     "compute_calibrated", "extended"};

/* Whether \p a and \p b hold the same one-device k(N) and steps: the same run. */
static bool same_run(const struct nbw_calib *a, const struct nbw_calib *b, char *why,
		     size_t whylen)
{
	if (a->steps != b->steps) {
		snprintf(why, whylen, "their steps differ (%d against %d)", a->steps, b->steps);
		return false;
	}
	if (a->nk != b->nk) {
		snprintf(why, whylen, "their one-device runs differ (%zu grid sizes against %zu)",
			 a->nk, b->nk);
		return false;
	}
	for (size_t i = 0; i < a->nk; i++) {
		const struct nbw_ksample *x = &a->k[i], *y = &b->k[i];
		if (x->n != y->n || fabs(x->k - y->k) > 1e-6 * fabs(y->k)) {
			snprintf(why, whylen, "their one-device k(N) differ (N=%d: %.6g s against "
				 "N=%d: %.6g s)", x->n, x->k, y->n, y->k);
			return false;
		}
	}
	return true;
}

int nbw_predict_validation_from_results(const char *path, struct nbw_calib *c, char *from,
					size_t fromlen, char *err, size_t errlen)
{
	struct nbw_rinput in;
	const char *paths[1] = {path};
	if (nbw_rinput_load(&in, paths, 1, err, errlen))
		return -1;
	char why[300];
	if (!in.calib) {
		snprintf(err, errlen, "%s: no calibration can be derived from it (%s)", path,
			 in.calib_err);
		nbw_rinput_free(&in);
		return -1;
	}
	if (!same_run(in.calib, c, why, sizeof(why))) {
		snprintf(err, errlen, "--results %s is not the run the calibration came from: %s",
			 path, why);
		nbw_rinput_free(&in);
		return -1;
	}
	json_t *model = nbw_model_summary(&in);
	json_t *wrap = json_pack("{s:o}", "solver", model);
	struct nbw_validation *val = calloc(1, sizeof(*val));
	int rc = val && wrap ? nbw_model_validation(wrap, val) : -1;
	json_decref(wrap);
	nbw_rinput_free(&in);
	if (rc) {
		free(val);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (c->valid) {
		nbw_validation_free(c->valid);
		free(c->valid);
	}
	c->valid = val;
	snprintf(from, fromlen, "the solver runs of %s", path);
	return 0;
}

/* "40-76" or "64" */
static void n_span(char *buf, size_t len, const struct nbw_valid_entry *e)
{
	if (e->nn == 1)
		snprintf(buf, len, "%d", e->n[0]);
	else
		snprintf(buf, len, "%d-%d", e->n[0], e->n[e->nn - 1]);
}

void nbw_predict_advice_row(FILE *f, const struct predict_advice *a)
{
	const struct nbw_advice *r = &a->adv;
	if (r->validated) {
		char ns[32];
		n_span(ns, sizeof(ns), r->on);
		fprintf(f, "%14s %s, %.6g s (MAPE %.1f %% on G=%d %s, N=%s%s)\n", "recommended:",
			nbw_model_name(r->model), a->total_s, 100.0 * r->mape, r->on->g, a->v, ns,
			r->at_g ? "" : ", the nearest validated G");
	} else {
		fprintf(f, "%14s %s, %.6g s (no validation: the default)\n", "recommended:",
			nbw_model_name(r->model), a->total_s);
	}
	if (!a->nwarn)
		return;
	fprintf(f, "%14s", "OUTSIDE:");
	for (size_t i = 0; i < a->nwarn; i++) {
		fprintf(f, "%s %s", i ? "," : "", a->warn[i].what);
		if (!isnan(a->warn[i].factor))
			fprintf(f, " (%.2gx)", a->warn[i].factor);
	}
	fprintf(f, " of the calibration: see the warnings below\n");
}

void nbw_predict_advice_block(FILE *f, const struct predict_advice *a, size_t n)
{
	fprintf(f, "\nWhich model to trust (the lowest MAPE of this run's validation against "
		   "its measured solver runtimes, per G and version; doc/model.md):\n");
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < i && !(a[k].g == a[i].g && strcmp(a[k].v, a[i].v) == 0))
			k++;
		if (k < i)
			continue;
		fprintf(f, "  G=%d %s: %s: %s\n", a[i].g, a[i].v, nbw_model_name(a[i].adv.model),
			a[i].adv.why);
	}
	/* Every warning once, with each distinct command that would measure it. */
	size_t shown = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t w = 0; w < a[i].nwarn; w++) {
			const struct nbw_range_warning *x = &a[i].warn[w];
			bool seen = false;
			for (size_t k = 0; k <= i && !seen; k++)
				for (size_t m = 0; m < a[k].nwarn && !seen; m++)
					seen = (k < i || m < w) &&
					       strcmp(a[k].warn[m].text, x->text) == 0;
			if (seen)
				continue;
			if (!shown++)
				fprintf(f, "\nOutside the calibration (the predictions above extrapolate "
					   "there):\n");
			fprintf(f, "  WARNING: %s\n", x->text);
			for (size_t k = i; k < n; k++)
				for (size_t m = 0; m < a[k].nwarn; m++) {
					const struct nbw_range_warning *y = &a[k].warn[m];
					if (!y->run[0] || strcmp(y->text, x->text) != 0)
						continue;
					bool dup = false;
					for (size_t k2 = i; k2 <= k && !dup; k2++)
						for (size_t m2 = 0; m2 < a[k2].nwarn && !dup; m2++)
							dup = (k2 < k || m2 < m) &&
							      strcmp(a[k2].warn[m2].text, x->text) == 0 &&
							      strcmp(a[k2].warn[m2].run, y->run) == 0;
					if (!dup)
						fprintf(f, "    to measure it: %s\n", y->run);
				}
		}
}

void nbw_predict_advice_json(json_t *row, const struct predict_advice *a, const char *from)
{
	const struct nbw_advice *r = &a->adv;
	json_t *rec = json_pack("{s:s, s:s, s:f, s:b, s:s}", "model", nbw_model_name(r->model),
				"key", row_key[r->model], "total_s", a->total_s, "validated",
				r->validated, "why", r->why);
	json_object_set_new(rec, "mape", r->validated ? json_real(r->mape) : json_null());
	if (r->validated) {
		json_t *ns = json_array();
		for (int i = 0; i < r->on->nn; i++)
			json_array_append_new(ns, json_integer(r->on->n[i]));
		json_object_set_new(rec, "validated_on",
				    json_pack("{s:i, s:s, s:o, s:s, s:i, s:b, s:s}", "G", r->on->g,
					      "version", r->on->version, "n", ns, "measure",
					      r->on->measure, "unstable_sizes", r->on->unstable,
					      "at_this_G", r->at_g, "from", from));
	} else {
		json_object_set_new(rec, "validated_on", json_null());
	}
	json_object_set_new(row, "recommended", rec);
	json_t *ws = json_array();
	for (size_t i = 0; i < a->nwarn; i++) {
		const struct nbw_range_warning *w = &a->warn[i];
		json_array_append_new(
			ws, json_pack("{s:s, s:o, s:s, s:o}", "what", w->what, "factor",
				      isnan(w->factor) ? json_null() : json_real(w->factor), "message",
				      w->text, "to_measure",
				      w->run[0] ? json_string(w->run) : json_null()));
	}
	json_object_set_new(row, "outside_calibration", ws);
}
