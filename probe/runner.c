/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe core's driver: for every selected backend it opens the API, asks the planner
 * (plan.c) for the series of each direction as data, and hands each planned series to the
 * executor (exec.c); everything said goes through the sinks (sink.h). Peer access and NUMA
 * binding are set here, outside any timed region, per series.
 */
#include "nodebw/runner.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h"
#include "nodebw/backends.h"
#include "nodebw/bufpool.h"
#include "nodebw/config.h"
#include "nodebw/hugepage.h"
#include "nodebw/plan.h"
#include "nodebw/plugin_images.h"
#include "nodebw/sink.h"
#include "nodebw/sysinfo.h"
#include "nodebw/topology.h"
#include "nodebw/workers.h"

#define MAX_SINKS 4

struct nbw_probe_ctx {
	struct nbw_workers *workers;
	struct nbw_sink *sinks[MAX_SINKS + 1];   /* the caller's, then the document's */
	size_t nsinks, ncaller;
};

/* State of one nbw_probe_run. */
struct run {
	struct nbw_probe_ctx *ctx;
	const struct nbw_probe_opts *o;
	struct nbw_run_status *st;
	struct nbw_topo *topo;    /* NULL when it could not be read: nothing bound */
};

struct nbw_probe_ctx *nbw_probe_ctx_new(void)
{
	struct nbw_probe_ctx *c = calloc(1, sizeof(*c));
	if (c && !(c->workers = nbw_workers_new())) {
		free(c);
		return NULL;
	}
	return c;
}

void nbw_probe_ctx_free(struct nbw_probe_ctx *c)
{
	if (!c)
		return;
	nbw_workers_free(c->workers);
	free(c);
}

int nbw_probe_ctx_add_sink(struct nbw_probe_ctx *c, struct nbw_sink *s)
{
	if (c->ncaller >= MAX_SINKS)
		return -1;
	c->sinks[c->ncaller++] = s;
	c->nsinks = c->ncaller;
	return 0;
}

/* ---- sinks ---------------------------------------------------------------------------- */

#define EACH_SINK(r, k) for (size_t k = 0; k < (r)->ctx->nsinks; k++)

/* Something not measured: \p by_design when the plan leaves it out on purpose (a mode the
 * API does not have, a size several streams stop short of), else something that went
 * wrong or is missing here. */
static void skip_as(struct run *r, const char *api, const char *probe, const char *what,
		    const char *reason, bool by_design)
{
	r->st->skipped++;
	EACH_SINK(r, k)
		if (r->ctx->sinks[k]->skip)
			r->ctx->sinks[k]->skip(r->ctx->sinks[k], api, probe, what, reason,
					       by_design);
}

static void skip(struct run *r, const char *api, const char *probe, const char *what,
		 const char *reason)
{
	skip_as(r, api, probe, what, reason, false);
}

static void checkpoint(struct run *r)
{
	EACH_SINK(r, k)
		if (r->ctx->sinks[k]->checkpoint)
			r->ctx->sinks[k]->checkpoint(r->ctx->sinks[k]);
}

struct emit_ctx {
	struct run *r;
	const struct nbw_series_info *si;
};

static void emit(void *arg, const struct nbw_measurement *m)
{
	struct emit_ctx *e = arg;
	struct nbw_run_status *st = e->r->st;
	st->measurements++;
	if (m->error[0])
		st->errors++;
	else if (strcmp(m->verify_status, "passed") != 0)
		st->verify_failed++;
	EACH_SINK(e->r, k)
		if (e->r->ctx->sinks[k]->measurement)
			e->r->ctx->sinks[k]->measurement(e->r->ctx->sinks[k], e->si, m);
}

/* ---- selection ------------------------------------------------------------------------ */

static bool probe_selected(const struct nbw_probe_opts *o, const char *api, enum nbw_dir d)
{
	if (o->nprobes == 0)
		return true;
	char full[48];
	snprintf(full, sizeof(full), "%s-%s", api, nbw_dir_name(d));
	for (int i = 0; i < o->nprobes; i++)
		if (strcmp(o->probes[i], nbw_dir_name(d)) == 0 || strcmp(o->probes[i], full) == 0)
			return true;
	return false;
}

