/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the heat solver's host half (cmocka, no device): grid constants, initial
 * fields, the split along z, the serial reference (stencil by hand, symmetry, maximum
 * principle, bit-identical on 1-4 host threads and to the plain loop it replaced), the
 * verification rule, options and device resolution, records. Built with -ffp-contract=off
 * like the reference, so that the plain loop here rounds as it does. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dlfcn.h>

#include "nodebw/heat.h"
#include "nodebw/probe.h"
#include "stencil.h"

#define AT(g, a, i, j, k) (a)[((size_t)(k) * (g)->ny + (j)) * (g)->nx + (i)]

static void make(struct nbw_heat_grid *g, struct nbw_heat_fields *f, int nx, int ny, int nz)
{
	char err[256];
	assert_int_equal(nbw_heat_grid_init(g, nx, ny, nz, err, sizeof(err)), 0);
	assert_int_equal(nbw_heat_fields_init(f, g), 0);
}

/* ---- names ------------------------------------------------------------------------------ */

static void test_versions(void **state)
{
	(void)state;
	assert_int_equal(nbw_heat_version_parse("serial"), NBW_HEAT_SERIAL);
	assert_int_equal(nbw_heat_version_parse("baseline"), NBW_HEAT_BASELINE);
	assert_int_equal(nbw_heat_version_parse("v1"), NBW_HEAT_V1);
	assert_int_equal(nbw_heat_version_parse("V4"), NBW_HEAT_V4);
	assert_int_equal(nbw_heat_version_parse("3"), NBW_HEAT_V3);
	assert_int_equal(nbw_heat_version_parse("version2"), NBW_HEAT_V2);
	assert_int_equal(nbw_heat_version_parse("v5"), -1);
	assert_int_equal(nbw_heat_version_parse("0"), -1);
	assert_int_equal(nbw_heat_version_parse(""), -1);
	for (int v = 0; v < NBW_HEAT_VERSION_COUNT; v++) {
		assert_int_equal(nbw_heat_version_parse(nbw_heat_version_name(v)), v);
		assert_true(strlen(nbw_heat_version_label(v)) > 10);
	}
	assert_true(nbw_heat_version_fits(NBW_HEAT_SERIAL, 0));
	assert_true(nbw_heat_version_fits(NBW_HEAT_BASELINE, 1));
	assert_false(nbw_heat_version_fits(NBW_HEAT_BASELINE, 2));
	assert_false(nbw_heat_version_fits(NBW_HEAT_V1, 1));
	assert_true(nbw_heat_version_fits(NBW_HEAT_V1, 2));
	assert_true(nbw_heat_version_fits(NBW_HEAT_V4, 3));
	assert_true(nbw_heat_version_fits(NBW_HEAT_V4, 64));
}

/* ---- grid and fields -------------------------------------------------------------------- */

static void test_grid(void **state)
{
	(void)state;
	struct nbw_heat_grid g;
	char err[256];
	assert_int_equal(nbw_heat_grid_init(&g, 5, 5, 5, err, sizeof(err)), 0);
	assert_float_equal(g.h, 0.25, 1e-15);
	assert_float_equal(g.dt, 0.0625 / (12 * 0.95), 1e-17);
	assert_float_equal(g.factor, g.dt / (2 * 0.0625), 1e-17);
	assert_float_equal(g.factor, 1.0 / 22.8, 1e-15); /* h cancels: stable for every N */
	assert_int_equal(nbw_heat_grid_points(&g), 125);
	assert_int_equal(nbw_heat_interior_points(&g), 27);
	/* A box: the longest side spans [0, 1]. */
	assert_int_equal(nbw_heat_grid_init(&g, 9, 5, 17, err, sizeof(err)), 0);
	assert_float_equal(g.h, 1.0 / 16, 1e-15);
	assert_int_equal(nbw_heat_interior_points(&g), 7 * 3 * 15);
	for (int bad = 0; bad < 3; bad++) {
		int n[3] = { 5, 5, 5 };
		n[bad] = 2;
		assert_int_equal(nbw_heat_grid_init(&g, n[0], n[1], n[2], err, sizeof(err)), -1);
		assert_non_null(strstr(err, "at least 3"));
	}
}

