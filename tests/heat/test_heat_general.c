/* SPDX-License-Identifier: BSD-3-Clause */
/* The generalised solver against the serial reference, in process, on the devices
 * libomptarget offers (the four host-plugin devices on CI): every radius 1-4 with 1-3 fields
 * on the baseline and Versions 1-4; the general version on the decompositions 1x1x4, 2x2x1,
 * 2x1x2, 4x1x1 and 1x2x2 with rect and pack copies, host-staged and device to device, overlap
 * on and off, and radius 3 and 4 on two of them. On host-plugin devices the result equals the
 * reference bit for bit. A control shows the check would see a missing exchange. Small grids,
 * few steps: a few seconds on 2 cores. Skips without four offload devices. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "heat_omp.h"
#include "nodebw/backends.h"
#include "nodebw/heat.h"

static int ndev;
static bool gpu[NBW_HEAT_MAX_DEVICES];
static bool all_host_plugin = true;

static int setup(void **state)
{
	(void)state;
	const struct nbw_backend_ops *ops = nbw_backend_find("omp");
	struct nbw_backend *be = NULL;
	char why[256];
	if (!ops || ops->open(&be, NULL, why, sizeof(why)))
		return 0;
	ndev = ops->device_count(be);
	if (ndev > NBW_HEAT_MAX_DEVICES)
		ndev = NBW_HEAT_MAX_DEVICES;
	for (int d = 0; d < ndev; d++) {
		struct nbw_device info;
		ops->device_info(be, d, &info);
		gpu[d] = info.is_gpu;
		all_host_plugin &= strcmp(info.kind, "host-plugin") == 0;
	}
	ops->close(be);
	return 0;
}

struct problem {
	struct nbw_heat_grid g;
	struct nbw_heat_fields f;
	double *ref, *u;
	size_t n;          /* points of every field */
	int steps;
};

static void problem_make(struct problem *p, int nx, int ny, int nz, int R, int F, int steps)
{
	char err[256];
	assert_int_equal(nbw_heat_grid_init_r(&p->g, nx, ny, nz, R, err, sizeof(err)), 0);
	assert_int_equal(nbw_heat_fields_init_n(&p->f, &p->g, F), 0);
	p->n = nbw_heat_grid_points(&p->g) * (size_t)F;
	p->ref = malloc(p->n * sizeof(double));
	p->u = malloc(p->n * sizeof(double));
	assert_non_null(p->ref);
	assert_non_null(p->u);
	p->steps = steps;
	assert_true(nbw_heat_serial_fields(&p->g, &p->f, steps, 0, p->ref) >= 0.0);
}

static void problem_free(struct problem *p)
{
	nbw_heat_fields_free(&p->f);
	free(p->ref);
	free(p->u);
}

static void require_devices(int want)
{
	if (ndev < want) {
		print_message("only %d offload devices: skipped\n", ndev);
		skip();
	}
}

struct config {
	enum nbw_heat_version v;
	int G;
	int decomp[3];
	enum nbw_app_copy copy;
	enum nbw_app_exchange exchange;
	bool overlap;
};

static void run_check(struct problem *p, const struct config *c)
{
	struct nbw_heat_slab slabs[NBW_HEAT_MAX_DEVICES];
	struct nbw_heat_sub subs[NBW_HEAT_MAX_DEVICES];
	int devs[NBW_HEAT_MAX_DEVICES];
	bool g_gpu[NBW_HEAT_MAX_DEVICES];
	char err[256] = "";
	if (c->v == NBW_HEAT_GENERAL)
		assert_int_equal(nbw_heat_decompose(&p->g, c->decomp, subs, err, sizeof(err)), 0);
	else
		assert_int_equal(nbw_heat_split(&p->g, c->G, slabs, err, sizeof(err)), 0);
	for (int i = 0; i < c->G; i++) {
		devs[i] = i;
		g_gpu[i] = gpu[i];
	}
	double samples[2] = { 0, 0 };
	struct nbw_heat_omp_result res;
	memset(&res, 0, sizeof(res));
	res.samples_s = samples;
	struct nbw_heat_omp_request rq = {
		.version = c->v, .grid = &p->g, .fields = &p->f, .ndev = c->G, .devices = devs,
		.gpu = g_gpu, .slabs = slabs, .steps = p->steps, .warmup_steps = 1, .reps = 1,
		.subs = subs, .copy = c->copy, .exchange = c->exchange, .overlap = c->overlap,
	};
	memcpy(rq.decomp, c->decomp, sizeof(rq.decomp));
	for (size_t i = 0; i < p->n; i++)
		p->u[i] = NAN;
	if (nbw_heat_omp_run(&rq, p->u, &res, err, sizeof(err)))
		fail_msg("%s %dx%dx%d %s %s overlap %d, radius %d, grid %dx%dx%d: %s",
			 nbw_heat_version_name(c->v), c->decomp[0], c->decomp[1], c->decomp[2],
			 nbw_app_copy_name(c->copy), nbw_app_exchange_name(c->exchange), c->overlap,
			 p->g.radius, p->g.nx, p->g.ny, p->g.nz, err);
	assert_true(samples[0] > 0.0);
	struct nbw_heat_check ck;
	nbw_heat_verify(p->u, p->ref, p->n, &ck);
	if (!ck.passed || (all_host_plugin && ck.max_abs_diff != 0.0))
		fail_msg("%s %dx%dx%d %s %s overlap %d, radius %d, %d fields, grid %dx%dx%d: "
			 "max |d| = %g, %zu points fail, first at %zu",
			 nbw_heat_version_name(c->v), c->decomp[0], c->decomp[1], c->decomp[2],
			 nbw_app_copy_name(c->copy), nbw_app_exchange_name(c->exchange), c->overlap,
			 p->g.radius, p->f.nfields, p->g.nx, p->g.ny, p->g.nz, ck.max_abs_diff,
			 ck.bad, ck.first_bad);
	if (c->v == NBW_HEAT_GENERAL)
		assert_int_equal(res.host_threads, c->G);
}

