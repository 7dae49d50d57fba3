/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibrations: built from results (transfer curves of the OpenMP API and solver runs),
 * written as JSON, and read back from files that nodebw or a user wrote (doc/model.md).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/jints.h"
#include "nodebw/jsonpos.h"
#include "nodebw/limits.h"
#include "nodebw/readfile.h"
#include "nodebw/model.h"
#include "nodebw/report.h"
#include "nodebw/stats.h"
#include "jget.h"

/* ---- transfer paths from curves ----------------------------------------------------- */

/* The endpoints of a single-stream curve from its key ("h->0", "0->1"). */
static bool ends_of_key(const char *devices, int *src, int *dst)
{
	char a[12], b[12];
	if (strchr(devices, ',') || sscanf(devices, "%11[^-]->%11s", a, b) != 2)
		return false;
	char *end;
	long x = strtol(a, &end, 10);
	*src = strcmp(a, "h") == 0 ? -1 : *end == '\0' && end != a ? (int)x : -2;
	x = strtol(b, &end, 10);
	*dst = strcmp(b, "h") == 0 ? -1 : *end == '\0' && end != b ? (int)x : -2;
	return *src >= -1 && *dst >= -1;
}

static int add_path(struct nbw_calib *c, const char *name, const struct nbw_curve *cv)
{
	struct nbw_xpath *p = realloc(c->paths, (c->npaths + 1) * sizeof(*p));
	if (!p)
		return -1;
	c->paths = p;
	p = &c->paths[c->npaths];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->bytes = malloc(cv->n * sizeof(double));
	p->seconds = malloc(cv->n * sizeof(double));
	if (!p->bytes || !p->seconds) {
		free(p->bytes);
		free(p->seconds);
		return -1;
	}
	for (size_t i = 0; i < cv->n; i++) {
		p->bytes[i] = cv->pt[i].bytes;
		p->seconds[i] = cv->pt[i].seconds;
	}
	p->n = cv->n;
	struct nbw_abfit fit;
	p->alpha_s = -1.0;
	p->beta_gbps = 0.0;
	if (nbw_abfit_curve(cv, &fit) == 0) {
		p->alpha_s = fit.alpha_s;
		p->beta_gbps = fit.beta_gbps;
	}
	p->ends_known = ends_of_key(cv->key.devices, &p->src, &p->dst);
	c->npaths++;
	return 0;
}

/* The curve the solver's copies correspond to: OpenMP, the solver's hidden-helper count
 * when measured with it, pinned host memory (the solver stages through
 * llvm_omp_target_alloc_host) before pageable, peer access as the runtime sets it. */
static const struct nbw_curve *pick_curve(const struct nbw_curves *cs, const char *dir,
					  const char *mode, const char *conc, int hh)
{
	const char *mems[] = {"pinned", "pageable", "none", "registered"};
	const struct nbw_curve *best = NULL;
	int best_score = -1;
	for (size_t i = 0; i < cs->n; i++) {
		const struct nbw_curve *cv = &cs->c[i];
		const struct nbw_curve_key *k = &cv->key;
		if (strcmp(k->api, "omp") || strcmp(k->dir, dir) || strcmp(k->mode, mode) ||
		    strcmp(k->conc, conc) || cv->n == 0)
			continue;
		if ((k->bind[0] && strcmp(k->bind, "local") != 0) || strcmp(k->sweep, "planes") == 0)
			continue;
		int score = 0;
		for (int m = 0; m < 4; m++)
			if (strcmp(k->host_mem, mems[m]) == 0)
				score = 40 - 10 * m;
		if (k->hidden_helpers == hh)
			score += 100;
		if (strcmp(k->peer, "disabled") != 0)
			score += 5;
		if (score > best_score) {
			best_score = score;
			best = cv;
		}
	}
	return best;
}

/* ---- per device and per pair --------------------------------------------------------- */

/* What identifies a series apart from its devices (as the curves' keys, report/curves.c). */
struct skey {
	char host_mem[16], peer[12], bind[8], sweep[24];
	int hh;
};

/* One device set of one series: the measurements of one device or ordered pair. */
struct mset {
	struct skey key;
	int src, dst;
	bool matrix;     /* measured at the matrix sizes only */
	size_t n;
	double *bytes, *seconds;
};

static void skey_of(json_t *m, struct skey *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->host_mem, sizeof(k->host_mem), "%s", jstr(m, "host_mem"));
	const char *peer = jstr(m, "peer_access");
	snprintf(k->peer, sizeof(k->peer), "%s", peer[0] ? peer : "n/a");
	snprintf(k->bind, sizeof(k->bind), "%s", jstr(json_object_get(m, "binding"), "policy"));
	json_t *hh = json_object_get(m, "hidden_helpers");
	k->hh = json_is_integer(hh) ? (int)json_integer_value(hh) : -1;
	snprintf(k->sweep, sizeof(k->sweep), "%s", jstr(m, "hht_sweep"));
}

static bool same_skey(const struct skey *a, const struct skey *b)
{
	return strcmp(a->host_mem, b->host_mem) == 0 && strcmp(a->peer, b->peer) == 0 &&
	       strcmp(a->bind, b->bind) == 0 && strcmp(a->sweep, b->sweep) == 0 && a->hh == b->hh;
}

static void skey_of_curve(const struct nbw_curve_key *ck, struct skey *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->host_mem, sizeof(k->host_mem), "%s", ck->host_mem);
	snprintf(k->peer, sizeof(k->peer), "%s", ck->peer);
	snprintf(k->bind, sizeof(k->bind), "%s", ck->bind);
	snprintf(k->sweep, sizeof(k->sweep), "%s", ck->sweep);
	k->hh = ck->hidden_helpers;
}

/* "host", -1 or a device id; -2 when neither. */
static int end_of(json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v) >= -1 ? (int)json_integer_value(v) : -2;
	return json_is_string(v) && strcmp(json_string_value(v), "host") == 0 ? -1 : -2;
}

static void free_msets(struct mset *ms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ms[i].bytes);
		free(ms[i].seconds);
	}
	free(ms);
}

/* The single-stream measurements of (omp, dir, mode) in results file \p file, matrix sizes
 * included, grouped by series and endpoints, each sorted by size (the first measurement of
 * a size counts). NULL on memory failure; *n = 0 with none. */
static struct mset *collect_msets(json_t *measurements, int file, const char *dir,
				  const char *mode, size_t *n)
{
	struct mset *ms = NULL;
	size_t nm = 0, i;
	json_t *m;
	*n = 0;
	json_array_foreach(measurements, i, m) {
		json_t *err = json_object_get(m, "error"), *st = json_object_get(m, "streams");
		json_t *f = json_object_get(m, "file");
		if (strcmp(jstr(m, "api"), "omp") || strcmp(jstr(m, "direction"), dir) ||
		    strcmp(jstr(m, "mode"), mode) || strcmp(jstr(m, "concurrency"), "single") ||
		    (err && !json_is_null(err)) || json_array_size(st) != 1 ||
		    (json_is_integer(f) && json_integer_value(f) != file) ||
		    strcmp(jstr(json_object_get(m, "verification"), "status"), "passed") != 0 ||
		    json_object_get(m, "plane_sweep"))
			continue;
		double bytes = jnum(m, "bytes");
		double sec = jnum(json_object_get(m, "seconds"), "median");
		int src = end_of(json_object_get(json_array_get(st, 0), "src"));
		int dst = end_of(json_object_get(json_array_get(st, 0), "dst"));
		if (!(bytes > 0.0) || !(sec > 0.0) || src < -1 || dst < -1 || src == dst)
			continue;
		struct skey k;
		skey_of(m, &k);
		struct mset *s = NULL;
		for (size_t j = 0; j < nm && !s; j++)
			if (ms[j].src == src && ms[j].dst == dst && same_skey(&ms[j].key, &k))
				s = &ms[j];
		if (!s) {
			struct mset *more = realloc(ms, (nm + 1) * sizeof(*ms));
			if (!more)
				goto oom;
			ms = more;
			s = &ms[nm++];
			memset(s, 0, sizeof(*s));
			s->key = k;
			s->src = src;
			s->dst = dst;
		}
		s->matrix |= strcmp(jstr(m, "size_set"), "matrix") == 0;
		size_t at = 0;
		while (at < s->n && s->bytes[at] < bytes)
			at++;
		if (at < s->n && s->bytes[at] == bytes)
			continue;
		double *b = realloc(s->bytes, (s->n + 1) * sizeof(double));
		if (b)
			s->bytes = b;
		double *t = b ? realloc(s->seconds, (s->n + 1) * sizeof(double)) : NULL;
		if (!t)
			goto oom;
		s->seconds = t;
		memmove(&s->bytes[at + 1], &s->bytes[at], (s->n - at) * sizeof(double));
		memmove(&s->seconds[at + 1], &s->seconds[at], (s->n - at) * sizeof(double));
		s->bytes[at] = bytes;
		s->seconds[at] = sec;
		s->n++;
	}
	*n = nm;
	return ms ? ms : calloc(1, sizeof(*ms));
oom:
	free_msets(ms, nm);
	return NULL;
}