static bool api_selected(const struct nbw_probe_opts *o, const char *api)
{
	if (o->napis == 0)
		return true;
	for (int i = 0; i < o->napis; i++)
		if (strcmp(o->apis[i], api) == 0)
			return true;
	return false;
}

/* A backend that cannot run: skipped with its reason, and counted against the command when
 * it was asked for by name (--api) or when it is present but unusable (\p error). */
static void backend_unavailable(struct run *r, const char *api, const char *reason, bool error)
{
	skip(r, api, "*", "backend", reason);
	bool named = false;
	for (int i = 0; i < r->o->napis; i++)
		named = named || strcmp(r->o->apis[i], api) == 0;
	if (!named && !error)
		return;
	if (error)
		r->st->backend_errors++;
	else
		r->st->unavailable++;
	if (!r->st->unavailable_why[0])
		snprintf(r->st->unavailable_why, sizeof(r->st->unavailable_why), "%s: %s", api,
			 reason);
}

static void add_versions(struct nbw_doc *doc, const struct nbw_backend_ops *ops,
			 struct nbw_backend *be)
{
	char buf[4096] = "";
	if (ops->versions)
		ops->versions(be, buf, sizeof(buf));
	json_t *o = json_object();
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			json_object_set_new(o, line, json_string(eq + 1));
		}
	}
	nbw_doc_set_backend_software(doc, ops->name, o);
}

/* Largest footprint of one size in the one- and two-stream series: two streams of source,
 * destination and check buffer (all-at-once series check their own sizes). */
#define FOOTPRINT_FACTOR 6u

static int check_memory(struct run *r, size_t *nsizes, char *err, size_t errlen)
{
	const struct nbw_probe_opts *o = r->o;
	char limit[160];
	uint64_t avail = nbw_sysinfo_mem_room(0, limit, sizeof(limit));
	*nsizes = o->sizes.n;
	if (!avail)
		return 0;
	for (size_t k = 0; k < o->sizes.n; k++) {
		uint64_t need = o->sizes.v[k].bytes * FOOTPRINT_FACTOR;
		if (o->sizes.v[k].bytes > UINT64_MAX / FOOTPRINT_FACTOR || need > avail) {
			char a[32], b[32];
			nbw_size_label(o->sizes.v[k].bytes, a, sizeof(a));
			nbw_sysinfo_room_label(avail, b, sizeof(b));
			if (o->sizes_given) {
				snprintf(err, errlen,
					 "size %s needs up to %u times its size in host memory (two "
					 "streams of source, destination and check buffers) but %s "
					 "is available (%s)",
					 a, FOOTPRINT_FACTOR, b, limit);
				return NBW_EXIT_USAGE;
			}
			char why[NBW_REASON_LEN];
			snprintf(why, sizeof(why), "size %s and larger need more host memory than is "
				 "available (%s: %s)", a, b, limit);
			skip(r, "*", "*", "sizes", why);
			*nsizes = k;
			return 0;
		}
	}
	return 0;
}

/* ---- one backend ---------------------------------------------------------------------- */

struct backend_run {
	struct run *r;
	const struct nbw_backend_ops *ops;
	struct nbw_backend *be;
	struct nbw_bufpool pool;
	struct nbw_device devinfo[NBW_MAX_DEVICES];
	int ndev;
};

static int supports(void *ctx, enum nbw_dir dir, enum nbw_mode mode, enum nbw_hostmem mem,
		    char *why, size_t len)
{
	struct backend_run *b = ctx;
	if (b->ops->supports && b->ops->supports(b->be, dir, mode, mem, why, len))
		return -1;
	/* Huge pages are the kernel's to give, whatever the backend: without reserved hugetlb
	 * pages and with THP "never", the series is skipped with that reason. */
	if (mem == NBW_HOSTMEM_HUGEPAGE && dir != NBW_P2P) {
		struct nbw_hugepage_sys hs;
		nbw_hugepage_sys_read("", &hs);
		return nbw_hugepage_available(&hs, why, len);
	}
	return 0;
}

