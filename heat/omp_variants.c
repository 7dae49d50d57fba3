/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP offload variants of the heat solver (the seed paper's Pseudocode 2-11),
 * generalised from 2 and 4 to any G >= 2 devices split along k:
 *
 *   baseline  one device, one synchronous kernel per step
 *   v1        one host thread: interior and boundary kernels nowait, taskwait, then each
 *             halo plane device -> host -> device with blocking omp_target_memcpy
 *   v2        one host thread: boundary kernels nowait depend(out: token); each halo plane
 *             device -> host -> device with two omp_target_memcpy_async chained on one
 *             depobj (inout: token); one taskwait per step
 *   v3        one host thread per device (omp parallel num_threads(G)): each thread runs
 *             Version 2's chain for its own device and pushes its own planes; taskwait,
 *             barrier
 *   v4        as v3, but each halo plane goes device -> device with one
 *             omp_target_memcpy_async (libomptarget stages it through host memory when the
 *             plugin cannot copy between the devices, as the host plugin cannot)
 *   co-run    the co-run probe: the baseline's nowait kernel on G devices at once, each
 *             device with its own copy of the whole grid and no neighbours, driven by one
 *             host thread (a taskwait per step) or by a thread per device (taskwait and
 *             barrier per step): how G devices computing at once share the hardware,
 *             without any decomposition or halo code
 *
 * Halo planes are pushed into the neighbour's ghost plane of the new level; the levels are
 * chosen by the step's parity (u[s & 1] old, u[(s + 1) & 1] new), so no thread ever reads a
 * pointer another thread swaps. A device whose slab is one plane thick with neighbours on
 * both sides computes that plane once and sends it both ways.
 *
 * The timer (omp_get_wtime) covers the time-step loop only: the data is on the devices
 * before it starts and it stops after the last step's synchronisation. Instrumented runs
 * wait after every phase and time each: interior kernels, boundary kernels, halo exchange,
 * and synchronisation (the barrier of Versions 3 and 4; nothing is left to wait for in the
 * single-thread variants), so they remove any overlap and take longer.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat_omp.h"
#include "omp_internal.h"

/* Exported by libomptarget but not declared in LLVM 19's omp.h. */
void *llvm_omp_target_alloc_host(size_t size, int device_num);
void llvm_omp_target_free_host(void *ptr, int device_num);

struct heat_run {
	const struct nbw_heat_omp_request *rq;
	struct heat_geom gm;
	int ndev;
	struct heat_dev *dev;
	int host;                /* omp_get_initial_device() */
	bool staged;             /* host staging buffers needed (Versions 1-3) */
	bool no_exchange;        /* this pass leaves the halo copies out (--no-exchange, or
				  * the compute-only half of a paired repetition) */
	/* Instrumented phases, per host thread. */
	bool instrument;
	struct nbw_heat_phases *ph;
	int failed;              /* a copy failed inside the loop */
	char err[256];
};

static size_t plane_bytes(const struct heat_run *r)
{
	return r->gm.plane * sizeof(double);
}

/* The bytes of one halo message: R planes. */
static size_t halo_bytes(const struct heat_run *r)
{
	return (size_t)r->gm.radius * plane_bytes(r);
}

static void note_failure(struct heat_run *r, int rc, const char *what, int from, int to)
{
	if (rc == 0)
		return;
#pragma omp critical(heat_err)
	if (!r->failed) {
		r->failed = 1;
		snprintf(r->err, sizeof(r->err), "%s from device %d to %d returned %d", what, from,
			 to, rc);
	}
}

/* ---- set-up and tear-down ----------------------------------------------------------- */

static void free_run(struct heat_run *r)
{
	if (!r->dev)
		return;
	for (int g = 0; g < r->ndev; g++) {
		struct heat_dev *d = &r->dev[g];
		for (int q = 0; q < NBW_HEAT_MAX_FIELDS; q++)
			for (int l = 0; l < 2; l++)
				if (d->u[q][l])
					omp_target_free(d->u[q][l], d->id);
		if (d->kappa)
			omp_target_free(d->kappa, d->id);
		if (d->rhs)
			omp_target_free(d->rhs, d->id);
		for (int dir = 0; dir < 2; dir++) {
			if (d->stage[dir])
				llvm_omp_target_free_host(d->stage[dir], d->id);
			if (d->dep_made) {
#pragma omp depobj(d->dep[dir]) destroy
			}
		}
	}
	free(r->dev);
	free(r->ph);
	r->dev = NULL;
	r->ph = NULL;
}

/* Copy the initial level of a device's slab, ghosts included, into both levels of every
 * field. */
static int upload_u(struct heat_run *r, struct heat_dev *d)
{
	size_t n = r->gm.plane * (size_t)r->rq->grid->nz;
	size_t bytes = d->local_points * sizeof(double);
	for (int q = 0; q < r->gm.nfields; q++) {
		const double *src = r->rq->fields->u0 + (size_t)q * n +
				    (size_t)(d->k_begin - r->gm.radius) * r->gm.plane;
		for (int l = 0; l < 2; l++)
			if (omp_target_memcpy(d->u[q][l], src, bytes, 0, 0, d->id, r->host))
				return -1;
	}
	return 0;
}

static int setup(struct heat_run *r, char *err, size_t errlen)
{
	const struct nbw_heat_omp_request *rq = r->rq;
	r->ndev = rq->ndev;
	r->host = omp_get_initial_device();
	r->gm.nx = rq->grid->nx;
	r->gm.ny = rq->grid->ny;
	r->gm.plane = (size_t)rq->grid->nx * (size_t)rq->grid->ny;
	r->gm.factor = rq->grid->factor;
	r->gm.radius = rq->grid->radius > 0 ? rq->grid->radius : 1;
	r->gm.nfields = rq->fields->nfields > 0 ? rq->fields->nfields : 1;
	const int R = r->gm.radius;
	r->staged = rq->version == NBW_HEAT_V1 || rq->version == NBW_HEAT_V2 ||
		    rq->version == NBW_HEAT_V3;
	r->dev = calloc((size_t)r->ndev, sizeof(*r->dev));
	r->ph = calloc((size_t)r->ndev, sizeof(*r->ph));
	if (!r->dev || !r->ph) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int g = 0; g < r->ndev; g++) {
		struct heat_dev *d = &r->dev[g];
		d->id = rq->devices[g];
		d->gpu = rq->gpu[g];
		d->k_begin = rq->slabs[g].k_begin;
		d->planes = rq->slabs[g].k_end - rq->slabs[g].k_begin;
		d->local_points = (size_t)(d->planes + 2 * R) * r->gm.plane;
		d->send[HALO_DOWN] = g > 0 && !rq->corun;
		d->send[HALO_UP] = g < r->ndev - 1 && !rq->corun;
		d->int_lo = R + (d->send[HALO_DOWN] ? R : 0);
		d->int_hi = R + d->planes - 1 - (d->send[HALO_UP] ? R : 0);
		size_t bytes = d->local_points * sizeof(double);
		bool got = true;
		for (int q = 0; q < r->gm.nfields; q++)
			for (int l = 0; l < 2; l++)
				got &= (d->u[q][l] = omp_target_alloc(bytes, d->id)) != NULL;
		d->kappa = omp_target_alloc(bytes, d->id);
		d->rhs = omp_target_alloc(bytes, d->id);
		if (!got || !d->kappa || !d->rhs) {
			snprintf(err, errlen, "omp_target_alloc of %d x %zu bytes on device %d failed",
				 2 * r->gm.nfields + 2, bytes, d->id);
			return -1;
		}
		size_t off = (size_t)(d->k_begin - R) * r->gm.plane;
		if (upload_u(r, d) ||
		    omp_target_memcpy(d->kappa, rq->fields->kappa + off, bytes, 0, 0, d->id,
				      r->host) ||
		    omp_target_memcpy(d->rhs, rq->fields->rhs + off, bytes, 0, 0, d->id, r->host)) {
			snprintf(err, errlen, "omp_target_memcpy to device %d failed", d->id);
			return -1;
		}
		for (int dir = 0; dir < 2; dir++) {
			if (r->staged && d->send[dir]) {
				d->stage[dir] = llvm_omp_target_alloc_host(halo_bytes(r), d->id);
				if (!d->stage[dir]) {
					snprintf(err, errlen,
						 "llvm_omp_target_alloc_host(%zu bytes) failed",
						 halo_bytes(r));
					return -1;
				}
			}
#pragma omp depobj(d->dep[dir]) depend(inout : d->tok[dir])
		}
		d->dep_made = true;
	}
	return 0;
}

