/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Typed view of what a solver run of the generalised solver records about its
 * configuration ("config") (nodebw heat --version general, --radius, --fields, --app; doc/heat.md):
 * the application model's one-device local boxes and the validation of nodebw run read
 * them here (common/results_view_app.c).
 */
#ifndef NODEBW_RESULTS_VIEW_APP_H
#define NODEBW_RESULTS_VIEW_APP_H

#include <jansson.h>
#include <stdbool.h>

struct nbw_rv_solver_app {
	int radius;             /**< "radius"; 1 when absent (the 7-point solver) */
	int fields;             /**< "fields"; 1 when absent */
	int decomp[3];          /**< "decomp" ([2, 2, 1]); all 0 when absent */
	const char *exchange;   /**< "exchange" of the general solver ("host-staged",
				 *   "device"), "" otherwise */
	const char *copy;       /**< "copy": "rect", "pack"; "" */
	int overlap;            /**< "overlap": 1, 0; -1 absent */
	bool general;           /**< a run of the general version ("version": "general") */
	const char *app_name;   /**< "app"."name" of a run made with --app; "" */
};

/** The configuration of solver run \p r (an element of "solver_runs"). */
void nbw_rv_solver_app_read(json_t *r, struct nbw_rv_solver_app *out);

/** One configuration of the run's application-model validation ("app_validation"
 *  "configurations", written by nodebw run, tools/run_appval.c). */
struct nbw_rv_appval {
	const char *name, *decomp, *exchange, *copy; /**< "" when absent */
	const char *not_predicted;  /**< why the model could not predict it; "" */
	const char *compute_from, *exchange_from;
	int radius, fields;         /**< 0 absent */
	double measured_s, predicted_s, compute_only_s; /**< whole run; NaN */
	double error_pct, compute_only_error_pct;       /**< NaN */
	double compute_s, exchange_s, launch_s;         /**< NaN */
};

/** Why document \p doc's application-model validation was skipped, or NULL (it ran, or the
 *  document has none). */
const char *nbw_rv_appval_skipped(json_t *doc);
/** Configuration \p i of \p doc's validation; false past the last. */
bool nbw_rv_appval_row(json_t *doc, size_t i, struct nbw_rv_appval *out);
/** The whole "app_validation" object of \p doc (borrowed), or NULL: what calibration.json
 *  keeps of it. */
json_t *nbw_rv_appval_json(json_t *doc);

#endif
