/* SPDX-License-Identifier: BSD-3-Clause */
/* The model formulas against hand-computed cases, the alpha-beta fit, transfer-time lookup
 * and calibration files (good and bad). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/model.h"
#include "nodebw/report.h"

#define REL(a, b) (fabs((a) - (b)) / fabs(b))

static struct nbw_xpath path(const char *name, double alpha, double beta)
{
	struct nbw_xpath p;
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "%s", name);
	p.alpha_s = alpha;
	p.beta_gbps = beta;
	return p;
}

/* Table 6, NVIDIA H100: k-bar 6.4042e-11 s, beta_P2P 253.11 GB/s; 500 steps.
 * Eq. 10 by hand: N = 512: 510^3 = 132651000 points; 6.4042e-11 x 132651000 / 2 =
 * 4.24770e-3 s; plane 8 x 512^2 = 2097152 B / 253.11e9 = 8.28554e-6 s;
 * 500 x (4.24770e-3 + 8.28554e-6) = 2.12795 s. G = 4: 500 x (2.12385e-3 + 8.28554e-6)
 * = 1.06605 s. N = 1280: 1278^3 = 2087336952; 500 x (6.68385e-2 + 5.17891e-5) = 33.4452 s. */
static void test_eq10_table6_h100(void **state)
{
	(void)state;
	struct nbw_xpath p = path("p2p", -1.0, 253.11);
	struct nbw_calib c = {.kbar_given = 6.4042e-11, .paths = &p, .npaths = 1};
	struct nbw_paper_pred r;
	char why[256];
	assert_int_equal(nbw_predict_paper(&c, NBW_KBAR_ALL, 512, 2, "v4", 500, &r, why,
					   sizeof(why)), 0);
	assert_string_equal(r.equation, "Eq. 10");
	assert_true(REL(r.total_s, 2.12795) < 1e-5);
	assert_true(REL(r.beta_gbps[0], 253.11) < 1e-9);
	/* Eq. 12: the larger of compute and transfer per step. */
	assert_true(REL(r.overlap_s, 2.12381) < 1e-5);
	assert_int_equal(nbw_predict_paper(&c, NBW_KBAR_ALL, 512, 4, "v4", 500, &r, why,
					   sizeof(why)), 0);
	assert_true(REL(r.total_s, 1.06605) < 1e-5);
	assert_int_equal(nbw_predict_paper(&c, NBW_KBAR_ALL, 1280, 2, "v4", 500, &r, why,
					   sizeof(why)), 0);
	assert_true(REL(r.total_s, 33.4452) < 1e-5);
}

/* Eq. 9 with HtoD 20 GB/s and DtoH 25 GB/s, k-bar 1e-10, N = 130, G = 2, 10 steps:
 * compute 10 x 1e-10 x 128^3 / 2 = 1.048576e-3 s; plane 8 x 130^2 = 135200 B:
 * HtoD 6.76e-6 s, DtoH 5.408e-6 s; transfer 10 x 1.2168e-5 = 1.2168e-4 s;
 * total 1.170256e-3 s; Eq. 11: 10 x max(1.048576e-4, 1.2168e-5) = 1.048576e-3 s. */
