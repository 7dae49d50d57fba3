/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw predict`: the model to trust and the warnings outside the calibration, as text
 * under the table and as JSON per row (tools/predict_advice.c). */
#ifndef NODEBW_TOOLS_PREDICT_ADVICE_H
#define NODEBW_TOOLS_PREDICT_ADVICE_H

#include <jansson.h>
#include <stdio.h>

#include "nodebw/advice.h"
#include "nodebw/model.h"

/** What one predicted row adds: the recommendation, its time, the range warnings. */
struct predict_advice {
	int n, g;
	char v[4];
	struct nbw_advice adv;
	double total_s;           /**< the recommended model's prediction */
	struct nbw_range_warning warn[NBW_RANGE_MAX_WARNINGS];
	size_t nwarn;
};

/** Replace \p c's validation by that of the results file \p path (its solver runs as the
 *  report validates them, nbw_model_summary), after checking that \p path is the run that
 *  wrote \p c (the same one-device k(N) and steps). \p from names it. 0, or -1 with \p err. */
int nbw_predict_validation_from_results(const char *path, struct nbw_calib *c, char *from,
					size_t fromlen, char *err, size_t errlen);

/** The row's short line under it in the table. */
void nbw_predict_advice_row(FILE *f, const struct predict_advice *a);
/** The block under the table: why each (G, version)'s model, then every warning once. */
void nbw_predict_advice_block(FILE *f, const struct predict_advice *a, size_t n);
/** "recommended" and "outside_calibration" set on the row's JSON object \p row. */
void nbw_predict_advice_json(json_t *row, const struct predict_advice *a, const char *from);

#endif