/* Time of a set at \p x by linear interpolation of its points; < 0 outside them. */
static double mset_at(const struct mset *s, double x)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->bytes[i] == x)
			return s->seconds[i];
		if (i + 1 < s->n && s->bytes[i] < x && x < s->bytes[i + 1])
			return s->seconds[i] + (x - s->bytes[i]) / (s->bytes[i + 1] - s->bytes[i]) *
						       (s->seconds[i + 1] - s->seconds[i]);
	}
	return -1.0;
}

static void ends_name(char *buf, size_t len, int src, int dst)
{
	char a[16], b[16];
	snprintf(a, sizeof(a), src < 0 ? "host" : "%d", src);
	snprintf(b, sizeof(b), dst < 0 ? "host" : "%d", dst);
	snprintf(buf, len, "%s->%s", a, b);
}

static struct nbw_xset *new_set(struct nbw_calib *c, const char *path, const struct mset *m)
{
	struct nbw_xset *s = realloc(c->sets, (c->nsets + 1) * sizeof(*s));
	if (!s)
		return NULL;
	c->sets = s;
	s = &c->sets[c->nsets];
	memset(s, 0, sizeof(*s));
	char e[32];
	ends_name(e, sizeof(e), m->src, m->dst);
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(s->own.name, sizeof(s->own.name), "%.15s %.15s", path, e);
	s->src = m->src;
	s->dst = m->dst;
	s->own.alpha_s = -1.0;
	s->own.bytes = malloc((m->n ? m->n : 1) * sizeof(double));
	s->own.seconds = malloc((m->n ? m->n : 1) * sizeof(double));
	if (!s->own.bytes || !s->own.seconds) {
		free(s->own.bytes);
		free(s->own.seconds);
		return NULL;
	}
	memcpy(s->own.bytes, m->bytes, m->n * sizeof(double));
	memcpy(s->own.seconds, m->seconds, m->n * sizeof(double));
	s->own.n = m->n;
	c->nsets++;
	return s;
}

/* Ratios of \p m's times to \p ref_at(bytes) at its smallest and largest size. */
static void set_ratio(struct nbw_xset *s, const struct mset *m, const struct nbw_curve *ref,
		      const struct mset *base)
{
	size_t idx[2] = {0, m->n - 1};
	s->estimate = true;
	s->nratio = 0;
	for (int i = 0; i < (m->n > 1 ? 2 : 1); i++) {
		double x = m->bytes[idx[i]];
		double r = ref ? nbw_curve_seconds_at(ref, x, NULL, 0) : mset_at(base, x);
		if (!(r > 0.0))
			continue;
		s->ratio_bytes[s->nratio] = x;
		s->ratio[s->nratio++] = m->seconds[idx[i]] / r;
	}
}

/* Per device (HtoD, DtoH) and per ordered pair (P2P), of the path \p name whose reference
 * curve is \p ref: the sets of the reference's own series first (a whole sweep: its own
 * curve; matrix sizes: the ratio to the reference there), then devices and pairs measured
 * only in another series (another hidden-helper setting, host memory, ...) with the ratio to
 * that series' own set on the reference's endpoints. */
static int sets_for_path(struct nbw_calib *c, json_t *measurements, const char *name,
			 const char *dir, const char *mode, const struct nbw_curve *ref)
{
	int rs, rd;
	if (!ends_of_key(ref->key.devices, &rs, &rd))
		return 0;
	size_t n;
	struct mset *ms = collect_msets(measurements, ref->file, dir, mode, &n);
	if (!ms)
		return -1;
	struct skey rk;
	skey_of_curve(&ref->key, &rk);
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		const struct mset *m = &ms[i];
		if (!same_skey(&m->key, &rk) || (m->src == rs && m->dst == rd) || m->n == 0)
			continue;
		struct nbw_xset *s = new_set(c, name, m);
		if (!s)
			goto out;
		if (m->matrix) {
			char e[32];
			ends_name(e, sizeof(e), rs, rd);
			set_ratio(s, m, ref, NULL);
			snprintf(s->ratio_to, sizeof(s->ratio_to), "the reference %s, same series",
				 e);
		} else {
			struct nbw_abfit fit;
			if (nbw_abfit(m->bytes, m->seconds, m->n, &fit) == 0) {
				s->own.alpha_s = fit.alpha_s;
				s->own.beta_gbps = fit.beta_gbps;
			}
		}
	}
	/* Devices and pairs the reference's series left out. */
	for (size_t i = 0; i < n; i++) {
		const struct mset *m = &ms[i];
		if (m->n == 0 || (m->src == rs && m->dst == rd))
			continue;
		bool have = false;
		for (size_t j = 0; j < c->nsets && !have; j++)
			have = strcmp(c->sets[j].path, name) == 0 && c->sets[j].src == m->src &&
			       c->sets[j].dst == m->dst;
		if (have)
			continue;
		/* The best series holding this device or pair and the reference's endpoints:
		 * the reference's host memory, then its peer access, then the most points. */
		const struct mset *best = NULL, *bbase = NULL;
		int bscore = -1;
		for (size_t j = 0; j < n; j++) {
			const struct mset *o = &ms[j];
			if (o->src != m->src || o->dst != m->dst || o->n == 0 ||
			    strcmp(o->key.bind, rk.bind) != 0)
				continue;
			const struct mset *base = NULL;
			for (size_t q = 0; q < n && !base; q++)
				if (ms[q].src == rs && ms[q].dst == rd && ms[q].n &&
				    same_skey(&ms[q].key, &o->key))
					base = &ms[q];
			if (!base)
				continue;
			int score = (strcmp(o->key.host_mem, rk.host_mem) == 0) * 100 +
				    (strcmp(o->key.peer, rk.peer) == 0) * 50 + (int)o->n;
			if (score > bscore) {
				bscore = score;
				best = o;
				bbase = base;
			}
		}
		if (!best)
			continue;
		struct nbw_xset *s = new_set(c, name, best);
		if (!s)
			goto out;
		char e[32];
		ends_name(e, sizeof(e), rs, rd);
		set_ratio(s, best, NULL, bbase);
		/* With another hidden-helper count than the reference's, a small copy's time is
		 * the helpers' wake-up more than the device's (on the 2-core VM 8 B cells of the
		 * 8-helper series took 2-20 us, and once 8 ms, against 0.5 us for the reference):
		 * only the largest size's ratio, the bandwidth's, carries over. */
		bool bw_only = best->key.hh != rk.hh && s->nratio == 2;
		if (bw_only) {
			s->ratio_bytes[0] = s->ratio_bytes[1];
			s->ratio[0] = s->ratio[1];
			s->nratio = 1;
		}
		snprintf(s->ratio_to, sizeof(s->ratio_to), "%s in the series with hidden helpers "
			 "%d, host memory %s%s%s%s", e, best->key.hh, best->key.host_mem,
			 best->key.sweep[0] ? ", " : "", best->key.sweep,
			 bw_only ? " (its largest size only: another hidden-helper count)" : "");
		if (s->nratio == 0) { /* no common size: nothing to estimate from */
			free(s->own.bytes);
			free(s->own.seconds);
			c->nsets--;
		}
	}
	rc = 0;
out:
	free_msets(ms, n);
	return rc;
}

