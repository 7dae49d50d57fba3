/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the files of libnodebw-heat-omp.so: one device's share of the grid and the
 * kernel launcher. */
#ifndef NODEBW_HEAT_OMP_INTERNAL_H
#define NODEBW_HEAT_OMP_INTERNAL_H

#include <omp.h>
#include <stdbool.h>
#include <stddef.h>

/* The directions of a halo plane: DOWN goes to the device below (smaller k), UP above. */
enum { HALO_DOWN, HALO_UP };

/* One device's slab: local plane 0 and planes + 1 are ghosts (a neighbour's plane or the
 * Dirichlet boundary), planes 1 .. planes are updated. */
struct heat_dev {
	int id;                  /* OpenMP device number */
	bool gpu;                /* GPU kernel forms, else the host-plugin forms */
	int planes;              /* updated planes */
	int k_begin;             /* global plane of local plane 1 */
	size_t local_points;     /* (planes + 2) * nx * ny */
	double *u[2];            /* u[s & 1] is the old level of step s, u[(s + 1) & 1] the new */
	double *kappa, *rhs;
	bool send[2];            /* has a neighbour below / above */
	int int_lo, int_hi;      /* planes no neighbour needs: interior kernel (may be empty) */
	double *stage[2];        /* host staging plane per direction (Versions 1-3) */
	/* Dependence tokens: the boundary kernel writes tok[d], the copies of direction d
	 * are chained on dep[d] (inout on tok[d]). */
	int tok[2];
	int tok_interior;
	omp_depend_t dep[2];
	bool dep_made;
};

struct heat_geom {
	int nx, ny;
	size_t plane;            /* nx * ny */
	double factor;
};

enum heat_launch { LAUNCH_SYNC, LAUNCH_NOWAIT };

/* Update local planes k_lo .. k_hi of device d from level u[s & 1] into u[(s + 1) & 1].
 * LAUNCH_NOWAIT makes a deferred target task with depend(out: *ta, *tb). */
void heat_kernel(const struct heat_dev *d, const struct heat_geom *gm, int s, int k_lo,
		 int k_hi, enum heat_launch how, int *ta, int *tb);

/* The kernel forms, for the record. */
const char *heat_kernel_forms(bool gpu, bool nowait);

#endif
