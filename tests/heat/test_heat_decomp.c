/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests (cmocka, no device) of the generalised heat problem: the radius-R stencil
 * against a formula written out here, dt and the boundary layer of each radius, several
 * fields, the decomposition over a PX x PY x PZ grid of devices (boxes tile the interior,
 * agree with nbw_app_local_box, refuse a device thinner than R), the face bytes per step,
 * the z-slabs as boxes, and the options of the general version and --app. Built with
 * -ffp-contract=off like the reference. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_general.h"
#include "nodebw/app.h"
#include "nodebw/heat.h"
#include "nodebw/results_view.h"
#include "stencil.h"

static void grid(struct nbw_heat_grid *g, int nx, int ny, int nz, int R)
{
	char err[256];
	assert_int_equal(nbw_heat_grid_init_r(g, nx, ny, nz, R, err, sizeof(err)), 0);
}

/* dt = h^2 / (12 W_R kappa_max); radius 1 is the paper's; sides below 2R + 1 refused. */
static void test_grid_radius(void **state)
{
	(void)state;
	struct nbw_heat_grid g, g1;
	char err[256];
	const double W[5] = { 0, 1.0, 1.25, 1.25 + 1.0 / 9, 1.25 + 1.0 / 9 + 1.0 / 16 };
	grid(&g1, 9, 9, 9, 1);
	struct nbw_heat_grid plain;
	assert_int_equal(nbw_heat_grid_init(&plain, 9, 9, 9, err, sizeof(err)), 0);
	assert_memory_equal(&plain, &g1, sizeof(plain));
	for (int R = 1; R <= 4; R++) {
		grid(&g, 9, 10, 11, R);
		assert_int_equal(g.radius, R);
		assert_true(fabs(nbw_heat_weight_sum(R) - W[R]) < 1e-15);
		assert_true(fabs(g.dt - g.h * g.h / (12.0 * W[R] * 0.95)) < 1e-18);
		assert_true(fabs(g.factor - g.dt / (2 * g.h * g.h)) < 1e-15);
		/* the largest update coefficient: 6 directions x W_R x 2 kappa_max x factor */
		assert_true(6 * W[R] * 2 * 0.95 * g.factor <= 0.5 + 1e-12);
		assert_int_equal(nbw_heat_interior_points(&g),
				 (uint64_t)(9 - 2 * R) * (10 - 2 * R) * (11 - 2 * R));
		assert_int_equal(nbw_heat_grid_init_r(&g, 2 * R, 20, 20, R, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "at least"));
	}
	assert_int_equal(nbw_heat_grid_init_r(&g, 20, 20, 20, 5, err, sizeof(err)), -1);
	assert_int_equal(nbw_heat_grid_init_r(&g, 20, 20, 20, 0, err, sizeof(err)), -1);
}

/* The radius-R update at one point against the formula written out here. */
static void test_stencil_radius(void **state)
{
	(void)state;
	const int n = 11;
	const long sx = n, sp = (long)n * n;
	double *u = malloc(sizeof(double) * n * n * n), *k = malloc(sizeof(double) * n * n * n);
	double *rhs = malloc(sizeof(double) * n * n * n), *un = calloc((size_t)n * n * n, 8);
	assert_non_null(un);
	srand(7);
	for (long p = 0; p < (long)n * n * n; p++) {
		u[p] = rand() / (double)RAND_MAX;
		k[p] = 0.5 + 0.4 * rand() / (double)RAND_MAX;
		rhs[p] = 1e-3 * rand() / (double)RAND_MAX;
	}
	const long c = 5 * sp + 5 * sx + 5;
	for (int R = 1; R <= 4; R++) {
		double want = 0.0;
		for (int d = 1; d <= R; d++) {
			const long off[6] = { -d, d, -d * sx, d * sx, -d * sp, d * sp };
			double s = 0.0;
			for (int m = 0; m < 6; m++)
				s += (k[c + off[m]] + k[c]) * (u[c + off[m]] - u[c]);
			want += s / (d * d);
		}
		want = u[c] + rhs[c] + 0.01 * want;
		nbw_heat_point_r(un, u, k, rhs, c, sx, sp, 0.01, R);
		if (!(fabs(un[c] - want) <= 1e-15 * fabs(want)))
			fail_msg("radius %d: %.17g, the formula gives %.17g", R, un[c], want);
		/* a uniform u diffuses nothing: u_new = u + rhs exactly */
		double *flat = malloc(sizeof(double) * n * n * n);
		for (long p = 0; p < (long)n * n * n; p++)
			flat[p] = 0.25;
		nbw_heat_point_r(un, flat, k, rhs, c, sx, sp, 0.01, R);
		assert_true(un[c] == 0.25 + rhs[c]);
		free(flat);
	}
	/* radius 1 is the paper's 7-point update, bit for bit */
	double a = 0, b = 0;
	nbw_heat_point(un, u, k, rhs, c, sx, sp, 0.01);
	a = un[c];
	nbw_heat_point_r(un, u, k, rhs, c, sx, sp, 0.01, 1);
	b = un[c];
	assert_true(a == b);
	free(u);
	free(k);
	free(rhs);
	free(un);
}

