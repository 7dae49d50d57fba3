/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw heat`: parse, check against the devices that exist, then for every grid the
 * serial reference and every (G, version) run, each verified against the reference and
 * recorded in "solver_runs" of results.json (written after every run, so Ctrl-C keeps what
 * was measured).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_general.h"
#include "heat_omp.h"
#include "nodebw/plugin_images.h"
#include "nodebw/backends.h"
#include "nodebw/cli.h"
#include "nodebw/heat.h"
#include "nodebw/results.h"
#include "nodebw/runner.h"
#include "nodebw/rundir.h"
#include "nodebw/session.h"
#include "nodebw/stats.h"
#include "nodebw/sysinfo.h"

/* STREAM triad for the roofline: three arrays of 256 MiB, best of 10 passes. */
#define TRIAD_BYTES (256ull << 20)
/* On a GPU the arrays are far larger than any cache (H200: 50 MB of L2), as a roofline of
 * HBM needs; a device that cannot hold 3 x 2 GiB falls back to TRIAD_BYTES and says so. */
#define DEVICE_TRIAD_BYTES (2ull << 30)
#define TRIAD_PASSES 10

struct heat_session {
	struct nbw_heat_opts *o;
	const struct nbw_backend_ops *ops;
	const struct nbw_heat_omp_fns *omp;           /* the offload half's entry points */
	struct nbw_backend *be;
	int ndev;                                     /* devices that exist */
	struct nbw_device info[NBW_HEAT_MAX_DEVICES]; /* of o->devices[i] */
	struct nbw_doc *doc;
	json_t *runs;                                 /* borrowed: "solver_runs" */
	const char *dir;                              /* the locked results folder */
	/* Rooflines, measured once each. */
	bool host_roof_done, dev_roof_done;
	struct nbw_heat_roofline host_roof, dev_roof;
	bool header_done;
	unsigned nruns, refs, failed, errors;
};

static bool is_gpu_kind(const struct nbw_device *d)
{
	return d->is_gpu;
}

/* ---- roofline -------------------------------------------------------------------------- */

static void host_roofline(struct heat_session *hs, struct nbw_heat_roofline *out)
{
	if (!hs->host_roof_done) {
		struct nbw_heat_roofline *r = &hs->host_roof;
		if (hs->o->roofline_gbs > 0.0) {
			r->gbs = hs->o->roofline_gbs;
			snprintf(r->source, sizeof(r->source), "given");
			snprintf(r->method, sizeof(r->method), "--roofline-gbs %g", r->gbs);
		} else {
			char err[256];
			int threads = 0;
			double gbs = 0.0;
			if (hs->omp->triad(-1, TRIAD_BYTES / sizeof(double), TRIAD_PASSES, &gbs,
					       &threads, err, sizeof(err)) == 0 &&
			    gbs > 0.0) {
				r->gbs = gbs;
				snprintf(r->source, sizeof(r->source), "measured");
				snprintf(r->method, sizeof(r->method),
					 "host memory bandwidth: STREAM triad a = b + 3 c over 3 x %llu "
					 "MiB arrays, %d OpenMP host threads, first touch by the same "
					 "threads, best of %d passes after a warm-up, 24 bytes per "
					 "element; host-plugin devices share it",
					 TRIAD_BYTES >> 20, threads, TRIAD_PASSES);
			} else {
				fprintf(stderr, "nodebw: warning: host bandwidth not measured: %s\n",
					err);
			}
		}
		hs->host_roof_done = true;
	}
	*out = hs->host_roof;
}

/* GPUs: the triad on the first device of the list, times the G devices of a run. */
static void device_roofline(struct heat_session *hs, int g, struct nbw_heat_roofline *out)
{
	if (!hs->dev_roof_done) {
		struct nbw_heat_roofline *r = &hs->dev_roof;
		if (hs->o->roofline_gbs > 0.0) {
			r->gbs = hs->o->roofline_gbs;
			snprintf(r->source, sizeof(r->source), "given");
			snprintf(r->method, sizeof(r->method), "--roofline-gbs %g per device",
				 r->gbs);
		} else {
			char err[256];
			int threads = 0;
			double gbs = 0.0;
			int dev = hs->info[0].runtime_id;
			unsigned long long bytes = DEVICE_TRIAD_BYTES;
			int trc = hs->omp->triad(dev, bytes / sizeof(double), TRIAD_PASSES, &gbs,
						     &threads, err, sizeof(err));
			if (trc != 0) {
				bytes = TRIAD_BYTES;
				trc = hs->omp->triad(dev, bytes / sizeof(double), TRIAD_PASSES,
							 &gbs, &threads, err, sizeof(err));
			}
			if (trc == 0 && gbs > 0.0) {
				r->gbs = gbs;
				snprintf(r->source, sizeof(r->source), "measured");
				snprintf(r->method, sizeof(r->method),
					 "device memory bandwidth of device %d (the runtime's %d): "
					 "STREAM triad kernel (target teams distribute parallel for) "
					 "over 3 x %llu MiB%s, best of %d passes, 24 bytes per element; "
					 "times G for G devices",
					 hs->o->devices[0], dev, bytes >> 20,
					 bytes < DEVICE_TRIAD_BYTES ? " (3 x 2 GiB did not fit)" : "",
					 TRIAD_PASSES);
			} else {
				fprintf(stderr, "nodebw: warning: device bandwidth not measured: %s\n",
					err);
			}
		}
		hs->dev_roof_done = true;
	}
	*out = hs->dev_roof;
	out->gbs *= g;
}

/* ---- output ------------------------------------------------------------------------------ */

static void print_header(struct heat_session *hs)
{
	if (hs->o->quiet || hs->header_done)
		return;
	hs->header_done = true;
	printf("nodebw heat: speed in points/s and GB/s = 1e9 B/s (32 B per point and step); "
	       "host-plugin devices are host memory, not GPUs\n");
	printf("%-8s %2s %-8s %-11s %-13s %6s %10s %9s %7s %6s %9s  %s\n", "version", "G",
	       "devices", "kind", "grid", "steps", "seconds", "Mpoint/s", "GB/s", "roof",
	       "max|d|", "check");
}

static void print_row(struct heat_session *hs, const struct nbw_heat_record *r)
{
	if (hs->o->quiet)
		return;
	print_header(hs);
	char devs[64] = "-", grid[48];
	size_t l = 0;
	for (int i = 0; i < r->ndev && l < sizeof(devs) - 8; i++)
		l += (size_t)snprintf(devs + l, sizeof(devs) - l, "%s%d", i ? "," : "",
				      r->devices[i]);
	snprintf(grid, sizeof(grid), "%dx%dx%d", r->grid.nx, r->grid.ny, r->grid.nz);
	/* A co-run is named as its record names it (the baseline's kernel, G at once). */
	const char *name = r->corun ? "corun" : nbw_heat_version_name(r->version);
	if (r->error[0]) {
		printf("%-8s %2d %-8s %-11s %-13s %6d  error: %s\n", name, r->ndev, devs,
		       r->device_kind, grid, r->steps, r->error);
	} else {
		char diff[16] = "-";
		if (strcmp(r->verify_status, "reference") != 0)
			snprintf(diff, sizeof(diff), "%.2g", r->check.max_abs_diff);
		printf("%-8s %2d %-8s %-11s %-13s %6d %10.4g %9.1f %7.2f %6.3f %9s  %s%s\n", name,
		       r->ndev, devs, r->device_kind, grid, r->steps, r->seconds,
		       nbw_heat_points_per_s(r) / 1e6,
		       nbw_heat_bytes_per_s(r) / 1e9, nbw_heat_roofline_fraction(r), diff,
		       r->verify_status, r->no_exchange ? " (no halo copies)" : "");
	}
	if (r->corun)
		printf("%-8s co-run for G = %d, every device computing the whole grid: %s\n", "",
		       r->corun_slab_g,
		       strcmp(r->corun, "per-device") == 0 ? "a host thread per device"
							   : "one host thread drives them all");
	if (r->version == NBW_HEAT_GENERAL || r->grid.radius > 1 || r->fields > 1)
		printf("%-8s radius %d, %d field%s, decomposition %dx%dx%d, exchange %s, copy %s, "
		       "overlap %s; %llu halo bytes per step\n",
		       "", r->grid.radius, r->fields, r->fields == 1 ? "" : "s", r->decomp[0],
		       r->decomp[1], r->decomp[2], r->exchange_how, r->copy_how,
		       r->overlap ? "on" : "off", (unsigned long long)nbw_heat_record_halo_bytes(r));
	if (r->instrumented && !r->error[0])
		printf("%-8s phases (s): interior %.4f, boundary %.4f, halo exchange %.4f, "
		       "synchronisation %.4f; instrumented total %.4f\n",
		       "", r->phases.interior_s, r->phases.boundary_s, r->phases.halo_s,
		       r->phases.sync_s, r->phases.total_s);
	fflush(stdout);
}

static int save(struct heat_session *hs, const struct nbw_heat_record *r)
{
	json_array_append_new(hs->runs, nbw_heat_record_to_json(r));
	char err[512];
	if (nbw_doc_write(hs->doc, hs->dir, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return -1;
	}
	return 0;
}

/* --app: what the solver runs of the application, and in what precision. */
static void print_app(const struct nbw_heat_opts *o)
{
	char decomp[48] = "1x1xG (left open)";
	if (o->decomp[0])
		snprintf(decomp, sizeof(decomp), "%dx%dx%d", o->decomp[0], o->decomp[1],
			 o->decomp[2]);
	printf("nodebw heat: application %s%s%s(%s): grid %dx%dx%d, decomposition %s, radius %d, "
	       "%d field%s, exchange %s, copy %s, overlap %s, %d steps\n",
	       o->app_name[0] ? "'" : "", o->app_name, o->app_name[0] ? "' " : "", o->app,
	       o->shapes[0][0], o->shapes[0][1], o->shapes[0][2], decomp, o->radius, o->fields,
	       o->fields == 1 ? "" : "s", nbw_app_exchange_name(o->exchange),
	       nbw_app_copy_name(o->copy), o->overlap ? "on" : "off", o->steps);
	if (o->app_element_bytes != (int)sizeof(double))
		printf("nodebw heat: the application asks for %d-byte elements; the solver computes "
		       "in 8-byte doubles (its records say both)\n",
		       o->app_element_bytes);
	else
		printf("nodebw heat: 8-byte elements, as the solver computes\n");
}

/* ---- one run ------------------------------------------------------------------------------ */

/* The configuration a record carries: what the general version was asked for, and what the
 * paper's versions do (z-slabs, whole planes copied as they lie). */
static void set_config(struct heat_session *hs, struct nbw_heat_record *r,
		       enum nbw_heat_version v, int G)
{
	const struct nbw_heat_opts *o = hs->o;
	r->fields = o->fields;
	r->app_element_bytes = o->app_element_bytes;
	r->app_name = o->app[0] ? o->app_name : NULL;
	r->decomp[0] = r->decomp[1] = 1;
	r->decomp[2] = G > 0 ? G : 1;
	r->exchange_how = r->copy_how = "none";
	r->overlap = false;
	switch (v) {
	case NBW_HEAT_GENERAL:
		heat_decomp_for(o, G, r->decomp);
		r->exchange_how = nbw_app_exchange_name(o->exchange);
		r->copy_how = nbw_app_copy_name(o->copy);
		r->overlap = o->overlap;
		break;
	case NBW_HEAT_V1:
	case NBW_HEAT_V2:
	case NBW_HEAT_V3:
	case NBW_HEAT_V4:
		/* a z-face is contiguous: the whole planes go as one plain copy, rect's case of
		 * a contiguous box */
		r->exchange_how = nbw_app_exchange_name(v == NBW_HEAT_V4 ? NBW_APP_DEVICE
									  : NBW_APP_HOST_STAGED);
		r->copy_how = nbw_app_copy_name(NBW_APP_RECT);
		r->overlap = v != NBW_HEAT_V1; /* Version 1 waits for every kernel first */
		break;
	default:
		break;
	}
}

/* Test hook: NODEBW_HEAT_FAULT=<version> perturbs that variant's solution before the
 * check, so that the tests can see a verification failure end the command with status 1. */
static void inject_fault(const struct nbw_heat_record *r, double *u)
{
	const char *f = getenv("NODEBW_HEAT_FAULT");
	if (!f || strcmp(f, r->corun ? "corun" : nbw_heat_version_name(r->version)) != 0)
		return;
	const struct nbw_heat_grid *g = &r->grid;
	size_t c = ((size_t)(g->nz / 2) * g->ny + g->ny / 2) * g->nx + g->nx / 2;
	u[c] += 1e-3;
}

static void summarise(struct nbw_heat_record *r)
{
	struct nbw_summary s;
	if (r->reps > 0 && nbw_summarize(r->samples_s, (size_t)r->reps, &s) == 0)
		r->seconds = s.median;
}

static void finish(struct heat_session *hs, struct nbw_heat_record *r, double *u,
		   const double *ref)
{
	hs->nruns++;
	if (r->error[0]) {
		hs->errors++;
		return;
	}
	summarise(r);
	if (r->version == NBW_HEAT_SERIAL) {
		hs->refs++;
		snprintf(r->verify_status, sizeof(r->verify_status), "reference");
		return;
	}
	inject_fault(r, u);
	nbw_heat_verify(u, ref, nbw_heat_grid_points(&r->grid) * (size_t)r->fields, &r->check);
	snprintf(r->verify_status, sizeof(r->verify_status), "%s",
		 r->check.passed ? "passed" : "failed");
	if (!r->check.passed)
		hs->failed++;
}

static int run_serial(struct heat_session *hs, const struct nbw_heat_grid *g,
		      const struct nbw_heat_fields *f, double *ref)
{
	struct nbw_heat_record r;
	memset(&r, 0, sizeof(r));
	double samples[1000] = { 0 };
	r.version = NBW_HEAT_SERIAL;
	r.grid = *g;
	set_config(hs, &r, NBW_HEAT_SERIAL, 0);
	r.steps = hs->o->steps;
	r.reps = hs->o->reps;
	r.samples_s = samples;
	r.host_threads = nbw_heat_serial_threads(hs->o->ref_threads);
	r.hidden_helpers = -1;
	r.blocktime_ms = -1;
	snprintf(r.device_kind, sizeof(r.device_kind), "host-cpu");
	snprintf(r.kernels, sizeof(r.kernels),
		 "C loops over (k, j) with a contiguous i row, no offload; host OpenMP parallel "
		 "for over the (k, j) rows, %d host thread%s",
		 r.host_threads, r.host_threads == 1 ? "" : "s");
	snprintf(r.halo_path, sizeof(r.halo_path), "none (one host array)");
	for (int i = 0; i < r.reps; i++) {
		samples[i] = nbw_heat_serial_fields(g, f, r.steps, r.host_threads, ref);
		if (samples[i] < 0.0) {
			snprintf(r.error, sizeof(r.error), "out of memory");
			break;
		}
	}
	host_roofline(hs, &r.roofline);
	finish(hs, &r, ref, ref);
	print_row(hs, &r);
	return save(hs, &r) ? -1 : r.error[0] ? 1 : 0;
}

/* Without the exchange the solution is each slab's own: \p u is checked against that. */
static void finish_no_exchange(struct heat_session *hs, struct nbw_heat_record *r,
			       const struct nbw_heat_fields *f, double *u, const double *ref)
{
	double *sref = NULL;
	if (!r->error[0]) {
		sref = malloc(nbw_heat_grid_points(&r->grid) * (size_t)r->fields * sizeof(double));
		if (!sref || nbw_heat_slab_reference(&r->grid, f, r->slabs, r->ndev, r->steps,
						     hs->o->ref_threads, sref))
			snprintf(r->error, sizeof(r->error), "out of memory for the slabs' reference");
	}
	finish(hs, r, u, sref ? sref : ref);
	free(sref);
}

/* \p slab_g: the co-run probe's G whose slab the grid is (G devices, or fewer at once). */
static void run_offload(struct heat_session *hs, enum nbw_heat_version v,
			enum nbw_heat_corun corun, int slab_g, int G, const struct nbw_heat_grid *g,
			const struct nbw_heat_fields *f, const double *ref, double *u)
{
	struct nbw_heat_record r;
	memset(&r, 0, sizeof(r));
	double samples[1000] = { 0 }, partner[1000] = { 0 };
	bool gpu[NBW_HEAT_MAX_DEVICES];
	r.version = v;
	r.grid = *g;
	r.ndev = G;
	set_config(hs, &r, v, corun ? 1 : G);
	r.steps = hs->o->steps;
	r.warmup_steps = 1;
	r.reps = hs->o->reps;
	r.samples_s = samples;
	r.instrumented = hs->o->instrument && !corun;
	r.no_exchange = hs->o->no_exchange && v != NBW_HEAT_BASELINE;
	r.corun = corun == NBW_CORUN_ONE_THREAD	  ? "one-thread"
		  : corun == NBW_CORUN_PER_DEVICE ? "per-device"
						  : NULL;
	r.corun_slab_g = corun ? slab_g : 0;
	r.hidden_helpers = nbw_effective_hidden_helpers();
	/* --paired: the compute-only halves and their solution (checked on their own). */
	bool paired = hs->o->paired && v != NBW_HEAT_BASELINE;
	double *pu = paired ? malloc(nbw_heat_grid_points(g) * (size_t)f->nfields * sizeof(double))
			    : NULL;
	bool any_gpu = false, mixed = false;
	/* The record keeps nodebw's device numbers; the kernels take the runtime's. */
	int rtdev[NBW_HEAT_MAX_DEVICES];
	for (int i = 0; i < G; i++) {
		r.devices[i] = hs->o->devices[i];
		rtdev[i] = hs->info[i].runtime_id;
		gpu[i] = is_gpu_kind(&hs->info[i]);
		any_gpu |= gpu[i];
		mixed |= strcmp(hs->info[i].kind, hs->info[0].kind) != 0;
	}
	snprintf(r.device_kind, sizeof(r.device_kind), "%s", mixed ? "mixed" : hs->info[0].kind);
	char err[256] = "";
	if (paired && !pu)
		snprintf(err, sizeof(err), "out of memory for the compute-only solution");
	/* The co-run probe: every device gets the whole grid. */
	for (int i = 0; corun && i < G; i++)
		r.slabs[i] = (struct nbw_heat_slab){.k_begin = g->radius, .k_end = g->nz - g->radius};
	bool general = v == NBW_HEAT_GENERAL;
	int split = err[0] ? -1
		    : general ? nbw_heat_decompose(g, r.decomp, r.subs, err, sizeof(err))
		    : corun ? 0
			    : nbw_heat_split(g, G, r.slabs, err, sizeof(err));
	if (split == 0 && !general)
		nbw_heat_subs_of_slabs(g, corun ? 1 : G, r.slabs, r.subs);
	if (split == 0) {
		struct nbw_heat_omp_request rq = {
			.version = v, .corun = corun, .grid = g, .fields = f, .ndev = G, .devices = rtdev,
			.gpu = gpu, .slabs = r.slabs, .steps = r.steps,
			.warmup_steps = r.warmup_steps, .reps = r.reps, .instrument = r.instrumented,
			.baseline_nowait = hs->o->baseline_nowait, .no_exchange = r.no_exchange,
			.baseline_blocktime_ms = hs->o->baseline_blocktime_ms,
			.paired = paired,
			.subs = r.subs, .copy = hs->o->copy, .exchange = hs->o->exchange,
			.overlap = hs->o->overlap,
		};
		memcpy(rq.decomp, r.decomp, sizeof(rq.decomp));
		struct nbw_heat_omp_result res;
		memset(&res, 0, sizeof(res));
		res.samples_s = samples;
		res.paired_samples_s = paired ? partner : NULL;
		res.paired_u = pu;
		int orc = hs->omp->run(&rq, u, &res, err, sizeof(err));
		nbw_unlink_plugin_images(); /* the devices' images are loaded by now */
		if (orc == 0) {
			r.phases = res.phases;
		}
		r.host_threads = res.host_threads;
		r.blocktime_ms = res.blocktime_ms;
		nbw_heat_cuda_sched(hs->info, G, r.cuda_sched, sizeof(r.cuda_sched),
				    r.cuda_sched_note, sizeof(r.cuda_sched_note));
		snprintf(r.kernels, sizeof(r.kernels), "%s", res.kernels);
		r.launch = v == NBW_HEAT_BASELINE && !hs->o->baseline_nowait && !corun ? "sync"
										       : "nowait";
		snprintf(r.halo_path, sizeof(r.halo_path), "%s", res.halo_path);
	}
	if (err[0])
		snprintf(r.error, sizeof(r.error), "%s", err);
	if (any_gpu && !mixed)
		device_roofline(hs, G, &r.roofline);
	else
		host_roofline(hs, &r.roofline);
	/* The compute-only half first: its record copies the run's settings before the halo
	 * record's own check fills them. */
	struct nbw_heat_record c = r;
	if (r.no_exchange)
		finish_no_exchange(hs, &r, f, u, ref);
	else
		finish(hs, &r, u, ref);
	if (paired) {
		r.partner_s = partner;
		c.no_exchange = true;
		c.instrumented = false;
		memset(&c.phases, 0, sizeof(c.phases));
		c.samples_s = partner;
		c.partner_s = samples;
		snprintf(c.halo_path, sizeof(c.halo_path), "%s", NBW_HEAT_NO_EXCHANGE_PATH);
		finish_no_exchange(hs, &c, f, pu, ref);
	}
	print_row(hs, &r);
	save(hs, &r);
	if (paired) {
		print_row(hs, &c);
		save(hs, &c);
	}
	free(pu);
}

/* ---- set-up ------------------------------------------------------------------------------ */

static int open_devices(struct heat_session *hs, char *err, size_t errlen)
{
	hs->ops = nbw_backend_find("omp");
	hs->omp = nbw_heat_omp_fns(err, errlen);
	if (!hs->omp)
		return -1;
	char why[NBW_REASON_LEN] = "";
	if (!hs->ops || hs->ops->open(&hs->be, NULL, why, sizeof(why)) != 0) {
		hs->be = NULL;
		hs->ndev = 0;
	} else {
		hs->ndev = hs->ops->device_count(hs->be);
	}
	if (nbw_heat_resolve_devices(hs->o, hs->ndev, err, errlen))
		return -1;
	for (int i = 0; i < hs->o->ndevices; i++)
		if (hs->ops->device_info(hs->be, hs->o->devices[i], &hs->info[i])) {
			snprintf(err, errlen, "no information on device %d", hs->o->devices[i]);
			return -1;
		}
	return 0;
}

/* The largest grid must fit in the host's available memory: 5 host arrays (u0, kappa, rhs,
 * reference, result), the bandwidth kernel's 3 arrays, and 4 arrays per host-plugin slab. */
static int check_memory(const struct nbw_heat_opts *o, char *err, size_t errlen)
{
	size_t worst = 0;
	for (int s = 0; s < o->nshapes; s++) {
		size_t nx = (size_t)o->shapes[s][0], ny = (size_t)o->shapes[s][1];
		size_t nz = (size_t)o->shapes[s][2];
		size_t pts = nx * ny * nz;
		size_t need = (4 + 5 * (size_t)o->fields) * pts * sizeof(double) +
			      2 * (2 + 2 * (size_t)o->fields) * 64 * nx * ny * sizeof(double);
		worst = need > worst ? need : worst;
	}
	worst += 3 * TRIAD_BYTES;
	uint64_t avail = nbw_sysinfo_mem_available();
	if (avail && worst > avail) {
		snprintf(err, errlen,
			 "the grid needs about %.1f GB of host memory, %.1f GB are available",
			 (double)worst / 1e9, (double)avail / 1e9);
		return -1;
	}
	return 0;
}

static char **full_argv(int argc, char **argv)
{
	char **v = calloc((size_t)argc + 2, sizeof(*v));
	if (!v)
		return NULL;
	v[0] = "nodebw";
	for (int i = 0; i < argc; i++)
		v[i + 1] = argv[i];
	return v;
}

/* The CPUs this process may run on (1 when unknown). */
static int cpus_allowed(void)
{
	cpu_set_t set;
	return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set)
										    : 1;
}

static int run_grid(struct heat_session *hs, int nx, int ny, int nz)
{
	const struct nbw_heat_opts *o = hs->o;
	struct nbw_heat_grid g;
	struct nbw_heat_fields f;
	char err[256];
	if (nbw_heat_grid_init_r(&g, nx, ny, nz, o->radius, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return -1;
	}
	size_t n = nbw_heat_grid_points(&g) * (size_t)o->fields;
	double *ref = malloc(n * sizeof(double)), *u = malloc(n * sizeof(double));
	if (!ref || !u || nbw_heat_fields_init_n(&f, &g, o->fields)) {
		free(ref);
		free(u);
		fprintf(stderr, "nodebw: error: out of memory for a %dx%dx%d grid\n", nx, ny, nz);
		return -1;
	}
	int rc = 0;
	if (o->versions[NBW_HEAT_SERIAL]) {
		rc = run_serial(hs, &g, &f, ref);
	} else if (nbw_heat_serial_fields(&g, &f, o->steps, o->ref_threads, ref) < 0.0) {
		fprintf(stderr, "nodebw: error: out of memory for the serial reference\n");
		rc = -1;
	}
	for (int k = 0; rc >= 0 && k < o->ngpus && !nbw_stop_requested; k++)
		for (int v = NBW_HEAT_BASELINE; v < NBW_HEAT_VERSION_COUNT && !nbw_stop_requested;
		     v++)
			if (o->versions[v] &&
			    heat_opts_fit(o, (enum nbw_heat_version)v, o->gpus[k]))
				run_offload(hs, (enum nbw_heat_version)v, NBW_CORUN_NONE, 0,
					    o->gpus[k], &g, &f, ref, u);
	/* --corun: on the shapes that are G's slab of a cubic N, and on a box given by --nx/
	 * --ny/--nz (an application's local box) for every G >= 2: one host thread drives G
	 * devices; a thread per device drives as many at once as the host has CPUs for them
	 * (more threads than CPUs would measure the cores' time-slicing, not the devices). */
	int cpus = cpus_allowed();
	bool box = o->nx > 0;
	for (int k = 0; rc >= 0 && o->corun && k < o->ngpus && !nbw_stop_requested; k++) {
		int G = o->gpus[k], at_once = G < cpus ? G : cpus;
		if (G < 2 || (!box && !nbw_heat_is_slab_shape_r(nx, ny, nz, G, o->radius)))
			continue;
		run_offload(hs, NBW_HEAT_BASELINE, NBW_CORUN_ONE_THREAD, G, G, &g, &f, ref, u);
		if (at_once >= 2)
			run_offload(hs, NBW_HEAT_BASELINE, NBW_CORUN_PER_DEVICE, G, at_once, &g, &f,
				    ref, u);
	}
	nbw_heat_fields_free(&f);
	free(ref);
	free(u);
	return rc < 0 ? -1 : 0;
}

static bool stop_requested(void)
{
	return nbw_stop_requested != 0;
}

/* --launch-probe: the records "launch_probe" instead of solver runs; closes the session. */
static int launch_probe(struct heat_session *hs, struct nbw_rundir *rd)
{
	json_t *records = json_array();
	nbw_doc_set(hs->doc, "launch_probe", json_incref(records));
	unsigned failed = 0;
	char err[512];
	int rc = nbw_heat_launch_probe(hs->o, hs->info[0].kind, records,
				       hs->o->quiet ? NULL : stdout, stop_requested, &failed);
	bool interrupted = nbw_stop_requested != 0;
	char detail[96];
	snprintf(detail, sizeof(detail), "stopped by %s", nbw_signal_name(nbw_stop_signal));
	nbw_doc_set_state(hs->doc, interrupted ? "interrupted" : rc ? "failed" : "complete",
			  interrupted ? detail : rc ? "out of memory" : NULL);
	if (nbw_doc_write(hs->doc, hs->dir, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		rc = -1;
	}
	if (!hs->o->quiet || failed)
		printf("\n%zu launch measurements, %u with an error or a failed counter or plane "
		       "check%s\n"
		       "results: %s/results.json (\"launch_probe\")\n",
		       json_array_size(records), failed,
		       interrupted ? "; interrupted, partial results kept" : "", hs->dir);
	json_decref(records);
	nbw_doc_free(hs->doc);
	if (hs->be)
		hs->ops->close(hs->be);
	nbw_rundir_close(rd, false);
	if (interrupted)
		return nbw_stop_status();
	return rc ? 1 : failed ? NBW_EXIT_PARTIAL : 0;
}

int nbw_heat_main(int argc, char **argv)
{
	struct nbw_heat_opts o;
	char err[512];
	int rc = nbw_heat_parse(argc, argv, &o, err, sizeof(err));
	if (rc == 1) {
		nbw_heat_usage(stdout);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return NBW_EXIT_USAGE;
	}
	char **fargv = full_argv(argc, argv);
	if (!fargv) {
		fprintf(stderr, "nodebw: error: out of memory\n");
		return 1;
	}
	nbw_reexec_hidden_helpers(o.hidden_helpers, fargv);
	struct heat_session hs;
	memset(&hs, 0, sizeof(hs));
	hs.o = &o;
	struct nbw_rundir rd = { .path = NULL, .lock_fd = -1 };
	rc = open_devices(&hs, err, sizeof(err)) || check_memory(&o, err, sizeof(err))
		     ? NBW_EXIT_USAGE
		     : nbw_rundir_open(o.output, o.replace, &rd, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		if (hs.be)
			hs.ops->close(hs.be);
		free(fargv);
		return rc == -1 ? 1 : NBW_EXIT_USAGE;
	}
	hs.dir = rd.path;
	if (rd.recovered[0])
		fprintf(stderr, "nodebw: note: %s held the results of a killed run: %s\n", hs.dir,
			rd.recovered);
	nbw_handle_stop_signals();
	hs.doc = nbw_doc_new(argc + 1, fargv);
	if (!hs.doc) {
		fprintf(stderr, "nodebw: error: out of memory\n");
		nbw_rundir_close(&rd, false);
		free(fargv);
		return 1;
	}
	for (int i = 0; i < o.ndevices; i++)
		nbw_doc_add_device(hs.doc, "omp", &hs.info[i]);
	if (hs.ndev == 0)
		nbw_doc_add_skip(hs.doc, "omp", "heat", "baseline, v1, v2, v3, v4",
				 "libomptarget reports no offload device");
	if (o.launch_probe) {
		rc = launch_probe(&hs, &rd);
		free(fargv);
		return rc;
	}
	hs.runs = json_array();
	nbw_doc_set(hs.doc, "solver_runs", json_incref(hs.runs));
	if (o.app[0] && !o.quiet)
		print_app(&o);
	rc = 0;
	for (int s = 0; s < o.nshapes && rc == 0 && !nbw_stop_requested; s++) {
		rc = run_grid(&hs, o.shapes[s][0], o.shapes[s][1], o.shapes[s][2]);
	}
	bool interrupted = nbw_stop_requested != 0;
	char detail[96];
	snprintf(detail, sizeof(detail), "stopped by %s", nbw_signal_name(nbw_stop_signal));
	nbw_doc_set_state(hs.doc, interrupted ? "interrupted" : rc ? "failed" : "complete",
			  interrupted ? detail : rc ? "a solver run could not be set up (see the runs)" : NULL);
	if (nbw_doc_write(hs.doc, hs.dir, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		rc = -1;
	}
	if (!o.quiet || hs.failed || hs.errors)
		printf("\n%u solver runs: %u serial reference, %u verified against it, %u failed "
		       "verification, %u with an error%s\nresults: %s/results.json "
		       "(\"solver_runs\")\n",
		       hs.nruns, hs.refs, hs.nruns - hs.refs - hs.failed - hs.errors, hs.failed,
		       hs.errors,
		       interrupted ? "; interrupted, partial results kept" : "", hs.dir);
	json_decref(hs.runs);
	nbw_doc_free(hs.doc);
	if (hs.be)
		hs.ops->close(hs.be);
	free(fargv);
	nbw_rundir_close(&rd, false);
	if (interrupted)
		return nbw_stop_status();
	return rc ? 1 : hs.failed || hs.errors ? NBW_EXIT_PARTIAL : 0;
}
