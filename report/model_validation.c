/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run's validation as the models keep it (include/nodebw/advice.h): the summary's
 * accuracy per (G, version), read through its typed view. calibration.json stores it and
 * `nodebw predict` recommends by it; the MAPEs are the report's own (nbw_model_summary),
 * never computed again.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/advice.h"
#include "nodebw/report.h"

int nbw_model_validation(json_t *summary, struct nbw_validation *out)
{
	memset(out, 0, sizeof(*out));
	struct nbw_rs_accuracy a;
	size_t n = 0;
	while (nbw_rs_accuracy(summary, n, &a))
		n++;
	if (n == 0) {
		const char *why = nbw_rs_solver_why(summary);
		snprintf(out->why, sizeof(out->why), "%s",
			 why && why[0] ? why : "no solver runs were validated");
		return 0;
	}
	out->e = calloc(n, sizeof(*out->e));
	if (!out->e)
		return -1;
	for (size_t i = 0; i < n && nbw_rs_accuracy(summary, i, &a); i++) {
		/* A (G, version) whose every grid was unstable has no MAPE: nothing to choose by. */
		if (a.sizes == 0 || a.nn == 0)
			continue;
		struct nbw_valid_entry *e = &out->e[out->n];
		memset(e, 0, sizeof(*e));
		e->g = a.g;
		snprintf(e->version, sizeof(e->version), "%s", a.version);
		snprintf(e->measure, sizeof(e->measure), "%s", a.measure);
		e->unstable = a.unstable_sizes;
		for (size_t k = 0; k < a.nn && e->nn < NBW_VALID_MAX_N; k++)
			e->n[e->nn++] = nbw_rs_accuracy_n(&a, k);
		e->mape[NBW_MODEL_PAPER] = a.paper_mape;
		e->mape[NBW_MODEL_ONEDEV] = a.onedev_mape;
		e->mape[NBW_MODEL_COMPCAL] = a.compcal_mape;
		e->mape[NBW_MODEL_FITTED] = a.extended_mape;
		e->conly_mape = a.conly_mape;
		out->n++;
	}
	if (out->n == 0)
		snprintf(out->why, sizeof(out->why), "every validated grid size was unstable "
						     "(its rounds disagreed by more than 1.2x)");
	return 0;
}