static void test_fields(void **state)
{
	(void)state;
	struct nbw_heat_grid g;
	struct nbw_heat_fields f;
	make(&g, &f, 9, 9, 9);
	for (int k = 0; k < 9; k++)
		for (int j = 0; j < 9; j++)
			for (int i = 0; i < 9; i++) {
				double x = i * g.h, y = j * g.h, z = k * g.h;
				double s = sin(M_PI * x) * sin(M_PI * y) * sin(M_PI * z);
				bool edge = i == 0 || j == 0 || k == 0 || i == 8 || j == 8 || k == 8;
				assert_float_equal(AT(&g, f.u0, i, j, k), edge ? 0.0 : s, 1e-15);
				if (edge)
					assert_true(AT(&g, f.u0, i, j, k) == 0.0);
				assert_float_equal(AT(&g, f.kappa, i, j, k), 0.5 + 0.45 * s, 1e-15);
				double fx = 1 + cos(M_PI * x) * cos(M_PI * y) * cos(M_PI * z);
				assert_float_equal(AT(&g, f.rhs, i, j, k), g.dt * fx, 1e-18);
			}
	/* kappa_max = 0.95 is reached at the centre. */
	assert_float_equal(AT(&g, f.kappa, 4, 4, 4), 0.95, 1e-15);
	nbw_heat_fields_free(&f);
	assert_null(f.u0);
}

/* ---- split -------------------------------------------------------------------------------- */

