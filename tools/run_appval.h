/* SPDX-License-Identifier: BSD-3-Clause */
/* The application model's validation stage of `nodebw run` (tools/run_appval.c). */
#ifndef NODEBW_TOOLS_RUN_APPVAL_H
#define NODEBW_TOOLS_RUN_APPVAL_H

#include "run_solver.h"

/** After the solver's rounds: the generalised solver's validation configurations and the
 *  one-device runs of their local boxes, predicted and measured into results.json
 *  "app_validation" (or why it was skipped). 0, or -1 with s->err. */
int nbw_run_app_validation(struct nbw_solver_run *s);
/** The seconds the solver's rounds leave for it under a time limit (0 when it will not
 *  run: fewer than 4 devices, or a solver without the generalised options). */
double nbw_run_appval_reserve(const struct nbw_solver_run *s);

#endif