/* The plane-size sweep's curve of the same path as \p cv (NULL: none). */
static const struct nbw_curve *planes_curve(const struct nbw_curves *cs,
					    const struct nbw_curve *cv, int hh)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct nbw_curve_key *k = &cs->c[i].key, *r = &cv->key;
		if (cs->c[i].file == cv->file && strcmp(k->sweep, "planes") == 0 &&
		    strcmp(k->api, r->api) == 0 && strcmp(k->dir, r->dir) == 0 &&
		    strcmp(k->mode, r->mode) == 0 && strcmp(k->conc, r->conc) == 0 &&
		    strcmp(k->host_mem, r->host_mem) == 0 && strcmp(k->peer, r->peer) == 0 &&
		    strcmp(k->devices, r->devices) == 0 && k->hidden_helpers == hh &&
		    cs->c[i].n > 0)
			return &cs->c[i];
	}
	return NULL;
}

/* The path's points at the plane sizes become the plane-size sweep's fastest process
 * (inserted where the main sweep did not measure the size); what the main curve gave there
 * is kept beside it. */
static int refine_planes(struct nbw_xpath *p, const struct nbw_curve *cv,
			 const struct nbw_curve *pl)
{
	for (size_t i = 0; i < pl->n && p->nplanes < NBW_CALIB_MAX_PLANES; i++) {
		const struct nbw_curve_point *q = &pl->pt[i];
		p->planes[p->nplanes++] = (struct nbw_xplane){
			.bytes = q->bytes, .fastest_s = q->seconds, .slowest_s = q->proc_slowest_s,
			.main_s = nbw_curve_seconds_at(cv, q->bytes, NULL, 0), .processes = q->processes,
		};
		size_t at = 0;
		while (at < p->n && p->bytes[at] < q->bytes)
			at++;
		if (at < p->n && p->bytes[at] == q->bytes) {
			p->seconds[at] = q->seconds;
			continue;
		}
		double *b = realloc(p->bytes, (p->n + 1) * sizeof(double));
		if (!b)
			return -1;
		p->bytes = b;
		double *t = realloc(p->seconds, (p->n + 1) * sizeof(double));
		if (!t)
			return -1;
		p->seconds = t;
		memmove(b + at + 1, b + at, (p->n - at) * sizeof(double));
		memmove(t + at + 1, t + at, (p->n - at) * sizeof(double));
		b[at] = q->bytes;
		t[at] = q->seconds;
		p->n++;
	}
	return 0;
}

static int paths_from_curves(struct nbw_calib *c, const struct nbw_curves *cs,
			     json_t *measurements)
{
	static const struct {
		const char *dir, *mode, *conc, *name;
	} want[] = {
		{"htod", "sync", "single", "htod/sync"},
		{"dtoh", "sync", "single", "dtoh/sync"},
		{"htod", "async", "single", "htod/async"},
		{"dtoh", "async", "single", "dtoh/async"},
		{"htod", "async", "dual", "htod/async/dual"},
		{"dtoh", "async", "dual", "dtoh/async/dual"},
		{"p2p", "sync", "single", "p2p/sync"},
		{"p2p", "async", "single", "p2p/async"},
		{"p2p", "async", "bidir", "p2p/async/bidir"},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct nbw_curve *cv =
			pick_curve(cs, want[i].dir, want[i].mode, want[i].conc, c->hidden_helpers);
		if (cv && add_path(c, want[i].name, cv))
			return -1;
		const struct nbw_curve *pl = cv ? planes_curve(cs, cv, c->hidden_helpers) : NULL;
		if (pl && refine_planes(&c->paths[c->npaths - 1], cv, pl))
			return -1;
		if (cv && strcmp(want[i].conc, "single") == 0 &&
		    sets_for_path(c, measurements, want[i].name, want[i].dir, want[i].mode, cv))
			return -1;
	}
	return 0;
}

/* ---- solver runs -------------------------------------------------------------------- */

struct group {
	char version[12];
	char launch[8];
	bool no_exchange;
	bool paired;            /* some of its runs were timed beside their partner (--paired) */
	int g, nx, ny, nz, steps;
	double *sec, *interior, *bnd_sync;
	size_t n, nph;
	struct nbw_paired pair; /* the halo runs' halves (--paired) */
};

static bool run_ok(json_t *r)
{
	json_t *e = json_object_get(r, "error");
	if (e && !json_is_null(e))
		return false;
	const char *st = jstr(json_object_get(r, "verification"), "status");
	return jnum(r, "seconds") > 0.0 &&
	       (strcmp(st, "passed") == 0 || strcmp(st, "reference") == 0);
}

static void free_groups(struct group *gs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(gs[i].sec);
		free(gs[i].interior);
		free(gs[i].bnd_sync);
		nbw_paired_free(&gs[i].pair);
	}
	free(gs);
}

static int push(double **arr, size_t n, double x)
{
	double *a = realloc(*arr, (n + 1) * sizeof(double));
	if (!a)
		return -1;
	a[n] = x;
	*arr = a;
	return 0;
}

/* The runtime of one run: its fastest repetition. Background load on a shared machine only
 * ever slows a repetition down, so the fastest is the best estimate of the undisturbed time
 * (and the one that repeats from run to run); configurations take the fastest round. */
double nbw_solver_run_seconds(json_t *r)
{
	json_t *a = json_object_get(r, "samples_s"), *x;
	double best = INFINITY;
	size_t i;
	json_array_foreach(a, i, x)
		if (json_is_number(x) && json_number_value(x) > 0.0 && json_number_value(x) < best)
			best = json_number_value(x);
	if (isfinite(best))
		return best;
	x = json_object_get(r, "seconds");
	return json_is_number(x) ? json_number_value(x) : NAN;
}

double nbw_rounds_time(double *sec, size_t n, double *spread)
{
	if (n == 0) {
		if (spread)
			*spread = NAN;
		return NAN;
	}
	nbw_median(sec, n); /* sorts */
	size_t m = n < NBW_ROUNDS_CORE ? n : NBW_ROUNDS_CORE;
	if (spread)
		*spread = sec[m - 1] / sec[0];
	return sec[0];
}

int nbw_paired_add(struct nbw_paired *p, json_t *r)
{
	json_t *pr = json_object_get(r, "paired");
	json_t *ps = json_object_get(pr, "partner_samples_s");
	json_t *ms = json_object_get(r, "samples_s");
	if (p->n == 0)
		p->compute_s = INFINITY;
	if (strcmp(jstr(pr, "partner"), "none") || !json_is_array(ps) || !json_is_array(ms))
		return 0;
	size_t m = json_array_size(ps) < json_array_size(ms) ? json_array_size(ps)
							     : json_array_size(ms);
	for (size_t i = 0; i < m; i++) {
		double h = json_number_value(json_array_get(ms, i));
		double c = json_number_value(json_array_get(ps, i));
		if (!(h > 0.0) || !(c > 0.0))
			continue;
		if (push(&p->ratio, p->n++, h / c))
			return -1;
		p->compute_s = fmin(p->compute_s, c);
	}
	return 0;
}

double nbw_paired_time(struct nbw_paired *p, double *spread)
{
	double lo, hi;
	if (spread)
		*spread = NAN;
	if (p->n == 0)
		return NAN;
	double med = nbw_median(p->ratio, p->n); /* sorts */
	if (spread && nbw_median_ci_sorted(p->ratio, p->n, NBW_CI_LEVEL, &lo, &hi, NULL) == 0 &&
	    lo > 0.0)
		*spread = hi / lo;
	return p->compute_s * med;
}

void nbw_paired_free(struct nbw_paired *p)
{
	free(p->ratio);
	memset(p, 0, sizeof(*p));
}