/* ---- pieces of a step ------------------------------------------------------------------ */

static void interior(struct heat_run *r, struct heat_dev *d, int s, enum heat_launch how)
{
	for (int q = 0; q < r->gm.nfields; q++)
		heat_kernel(d, &r->gm, q, s, d->int_lo, d->int_hi, how, &d->tok_interior,
			    &d->tok_interior);
}

/* The planes the neighbours need: the first R updated planes (down) and the last R (up);
 * one kernel when they overlap (a slab thinner than 2R planes: for R = 1, one plane). */
static void boundary(struct heat_run *r, struct heat_dev *d, int s, enum heat_launch how)
{
	bool down = d->send[HALO_DOWN], up = d->send[HALO_UP];
	const int R = r->gm.radius, first = R, last = R + d->planes - 1;
	for (int q = 0; q < r->gm.nfields; q++) {
		if (down && up && d->planes < 2 * R) {
			heat_kernel(d, &r->gm, q, s, first, last, how, &d->tok[HALO_DOWN],
				    &d->tok[HALO_UP]);
			continue;
		}
		if (down)
			heat_kernel(d, &r->gm, q, s, first, first + R - 1, how, &d->tok[HALO_DOWN],
				    &d->tok[HALO_DOWN]);
		if (up)
			heat_kernel(d, &r->gm, q, s, last - R + 1, last, how, &d->tok[HALO_UP],
				    &d->tok[HALO_UP]);
	}
}