static const char *face_interface(void *ctx, enum nbw_dir dir, enum nbw_face_method m,
				  enum nbw_mode mode, char *why, size_t len)
{
	struct backend_run *b = ctx;
	return b->ops->face_interface(b->be, dir, m, mode, why, len);
}

/* Pairs over the same kind of link share a class (the first of each runs the whole sweep). */
static int pair_class(void *ctx, int a, int b)
{
	struct backend_run *br = ctx;
	const char *pa = br->devinfo[a].pci_bus_id, *pb = br->devinfo[b].pci_bus_id;
	struct nbw_topo_pair pr;
	if (!br->r->topo || !*pa || !*pb || nbw_topo_pair(br->r->topo, pa, pb, &pr))
		return 0;
	unsigned h = 5381;
	for (const char *c = pr.label; *c; c++)
		h = h * 33u + (unsigned char)*c;
	return (int)(h & 0x7fffffff) | 1;
}

/* The NUMA node of each stream under the series' binding policy. */
static int plan_binding(struct backend_run *b, struct nbw_exec *x, char *why, size_t len)
{
	const struct nbw_series_plan *p = x->plan;
	for (unsigned i = 0; i < p->set.nstreams; i++) {
		x->node[i] = -1;
		if (p->bind == NBW_BIND_NONE)
			continue;
		if (!b->r->topo) {
			snprintf(why, len, "binding needs the topology, which could not be read");
			return -1;
		}
		int dev = p->kind->dir == NBW_HTOD ? p->set.dst[i] : p->set.src[i];
		if (nbw_topo_bind_node(b->r->topo, b->devinfo[dev].pci_bus_id, p->bind, &x->node[i],
				       why, len))
			return -1;
	}
	return 0;
}

/* Enable or disable peer access for every pair of the series (outside the timed region). */
static int set_peer_access(struct backend_run *b, const struct nbw_series_plan *p, char *why,
			   size_t len)
{
	if (p->peer == NBW_PEER_NA)
		return 0;
	for (unsigned i = 0; i < p->set.nstreams; i++)
		if (nbw_peer_access_pair(b->ops, b->be, p->set.src[i], p->set.dst[i],
					 p->peer == NBW_PEER_ON, why, len))
			return -1;
	return 0;
}

static void run_planned(struct backend_run *b, const struct nbw_series_plan *p,
			const char *probe, unsigned index, unsigned total)
{
	struct run *r = b->r;
	char why[NBW_REASON_LEN] = "", what[160];
	if (p->skip[0]) {
		skip_as(r, b->ops->name, probe, p->what, p->skip, true);
		return;
	}
	if (set_peer_access(b, p, why, sizeof(why))) {
		snprintf(what, sizeof(what), "%s %d->%d, peer access %s", p->what, p->set.src[0],
			 p->set.dst[0], nbw_peer_name(p->peer));
		skip(r, b->ops->name, probe, what, why);
		return;
	}
	struct nbw_exec *x = calloc(1, sizeof(*x));
	if (!x) {
		skip(r, b->ops->name, probe, p->what, "out of memory");
		return;
	}
	*x = (struct nbw_exec){ .ops = b->ops, .be = b->be, .pool = &b->pool, .o = r->o,
				.topo = r->topo, .workers = r->ctx->workers, .devinfo = b->devinfo,
				.plan = p, .stop = &nbw_stop_requested };
	if (plan_binding(b, x, why, sizeof(why))) {
		snprintf(what, sizeof(what), "%s, bind %s", p->what, nbw_bind_policy_name(p->bind));
		skip(r, b->ops->name, probe, what, why);
		free(x);
		return;
	}
	struct nbw_series_info si = { .api = b->ops->name, .plan = p, .index = index,
				      .total = total };
	nbw_record_sched(x, si.sched, sizeof(si.sched), si.sched_note, sizeof(si.sched_note));
	EACH_SINK(r, k)
		if (r->ctx->sinks[k]->series)
			r->ctx->sinks[k]->series(r->ctx->sinks[k], &si);
	struct emit_ctx e = { .r = r, .si = &si };
	nbw_exec_series(x, emit, &e);
	free(x);
	EACH_SINK(r, k)
		if (r->ctx->sinks[k]->series_end)
			r->ctx->sinks[k]->series_end(r->ctx->sinks[k], &si);
	checkpoint(r);
}