/* Boundary layer of depth R at u = 0; field q is (1 + q/2) field 0; each field's reference
 * is the one-field reference of its start. */
static void test_fields(void **state)
{
	(void)state;
	struct nbw_heat_grid g;
	struct nbw_heat_fields f;
	grid(&g, 11, 10, 9, 2);
	assert_int_equal(nbw_heat_fields_init_n(&f, &g, 3), 0);
	assert_int_equal(f.nfields, 3);
	size_t n = nbw_heat_grid_points(&g);
	for (int k = 0; k < g.nz; k++)
		for (int j = 0; j < g.ny; j++)
			for (int i = 0; i < g.nx; i++) {
				size_t p = ((size_t)k * g.ny + j) * g.nx + i;
				bool layer = i < 2 || j < 2 || k < 2 || i >= g.nx - 2 ||
					     j >= g.ny - 2 || k >= g.nz - 2;
				if (layer)
					assert_true(f.u0[p] == 0.0);
				else
					assert_true(f.u0[p] > 0.0);
				assert_true(f.u0[n + p] == 1.5 * f.u0[p]);
				assert_true(f.u0[2 * n + p] == 2.0 * f.u0[p]);
			}
	double *all = malloc(3 * n * sizeof(double)), *one = malloc(n * sizeof(double));
	assert_true(nbw_heat_serial_fields(&g, &f, 5, 1, all) >= 0.0);
	for (int q = 0; q < 3; q++) {
		struct nbw_heat_fields fq = { f.u0 + q * n, f.kappa, f.rhs, 1 };
		assert_true(nbw_heat_serial(&g, &fq, 5, 1, one) >= 0.0);
		assert_memory_equal(one, all + q * n, n * sizeof(double));
	}
	/* the fields differ: not the same field three times */
	assert_true(memcmp(all, all + n, n * sizeof(double)) != 0);
	free(all);
	free(one);
	nbw_heat_fields_free(&f);
}

/* Every decomposition the tests run tiles the interior, box by box as nbw_app_local_box
 * says, device number ix + PX (iy + PY iz). */
static void test_decompose(void **state)
{
	(void)state;
	static const int decomps[][3] = { { 1, 1, 4 }, { 2, 2, 1 }, { 2, 1, 2 }, { 4, 1, 1 },
					  { 1, 2, 2 }, { 3, 2, 1 }, { 1, 1, 1 } };
	for (int R = 1; R <= 4; R++)
		for (size_t t = 0; t < sizeof(decomps) / sizeof(decomps[0]); t++) {
			const int *D = decomps[t];
			struct nbw_heat_grid g;
			grid(&g, 4 * R + 2 * R + 3, 3 * R + 2 * R + 1, 4 * R + 2 * R + 2, R);
			struct nbw_heat_sub s[16];
			char err[256];
			int G = D[0] * D[1] * D[2];
			assert_int_equal(nbw_heat_decompose(&g, D, s, err, sizeof(err)), 0);
			unsigned char *hit = calloc(nbw_heat_grid_points(&g), 1);
			struct nbw_app a = { .grid = { g.nx, g.ny, g.nz }, .radius = R };
			for (int d = 0; d < G; d++) {
				assert_int_equal(d, s[d].idx[0] + D[0] * (s[d].idx[1] + D[1] * s[d].idx[2]));
				long in[3], box[3];
				nbw_app_local_box(&a, D, s[d].idx, in, box);
				for (int x = 0; x < 3; x++) {
					assert_int_equal(s[d].count[x], in[x]);
					assert_true(s[d].count[x] >= (D[x] > 1 ? R : 1));
				}
				for (int k = 0; k < s[d].count[2]; k++)
					for (int j = 0; j < s[d].count[1]; j++)
						for (int i = 0; i < s[d].count[0]; i++)
							hit[((size_t)(k + s[d].begin[2]) * g.ny +
							     j + s[d].begin[1]) * g.nx +
							    i + s[d].begin[0]]++;
			}
			uint64_t covered = 0;
			for (size_t p = 0; p < nbw_heat_grid_points(&g); p++) {
				assert_true(hit[p] <= 1);
				covered += hit[p];
			}
			assert_int_equal(covered, nbw_heat_interior_points(&g));
			free(hit);
		}
}

