/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The star-stencil update of the heat problem, shared by the serial reference (heat/serial.c)
 * and the offload kernels (heat/omp_kernels.c, heat/omp_box.c) so that both do the same
 * arithmetic in the same order. Both are compiled with -ffp-contract=off (no fused
 * multiply-add), so on a host-plugin device the offloaded result equals the reference bit
 * for bit.
 *
 * Radius 1 (7 points, the paper's update):
 *
 *   u_new[c] = u[c] + rhs[c] + factor * sum over the 6 neighbours nb of
 *              (kappa[nb] + kappa[c]) * (u[nb] - u[c])
 *
 * with the neighbours summed in the order i-1, i+1, j-1, j+1, k-1, k+1; sx = nx is the
 * distance to the next row, sp = nx * ny to the next plane.
 *
 * Radius R = 2..4 (13, 19, 25 points): the same form over the 6 R neighbours at distance
 * d = 1..R along each axis, the six terms of distance d summed as above into s_d and
 * weighted by w_d = 1 / d^2:
 *
 *   u_new[c] = u[c] + rhs[c] + factor * (s_1 + w_2 s_2 + ... + w_R s_R)
 *
 * (s_1 first, then each further distance in turn). The grid's dt keeps the update stable
 * for every R (heat/problem.c: dt = h^2 / (12 W_R kappa_max), W_R = w_1 + ... + w_R).
 */
#ifndef NODEBW_HEAT_STENCIL_H
#define NODEBW_HEAT_STENCIL_H

static inline void nbw_heat_point(double *restrict un, const double *restrict uo,
				  const double *restrict kap, const double *restrict rhs, long c,
				  long sx, long sp, double factor)
{
	const double uc = uo[c], kc = kap[c];
	const double s = (kap[c - 1] + kc) * (uo[c - 1] - uc) + (kap[c + 1] + kc) * (uo[c + 1] - uc) +
			 (kap[c - sx] + kc) * (uo[c - sx] - uc) +
			 (kap[c + sx] + kc) * (uo[c + sx] - uc) +
			 (kap[c - sp] + kc) * (uo[c - sp] - uc) + (kap[c + sp] + kc) * (uo[c + sp] - uc);
	un[c] = uc + rhs[c] + factor * s;
}

/* The six terms at distance d (d = 1 gives the 7-point sum above). */
static inline double nbw_heat_ring(const double *restrict uo, const double *restrict kap,
				   long c, long d, long sx, long sp, double uc, double kc)
{
	const long dx = d, dy = d * sx, dz = d * sp;
	return (kap[c - dx] + kc) * (uo[c - dx] - uc) + (kap[c + dx] + kc) * (uo[c + dx] - uc) +
	       (kap[c - dy] + kc) * (uo[c - dy] - uc) + (kap[c + dy] + kc) * (uo[c + dy] - uc) +
	       (kap[c - dz] + kc) * (uo[c - dz] - uc) + (kap[c + dz] + kc) * (uo[c + dz] - uc);
}

/* The weight of the distance-d terms: 1 / d^2. */
static inline double nbw_heat_weight(int d)
{
	return 1.0 / (double)(d * d);
}

/* The update of radius R (1..4) at point c. */
static inline void nbw_heat_point_r(double *restrict un, const double *restrict uo,
				    const double *restrict kap, const double *restrict rhs, long c,
				    long sx, long sp, double factor, int R)
{
	if (R == 1) {
		nbw_heat_point(un, uo, kap, rhs, c, sx, sp, factor);
		return;
	}
	const double uc = uo[c], kc = kap[c];
	double s = nbw_heat_ring(uo, kap, c, 1, sx, sp, uc, kc);
	for (int d = 2; d <= R; d++)
		s = s + nbw_heat_weight(d) * nbw_heat_ring(uo, kap, c, d, sx, sp, uc, kc);
	un[c] = uc + rhs[c] + factor * s;
}

/* One row: the n points c0 .. c0 + n - 1 (contiguous, so the loop vectorises); the radius
 * is a constant in each branch so that each form is compiled on its own. */
static inline void nbw_heat_row_r(double *restrict un, const double *restrict uo,
				  const double *restrict kap, const double *restrict rhs, long c0,
				  int n, long sx, long sp, double factor, int R)
{
	switch (R) {
	case 2:
		for (int i = 0; i < n; i++)
			nbw_heat_point_r(un, uo, kap, rhs, c0 + i, sx, sp, factor, 2);
		break;
	case 3:
		for (int i = 0; i < n; i++)
			nbw_heat_point_r(un, uo, kap, rhs, c0 + i, sx, sp, factor, 3);
		break;
	case 4:
		for (int i = 0; i < n; i++)
			nbw_heat_point_r(un, uo, kap, rhs, c0 + i, sx, sp, factor, 4);
		break;
	default:
		for (int i = 0; i < n; i++)
			nbw_heat_point(un, uo, kap, rhs, c0 + i, sx, sp, factor);
		break;
	}
}

/* The radius-1 row (kept under its name for the callers of the 7-point form). */
static inline void nbw_heat_row(double *restrict un, const double *restrict uo,
				const double *restrict kap, const double *restrict rhs, long c0,
				int n, long sx, long sp, double factor)
{
	for (int i = 0; i < n; i++)
		nbw_heat_point(un, uo, kap, rhs, c0 + i, sx, sp, factor);
}

/* Planes k_lo .. k_hi (inclusive, local numbering) of an array of nx * ny planes, the rows
 * and points R .. n - 1 - R of each (the boundary layer of depth R left alone). */
static inline void nbw_heat_planes(double *restrict un, const double *restrict uo,
				   const double *restrict kap, const double *restrict rhs, int nx,
				   int ny, int k_lo, int k_hi, double factor, int R)
{
	const long sx = nx, sp = (long)nx * ny;
	for (int k = k_lo; k <= k_hi; k++)
		for (int j = R; j < ny - R; j++)
			nbw_heat_row_r(un, uo, kap, rhs, k * sp + j * sx + R, nx - 2 * R, sx, sp,
				       factor, R);
}

/* A box of points [x0, x1) x [y0, y1) x [z0, z1) (local numbering) of an array of
 * nx x ny x nz points. */
static inline void nbw_heat_box(double *restrict un, const double *restrict uo,
				const double *restrict kap, const double *restrict rhs, int nx,
				int ny, const int lo[3], const int hi[3], double factor, int R)
{
	const long sx = nx, sp = (long)nx * ny;
	for (int k = lo[2]; k < hi[2]; k++)
		for (int j = lo[1]; j < hi[1]; j++)
			nbw_heat_row_r(un, uo, kap, rhs, k * sp + j * sx + lo[0], hi[0] - lo[0], sx,
				       sp, factor, R);
}

#endif