static void test_eq9_host_staged(void **state)
{
	(void)state;
	struct nbw_xpath p[2] = {path("htod", -1.0, 20.0), path("dtoh", -1.0, 25.0)};
	struct nbw_calib c = {.kbar_given = 1e-10, .paths = p, .npaths = 2};
	struct nbw_paper_pred r;
	char why[256];
	for (int v = 1; v <= 3; v++) {
		char vn[3] = {'v', (char)('0' + v), 0};
		assert_int_equal(nbw_predict_paper(&c, NBW_KBAR_ALL, 130, 2, vn, 10, &r, why,
						   sizeof(why)), 0);
		assert_string_equal(r.equation, "Eq. 9");
		assert_true(REL(r.compute_s, 1.048576e-3) < 1e-9);
		assert_true(REL(r.transfer_s, 1.2168e-4) < 1e-9);
		assert_true(REL(r.total_s, 1.170256e-3) < 1e-9);
		assert_true(REL(r.overlap_s, 1.048576e-3) < 1e-9);
	}
	/* Version 4 needs beta_P2P, which this calibration lacks: named in the message. */
	assert_int_equal(nbw_predict_paper(&c, NBW_KBAR_ALL, 130, 2, "v4", 10, &r, why,
					   sizeof(why)), -1);
	assert_non_null(strstr(why, "p2p"));
	/* One device or an unknown version is not the model's. */
	assert_int_equal(nbw_predict_paper(&c, NBW_KBAR_ALL, 130, 1, "v1", 10, &r, why,
					   sizeof(why)), -1);
	assert_int_equal(nbw_predict_paper(&c, NBW_KBAR_ALL, 130, 2, "v5", 10, &r, why,
					   sizeof(why)), -1);
}

/* Eq. 8: k(N) = 1, 2, 3, 4, 5 (x 1e-10) for N = 64, 128, 192, 256, 320 (given out of
 * order): mean over all = 3e-10; the three largest (192, 256, 320) = 4e-10. */