/* Uneven splits: the first devices one point more; a device thinner than R refused. */
static void test_decompose_uneven(void **state)
{
	(void)state;
	struct nbw_heat_grid g;
	struct nbw_heat_sub s[8];
	char err[256];
	grid(&g, 15, 9, 9, 2); /* 11 interior points along x */
	const int D[3] = { 3, 1, 1 };
	assert_int_equal(nbw_heat_decompose(&g, D, s, err, sizeof(err)), 0);
	assert_int_equal(s[0].count[0], 4);
	assert_int_equal(s[1].count[0], 4);
	assert_int_equal(s[2].count[0], 3);
	assert_int_equal(s[0].begin[0], 2);
	assert_int_equal(s[1].begin[0], 6);
	assert_int_equal(s[2].begin[0], 10);
	const int thin[3] = { 6, 1, 1 }; /* 11 / 6 = 1 < R */
	assert_int_equal(nbw_heat_decompose(&g, thin, s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "along x"));
	/* the z-slabs as boxes equal the 1 x 1 x G decomposition */
	grid(&g, 9, 8, 17, 2);
	struct nbw_heat_slab slabs[4];
	struct nbw_heat_sub a[4], b[4];
	const int Z[3] = { 1, 1, 4 };
	assert_int_equal(nbw_heat_split(&g, 4, slabs, err, sizeof(err)), 0);
	nbw_heat_subs_of_slabs(&g, 4, slabs, a);
	assert_int_equal(nbw_heat_decompose(&g, Z, b, err, sizeof(err)), 0);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(slabs[0].k_begin, 2);
	assert_int_equal(slabs[3].k_end, 15);
	/* slabs need R planes each */
	assert_int_equal(nbw_heat_split(&g, 7, slabs, err, sizeof(err)), -1);
}

/* The face bytes of a step, counted by hand. */
static void test_halo_bytes(void **state)
{
	(void)state;
	struct nbw_heat_grid g;
	struct nbw_heat_sub s[4];
	char err[256];
	grid(&g, 12, 10, 8, 1); /* interior 10 x 8 x 6 */
	const int D[3] = { 2, 2, 1 };
	assert_int_equal(nbw_heat_decompose(&g, D, s, err, sizeof(err)), 0);
	/* each box 5 x 4 x 6: an x-face 1 x 4 x 6 = 24 points, a y-face 5 x 1 x 6 = 30; every
	 * device sends one of each */
	assert_int_equal(nbw_heat_halo_bytes(&g, D, s, 1), 4 * (24 + 30) * 8);
	assert_int_equal(nbw_heat_halo_bytes(&g, D, s, 3), 3 * 4 * (24 + 30) * 8);
	grid(&g, 12, 10, 8, 2); /* interior 8 x 6 x 4, boxes 4 x 3 x 4 */
	assert_int_equal(nbw_heat_decompose(&g, D, s, err, sizeof(err)), 0);
	assert_int_equal(nbw_heat_halo_bytes(&g, D, s, 1), 4 * (2 * 3 * 4 + 4 * 2 * 4) * 8);
	assert_true(nbw_heat_is_slab_shape_r(20, 20, 8, 4, 2));   /* ceil(16/4) + 4 */
	assert_false(nbw_heat_is_slab_shape_r(20, 20, 7, 4, 2));
	assert_true(nbw_heat_is_slab_shape(20, 20, 7, 4));        /* ceil(18/4) + 2 */
}

