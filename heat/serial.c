/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU reference ("serial": no offload): the same update (heat/stencil.h) in plain host
 * loops, its rows shared by host OpenMP threads; compiled with -ffp-contract=off like the
 * kernels. Every point is computed by exactly the same operations whichever thread does
 * it and however many there are, so the result is bit-identical for any thread count.
 * Also the verification rule and the symmetry check. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nodebw/heat.h"
#include "stencil.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int nbw_heat_serial_threads(int threads)
{
	if (threads > 0)
		return threads;
	int n = omp_get_max_threads();
	return n > 0 ? n : 1;
}

double nbw_heat_serial(const struct nbw_heat_grid *g, const struct nbw_heat_fields *f,
		       int steps, int threads, double *u)
{
	const int nx = g->nx, ny = g->ny, nz = g->nz;
	const long sx = nx, sp = (long)nx * ny;
	const size_t n = nbw_heat_grid_points(g);
	const int nth = nbw_heat_serial_threads(threads);
	double *other = malloc(n * sizeof(double));
	if (!other)
		return -1.0;
	/* Both levels start as u0 (the second level needs its boundary values). Copied plane
	 * by plane under the partition of the step loop, so that on a NUMA host each thread
	 * first touches about the planes it updates. */
#pragma omp parallel for num_threads(nth) schedule(static)
	for (int k = 0; k < nz; k++) {
		memcpy(u + k * sp, f->u0 + k * sp, (size_t)sp * sizeof(double));
		memcpy(other + k * sp, f->u0 + k * sp, (size_t)sp * sizeof(double));
	}
	double *lv[2] = { u, other };
	const double *kap = f->kappa, *rhs = f->rhs;
	const double factor = g->factor;
	const int R = g->radius > 0 ? g->radius : 1;
	double t0 = now_s();
	/* One team for all steps; the implicit barrier of each step's loop keeps the levels
	 * apart. Rows (k, j), each a contiguous i row that vectorises, are dealt statically. */
#pragma omp parallel num_threads(nth)
	for (int s = 0; s < steps; s++) {
		double *un = lv[(s + 1) & 1];
		const double *uo = lv[s & 1];
#pragma omp for collapse(2) schedule(static)
		for (int k = R; k < nz - R; k++)
			for (int j = R; j < ny - R; j++)
				nbw_heat_row_r(un, uo, kap, rhs, k * sp + j * sx + R, nx - 2 * R, sx,
					       sp, factor, R);
	}
	double t = now_s() - t0;
	if (steps & 1) {
#pragma omp parallel for num_threads(nth) schedule(static)
		for (int k = 0; k < nz; k++)
			memcpy(u + k * sp, other + k * sp, (size_t)sp * sizeof(double));
	}
	free(other);
	return t;
}

double nbw_heat_serial_fields(const struct nbw_heat_grid *g, const struct nbw_heat_fields *f,
			      int steps, int threads, double *u)
{
	const size_t n = nbw_heat_grid_points(g);
	const int nf = f->nfields > 0 ? f->nfields : 1;
	double total = 0.0;
	for (int q = 0; q < nf; q++) {
		struct nbw_heat_fields one = { f->u0 + (size_t)q * n, f->kappa, f->rhs, 1 };
		double t = nbw_heat_serial(g, &one, steps, threads, u + (size_t)q * n);
		if (t < 0.0)
			return -1.0;
		total += t;
	}
	return total;
}

int nbw_heat_slab_reference(const struct nbw_heat_grid *g, const struct nbw_heat_fields *f,
			    const struct nbw_heat_slab *slabs, int ndev, int steps, int threads,
			    double *ref)
{
	size_t plane = (size_t)g->nx * (size_t)g->ny, n = nbw_heat_grid_points(g);
	const int R = g->radius > 0 ? g->radius : 1;
	const int nf = f->nfields > 0 ? f->nfields : 1;
	memcpy(ref, f->u0, (size_t)nf * n * sizeof(double));
	for (int q = 0; q < nf; q++)
		for (int d = 0; d < ndev; d++) {
			/* The slab with its ghost layers as a box of its own: same h, dt, factor. */
			struct nbw_heat_grid sg = *g;
			sg.nz = slabs[d].k_end - slabs[d].k_begin + 2 * R;
			size_t off = (size_t)(slabs[d].k_begin - R) * plane;
			struct nbw_heat_fields sf = { f->u0 + (size_t)q * n + off, f->kappa + off,
						      f->rhs + off, 1 };
			double *box = malloc(nbw_heat_grid_points(&sg) * sizeof(double));
			if (!box || nbw_heat_serial(&sg, &sf, steps, threads, box) < 0.0) {
				free(box);
				return -1;
			}
			memcpy(ref + (size_t)q * n + off + (size_t)R * plane, box + (size_t)R * plane,
			       (size_t)(sg.nz - 2 * R) * plane * sizeof(double));
			free(box);
		}
	return 0;
}

void nbw_heat_verify(const double *u, const double *ref, size_t n, struct nbw_heat_check *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		double d = fabs(u[i] - ref[i]);
		if (!isfinite(u[i])) {
			out->nonfinite++;
			d = INFINITY;
		}
		if (d > out->max_abs_diff)
			out->max_abs_diff = d;
		/* written so that a NaN difference fails too */
		if (!(d <= NBW_HEAT_ATOL + NBW_HEAT_RTOL * fabs(ref[i]))) {
			if (out->bad++ == 0)
				out->first_bad = i;
		}
	}
	out->passed = out->bad == 0 && out->nonfinite == 0;
}

double nbw_heat_symmetry_error(const struct nbw_heat_grid *g, const double *u)
{
	const int nx = g->nx, ny = g->ny, nz = g->nz;
	if (nx != ny || ny != nz)
		return -1.0; /* the box is symmetric only when it is the unit cube */
	double worst = 0.0;
#define AT(i, j, k) u[((size_t)(k) * ny + (j)) * nx + (i)]
	for (int k = 0; k < nz; k++)
		for (int j = 0; j < ny; j++)
			for (int i = 0; i < nx; i++) {
				double v = AT(i, j, k), e;
				/* two axes reflected at once: f = 1 + cos cos cos keeps its sign */
				e = fabs(v - AT(nx - 1 - i, ny - 1 - j, k));
				worst = e > worst ? e : worst;
				e = fabs(v - AT(i, ny - 1 - j, nz - 1 - k));
				worst = e > worst ? e : worst;
				e = fabs(v - AT(j, i, k)); /* x and y swapped */
				worst = e > worst ? e : worst;
				e = fabs(v - AT(i, k, j)); /* y and z swapped */
				worst = e > worst ? e : worst;
			}
#undef AT
	return worst;
}
