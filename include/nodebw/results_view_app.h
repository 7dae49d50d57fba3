/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Typed view of what a solver run of the generalised solver records about its
 * configuration (nodebw heat --version general, --radius, --fields, --app; doc/heat.md):
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
	int decomp[3];          /**< "decomp" ("2x2x1" or [2, 2, 1]); all 0 when absent */
	const char *exchange;   /**< "exchange" of the general solver ("host-staged",
				 *   "device"), "" otherwise */
	const char *copy;       /**< "copy": "rect", "pack"; "" */
	int overlap;            /**< "overlap": 1, 0; -1 absent */
	bool general;           /**< a run of the general solver (it has "decomp") */
	const char *app_name;   /**< "app"."name" of a run made with --app; "" */
};

/** The configuration of solver run \p r (an element of "solver_runs"). */
void nbw_rv_solver_app_read(json_t *r, struct nbw_rv_solver_app *out);

#endif