static int device_list(struct backend_run *b, int *devs, int *nd, char *err, size_t errlen)
{
	const struct nbw_probe_opts *o = b->r->o;
	*nd = 0;
	if (!o->ndevices) {
		for (int d = 0; d < b->ndev; d++)
			devs[(*nd)++] = d;
		return 0;
	}
	for (int i = 0; i < o->ndevices; i++) {
		if (o->devices[i] >= b->ndev) {
			snprintf(err, errlen,
				 "device id %d does not exist for API %s (it has %d device%s: 0-%d)",
				 o->devices[i], b->ops->name, b->ndev, b->ndev == 1 ? "" : "s",
				 b->ndev - 1);
			return NBW_EXIT_USAGE;
		}
		devs[(*nd)++] = o->devices[i];
	}
	return 0;
}

/* Every selected direction of backend \p b planned on devices \p devs into \p plans
 * (\p planned: which could be); the series that run, and with \p points the measurements
 * they record (nbw_plan_points). */
static unsigned plan_backend(struct backend_run *b, const int *devs, int nd,
			     struct nbw_plan *plans, bool *planned, size_t *points)
{
	const struct nbw_probe_opts *o = b->r->o;
	const struct nbw_backend_ops *ops = b->ops;
	struct nbw_plan_caps caps = { .interface = ops->interface, .supports = supports, .ctx = b,
				      .peer_control = ops->peer_access != NULL,
				      .face_interface = ops->face_interface ? face_interface : NULL,
				      .exchange_step = ops->exchange != NULL };
	struct nbw_plan_devices pd = { .devs = devs, .nd = nd, .named = o->ndevices > 0,
				       .pair_class = pair_class, .ctx = b };
	unsigned total = 0;
	for (int dir = 0; dir < NBW_DIR_COUNT; dir++) {
		if (!probe_selected(o, ops->name, (enum nbw_dir)dir))
			continue;
		planned[dir] = nbw_plan_series(o, (enum nbw_dir)dir, &caps, &pd, &plans[dir]) == 0;
		if (planned[dir])
			for (size_t i = 0; i < plans[dir].n; i++) {
				total += !plans[dir].v[i].skip[0];
				if (points)
					*points += nbw_plan_points(&plans[dir].v[i], o);
			}
	}
	return total;
}

/* Backend \p ops opened with the run's options; 0 or -errno with \p why. Opening the OpenMP
 * backend loads the image on every device: with the host plugin, its files in /tmp can go
 * now (include/nodebw/plugin_images.h). */
static int open_backend(const struct nbw_probe_opts *o, const struct nbw_backend_ops *ops,
			struct nbw_backend **be, char *why, size_t whylen)
{
	struct nbw_backend_opts bo = { .cuda_sched = o->cuda_sched };
	int rc = ops->open(be, &bo, why, whylen);
	nbw_unlink_plugin_images();
	return rc;
}