/* Group the solver runs of the same version, G, shape and steps (rounds of nodebw run). */
static struct group *group_runs(json_t *runs, size_t *ng)
{
	struct group *gs = NULL;
	size_t n = 0, i;
	json_t *r;
	*ng = 0;
	json_array_foreach(runs, i, r) {
		if (!run_ok(r))
			continue;
		json_t *sh = json_object_get(r, "shape");
		struct group key = {.g = jint(r, "G", 0), .nx = jint(sh, "nx", 0),
				    .ny = jint(sh, "ny", 0), .nz = jint(sh, "nz", 0),
				    .steps = jint(r, "steps", 0)};
		snprintf(key.version, sizeof(key.version), "%s", jstr(r, "version"));
		snprintf(key.launch, sizeof(key.launch), "%s", jstr(r, "launch"));
		key.no_exchange = strcmp(jstr(r, "exchange"), "none") == 0;
		struct group *gp = NULL;
		for (size_t j = 0; j < n && !gp; j++)
			if (strcmp(gs[j].version, key.version) == 0 && gs[j].g == key.g &&
			    gs[j].nx == key.nx && gs[j].ny == key.ny && gs[j].nz == key.nz &&
			    gs[j].steps == key.steps && strcmp(gs[j].launch, key.launch) == 0 &&
			    gs[j].no_exchange == key.no_exchange)
				gp = &gs[j];
		if (!gp) {
			struct group *more = realloc(gs, (n + 1) * sizeof(*gs));
			if (!more) {
				free_groups(gs, n);
				return NULL;
			}
			gs = more;
			gp = &gs[n++];
			*gp = key;
		}
		gp->paired |= json_is_object(json_object_get(r, "paired"));
		if (push(&gp->sec, gp->n++, nbw_solver_run_seconds(r)) ||
		    nbw_paired_add(&gp->pair, r))
			goto oom;
		json_t *ph = json_object_get(r, "phases_s");
		if (json_is_object(ph)) {
			if (push(&gp->interior, gp->nph, jnum(ph, "interior")) ||
			    push(&gp->bnd_sync, gp->nph,
				 jnum(ph, "boundary") + jnum(ph, "synchronisation")))
				goto oom;
			gp->nph++;
		}
	}
	*ng = n;
	return gs ? gs : calloc(1, sizeof(*gs));
oom:
	free_groups(gs, n);
	return NULL;
}

json_t *nbw_solver_unstable(json_t *runs)
{
	size_t ng;
	struct group *gs = group_runs(runs, &ng);
	if (!gs)
		return NULL;
	json_t *out = json_array();
	for (size_t j = 0; j < ng; j++) {
		struct group *g = &gs[j];
		double spread;
		/* Paired configurations by their halo runs' ratio (the compute-only halves
		 * ran in the same runs); the others by their rounds' fastest repetitions. */
		if (g->paired && g->no_exchange)
			continue;
		if (!(g->pair.n && nbw_paired_time(&g->pair, &spread) > 0.0))
			nbw_rounds_time(g->sec, g->n, &spread);
		if (strcmp(g->version, "serial") == 0 || !(spread > NBW_STABLE_SPREAD))
			continue;
		json_array_append_new(out, json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:i, "
						     "s:f}", "version", g->version, "G", g->g,
						     "nx", g->nx, "ny", g->ny, "nz", g->nz, "steps",
						     g->steps, "launch", g->launch, "exchange",
						     g->no_exchange ? "none" : "halo", "rounds",
						     (int)g->n, "spread", spread));
	}
	free_groups(gs, ng);
	return out;
}

static int add_k(struct nbw_ksample **arr, size_t *n, int nx, int planes, double k)
{
	struct nbw_ksample *a = realloc(*arr, (*n + 1) * sizeof(*a));
	if (!a)
		return -1;
	a[(*n)++] = (struct nbw_ksample){.n = nx, .planes = planes, .k = k};
	*arr = a;
	return 0;
}

static int k_of_slab(const struct nbw_calib *c, int n, int planes, double *k)
{
	for (size_t i = 0; i < c->nslab; i++)
		if (c->slab[i].n == n && c->slab[i].planes == planes) {
			*k = c->slab[i].k;
			return 0;
		}
	for (size_t i = 0; i < c->nk; i++)
		if (c->k[i].n == n && c->k[i].planes == planes) {
			*k = c->k[i].k;
			return 0;
		}
	return -1;
}

static int solver_terms(struct nbw_calib *c, json_t *runs)
{
	size_t ng;
	struct group *gs = group_runs(runs, &ng);
	if (!gs)
		return -1;
	int rc = -1;
	/* Settings of the solver runs: the most common steps, the devices' kind. */
	size_t i;
	json_t *r;
	json_array_foreach(runs, i, r) {
		if (!run_ok(r) || strcmp(jstr(r, "version"), "serial") == 0)
			continue;
		snprintf(c->device_kind, sizeof(c->device_kind), "%s", jstr(r, "device_kind"));
		c->hidden_helpers = jint(r, "hidden_helpers", -1);
		c->steps = jint(r, "steps", 0);
		break;
	}
	/* One-device runs: k per interior point and step. */
	for (size_t j = 0; j < ng; j++) {
		struct group *g = &gs[j];
		if (strcmp(g->version, "baseline") || g->nx != g->ny || g->steps < 1)
			continue;
		double pts = (double)(g->nx - 2) * (g->ny - 2) * (g->nz - 2);
		double k = nbw_rounds_time(g->sec, g->n, NULL) / (g->steps * pts);
		/* The paper's k(N): blocking launches of N^3 grids. The extended model's k_slab:
		 * the launch of Versions 1-4 (nowait) where measured, else any other shape. */
		bool nowait = strcmp(g->launch, "nowait") == 0;
		if (!nowait && g->nz == g->nx ? add_k(&c->k, &c->nk, g->nx, g->nz - 2, k)
					      : add_k(&c->slab, &c->nslab, g->nx, g->nz - 2, k))
			goto out;
	}
	/* The a-priori model's compute: the versions without the halo copies (v1-v2: one host
	 * thread, v3-v4: a thread per device), either runs of their own (v2 and v3) or timed
	 * beside each version's halo runs (--paired: that version's own term). */
	for (size_t j = 0; j < ng; j++) {
		struct group *g = &gs[j];
		if (!g->no_exchange || g->g < 2 || g->nx != g->ny || g->nx != g->nz ||
		    g->version[0] != 'v' || g->version[1] < '1' || g->version[1] > '4' ||
		    (!g->paired && strcmp(g->version, "v2") != 0 && strcmp(g->version, "v3") != 0))
			continue;
		struct nbw_csample *s = realloc(c->cs, (c->ncs + 1) * sizeof(*s));
		if (!s)
			goto out;
		c->cs = s;
		s = &c->cs[c->ncs++];
		*s = (struct nbw_csample){.per_device = g->version[1] >= '3', .g = g->g,
					  .n = g->nx,
					  .step_s = nbw_rounds_time(g->sec, g->n, NULL) / g->steps};
		if (g->paired)
			snprintf(s->paired, sizeof(s->paired), "%s", g->version);
	}
	/* Instrumented multi-device runs: busy factor and overhead per step. */
	for (size_t j = 0; j < ng; j++) {
		struct group *g = &gs[j];
		if (g->version[0] != 'v' || g->no_exchange || g->nph == 0 || g->g < 2 ||
		    g->nx != g->ny || g->nx != g->nz)
			continue;
		int n = g->nx, planes = (n - 2 + g->g - 1) / g->g;
		double k;
		if (k_of_slab(c, n, planes, &k))
			continue;
		double area = (double)(n - 2) * (n - 2);
		/* Everything but the halo copies, per step, with G devices at work at once. */
		double y = (nbw_median(g->interior, g->nph) + nbw_median(g->bnd_sync, g->nph)) /
			   g->steps;
		double x = k * area * planes;
		struct nbw_vsample *v = realloc(c->vs, (c->nvs + 1) * sizeof(*v));
		if (!v)
			goto out;
		c->vs = v;
		v = &c->vs[c->nvs++];
		memset(v, 0, sizeof(*v));
		snprintf(v->version, sizeof(v->version), "%s", g->version);
		v->g = g->g;
		v->n = n;
		v->x_s = x;
		v->y_s = y;
		v->busy = y / x;
		v->measured_s = nbw_rounds_time(g->sec, g->n, NULL) / g->steps;
		/* Paired runs: the speed-matched time, as the validation compares. */
		if (g->pair.n) {
			v->measured_s = nbw_paired_time(&g->pair, NULL) / g->steps;
			v->paired = true;
		}
	}
	rc = 0;
out:
	free_groups(gs, ng);
	return rc;
}

/* The launch probe's forms (heat/launch.c). */
static bool launch_form_known(const char *form)
{
	return form && (strcmp(form, "sync") == 0 || strcmp(form, "one-thread") == 0 ||
			strcmp(form, "per-device") == 0 || strcmp(form, "staged-copy") == 0 ||
			strcmp(form, "direct-copy") == 0);
}

static bool launch_form_copies(const char *form)
{
	return strcmp(form, "staged-copy") == 0 || strcmp(form, "direct-copy") == 0;
}

