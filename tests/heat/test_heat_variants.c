/* SPDX-License-Identifier: BSD-3-Clause */
/* Every offload variant against the serial reference, in process, on the devices libomptarget
 * offers (the four host-plugin devices on CI): the 1-device baseline and Versions 1-4 for
 * G = 2, 3, 4, on cubic, non-cubic, unevenly split and one-plane-per-device grids, odd and
 * even step counts, any device order. On host-plugin devices the kernels do the reference's
 * arithmetic in the same order (both -ffp-contract=off), so the results must be equal bit
 * for bit; on GPUs the paper's rule applies. Also: symmetry of the offloaded solution, the
 * instrumented phases, repetitions. Skips when there is no offload device. */
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
	int steps;
};

static void problem_make(struct problem *p, int nx, int ny, int nz, int steps)
{
	char err[256];
	assert_int_equal(nbw_heat_grid_init(&p->g, nx, ny, nz, err, sizeof(err)), 0);
	assert_int_equal(nbw_heat_fields_init(&p->f, &p->g), 0);
	size_t n = nbw_heat_grid_points(&p->g);
	p->ref = malloc(n * sizeof(double));
	p->u = malloc(n * sizeof(double));
	assert_non_null(p->ref);
	assert_non_null(p->u);
	p->steps = steps;
	assert_true(nbw_heat_serial(&p->g, &p->f, steps, 0, p->ref) >= 0.0);
}

static void problem_free(struct problem *p)
{
	nbw_heat_fields_free(&p->f);
	free(p->ref);
	free(p->u);
}

/* Run one variant on the devices \p devs and check it against the reference. */
static void run_one(struct problem *p, enum nbw_heat_version v, int G, const int *devs,
		    bool instrument, int reps, struct nbw_heat_omp_result *res)
{
	struct nbw_heat_slab slabs[NBW_HEAT_MAX_DEVICES];
	bool g_gpu[NBW_HEAT_MAX_DEVICES];
	char err[256] = "";
	assert_int_equal(nbw_heat_split(&p->g, G, slabs, err, sizeof(err)), 0);
	for (int i = 0; i < G; i++)
		g_gpu[i] = gpu[devs[i]];
	static double samples[8];
	memset(samples, 0, sizeof(samples));
	memset(res, 0, sizeof(*res));
	res->samples_s = samples;
	struct nbw_heat_omp_request rq = {
		.version = v, .grid = &p->g, .fields = &p->f, .ndev = G, .devices = devs,
		.gpu = g_gpu, .slabs = slabs, .steps = p->steps, .warmup_steps = 1, .reps = reps,
		.instrument = instrument,
	};
	size_t n = nbw_heat_grid_points(&p->g);
	for (size_t i = 0; i < n; i++)
		p->u[i] = NAN;
	int rc = nbw_heat_omp_run(&rq, p->u, res, err, sizeof(err));
	if (rc)
		fail_msg("%s on %d devices, grid %dx%dx%d: %s", nbw_heat_version_name(v), G,
			 p->g.nx, p->g.ny, p->g.nz, err);
	for (int r = 0; r < reps; r++)
		assert_true(samples[r] > 0.0);
	struct nbw_heat_check c;
	nbw_heat_verify(p->u, p->ref, n, &c);
	if (!c.passed || (all_host_plugin && c.max_abs_diff != 0.0))
		fail_msg("%s on %d devices, grid %dx%dx%d, %d steps: max |d| = %g, %zu points "
			 "fail, first at %zu",
			 nbw_heat_version_name(v), G, p->g.nx, p->g.ny, p->g.nz, p->steps,
			 c.max_abs_diff, c.bad, c.first_bad);
}

static void require_devices(int want)
{
	if (ndev < want) {
		print_message("only %d offload devices: skipped\n", ndev);
		skip();
	}
}

/* Every variant and every G on grids that exercise the split. */
static void test_all_variants(void **state)
{
	(void)state;
	require_devices(1);
	static const int shapes[][4] = {
		{ 10, 10, 10, 4 }, /* cubic, 8 planes */
		{ 9, 7, 11, 3 },   /* non-cubic, 9 planes: 5+4, 3+3+3, 3+2+2+2; odd steps */
		{ 7, 6, 6, 2 },    /* 4 planes: one per device for G = 4 */
		{ 6, 8, 5, 5 },    /* 3 planes: G = 3 gets one each, G = 4 is too many */
	};
	int devs[NBW_HEAT_MAX_DEVICES];
	for (int i = 0; i < ndev; i++)
		devs[i] = i;
	int maxg = ndev < 4 ? ndev : 4;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct problem p;
		problem_make(&p, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
		struct nbw_heat_omp_result res;
		run_one(&p, NBW_HEAT_BASELINE, 1, devs, false, 1, &res);
		assert_int_equal(res.host_threads, 1);
		for (int G = 2; G <= maxg && G <= p.g.nz - 2; G++)
			for (int v = NBW_HEAT_V1; v <= NBW_HEAT_V4; v++) {
				run_one(&p, (enum nbw_heat_version)v, G, devs, false, 1, &res);
				assert_int_equal(res.host_threads, v >= NBW_HEAT_V3 ? G : 1);
				assert_true(strlen(res.halo_path) > 0);
				assert_true(strlen(res.kernels) > 0);
			}
		problem_free(&p);
	}
}

