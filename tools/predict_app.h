/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw predict --app`: the application model's predictions, recommendation and
 * warnings (tools/predict_app.c). */
#ifndef NODEBW_TOOLS_PREDICT_APP_H
#define NODEBW_TOOLS_PREDICT_APP_H

#include <stdbool.h>
#include <stdio.h>

#include "nodebw/app.h"
#include "nodebw/model.h"

/** Predict \p a on each G of \p gs (every decomposition that fits when the app leaves it
 *  open) from \p c: the table and recommendation, or with \p json the rows, on \p out.
 *  0, or -1 with \p err (no decomposition fits, the calibration lacks a path). */
int nbw_predict_app(const struct nbw_calib *c, const struct nbw_app *a, const char *app_path,
		    const char *calib_path, const int *gs, int ng, bool json, FILE *out,
		    char *err, size_t errlen);

#endif