/* Every radius, 1-3 fields: the baseline and Versions 1-4 on 2 and 4 devices. */
static void test_radius_fields_paper_versions(void **state)
{
	(void)state;
	require_devices(4);
	for (int R = 1; R <= 4; R++) {
		struct problem p;
		int F = 1 + (R - 1) % 3;
		/* 4 devices x R planes, an uneven split for R = 1 and 3 */
		problem_make(&p, 2 * R + 5, 2 * R + 4, 6 * R + 1 + (R & 1), R, F, 3 + (R & 1));
		struct config c = { .v = NBW_HEAT_BASELINE, .G = 1, .decomp = { 1, 1, 1 } };
		run_check(&p, &c);
		for (int G = 2; G <= 4; G += 2)
			for (int v = NBW_HEAT_V1; v <= NBW_HEAT_V4; v++) {
				struct config cv = { .v = (enum nbw_heat_version)v, .G = G,
						     .decomp = { 1, 1, G } };
				run_check(&p, &cv);
			}
		problem_free(&p);
	}
}

/* The general version: five decompositions x rect/pack x host/device x overlap on/off,
 * radius 2, two fields (radius 1 and three fields on the z-slabs). */
static void test_general_matrix(void **state)
{
	(void)state;
	require_devices(4);
	static const int decomps[][3] = { { 1, 1, 4 }, { 2, 2, 1 }, { 2, 1, 2 }, { 4, 1, 1 },
					  { 1, 2, 2 } };
	struct problem p2, p1;
	problem_make(&p2, 13, 11, 12, 2, 2, 3); /* interior 9 x 7 x 8 */
	problem_make(&p1, 9, 8, 10, 1, 3, 4);
	for (size_t d = 0; d < sizeof(decomps) / sizeof(decomps[0]); d++)
		for (int copy = 0; copy < 2; copy++)
			for (int ex = 0; ex < 2; ex++)
				for (int ov = 0; ov < 2; ov++) {
					struct config c = {
						.v = NBW_HEAT_GENERAL, .G = 4,
						.decomp = { decomps[d][0], decomps[d][1],
							    decomps[d][2] },
						.copy = copy ? NBW_APP_PACK : NBW_APP_RECT,
						.exchange = ex ? NBW_APP_DEVICE : NBW_APP_HOST_STAGED,
						.overlap = ov,
					};
					run_check(&p2, &c);
					if (d == 0)
						run_check(&p1, &c);
				}
	problem_free(&p2);
	problem_free(&p1);
}

/* Radius 3 and 4 on a 3-D split and a 2-D split; two and three devices. */
static void test_general_wide(void **state)
{
	(void)state;
	require_devices(4);
	struct problem p;
	problem_make(&p, 17, 16, 16, 4, 1, 3); /* interior 9 x 8 x 8 */
	struct config c = { .v = NBW_HEAT_GENERAL, .G = 4, .decomp = { 1, 2, 2 },
			    .copy = NBW_APP_PACK, .exchange = NBW_APP_DEVICE, .overlap = true };
	run_check(&p, &c);
	problem_free(&p);
	problem_make(&p, 15, 13, 9, 3, 2, 3); /* interior 9 x 7 x 3 */
	struct config c2 = { .v = NBW_HEAT_GENERAL, .G = 2, .decomp = { 1, 2, 1 },
			     .copy = NBW_APP_RECT, .exchange = NBW_APP_HOST_STAGED, .overlap = true };
	run_check(&p, &c2);
	struct config c3 = { .v = NBW_HEAT_GENERAL, .G = 3, .decomp = { 3, 1, 1 },
			     .copy = NBW_APP_RECT, .exchange = NBW_APP_DEVICE, .overlap = false };
	run_check(&p, &c3);
	problem_free(&p);
}

/* The control: the slabs solved on their own (no exchange) differ from the reference, so a
 * version that skipped its exchange would fail the check above. */
static void test_exchange_matters(void **state)
{
	(void)state;
	struct problem p;
	problem_make(&p, 13, 11, 12, 2, 2, 3);
	struct nbw_heat_slab slabs[2];
	char err[256];
	assert_int_equal(nbw_heat_split(&p.g, 2, slabs, err, sizeof(err)), 0);
	double *alone = malloc(p.n * sizeof(double));
	assert_int_equal(nbw_heat_slab_reference(&p.g, &p.f, slabs, 2, p.steps, 1, alone), 0);
	struct nbw_heat_check ck;
	nbw_heat_verify(alone, p.ref, p.n, &ck);
	assert_false(ck.passed);
	free(alone);
	problem_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_radius_fields_paper_versions),
		cmocka_unit_test(test_general_matrix),
		cmocka_unit_test(test_general_wide),
		cmocka_unit_test(test_exchange_matters),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
