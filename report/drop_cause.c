/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A path's drop at large sizes explained only from what nodebw measured there, never
 * guessed. The one measured cause so far: the minor page faults of one repetition
 * (`minor_faults_per_rep`, from getrusage over the repetitions). When a copy at the largest
 * size faults in about as many pages as it moves, every call copies through pages that are
 * new to the process: libomptarget, for instance, stages each copy between two host-plugin
 * devices through a host buffer it allocates per call. Without that record, or when the
 * counts do not show it, no cause is given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "drop_cause.h"
#include "nodebw/sizes.h"
#include "nodebw/stats.h"

/* The median over the curves of the faults per repetition at \p bytes, per page moved;
 * NaN when none of them recorded it. \p faults gets the median count itself. */
static double faults_per_page(const struct nbw_curve *const *g, size_t n, double bytes,
			      double *faults)
{
	double *v = calloc(n ? n : 1, sizeof(double)), *pp = calloc(n ? n : 1, sizeof(double));
	size_t k = 0;
	for (size_t i = 0; v && pp && i < n; i++)
		for (size_t p = 0; p < g[i]->n; p++) {
			const struct nbw_curve_point *pt = &g[i]->pt[p];
			if (pt->bytes != bytes || !isfinite(pt->minor_faults_per_rep))
				continue;
			double pages = ceil(pt->bytes * (g[i]->streams > 1 ? g[i]->streams : 1) /
					    NBW_DROP_PAGE_BYTES);
			v[k] = pt->minor_faults_per_rep;
			pp[k++] = pt->minor_faults_per_rep / pages;
		}
	*faults = k ? nbw_median(v, k) : NAN;
	double r = k ? nbw_median(pp, k) : NAN;
	free(v);
	free(pp);
	return r;
}

void nbw_report_drop_cause(const struct nbw_curve *const *g, size_t n, double large_bytes,
			   double best_bytes, char *out, size_t len)
{
	out[0] = '\0';
	double fl, fb;
	double large = faults_per_page(g, n, large_bytes, &fl);
	double best = faults_per_page(g, n, best_bytes, &fb);
	if (!isfinite(large) || large < NBW_DROP_FRESH_PAGES)
		return;
	if (isfinite(best) && best >= 0.5 * large)
		return; /* the best size faulted as much: the faults do not explain the drop */
	char lsz[32], bsz[32];
	nbw_size_label((uint64_t)large_bytes, lsz, sizeof(lsz));
	nbw_size_label((uint64_t)best_bytes, bsz, sizeof(bsz));
	int w = snprintf(out, len, "%.0f page faults per copy at %s", fl, lsz);
	if (w > 0 && (size_t)w < len && isfinite(fb))
		w += snprintf(out + w, len - (size_t)w, " against %.0f at %s", fb, bsz);
	if (w > 0 && (size_t)w < len)
		snprintf(out + w, len - (size_t)w, ": fresh host pages on every call");
}
