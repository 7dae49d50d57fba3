/* SPDX-License-Identifier: BSD-3-Clause */
/* The heat problem of the seed paper: grid constants, initial fields, the split along k,
 * and the names of the variants. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nodebw/heat.h"

#define KAPPA_MAX 0.95

static const char *const names[NBW_HEAT_VERSION_COUNT] = {
	"serial", "baseline", "v1", "v2", "v3", "v4", "general",
};

static const char *const labels[NBW_HEAT_VERSION_COUNT] = {
	"serial CPU reference (plain host loops on host threads, no offload)",
	"OpenMP offload 1-device baseline",
	"Version 1: one host thread, host-staged halo, blocking omp_target_memcpy",
	"Version 2: one host thread, host-staged halo, omp_target_memcpy_async chained by depobj",
	"Version 3: one host thread per device, host-staged halo, asynchronous",
	"Version 4: one host thread per device, device-to-device halo, asynchronous",
	("general: one host thread per device, devices in a PX x PY x PZ grid, faces by "
	 "rectangular copies or pack/unpack, host-staged or device to device"),
};

const char *nbw_heat_version_name(enum nbw_heat_version v)
{
	return v >= 0 && v < NBW_HEAT_VERSION_COUNT ? names[v] : "unknown";
}

const char *nbw_heat_version_label(enum nbw_heat_version v)
{
	return v >= 0 && v < NBW_HEAT_VERSION_COUNT ? labels[v] : "unknown";
}

int nbw_heat_version_parse(const char *s)
{
	for (int v = 0; v < NBW_HEAT_VERSION_COUNT; v++)
		if (strcasecmp(s, names[v]) == 0)
			return v;
	/* "1" .. "4" and "version1" .. "version4" name the paper's versions too. */
	const char *d = strncasecmp(s, "version", 7) == 0 ? s + 7 : s;
	if (d[0] >= '1' && d[0] <= '4' && d[1] == '\0')
		return NBW_HEAT_V1 + (d[0] - '1');
	return -1;
}

bool nbw_heat_version_fits(enum nbw_heat_version v, int g)
{
	switch (v) {
	case NBW_HEAT_SERIAL:
		return g == 0;
	case NBW_HEAT_BASELINE:
		return g == 1;
	default:
		return g >= 2;
	}
}

double nbw_heat_weight_sum(int radius)
{
	double w = 0.0;
	for (int d = 1; d <= radius; d++)
		w += 1.0 / (double)(d * d);
	return w;
}

int nbw_heat_grid_init(struct nbw_heat_grid *g, int nx, int ny, int nz, char *err,
		       size_t errlen)
{
	return nbw_heat_grid_init_r(g, nx, ny, nz, 1, err, errlen);
}

int nbw_heat_grid_init_r(struct nbw_heat_grid *g, int nx, int ny, int nz, int radius,
			 char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	if (radius < 1 || radius > NBW_HEAT_MAX_RADIUS) {
		snprintf(err, errlen, "stencil radius %d: 1 to %d", radius, NBW_HEAT_MAX_RADIUS);
		return -1;
	}
	int least = 2 * radius + 1;
	if (nx < least || ny < least || nz < least) {
		snprintf(err, errlen, "grid %dx%dx%d: every side needs at least %d points%s", nx,
			 ny, nz, least, radius > 1 ? " (2 radius + 1)" : "");
		return -1;
	}
	int n = nx > ny ? nx : ny;
	n = n > nz ? n : nz;
	g->nx = nx;
	g->ny = ny;
	g->nz = nz;
	g->h = 1.0 / (double)(n - 1);
	g->radius = radius;
	/* 12 W_R kappa_max keeps the largest update coefficient at 1/2 for every radius
	 * (W_1 = 1: the paper's dt). */
	g->dt = g->h * g->h / (12.0 * nbw_heat_weight_sum(radius) * KAPPA_MAX);
	g->factor = g->dt / (2.0 * g->h * g->h);
	return 0;
}

size_t nbw_heat_grid_points(const struct nbw_heat_grid *g)
{
	return (size_t)g->nx * (size_t)g->ny * (size_t)g->nz;
}

uint64_t nbw_heat_interior_points(const struct nbw_heat_grid *g)
{
	const int r2 = 2 * (g->radius > 0 ? g->radius : 1);
	return (uint64_t)(g->nx - r2) * (uint64_t)(g->ny - r2) * (uint64_t)(g->nz - r2);
}