static int run_backend(struct run *r, const struct nbw_backend_ops *ops, struct nbw_doc *doc,
		       char *err, size_t errlen)
{
	const struct nbw_probe_opts *o = r->o;
	char why[NBW_REASON_LEN] = "";
	struct nbw_backend *be = NULL;
	int rc = open_backend(o, ops, &be, why, sizeof(why));
	if (rc) {
		/* -ENODEV: no driver or device, a skip; anything else: the API is there but
		 * cannot be used (e.g. a driver older than the runtime), an error. */
		backend_unavailable(r, ops->name, why[0] ? why : strerror(-rc), rc != -ENODEV);
		return 0;
	}
	struct backend_run *b = calloc(1, sizeof(*b));
	if (!b) {
		ops->close(be);
		return 0;
	}
	b->r = r;
	b->ops = ops;
	b->be = be;
	b->ndev = ops->device_count(be);
	b->ndev = b->ndev < 0 ? 0 : b->ndev > NBW_MAX_DEVICES ? NBW_MAX_DEVICES : b->ndev;
	nbw_bufpool_init(&b->pool, ops, be, nbw_sysinfo_mem_room(0, NULL, 0) / 2);
	for (int d = 0; d < b->ndev; d++) {
		ops->device_info(be, d, &b->devinfo[d]);
		if (r->topo)
			nbw_topo_add_api_device(r->topo, ops->name, &b->devinfo[d]);
	}
	add_versions(doc, ops, be);
	int devs[NBW_MAX_DEVICES], nd = 0;
	rc = device_list(b, devs, &nd, err, errlen);
	/* The devices are recorded (and printed) only once the input is known to be good. */
	EACH_SINK(r, k)
		if (rc == 0 && r->ctx->sinks[k]->backend)
			r->ctx->sinks[k]->backend(r->ctx->sinks[k], ops->name, b->ndev, b->devinfo);
	/* Every direction is planned before the first series runs: the series are numbered
	 * "i of n" for the API (progress and its estimate of the time left). */
	struct nbw_plan plans[NBW_DIR_COUNT] = { 0 };
	bool planned[NBW_DIR_COUNT] = { false };
	unsigned total = 0, index = 0;
	if (rc == 0)
		total = plan_backend(b, devs, nd, plans, planned, NULL);
	for (int dir = 0; rc == 0 && dir < NBW_DIR_COUNT && !nbw_stop_requested; dir++) {
		if (!probe_selected(o, ops->name, (enum nbw_dir)dir))
			continue;
		char probe[48];
		snprintf(probe, sizeof(probe), "%s-%s", ops->name, nbw_dir_name((enum nbw_dir)dir));
		if (!planned[dir]) {
			skip(r, ops->name, probe, "*", "out of memory while planning");
			continue;
		}
		for (size_t i = 0; i < plans[dir].n && !nbw_stop_requested; i++)
			run_planned(b, &plans[dir].v[i], probe,
				    plans[dir].v[i].skip[0] ? index : ++index, total);
	}
	for (int dir = 0; dir < NBW_DIR_COUNT; dir++)
		nbw_plan_free(&plans[dir]);
	nbw_bufpool_destroy(&b->pool);
	free(b);
	ops->close(be);
	return rc;
}

/* ---- the run -------------------------------------------------------------------------- */

static void record_settings(struct nbw_doc *doc, const struct nbw_probe_opts *o, size_t nsizes,
			    double res_s)
{
	json_t *sizes = json_array();
	for (size_t k = 0; k < nsizes; k++)
		json_array_append_new(sizes, json_integer((json_int_t)o->sizes.v[k].bytes));
	nbw_doc_set(doc, "settings",
		    json_pack("{s:s, s:i, s:i, s:i, s:f, s:f, s:o, s:i, s:s, s:f, s:s}", "profile",
			      o->profile == NBW_PROFILE_QUICK  ? "quick"
			      : o->profile == NBW_PROFILE_FULL ? "full"
							       : "default",
			      "warmup", (int)o->warmup, "min_repetitions", (int)o->min_reps,
			      "max_repetitions", (int)o->max_reps, "min_time_s", o->min_time_s,
			      "max_time_s", o->max_time_s, "sizes", sizes, "hidden_helpers_effective",
			      nbw_effective_hidden_helpers(), "timer", "clock_gettime(CLOCK_MONOTONIC)",
			      "timer_resolution_s", res_s, "cuda_sched",
			      o->cuda_sched[0] ? o->cuda_sched : "auto"));
}

/* Backends that were built but cannot be loaded, or were asked for and not built. */
static void unavailable_backends(struct run *r)
{
	const struct nbw_probe_opts *o = r->o;
	size_t nmiss;
	const struct nbw_backend_missing *miss = nbw_backends_missing(&nmiss);
	for (size_t i = 0; i < nmiss; i++)
		if (api_selected(o, miss[i].name))
			backend_unavailable(r, miss[i].name, miss[i].reason, false);
#if !NBW_HAVE_OMP
	if (api_selected(o, "omp"))
		backend_unavailable(r, "omp", NBW_NO_OFFLOAD_REASON, false);
#endif
	for (int i = 0; i < o->napis; i++) {
		bool known = nbw_backend_find(o->apis[i]) != NULL;
		for (size_t k = 0; k < nmiss; k++)
			known = known || strcmp(miss[k].name, o->apis[i]) == 0;
		known = known || (!NBW_HAVE_OMP && strcmp(o->apis[i], "omp") == 0);
		if (!known)
			backend_unavailable(r, o->apis[i],
					    "not built into this nodebw (its runtime was not found "
					    "at configure time; see meson_options.txt)",
					    false);
	}
}