/* The launch probe's records of every file: per (form, G >= 2[, N]), the fastest round's median
 * step (the rounds' rule of the solver runs: background load only adds time). Records with
 * an error or a failed counter check are left out. */
static int launch_terms(struct nbw_calib *c, const struct nbw_rinput *in)
{
	for (size_t f = 0; in->docs && f < in->nfiles; f++) {
		size_t i;
		json_t *r;
		json_array_foreach(json_object_get(in->docs[f], "launch_probe"), i, r) {
			const char *form = jstr(r, "form");
			int g = jint(r, "G", 0);
			json_t *st = json_object_get(r, "step_s");
			double t = jnum(st, "median");
			if (g < 2 || !(t > 0.0) || json_object_get(r, "error") ||
			    strcmp(jstr(json_object_get(r, "verification"), "status"), "passed") ||
			    !launch_form_known(form))
				continue;
			int n = launch_form_copies(form) ? jint(r, "N", 0) : 0;
			if (launch_form_copies(form) && n < 3)
				continue;
			struct nbw_lsample *l = NULL;
			for (size_t k = 0; k < c->nlaunch; k++)
				if (c->launch[k].g == g && c->launch[k].n == n &&
				    strcmp(c->launch[k].form, form) == 0)
					l = &c->launch[k];
			if (!l) {
				struct nbw_lsample *a =
					realloc(c->launch, (c->nlaunch + 1) * sizeof(*a));
				if (!a)
					return -1;
				c->launch = a;
				l = &c->launch[c->nlaunch++];
				memset(l, 0, sizeof(*l));
				snprintf(l->form, sizeof(l->form), "%s", form);
				l->g = g;
				l->n = n;
			}
			l->rounds++;
			if (l->step_s == 0.0 || t < l->step_s) {
				l->step_s = t;
				l->ci_lo_s = jnum(st, "ci_lo");
				l->ci_hi_s = jnum(st, "ci_hi");
			}
		}
	}
	return 0;
}

int nbw_calib_from_results(const struct nbw_rinput *in, struct nbw_calib *c, char *err,
			   size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->hidden_helpers = -1;
	snprintf(c->source, sizeof(c->source), "%zu results file%s: %s%s", in->nfiles,
		 in->nfiles == 1 ? "" : "s", in->nfiles ? in->paths[0] : "",
		 in->nfiles > 1 ? ", ..." : "");
	/* The CPUs the solver ran on (several files: the first's): those the run was allowed,
	 * else (older files) those online. */
	json_t *machine = in->docs && in->nfiles ? json_object_get(in->docs[0], "machine") : NULL;
	c->host_cpus = jint(machine, "cpus_allowed", jint(machine, "cpus_online", 0));
	if (c->host_cpus < 0)
		c->host_cpus = 0;
	if (solver_terms(c, in->solver_runs) || launch_terms(c, in) ||
	    paths_from_curves(c, &in->curves, in->measurements)) {
		snprintf(err, errlen, "out of memory building the calibration");
		nbw_calib_free(c);
		return -1;
	}
	return 0;
}

/* ---- JSON --------------------------------------------------------------------------- */

static json_t *ks_json(const struct nbw_ksample *k, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:i, s:i, s:f}", "n", k[i].n, "planes",
						   k[i].planes, "k", k[i].k));
	return a;
}

static json_t *end_json(int dev)
{
	return dev < 0 ? json_string("host") : json_integer(dev);
}

static json_t *xpath_json(const struct nbw_xpath *p)
{
	json_t *o = json_object();
	if (p->ends_known) {
		json_object_set_new(o, "src", end_json(p->src));
		json_object_set_new(o, "dst", end_json(p->dst));
	}
	if (p->alpha_s >= 0.0)
		json_object_set_new(o, "alpha_s", json_real(p->alpha_s));
	if (p->beta_gbps > 0.0)
		json_object_set_new(o, "beta_gbps", json_real(p->beta_gbps));
	json_t *pts = json_array();
	for (size_t j = 0; j < p->n; j++)
		json_array_append_new(pts, json_pack("[f, f]", p->bytes[j], p->seconds[j]));
	json_object_set_new(o, "points", pts);
	if (p->nplanes) {
		json_t *a = json_array();
		for (size_t j = 0; j < p->nplanes; j++) {
			const struct nbw_xplane *q = &p->planes[j];
			json_t *e = json_pack("{s:f, s:i, s:f, s:f}", "bytes", q->bytes, "processes",
					      q->processes, "fastest_s", q->fastest_s, "slowest_s",
					      q->slowest_s);
			if (q->main_s > 0.0)
				json_object_set_new(e, "main_run_s", json_real(q->main_s));
			json_array_append_new(a, e);
		}
		json_object_set_new(o, "plane_sweep", a);
	}
	return o;
}

/* "transfer_sets": one object per device or ordered pair; "ratio" marks a matrix
 * estimate. A key older readers ignore, so the schema stays at version 1. */