/* Source and destination of device g's halo planes of field q in direction dir at step s:
 * the new level's first or last R updated planes go into the neighbour's ghost planes of its
 * new level. */
struct halo_copy {
	struct heat_dev *src, *dst;
	double *src_u, *dst_u;
	size_t src_off, dst_off;
};

static struct halo_copy halo_of(struct heat_run *r, int g, int q, int dir, int s)
{
	struct halo_copy c;
	int nb = dir == HALO_DOWN ? g - 1 : g + 1;
	const int R = r->gm.radius;
	c.src = &r->dev[g];
	c.dst = &r->dev[nb];
	c.src_u = c.src->u[q][(s + 1) & 1];
	c.dst_u = c.dst->u[q][(s + 1) & 1];
	size_t pb = plane_bytes(r);
	c.src_off = (size_t)(dir == HALO_DOWN ? R : c.src->planes) * pb;
	c.dst_off = (size_t)(dir == HALO_DOWN ? c.dst->planes + R : 0) * pb;
	return c;
}

/* Version 1: device -> host -> device, blocking. */
static void halo_sync(struct heat_run *r, int g, int s)
{
	size_t pb = halo_bytes(r);
	for (int q = 0; q < r->gm.nfields; q++)
	for (int dir = 0; dir < 2; dir++) {
		if (!r->dev[g].send[dir])
			continue;
		struct halo_copy c = halo_of(r, g, q, dir, s);
		double *h = c.src->stage[dir];
		note_failure(r, omp_target_memcpy(h, c.src_u, pb, 0, c.src_off, r->host, c.src->id),
			     "omp_target_memcpy", c.src->id, r->host);
		note_failure(r, omp_target_memcpy(c.dst_u, h, pb, c.dst_off, 0, c.dst->id, r->host),
			     "omp_target_memcpy", r->host, c.dst->id);
	}
}

/* Versions 2-4: asynchronous copies chained on the direction's depobj, which the boundary
 * kernel's depend(out) precedes. Direct (device -> device) for Version 4. */
static void halo_async(struct heat_run *r, int g, int s, bool direct)
{
	size_t pb = halo_bytes(r);
	struct heat_dev *d = &r->dev[g];
	for (int q = 0; q < r->gm.nfields; q++)
	for (int dir = 0; dir < 2; dir++) {
		if (!d->send[dir])
			continue;
		struct halo_copy c = halo_of(r, g, q, dir, s);
		if (direct) {
			note_failure(r,
				     omp_target_memcpy_async(c.dst_u, c.src_u, pb, c.dst_off,
							     c.src_off, c.dst->id, c.src->id, 1,
							     &d->dep[dir]),
				     "omp_target_memcpy_async", c.src->id, c.dst->id);
			continue;
		}
		double *h = d->stage[dir];
		note_failure(r,
			     omp_target_memcpy_async(h, c.src_u, pb, 0, c.src_off, r->host,
						     c.src->id, 1, &d->dep[dir]),
			     "omp_target_memcpy_async", c.src->id, r->host);
		note_failure(r,
			     omp_target_memcpy_async(c.dst_u, h, pb, c.dst_off, 0, c.dst->id,
						     r->host, 1, &d->dep[dir]),
			     "omp_target_memcpy_async", r->host, c.dst->id);
	}
}