static void test_split(void **state)
{
	(void)state;
	struct nbw_heat_grid g;
	struct nbw_heat_slab s[16];
	char err[256];
	nbw_heat_grid_init(&g, 8, 8, 12, err, sizeof(err)); /* 10 interior planes */
	assert_int_equal(nbw_heat_split(&g, 3, s, err, sizeof(err)), 0);
	assert_int_equal(s[0].k_begin, 1);
	assert_int_equal(s[0].k_end, 5);
	assert_int_equal(s[1].k_begin, 5);
	assert_int_equal(s[1].k_end, 8);
	assert_int_equal(s[2].k_begin, 8);
	assert_int_equal(s[2].k_end, 11);
	assert_int_equal(nbw_heat_split(&g, 1, s, err, sizeof(err)), 0);
	assert_int_equal(s[0].k_begin, 1);
	assert_int_equal(s[0].k_end, 11);
	assert_int_equal(nbw_heat_split(&g, 10, s, err, sizeof(err)), 0); /* one plane each */
	for (int d = 0; d < 10; d++)
		assert_int_equal(s[d].k_end - s[d].k_begin, 1);
	struct nbw_heat_slab many[11];
	assert_int_equal(nbw_heat_split(&g, 11, many, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at least one plane"));

	/* The slab of one device is a grid of its own: a one-device run of nx x ny x
	 * (planes + 2) updates as many points as that device does in the G-device run. */
	nbw_heat_grid_init(&g, 64, 64, 64, err, sizeof(err));
	assert_int_equal(nbw_heat_split(&g, 4, s, err, sizeof(err)), 0);
	uint64_t sum = 0;
	for (int d = 0; d < 4; d++) {
		int planes = s[d].k_end - s[d].k_begin;
		struct nbw_heat_grid one;
		nbw_heat_grid_init(&one, 64, 64, planes + 2, err, sizeof(err));
		assert_int_equal(nbw_heat_interior_points(&one), (uint64_t)planes * 62 * 62);
		assert_float_equal(one.h, g.h, 0.0); /* same spacing, same dt */
		sum += nbw_heat_interior_points(&one);
	}
	assert_int_equal(sum, nbw_heat_interior_points(&g));
}

/* ---- serial reference ----------------------------------------------------------------------- */

static void test_serial_one_step(void **state)
{
	(void)state;
	struct nbw_heat_grid g;
	struct nbw_heat_fields f;
	make(&g, &f, 7, 6, 5);
	size_t n = nbw_heat_grid_points(&g);
	double *u = malloc(n * sizeof(double));
	assert_true(nbw_heat_serial(&g, &f, 1, 0, u) >= 0.0);
	/* By hand, summing in another order (z first), at every interior point. */
	for (int k = 1; k < 4; k++)
		for (int j = 1; j < 5; j++)
			for (int i = 1; i < 6; i++) {
				double uc = AT(&g, f.u0, i, j, k), kc = AT(&g, f.kappa, i, j, k);
				int nb[6][3] = { { 0, 0, -1 }, { 0, 0, 1 }, { 0, -1, 0 },
						 { 0, 1, 0 },  { -1, 0, 0 }, { 1, 0, 0 } };
				double s = 0.0;
				for (int q = 0; q < 6; q++) {
					int a = i + nb[q][0], b = j + nb[q][1], c = k + nb[q][2];
					s += (AT(&g, f.kappa, a, b, c) + kc) *
					     (AT(&g, f.u0, a, b, c) - uc);
				}
				double want = uc + AT(&g, f.rhs, i, j, k) + g.factor * s;
				assert_float_equal(AT(&g, u, i, j, k), want, 1e-15);
			}
	/* The boundary keeps u = 0. */
	for (int j = 0; j < 6; j++)
		for (int i = 0; i < 7; i++) {
			assert_true(AT(&g, u, i, j, 0) == 0.0);
			assert_true(AT(&g, u, i, j, 4) == 0.0);
		}
	/* Zero steps: the initial field. */
	assert_true(nbw_heat_serial(&g, &f, 0, 0, u) >= 0.0);
	assert_memory_equal(u, f.u0, n * sizeof(double));
	free(u);
	nbw_heat_fields_free(&f);
}

static void test_serial_symmetry(void **state)
{
	(void)state;
	struct nbw_heat_grid g;
	struct nbw_heat_fields f;
	make(&g, &f, 11, 11, 11);
	size_t n = nbw_heat_grid_points(&g);
	double *u = malloc(n * sizeof(double));
	assert_true(nbw_heat_serial(&g, &f, 25, 0, u) >= 0.0);
	double e = nbw_heat_symmetry_error(&g, u);
	assert_true(e >= 0.0);
	assert_true(e < 1e-13);
	/* The initial field is symmetric as well, and a broken copy is not. */
	assert_true(nbw_heat_symmetry_error(&g, f.u0) < 1e-15);
	AT(&g, u, 2, 3, 4) += 1e-9;
	assert_true(nbw_heat_symmetry_error(&g, u) > 0.9e-9);
	/* Maximum principle: u0 >= 0 and a source >= 0 keep u >= 0. */
	assert_true(nbw_heat_serial(&g, &f, 25, 0, u) >= 0.0);
	for (size_t p = 0; p < n; p++)
		assert_true(u[p] >= 0.0 && isfinite(u[p]));
	free(u);
	nbw_heat_fields_free(&f);

	make(&g, &f, 9, 9, 7);
	assert_true(nbw_heat_symmetry_error(&g, f.u0) < 0.0); /* not the unit cube */
	nbw_heat_fields_free(&f);
}

/* The single-threaded loop the reference was before it had threads: every step over all
 * planes in order (heat/stencil.h). */
static void plain_reference(const struct nbw_heat_grid *g, const struct nbw_heat_fields *f,
			    int steps, double *u, double *other)
{
	size_t n = nbw_heat_grid_points(g);
	memcpy(u, f->u0, n * sizeof(double));
	memcpy(other, f->u0, n * sizeof(double));
	double *lv[2] = { u, other };
	for (int s = 0; s < steps; s++)
		nbw_heat_planes(lv[(s + 1) & 1], lv[s & 1], f->kappa, f->rhs, g->nx, g->ny, 1,
				g->nz - 2, g->factor, 1);
	if (steps & 1)
		memcpy(u, other, n * sizeof(double));
}

/* The reference on 2, 3 and 4 host threads equals the one-thread reference bit for bit, on
 * grids whose planes and (k, j) rows those counts do not divide (and more threads than
 * planes or rows), for an odd and an even number of steps (the odd one ends with the copy
 * back into u). */
static void test_serial_threads_bit_identical(void **state)
{
	(void)state;
	static const int shapes[][3] = {
		{ 13, 7, 9 },   /* 7 planes, 35 rows */
		{ 40, 33, 27 }, /* 25 planes, 775 rows */
		{ 31, 11, 4 },  /* 2 planes, 18 rows: fewer planes than threads */
		{ 5, 3, 3 },    /* 1 plane, 1 row: fewer rows than threads */
		{ 20, 20, 20 }, /* cubic, 18 planes */
	};
	static const int steps[] = { 5, 6 };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct nbw_heat_grid g;
		struct nbw_heat_fields f;
		make(&g, &f, shapes[s][0], shapes[s][1], shapes[s][2]);
		size_t n = nbw_heat_grid_points(&g);
		double *one = malloc(n * sizeof(double)), *many = malloc(n * sizeof(double));
		double *other = malloc(n * sizeof(double));
		assert_non_null(one);
		assert_non_null(many);
		assert_non_null(other);
		for (size_t q = 0; q < sizeof(steps) / sizeof(steps[0]); q++) {
			assert_true(nbw_heat_serial(&g, &f, steps[q], 1, one) >= 0.0);
			/* the run moved something: not the initial field */
			assert_true(memcmp(one, f.u0, n * sizeof(double)) != 0);
			plain_reference(&g, &f, steps[q], many, other);
			assert_memory_equal(one, many, n * sizeof(double));
			for (int t = 1; t <= 4; t++) {
				memset(many, 0xff, n * sizeof(double)); /* NaN: nothing left over */
				assert_true(nbw_heat_serial(&g, &f, steps[q], t, many) >= 0.0);
				if (memcmp(one, many, n * sizeof(double)) != 0)
					fail_msg("grid %dx%dx%d, %d steps: %d threads differ from 1",
						 g.nx, g.ny, g.nz, steps[q], t);
			}
			/* 0: every core */
			assert_true(nbw_heat_serial(&g, &f, steps[q], 0, many) >= 0.0);
			assert_memory_equal(one, many, n * sizeof(double));
		}
		free(one);
		free(many);
		free(other);
		nbw_heat_fields_free(&f);
	}
	assert_int_equal(nbw_heat_serial_threads(3), 3);
	assert_true(nbw_heat_serial_threads(0) >= 1);
	assert_int_equal(nbw_heat_serial_threads(-1), nbw_heat_serial_threads(0));
}

/* ---- verification ----------------------------------------------------------------------------- */

static void test_verify(void **state)
{
	(void)state;
	double ref[4] = { 0.0, 1.0, -2.0, 100.0 }, u[4];
	struct nbw_heat_check c;
	memcpy(u, ref, sizeof(u));
	nbw_heat_verify(u, ref, 4, &c);
	assert_true(c.passed);
	assert_true(c.max_abs_diff == 0.0);
	assert_int_equal(c.bad, 0);

	/* Exactly at the tolerance passes; just above fails. */
	u[3] = 100.0 + (1e-6 + 1e-5 * 100.0) * 0.999;
	u[0] = 0.9e-6;
	nbw_heat_verify(u, ref, 4, &c);
	assert_true(c.passed);
	assert_float_equal(c.max_abs_diff, (1e-6 + 1e-3) * 0.999, 1e-12);
	u[0] = 1.1e-6;
	nbw_heat_verify(u, ref, 4, &c);
	assert_false(c.passed);
	assert_int_equal(c.bad, 1);
	assert_int_equal(c.first_bad, 0);
	u[0] = 0.0;
	u[2] = -2.0 - 3e-5;
	nbw_heat_verify(u, ref, 4, &c);
	assert_false(c.passed);
	assert_int_equal(c.first_bad, 2);

	/* NaN and Inf always fail, and say so. */
	memcpy(u, ref, sizeof(u));
	u[1] = NAN;
	nbw_heat_verify(u, ref, 4, &c);
	assert_false(c.passed);
	assert_int_equal(c.nonfinite, 1);
	assert_true(isinf(c.max_abs_diff));
	u[1] = INFINITY;
	nbw_heat_verify(u, ref, 4, &c);
	assert_false(c.passed);
	assert_int_equal(c.nonfinite, 1);
}

/* ---- options ------------------------------------------------------------------------------- */

static int parse(char **argv, struct nbw_heat_opts *o, char *err, size_t errlen)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	char *copy[64];
	assert_true(argc < 64);
	memcpy(copy, argv, (size_t)(argc + 1) * sizeof(char *));
	err[0] = '\0';
	return nbw_heat_parse(argc, copy, o, err, errlen);
}

