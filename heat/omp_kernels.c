/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The offload kernels of the heat solver and the memory-bandwidth (STREAM triad) kernel.
 *
 * Three forms of the same update (heat/stencil.h):
 *   GPU devices      target teams distribute parallel for collapse(3): one point per
 *                    iteration, neighbouring threads on neighbouring i (coalesced);
 *   host plugin,     target teams distribute parallel for collapse(2) over (k, j) with the
 *   synchronous      contiguous i row inside, so the plugin's OpenMP threads share the rows
 *                    and each row vectorises;
 *   host plugin,     target nowait with plain loops. A deferred target task runs on a
 *   nowait           hidden helper thread, where a nested parallel region would be
 *                    serialised anyway, and LLVM 19's libomp aborts ("Assertion failure at
 *                    kmp_tasking.cpp(4368): task_team != __null") when a teams or parallel
 *                    construct runs inside such a task on the host plugin: so the deferred
 *                    kernels of Versions 1-4 are one helper thread each, and devices run in
 *                    parallel with each other.
 * Built with -ffp-contract=off, like the serial reference.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "heat_omp.h"
#include "omp_internal.h"
#include "stencil.h"

const char *heat_kernel_forms(bool gpu, bool nowait)
{
	if (gpu)
		return nowait ? "target teams distribute parallel for collapse(3) nowait depend(out)"
			      : "target teams distribute parallel for collapse(3)";
	return nowait ? "host plugin: target nowait depend(out), serial (k, j) loops with a "
			"contiguous i row (one hidden helper thread per kernel)"
		      : "host plugin: target teams distribute parallel for collapse(2) over (k, j), "
			"contiguous i row";
}

void heat_kernel(const struct heat_dev *d, const struct heat_geom *gm, int q, int s, int k_lo,
		 int k_hi, enum heat_launch how, int *ta, int *tb)
{
	if (k_lo > k_hi)
		return;
	double *un = d->u[q][(s + 1) & 1];
	const double *uo = d->u[q][s & 1];
	const double *kap = d->kappa, *rhs = d->rhs;
	const int nx = gm->nx, ny = gm->ny, dev = d->id, R = gm->radius;
	const long sx = nx, sp = (long)gm->plane;
	const double factor = gm->factor;

	if (d->gpu && how == LAUNCH_SYNC) {
#pragma omp target teams distribute parallel for collapse(3) device(dev) \
	is_device_ptr(un, uo, kap, rhs)
		for (int k = k_lo; k <= k_hi; k++)
			for (int j = R; j < ny - R; j++)
				for (int i = R; i < nx - R; i++)
					nbw_heat_point_r(un, uo, kap, rhs, k * sp + j * sx + i, sx,
							 sp, factor, R);
	} else if (d->gpu) {
#pragma omp target teams distribute parallel for collapse(3) device(dev) \
	is_device_ptr(un, uo, kap, rhs) nowait depend(out : ta[0], tb[0])
		for (int k = k_lo; k <= k_hi; k++)
			for (int j = R; j < ny - R; j++)
				for (int i = R; i < nx - R; i++)
					nbw_heat_point_r(un, uo, kap, rhs, k * sp + j * sx + i, sx,
							 sp, factor, R);
	} else if (how == LAUNCH_SYNC) {
#pragma omp target teams distribute parallel for collapse(2) device(dev) \
	is_device_ptr(un, uo, kap, rhs)
		for (int k = k_lo; k <= k_hi; k++)
			for (int j = R; j < ny - R; j++)
				nbw_heat_row_r(un, uo, kap, rhs, k * sp + j * sx + R, nx - 2 * R, sx,
					       sp, factor, R);
	} else {
#pragma omp target device(dev) is_device_ptr(un, uo, kap, rhs) nowait depend(out : ta[0], tb[0])
		nbw_heat_planes(un, uo, kap, rhs, nx, ny, k_lo, k_hi, factor, R);
	}
}

/* ---- memory bandwidth ---------------------------------------------------------------- */

static double triad_host(double *a, const double *b, const double *c, size_t n, double q)
{
	double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] + q * c[i];
	return omp_get_wtime() - t0;
}

static double triad_device(int dev, double *a, const double *b, const double *c, size_t n,
			   double q)
{
	double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c)
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] + q * c[i];
	return omp_get_wtime() - t0;
}

int nbw_heat_omp_triad(int device, size_t n, int passes, double *gbps, int *threads,
		       char *err, size_t errlen)
{
	double *v[3] = { NULL, NULL, NULL };
	const size_t bytes = n * sizeof(double);
	int rc = -1;
	for (int i = 0; i < 3; i++) {
		if (device < 0) {
			if (posix_memalign((void **)&v[i], 4096, bytes))
				v[i] = NULL;
		} else {
			v[i] = omp_target_alloc(bytes, device);
		}
		if (!v[i]) {
			snprintf(err, errlen, "cannot allocate 3 x %zu bytes for the bandwidth kernel",
				 bytes);
			goto out;
		}
	}
	double *a = v[0], *b = v[1], *c = v[2];
	if (device < 0) {
		/* First touch by the threads that stream later. */
#pragma omp parallel for schedule(static)
		for (size_t i = 0; i < n; i++) {
			a[i] = 0.0;
			b[i] = 1.0;
			c[i] = 2.0;
		}
		*threads = omp_get_max_threads();
	} else {
#pragma omp target teams distribute parallel for device(device) is_device_ptr(a, b, c)
		for (size_t i = 0; i < n; i++) {
			a[i] = 0.0;
			b[i] = 1.0;
			c[i] = 2.0;
		}
		*threads = 0;
	}
	double best = 0.0;
	for (int p = 0; p < passes + 1; p++) {
		double t = device < 0 ? triad_host(a, b, c, n, 3.0)
				      : triad_device(device, a, b, c, n, 3.0);
		if (p == 0 || t <= 0.0)
			continue; /* the first pass is a warm-up */
		double r = 3.0 * (double)bytes / t / 1e9;
		if (r > best)
			best = r;
	}
	*gbps = best;
	rc = 0;
out:
	for (int i = 0; i < 3; i++) {
		if (!v[i])
			continue;
		if (device < 0)
			free(v[i]);
		else
			omp_target_free(v[i], device);
	}
	return rc;
}