void nbw_heat_fields_free(struct nbw_heat_fields *f)
{
	free(f->u0);
	free(f->kappa);
	free(f->rhs);
	memset(f, 0, sizeof(*f));
}

int nbw_heat_fields_init(struct nbw_heat_fields *f, const struct nbw_heat_grid *g)
{
	return nbw_heat_fields_init_n(f, g, 1);
}

int nbw_heat_fields_init_n(struct nbw_heat_fields *f, const struct nbw_heat_grid *g,
			   int nfields)
{
	size_t n = nbw_heat_grid_points(g);
	const int R = g->radius > 0 ? g->radius : 1;
	memset(f, 0, sizeof(*f));
	if (nfields < 1 || nfields > NBW_HEAT_MAX_FIELDS)
		return -1;
	f->nfields = nfields;
	f->u0 = malloc((size_t)nfields * n * sizeof(double));
	f->kappa = malloc(n * sizeof(double));
	f->rhs = malloc(n * sizeof(double));
	double *sx = malloc((size_t)g->nx * sizeof(double));
	double *sy = malloc((size_t)g->ny * sizeof(double));
	double *sz = malloc((size_t)g->nz * sizeof(double));
	double *cx = malloc((size_t)g->nx * sizeof(double));
	double *cy = malloc((size_t)g->ny * sizeof(double));
	double *cz = malloc((size_t)g->nz * sizeof(double));
	int rc = -1;
	if (!f->u0 || !f->kappa || !f->rhs || !sx || !sy || !sz || !cx || !cy || !cz) {
		nbw_heat_fields_free(f);
		goto out;
	}
	/* sin and cos of pi x along each axis, point i at x = i h. */
	const int len[3] = { g->nx, g->ny, g->nz };
	double *s[3] = { sx, sy, sz }, *c[3] = { cx, cy, cz };
	for (int a = 0; a < 3; a++)
		for (int i = 0; i < len[a]; i++) {
			s[a][i] = sin(M_PI * i * g->h);
			c[a][i] = cos(M_PI * i * g->h);
		}
	for (int k = 0; k < g->nz; k++)
		for (int j = 0; j < g->ny; j++)
			for (int i = 0; i < g->nx; i++) {
				size_t p = ((size_t)k * g->ny + j) * g->nx + i;
				double sss = sx[i] * sy[j] * sz[k];
				bool edge = i < R || j < R || k < R || i >= g->nx - R ||
					    j >= g->ny - R || k >= g->nz - R;
				f->kappa[p] = 0.5 + 0.45 * sss;
				f->rhs[p] = g->dt * (1.0 + cx[i] * cy[j] * cz[k]);
				f->u0[p] = edge ? 0.0 : sss;
			}
	/* Field q starts as (1 + q/2) times field 0 (exactly field 0 for q = 0). */
	for (int q = 1; q < nfields; q++)
		for (size_t p = 0; p < n; p++)
			f->u0[(size_t)q * n + p] = (1.0 + 0.5 * q) * f->u0[p];
	rc = 0;
out:
	free(sx);
	free(sy);
	free(sz);
	free(cx);
	free(cy);
	free(cz);
	return rc;
}

int nbw_heat_split(const struct nbw_heat_grid *g, int ndev, struct nbw_heat_slab *out,
		   char *err, size_t errlen)
{
	const int R = g->radius > 0 ? g->radius : 1;
	int planes = g->nz - 2 * R;
	if (ndev < 1 || planes < ndev * R) {
		if (R == 1)
			snprintf(err, errlen,
				 "grid %dx%dx%d has %d interior planes along z, fewer than the %d "
				 "devices (every device needs at least one plane)",
				 g->nx, g->ny, g->nz, planes, ndev);
		else
			snprintf(err, errlen,
				 "grid %dx%dx%d has %d interior planes along z: %d devices need at "
				 "least %d each (the radius %d)",
				 g->nx, g->ny, g->nz, planes, ndev, R, R);
		return -1;
	}
	int base = planes / ndev, extra = planes % ndev, k = R;
	for (int d = 0; d < ndev; d++) {
		int m = base + (d < extra ? 1 : 0);
		out[d].k_begin = k;
		out[d].k_end = k + m;
		k += m;
	}
	return 0;
}
