/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/stats.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
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