static void parse_ok(char **argv, struct nbw_heat_opts *o)
{
	char err[512];
	int rc = parse(argv, o, err, sizeof(err));
	if (rc != 0)
		fail_msg("parse of '%s ...' gave %d: %s", argv[1] ? argv[1] : "", rc, err);
}

static void parse_bad(char **argv, const char *has)
{
	struct nbw_heat_opts o;
	char err[512];
	int rc = parse(argv, &o, err, sizeof(err));
	if (rc != -1)
		fail_msg("'%s %s' should be rejected, gave %d", argv[1], argv[2] ? argv[2] : "", rc);
	assert_true(strlen(err) > 0);
	assert_null(strchr(err, '\n'));
	if (has && !strstr(err, has))
		fail_msg("error '%s' does not mention '%s'", err, has);
}

static void test_options(void **state)
{
	(void)state;
	struct nbw_heat_opts o;
	char *d[] = { "heat", NULL };
	parse_ok(d, &o);
	assert_int_equal(o.nsizes, 1);
	assert_int_equal(o.sizes[0], 64);
	assert_int_equal(o.steps, 100);
	assert_int_equal(o.reps, 1);
	assert_int_equal(o.hidden_helpers, -1);
	assert_true(o.versions_all);
	/* "all" is the paper's variants; general is run when named */
	for (int v = 0; v < NBW_HEAT_VERSION_COUNT; v++)
		assert_true(o.versions[v] == (v != NBW_HEAT_GENERAL));
	assert_int_equal(o.radius, 1);
	assert_int_equal(o.fields, 1);
	assert_int_equal(o.ndevices, 0);
	assert_int_equal(o.ngpus, 0);
	assert_false(o.instrument);
	assert_true(o.roofline_gbs == 0.0);
	assert_int_equal(o.ref_threads, 0);

	char *a[] = { "heat", "--versions", "baseline,v4", "--gpus", "1,2,4", "--n", "64,96",
		      "--steps", "7", "--reps", "3", "--instrument", "--roofline-gbs", "12.5",
		      "--hidden-helpers", "0", "--devices", "3,2,1,0", "--quiet", "--ref-threads",
		      "3", NULL };
	parse_ok(a, &o);
	assert_false(o.versions_all);
	assert_true(o.versions[NBW_HEAT_BASELINE] && o.versions[NBW_HEAT_V4]);
	assert_false(o.versions[NBW_HEAT_SERIAL] || o.versions[NBW_HEAT_V1]);
	assert_int_equal(o.ngpus, 3);
	assert_int_equal(o.gpus[2], 4);
	assert_int_equal(o.nsizes, 2);
	assert_int_equal(o.sizes[1], 96);
	assert_int_equal(o.steps, 7);
	assert_int_equal(o.reps, 3);
	assert_true(o.instrument && o.quiet);
	assert_float_equal(o.roofline_gbs, 12.5, 0.0);
	assert_int_equal(o.hidden_helpers, 0);
	assert_int_equal(o.ref_threads, 3);
	assert_int_equal(o.ndevices, 4);
	assert_int_equal(o.devices[0], 3);

	char *b[] = { "heat", "--nx", "96", "--ny", "80", "--nz", "34", "--version", "v3", NULL };
	parse_ok(b, &o);
	assert_int_equal(o.nx, 96);
	assert_int_equal(o.ny, 80);
	assert_int_equal(o.nz, 34);
	assert_int_equal(o.nsizes, 0);
	assert_true(o.versions[NBW_HEAT_V3]);

	char *h[] = { "heat", "--help", NULL };
	char err[256];
	assert_int_equal(parse(h, &o, err, sizeof(err)), 1);
}