static int parse(struct nbw_heat_opts *o, char *err, int argc, ...)
{
	char *argv[40];
	va_list ap;
	va_start(ap, argc);
	argv[0] = "heat";
	for (int i = 1; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	return nbw_heat_parse(argc, argv, o, err, 512);
}

/* The general version's options. */
static void test_options(void **state)
{
	(void)state;
	struct nbw_heat_opts o;
	char err[512];
	if (parse(&o, err, 11, "--versions", "general", "--decomp", "2x1x2", "--copy", "pack",
		  "--exchange", "device", "--overlap", "off"))
		fail_msg("%s", err);
	assert_true(o.versions[NBW_HEAT_GENERAL] && !o.versions[NBW_HEAT_V1]);
	assert_int_equal(o.decomp[0] * 10 + o.decomp[1] * 100 + o.decomp[2], 2 * 10 + 100 + 2);
	assert_true(o.copy == NBW_APP_PACK && o.exchange == NBW_APP_DEVICE && !o.overlap);
	assert_int_equal(o.ngpus, 1); /* the decomposition's product */
	assert_int_equal(o.gpus[0], 4);
	assert_true(heat_opts_fit(&o, NBW_HEAT_GENERAL, 4));
	assert_false(heat_opts_fit(&o, NBW_HEAT_GENERAL, 2));
	/* defaults: rect, host-staged, overlap on, 1 x 1 x G */
	assert_int_equal(parse(&o, err, 5, "--versions", "general", "--radius", "3"), 0);
	assert_true(o.copy == NBW_APP_RECT && o.exchange == NBW_APP_HOST_STAGED && o.overlap);
	assert_int_equal(o.radius, 3);
	int d[3];
	heat_decomp_for(&o, 3, d);
	assert_true(d[0] == 1 && d[1] == 1 && d[2] == 3);
	/* refused */
	assert_int_equal(parse(&o, err, 3, "--decomp", "2x2x1"), -1);       /* no general */
	assert_int_equal(parse(&o, err, 5, "--versions", "general", "--decomp", "2x2"), -1);
	assert_int_equal(parse(&o, err, 5, "--versions", "general", "--decomp", "1x1x1"), -1);
	assert_int_equal(parse(&o, err, 5, "--versions", "general", "--copy", "zip"), -1);
	assert_int_equal(parse(&o, err, 4, "--versions", "general", "--no-exchange"), -1);
	assert_int_equal(parse(&o, err, 3, "--radius", "5"), -1);
	assert_int_equal(parse(&o, err, 3, "--fields", "0"), -1);
	assert_int_equal(parse(&o, err, 5, "--n", "8", "--radius", "4"), -1); /* 8 < 9 */
	assert_int_equal(parse(&o, err, 13, "--versions", "general", "--decomp", "4x1x1", "--nx",
			       "9", "--ny", "20", "--nz", "20", "--radius", "2"),
			 -1);
	assert_non_null(strstr(err, "along x"));
}

/* --app sets the configuration; element bytes are recorded, the solver stays in double. */
static void test_app(void **state)
{
	(void)state;
	char path[] = "/tmp/nodebw-heat-app-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *doc =
		"{\"schema\": \"nodebw-app\", \"version\": 1, \"name\": \"t\", \"grid\": [20, 18, 12],"
		" \"decomp\": [2, 2, 1], \"radius\": 2, \"fields\": 3, \"element_bytes\": 4,"
		" \"exchange\": \"device\", \"copy\": \"pack\", \"overlap\": false, \"steps\": 7,"
		" \"compute\": {\"kernel\": \"nodebw-heat\"}}";
	assert_true(write(fd, doc, strlen(doc)) == (ssize_t)strlen(doc));
	close(fd);
	struct nbw_heat_opts o;
	char err[512];
	if (parse(&o, err, 3, "--app", path))
		fail_msg("%s", err);
	assert_int_equal(o.nshapes, 1);
	assert_true(o.shapes[0][0] == 20 && o.shapes[0][1] == 18 && o.shapes[0][2] == 12);
	assert_true(o.radius == 2 && o.fields == 3 && o.steps == 7);
	assert_true(o.decomp[0] == 2 && o.decomp[1] == 2 && o.decomp[2] == 1);
	assert_true(o.copy == NBW_APP_PACK && o.exchange == NBW_APP_DEVICE && !o.overlap);
	assert_int_equal(o.app_element_bytes, 4);
	assert_true(o.versions[NBW_HEAT_SERIAL] && o.versions[NBW_HEAT_GENERAL] &&
		    !o.versions[NBW_HEAT_V2]);
	assert_true(o.ngpus == 1 && o.gpus[0] == 4);
	/* --steps overrides; --radius goes against the app */
	assert_int_equal(parse(&o, err, 5, "--app", path, "--steps", "3"), 0);
	assert_int_equal(o.steps, 3);
	assert_int_equal(parse(&o, err, 5, "--app", path, "--radius", "1"), -1);
	unlink(path);
	assert_int_equal(parse(&o, err, 3, "--app", "/nonexistent/app.json"), -1);
	assert_non_null(strstr(err, "--app"));
}

/* A general record as written, read back through the typed views; an older record without
 * "config" reads as radius 1, one field, its slabs as the subdomains. */
static void test_record_views(void **state)
{
	(void)state;
	struct nbw_heat_record r;
	memset(&r, 0, sizeof(r));
	char err[256];
	double samples[1] = { 0.5 };
	r.version = NBW_HEAT_GENERAL;
	grid(&r.grid, 12, 10, 8, 1);
	r.ndev = 4;
	r.fields = 3;
	r.decomp[0] = r.decomp[1] = 2;
	r.decomp[2] = 1;
	r.exchange_how = "device";
	r.copy_how = "pack";
	r.overlap = true;
	r.steps = 2;
	r.reps = 1;
	r.samples_s = samples;
	r.seconds = 0.5;
	for (int d = 0; d < 4; d++)
		r.devices[d] = 3 - d;
	assert_int_equal(nbw_heat_decompose(&r.grid, r.decomp, r.subs, err, sizeof(err)), 0);
	json_t *j = nbw_heat_record_to_json(&r);
	assert_int_equal(json_array_size(json_object_get(j, "slabs")), 0);
	struct nbw_rv_solver_run v;
	assert_true(nbw_rv_solver_read(j, &v));
	struct nbw_rv_solver_config c;
	assert_true(nbw_rv_solver_config(&v, &c));
	assert_true(c.radius == 1 && c.fields == 3 && c.decomp[0] == 2 && c.decomp[1] == 2 &&
		    c.decomp[2] == 1 && c.overlap);
	assert_string_equal(c.exchange, "device");
	assert_string_equal(c.copy, "pack");
	assert_int_equal(c.halo_bytes_per_step, 3 * 4 * (24 + 30) * 8);
	struct nbw_rv_subdomain sd[8];
	assert_int_equal(nbw_rv_solver_subdomains(&v, sd, 8), 4);
	assert_int_equal(sd[3].device, 0);
	assert_true(sd[3].index[0] == 1 && sd[3].index[1] == 1 && sd[3].begin[0] == 6);
	assert_true(sd[3].interior[0] == 5 && sd[3].local_shape[0] == 7 && sd[3].local_shape[2] == 8);
	json_decref(j);
	/* an older record */
	json_t *old = json_pack("{s:s, s:i, s:[{s:i, s:i, s:i, s:i, s:[i, i, i]}]}", "version", "v2",
				"G", 1, "slabs", "device", 2, "k_begin", 1, "k_end", 4, "planes", 3,
				"local_shape", 10, 9, 5);
	assert_true(nbw_rv_solver_read(old, &v));
	assert_false(nbw_rv_solver_config(&v, &c));
	assert_true(c.radius == 1 && c.fields == 1 && c.decomp[2] == 1 && c.halo_bytes_per_step == -1);
	assert_int_equal(nbw_rv_solver_subdomains(&v, sd, 8), 1);
	assert_true(sd[0].device == 2 && sd[0].interior[0] == 8 && sd[0].interior[2] == 3 &&
		    sd[0].begin[2] == 1);
	json_decref(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_radius),	 cmocka_unit_test(test_stencil_radius),
		cmocka_unit_test(test_fields),		 cmocka_unit_test(test_decompose),
		cmocka_unit_test(test_decompose_uneven), cmocka_unit_test(test_halo_bytes),
		cmocka_unit_test(test_options),		 cmocka_unit_test(test_app),
		cmocka_unit_test(test_record_views),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
