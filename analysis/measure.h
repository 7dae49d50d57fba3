/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to analysis/: what the analyses share beyond the results module's views of a
 * measurement (include/nodebw/results_view.h): the one size rule of a series, a median, a
 * number for their JSON. */
#ifndef NODEBW_ANALYSIS_MEASURE_H
#define NODEBW_ANALYSIS_MEASURE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/jget.h" /* the analyses' own JSON; the results document: its views */
#include "nodebw/results_view.h"

/* One measurement of a series as the size rule sees it: its size and its device set
 * (stream 0's ends). */
struct nbw_an_point {
	json_int_t bytes;
	int src, dst;
};
/* A series' own size, no longer what any output reads (they all read the run's comparison
 * size, nbw_analysis_comparison_bytes): the
 * largest size measured on every device set (pair, device) of the series; where no size
 * covers them all, the largest of those measured on the most device sets. A set measured
 * several times at one size (the plane-size sweep's processes, a series run twice) counts
 * once. Reorders \p p; \p fallback when n = 0. */
json_int_t nbw_an_series_size(struct nbw_an_point *p, size_t n, json_int_t fallback);
/* Median of \p n values (reorders \p v); NaN when n = 0. */
double nbw_an_median(double *v, size_t n);
/* A JSON number, or null when \p x is not finite or (with \p positive) not > 0. */
json_t *nbw_an_num(double x, bool positive);

#endif
