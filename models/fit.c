/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The alpha-beta transfer model t(n) = alpha + n / beta of one path, fitted by GSL's
 * weighted linear least squares with weights 1/t^2, so that every size counts by its
 * relative residual: a 8-byte transfer and a 1-GiB transfer weigh the same.
 */
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/curves.h"

static void fail(struct nbw_abfit *out, const char *why)
{
	out->ok = false;
	snprintf(out->why, sizeof(out->why), "%s", why);
}

int nbw_abfit(const double *bytes, const double *seconds, size_t n, struct nbw_abfit *out)
{
	memset(out, 0, sizeof(*out));
	double *w = malloc((n ? n : 1) * sizeof(double));
	if (!w) {
		fail(out, "out of memory");
		return -1;
	}
	bool distinct = false;
	for (size_t i = 0; i < n; i++) {
		if (!(seconds[i] > 0.0) || !(bytes[i] > 0.0) || !isfinite(seconds[i])) {
			free(w);
			fail(out, "a point has no positive size or time");
			return -1;
		}
		w[i] = 1.0 / (seconds[i] * seconds[i]);
		distinct = distinct || bytes[i] != bytes[0];
	}
	if (n < 2 || !distinct) {
		free(w);
		fail(out, "needs at least two distinct sizes");
		return -1;
	}
	double c0, c1, cov00, cov01, cov11, chisq;
	gsl_fit_wlinear(bytes, 1, w, 1, seconds, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
	if (c0 < 0.0) {
		/* A negative latency is not physical: hold alpha at 0, fit the slope alone. */
		c0 = 0.0;
		gsl_fit_wmul(bytes, 1, w, 1, seconds, 1, n, &c1, &cov11, &chisq);
	}
	free(w);
	if (!(c1 > 0.0)) {
		fail(out, "time does not grow with size (no bandwidth term)");
		return -1;
	}
	out->ok = true;
	out->alpha_s = c0;
	out->beta_gbps = 1.0 / c1 / 1e9;
	out->n_half_bytes = c0 / c1;
	out->n = n;
	for (size_t i = 0; i < n; i++) {
		double r = fabs(c0 + c1 * bytes[i] - seconds[i]) / seconds[i];
		if (r > out->max_rel_resid)
			out->max_rel_resid = r;
	}
	return 0;
}

struct pt {
	double b, t;
};

static int cmp_pt(const void *x, const void *y)
{
	double a = ((const struct pt *)x)->b, b = ((const struct pt *)y)->b;
	return (a > b) - (a < b);
}

/* Peak bandwidth and the residuals of \p f over every point. */
static void over_all(const struct pt *p, size_t n, struct nbw_abfit *f)
{
	double c1 = 1.0 / (f->beta_gbps * 1e9);
	f->n_all = n;
	f->max_rel_resid_all = 0.0;
	f->peak_gbps = 0.0;
	for (size_t i = 0; i < n; i++) {
		double r = fabs(f->alpha_s + c1 * p[i].b - p[i].t) / p[i].t;
		if (r > f->max_rel_resid_all)
			f->max_rel_resid_all = r;
		double g = p[i].b / p[i].t / 1e9;
		if (g > f->peak_gbps) {
			f->peak_gbps = g;
			f->peak_bytes = p[i].b;
		}
	}
	f->beta_above_peak = f->beta_gbps > 1.05 * f->peak_gbps;
}

int nbw_abfit_range(const double *bytes, const double *seconds, size_t n,
		    struct nbw_abfit *out)
{
	memset(out, 0, sizeof(*out));
	struct pt *p = malloc((n ? n : 1) * sizeof(*p));
	double *b = malloc((n ? n : 1) * sizeof(double)), *t = malloc((n ? n : 1) * sizeof(double));
	if (!p || !b || !t) {
		free(p), free(b), free(t);
		fail(out, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pt){ bytes[i], seconds[i] };
	qsort(p, n, sizeof(*p), cmp_pt);
	for (size_t i = 0; i < n; i++)
		b[i] = p[i].b, t[i] = p[i].t;
	/* beta is the large sizes' figure: the run ends at the largest size, and starts at the
	 * smallest size from which every point stays within NBW_ABFIT_HOLDS of its line. */
	struct nbw_abfit best = { 0 };
	size_t best_len = 0, min_len = n < 3 ? n : 3;
	for (size_t i = 0; i + min_len <= n && !best_len; i++) {
		struct nbw_abfit f;
		if (nbw_abfit(b + i, t + i, n - i, &f) || f.max_rel_resid > NBW_ABFIT_HOLDS)
			continue;
		best = f;
		best.lo_bytes = b[i];
		best.hi_bytes = b[n - 1];
		best_len = n - i;
	}
	int rc = 0;
	if (best_len) {
		best.describes = true;
		*out = best;
	} else {
		rc = nbw_abfit(b, t, n, out);
		out->describes = false;
		if (n) {
			out->lo_bytes = b[0];
			out->hi_bytes = b[n - 1];
		}
	}
	if (rc == 0)
		over_all(p, n, out);
	free(p), free(b), free(t);
	return rc;
}

/* \p fit on a curve's points: bytes of all streams of one repetition, median seconds. */
static int on_curve(const struct nbw_curve *c, struct nbw_abfit *out,
		    int (*fit)(const double *, const double *, size_t, struct nbw_abfit *))
{
	double *b = malloc((c->n ? c->n : 1) * sizeof(double));
	double *t = malloc((c->n ? c->n : 1) * sizeof(double));
	int rc = -1;
	if (b && t) {
		for (size_t i = 0; i < c->n; i++) {
			b[i] = c->pt[i].bytes * c->streams;
			t[i] = c->pt[i].seconds;
		}
		rc = fit(b, t, c->n, out);
	} else {
		fail(out, "out of memory");
	}
	free(b);
	free(t);
	return rc;
}

int nbw_abfit_curve_range(const struct nbw_curve *c, struct nbw_abfit *out)
{
	return on_curve(c, out, nbw_abfit_range);
}

int nbw_abfit_curve(const struct nbw_curve *c, struct nbw_abfit *out)
{
	return on_curve(c, out, nbw_abfit);
}
