/* SPDX-License-Identifier: BSD-3-Clause */
/* The decomposition of the heat grid over a PX x PY x PZ grid of devices (the general
 * version), and the bytes its face copies move per step. */
#include <stdio.h>
#include <string.h>

#include "nodebw/heat.h"

static const char axis_name[3] = { 'x', 'y', 'z' };

/* The grid as an application description: the box rule is nbw_app_local_box's. */
static void as_app(const struct nbw_heat_grid *g, struct nbw_app *a)
{
	memset(a, 0, sizeof(*a));
	a->grid[0] = g->nx;
	a->grid[1] = g->ny;
	a->grid[2] = g->nz;
	a->radius = g->radius > 0 ? g->radius : 1;
	a->fields = 1;
}

int nbw_heat_decompose(const struct nbw_heat_grid *g, const int decomp[3],
		       struct nbw_heat_sub *out, char *err, size_t errlen)
{
	const int n[3] = { g->nx, g->ny, g->nz };
	struct nbw_app a;
	as_app(g, &a);
	const int R = (int)a.radius;
	if (!nbw_app_decomp_fits(&a, decomp)) {
		for (int x = 0; x < 3; x++) {
			int inner = n[x] - 2 * R;
			if (decomp[x] < 1)
				snprintf(err, errlen,
					 "decomposition %dx%dx%d: every factor must be 1 or more",
					 decomp[0], decomp[1], decomp[2]);
			else if (decomp[x] > 1 && inner / decomp[x] < R)
				snprintf(err, errlen,
					 "grid %dx%dx%d has %d interior points along %c: %d devices "
					 "need at least %d each (the radius %d)",
					 g->nx, g->ny, g->nz, inner, axis_name[x], decomp[x], R, R);
			else
				continue;
			return -1;
		}
		snprintf(err, errlen, "grid %dx%dx%d cannot be split %dx%dx%d", g->nx, g->ny, g->nz,
			 decomp[0], decomp[1], decomp[2]);
		return -1;
	}
	const int G = decomp[0] * decomp[1] * decomp[2];
	for (int d = 0; d < G; d++) {
		struct nbw_heat_sub *s = &out[d];
		s->idx[0] = d % decomp[0];
		s->idx[1] = (d / decomp[0]) % decomp[1];
		s->idx[2] = d / (decomp[0] * decomp[1]);
		long interior[3], box[3];
		nbw_app_local_box(&a, decomp, s->idx, interior, box);
		for (int x = 0; x < 3; x++) {
			s->count[x] = (int)interior[x];
			/* the devices before it along x hold the points before it */
			int begin = R;
			for (int i = 0; i < s->idx[x]; i++) {
				int prev[3] = { s->idx[0], s->idx[1], s->idx[2] };
				prev[x] = i;
				long pi[3], pb[3];
				nbw_app_local_box(&a, decomp, prev, pi, pb);
				begin += (int)pi[x];
			}
			s->begin[x] = begin;
		}
	}
	return 0;
}

uint64_t nbw_heat_halo_bytes(const struct nbw_heat_grid *g, const int decomp[3],
			     const struct nbw_heat_sub *subs, int nfields)
{
	const int R = g->radius > 0 ? g->radius : 1;
	const int G = decomp[0] * decomp[1] * decomp[2];
	uint64_t points = 0;
	for (int d = 0; d < G; d++)
		for (int a = 0; a < 3; a++) {
			/* The face across axis a: R layers by the box's interior on the other two
			 * axes, sent to each neighbour along a. */
			uint64_t face = (uint64_t)R;
			for (int b = 0; b < 3; b++)
				if (b != a)
					face *= (uint64_t)subs[d].count[b];
			int nb = (subs[d].idx[a] > 0) + (subs[d].idx[a] < decomp[a] - 1);
			points += face * (uint64_t)nb;
		}
	return points * (uint64_t)nfields * sizeof(double);
}

void nbw_heat_subs_of_slabs(const struct nbw_heat_grid *g, int ndev,
			    const struct nbw_heat_slab *slabs, struct nbw_heat_sub *out)
{
	const int R = g->radius > 0 ? g->radius : 1;
	for (int d = 0; d < ndev; d++) {
		struct nbw_heat_sub *s = &out[d];
		memset(s, 0, sizeof(*s));
		s->idx[2] = d;
		s->begin[0] = s->begin[1] = R;
		s->begin[2] = slabs[d].k_begin;
		s->count[0] = g->nx - 2 * R;
		s->count[1] = g->ny - 2 * R;
		s->count[2] = slabs[d].k_end - slabs[d].k_begin;
	}
}
