/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int nbw_summarize(const double *x, size_t n, struct nbw_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return -1;
	double *s = malloc(n * sizeof(*s));
	if (!s)
		return -1;
	memcpy(s, x, n * sizeof(*s));
	gsl_sort(s, 1, n);
	out->n = n;
	out->median = gsl_stats_median_from_sorted_data(s, 1, n);
	out->min = s[0];
	out->max = s[n - 1];
	out->mean = gsl_stats_mean(s, 1, n);
	if (n > 1) {
		out->sd = gsl_stats_sd_m(s, 1, n, out->mean);
		out->cv = out->mean != 0.0 ? out->sd / out->mean : 0.0;
	}
	free(s);
	return 0;
}

double nbw_median(double *x, size_t n)
{
	if (n == 0)
		return NAN;
	gsl_sort(x, 1, n);
	return gsl_stats_median_from_sorted_data(x, 1, n);
}

void nbw_rates_gbps(const double *seconds, size_t n, double bytes, double *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = seconds[i] > 0.0 ? bytes / seconds[i] / 1e9 : 0.0;
}

double nbw_median_ci_coverage(size_t n, size_t j)
{
	if (j == 0 || 2 * j > n || n > UINT32_MAX)
		return 0.0; /* j = k: the sample median itself */
	double tail = gsl_cdf_binomial_P((unsigned)(j - 1), 0.5, (unsigned)n);
	return fmax(0.0, 1.0 - 2.0 * tail);
}

int nbw_median_ci_ranks(size_t n, double level, size_t *j, size_t *k, double *coverage)
{
	if (n == 0 || !(level > 0.0 && level < 1.0) || n > UINT32_MAX)
		return -1;
	/* The coverage falls as j grows: the largest j whose coverage still reaches the level
	 * (binary search over 1 .. n/2), or 1 when even [min, max] does not. */
	size_t lo = 1, hi = n / 2 ? n / 2 : 1;
	if (nbw_median_ci_coverage(n, 1) >= level) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo + 1) / 2;
			if (nbw_median_ci_coverage(n, mid) >= level)
				lo = mid;
			else
				hi = mid - 1;
		}
	}
	*j = lo;
	*k = n + 1 - lo;
	if (coverage)
		*coverage = nbw_median_ci_coverage(n, lo);
	return 0;
}

int nbw_median_ci_sorted(const double *sorted, size_t n, double level, double *lo, double *hi,
			 double *coverage)
{
	size_t j, k;
	double c;
	if (!sorted || nbw_median_ci_ranks(n, level, &j, &k, &c))
		return -1;
	if (lo)
		*lo = sorted[j - 1];
	if (hi)
		*hi = sorted[k - 1];
	if (coverage)
		*coverage = c;
	return 0;
}

int nbw_median_ci(const double *x, size_t n, double level, double *lo, double *hi,
		  double *coverage)
{
	struct nbw_median_ci ci;
	if (nbw_median_ci_of(x, n, level, &ci))
		return -1;
	if (lo)
		*lo = ci.lo;
	if (hi)
		*hi = ci.hi;
	if (coverage)
		*coverage = ci.coverage;
	return 0;
}

int nbw_median_ci_of(const double *x, size_t n, double level, struct nbw_median_ci *out)
{
	memset(out, 0, sizeof(*out));
	if (!x || n == 0)
		return -1;
	double *s = malloc(n * sizeof(*s));
	if (!s)
		return -1;
	memcpy(s, x, n * sizeof(*s));
	gsl_sort(s, 1, n);
	int rc = nbw_median_ci_ranks(n, level, &out->j, &out->k, &out->coverage);
	if (rc == 0) {
		out->n = n;
		out->level = level;
		out->lo = s[out->j - 1];
		out->hi = s[out->k - 1];
		out->median = gsl_stats_median_from_sorted_data(s, 1, n);
		out->half_width = nbw_ci_half_width(out->median, out->lo, out->hi);
	}
	free(s);
	return rc;
}

bool nbw_median_ci_gbps(const struct nbw_median_ci *c, double total_bytes, double *lo_gbps,
			double *hi_gbps)
{
	*lo_gbps = *hi_gbps = NAN;
	if (!c->n || !(c->lo > 0.0) || !isfinite(c->half_width))
		return false;
	*lo_gbps = total_bytes / c->hi / 1e9;
	*hi_gbps = total_bytes / c->lo / 1e9;
	return true;
}

double nbw_ci_half_width(double median, double lo, double hi)
{
	if (!(median > 0.0) || !isfinite(lo) || !isfinite(hi))
		return INFINITY;
	return fmax(median - lo, hi - median) / median;
}

bool nbw_ci_converged(double coverage, double half_width)
{
	return coverage >= NBW_CI_LEVEL && half_width <= NBW_CI_TARGET;
}