static void test_options_bad(void **state)
{
	(void)state;
	char *a1[] = { "heat", "--n", "2", NULL };
	parse_bad(a1, "--n 2 is out of range");
	char *a2[] = { "heat", "--nx", "2", "--ny", "5", "--nz", "5", NULL };
	parse_bad(a2, "--nx");
	char *a3[] = { "heat", "--nx", "5", "--ny", "5", NULL };
	parse_bad(a3, "together");
	char *a4[] = { "heat", "--n", "8", "--nx", "5", "--ny", "5", "--nz", "5", NULL };
	parse_bad(a4, "exclude");
	char *a5[] = { "heat", "--steps", "0", NULL };
	parse_bad(a5, "--steps");
	char *a6[] = { "heat", "--steps", "-3", NULL };
	parse_bad(a6, "--steps");
	char *a7[] = { "heat", "--steps", "ten", NULL };
	parse_bad(a7, "not an integer");
	char *a8[] = { "heat", "--devices", "1,1", NULL };
	parse_bad(a8, "twice");
	char *a9[] = { "heat", "--version", "v7", NULL };
	parse_bad(a9, "unknown version");
	char *a10[] = { "heat", "--n", "5", "--gpus", "4", NULL };
	parse_bad(a10, "at least one plane");
	char *a11[] = { "heat", "--version", "v2", "--gpus", "1", NULL };
	parse_bad(a11, "two or more");
	char *a12[] = { "heat", "--version", "baseline", "--gpus", "2,3", NULL };
	parse_bad(a12, "one device");
	char *a13[] = { "heat", "--gpus", "0", NULL };
	parse_bad(a13, "--gpus 0 is out of range (1 to");
	char *a14[] = { "heat", "--hidden-helpers", "17", NULL };
	parse_bad(a14, "--hidden-helpers");
	char *a15[] = { "heat", "--roofline-gbs", "0", NULL };
	parse_bad(a15, "--roofline-gbs");
	char *a16[] = { "heat", "--roofline-gbs", "nan", NULL };
	parse_bad(a16, "--roofline-gbs");
	char *a17[] = { "heat", "--frobnicate", NULL };
	parse_bad(a17, "--frobnicate");
	char *a18[] = { "heat", "stray", NULL };
	parse_bad(a18, "stray");
	char *a19[] = { "heat", "--reps", "0", NULL };
	parse_bad(a19, "--reps");
	char *a20[] = { "heat", "--n", "", NULL };
	parse_bad(a20, NULL);
	char *a21[] = { "heat", "--versions", ",", NULL };
	parse_bad(a21, "empty");
	char *a22[] = { "heat", "--ref-threads", "0", NULL };
	parse_bad(a22, "--ref-threads");
	char *a23[] = { "heat", "--ref-threads", "two", NULL };
	parse_bad(a23, "--ref-threads");
	/* Boxes are three integers in range, items are never empty, numbers are decimal. */
	char *a24[] = { "heat", "--shapes", "64x64x4294967360", NULL };
	parse_bad(a24, "out of range (3 to 100000)");
	char *a25[] = { "heat", "--shapes", "64x64x64,,8x8x8", NULL };
	parse_bad(a25, "empty item");
	char *a26[] = { "heat", "--shapes", "64x64", NULL };
	parse_bad(a26, "not a box");
	char *a27[] = { "heat", "--shapes", "64x64x64x", NULL };
	parse_bad(a27, "not a box");
	char *a28[] = { "heat", "--shapes", "64x 64x64", NULL };
	parse_bad(a28, "not an integer");
	char *a29[] = { "heat", "--roofline-gbs", "0x10", NULL };
	parse_bad(a29, "decimal notation");
	char *a30[] = { "heat", "--n", "32,,40", NULL };
	parse_bad(a30, "empty item");
}