static json_t *sets_json(const struct nbw_calib *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->nsets; i++) {
		const struct nbw_xset *s = &c->sets[i];
		struct nbw_xpath own = s->own;
		own.ends_known = false;
		if (s->estimate) {
			own.alpha_s = -1.0;
			own.beta_gbps = 0.0;
		}
		json_t *o = xpath_json(&own);
		json_object_set_new(o, "path", json_string(s->path));
		json_object_set_new(o, "src", end_json(s->src));
		json_object_set_new(o, "dst", end_json(s->dst));
		json_object_set_new(o, "size_set", json_string(s->estimate ? "matrix" : "sweep"));
		if (s->estimate) {
			json_t *r = json_array();
			for (size_t j = 0; j < s->nratio; j++)
				json_array_append_new(r, json_pack("[f, f]", s->ratio_bytes[j],
								   s->ratio[j]));
			json_object_set_new(o, "ratio", r);
			json_object_set_new(o, "ratio_to", json_string(s->ratio_to));
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* Which model each term comes from, and whether this calibration has it (doc/model.md). */
static json_t *models_json(const struct nbw_calib *c)
{
	const char *xfer = "transfer: the busiest host thread's planes at the probes' time of one "
			   "8 N^2-byte copy on the version's path (transfers, transfer_sets), the "
			   "bandwidth term x contention (the dual/bidir probes)";
	return json_pack(
		"{s:{s:b, s:[s, s]}, s:{s:b, s:[s, s, s, s, s, s, s]}, s:{s:b, s:[s, s, s, s]}}",
		"paper",
		"available", c->nk > 0 || c->kbar_given > 0.0, "terms",
		"compute: k-bar (k.samples: one-device N^3 runs) x (N-2)^3 / G",
		"transfer: one plane at beta HtoD + DtoH or beta P2P measured at the plane size",
		"a-priori", "available", c->ncs > 0, "terms",
		"compute: compute_only (one host thread for v1-v2, a thread per device for v3-v4, "
		"without the halo copies: kernels, launches and synchronisation of G devices at "
		"once); a version's own paired_with runs where measured, else the form's",
		xfer,
		"overlap: boundary + max(interior, transfer) where the devices run asynchronously "
		"(device_kind, hidden_helpers)",
		"overhead: none beyond compute_only (it holds the launches and synchronisation)",
		"launch: the launch probe's step (one-thread or per-device form) kept "
		"apart when compute_only is carried over from other sizes",
		"copies (Versions 3-4): the launch probe's staged-copy (v3) or direct-copy (v4) "
		"step less its per-device step on G devices, at N (linear in the plane's bytes "
		"between measured N); outside the measured N the transfer curves x "
		"oversubscription",
		"oversubscription (without the copy probe): on host-plugin devices the transfer of "
		"Versions 3-4 x G / host_cpus where G > host_cpus (the copies share a core with "
		"the other host threads)",
		"fitted", "available", c->nvs > 0, "terms",
		"interaction: the mean of the a-priori step x the other sizes' median measured "
		"/ a-priori ratio and the a-priori step + their median difference, over the "
		"timed v1-v4 runs (versions: measured_step_s; measured_paired: the "
		"speed-matched step of --paired runs)",
		"without compute_only: compute = k_slab (one-device runs of the slab shape) x busy "
		"(versions: instrumented v1-v4 runs, least squares over the sizes)",
		xfer, "overhead: the interaction's difference, or the intercept of that fit");
}

json_t *nbw_calib_to_json(const struct nbw_calib *c)
{
	json_t *paths = json_object();
	for (size_t i = 0; i < c->npaths; i++)
		json_object_set_new(paths, c->paths[i].name, xpath_json(&c->paths[i]));
	json_t *vs = json_array();
	for (size_t i = 0; i < c->nvs; i++) {
		const struct nbw_vsample *v = &c->vs[i];
		json_t *o = json_pack("{s:s, s:i, s:i, s:f}", "version", v->version, "G", v->g,
				      "n", v->n, "busy", v->busy);
		if (v->measured_s > 0.0)
			json_object_set_new(o, "measured_step_s", json_real(v->measured_s));
		if (v->measured_s > 0.0 && v->paired)
			json_object_set_new(o, "measured_paired", json_true());
		if (v->x_s > 0.0) {
			json_object_set_new(o, "slab_compute_s", json_real(v->x_s));
			json_object_set_new(o, "step_s", json_real(v->y_s));
		} else {
			json_object_set_new(o, "overhead_s", json_real(v->overhead_s));
		}
		json_array_append_new(vs, o);
	}
	json_t *k = json_pack("{s:o}", "samples", ks_json(c->k, c->nk));
	if (c->kbar_given > 0.0)
		json_object_set_new(k, "kbar", json_real(c->kbar_given));
	json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:i, s:i, s:s, s:o, s:o, s:o, s:o}", "schema",
			      NBW_CALIB_SCHEMA, "schema_version", NBW_CALIB_VERSION, "source",
			      c->source, "device_kind", c->device_kind, "hidden_helpers",
			      c->hidden_helpers, "steps", c->steps, "units",
			      "seconds, bytes, GB/s = 1e9 B/s; k in seconds per interior point and "
			      "step; one halo plane = 8 N^2 bytes",
			      "k", k, "k_slab", ks_json(c->slab, c->nslab), "transfers", paths,
			      "versions", vs);
	if (c->host_cpus > 0)
		json_object_set_new(j, "host_cpus", json_integer(c->host_cpus));
	if (c->nsets)
		json_object_set_new(j, "transfer_sets", sets_json(c));
	if (c->ncs) {
		json_t *a = json_array();
		for (size_t i = 0; i < c->ncs; i++) {
			json_t *o = json_pack("{s:s, s:i, s:i, s:f}", "host_threads",
					      c->cs[i].per_device ? "per-device" : "one", "G",
					      c->cs[i].g, "n", c->cs[i].n, "step_s", c->cs[i].step_s);
			if (c->cs[i].paired[0])
				json_object_set_new(o, "paired_with", json_string(c->cs[i].paired));
			json_array_append_new(a, o);
		}
		json_object_set_new(j, "compute_only", a);
	}
	if (c->nlaunch) {
		json_t *a = json_array();
		for (size_t i = 0; i < c->nlaunch; i++) {
			const struct nbw_lsample *l = &c->launch[i];
			json_t *o = json_pack("{s:s, s:i, s:f, s:i}", "form", l->form, "G", l->g,
					      "step_s", l->step_s, "rounds", l->rounds);
			if (l->n)
				json_object_set_new(o, "N", json_integer(l->n));
			if (l->ci_hi_s > 0.0) {
				json_object_set_new(o, "ci_lo_s", json_real(l->ci_lo_s));
				json_object_set_new(o, "ci_hi_s", json_real(l->ci_hi_s));
			}
			json_array_append_new(a, o);
		}
		json_object_set_new(j, "launch", a);
	}
	json_object_set_new(j, "models", models_json(c));
	return j;
}

/* Reading: every field is checked; a bad one is named by its JSON path. */
static int bad(char *err, size_t errlen, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: %s", path, what);
	return -1;
}

static int positive(json_t *v, double *out)
{
	if (!json_is_number(v) || !(json_number_value(v) > 0.0) ||
	    !isfinite(json_number_value(v)))
		return -1;
	*out = json_number_value(v);
	return 0;
}

static int read_ks(json_t *a, const char *where, struct nbw_ksample **out, size_t *n,
		   char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, where, "must be an array of {\"n\", \"k\"[, \"planes\"]}");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[96];
		snprintf(at, sizeof(at), "%s[%zu]", where, i);
		json_t *jn = json_object_get(s, "n"), *jp = json_object_get(s, "planes");
		double k;
		if (!json_is_integer(jn) || json_integer_value(jn) < 3)
			return bad(err, errlen, at, "\"n\" must be an integer >= 3");
		int nn = (int)json_integer_value(jn);
		if (jp && (!json_is_integer(jp) || json_integer_value(jp) < 1 ||
			   json_integer_value(jp) > nn - 2))
			return bad(err, errlen, at, "\"planes\" must be an integer in 1..n-2");
		if (positive(json_object_get(s, "k"), &k))
			return bad(err, errlen, at, "\"k\" must be a positive number (seconds per "
						    "interior point and step)");
		if (add_k(out, n, nn, jp ? (int)json_integer_value(jp) : nn - 2, k))
			return bad(err, errlen, at, "out of memory");
	}
	return 0;
}

static int read_points(struct nbw_xpath *p, json_t *o, const char *at, char *err,
		       size_t errlen);

