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

#include "nodebw/report.h"

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

int nbw_abfit_curve(const struct nbw_curve *c, struct nbw_abfit *out)
{
	double *b = malloc((c->n ? c->n : 1) * sizeof(double));
	double *t = malloc((c->n ? c->n : 1) * sizeof(double));
	int rc = -1;
	if (b && t) {
		for (size_t i = 0; i < c->n; i++) {
			b[i] = c->pt[i].bytes * c->streams;
			t[i] = c->pt[i].seconds;
		}
		rc = nbw_abfit(b, t, c->n, out);
	} else {
		fail(out, "out of memory");
	}
	free(b);
	free(t);
	return rc;
}
