/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The general version's kernels (heat/omp_general.c): the stencil update of a box of a
 * device's local array, and the pack and unpack of a face box into a contiguous buffer. All
 * are deferred target tasks (nowait) ordered by a dependence token. Kernel forms as for
 * Versions 1-4 (heat/omp_kernels.c): on GPUs target teams distribute parallel for
 * collapse(3); on host-plugin devices a plain target nowait region, because LLVM 19's libomp
 * aborts when a teams or parallel construct runs inside a hidden-helper target task there.
 * Built with -ffp-contract=off, like the serial reference.
 */
#include <omp.h>

#include "heat_omp.h"
#include "omp_internal.h"
#include "stencil.h"

void heat_box_kernel(int dev, bool gpu, double *un, const double *uo, const double *kap,
		     const double *rhs, const int L[3], const int lo[3], const int hi[3],
		     double factor, int R, int *tok)
{
	const int x0 = lo[0], x1 = hi[0], y0 = lo[1], y1 = hi[1], z0 = lo[2], z1 = hi[2];
	if (x0 >= x1 || y0 >= y1 || z0 >= z1)
		return;
	const int lx = L[0], ly = L[1];
	const long sx = lx, sp = (long)lx * ly;
	if (gpu) {
#pragma omp target teams distribute parallel for collapse(3) device(dev) \
	is_device_ptr(un, uo, kap, rhs) nowait depend(out : tok[0])
		for (int k = z0; k < z1; k++)
			for (int j = y0; j < y1; j++)
				for (int i = x0; i < x1; i++)
					nbw_heat_point_r(un, uo, kap, rhs, k * sp + j * sx + i, sx,
							 sp, factor, R);
	} else {
#pragma omp target device(dev) is_device_ptr(un, uo, kap, rhs) nowait depend(out : tok[0])
		{
			const int blo[3] = { x0, y0, z0 }, bhi[3] = { x1, y1, z1 };
			nbw_heat_box(un, uo, kap, rhs, lx, ly, blo, bhi, factor, R);
		}
	}
}

void heat_box_pack(int dev, bool gpu, double *u, double *buf, const int L[3], const int lo[3],
		   const int hi[3], bool unpack, int *tok)
{
	const int x0 = lo[0], y0 = lo[1], z0 = lo[2];
	const int nx = hi[0] - lo[0], ny = hi[1] - lo[1], nz = hi[2] - lo[2];
	const long sx = L[0], sp = (long)L[0] * L[1];
	if (nx <= 0 || ny <= 0 || nz <= 0)
		return;
	if (gpu && unpack) {
#pragma omp target teams distribute parallel for collapse(3) device(dev) is_device_ptr(u, buf) \
	nowait depend(inout : tok[0])
		for (int k = 0; k < nz; k++)
			for (int j = 0; j < ny; j++)
				for (int i = 0; i < nx; i++)
					u[(k + z0) * sp + (j + y0) * sx + i + x0] =
						buf[((long)k * ny + j) * nx + i];
	} else if (gpu) {
#pragma omp target teams distribute parallel for collapse(3) device(dev) is_device_ptr(u, buf) \
	nowait depend(inout : tok[0])
		for (int k = 0; k < nz; k++)
			for (int j = 0; j < ny; j++)
				for (int i = 0; i < nx; i++)
					buf[((long)k * ny + j) * nx + i] =
						u[(k + z0) * sp + (j + y0) * sx + i + x0];
	} else {
#pragma omp target device(dev) is_device_ptr(u, buf) nowait depend(inout : tok[0])
		for (int k = 0; k < nz; k++)
			for (int j = 0; j < ny; j++) {
				double *row = u + (k + z0) * sp + (j + y0) * sx + x0;
				double *packed = buf + ((long)k * ny + j) * nx;
				for (int i = 0; i < nx; i++) {
					if (unpack)
						row[i] = packed[i];
					else
						packed[i] = row[i];
				}
			}
	}
}
