/* SPDX-License-Identifier: BSD-3-Clause */
/* What the analyses share: the one size rule of a series, a median, a number for their JSON. */
#include "measure.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_point(const void *a, const void *b)
{
	const struct nbw_an_point *x = a, *y = b;
	if (x->bytes != y->bytes)
		return (x->bytes > y->bytes) - (x->bytes < y->bytes);
	if (x->src != y->src)
		return (x->src > y->src) - (x->src < y->src);
	return (x->dst > y->dst) - (x->dst < y->dst);
}

json_int_t nbw_an_series_size(struct nbw_an_point *p, size_t n, json_int_t fallback)
{
	json_int_t best = fallback;
	size_t best_n = 0;
	qsort(p, n, sizeof(*p), cmp_point);
	for (size_t i = 0; i < n;) {
		size_t sets = 0, j = i;
		for (; j < n && p[j].bytes == p[i].bytes; j++)
			sets += j == i || cmp_point(&p[j], &p[j - 1]) != 0;
		if (sets >= best_n) { /* ascending: a tie goes to the larger size */
			best = p[i].bytes;
			best_n = sets;
		}
		i = j;
	}
	return best;
}

double nbw_an_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

json_t *nbw_an_num(double x, bool positive)
{
	if (!isfinite(x) || (positive && x <= 0.0))
		return json_null();
	return json_real(x);
}
