/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The 7-point update of the heat problem, shared by the serial reference (heat/serial.c)
 * and the offload kernels (heat/omp_kernels.c) so that both do the same arithmetic in the
 * same order. Both are compiled with -ffp-contract=off (no fused multiply-add), so on a
 * host-plugin device the offloaded result equals the reference bit for bit.
 *
 *   u_new[c] = u[c] + rhs[c] + factor * sum over the 6 neighbours nb of
 *              (kappa[nb] + kappa[c]) * (u[nb] - u[c])
 *
 * with the neighbours summed in the order i-1, i+1, j-1, j+1, k-1, k+1; sx = nx is the
 * distance to the next row, sp = nx * ny to the next plane.
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

/* One row: the n points c0 .. c0 + n - 1 (contiguous, so the loop vectorises). */
static inline void nbw_heat_row(double *restrict un, const double *restrict uo,
				const double *restrict kap, const double *restrict rhs, long c0,
				int n, long sx, long sp, double factor)
{
	for (int i = 0; i < n; i++)
		nbw_heat_point(un, uo, kap, rhs, c0 + i, sx, sp, factor);
}

/* Planes k_lo .. k_hi (inclusive, local numbering) of an array of nx * ny planes. */
static inline void nbw_heat_planes(double *restrict un, const double *restrict uo,
				   const double *restrict kap, const double *restrict rhs, int nx,
				   int ny, int k_lo, int k_hi, double factor)
{
	const long sx = nx, sp = (long)nx * ny;
	for (int k = k_lo; k <= k_hi; k++)
		for (int j = 1; j < ny - 1; j++)
			nbw_heat_row(un, uo, kap, rhs, k * sp + j * sx + 1, nx - 2, sx, sp, factor);
}

#endif