/* ---- the variants ------------------------------------------------------------------------ */

/* Phase timer of the instrumented runs: adds the time since *t to *acc. */
static void lap(double *t, double *acc)
{
	double now = omp_get_wtime();
	*acc += now - *t;
	*t = now;
}

static void run_baseline(struct heat_run *r, int steps)
{
	struct heat_dev *d = &r->dev[0];
	int ta = 0, tb = 0; /* dependence tokens of the nowait form */
	for (int s = 0; s < steps; s++) {
		double t = omp_get_wtime();
		if (r->rq->baseline_nowait) {
			/* The kernel form and launch of Versions 1-4, on one device. */
			for (int q = 0; q < r->gm.nfields; q++)
				heat_kernel(d, &r->gm, q, s, r->gm.radius,
					    r->gm.radius + d->planes - 1, LAUNCH_NOWAIT, &ta, &tb);
#pragma omp taskwait
		} else {
			for (int q = 0; q < r->gm.nfields; q++)
				heat_kernel(d, &r->gm, q, s, r->gm.radius,
					    r->gm.radius + d->planes - 1, LAUNCH_SYNC, NULL, NULL);
		}
		if (r->instrument)
			lap(&t, &r->ph[0].interior_s);
	}
}

/* Versions 1 and 2: one host thread drives every device. */
static void run_single_thread(struct heat_run *r, int steps, bool async)
{
	struct nbw_heat_phases *ph = &r->ph[0];
	for (int s = 0; s < steps; s++) {
		double t = omp_get_wtime();
		for (int g = 0; g < r->ndev; g++)
			interior(r, &r->dev[g], s, LAUNCH_NOWAIT);
		if (r->instrument) {
#pragma omp taskwait
			lap(&t, &ph->interior_s);
		}
		for (int g = 0; g < r->ndev; g++)
			boundary(r, &r->dev[g], s, LAUNCH_NOWAIT);
		if (r->instrument) {
#pragma omp taskwait
			lap(&t, &ph->boundary_s);
		}
		if (r->no_exchange) {
			/* kernels and synchronisation only (compute-calibrated calibration) */
		} else if (async) {
			for (int g = 0; g < r->ndev; g++)
				halo_async(r, g, s, false);
		} else {
#pragma omp taskwait
			for (int g = 0; g < r->ndev; g++)
				halo_sync(r, g, s);
		}
		if (r->instrument) {
#pragma omp taskwait
			lap(&t, &ph->halo_s);
		}
#pragma omp taskwait
		if (r->instrument)
			lap(&t, &ph->sync_s);
	}
}

/* Versions 3 and 4: host thread g drives device g; one barrier per step. The time is from
 * the first thread's start to the last thread's end. */
static void run_thread_per_device(struct heat_run *r, int steps, bool direct, double *seconds)
{
	int wrong_team = 0;
	double *start = calloc((size_t)r->ndev, sizeof(double));
	double *end = calloc((size_t)r->ndev, sizeof(double));
	if (!start || !end) {
		free(start);
		free(end);
		snprintf(r->err, sizeof(r->err), "out of memory");
		r->failed = 1;
		return;
	}
#pragma omp parallel num_threads(r->ndev) shared(wrong_team)
	{
		if (omp_get_num_threads() != r->ndev) {
#pragma omp atomic write
			wrong_team = omp_get_num_threads();
		}
#pragma omp barrier
		int g = omp_get_thread_num();
		if (!wrong_team) {
			struct heat_dev *d = &r->dev[g];
			struct nbw_heat_phases *ph = &r->ph[g];
			start[g] = omp_get_wtime();
			for (int s = 0; s < steps; s++) {
				double t = omp_get_wtime();
				interior(r, d, s, LAUNCH_NOWAIT);
				if (r->instrument) {
#pragma omp taskwait
					lap(&t, &ph->interior_s);
				}
				boundary(r, d, s, LAUNCH_NOWAIT);
				if (r->instrument) {
#pragma omp taskwait
					lap(&t, &ph->boundary_s);
				}
				if (!r->no_exchange)
					halo_async(r, g, s, direct);
#pragma omp taskwait
				if (r->instrument)
					lap(&t, &ph->halo_s);
#pragma omp barrier
				if (r->instrument)
					lap(&t, &ph->sync_s);
			}
			end[g] = omp_get_wtime();
		}
	}
	if (wrong_team) {
		snprintf(r->err, sizeof(r->err),
			 "the runtime gave %d host threads instead of one per device (%d); check "
			 "OMP_THREAD_LIMIT and OMP_DYNAMIC",
			 wrong_team, r->ndev);
		r->failed = 1;
	} else {
		double first = start[0], last = end[0];
		for (int g = 1; g < r->ndev; g++) {
			first = start[g] < first ? start[g] : first;
			last = end[g] > last ? end[g] : last;
		}
		*seconds = last - first;
	}
	free(start);
	free(end);
}