/* Any device order: the slabs follow the list. */
static void test_device_order(void **state)
{
	(void)state;
	require_devices(2);
	int G = ndev < 4 ? ndev : 4;
	int devs[4];
	for (int i = 0; i < G; i++)
		devs[i] = G - 1 - i;
	struct problem p;
	problem_make(&p, 8, 9, 10, 4);
	struct nbw_heat_omp_result res;
	for (int v = NBW_HEAT_V1; v <= NBW_HEAT_V4; v++)
		run_one(&p, (enum nbw_heat_version)v, G, devs, false, 1, &res);
	problem_free(&p);
}

/* The solution on the unit cube keeps the problem's symmetries on every variant. */
static void test_symmetry(void **state)
{
	(void)state;
	require_devices(1);
	int devs[4] = { 0, 1, 2, 3 };
	struct problem p;
	problem_make(&p, 11, 11, 11, 6);
	struct nbw_heat_omp_result res;
	int maxg = ndev < 3 ? ndev : 3;
	for (int G = 1; G <= maxg; G++)
		for (int v = NBW_HEAT_BASELINE; v <= NBW_HEAT_V4; v++) {
			if (!nbw_heat_version_fits((enum nbw_heat_version)v, G))
				continue;
			run_one(&p, (enum nbw_heat_version)v, G, devs, false, 1, &res);
			double e = nbw_heat_symmetry_error(&p.g, p.u);
			if (!(e >= 0.0 && e < 1e-13))
				fail_msg("%s on %d devices: symmetry error %g",
					 nbw_heat_version_name((enum nbw_heat_version)v), G, e);
		}
	problem_free(&p);
}

/* Instrumented runs report every phase; repetitions give one sample each. */
static void test_instrumented(void **state)
{
	(void)state;
	require_devices(2);
	int devs[2] = { 0, 1 };
	struct problem p;
	problem_make(&p, 8, 8, 9, 3);
	struct nbw_heat_omp_result res;
	for (int v = NBW_HEAT_BASELINE; v <= NBW_HEAT_V4; v++) {
		int G = v == NBW_HEAT_BASELINE ? 1 : 2;
		run_one(&p, (enum nbw_heat_version)v, G, devs, true, 2, &res);
		const struct nbw_heat_phases *ph = &res.phases;
		assert_true(ph->interior_s > 0.0);
		assert_true(ph->boundary_s >= 0.0 && ph->halo_s >= 0.0 && ph->sync_s >= 0.0);
		assert_true(ph->total_s > 0.0);
		if (v == NBW_HEAT_BASELINE) {
			assert_true(ph->boundary_s == 0.0 && ph->halo_s == 0.0);
		} else {
			assert_true(ph->boundary_s > 0.0 && ph->halo_s > 0.0);
			/* the phases of one thread cannot add up to more than the run */
			assert_true(ph->interior_s + ph->boundary_s + ph->halo_s + ph->sync_s <=
				    ph->total_s * 1.01 + 1e-3);
		}
	}
	problem_free(&p);
}

/* A variant asked to run on a device count it does not fit is refused. */
static void test_refused(void **state)
{
	(void)state;
	require_devices(2);
	struct problem p;
	problem_make(&p, 6, 6, 6, 1);
	struct nbw_heat_slab slabs[2] = { { 1, 3 }, { 3, 5 } };
	int devs[2] = { 0, 1 };
	bool g[2] = { gpu[0], gpu[1] };
	double samples[1];
	struct nbw_heat_omp_result res = { .samples_s = samples };
	char err[256] = "";
	struct nbw_heat_omp_request rq = {
		.version = NBW_HEAT_BASELINE, .grid = &p.g, .fields = &p.f, .ndev = 2,
		.devices = devs, .gpu = g, .slabs = slabs, .steps = 1, .reps = 1,
	};
	assert_int_equal(nbw_heat_omp_run(&rq, p.u, &res, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	rq.version = NBW_HEAT_V2;
	rq.ndev = 1;
	assert_int_equal(nbw_heat_omp_run(&rq, p.u, &res, err, sizeof(err)), -1);
	problem_free(&p);
}

/* The bandwidth kernel: a positive figure on the host and on a device. */
static void test_triad(void **state)
{
	(void)state;
	double gbs = 0.0;
	int threads = -1;
	char err[256];
	assert_int_equal(nbw_heat_omp_triad(-1, 1 << 20, 2, &gbs, &threads, err, sizeof(err)), 0);
	assert_true(gbs > 0.0);
	assert_true(threads >= 1);
	require_devices(1);
	assert_int_equal(nbw_heat_omp_triad(0, 1 << 20, 2, &gbs, &threads, err, sizeof(err)), 0);
	assert_true(gbs > 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_variants),
		cmocka_unit_test(test_device_order),
		cmocka_unit_test(test_symmetry),
		cmocka_unit_test(test_instrumented),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_triad),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