static void test_kbar_rules(void **state)
{
	(void)state;
	struct nbw_ksample k[5] = {{256, 254, 4e-10}, {64, 62, 1e-10}, {320, 318, 5e-10},
				   {128, 126, 2e-10}, {192, 190, 3e-10}};
	struct nbw_calib c = {.k = k, .nk = 5};
	double kb;
	assert_int_equal(nbw_calib_kbar(&c, NBW_KBAR_ALL, &kb, NULL, 0), 0);
	assert_true(REL(kb, 3e-10) < 1e-12);
	assert_int_equal(nbw_calib_kbar(&c, NBW_KBAR_TOP3, &kb, NULL, 0), 0);
	assert_true(REL(kb, 4e-10) < 1e-12);
	struct nbw_calib none = {0};
	char why[128];
	assert_int_equal(nbw_calib_kbar(&none, NBW_KBAR_ALL, &kb, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no k"));
}

static void test_xfer_lookup(void **state)
{
	(void)state;
	double b[3] = {1000, 3000, 9000}, t[3] = {1e-6, 3e-6, 5e-6};
	struct nbw_xpath p = path("htod", 0.5e-6, 10.0);
	p.n = 3;
	p.bytes = b;
	p.seconds = t;
	struct nbw_calib c = {.paths = &p, .npaths = 1};
	double x;
	char how[160];
	assert_int_equal(nbw_calib_xfer_s(&c, "htod", 3000, &x, how, sizeof(how)), 0);
	assert_true(REL(x, 3e-6) < 1e-12);
	assert_non_null(strstr(how, "measured"));
	/* Between measured sizes: linear in size. */
	assert_int_equal(nbw_calib_xfer_s(&c, "htod/async", 6000, &x, how, sizeof(how)), 0);
	assert_true(REL(x, 4e-6) < 1e-12);
	assert_non_null(strstr(how, "interpolated"));
	/* Beyond: alpha + n / beta = 0.5 us + 1e6 / 1e10 s = 100.5 us. */
	assert_int_equal(nbw_calib_xfer_s(&c, "htod", 1e6, &x, how, sizeof(how)), 0);
	assert_true(REL(x, 100.5e-6) < 1e-12);
	/* No fallback from a concurrency variant to the single copy, none across directions. */
	assert_int_equal(nbw_calib_xfer_s(&c, "htod/async/dual", 6000, &x, how, sizeof(how)), -1);
	assert_int_equal(nbw_calib_xfer_s(&c, "dtoh", 6000, &x, how, sizeof(how)), -1);
	assert_non_null(strstr(how, "dtoh"));
}

/* Extended model, Version 4 on 4 devices, N = 102 (100 interior planes, P = 25 each),
 * 10 steps, k_slab 2e-10 for the 102x102x27 slab, busy 1.5 and overhead 3 us (median of
 * two instrumented sizes), P2P 20 us per plane and 30 us with both directions at once.
 * compute/step = 2e-10 x 1.5 x 100^2 x 25 = 7.5e-5 s; boundary = 2e-10 x 1.5 x 1e4 x 2
 * = 6e-6 s; interior devices move 2 planes; contention 30/20 = 1.5; transfer/step =
 * 2 x 20e-6 x 1.5 = 6e-5 s. On a GPU (overlap): 6e-6 + max(6.9e-5, 6e-5) + 3e-6 = 7.8e-5 s
 * per step -> 7.8e-4 s. On the host plugin without hidden helpers (no overlap):
 * 7.5e-5 + 6e-5 + 3e-6 = 1.38e-4 s per step -> 1.38e-3 s. */
static void test_extended_v4(void **state)
{
	(void)state;
	double b1[1] = {8.0 * 102 * 102}, t1[1] = {20e-6}, t2[1] = {30e-6};
	struct nbw_xpath p[2] = {path("p2p/async", -1.0, 0.0), path("p2p/async/bidir", -1.0, 0.0)};
	p[0].n = p[1].n = 1;
	p[0].bytes = p[1].bytes = b1;
	p[0].seconds = t1;
	p[1].seconds = t2;
	struct nbw_ksample slab = {102, 25, 2e-10};
	struct nbw_vsample vs[3] = {{.version = "v4", .g = 4, .n = 66, .busy = 1.4, .overhead_s = 2e-6},
				    {.version = "v4", .g = 4, .n = 130, .busy = 1.6, .overhead_s = 4e-6},
				    {.version = "v4", .g = 4, .n = 102, .busy = 9.0, .overhead_s = 9e-3}};
	struct nbw_calib c = {.slab = &slab, .nslab = 1, .paths = p, .npaths = 2, .vs = vs,
			      .nvs = 3, .hidden_helpers = 0};
	snprintf(c.device_kind, sizeof(c.device_kind), "cuda");
	struct nbw_ext_pred e;
	char why[256];
	/* Leave-one-out: the N = 102 sample (an outlier here) is not used. */
	assert_int_equal(nbw_predict_ext(&c, 102, 4, "v4", 10, 102, &e, why, sizeof(why)), 0);
	assert_int_equal(e.planes, 25);
	assert_int_equal(e.xfers, 2);
	assert_true(REL(e.busy, 1.5) < 1e-12);
	assert_true(REL(e.contention, 1.5) < 1e-12);
	assert_true(e.overlap);
	assert_true(REL(e.compute_s, 7.5e-4) < 1e-9);
	assert_true(REL(e.transfer_s, 6e-4) < 1e-9);
	assert_true(REL(e.overhead_s, 3e-5) < 1e-9);
	assert_true(REL(e.total_s, 7.8e-4) < 1e-9);
	snprintf(c.device_kind, sizeof(c.device_kind), "host-plugin");
	assert_int_equal(nbw_predict_ext(&c, 102, 4, "v4", 10, 102, &e, why, sizeof(why)), 0);
	assert_false(e.overlap);
	assert_true(REL(e.total_s, 1.38e-3) < 1e-9);
}

/* Measured samples: y = 5 us + 1.5 x exactly at three sizes, and a wild fourth sample at
 * the size being predicted, which leave-one-out must ignore: busy 1.5, overhead 5 us. */
static void test_extended_fit(void **state)
{
	(void)state;
	struct nbw_xpath p[2] = {path("htod", 0.0, 10.0), path("dtoh", 0.0, 10.0)};
	struct nbw_ksample slab = {66, 16, 1e-9};
	struct nbw_vsample vs[4] = {
		{.version = "v3", .g = 4, .n = 34, .x_s = 1e-5, .y_s = 5e-6 + 1.5e-5},
		{.version = "v3", .g = 4, .n = 50, .x_s = 3e-5, .y_s = 5e-6 + 4.5e-5},
		{.version = "v3", .g = 4, .n = 82, .x_s = 9e-5, .y_s = 5e-6 + 1.35e-4},
		{.version = "v3", .g = 4, .n = 66, .x_s = 4e-5, .y_s = 1.0},
	};
	struct nbw_calib c = {.slab = &slab, .nslab = 1, .paths = p, .npaths = 2, .vs = vs,
			      .nvs = 4};
	struct nbw_ext_pred e;
	char why[256];
	assert_int_equal(nbw_predict_ext(&c, 66, 4, "v3", 1, 66, &e, why, sizeof(why)), 0);
	assert_true(REL(e.busy, 1.5) < 1e-9);
	assert_true(REL(e.overhead_s, 5e-6) < 1e-9);
	/* compute = 1.5 x 1e-9 x 64^2 x 16 planes. */
	assert_true(REL(e.compute_s, 1.5e-9 * 4096 * 16) < 1e-9);
}

/* Version 1 on 3 devices: one host thread moves 2 (G-1) = 4 planes each way per step, each
 * a DtoH then an HtoD (4 + 6 us): transfer/step = 4 x 10 us = 40 us. N = 32: 30 planes,
 * P = 10; no instrumented runs: busy 1, overhead 0; k from the slab 32x32x12 = 1e-9:
 * compute/step = 1e-9 x 900 x 10 = 9 us; total/step 49 us -> 4.9e-4 s for 10 steps. */
static void test_extended_v1_planes(void **state)
{
	(void)state;
	struct nbw_xpath p[2] = {path("htod/sync", 4e-6, 0.0), path("dtoh/sync", 6e-6, 0.0)};
	double b[2] = {1.0, 1e9}, th[2] = {4e-6, 4e-6 + 1.0}, td[2] = {6e-6, 6e-6 + 1.0};
	p[0].n = p[1].n = 2;
	p[0].bytes = p[1].bytes = b;
	p[0].seconds = th;
	p[1].seconds = td;
	struct nbw_ksample slab = {32, 10, 1e-9};
	struct nbw_calib c = {.slab = &slab, .nslab = 1, .paths = p, .npaths = 2};
	struct nbw_ext_pred e;
	char why[256];
	assert_int_equal(nbw_predict_ext(&c, 32, 3, "v1", 10, 0, &e, why, sizeof(why)), 0);
	assert_int_equal(e.xfers, 4);
	assert_false(e.overlap);
	double plane = 8.0 * 32 * 32;
	double t = 4e-6 + (plane - 1.0) / (1e9 - 1.0) + 6e-6 + (plane - 1.0) / (1e9 - 1.0);
	assert_true(REL(e.xfer_one_s, t) < 1e-9);
	assert_true(REL(e.total_s, 10 * (9e-6 + 4 * t)) < 1e-9);
	/* Without any k the extended model names what is missing. */
	struct nbw_calib none = {.paths = p, .npaths = 2};
	assert_int_equal(nbw_predict_ext(&none, 32, 3, "v1", 10, 0, &e, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "slab"));
}

static void test_abfit(void **state)
{
	(void)state;
	/* Exact alpha = 2 us, beta = 10 GB/s: t = 2e-6 + n / 1e10. */
	double n[4] = {8, 4096, 1 << 20, 1 << 26}, t[4];
	for (int i = 0; i < 4; i++)
		t[i] = 2e-6 + n[i] / 1e10;
	struct nbw_abfit f;
	assert_int_equal(nbw_abfit(n, t, 4, &f), 0);
	assert_true(REL(f.alpha_s, 2e-6) < 1e-6);
	assert_true(REL(f.beta_gbps, 10.0) < 1e-6);
	assert_true(REL(f.n_half_bytes, 2e4) < 1e-5);
	assert_true(f.max_rel_resid < 1e-9);
	/* Data that would give a negative intercept: alpha held at 0. */
	double t2[4] = {1e-12, 4096 / 1e10 * 0.5, (1 << 20) / 1e10, (1 << 26) / 1e10};
	assert_int_equal(nbw_abfit(n, t2, 4, &f), 0);
	assert_true(f.alpha_s == 0.0);
	assert_true(f.beta_gbps > 0.0);
	/* One size only: no fit, and why. */
	double same[2] = {64, 64}, ts[2] = {1e-6, 2e-6};
	assert_int_equal(nbw_abfit(same, ts, 2, &f), -1);
	assert_non_null(strstr(f.why, "two distinct"));
}

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/nbw-calib-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void expect_load_error(const char *text, const char *needle)
{
	char *p = write_tmp(text);
	struct nbw_calib c;
	char err[512];
	assert_int_equal(nbw_calib_load(p, &c, err, sizeof(err)), -1);
	if (!strstr(err, needle) || !strstr(err, p))
		fail_msg("error '%s' should name '%s' and the file", err, needle);
	unlink(p);
	free(p);
}

static void test_calib_files(void **state)
{
	(void)state;
	const char *good =
		"{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, \"steps\": 500,\n"
		" \"k\": {\"kbar\": 6.4042e-11},\n"
		" \"transfers\": {\"p2p\": {\"beta_gbps\": 253.11},\n"
		"  \"htod/sync\": {\"alpha_s\": 1e-6, \"points\": [[1024, 2e-6], [2048, 3e-6]]}},\n"
		" \"versions\": [{\"version\": \"v4\", \"G\": 2, \"busy\": 1.1, \"overhead_s\": 1e-5}]}\n";
	char *p = write_tmp(good);
	struct nbw_calib c;
	char err[512];
	assert_int_equal(nbw_calib_load(p, &c, err, sizeof(err)), 0);
	assert_int_equal(c.steps, 500);
	assert_true(REL(c.kbar_given, 6.4042e-11) < 1e-12);
	assert_int_equal(c.npaths, 2);
	assert_int_equal(c.nvs, 1);
	/* Round trip through JSON. */
	json_t *j = nbw_calib_to_json(&c);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), NBW_CALIB_SCHEMA);
	json_decref(j);
	nbw_calib_free(&c);
	unlink(p);
	free(p);

	expect_load_error("{\"schema\": \"nodebw-calibration\",\n \"schema_version\": 1,,}", ":2:");
	expect_load_error("[1, 2]", "not a nodebw calibration");
	expect_load_error("{\"schema\": \"nodebw-calibration\", \"schema_version\": 7}",
			  "schema_version");
	expect_load_error("{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, "
			  "\"transfers\": {\"p2p\": {\"beta_gbps\": -3}}}",
			  "transfers.p2p");
	/* A bad field is named by its line and column. */
	expect_load_error("{\"schema\": \"nodebw-calibration\",\n \"schema_version\": 1,\n"
			  " \"transfers\": {\"htod\": {\"beta_gbps\": 3},\n"
			  "   \"p2p\": {\"beta_gbps\": -3}}}",
			  ":4:11: transfers.p2p");
	expect_load_error("{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, "
			  "\"transfers\": {\"sideways\": {\"beta_gbps\": 3}}}",
			  "transfers.sideways");
	expect_load_error("{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, "
			  "\"k\": {\"samples\": [{\"n\": 2, \"k\": 1e-9}]}}",
			  "k.samples[0]");
	expect_load_error("{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, "
			  "\"transfers\": {\"htod\": {\"points\": [[2048, 1e-6], [1024, 1e-6]]}}}",
			  "ascending");
	expect_load_error("{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, "
			  "\"versions\": [{\"version\": \"v9\", \"G\": 2}]}",
			  "versions[0]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eq10_table6_h100),
		cmocka_unit_test(test_eq9_host_staged),
		cmocka_unit_test(test_kbar_rules),
		cmocka_unit_test(test_xfer_lookup),
		cmocka_unit_test(test_extended_v4),
		cmocka_unit_test(test_extended_v1_planes),
		cmocka_unit_test(test_extended_fit),
		cmocka_unit_test(test_abfit),
		cmocka_unit_test(test_calib_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
