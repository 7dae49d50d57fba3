/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the files of libnodebw-heat-omp.so: one device's share of the grid and the
 * kernel launcher. */
#ifndef NODEBW_HEAT_OMP_INTERNAL_H
#define NODEBW_HEAT_OMP_INTERNAL_H

#include <omp.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/heat.h"

/* The directions of a halo plane: DOWN goes to the device below (smaller k), UP above. */
enum { HALO_DOWN, HALO_UP };

/* One device's slab: local planes 0 .. R-1 and planes + R .. planes + 2R - 1 are ghosts (a
 * neighbour's planes or the Dirichlet boundary layer), planes R .. planes + R - 1 are
 * updated (R the stencil radius). */
struct heat_dev {
	int id;                  /* OpenMP device number */
	bool gpu;                /* GPU kernel forms, else the host-plugin forms */
	int planes;              /* updated planes */
	int k_begin;             /* global plane of local plane 1 */
	size_t local_points;     /* (planes + 2R) * nx * ny */
	double *u[NBW_HEAT_MAX_FIELDS][2]; /* per field: u[q][s & 1] is the old level of step
					    * s, u[q][(s + 1) & 1] the new */
	double *kappa, *rhs;
	bool send[2];            /* has a neighbour below / above */
	int int_lo, int_hi;      /* planes no neighbour needs: interior kernel (may be empty) */
	double *stage[2];        /* host staging planes (R) per direction (Versions 1-3); the
				  * fields' copies of one direction are chained, so they share it */
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
	int radius;              /* R: boundary layer and ghost depth */
	int nfields;             /* fields stepped together */
};

enum heat_launch { LAUNCH_SYNC, LAUNCH_NOWAIT };

/* Update local planes k_lo .. k_hi of field q of device d from level u[q][s & 1] into
 * u[q][(s + 1) & 1]. LAUNCH_NOWAIT makes a deferred target task with depend(out: *ta, *tb). */
void heat_kernel(const struct heat_dev *d, const struct heat_geom *gm, int q, int s, int k_lo,
		 int k_hi, enum heat_launch how, int *ta, int *tb);

/* The general version's kernels (heat/omp_box.c), on device \p dev (a GPU when \p gpu) with
 * local box dims L[3] (x, y, z): */
/* update the box [lo, hi) of field level uo into un, nowait depend(out: *tok) */
void heat_box_kernel(int dev, bool gpu, double *un, const double *uo, const double *kap,
		     const double *rhs, const int L[3], const int lo[3], const int hi[3],
		     double factor, int R, int *tok);
/* copy the box [lo, hi) of u into the contiguous buf (pack) or back (unpack), nowait
 * depend(inout: *tok) */
void heat_box_pack(int dev, bool gpu, double *u, double *buf, const int L[3], const int lo[3],
		   const int hi[3], bool unpack, int *tok);

/* The general version (heat/omp_general.c), as nbw_heat_omp_run. */
struct nbw_heat_omp_request;
struct nbw_heat_omp_result;
int heat_general_run(const struct nbw_heat_omp_request *rq, double *u_out,
		     struct nbw_heat_omp_result *res, char *err, size_t errlen);

/* The kernel forms, for the record. */
const char *heat_kernel_forms(bool gpu, bool nowait);

#endif
