/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibrations from results, part 2: the solver's runs (k per size and slab shape, the
 * compute-only and instrumented versions, paired runs, the launch probe), and the
 * calibration of merged results (doc/model.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/model.h"
#include "nodebw/curves.h"
#include "nodebw/stats.h"
#include "nodebw/results_view.h"
#include "nodebw/results_view_app.h"
#include "calib_priv.h"
#include "nodebw/jget.h"

/* ---- solver runs -------------------------------------------------------------------- */

struct group {
	char version[12];
	char launch[8];
	char corun[12];         /* the co-run probe's form; "" */
	int slab_g;             /* the co-run probe: the G whose slab it ran */
	bool no_exchange;
	bool app;               /* a run of another radius or field count, or the general
				   solver's: "local_boxes", not the paper's k */
	int radius, fields;
	bool paired;            /* some of its runs were timed beside their partner (--paired) */
	int g, nx, ny, nz, steps;
	double *sec, *interior, *bnd_sync;
	size_t n, nph;
	struct nbw_paired pair; /* the halo runs' halves (--paired) */
};

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
	struct nbw_rv_solver_run v;
	nbw_rv_solver_read(r, &v);
	return v.fastest_s;
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

/* A halo run's repetitions beside their compute-only partners (--paired): repetition i of
 * both stays side by side (a non-number reads as NaN and is left out). */
static int paired_add(struct nbw_paired *p, const struct nbw_rv_solver_run *v)
{
	if (p->n == 0)
		p->compute_s = INFINITY;
	if (strcmp(v->partner, "none"))
		return 0;
	double *hs = NULL, *cs = NULL;
	size_t nh = nbw_rv_solver_samples(v, false, &hs);
	size_t nc = nbw_rv_solver_samples(v, true, &cs);
	size_t m = nh < nc ? nh : nc;
	int rc = 0;
	for (size_t i = 0; i < m; i++) {
		double h = hs[i], c = cs[i];
		if (!(h > 0.0) || !(c > 0.0))
			continue;
		if (push(&p->ratio, p->n++, h / c)) {
			rc = -1;
			break;
		}
		p->compute_s = fmin(p->compute_s, c);
	}
	free(hs);
	free(cs);
	return rc;
}

int nbw_paired_add(struct nbw_paired *p, json_t *r)
{
	struct nbw_rv_solver_run v;
	nbw_rv_solver_read(r, &v);
	return paired_add(p, &v);
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

/* An instrumented run's phases (phases_s); all NaN when it has none. */
static bool has_phases(const struct nbw_rv_phases *p)
{
	return !(isnan(p->interior) && isnan(p->boundary) && isnan(p->halo) && isnan(p->sync) &&
		 isnan(p->total));
}

/* Group the solver runs of the same version, G, shape and steps (rounds of nodebw run). */
static struct group *group_runs(json_t *runs, size_t *ng)
{
	struct group *gs = NULL;
	size_t n = 0, i;
	json_t *r;
	*ng = 0;
	json_array_foreach(runs, i, r) {
		struct nbw_rv_solver_run v;
		nbw_rv_solver_read(r, &v);
		if (!nbw_rv_solver_ok(&v))
			continue;
		struct group key = {.g = v.g, .nx = v.nx, .ny = v.ny, .nz = v.nz, .steps = v.steps};
		snprintf(key.version, sizeof(key.version), "%s", v.version);
		snprintf(key.launch, sizeof(key.launch), "%s", v.launch);
		key.no_exchange = v.no_exchange;
		snprintf(key.corun, sizeof(key.corun), "%s", v.corun);
		key.slab_g = v.corun_slab_g;
		key.app = nbw_calib_is_app_run(r);
		struct nbw_rv_solver_app ap;
		nbw_rv_solver_app_read(r, &ap);
		key.radius = ap.radius;
		key.fields = ap.fields;
		struct group *gp = NULL;
		for (size_t j = 0; j < n && !gp; j++)
			if (strcmp(gs[j].version, key.version) == 0 && gs[j].g == key.g &&
			    gs[j].nx == key.nx && gs[j].ny == key.ny && gs[j].nz == key.nz &&
			    gs[j].steps == key.steps && strcmp(gs[j].launch, key.launch) == 0 &&
			    gs[j].no_exchange == key.no_exchange &&
			    strcmp(gs[j].corun, key.corun) == 0 && gs[j].slab_g == key.slab_g &&
			    gs[j].app == key.app && gs[j].radius == key.radius &&
			    gs[j].fields == key.fields)
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
		gp->paired |= v.paired;
		if (push(&gp->sec, gp->n++, v.fastest_s) || paired_add(&gp->pair, &v))
			goto oom;
		if (has_phases(&v.phases)) {
			if (push(&gp->interior, gp->nph, v.phases.interior) ||
			    push(&gp->bnd_sync, gp->nph, v.phases.boundary + v.phases.sync))
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

long nbw_solver_unstable(json_t *runs, struct nbw_unstable **out)
{
	size_t ng;
	*out = NULL;
	struct group *gs = group_runs(runs, &ng);
	if (!gs)
		return ng ? -1 : 0;
	struct nbw_unstable *u = calloc(ng ? ng : 1, sizeof(*u));
	if (!u) {
		free_groups(gs, ng);
		return -1;
	}
	long n = 0;
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
		struct nbw_unstable *x = &u[n++];
		snprintf(x->version, sizeof(x->version), "%s", g->version);
		snprintf(x->launch, sizeof(x->launch), "%s", g->launch);
		x->g = g->g;
		x->nx = g->nx;
		x->ny = g->ny;
		x->nz = g->nz;
		x->steps = g->steps;
		x->rounds = (int)g->n;
		x->slab_g = g->slab_g; /* the co-run probe runs again for its slab's G */
		x->radius = g->radius;
		x->fields = g->fields;
		x->no_exchange = g->no_exchange;
		x->spread = spread;
	}
	free_groups(gs, ng);
	if (n)
		*out = u;
	else
		free(u);
	return n;
}

int nbw_calib_add_k(struct nbw_ksample **arr, size_t *n, int nx, int planes, double k)
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

/* The one-device model's co-run probe: G's slab on several devices at once; the co-runs
 * of other boxes (an application's local box) are the box co-runs. 0, or -1 out of
 * memory. */
static int corun_terms(struct nbw_calib *c, const struct group *gs, size_t ng)
{
	for (size_t j = 0; j < ng; j++) {
		const struct group *g = &gs[j];
		const long box[3] = {g->nx, g->ny, g->nz};
		if (strcmp(g->version, "corun") || g->slab_g < 2 || g->steps < 1)
			continue;
		double step = nbw_rounds_time(g->sec, g->n, NULL) / g->steps;
		bool per_device = strcmp(g->corun, "per-device") == 0;
		if (g->app || !nbw_calib_is_paper_slab(g->radius, g->fields, box, g->slab_g)) {
			struct nbw_boxcorun b = {.radius = g->radius, .fields = g->fields,
						 .box = {box[0], box[1], box[2]}, .g = g->slab_g,
						 .at_once = g->g, .per_device = per_device,
						 .step_s = step};
			if (nbw_calib_add_box_corun(c, &b))
				return -1;
			continue;
		}
		struct nbw_corun *k = realloc(c->corun, (c->ncorun + 1) * sizeof(*k));
		if (!k)
			return -1;
		c->corun = k;
		c->corun[c->ncorun++] = (struct nbw_corun){
			.per_device = per_device, .g = g->slab_g, .at_once = g->g, .n = g->nx,
			.step_s = step};
	}
	return 0;
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
		struct nbw_rv_solver_run v;
		nbw_rv_solver_read(r, &v);
		if (!nbw_rv_solver_ok(&v) || strcmp(v.version, "serial") == 0)
			continue;
		snprintf(c->device_kind, sizeof(c->device_kind), "%s", v.device_kind);
		c->hidden_helpers = v.hidden_helpers;
		c->steps = v.steps;
		break;
	}
	/* One-device runs of application local boxes: another radius or field count, or a box
	 * that is no slab of an N^3 grid (nx = ny, at most nx - 2 interior planes). */
	for (size_t j = 0; j < ng; j++) {
		struct group *g = &gs[j];
		bool other = g->app || g->nx != g->ny || g->nz > g->nx;
		if (!other || strcmp(g->version, "baseline") || g->steps < 1 || g->g > 1)
			continue;
		const long box[3] = {g->nx, g->ny, g->nz};
		if (nbw_calib_add_box(c, g->radius, g->fields, box,
				      nbw_rounds_time(g->sec, g->n, NULL) / g->steps))
			goto out;
	}
	/* One-device runs: k per interior point and step. */
	for (size_t j = 0; j < ng; j++) {
		struct group *g = &gs[j];
		if (g->app || strcmp(g->version, "baseline") || g->nx != g->ny || g->nz > g->nx ||
		    g->steps < 1)
			continue;
		double pts = (double)(g->nx - 2) * (g->ny - 2) * (g->nz - 2);
		double k = nbw_rounds_time(g->sec, g->n, NULL) / (g->steps * pts);
		/* The paper's k(N): blocking launches of N^3 grids. The extended model's k_slab:
		 * the launch of Versions 1-4 (nowait) where measured, else any other shape. */
		bool nowait = strcmp(g->launch, "nowait") == 0;
		if (!nowait && g->nz == g->nx ? nbw_calib_add_k(&c->k, &c->nk, g->nx, g->nz - 2, k)
					      : nbw_calib_add_k(&c->slab, &c->nslab, g->nx, g->nz - 2, k))
			goto out;
	}
	if (corun_terms(c, gs, ng))
		goto out;
	/* The compute-calibrated model's compute: the versions without the halo copies (v1-v2: one host
	 * thread, v3-v4: a thread per device), either runs of their own (v2 and v3) or timed
	 * beside each version's halo runs (--paired: that version's own term). */
	for (size_t j = 0; j < ng; j++) {
		struct group *g = &gs[j];
		if (!g->no_exchange || g->g < 2 || g->nx != g->ny || g->nx != g->nz ||
		    g->app || g->version[0] != 'v' || g->version[1] < '1' || g->version[1] > '4' ||
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
		if (g->app || g->version[0] != 'v' || g->no_exchange || g->nph == 0 || g->g < 2 ||
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
bool nbw_calib_launch_form_known(const char *form)
{
	return form && (strcmp(form, "sync") == 0 || strcmp(form, "one-thread") == 0 ||
			strcmp(form, "per-device") == 0 || strcmp(form, "staged-copy") == 0 ||
			strcmp(form, "direct-copy") == 0);
}

bool nbw_calib_launch_form_copies(const char *form)
{
	return strcmp(form, "staged-copy") == 0 || strcmp(form, "direct-copy") == 0;
}

/* The launch probe's records of every file: per (form, G >= 2[, N]), the fastest round's median
 * step (the rounds' rule of the solver runs: background load only adds time). Records with
 * an error or a failed counter check are left out. */
static int launch_doc(struct nbw_calib *c, json_t *doc);

static int launch_terms(struct nbw_calib *c, const struct nbw_rinput *in)
{
	for (size_t f = 0; in->docs && f < in->nfiles; f++)
		if (launch_doc(c, in->docs[f]))
			return -1;
	return 0;
}

/* The launch probe's records of one results document into \p c (launch_terms). */
static int launch_doc(struct nbw_calib *c, json_t *doc)
{
	{
		size_t i;
		json_t *r;
		struct nbw_rv_doc d;
		nbw_rv_doc_read(doc, &d);
		json_array_foreach(d.launch_probe, i, r) {
			struct nbw_rv_launch lp;
			nbw_rv_launch_read(r, &lp);
			const char *form = lp.form;
			int g = lp.g;
			double t = lp.step_s;
			if (g < 2 || !lp.ok || !nbw_calib_launch_form_known(form))
				continue;
			int n = nbw_calib_launch_form_copies(form) ? lp.n : 0;
			if (nbw_calib_launch_form_copies(form) && n < 3)
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
				l->ci_lo_s = lp.ci_lo_s;
				l->ci_hi_s = lp.ci_hi_s;
			}
		}
	}
	return 0;
}

int nbw_calib_add_solver_docs(struct nbw_calib *c, json_t *const *docs, size_t ndocs)
{
	/* The calibration's own settings stay: the added runs only add samples. */
	char kind[sizeof(c->device_kind)];
	int hh = c->hidden_helpers, steps = c->steps, rc = -1;
	memcpy(kind, c->device_kind, sizeof(kind));
	/* Every document's runs at once: a configuration takes its fastest round. */
	json_t *runs = json_array();
	for (size_t f = 0; runs && f < ndocs; f++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(docs[f], &d);
		if (d.solver_runs && json_array_extend(runs, d.solver_runs))
			goto out;
		if (launch_doc(c, docs[f]))
			goto out;
	}
	rc = runs ? solver_terms(c, runs) : -1;
out:
	json_decref(runs);
	memcpy(c->device_kind, kind, sizeof(kind));
	c->hidden_helpers = hh;
	c->steps = steps;
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
	/* The CPUs the solver ran on (several files: the first's): those the run was allowed,
	 * else (older files) those online. */
	struct nbw_rv_doc d;
	nbw_rv_doc_read(in->docs && in->nfiles ? in->docs[0] : NULL, &d);
	c->host_cpus = d.cpus_allowed >= 0 ? d.cpus_allowed : d.cpus_online >= 0 ? d.cpus_online : 0;
	if (c->host_cpus < 0)
		c->host_cpus = 0;
	if (solver_terms(c, in->solver_runs) || launch_terms(c, in) ||
	    nbw_calib_paths_from_curves(c, &in->curves, in->measurements) ||
	    nbw_calib_faces_from_results(c, in->measurements)) {
		snprintf(err, errlen, "out of memory building the calibration");
		nbw_calib_free(c);
		return -1;
	}
	return 0;
}

