/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which model to trust (include/nodebw/advice.h, doc/model.md "Which model to trust"): the
 * one with the lowest MAPE in the run's own validation of that version and G, among the
 * models that can predict the configuration asked; without a validation, the model that
 * takes the most of this node's own measurements.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/advice.h"

/* Appends to a fixed buffer, never past its end. */
struct sbuf {
	char *s;
	size_t len, w;
};

static void add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct sbuf *b, const char *fmt, ...)
{
	if (b->w >= b->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(b->s + b->w, b->len - b->w, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->w += (size_t)k;
	if (b->w > b->len)
		b->w = b->len;
}

/* What each model adds to the one before it, for the default's reason. */
static const char *const adds[NBW_MODEL_COUNT] = {
	"k-bar and beta only",
	("it adds what the paper's model leaves out: G devices computing at once (the co-run "
	 "probe, or the device kind's rule), the launches and the planes each host thread "
	 "moves, from one-device runs and probes"),
	("its compute is the versions' own runs without the halo copies, with the measured "
	 "copies on top"),
	("it corrects the compute-calibrated model by the versions' own timed runs at the "
	 "other grid sizes"),
};

static const struct nbw_valid_entry *entry_of(const struct nbw_validation *val, int g,
					      const char *v, bool *at_g)
{
	const struct nbw_valid_entry *best = NULL;
	*at_g = false;
	for (size_t i = 0; val && i < val->n; i++) {
		const struct nbw_valid_entry *e = &val->e[i];
		if (strcmp(e->version, v) != 0)
			continue;
		if (e->g == g) {
			*at_g = true;
			return e;
		}
		/* The nearest G; of two as near, the larger (more devices, more like g). */
		if (!best || abs(e->g - g) < abs(best->g - g) ||
		    (abs(e->g - g) == abs(best->g - g) && e->g > best->g))
			best = e;
	}
	return best;
}

static void list_n(struct sbuf *b, const struct nbw_valid_entry *e)
{
	for (int i = 0; i < e->nn; i++)
		add(b, "%s%d", i ? ", " : "", e->n[i]);
}

/* The validated models of \p e by MAPE, ascending, into \p b. */
static void list_mapes(struct sbuf *b, const struct nbw_valid_entry *e,
		       const bool can[NBW_MODEL_COUNT])
{
	int order[NBW_MODEL_COUNT], k = 0;
	for (int m = 0; m < NBW_MODEL_COUNT; m++)
		if (!isnan(e->mape[m]))
			order[k++] = m;
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && e->mape[order[j]] < e->mape[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < k; i++)
		add(b, "%s%s %.1f %%%s", i ? ", " : "", nbw_model_name(order[i]),
		    100.0 * e->mape[order[i]], can[order[i]] ? "" : " (cannot predict this one)");
	if (!isnan(e->conly_mape))
		add(b, "; the compute-only baseline %.1f %%", 100.0 * e->conly_mape);
}

int nbw_recommend(const struct nbw_validation *val, const char *val_from, int g,
		  const char *v, const bool can[NBW_MODEL_COUNT], struct nbw_advice *out)
{
	memset(out, 0, sizeof(*out));
	out->mape = NAN;
	struct sbuf b = {out->why, sizeof(out->why), 0};
	out->why[0] = '\0';
	bool any = false;
	for (int m = 0; m < NBW_MODEL_COUNT; m++)
		any |= can[m];
	if (!any)
		return -1;
	bool at_g;
	const struct nbw_valid_entry *e = entry_of(val, g, v, &at_g);
	int best = -1;
	for (int m = 0; e && m < NBW_MODEL_COUNT; m++)
		if (can[m] && !isnan(e->mape[m]) && (best < 0 || e->mape[m] < e->mape[best]))
			best = m;
	if (best >= 0) {
		out->model = (enum nbw_model_id)best;
		out->validated = true;
		out->at_g = at_g;
		out->mape = e->mape[best];
		out->on = e;
		if (at_g)
			add(&b, "lowest MAPE against the measured runtimes of %s on G=%d", v, g);
		else
			add(&b, "G=%d was not validated; of the models that predict it, the lowest "
				"MAPE against the measured runtimes of %s on G=%d, the nearest "
				"validated G", g, v, e->g);
		add(&b, " (%s, N=", e->measure[0] ? e->measure : "measured");
		list_n(&b, e);
		add(&b, "%s): ", e->unstable ? "; unstable sizes left out" : "");
		list_mapes(&b, e, can);
		if (val_from[0])
			add(&b, " (validation: %s)", val_from);
		return 0;
	}
	/* No validation to choose by: say why, then the default. */
	if (!val)
		add(&b, "this calibration holds no validation (written by hand, or by a nodebw "
			"that did not store it: 'nodebw predict --results' takes it from the run's "
			"results.json)");
	else if (val->n == 0)
		add(&b, "the run validated no model%s%s", val->why[0] ? ": " : "", val->why);
	else if (!e)
		add(&b, "the run validated no run of %s", v);
	else
		add(&b, "none of the models that predict %s on G=%d was validated", v, g);
	int m = NBW_MODEL_FITTED;
	while (m > NBW_MODEL_PAPER && !can[m])
		m--;
	out->model = (enum nbw_model_id)m;
	if (m == NBW_MODEL_PAPER)
		add(&b, "; by default the paper's model, the only one this calibration can compute "
			"(%s)", adds[m]);
	else
		add(&b, "; by default the %s model, of the models this calibration can compute "
			"the one built on the most of the node's own measurements (fitted, then "
			"compute-calibrated, one-device, paper; doc/model.md has their recorded "
			"accuracy): %s", nbw_model_name(m), adds[m]);
	return 0;
}