/* The sizes the matrix cells and several streams at once leave out, as a skip. */
static void matrix_size_skips(struct run *r, const struct nbw_probe_opts *o)
{
	size_t lo, hi;
	nbw_plan_matrix_sizes_upto(&o->sizes, nbw_plan_matrix_max_bytes(o), &lo, &hi);
	/* The face probes run boxes, not the sweep. */
	if (!o->nfaces && !o->sizes_given && hi + 1 < o->sizes.n &&
	    (o->threads[NBW_THREADS_2] || o->threads[NBW_THREADS_ALL])) {
		char a[32], why[NBW_REASON_LEN];
		nbw_size_label(o->sizes.v[hi].bytes, a, sizeof(a));
		snprintf(why, sizeof(why),
			 "with several streams at once (two devices, both directions, every device) "
			 "and in the matrix cells the sweep stops at %s: concurrency is settled well "
			 "below, and the larger sizes run for one stream only (name them with "
			 "--sizes to measure them at once)",
			 a);
		skip_as(r, "*", "*", "sizes above the matrix size with several streams", why,
			true);
	}
}

int nbw_probe_run(struct nbw_probe_ctx *ctx, const struct nbw_probe_opts *o,
		  struct nbw_doc *doc, const char *outdir, struct nbw_run_status *st, char *err,
		  size_t errlen)
{
	memset(st, 0, sizeof(*st));
	struct nbw_sink *docsink = nbw_sink_doc(doc, outdir);
	if (!docsink) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ctx->sinks[ctx->ncaller] = docsink;
	ctx->nsinks = ctx->ncaller + 1;
	struct run r = { .ctx = ctx, .o = o, .st = st };
	struct timespec res;
	clock_getres(CLOCK_MONOTONIC, &res);
	double res_s = (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
	EACH_SINK(&r, k)
		if (ctx->sinks[k]->begin)
			ctx->sinks[k]->begin(ctx->sinks[k], res_s);
	size_t nsizes;
	int rc = check_memory(&r, &nsizes, err, errlen);
	if (rc)
		goto out;
	nbw_doc_set(doc, "interrupted", json_false()); /* checkpoints say so too */
	struct nbw_probe_opts local = *o;
	local.sizes.n = nsizes;
	r.o = &local;
	record_settings(doc, o, nsizes, res_s);
	char terr[NBW_REASON_LEN];
	if (nbw_topo_load(&r.topo, NULL, terr, sizeof(terr))) {
		r.topo = NULL;
		skip(&r, "*", "*", "topology", terr);
	}
	unavailable_backends(&r);
	matrix_size_skips(&r, &local);
	size_t n;
	const struct nbw_backend_ops *const *all = nbw_backends(&n);
	for (size_t i = 0; i < n && !rc && !nbw_stop_requested; i++)
		if (api_selected(o, all[i]->name))
			rc = run_backend(&r, all[i], doc, err, errlen);
	st->interrupted = nbw_stop_requested != 0;
	nbw_doc_set(doc, "interrupted", json_boolean(st->interrupted));
	if (r.topo) {
		nbw_doc_set(doc, "topology", nbw_topo_to_json(r.topo));
		nbw_topo_free(r.topo);
	}
	if (rc == 0 && outdir && nbw_doc_write(doc, outdir, err, errlen))
		rc = -1;
out:
	st->checkpoint_errors = nbw_sink_doc_errors(docsink, st->checkpoint_why,
						    sizeof(st->checkpoint_why));
	nbw_sink_doc_free(docsink);
	ctx->nsinks = ctx->ncaller;
	return rc;
}

/* ---- the plan's count ---------------------------------------------------------------- */

/* Backend \p ops opened, its devices listed, its series planned as run_backend plans them,
 * closed: its series and measurements added to \p c. */
static void count_backend(struct run *r, const struct nbw_backend_ops *ops,
			  struct nbw_probe_count *c)
{
	const struct nbw_probe_opts *o = r->o;
	char why[NBW_REASON_LEN] = "";
	struct nbw_backend *be = NULL;
	if (open_backend(o, ops, &be, why, sizeof(why)))
		return;
	struct backend_run *b = calloc(1, sizeof(*b));
	if (!b) {
		ops->close(be);
		return;
	}
	b->r = r;
	b->ops = ops;
	b->be = be;
	b->ndev = ops->device_count(be);
	b->ndev = b->ndev < 0 ? 0 : b->ndev > NBW_MAX_DEVICES ? NBW_MAX_DEVICES : b->ndev;
	for (int d = 0; d < b->ndev; d++) {
		ops->device_info(be, d, &b->devinfo[d]);
		if (r->topo)
			nbw_topo_add_api_device(r->topo, ops->name, &b->devinfo[d]);
	}
	if (strcmp(ops->name, "omp") == 0) {
		c->omp_devices = b->ndev;
		if (b->ndev)
			snprintf(c->omp_kind, sizeof(c->omp_kind), "%s", b->devinfo[0].kind);
	}
	int devs[NBW_MAX_DEVICES], nd = 0;
	char err[NBW_REASON_LEN];
	if (device_list(b, devs, &nd, err, sizeof(err)) == 0) {
		struct nbw_plan plans[NBW_DIR_COUNT] = { 0 };
		bool planned[NBW_DIR_COUNT] = { false };
		size_t points = 0;
		c->series += plan_backend(b, devs, nd, plans, planned, &points);
		c->measurements += points;
		for (int dir = 0; dir < NBW_DIR_COUNT; dir++)
			nbw_plan_free(&plans[dir]);
	}
	free(b);
	ops->close(be);
}

int nbw_probe_plan_count(const struct nbw_probe_opts *o, struct nbw_probe_count *c)
{
	memset(c, 0, sizeof(*c));
	struct nbw_probe_ctx none = { 0 };
	struct nbw_run_status st;
	memset(&st, 0, sizeof(st));
	struct run r = { .ctx = &none, .o = o, .st = &st };
	size_t nsizes;
	char err[NBW_REASON_LEN];
	if (check_memory(&r, &nsizes, err, sizeof(err)))
		return -1;
	struct nbw_probe_opts local = *o;
	local.sizes.n = nsizes;
	r.o = &local;
	char terr[NBW_REASON_LEN];
	if (nbw_topo_load(&r.topo, NULL, terr, sizeof(terr)))
		r.topo = NULL;
	size_t n;
	const struct nbw_backend_ops *const *all = nbw_backends(&n);
	for (size_t i = 0; i < n; i++)
		if (api_selected(o, all[i]->name))
			count_backend(&r, all[i], c);
	if (r.topo)
		nbw_topo_free(r.topo);
	return 0;
}

size_t nbw_probe_child_count(const struct nbw_probe_opts *c)
{
	/* The child parses the options from its command line (a sweep's sizes become named
	 * ones, for one): counted as it will see them. */
	char **argv = nbw_cli_probe_argv(c, "nodebw");
	if (!argv)
		return 0;
	int argc = 0;
	while (argv[argc])
		argc++;
	char **copy = calloc((size_t)argc + 1, sizeof(char *));
	size_t n = 0;
	if (copy && argc > 1) {
		memcpy(copy, argv, (size_t)argc * sizeof(char *));
		struct nbw_probe_opts po;
		struct nbw_probe_count pc;
		char err[NBW_REASON_LEN * 2];
		if (nbw_cli_parse_probe(argc - 1, copy + 1, &po, err, sizeof(err)) == 0 &&
		    nbw_probe_plan_count(&po, &pc) == 0)
			n = pc.measurements;
		nbw_cli_opts_free(&po);
	}
	free(copy);
	nbw_cli_argv_free(argv);
	return n;
}
