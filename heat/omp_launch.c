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
 *               the team's barrier per step (the launches of Versions 3-4).
 * Each region adds 1 to its own counter in device memory; the caller checks the counts
 * after the timed passes (outside the timed region).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat_omp.h"

/* Two counters per device (the interior and the boundary launch of a step), each with its
 * own dependence token, as the solver's two kernels have. */
struct launch_dev {
	int id;
	long *count;   /* device memory: two longs */
	int tok[2];
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
static double steps_per_device(struct launch_dev *d, int g, int steps)
{
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
				region(&d[t], 0, true);
				region(&d[t], 1, true);
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

static double one_pass(const struct nbw_heat_launch_request *rq, struct launch_dev *d)
{
	if (rq->form == NBW_LAUNCH_PER_DEVICE)
		return steps_per_device(d, rq->ndev, rq->steps);
	double t0 = omp_get_wtime();
	steps_one_thread(d, rq->ndev, rq->steps, rq->form == NBW_LAUNCH_ONE_THREAD);
	return omp_get_wtime() - t0;
}

int nbw_heat_omp_launch(const struct nbw_heat_launch_request *rq, double *samples_s,
			long *counts, char *err, size_t errlen)
{
	struct launch_dev *d = calloc((size_t)rq->ndev, sizeof(*d));
	int rc = -1;
	if (!d) {
		snprintf(err, errlen, "out of memory");
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
	for (int w = 0; w < rq->warmup; w++)
		if (one_pass(rq, d) < 0.0)
			goto team;
	for (int r = 0; r < rq->reps; r++) {
		samples_s[r] = one_pass(rq, d);
		if (samples_s[r] < 0.0)
			goto team;
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
	for (int i = 0; i < rq->ndev; i++)
		if (d[i].count)
			omp_target_free(d[i].count, d[i].id);
	free(d);
	return rc;
}