/* The co-run probe: every device runs the baseline's nowait kernel on its whole grid. */
static void run_corun_one_thread(struct heat_run *r, int steps)
{
	for (int s = 0; s < steps; s++) {
		for (int g = 0; g < r->ndev; g++) {
			struct heat_dev *d = &r->dev[g];
			for (int q = 0; q < r->gm.nfields; q++)
				heat_kernel(d, &r->gm, q, s, r->gm.radius,
					    r->gm.radius + d->planes - 1, LAUNCH_NOWAIT,
					    &d->tok_interior, &d->tok_interior);
		}
#pragma omp taskwait
	}
}

static double run_corun_per_device(struct heat_run *r, int steps)
{
	double first = 0.0, last = 0.0;
	int wrong = 0;
#pragma omp parallel num_threads(r->ndev) shared(wrong, first, last)
	{
		if (omp_get_num_threads() != r->ndev) {
#pragma omp atomic write
			wrong = 1;
		}
#pragma omp barrier
		struct heat_dev *d = &r->dev[omp_get_thread_num()];
		if (!wrong) {
			double t0 = omp_get_wtime();
			for (int s = 0; s < steps; s++) {
				for (int q = 0; q < r->gm.nfields; q++)
					heat_kernel(d, &r->gm, q, s, r->gm.radius,
						    r->gm.radius + d->planes - 1, LAUNCH_NOWAIT,
						    &d->tok_interior, &d->tok_interior);
#pragma omp taskwait
#pragma omp barrier
			}
			double t1 = omp_get_wtime();
#pragma omp critical(heat_corun_span)
			{
				first = first == 0.0 || t0 < first ? t0 : first;
				last = t1 > last ? t1 : last;
			}
		}
	}
	if (wrong) {
		snprintf(r->err, sizeof(r->err),
			 "the runtime gave another number of host threads than one per device "
			 "(%d); check OMP_THREAD_LIMIT and OMP_DYNAMIC",
			 r->ndev);
		r->failed = 1;
	}
	return last - first;
}

/* One timed pass of \p steps steps; returns the seconds of the step loop. */
static double time_steps(struct heat_run *r, int steps)
{
	double seconds = 0.0;
	double t0 = omp_get_wtime();
	switch (r->rq->version) {
	case NBW_HEAT_BASELINE:
		if (r->rq->corun == NBW_CORUN_PER_DEVICE)
			return run_corun_per_device(r, steps);
		if (r->rq->corun == NBW_CORUN_ONE_THREAD)
			run_corun_one_thread(r, steps);
		else
			run_baseline(r, steps);
		break;
	case NBW_HEAT_V1:
		run_single_thread(r, steps, false);
		break;
	case NBW_HEAT_V2:
		run_single_thread(r, steps, true);
		break;
	case NBW_HEAT_V3:
	case NBW_HEAT_V4:
		run_thread_per_device(r, steps, r->rq->version == NBW_HEAT_V4, &seconds);
		return seconds;
	default:
		break;
	}
	return omp_get_wtime() - t0;
}

static int reset_levels(struct heat_run *r, char *err, size_t errlen)
{
	for (int g = 0; g < r->ndev; g++)
		if (upload_u(r, &r->dev[g])) {
			snprintf(err, errlen, "omp_target_memcpy to device %d failed", r->dev[g].id);
			return -1;
		}
	return 0;
}