static int read_path(struct nbw_calib *c, const char *name, json_t *o, char *err,
		     size_t errlen)
{
	char at[96];
	snprintf(at, sizeof(at), "transfers.%s", name);
	static const char *dirs[] = {"htod", "dtoh", "p2p"};
	bool dir_ok = false;
	for (int d = 0; d < 3; d++)
		dir_ok |= strncmp(name, dirs[d], strlen(dirs[d])) == 0 &&
			  (name[strlen(dirs[d])] == '\0' || name[strlen(dirs[d])] == '/');
	if (!dir_ok || strlen(name) >= sizeof(c->paths[0].name))
		return bad(err, errlen, at, "a path name is htod, dtoh or p2p, optionally with "
					    "/MODE and /dual or /bidir");
	if (!json_is_object(o))
		return bad(err, errlen, at, "must be an object with beta_gbps and/or points");
	struct nbw_xpath *p = realloc(c->paths, (c->npaths + 1) * sizeof(*p));
	if (!p)
		return bad(err, errlen, at, "out of memory");
	c->paths = p;
	p = &c->paths[c->npaths++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	json_t *js = json_object_get(o, "src"), *jd = json_object_get(o, "dst");
	if (js || jd) {
		p->src = end_of(js);
		p->dst = end_of(jd);
		if (p->src < -1 || p->dst < -1)
			return bad(err, errlen, at, "\"src\" and \"dst\" go together: \"host\" or a "
						    "device id");
		p->ends_known = true;
	}
	return read_points(p, o, at, err, errlen);
}

/* alpha_s, beta_gbps and points of a path or set object into \p p. */
static int read_points(struct nbw_xpath *p, json_t *o, const char *at, char *err,
		       size_t errlen)
{
	p->alpha_s = -1.0;
	json_t *a = json_object_get(o, "alpha_s"), *b = json_object_get(o, "beta_gbps");
	json_t *pts = json_object_get(o, "points");
	if (a && (!json_is_number(a) || json_number_value(a) < 0.0))
		return bad(err, errlen, at, "\"alpha_s\" must be a number >= 0 (seconds)");
	if (a)
		p->alpha_s = json_number_value(a);
	if (b && positive(b, &p->beta_gbps))
		return bad(err, errlen, at, "\"beta_gbps\" must be a positive number (GB/s)");
	if (pts && !json_is_array(pts))
		return bad(err, errlen, at, "\"points\" must be an array of [bytes, seconds]");
	size_t np = json_array_size(pts);
	if (np) {
		p->bytes = malloc(np * sizeof(double));
		p->seconds = malloc(np * sizeof(double));
		if (!p->bytes || !p->seconds)
			return bad(err, errlen, at, "out of memory");
	}
	for (size_t i = 0; i < np; i++) {
		json_t *pt = json_array_get(pts, i);
		double x, y;
		if (!json_is_array(pt) || json_array_size(pt) != 2 ||
		    positive(json_array_get(pt, 0), &x) || positive(json_array_get(pt, 1), &y))
			return bad(err, errlen, at, "points[%zu] must be [bytes > 0, seconds > 0]",
				   i);
		if (i && x <= p->bytes[i - 1])
			return bad(err, errlen, at, "points must be in ascending size");
		p->bytes[i] = x;
		p->seconds[i] = y;
		p->n = i + 1;
	}
	if (!(p->beta_gbps > 0.0) && p->n == 0)
		return bad(err, errlen, at, "needs \"beta_gbps\" or \"points\"");
	return 0;
}

/* "transfer_sets": [{"path", "src", "dst", points and/or "ratio": [[bytes, r], ...]}]. */
static int read_sets(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "transfer_sets", "must be an array of per-device and "
							 "per-pair transfer objects");
	size_t i;
	json_t *o;
	json_array_foreach(a, i, o) {
		char at[64];
		snprintf(at, sizeof(at), "transfer_sets[%zu]", i);
		const char *path = json_string_value(json_object_get(o, "path"));
		int src = end_of(json_object_get(o, "src"));
		int dst = end_of(json_object_get(o, "dst"));
		static const char *dirs[] = {"htod", "dtoh", "p2p"};
		bool dir_ok = false;
		for (int d = 0; d < 3 && path; d++)
			dir_ok |= strncmp(path, dirs[d], strlen(dirs[d])) == 0 &&
				  (path[strlen(dirs[d])] == '\0' || path[strlen(dirs[d])] == '/');
		if (!json_is_object(o) || !dir_ok || strlen(path) >= sizeof(c->sets[0].path))
			return bad(err, errlen, at, "needs \"path\": htod, dtoh or p2p, "
						    "optionally with /MODE");
		bool host_ok = strncmp(path, "p2p", 3) == 0 ? src >= 0 && dst >= 0
			       : strncmp(path, "htod", 4) == 0 ? src == -1 && dst >= 0
							       : src >= 0 && dst == -1;
		if (!host_ok || src == dst)
			return bad(err, errlen, at, "\"src\" and \"dst\": \"host\" or device ids, "
						    "as the direction has them");
		json_t *ratio = json_object_get(o, "ratio");
		if (ratio && (!json_is_array(ratio) || json_array_size(ratio) < 1 ||
			      json_array_size(ratio) > 2))
			return bad(err, errlen, at, "\"ratio\" must be one or two [bytes, ratio]");
		struct nbw_xset *x = realloc(c->sets, (c->nsets + 1) * sizeof(*x));
		if (!x)
			return bad(err, errlen, at, "out of memory");
		c->sets = x;
		x = &c->sets[c->nsets++];
		memset(x, 0, sizeof(*x));
		snprintf(x->path, sizeof(x->path), "%s", path);
		char e[32];
		ends_name(e, sizeof(e), src, dst);
		snprintf(x->own.name, sizeof(x->own.name), "%.15s %.15s", path, e);
		x->src = src;
		x->dst = dst;
		x->own.alpha_s = -1.0;
		snprintf(x->ratio_to, sizeof(x->ratio_to), "%s",
			 json_string_value(json_object_get(o, "ratio_to"))
				 ? json_string_value(json_object_get(o, "ratio_to"))
				 : "the path's curve");
		for (size_t j = 0; j < json_array_size(ratio); j++) {
			json_t *pt = json_array_get(ratio, j);
			double xb, r;
			if (!json_is_array(pt) || json_array_size(pt) != 2 ||
			    positive(json_array_get(pt, 0), &xb) ||
			    positive(json_array_get(pt, 1), &r))
				return bad(err, errlen, at,
					   "ratio[%zu] must be [bytes > 0, ratio > 0]", j);
			if (j && xb <= x->ratio_bytes[0])
				return bad(err, errlen, at, "ratio sizes must be ascending");
			x->ratio_bytes[j] = xb;
			x->ratio[j] = r;
			x->nratio = j + 1;
		}
		x->estimate = x->nratio > 0;
		bool own = json_object_get(o, "points") || json_object_get(o, "beta_gbps");
		if (!own && !x->estimate)
			return bad(err, errlen, at, "needs \"points\", \"beta_gbps\" or \"ratio\"");
		if (own && read_points(&x->own, o, at, err, errlen))
			return -1;
	}
	return 0;
}

static int read_versions(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "versions", "must be an array");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[64];
		snprintf(at, sizeof(at), "versions[%zu]", i);
		const char *v = json_string_value(json_object_get(s, "version"));
		json_t *g = json_object_get(s, "G"), *n = json_object_get(s, "n");
		json_t *busy = json_object_get(s, "busy"), *o = json_object_get(s, "overhead_s");
		json_t *jx = json_object_get(s, "slab_compute_s"), *jy = json_object_get(s, "step_s");
		json_t *jm = json_object_get(s, "measured_step_s");
		json_t *jp = json_object_get(s, "measured_paired");
		double x = 0.0, y = 0.0, ms = 0.0;
		if ((jx || jy) && (positive(jx, &x) || positive(jy, &y)))
			return bad(err, errlen, at, "\"slab_compute_s\" and \"step_s\" go together, "
						    "positive seconds");
		if (jm && positive(jm, &ms))
			return bad(err, errlen, at, "\"measured_step_s\" must be positive seconds");
		if (jm && !n)
			return bad(err, errlen, at, "\"measured_step_s\" needs \"n\"");
		if (jp && (!json_is_boolean(jp) || !jm))
			return bad(err, errlen, at, "\"measured_paired\" must be true or false, "
						    "beside \"measured_step_s\"");
		if (!v || strlen(v) != 2 || v[0] != 'v' || v[1] < '1' || v[1] > '4')
			return bad(err, errlen, at, "\"version\" must be v1, v2, v3 or v4");
		if (!json_is_integer(g) || json_integer_value(g) < 2)
			return bad(err, errlen, at, "\"G\" must be an integer >= 2");
		if (n && (!json_is_integer(n) || json_integer_value(n) < 3))
			return bad(err, errlen, at, "\"n\" must be an integer >= 3");
		double bv = 1.0;
		if (busy && positive(busy, &bv))
			return bad(err, errlen, at, "\"busy\" must be a positive number");
		if (o && !json_is_number(o))
			return bad(err, errlen, at, "\"overhead_s\" must be a number (seconds)");
		struct nbw_vsample *vs = realloc(c->vs, (c->nvs + 1) * sizeof(*vs));
		if (!vs)
			return bad(err, errlen, at, "out of memory");
		c->vs = vs;
		vs = &c->vs[c->nvs++];
		memset(vs, 0, sizeof(*vs));
		snprintf(vs->version, sizeof(vs->version), "%s", v);
		vs->g = (int)json_integer_value(g);
		vs->n = n ? (int)json_integer_value(n) : 0;
		vs->busy = bv;
		vs->overhead_s = o ? json_number_value(o) : 0.0;
		vs->x_s = x;
		vs->y_s = y;
		vs->measured_s = ms;
		vs->paired = jp && json_is_true(jp);
	}
	return 0;
}

/* compute_only: [{host_threads, G, n, step_s}] */
static int read_cs(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "compute_only", "must be an array");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[64];
		snprintf(at, sizeof(at), "compute_only[%zu]", i);
		const char *th = json_string_value(json_object_get(s, "host_threads"));
		json_t *g = json_object_get(s, "G"), *n = json_object_get(s, "n");
		double t;
		if (!th || (strcmp(th, "one") != 0 && strcmp(th, "per-device") != 0))
			return bad(err, errlen, at, "\"host_threads\" must be \"one\" or "
						    "\"per-device\"");
		if (!json_is_integer(g) || !json_is_integer(n))
			return bad(err, errlen, at, "\"G\" and \"n\" must be integers");
		if (positive(json_object_get(s, "step_s"), &t))
			return bad(err, errlen, at, "\"step_s\" must be positive seconds");
		json_t *pw = json_object_get(s, "paired_with");
		const char *pv = json_string_value(pw);
		bool pd = strcmp(th, "per-device") == 0;
		/* v1-v2 drive the devices from one host thread, v3-v4 from one per device. */
		char lo = pd ? '3' : '1';
		if (pw && (!pv || strlen(pv) != 2 || pv[0] != 'v' || pv[1] < lo || pv[1] > lo + 1))
			return bad(err, errlen, at, "\"paired_with\" must be \"v1\" or \"v2\" "
						    "(host_threads one) or \"v3\" or \"v4\" "
						    "(per-device)");
		struct nbw_csample *cs = realloc(c->cs, (c->ncs + 1) * sizeof(*cs));
		if (!cs)
			return bad(err, errlen, at, "out of memory");
		c->cs = cs;
		cs = &c->cs[c->ncs++];
		*cs = (struct nbw_csample){.per_device = pd, .g = (int)json_integer_value(g),
					   .n = (int)json_integer_value(n), .step_s = t};
		if (pv)
			snprintf(cs->paired, sizeof(cs->paired), "%s", pv);
	}
	return 0;
}

