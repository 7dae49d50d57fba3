/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Summary statistics of repeated samples (GSL underneath).
 */
#ifndef NODEBW_STATS_H
#define NODEBW_STATS_H

#include <stddef.h>

struct nbw_summary {
	size_t n;
	double median, min, max, mean;
	double sd;     /**< sample standard deviation (n-1); 0 when n < 2 */
	double cv;     /**< sd / mean; 0 when n < 2 or mean == 0 */
};

/** Summarise \p n values (the array is not modified). 0, or -1 when n == 0. */
int nbw_summarize(const double *x, size_t n, struct nbw_summary *out);

/** The median of \p n values, sorting them in place (ascending); NaN when n == 0. */
double nbw_median(double *x, size_t n);

/** Bandwidth in GB/s (1e9 B/s) for each time sample: out[i] = bytes / t[i] / 1e9. */
void nbw_rates_gbps(const double *seconds, size_t n, double bytes, double *out);

#endif
