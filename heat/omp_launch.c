/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP launch-latency probe: target regions that do next to nothing, launched as the
 * solver launches its kernels (heat/omp_variants.c), so that what a step costs beyond its
 * compute is measured on its own:
 *   sync        one host thread, two blocking target regions per device and step, the
 *               devices in turn;
 *   one-thread  one host thread, two `target nowait depend(out)` regions per device, then
 *               one taskwait per step (the launches of Versions 1-2);
 *   per-device  a host thread per device: two nowait regions on its device, a taskwait and
 *               the team's barrier per step (the launches of Versions 3-4);
 *   staged-copy as per-device, and after each region the halo plane to the neighbour on
 *               that side device -> host -> device: two omp_target_memcpy_async chained on
 *               the region's dependence token through a depobj (Version 3's copies);
 *   direct-copy the same with one device -> device omp_target_memcpy_async (Version 4's).
 * Each region adds 1 to its own counter in device memory; the caller checks the counts
 * after the timed passes (outside the timed region), and the copy forms read every ghost
 * plane back and compare it with the neighbour's halo plane.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat_omp.h"

/* Exported by libomptarget but not declared in LLVM 19's omp.h. */
void *llvm_omp_target_alloc_host(size_t size, int device_num);
void llvm_omp_target_free_host(void *ptr, int device_num);

/* Two counters per device (the interior and the boundary launch of a step), each with its
 * own dependence token, as the solver's two kernels have. The copy forms: slot 0 sends the
 * device's halo plane down (to device i - 1's ghost[1]), slot 1 up (to i + 1's ghost[0]),
 * each chained on its slot's token as the solver's halo copies are on its boundary
 * kernel's. */
struct launch_dev {
	int id;
	long *count;       /* device memory: two longs */
	int tok[2];
	double *halo;      /* device memory: the plane this device sends */
	double *ghost[2];  /* device memory: the planes it gets from below and above */
	double *stage[2];  /* host memory of the staged form (llvm_omp_target_alloc_host) */
	omp_depend_t dep[2];
	bool dep_made;
};

/* What the copy forms' runs share. */
struct launch_ctx {
	struct launch_dev *d;
	int g;
	int form;
	size_t pb;        /* plane bytes */
	int host;
	int failed;       /* an omp_target_memcpy_async that returned non-zero */
};

static void region(struct launch_dev *d, int slot, bool nowait)
{
	long *c = d->count;
	const int dev = d->id;
	if (nowait) {
#pragma omp target device(dev) is_device_ptr(c) nowait depend(out : d->tok[slot])
		c[slot] += 1;
	} else {
#pragma omp target device(dev) is_device_ptr(c)
		c[slot] += 1;
	}
}

/* Device i's halo plane to its neighbour on side \p slot (0 down, 1 up), after the slot's
 * region, as the solver's halo_async does. */
static void send_plane(struct launch_ctx *x, int i, int slot)
{
	int nb = slot == 0 ? i - 1 : i + 1;
	if (nb < 0 || nb >= x->g)
		return;
	struct launch_dev *s = &x->d[i], *t = &x->d[nb];
	double *dst = t->ghost[slot == 0 ? 1 : 0];
	int rc;
	if (x->form == NBW_LAUNCH_DIRECT_COPY) {
		rc = omp_target_memcpy_async(dst, s->halo, x->pb, 0, 0, t->id, s->id, 1,
					     &s->dep[slot]);
	} else {
		rc = omp_target_memcpy_async(s->stage[slot], s->halo, x->pb, 0, 0, x->host, s->id,
					     1, &s->dep[slot]);
		rc |= omp_target_memcpy_async(dst, s->stage[slot], x->pb, 0, 0, t->id, x->host, 1,
					      &s->dep[slot]);
	}
	if (rc) {
#pragma omp atomic write
		x->failed = 1;
	}
}

static void steps_one_thread(struct launch_dev *d, int g, int steps, bool nowait)
{
	for (int s = 0; s < steps; s++) {
		for (int slot = 0; slot < 2; slot++)
			for (int i = 0; i < g; i++)
				region(&d[i], slot, nowait);
		if (nowait) {
#pragma omp taskwait
		}
	}
}

/* A thread per device; the time is from the first thread's start to the last one's end.
 * -1 when the runtime gives another team size. */
static double steps_per_device(struct launch_ctx *x, int steps)
{
	struct launch_dev *d = x->d;
	const int g = x->g;
	const bool copies = nbw_launch_form_copies(x->form);
	double first = 0.0, last = 0.0;
	int wrong = 0;
#pragma omp parallel num_threads(g) shared(wrong, first, last)
	{
		if (omp_get_num_threads() != g) {
#pragma omp atomic write
			wrong = 1;
		}
#pragma omp barrier
		int t = omp_get_thread_num();
		if (!wrong) {
			double t0 = omp_get_wtime();
			for (int s = 0; s < steps; s++) {
				for (int slot = 0; slot < 2; slot++) {
					region(&d[t], slot, true);
					if (copies)
						send_plane(x, t, slot);
				}
#pragma omp taskwait
#pragma omp barrier
			}
			double t1 = omp_get_wtime();
#pragma omp critical(nbw_launch_span)
			{
				if (first == 0.0 || t0 < first)
					first = t0;
				if (t1 > last)
					last = t1;
			}
		}
	}
	return wrong ? -1.0 : last - first;
}

static double one_pass(const struct nbw_heat_launch_request *rq, struct launch_ctx *x)
{
	if (rq->form >= NBW_LAUNCH_PER_DEVICE)
		return steps_per_device(x, rq->steps);
	double t0 = omp_get_wtime();
	steps_one_thread(x->d, rq->ndev, rq->steps, rq->form == NBW_LAUNCH_ONE_THREAD);
	return omp_get_wtime() - t0;
}

/* The value of element j of device i's halo plane: distinct per device and element. */
static double halo_value(int i, size_t j)
{
	return (double)(i + 1) * 1048576.0 + (double)j;
}

/* The copy forms' planes: each device's halo plane filled with its values, its ghost
 * planes zeroed, the staging buffers and the depobjs on the slots' tokens. */
static int planes_setup(struct launch_ctx *x, char *err, size_t errlen)
{
	size_t n = x->pb / sizeof(double);
	double *h = malloc(x->pb);
	if (!h) {
		snprintf(err, errlen, "out of memory for a %zu-byte halo plane on the host", x->pb);
		return -1;
	}
	for (int i = 0; i < x->g; i++) {
		struct launch_dev *d = &x->d[i];
		d->halo = omp_target_alloc(x->pb, d->id);
		for (int k = 0; k < 2; k++) {
			d->ghost[k] = omp_target_alloc(x->pb, d->id);
			if (x->form == NBW_LAUNCH_STAGED_COPY)
				d->stage[k] = llvm_omp_target_alloc_host(x->pb, d->id);
		}
		bool staged_ok = x->form != NBW_LAUNCH_STAGED_COPY || (d->stage[0] && d->stage[1]);
		if (!d->halo || !d->ghost[0] || !d->ghost[1] || !staged_ok) {
			snprintf(err, errlen, "cannot allocate %zu-byte planes on device %d", x->pb,
				 d->id);
			free(h);
			return -1;
		}
		for (size_t j = 0; j < n; j++)
			h[j] = halo_value(i, j);
		int rc = omp_target_memcpy(d->halo, h, x->pb, 0, 0, d->id, x->host);
		memset(h, 0, x->pb);
		for (int k = 0; k < 2; k++)
			rc |= omp_target_memcpy(d->ghost[k], h, x->pb, 0, 0, d->id, x->host);
		if (rc) {
			snprintf(err, errlen, "cannot set up the planes of device %d", d->id);
			free(h);
			return -1;
		}
		for (int k = 0; k < 2; k++) {
#pragma omp depobj(d->dep[k]) depend(inout : d->tok[k])
		}
		d->dep_made = true;
	}
	free(h);
	return 0;
}

/* After the passes: device i's ghost[0] must hold device i - 1's halo plane and ghost[1]
 * device i + 1's. The device of the first that does not, -1 when all do, -2 when one
 * cannot be read back. */
static int planes_check(struct launch_ctx *x)
{
	size_t n = x->pb / sizeof(double);
	double *h = malloc(x->pb);
	int bad = -1;
	if (!h)
		return -2;
	for (int i = 0; i < x->g && bad == -1; i++)
		for (int k = 0; k < 2 && bad == -1; k++) {
			int from = k == 0 ? i - 1 : i + 1;
			if (from < 0 || from >= x->g)
				continue;
			if (omp_target_memcpy(h, x->d[i].ghost[k], x->pb, 0, 0, x->host,
					      x->d[i].id)) {
				bad = -2;
				break;
			}
			for (size_t j = 0; j < n; j++)
				if (h[j] != halo_value(from, j)) {
					bad = x->d[i].id;
					break;
				}
		}
	free(h);
	return bad;
}

static void planes_free(struct launch_ctx *x)
{
	for (int i = 0; i < x->g; i++) {
		struct launch_dev *d = &x->d[i];
		if (d->halo)
			omp_target_free(d->halo, d->id);
		for (int k = 0; k < 2; k++) {
			if (d->ghost[k])
				omp_target_free(d->ghost[k], d->id);
			if (d->stage[k])
				llvm_omp_target_free_host(d->stage[k], d->id);
			if (d->dep_made) {
#pragma omp depobj(d->dep[k]) destroy
			}
		}
	}
}

int nbw_heat_omp_launch(const struct nbw_heat_launch_request *rq, double *samples_s,
			long *counts, int *bad_plane, char *err, size_t errlen)
{
	struct launch_dev *d = calloc((size_t)rq->ndev, sizeof(*d));
	struct launch_ctx x = {.d = d, .g = rq->ndev, .form = rq->form, .pb = rq->plane_bytes,
			       .host = omp_get_initial_device()};
	const bool copies = nbw_launch_form_copies(rq->form);
	int rc = -1;
	*bad_plane = -1;
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (copies && (rq->ndev < 2 || rq->plane_bytes < sizeof(double) ||
		       rq->plane_bytes % sizeof(double))) {
		snprintf(err, errlen, "the copy forms need G >= 2 and whole planes of doubles");
		free(d);
		return -1;
	}
	const long zero[2] = {0, 0};
	for (int i = 0; i < rq->ndev; i++) {
		d[i].id = rq->devices[i];
		d[i].count = omp_target_alloc(2 * sizeof(long), d[i].id);
		if (!d[i].count ||
		    omp_target_memcpy(d[i].count, zero, sizeof(zero), 0, 0, d[i].id,
				      omp_get_initial_device())) {
			snprintf(err, errlen, "cannot set up a counter on device %d", d[i].id);
			goto out;
		}
	}
	if (copies && planes_setup(&x, err, errlen))
		goto out;
	for (int w = 0; w < rq->warmup; w++)
		if (one_pass(rq, &x) < 0.0)
			goto team;
	for (int r = 0; r < rq->reps; r++) {
		samples_s[r] = one_pass(rq, &x);
		if (samples_s[r] < 0.0)
			goto team;
	}
	if (x.failed) {
		snprintf(err, errlen, "an omp_target_memcpy_async of a halo plane failed");
		goto out;
	}
	if (copies && rq->fault_plane) {
		/* Test hook: device 1's ghost plane from below loses its first value. */
		const double wrong = -1.0;
		if (omp_target_memcpy(d[1].ghost[0], &wrong, sizeof(wrong), 0, 0, d[1].id, x.host)) {
			snprintf(err, errlen, "cannot spoil a ghost plane (test hook)");
			goto out;
		}
	}
	if (copies) {
		*bad_plane = planes_check(&x);
		if (*bad_plane == -2) {
			snprintf(err, errlen, "cannot read a ghost plane back");
			goto out;
		}
	}
	for (int i = 0; i < rq->ndev; i++) {
		long got[2];
		if (omp_target_memcpy(got, d[i].count, sizeof(got), 0, 0, omp_get_initial_device(),
				      d[i].id)) {
			snprintf(err, errlen, "cannot read the counter of device %d back", d[i].id);
			goto out;
		}
		counts[2 * i] = got[0];
		counts[2 * i + 1] = got[1];
	}
	rc = 0;
	goto out;
team:
	snprintf(err, errlen,
		 "the runtime gave another number of host threads than one per device (%d); "
		 "check OMP_THREAD_LIMIT and OMP_DYNAMIC",
		 rq->ndev);
out:
	if (copies)
		planes_free(&x);
	for (int i = 0; i < rq->ndev; i++)
		if (d[i].count)
			omp_target_free(d[i].count, d[i].id);
	free(d);
	return rc;
}
