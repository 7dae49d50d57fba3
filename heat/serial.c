/* SPDX-License-Identifier: BSD-3-Clause */
/* The serial CPU reference: the same update (heat/stencil.h) on one host thread, no
 * offload; compiled with -ffp-contract=off like the kernels. Also the verification rule
 * and the symmetry check. */
#include <math.h>
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

double nbw_heat_serial(const struct nbw_heat_grid *g, const struct nbw_heat_fields *f,
		       int steps, double *u)
{
	size_t n = nbw_heat_grid_points(g);
	double *other = malloc(n * sizeof(double));
	if (!other)
		return -1.0;
	memcpy(u, f->u0, n * sizeof(double));
	memcpy(other, f->u0, n * sizeof(double)); /* boundary values of the second level */
	double *lv[2] = { u, other };
	double t0 = now_s();
	for (int s = 0; s < steps; s++)
		nbw_heat_planes(lv[(s + 1) & 1], lv[s & 1], f->kappa, f->rhs, g->nx, g->ny, 1,
				g->nz - 2, g->factor);
	double t = now_s() - t0;
	if (steps & 1)
		memcpy(u, other, n * sizeof(double));
	free(other);
	return t;
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