static void describe(const struct heat_run *r, struct nbw_heat_omp_result *res)
{
	const struct nbw_heat_omp_request *rq = r->rq;
	bool gpu = r->dev[0].gpu;
	bool nowait = rq->version != NBW_HEAT_BASELINE || rq->baseline_nowait;
	snprintf(res->kernels, sizeof(res->kernels), "%s", heat_kernel_forms(gpu, nowait));
	const char *path = "none (one device)";
	switch (rq->version) {
	case NBW_HEAT_V1:
		path = "device -> host -> device, blocking omp_target_memcpy, staging planes from "
		       "llvm_omp_target_alloc_host";
		break;
	case NBW_HEAT_V2:
	case NBW_HEAT_V3:
		path = "device -> host -> device, two omp_target_memcpy_async chained on one depobj, "
		       "staging planes from llvm_omp_target_alloc_host";
		break;
	case NBW_HEAT_V4:
		path = gpu ? "device -> device, omp_target_memcpy_async (peer copy where the plugin "
			     "supports it)"
			   : "device -> device with omp_target_memcpy_async; libomptarget stages "
			     "host-plugin copies through a malloc buffer (not a peer link)";
		break;
	default:
		break;
	}
	if (rq->no_exchange && rq->version != NBW_HEAT_BASELINE)
		path = NBW_HEAT_NO_EXCHANGE_PATH;
	if (rq->corun)
		path = "none (co-run probe: each device computes its own copy of the grid)";
	snprintf(res->halo_path, sizeof(res->halo_path), "%s", path);
	res->host_threads = rq->version == NBW_HEAT_V3 || rq->version == NBW_HEAT_V4 ||
					    rq->corun == NBW_CORUN_PER_DEVICE
				    ? r->ndev
				    : 1;
}

/* The co-run probe: device 0's grid went to \p u_out; every other device's must be the
 * same, bit for bit (the same kernel on the same data). */
static int corun_same(struct heat_run *r, int steps, const double *u_out, char *err,
		      size_t errlen)
{
	size_t bytes = (size_t)r->dev[0].planes * plane_bytes(r);
	size_t n = r->gm.plane * (size_t)r->rq->grid->nz;
	double *other = malloc(bytes);
	if (!other) {
		snprintf(err, errlen, "out of memory for the co-run check");
		return -1;
	}
	int rc = 0;
	for (int g = 1; g < r->ndev * r->gm.nfields && rc == 0; g++) {
		int q = g / r->ndev;
		struct heat_dev *d = &r->dev[g % r->ndev];
		if (g % r->ndev == 0)
			continue;
		if (omp_target_memcpy(other, d->u[q][steps & 1], bytes, 0, halo_bytes(r),
				      r->host, d->id)) {
			snprintf(err, errlen, "omp_target_memcpy from device %d failed", d->id);
			rc = -1;
		} else if (memcmp(other, u_out + (size_t)q * n + (size_t)r->gm.radius * r->gm.plane,
				  bytes) != 0) {
			snprintf(err, errlen,
				 "co-run: device %d's solution differs from device %d's (the same "
				 "kernel on the same grid)",
				 d->id, r->dev[0].id);
			rc = -1;
		}
	}
	free(other);
	return rc;
}

static int download(struct heat_run *r, int steps, double *u_out, char *err, size_t errlen)
{
	const struct nbw_heat_omp_request *rq = r->rq;
	size_t points = r->gm.plane * (size_t)rq->grid->nz;
	memcpy(u_out, rq->fields->u0, (size_t)r->gm.nfields * points * sizeof(double));
	for (int q = 0; q < r->gm.nfields; q++)
		for (int g = 0; g < (rq->corun ? 1 : r->ndev); g++) {
			struct heat_dev *d = &r->dev[g];
			size_t pb = plane_bytes(r);
			if (omp_target_memcpy(u_out + (size_t)q * points +
						      (size_t)d->k_begin * r->gm.plane,
					      d->u[q][steps & 1], (size_t)d->planes * pb, 0,
					      halo_bytes(r), r->host, d->id)) {
				snprintf(err, errlen, "omp_target_memcpy from device %d failed",
					 d->id);
				return -1;
			}
		}
	return rq->corun ? corun_same(r, steps, u_out, err, errlen) : 0;
}

