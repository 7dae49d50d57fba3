/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transfer curves: the verified measurements of one path (api, direction, mode, host
 * memory, concurrency, peer access, binding, hidden helpers) grouped over sizes, and the
 * time of one transfer at any size, which the models need at the halo-plane size.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/curves.h"
#include "nodebw/results_view.h"

static void key_of(const struct nbw_rv_meas *x, struct nbw_curve_key *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->api, sizeof(k->api), "%s", x->api);
	snprintf(k->dir, sizeof(k->dir), "%s", x->direction);
	snprintf(k->mode, sizeof(k->mode), "%s", x->mode);
	snprintf(k->host_mem, sizeof(k->host_mem), "%s", x->host_mem);
	snprintf(k->conc, sizeof(k->conc), "%s", x->concurrency);
	snprintf(k->peer, sizeof(k->peer), "%s", x->peer_access[0] ? x->peer_access : "n/a");
	snprintf(k->bind, sizeof(k->bind), "%s", x->bind);
	k->hidden_helpers = x->hidden_helpers;
	snprintf(k->sweep, sizeof(k->sweep), "%s", x->hht_sweep);
	if (x->plane_sweep)
		snprintf(k->sweep, sizeof(k->sweep), "planes");
	/* Each device set is its own curve (every pair of a whole-node run). */
	nbw_rv_meas_ends(x, k->devices, sizeof(k->devices));
}

static bool same_key(const struct nbw_curve_key *a, const struct nbw_curve_key *b)
{
	return strcmp(a->api, b->api) == 0 && strcmp(a->dir, b->dir) == 0 &&
	       strcmp(a->mode, b->mode) == 0 && strcmp(a->host_mem, b->host_mem) == 0 &&
	       strcmp(a->conc, b->conc) == 0 && strcmp(a->peer, b->peer) == 0 &&
	       strcmp(a->bind, b->bind) == 0 && a->hidden_helpers == b->hidden_helpers &&
	       strcmp(a->sweep, b->sweep) == 0 && strcmp(a->devices, b->devices) == 0;
}

static int cmp_point(const void *a, const void *b)
{
	double x = ((const struct nbw_curve_point *)a)->bytes;
	double y = ((const struct nbw_curve_point *)b)->bytes;
	return (x > y) - (x < y);
}

static bool usable(const struct nbw_rv_meas *x, bool cells)
{
	/* A chase is a latency (its GB/s figures mean nothing): never a transfer curve. */
	if (!nbw_rv_meas_verified(x) || x->chase || x->face)
		return false;
	/* The matrix cells of a whole-node run (two sizes per device set) are the matrices'
	 * (analysis/); curves and models take the sets that ran the whole sweep. */
	if (!cells && strcmp(x->size_set, "matrix") == 0)
		return false;
	return x->seconds > 0.0 && x->bytes > 0;
}

static struct nbw_curve *curve_for(struct nbw_curves *cs, const struct nbw_curve_key *k,
				   int file)
{
	for (size_t i = 0; i < cs->n; i++)
		if (cs->c[i].file == file && same_key(&cs->c[i].key, k))
			return &cs->c[i];
	struct nbw_curve *c = realloc(cs->c, (cs->n + 1) * sizeof(*c));
	if (!c)
		return NULL;
	cs->c = c;
	c = &cs->c[cs->n++];
	memset(c, 0, sizeof(*c));
	c->key = *k;
	c->file = file;
	c->streams = strcmp(k->conc, "single") == 0 ? 1 : 2;
	c->theoretical_gbps = -1.0;
	return c;
}

/* A plane-size sweep process's measurement of a size the curve has: the point becomes the
 * fastest process's (the floor the solver's fastest round also reaches), and the slowest
 * is kept for the spread. true when merged. */
static bool merge_process(struct nbw_curve *c, const struct nbw_rv_meas *x)
{
	double bytes = (double)x->bytes, sec = x->seconds;
	for (size_t i = 0; i < c->n; i++) {
		struct nbw_curve_point *p = &c->pt[i];
		if (p->bytes != bytes)
			continue;
		p->processes++;
		if (sec > p->proc_slowest_s)
			p->proc_slowest_s = sec;
		if (sec < p->seconds) {
			p->seconds = sec;
			p->gbps = x->gbps;
			p->gbps_min = x->gbps_min;
			p->gbps_max = x->gbps_max;
			p->ci_lo_gbps = x->ci_lo_gbps;
			p->ci_hi_gbps = x->ci_hi_gbps;
			p->ci_half_width_pct = x->ci_half_width_pct;
			p->converged = x->converged;
			snprintf(p->stop, sizeof(p->stop), "%s", x->stop);
		}
		return true;
	}
	return false;
}

/* The document's own theoretical figure and link: the view's are corrected for host memory
 * and a same-device copy ("unknown" without a link), which the curves have never been. */
static void theoretical_of(struct nbw_curve *c, const struct nbw_rv_meas *x)
{
	if (x->theoretical_recorded > 0.0)
		c->theoretical_gbps = x->theoretical_recorded;
	if (!c->link[0])
		snprintf(c->link, sizeof(c->link), "%s", x->link_recorded);
}

