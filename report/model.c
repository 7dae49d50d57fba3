/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The paper's model (Eq. 7-12) and the extended model: formulas only, on a calibration
 * (include/nodebw/model.h, doc/model.md). No I/O here, so every formula can be checked
 * against hand-computed cases.
 */
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/model.h"
#include "nodebw/stats.h"

#define BYTES_PER_VALUE 8.0

static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
	if (!buf || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

void nbw_calib_free(struct nbw_calib *c)
{
	for (size_t i = 0; i < c->npaths; i++) {
		free(c->paths[i].bytes);
		free(c->paths[i].seconds);
	}
	free(c->paths);
	free(c->k);
	free(c->slab);
	free(c->vs);
	memset(c, 0, sizeof(*c));
}

static int cmp_ksample_n(const void *a, const void *b)
{
	int x = ((const struct nbw_ksample *)a)->n, y = ((const struct nbw_ksample *)b)->n;
	return (x > y) - (x < y);
}

int nbw_calib_kbar(const struct nbw_calib *c, enum nbw_kbar_rule rule, double *kbar,
		   char *why, size_t whylen)
{
	if (c->nk == 0) {
		if (c->kbar_given > 0.0) {
			*kbar = c->kbar_given;
			return 0;
		}
		say(why, whylen, "no k: needs one-device (baseline) runs of cubic grids or a "
				 "given k-bar");
		return -1;
	}
	struct nbw_ksample *s = malloc(c->nk * sizeof(*s));
	if (!s) {
		say(why, whylen, "out of memory");
		return -1;
	}
	memcpy(s, c->k, c->nk * sizeof(*s));
	qsort(s, c->nk, sizeof(*s), cmp_ksample_n);
	size_t from = rule == NBW_KBAR_TOP3 && c->nk > 3 ? c->nk - 3 : 0;
	double sum = 0.0;
	for (size_t i = from; i < c->nk; i++)
		sum += s[i].k;
	*kbar = sum / (double)(c->nk - from);
	free(s);
	return 0;
}

static const struct nbw_xpath *find_path(const struct nbw_calib *c, const char *name)
{
	for (size_t i = 0; i < c->npaths; i++)
		if (strcmp(c->paths[i].name, name) == 0)
			return &c->paths[i];
	return NULL;
}

static double path_time(const struct nbw_xpath *p, double bytes, char *how, size_t howlen)
{
	const double *b = p->bytes, *t = p->seconds;
	for (size_t i = 0; i < p->n; i++) {
		if (b[i] == bytes) {
			say(how, howlen, "%s measured at %.0f B", p->name, bytes);
			return t[i];
		}
		if (i + 1 < p->n && b[i] < bytes && bytes < b[i + 1]) {
			say(how, howlen, "%s interpolated between %.0f B and %.0f B", p->name, b[i],
			    b[i + 1]);
			return t[i] + (bytes - b[i]) / (b[i + 1] - b[i]) * (t[i + 1] - t[i]);
		}
	}
	if (p->beta_gbps > 0.0) {
		double alpha = p->alpha_s > 0.0 ? p->alpha_s : 0.0;
		say(how, howlen, "%s: %s%.4g GB/s", p->name,
		    p->alpha_s > 0.0 ? "alpha + n / beta, beta = " : "n / beta, beta = ",
		    p->beta_gbps);
		return alpha + bytes / (p->beta_gbps * 1e9);
	}
	if (p->n) {
		/* Beyond the measured sizes without a fit: time proportional to size. */
		size_t i = bytes < b[0] ? 0 : p->n - 1;
		say(how, howlen, "%s scaled from %.0f B", p->name, b[i]);
		return bytes < b[0] ? t[0] : t[i] * bytes / b[i];
	}
	return -1.0;
}

int nbw_calib_xfer_s(const struct nbw_calib *c, const char *name, double bytes, double *t,
		     char *how, size_t howlen)
{
	const struct nbw_xpath *p = find_path(c, name);
	if (!p) {
		/* "p2p/async/bidir" -> "p2p/async" is not a fallback (different meaning); the
		 * mode-less name is: "htod/async" -> "htod". */
		char base[32];
		snprintf(base, sizeof(base), "%s", name);
		char *slash = strchr(base, '/');
		if (slash && !strchr(slash + 1, '/')) {
			*slash = '\0';
			p = find_path(c, base);
		}
	}
	double x = p ? path_time(p, bytes, how, howlen) : -1.0;
	if (!(x > 0.0)) {
		say(how, howlen, "no transfer measurement for path %s", name);
		return -1;
	}
	*t = x;
	return 0;
}

/* ---- the paper's model -------------------------------------------------------------- */

static bool is_version(const char *v, int *num)
{
	if (v && v[0] == 'v' && v[1] >= '1' && v[1] <= '4' && v[2] == '\0') {
		*num = v[1] - '0';
		return true;
	}
	return false;
}

static double plane_bytes(int n)
{
	return BYTES_PER_VALUE * (double)n * (double)n;
}

static double cube(double x)
{
	return x * x * x;
}

/* The mode of the solver's copies: Version 1 blocks, Versions 2-4 are asynchronous. */
static const char *version_mode(int v)
{
	return v == 1 ? "sync" : "async";
}

int nbw_predict_paper(const struct nbw_calib *c, enum nbw_kbar_rule rule, int n, int g,
		      const char *v, int steps, struct nbw_paper_pred *out, char *why,
		      size_t whylen)
{
	memset(out, 0, sizeof(*out));
	int vn;
	if (!is_version(v, &vn) || g < 2 || n < 3 || steps < 1) {
		say(why, whylen, "the model covers v1-v4 on G >= 2 devices, N >= 3, steps >= 1");
		return -1;
	}
	if (nbw_calib_kbar(c, rule, &out->kbar, why, whylen))
		return -1;
	double b = plane_bytes(n), step_compute = out->kbar * cube(n - 2.0) / g;
	char name[32], how[160];
	double per_step;
	if (vn == 4) {
		out->equation = "Eq. 10";
		snprintf(name, sizeof(name), "p2p/%s", version_mode(vn));
		double t;
		if (nbw_calib_xfer_s(c, name, b, &t, how, sizeof(how))) {
			say(why, whylen, "Eq. 10 needs beta_P2P at %.0f B: %s", b, how);
			return -1;
		}
		out->beta_gbps[0] = b / t / 1e9;
		per_step = t;
	} else {
		out->equation = "Eq. 9";
		const char *dirs[2] = {"htod", "dtoh"};
		per_step = 0.0;
		for (int i = 0; i < 2; i++) {
			snprintf(name, sizeof(name), "%s/%s", dirs[i], version_mode(vn));
			double t;
			if (nbw_calib_xfer_s(c, name, b, &t, how, sizeof(how))) {
				say(why, whylen, "Eq. 9 needs beta_%s at %.0f B: %s",
				    i ? "DtoH" : "HtoD", b, how);
				return -1;
			}
			out->beta_gbps[i] = b / t / 1e9;
			per_step += t;
		}
	}
	out->compute_s = steps * step_compute;
	out->transfer_s = steps * per_step;
	out->total_s = out->compute_s + out->transfer_s;
	out->overlap_s = steps * fmax(step_compute, per_step);
	return 0;
}

/* ---- the extended model ------------------------------------------------------------- */

/* k of one-device runs of the slab (n, planes): the median of exact matches; otherwise the
 * samples of the same n interpolated in planes, otherwise k-bar of the cubic runs. */
static int slab_k(const struct nbw_calib *c, int n, int planes, double *k, char *why,
		  size_t whylen)
{
	double *x = malloc((c->nslab + c->nk + 1) * sizeof(double));
	if (!x)
		return -1;
	size_t m = 0;
	for (size_t i = 0; i < c->nslab; i++)
		if (c->slab[i].n == n && c->slab[i].planes == planes)
			x[m++] = c->slab[i].k;
	if (m) {
		*k = nbw_median(x, m);
		free(x);
		return 0;
	}
	free(x);
	/* Nearest slab by interior points of the slab, same n first. */
	const struct nbw_ksample *best = NULL;
	double target = (double)(n - 2) * (n - 2) * planes, bestd = INFINITY;
	for (int pass = 0; pass < 2 && !best; pass++)
		for (size_t i = 0; i < c->nslab + c->nk; i++) {
			const struct nbw_ksample *s = i < c->nslab ? &c->slab[i]
								   : &c->k[i - c->nslab];
			if (pass == 0 && s->n != n)
				continue;
			double pts = (double)(s->n - 2) * (s->n - 2) * s->planes;
			double d = fabs(log(pts / target));
			if (d < bestd) {
				bestd = d;
				best = s;
			}
		}
	if (best) {
		*k = best->k;
		return 0;
	}
	if (c->kbar_given > 0.0) {
		*k = c->kbar_given;
		return 0;
	}
	say(why, whylen, "no one-device run of the slab %dx%dx%d (nor any k)", n, n, planes + 2);
	return -1;
}

/* busy and overhead of (v, g) from the samples of sizes other than exclude_n: the least-
 * squares line y = overhead + busy x through the measured samples (relative residuals),
 * or the medians of hand-given values. */
static void version_terms(const struct nbw_calib *c, const char *v, int g, int exclude_n,
			  double *busy, double *overhead, size_t *used)
{
	size_t m = 0, given = 0, cap = c->nvs + 1;
	double *x = malloc(cap * sizeof(double)), *y = malloc(cap * sizeof(double));
	double *w = malloc(cap * sizeof(double)), *gb = malloc(cap * sizeof(double));
	double *go = malloc(cap * sizeof(double));
	*busy = 1.0;
	*overhead = 0.0;
	*used = 0;
	if (!x || !y || !w || !gb || !go)
		goto out;
	bool distinct = false;
	for (size_t i = 0; i < c->nvs; i++) {
		const struct nbw_vsample *s = &c->vs[i];
		if (strcmp(s->version, v) != 0 || s->g != g || (exclude_n && s->n == exclude_n))
			continue;
		if (s->x_s > 0.0 && s->y_s > 0.0) {
			x[m] = s->x_s;
			y[m] = s->y_s;
			w[m] = 1.0 / (s->y_s * s->y_s);
			distinct = distinct || x[m] != x[0];
			m++;
		} else {
			gb[given] = s->busy;
			go[given++] = s->overhead_s;
		}
	}
	if (m >= 2 && distinct) {
		double c0, c1, v00, v01, v11, chi;
		gsl_fit_wlinear(x, 1, w, 1, y, 1, m, &c0, &c1, &v00, &v01, &v11, &chi);
		if (c0 < 0.0 || c1 <= 0.0) {
			/* No negative overhead: the line through the origin. */
			c0 = 0.0;
			gsl_fit_wmul(x, 1, w, 1, y, 1, m, &c1, &v11, &chi);
		}
		*busy = c1;
		*overhead = c0;
		*used = m;
	} else if (m >= 1) {
		for (size_t i = 0; i < m; i++)
			x[i] = y[i] / x[i];
		*busy = nbw_median(x, m);
		*used = m;
	} else if (given) {
		*busy = nbw_median(gb, given);
		*overhead = fmax(0.0, nbw_median(go, given));
		*used = given;
	}
out:
	free(x);
	free(y);
	free(w);
	free(gb);
	free(go);
}

/* Contention of two copies at once on a path: one stream's asymptotic bandwidth over half
 * the two-stream aggregate (fitted betas), at least 1; from the times at the size when a
 * beta is missing. */
static double contention(const struct nbw_calib *c, const char *single, const char *conc,
			 double bytes, double t_single)
{
	const struct nbw_xpath *a = find_path(c, single), *b = find_path(c, conc);
	if (a && b && a->beta_gbps > 0.0 && b->beta_gbps > 0.0)
		return fmax(1.0, a->beta_gbps / (b->beta_gbps / 2.0));
	double t;
	if (b && nbw_calib_xfer_s(c, conc, bytes, &t, NULL, 0) == 0 && t > t_single)
		return t / t_single;
	return 1.0;
}

int nbw_predict_ext(const struct nbw_calib *c, int n, int g, const char *v, int steps,
		    int exclude_n, struct nbw_ext_pred *out, char *why, size_t whylen)
{
	memset(out, 0, sizeof(*out));
	int vn;
	if (!is_version(v, &vn) || g < 2 || n < 3 || steps < 1 || n - 2 < g) {
		say(why, whylen, "the model covers v1-v4 on G >= 2 devices with at least one "
				 "plane each, N >= 3, steps >= 1");
		return -1;
	}
	int planes = (n - 2 + g - 1) / g;
	out->planes = planes;
	if (slab_k(c, n, planes, &out->k_slab, why, whylen))
		return -1;
	size_t used;
	double overhead_step;
	version_terms(c, v, g, exclude_n, &out->busy, &overhead_step, &used);
	double area = (double)(n - 2) * (n - 2);
	double kk = out->k_slab * out->busy;
	double compute_step = kk * area * planes;
	double boundary_step = kk * area * (planes >= 2 ? 2 : planes);

	/* Transfers of the busiest host thread per step: each hop at the measured time of one
	 * plane; with copies from several host threads at once (Versions 3, 4) the bandwidth
	 * term grows by the contention factor. */
	double b = plane_bytes(n), t1 = 0.0, extra = 0.0, csum = 0.0;
	char how[160], name[32], conc[40];
	int neighbours = g > 2 ? 2 : 1;
	const char *mode = version_mode(vn);
	const char *hops[2] = {"dtoh", "htod"};
	int nhops = vn == 4 ? 1 : 2;
	for (int h = 0; h < nhops; h++) {
		double t;
		snprintf(name, sizeof(name), "%s/%s", vn == 4 ? "p2p" : hops[h], mode);
		if (nbw_calib_xfer_s(c, name, b, &t, how, sizeof(how))) {
			say(why, whylen, "the extended model needs %s at %.0f B: %s", name, b, how);
			return -1;
		}
		t1 += t;
		double f = 1.0;
		if (vn >= 3) {
			snprintf(conc, sizeof(conc), "%s/%s", name, vn == 4 ? "bidir" : "dual");
			f = contention(c, name, conc, b, t);
			const struct nbw_xpath *p = find_path(c, name);
			double bw = p && p->beta_gbps > 0.0 ? p->beta_gbps * 1e9 : b / t;
			extra += (f - 1.0) * b / bw;
		}
		csum += f;
	}
	out->xfer_one_s = t1;
	out->contention = csum / nhops;
	/* One host thread (V1, V2) moves every interface's two planes in turn; a thread per
	 * device (V3, V4) moves its own: one neighbour at the ends, two inside. */
	out->xfers = vn <= 2 ? 2 * (g - 1) : neighbours;
	double transfer_step = out->xfers * (t1 + extra);

	out->overlap = vn >= 2 && (strcmp(c->device_kind, "host-plugin") != 0 ||
				   c->hidden_helpers > 0);
	double step;
	/* The device computes the boundary planes, then the interior while the copy engine
	 * (or a helper thread) moves the halo: boundary + max(interior, transfer). */
	if (out->overlap)
		step = boundary_step + fmax(compute_step - boundary_step, transfer_step);
	else
		step = compute_step + transfer_step;
	step += overhead_step;
	out->compute_s = steps * compute_step;
	out->transfer_s = steps * transfer_step;
	out->overhead_s = steps * overhead_step;
	out->total_s = steps * step;
	return 0;
}