/* launch: [{form, G[, N], step_s, rounds[, ci_lo_s, ci_hi_s]}] (N: the copy forms only) */
static int read_launch(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "launch", "must be an array");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[64];
		snprintf(at, sizeof(at), "launch[%zu]", i);
		const char *form = json_string_value(json_object_get(s, "form"));
		json_t *g = json_object_get(s, "G"), *rounds = json_object_get(s, "rounds");
		double t, lo = 0.0, hi = 0.0;
		if (!launch_form_known(form))
			return bad(err, errlen, at, "\"form\" must be \"sync\", \"one-thread\", "
						    "\"per-device\", \"staged-copy\" or "
						    "\"direct-copy\"");
		if (!json_is_integer(g))
			return bad(err, errlen, at, "\"G\" must be an integer");
		json_t *nj = json_object_get(s, "N");
		bool copies = launch_form_copies(form);
		if (copies && (!json_is_integer(nj) || json_integer_value(nj) < 3 ||
			       json_integer_value(nj) > 1000000))
			return bad(err, errlen, at, "\"N\" of a copy form must be an integer "
						    "3-1000000");
		if (!copies && nj)
			return bad(err, errlen, at, "\"N\" belongs to the copy forms only");
		if (rounds && (!json_is_integer(rounds) || json_integer_value(rounds) < 1 ||
			       json_integer_value(rounds) > 100000))
			return bad(err, errlen, at, "\"rounds\" must be an integer 1-100000");
		if (positive(json_object_get(s, "step_s"), &t))
			return bad(err, errlen, at, "\"step_s\" must be positive seconds");
		if (json_object_get(s, "ci_lo_s") &&
		    (positive(json_object_get(s, "ci_lo_s"), &lo) ||
		     positive(json_object_get(s, "ci_hi_s"), &hi) || lo > t || hi < t))
			return bad(err, errlen, at, "\"ci_lo_s\" <= \"step_s\" <= \"ci_hi_s\", "
						    "positive seconds");
		struct nbw_lsample *l = realloc(c->launch, (c->nlaunch + 1) * sizeof(*l));
		if (!l)
			return bad(err, errlen, at, "out of memory");
		c->launch = l;
		l = &c->launch[c->nlaunch++];
		memset(l, 0, sizeof(*l));
		snprintf(l->form, sizeof(l->form), "%s", form);
		l->g = (int)json_integer_value(g);
		l->n = copies ? (int)json_integer_value(nj) : 0;
		l->step_s = t;
		l->ci_lo_s = lo;
		l->ci_hi_s = hi;
		l->rounds = rounds ? (int)json_integer_value(rounds) : 1;
	}
	return 0;
}

static int calib_from_json(json_t *j, struct nbw_calib *c, char *err, size_t errlen)
{
	if (!json_is_object(j) || strcmp(jstr(j, "schema"), NBW_CALIB_SCHEMA) != 0)
		return bad(err, errlen, "schema",
			   "not a nodebw calibration (needs \"schema\": \"" NBW_CALIB_SCHEMA "\")");
	json_t *jv = json_object_get(j, "schema_version");
	if (!json_is_integer(jv) || json_integer_value(jv) != NBW_CALIB_VERSION)
		return bad(err, errlen, "schema_version", "must be %d (this nodebw reads %d)",
			   NBW_CALIB_VERSION, NBW_CALIB_VERSION);
	/* Every integer kept in an int, checked against what it means before it is read. */
	static const struct nbw_int_rule rules[] = {
		{"n", 3, NBW_GRID_MAX_SIDE, "a grid side N"},
		{"planes", 1, NBW_GRID_MAX_SIDE, "planes of a slab"},
		{"G", 2, NBW_MAX_DEVICES, "G, devices of a run"},
		{"steps", 0, NBW_STEPS_MAX, "time steps"},
		{"hidden_helpers", -1, NBW_HH_MAX, "hidden helper threads"},
		{"host_cpus", 0, 1 << 20, "CPUs the solver ran on (0 unknown)"},
		{"src", -1, NBW_MAX_DEVICES - 1, "a device id"},
		{"dst", -1, NBW_MAX_DEVICES - 1, "a device id"},
	};
	char where[160], what[256];
	if (nbw_json_check_ints(j, rules, sizeof(rules) / sizeof(rules[0]), where, sizeof(where),
				what, sizeof(what)))
		return bad(err, errlen, where, "%s", what);
	/* The rules judge integers; a number of another kind there is bad input too, not a
	 * silent "unknown". */
	static const char *const whole[] = {"hidden_helpers", "host_cpus"};
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		json_t *v = json_object_get(j, whole[i]);
		if (v && !json_is_integer(v))
			return bad(err, errlen, whole[i], "must be an integer");
	}
	snprintf(c->source, sizeof(c->source), "%s", jstr(j, "source"));
	snprintf(c->device_kind, sizeof(c->device_kind), "%s", jstr(j, "device_kind"));
	c->hidden_helpers = jint(j, "hidden_helpers", -1);
	c->host_cpus = jint(j, "host_cpus", 0);
	json_t *st = json_object_get(j, "steps");
	if (st && (!json_is_integer(st) || json_integer_value(st) < 0))
		return bad(err, errlen, "steps", "must be an integer >= 0");
	c->steps = st ? (int)json_integer_value(st) : 0;
	json_t *k = json_object_get(j, "k");
	if (k && !json_is_object(k))
		return bad(err, errlen, "k", "must be an object with \"kbar\" and/or \"samples\"");
	json_t *kb = json_object_get(k, "kbar");
	if (kb && positive(kb, &c->kbar_given))
		return bad(err, errlen, "k.kbar", "must be a positive number (seconds per "
						  "interior point and step)");
	if (read_ks(json_object_get(k, "samples"), "k.samples", &c->k, &c->nk, err, errlen) ||
	    read_ks(json_object_get(j, "k_slab"), "k_slab", &c->slab, &c->nslab, err, errlen))
		return -1;
	json_t *tr = json_object_get(j, "transfers");
	if (tr && !json_is_object(tr))
		return bad(err, errlen, "transfers", "must be an object of paths");
	const char *name;
	json_t *o;
	json_object_foreach(tr, name, o)
		if (read_path(c, name, o, err, errlen))
			return -1;
	if (read_sets(c, json_object_get(j, "transfer_sets"), err, errlen) ||
	    read_cs(c, json_object_get(j, "compute_only"), err, errlen) ||
	    read_launch(c, json_object_get(j, "launch"), err, errlen))
		return -1;
	return read_versions(c, json_object_get(j, "versions"), err, errlen);
}

int nbw_calib_load(const char *path, struct nbw_calib *c, char *err, size_t errlen)
{
	char *text;
	size_t len;
	memset(c, 0, sizeof(*c));
	if (nbw_readfile(path, 0, &text, &len, err, errlen))
		return -1;
	int rc = nbw_calib_load_buffer(path, text, len, c, err, errlen);
	free(text);
	return rc;
}

int nbw_calib_load_buffer(const char *path, const char *text, size_t len, struct nbw_calib *c,
			  char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	json_error_t je;
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		nbw_json_parse_error(path, &je, len, err, errlen);
		return -1;
	}
	char e[400];
	int rc = calib_from_json(j, c, e, sizeof(e));
	json_decref(j);
	if (rc) {
		/* e is "JSON.PATH: what": name the line and column of that value. */
		char where[128];
		size_t n = strcspn(e, ":");
		int line, col;
		snprintf(where, sizeof(where), "%.*s", (int)(n < sizeof(where) ? n : 0), e);
		if (where[0] && nbw_json_locate(text, len, where, &line, &col) == 0)
			snprintf(err, errlen, "%s:%d:%d: %s", path, line, col, e);
		else
			snprintf(err, errlen, "%s: %s", path, e);
		nbw_calib_free(c);
	}
	return rc;
}