static int add(struct nbw_curves *cs, json_t *measurements, int file, bool cells)
{
	size_t i;
	json_t *m;
	json_array_foreach(measurements, i, m) {
		struct nbw_rv_meas x;
		nbw_rv_meas_read(NULL, m, &x);
		if (!usable(&x, cells))
			continue;
		struct nbw_curve_key k;
		key_of(&x, &k);
		struct nbw_curve *c = curve_for(cs, &k, file);
		if (!c)
			return -1;
		if (strcmp(k.sweep, "planes") == 0 && merge_process(c, &x))
			continue;
		struct nbw_curve_point *pt = realloc(c->pt, (c->n + 1) * sizeof(*pt));
		if (!pt)
			return -1;
		c->pt = pt;
		pt[c->n++] = (struct nbw_curve_point){
			.bytes = (double)x.bytes,
			.seconds = x.seconds,
			.gbps = x.gbps,
			.gbps_min = x.gbps_min,
			.gbps_max = x.gbps_max,
			.overlap_speedup = x.overlap_speedup > 0.0 ? x.overlap_speedup : 0.0,
			.ci_lo_gbps = x.ci_lo_gbps,
			.ci_hi_gbps = x.ci_hi_gbps,
			.ci_half_width_pct = x.ci_half_width_pct,
			.converged = x.converged,
			.minor_faults_per_rep = x.minor_faults_per_rep,
		};
		snprintf(pt[c->n - 1].stop, sizeof(pt[c->n - 1].stop), "%s", x.stop);
		if (strcmp(k.sweep, "planes") == 0) {
			pt[c->n - 1].processes = 1;
			pt[c->n - 1].proc_slowest_s = pt[c->n - 1].seconds;
		}
		theoretical_of(c, &x);
	}
	for (size_t j = 0; j < cs->n; j++)
		qsort(cs->c[j].pt, cs->c[j].n, sizeof(*cs->c[j].pt), cmp_point);
	return 0;
}

int nbw_curves_add(struct nbw_curves *cs, json_t *measurements, int file)
{
	return add(cs, measurements, file, false);
}

int nbw_curves_add_cells(struct nbw_curves *cs, json_t *measurements, int file)
{
	return add(cs, measurements, file, true);
}

void nbw_curves_free(struct nbw_curves *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->c[i].pt);
	free(cs->c);
	cs->c = NULL;
	cs->n = 0;
}

static bool field_ok(const char *want, const char *have)
{
	return !want || !want[0] || strcmp(want, have) == 0;
}

const struct nbw_curve *nbw_curves_find(const struct nbw_curves *cs, const char *api,
					const char *dir, const char *mode, const char *host_mem,
					const char *conc)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct nbw_curve_key *k = &cs->c[i].key;
		if (cs->c[i].n && field_ok(api, k->api) && field_ok(dir, k->dir) &&
		    field_ok(mode, k->mode) && field_ok(host_mem, k->host_mem) &&
		    field_ok(conc, k->conc))
			return &cs->c[i];
	}
	return NULL;
}

static void say(char *how, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *how, size_t len, const char *fmt, ...)
{
	if (!how || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(how, len, fmt, ap);
	va_end(ap);
}

double nbw_curve_seconds_at(const struct nbw_curve *c, double bytes, char *how, size_t howlen)
{
	if (!c || c->n == 0)
		return -1.0;
	const struct nbw_curve_point *p = c->pt;
	for (size_t i = 0; i < c->n; i++) {
		if (p[i].bytes == bytes) {
			say(how, howlen, "measured at %.0f B", bytes);
			return p[i].seconds;
		}
		if (i + 1 < c->n && p[i].bytes < bytes && bytes < p[i + 1].bytes) {
			double f = (bytes - p[i].bytes) / (p[i + 1].bytes - p[i].bytes);
			say(how, howlen, "interpolated between %.0f B and %.0f B", p[i].bytes,
			    p[i + 1].bytes);
			return p[i].seconds + f * (p[i + 1].seconds - p[i].seconds);
		}
	}
	/* Outside the measured sizes: follow the fitted line from the nearest point. */
	const struct nbw_curve_point *near = bytes < p[0].bytes ? &p[0] : &p[c->n - 1];
	struct nbw_abfit fit;
	double s = c->streams;
	if (nbw_abfit_curve(c, &fit) == 0) {
		double at = fit.alpha_s + s * bytes / (fit.beta_gbps * 1e9);
		double ref = fit.alpha_s + s * near->bytes / (fit.beta_gbps * 1e9);
		say(how, howlen, "extrapolated from %.0f B along the alpha-beta fit",
		    near->bytes);
		return near->seconds * at / ref;
	}
	say(how, howlen, "extrapolated from %.0f B (time proportional to size)",
	    near->bytes);
	return bytes > near->bytes ? near->seconds * bytes / near->bytes : near->seconds;
}
