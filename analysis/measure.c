/* SPDX-License-Identifier: BSD-3-Clause */
/* What the analyses share: the one size rule of a series, a median, a number for their JSON. */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/plan.h"

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

/* The comparison size's candidates: the bandwidth measurements of the main run (verified,
 * not the hidden-helper or plane-size sweeps, not a chase) of one device set of a series. */
static bool comparison_candidate(const struct nbw_rv_meas *x)
{
	return nbw_rv_meas_usable(x) && !x->plane_sweep &&
	       (!strcmp(x->direction, "htod") || !strcmp(x->direction, "dtoh") ||
		!strcmp(x->direction, "p2p"));
}

struct cmp_point {
	long long bytes;
	char key[160];
	size_t sets; /* the number of device sets measured at bytes (filled when counted) */
};

static int cmp_cmp_point(const void *a, const void *b)
{
	const struct cmp_point *x = a, *y = b;
	if (x->bytes != y->bytes)
		return (x->bytes > y->bytes) - (x->bytes < y->bytes);
	return strcmp(x->key, y->key);
}

long long nbw_analysis_comparison_bytes(json_t *devices, json_t *measurements)
{
	size_t nm = json_array_size(measurements), n = 0, i;
	long long matrix = -1, best = -1;
	json_t *m;
	struct cmp_point *p = calloc(nm ? nm : 1, sizeof(*p));
	if (!p)
		return -1;
	json_array_foreach(measurements, i, m) {
		struct nbw_rv_meas x;
		if (!nbw_rv_meas_read(devices, m, &x) || !comparison_candidate(&x))
			continue;
		/* The plan's matrix cells: every device and pair has their large size. */
		if (!strcmp(x.size_set, "matrix") && x.bytes > matrix)
			matrix = x.bytes;
		char ends[64];
		nbw_rv_meas_ends(&x, ends, sizeof(ends));
		p[n].bytes = x.bytes;
		snprintf(p[n].key, sizeof(p[n].key), "%s|%s|%s|%s|%s|%s|%s|%s", x.api,
			 x.direction, x.mode, x.host_mem, x.concurrency, x.peer_access, x.bind,
			 ends);
		n++;
	}
	if (matrix > 0) {
		free(p);
		return matrix;
	}
	/* Every set ran the whole sweep (devices named, or a document without size sets):
	 * the plan's own rule for its matrix cells (nbw_plan_matrix_sizes_upto) over the sizes
	 * the most device sets have: the largest not above the cells' cap (64 MiB), the
	 * smallest left out (it measures latency), else the largest. A set measured twice at
	 * one size counts once. The terminal names the same size before anything is measured
	 * (tools/nodebw.c). */
	qsort(p, n, sizeof(*p), cmp_cmp_point);
	size_t best_sets = 0, nu = 0;
	for (size_t a = 0; a < n;) { /* p[nu] becomes each size once, with its set count */
		size_t sets = 0, b = a;
		for (; b < n && p[b].bytes == p[a].bytes; b++)
			sets += b == a || strcmp(p[b].key, p[b - 1].key) != 0;
		p[nu].bytes = p[a].bytes;
		p[nu++].sets = sets;
		best_sets = sets > best_sets ? sets : best_sets;
		a = b;
	}
	size_t k = 0;
	for (size_t a = 0; a < nu; a++) /* the sizes with the most sets, ascending */
		if (p[a].sets == best_sets)
			p[k++].bytes = p[a].bytes;
	best = k ? p[k - 1].bytes : -1;
	for (size_t a = k; a-- > 1;)
		if (p[a].bytes <= (long long)NBW_MATRIX_MAX_BYTES) {
			best = p[a].bytes;
			break;
		}
	free(p);
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
