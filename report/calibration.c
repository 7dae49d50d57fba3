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

#include "nodebw/jsonpos.h"
#include "nodebw/model.h"
#include "nodebw/report.h"
#include "nodebw/stats.h"
#include "jget.h"

/* ---- transfer paths from curves ----------------------------------------------------- */

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
		if (k->bind[0] && strcmp(k->bind, "local") != 0)
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

static int paths_from_curves(struct nbw_calib *c, const struct nbw_curves *cs)
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
	}
	return 0;
}

/* ---- solver runs -------------------------------------------------------------------- */

struct group {
	char version[12];
	char launch[8];
	int g, nx, ny, nz, steps;
	double *sec, *interior, *bnd_sync;
	size_t n, nph;
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
 * ever slows a repetition down, so the fastest is the best estimate of the undisturbed time;
 * configurations are then combined over rounds by the median. */
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
		struct group *gp = NULL;
		for (size_t j = 0; j < n && !gp; j++)
			if (strcmp(gs[j].version, key.version) == 0 && gs[j].g == key.g &&
			    gs[j].nx == key.nx && gs[j].ny == key.ny && gs[j].nz == key.nz &&
			    gs[j].steps == key.steps && strcmp(gs[j].launch, key.launch) == 0)
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
		if (push(&gp->sec, gp->n++, nbw_solver_run_seconds(r)))
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
		double k = nbw_median(g->sec, g->n) / (g->steps * pts);
		/* The paper's k(N): blocking launches of N^3 grids. The extended model's k_slab:
		 * the launch of Versions 1-4 (nowait) where measured, else any other shape. */
		bool nowait = strcmp(g->launch, "nowait") == 0;
		if (!nowait && g->nz == g->nx ? add_k(&c->k, &c->nk, g->nx, g->nz - 2, k)
					      : add_k(&c->slab, &c->nslab, g->nx, g->nz - 2, k))
			goto out;
	}
	/* Instrumented multi-device runs: busy factor and overhead per step. */
	for (size_t j = 0; j < ng; j++) {
		struct group *g = &gs[j];
		if (g->version[0] != 'v' || g->nph == 0 || g->g < 2 || g->nx != g->ny ||
		    g->nx != g->nz)
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
	}
	rc = 0;
out:
	free_groups(gs, ng);
	return rc;
}

int nbw_calib_from_results(const struct nbw_rinput *in, struct nbw_calib *c, char *err,
			   size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->hidden_helpers = -1;
	snprintf(c->source, sizeof(c->source), "%zu results file%s: %s%s", in->nfiles,
		 in->nfiles == 1 ? "" : "s", in->nfiles ? in->paths[0] : "",
		 in->nfiles > 1 ? ", ..." : "");
	if (solver_terms(c, in->solver_runs) || paths_from_curves(c, &in->curves)) {
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

json_t *nbw_calib_to_json(const struct nbw_calib *c)
{
	json_t *paths = json_object();
	for (size_t i = 0; i < c->npaths; i++) {
		const struct nbw_xpath *p = &c->paths[i];
		json_t *o = json_object();
		if (p->alpha_s >= 0.0)
			json_object_set_new(o, "alpha_s", json_real(p->alpha_s));
		if (p->beta_gbps > 0.0)
			json_object_set_new(o, "beta_gbps", json_real(p->beta_gbps));
		json_t *pts = json_array();
		for (size_t j = 0; j < p->n; j++)
			json_array_append_new(pts, json_pack("[f, f]", p->bytes[j], p->seconds[j]));
		json_object_set_new(o, "points", pts);
		json_object_set_new(paths, p->name, o);
	}
	json_t *vs = json_array();
	for (size_t i = 0; i < c->nvs; i++) {
		const struct nbw_vsample *v = &c->vs[i];
		json_t *o = json_pack("{s:s, s:i, s:i, s:f}", "version", v->version, "G", v->g,
				      "n", v->n, "busy", v->busy);
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
		double x = 0.0, y = 0.0;
		if ((jx || jy) && (positive(jx, &x) || positive(jy, &y)))
			return bad(err, errlen, at, "\"slab_compute_s\" and \"step_s\" go together, "
						    "positive seconds");
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
	}
	return 0;
}

static int calib_from_json(json_t *j, struct nbw_calib *c, char *err, size_t errlen)
{
	if (!json_is_object(j) || strcmp(jstr(j, "schema"), NBW_CALIB_SCHEMA) != 0)
		return bad(err, errlen, "schema",
			   "not a nodebw calibration (needs \"schema\": \"" NBW_CALIB_SCHEMA "\")");
	int ver = jint(j, "schema_version", -1);
	if (ver != NBW_CALIB_VERSION)
		return bad(err, errlen, "schema_version", "is %d, this nodebw reads %d", ver,
			   NBW_CALIB_VERSION);
	snprintf(c->source, sizeof(c->source), "%s", jstr(j, "source"));
	snprintf(c->device_kind, sizeof(c->device_kind), "%s", jstr(j, "device_kind"));
	c->hidden_helpers = jint(j, "hidden_helpers", -1);
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
	return read_versions(c, json_object_get(j, "versions"), err, errlen);
}

int nbw_calib_load(const char *path, struct nbw_calib *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	json_error_t je;
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		if (je.line < 0)
			snprintf(err, errlen, "%s: %s", path, je.text);
		else
			snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
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
		if (where[0] && nbw_json_locate_file(path, where, &line, &col) == 0)
			snprintf(err, errlen, "%s:%d:%d: %s", path, line, col, e);
		else
			snprintf(err, errlen, "%s: %s", path, e);
		nbw_calib_free(c);
	}
	return rc;
}
