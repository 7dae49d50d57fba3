/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibrations from results, part 1: the transfer paths of the OpenMP API from its curves
 * (alpha-beta per path, the plane-size sweep) and their per-device and per-pair sets
 * (doc/model.md). The solver's terms are calib_solver.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/model.h"
#include "nodebw/curves.h"
#include "nodebw/results_view.h"
#include "calib_priv.h"

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

static void skey_of(const struct nbw_rv_meas *x, struct skey *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->host_mem, sizeof(k->host_mem), "%s", x->host_mem);
	snprintf(k->peer, sizeof(k->peer), "%s", x->peer_access[0] ? x->peer_access : "n/a");
	snprintf(k->bind, sizeof(k->bind), "%s", x->bind);
	k->hh = x->hidden_helpers;
	snprintf(k->sweep, sizeof(k->sweep), "%s", x->hht_sweep);
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
int nbw_calib_end_of(json_t *v)
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
		struct nbw_rv_meas x;
		nbw_rv_meas_read(NULL, m, &x);
		if (strcmp(x.api, "omp") || strcmp(x.direction, dir) || strcmp(x.mode, mode) ||
		    strcmp(x.concurrency, "single") || !nbw_rv_meas_verified(&x) ||
		    x.nstreams != 1 || (x.file >= 0 && x.file != file) || x.plane_sweep)
			continue;
		double bytes = (double)x.bytes, sec = x.seconds;
		int src = x.src, dst = x.dst;
		if (!(bytes > 0.0) || !(sec > 0.0) || src == dst)
			continue;
		struct skey k;
		skey_of(&x, &k);
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
		s->matrix |= strcmp(x.size_set, "matrix") == 0;
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

void nbw_calib_ends_name(char *buf, size_t len, int src, int dst)
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
	nbw_calib_ends_name(e, sizeof(e), m->src, m->dst);
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
			nbw_calib_ends_name(e, sizeof(e), rs, rd);
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
		nbw_calib_ends_name(e, sizeof(e), rs, rd);
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

int nbw_calib_paths_from_curves(struct nbw_calib *c, const struct nbw_curves *cs,
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