int nbw_heat_omp_run(const struct nbw_heat_omp_request *rq, double *u_out,
		     struct nbw_heat_omp_result *res, char *err, size_t errlen)
{
	if (rq->version == NBW_HEAT_GENERAL)
		return heat_general_run(rq, u_out, res, err, errlen);
	struct heat_run r;
	memset(&r, 0, sizeof(r));
	r.rq = rq;
	r.no_exchange = rq->no_exchange && rq->version != NBW_HEAT_BASELINE;
	memset(&res->phases, 0, sizeof(res->phases));
	bool multi = rq->version >= NBW_HEAT_V1 && rq->version <= NBW_HEAT_V4;
	bool corun = rq->corun != NBW_CORUN_NONE;
	if (rq->version < NBW_HEAT_BASELINE || rq->version > NBW_HEAT_V4 ||
	    (rq->version == NBW_HEAT_BASELINE && !corun && rq->ndev != 1) ||
	    ((multi || corun) && rq->ndev < 2) || (corun && rq->version != NBW_HEAT_BASELINE)) {
		snprintf(err, errlen, "variant %d does not run on %d devices", (int)rq->version,
			 rq->ndev);
		return -1;
	}
	/* The baseline's own blocktime (nodebw run: its team spins between steps while the
	 * versions' threads, which share the cores, sleep at once); restored at the end. */
	int blocktime_was = kmp_get_blocktime();
	if (rq->version == NBW_HEAT_BASELINE && rq->baseline_blocktime_ms >= 0)
		kmp_set_blocktime(rq->baseline_blocktime_ms);
	res->blocktime_ms = kmp_get_blocktime();
	int rc = setup(&r, err, errlen);
	if (rc == 0)
		describe(&r, res);
	/* Warm-up: loads the kernels and starts the hidden helpers; then back to t = 0. */
	if (rc == 0 && rq->warmup_steps > 0) {
		time_steps(&r, rq->warmup_steps);
		rc = r.failed ? -1 : reset_levels(&r, err, errlen);
	}
	/* Paired: before each timed repetition, the same repetition without the halo copies,
	 * on the same device buffers, moments apart: both see the machine at the same speed
	 * and the same memory placement. */
	bool paired = rq->paired && res->paired_samples_s && rq->version != NBW_HEAT_BASELINE &&
		      !rq->no_exchange;
	for (int rep = 0; rc == 0 && rep < rq->reps; rep++) {
		if (paired) {
			if (rep > 0 && (rc = reset_levels(&r, err, errlen)) != 0)
				break;
			r.no_exchange = true;
			res->paired_samples_s[rep] = time_steps(&r, rq->steps);
			r.no_exchange = false;
			if (r.failed || (rc = reset_levels(&r, err, errlen)) != 0) {
				rc = -1;
				break;
			}
		} else if (rep > 0 && (rc = reset_levels(&r, err, errlen)) != 0) {
			break;
		}
		res->samples_s[rep] = time_steps(&r, rq->steps);
		if (r.failed)
			rc = -1;
	}
	if (rc == 0)
		rc = download(&r, rq->steps, u_out, err, errlen);
	/* The compute-only half's own solution, for its own check: one more untimed pass. */
	if (rc == 0 && paired && res->paired_u) {
		rc = reset_levels(&r, err, errlen);
		if (rc == 0) {
			r.no_exchange = true;
			time_steps(&r, rq->steps);
			r.no_exchange = false;
			rc = r.failed ? -1 : download(&r, rq->steps, res->paired_u, err, errlen);
		}
	}
	/* Instrumented runs: as many as timed ones; the phases of the fastest are kept
	 * (background load only slows a run down). */
	for (int rep = 0; rc == 0 && rq->instrument && rep < rq->reps; rep++) {
		rc = reset_levels(&r, err, errlen);
		if (rc)
			break;
		r.instrument = true;
		memset(r.ph, 0, (size_t)r.ndev * sizeof(*r.ph));
		double total = time_steps(&r, rq->steps);
		rc = r.failed ? -1 : 0;
		if (rc || (rep > 0 && total >= res->phases.total_s))
			continue;
		memset(&res->phases, 0, sizeof(res->phases));
		int nth = res->host_threads;
		for (int g = 0; g < nth; g++) {
			res->phases.interior_s += r.ph[g].interior_s / nth;
			res->phases.boundary_s += r.ph[g].boundary_s / nth;
			res->phases.halo_s += r.ph[g].halo_s / nth;
			res->phases.sync_s += r.ph[g].sync_s / nth;
		}
		res->phases.total_s = total;
	}
	if (r.failed && r.err[0])
		snprintf(err, errlen, "%s", r.err);
	free_run(&r);
	kmp_set_blocktime(blocktime_was);
	return rc;
}