static void test_resolve(void **state)
{
	(void)state;
	struct nbw_heat_opts o;
	char err[256];
	char *d[] = { "heat", NULL };
	parse_ok(d, &o);
	assert_int_equal(nbw_heat_resolve_devices(&o, 4, err, sizeof(err)), 0);
	assert_int_equal(o.ndevices, 4);
	assert_int_equal(o.devices[3], 3);
	assert_int_equal(o.ngpus, 2); /* 1 and the whole list */
	assert_int_equal(o.gpus[0], 1);
	assert_int_equal(o.gpus[1], 4);

	char *a[] = { "heat", "--devices", "2", NULL };
	parse_ok(a, &o);
	assert_int_equal(nbw_heat_resolve_devices(&o, 4, err, sizeof(err)), 0);
	assert_int_equal(o.ngpus, 1);
	assert_int_equal(o.gpus[0], 1);

	char *b[] = { "heat", "--devices", "0,4", NULL };
	parse_ok(b, &o);
	assert_int_equal(nbw_heat_resolve_devices(&o, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "device 4 does not exist"));

	char *c[] = { "heat", "--gpus", "8", NULL };
	parse_ok(c, &o);
	assert_int_equal(nbw_heat_resolve_devices(&o, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "only 4 devices exist"));

	char *e[] = { "heat", "--devices", "0,1", "--gpus", "3", NULL };
	parse_ok(e, &o);
	assert_int_equal(nbw_heat_resolve_devices(&o, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the device list has 2"));

	/* The default G list meets a thin grid only once the device count is known. */
	char *f[] = { "heat", "--nx", "9", "--ny", "9", "--nz", "4", NULL };
	parse_ok(f, &o);
	assert_int_equal(nbw_heat_resolve_devices(&o, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at least one plane"));

	/* No offload device: an explicit offload version is an error, "all" keeps serial. */
	char *g[] = { "heat", "--version", "v1", NULL };
	parse_ok(g, &o);
	assert_int_equal(nbw_heat_resolve_devices(&o, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no OpenMP offload device"));
	parse_ok(d, &o);
	assert_int_equal(nbw_heat_resolve_devices(&o, 0, err, sizeof(err)), 0);
	assert_int_equal(o.ngpus, 0);
}

/* ---- records ---------------------------------------------------------------------------------- */

/* How CUDA host threads waited (heat/cuda_sched.c): nothing for other devices; "unknown"
 * with the reason while no driver is loaded; each CUDA device's primary-context flags,
 * found by PCI address, through a fake libcuda.so.1 (tests/heat/fakecuda). */
static void test_cuda_sched(void **state)
{
	(void)state;
	struct nbw_device d[2];
	memset(d, 0, sizeof(d));
	char word[16], note[256];
	snprintf(d[0].kind, sizeof(d[0].kind), "host-plugin");
	nbw_heat_cuda_sched(d, 1, word, sizeof(word), note, sizeof(note));
	assert_string_equal(word, "");
	const char *lib = getenv("FAKE_LIBCUDA_CTX");
	if (!lib || !*lib)
		skip();
	for (int i = 0; i < 2; i++) {
		snprintf(d[i].kind, sizeof(d[i].kind), "cuda");
		d[i].runtime_id = i;
	}
	snprintf(d[0].pci_bus_id, sizeof(d[0].pci_bus_id), "0000:65:00.0");
	snprintf(d[1].pci_bus_id, sizeof(d[1].pci_bus_id), "0000:17:00.0");
	nbw_heat_cuda_sched(d, 2, word, sizeof(word), note, sizeof(note));
	assert_string_equal(word, "unknown");
	assert_string_equal(note, "libcuda.so.1 is not loaded in this process");
	void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	assert_non_null(h);
	setenv("FAKE_CUDA_BUSES", "0000:17:00.0,0000:65:00.0", 1);
	setenv("FAKE_CUDA_SCHED", "0x4,0x4", 1);
	nbw_heat_cuda_sched(d, 2, word, sizeof(word), note, sizeof(note));
	assert_string_equal(word, "blocking");
	assert_string_equal(note, "CUDA device 1: flags 0x4 (blocking), context active; "
				  "CUDA device 0: flags 0x4 (blocking), context active");
	setenv("FAKE_CUDA_SCHED", "0x4,0x1", 1);
	nbw_heat_cuda_sched(d, 2, word, sizeof(word), note, sizeof(note));
	assert_string_equal(word, "mixed");
	assert_non_null(strstr(note, "CUDA device 0: flags 0x4 (blocking)"));
	/* Without a PCI address: libomptarget's number is the CUDA ordinal. */
	d[0].pci_bus_id[0] = '\0';
	setenv("FAKE_CUDA_SCHED", "0x1", 1);
	nbw_heat_cuda_sched(d, 1, word, sizeof(word), note, sizeof(note));
	assert_string_equal(word, "spin");
	assert_string_equal(note, "CUDA device 0: flags 0x1 (spin), context active");
	/* A device the driver does not know. */
	d[0].runtime_id = 5;
	nbw_heat_cuda_sched(d, 1, word, sizeof(word), note, sizeof(note));
	assert_string_equal(word, "unknown");
	assert_string_equal(note, "CUDA device 5: CUresult 101");
	dlclose(h);
}

static void test_record(void **state)
{
	(void)state;
	struct nbw_heat_record r;
	memset(&r, 0, sizeof(r));
	double samples[3] = { 2.0, 1.0, 3.0 };
	char err[256];
	r.version = NBW_HEAT_V3;
	nbw_heat_grid_init(&r.grid, 12, 12, 12, err, sizeof(err));
	r.ndev = 2;
	r.devices[0] = 0;
	r.devices[1] = 2;
	nbw_heat_split(&r.grid, 2, r.slabs, err, sizeof(err));
	snprintf(r.device_kind, sizeof(r.device_kind), "host-plugin");
	r.steps = 10;
	r.reps = 3;
	r.samples_s = samples;
	r.seconds = 2.0;
	r.host_threads = 2;
	r.hidden_helpers = 8;
	r.roofline.gbs = 10.0;
	snprintf(r.roofline.source, sizeof(r.roofline.source), "given");
	snprintf(r.roofline.method, sizeof(r.roofline.method), "--roofline-gbs 10");
	snprintf(r.verify_status, sizeof(r.verify_status), "failed");
	r.check.max_abs_diff = 1e-3;
	r.check.bad = 1;
	r.check.first_bad = (size_t)(5 * 12 + 4) * 12 + 3;
	/* 1000 points x 10 steps in 2 s: 5000 points/s, 160000 B/s, 1.6e-5 of 10 GB/s */
	assert_float_equal(nbw_heat_points_per_s(&r), 5000.0, 1e-9);
	assert_float_equal(nbw_heat_bytes_per_s(&r), 160000.0, 1e-6);
	assert_float_equal(nbw_heat_roofline_fraction(&r), 1.6e-5, 1e-15);

	json_t *j = nbw_heat_record_to_json(&r);
	assert_string_equal(json_string_value(json_object_get(j, "version")), "v3");
	assert_int_equal(json_integer_value(json_object_get(j, "G")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "cubic_n")), 12);
	assert_int_equal(json_integer_value(json_object_get(j, "interior_points")), 1000);
	assert_int_equal(json_array_size(json_object_get(j, "samples_s")), 3);
	assert_float_equal(json_real_value(json_object_get(j, "k_s_per_point")), 2.0 / 1e4,
			   1e-18);
	json_t *slab = json_array_get(json_object_get(j, "slabs"), 1);
	assert_int_equal(json_integer_value(json_object_get(slab, "device")), 2);
	assert_int_equal(json_integer_value(json_object_get(slab, "planes")), 5);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(slab, "local_shape"), 2)),
			 7);
	json_t *halo = json_object_get(j, "halo");
	assert_int_equal(json_integer_value(json_object_get(halo, "planes_per_step")), 2);
	assert_int_equal(json_integer_value(json_object_get(halo, "bytes_per_plane")), 8 * 144);
	json_t *ver = json_object_get(j, "verification");
	assert_string_equal(json_string_value(json_object_get(ver, "status")), "failed");
	assert_string_equal(json_string_value(json_object_get(ver, "detail")),
			    "first at i=3 j=4 k=5");
	assert_true(json_is_null(json_object_get(j, "phases_s")));
	assert_true(json_is_null(json_object_get(j, "error")));
	json_decref(j);

	/* A failed run has no speed; an instrumented one has its phases. */
	snprintf(r.error, sizeof(r.error), "omp_target_alloc failed");
	j = nbw_heat_record_to_json(&r);
	assert_true(json_is_null(json_object_get(j, "seconds")));
	assert_true(json_is_null(json_object_get(j, "points_per_s")));
	assert_string_equal(json_string_value(json_object_get(j, "error")),
			    "omp_target_alloc failed");
	json_decref(j);
	r.error[0] = '\0';
	r.instrumented = true;
	r.phases = (struct nbw_heat_phases){ 1.0, 0.25, 0.5, 0.125, 2.0 };
	j = nbw_heat_record_to_json(&r);
	json_t *ph = json_object_get(j, "phases_s");
	assert_float_equal(json_real_value(json_object_get(ph, "halo_exchange")), 0.5, 0.0);
	assert_float_equal(json_real_value(json_object_get(ph, "total")), 2.0, 0.0);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_grid),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_serial_one_step),
		cmocka_unit_test(test_serial_symmetry),
		cmocka_unit_test(test_serial_threads_bit_identical),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_options_bad),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_cuda_sched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
