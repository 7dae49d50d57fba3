/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Summary statistics of repeated samples (GSL underneath).
 */
#ifndef NODEBW_STATS_H
#define NODEBW_STATS_H

#include <stdbool.h>
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

/** The confidence level of every measurement's interval of its median. */
#define NBW_CI_LEVEL 0.95
/** A measurement has converged when that interval is within +-this of the median
 *  (relative half-width, nbw_ci_half_width) at a coverage of at least NBW_CI_LEVEL. */
#define NBW_CI_TARGET 0.01

/** The ranks (1-based, j <= k = n + 1 - j) of the distribution-free confidence interval of
 *  the median of \p n samples, [x_(j), x_(k)] of the sorted samples: the narrowest symmetric
 *  pair whose coverage P(x_(j) <= median <= x_(k)) = sum_{i=j}^{k-1} C(n,i) / 2^n (the
 *  binomial(n, 1/2) law of how many samples fall below the true median) is at least
 *  \p level. Where no pair reaches it (n < 6 for 95 %), j = 1 and k = n: [min, max].
 *  \p coverage gets the pair's real coverage (n = 5: 0.9375; n = 1: 0). 0, or -1 when
 *  n == 0 or \p level is not in (0, 1). */
int nbw_median_ci_ranks(size_t n, double level, size_t *j, size_t *k, double *coverage);

/** The coverage of ranks \p j and n + 1 - j (1-based): 1 - 2 P(B <= j - 1), B ~
 *  binomial(n, 1/2); 0 when 2 j > n (the sample median itself) or j == 0. It grows with n
 *  for a fixed j and falls as j grows, so the ranks of n + 1 samples are those of n or
 *  higher (what an incremental search relies on). */
double nbw_median_ci_coverage(size_t n, size_t j);

/** The confidence interval [\p lo, \p hi] of the median of \p n values (the array is not
 *  modified) at \p level, from the order statistics of nbw_median_ci_ranks, and its real
 *  \p coverage (any of the three may be NULL). 0, or -1 when n == 0, \p level is not in
 *  (0, 1) or memory runs out. */
int nbw_median_ci(const double *x, size_t n, double level, double *lo, double *hi,
		  double *coverage);

/** The same on \p n values already sorted ascending (no copy, no allocation). */
int nbw_median_ci_sorted(const double *sorted, size_t n, double level, double *lo, double *hi,
			 double *coverage);

/** A median's confidence interval, as a measurement keeps it. */
struct nbw_median_ci {
	size_t n;                 /**< samples; 0: no interval */
	double level;             /**< asked for (NBW_CI_LEVEL) */
	double coverage;          /**< what the ranks really give */
	size_t j, k;              /**< 1-based ranks of lo and hi among the sorted samples */
	double lo, hi;            /**< the interval, in the samples' unit */
	double median;
	double half_width;        /**< relative, nbw_ci_half_width */
};

/** The interval of \p n values at \p level with its median and half-width (cleared, n = 0,
 *  when n == 0). 0 or -1. */
int nbw_median_ci_of(const double *x, size_t n, double level, struct nbw_median_ci *out);

/** A time interval \p c (seconds) as the interval of the rate in GB/s of \p total_bytes
 *  moved per sample: [total / hi / 1e9, total / lo / 1e9] (the slowest time is the lowest
 *  rate). False, both NaN, when \p c holds no interval (n == 0, lo not > 0, no width). */
bool nbw_median_ci_gbps(const struct nbw_median_ci *c, double total_bytes, double *lo_gbps,
			double *hi_gbps);

/** The interval's relative half-width: max(median - lo, hi - median) / median; +inf when
 *  the median is not > 0. */
double nbw_ci_half_width(double median, double lo, double hi);

/** Whether an interval of this \p coverage and relative \p half_width meets the target:
 *  coverage >= NBW_CI_LEVEL and half_width <= NBW_CI_TARGET. */
bool nbw_ci_converged(double coverage, double half_width);

#endif
