/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a results file states beside its samples, checked where it is loaded
 * (common/results_check.c): the edges of each rule on edited copies of a recorded file.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/results.h"

#define RECORDED NODEBW_FIXTURES "/results-omp-host-2cpu-vm.json"
#define REDUCED NODEBW_FIXTURES "/results-run-paired-2cpu-vm.json"

static json_t *recorded(const char *path)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root)
		fail_msg("%s: %s", path, je.text);
	return root;
}

/* Loads \p root as a file: NULL when it loads, else the error (static). */
static const char *load(json_t *root)
{
	static char err[1024];
	char *text = json_dumps(root, JSON_REAL_PRECISION(17));
	assert_non_null(text);
	struct nbw_doc *d = nbw_doc_load_buffer("f.json", text, strlen(text), err, sizeof(err));
	free(text);
	json_decref(root);
	if (d) {
		nbw_doc_free(d);
		return NULL;
	}
	return err;
}

static void expect(const char *err, const char *want)
{
	if (!err)
		fail_msg("loaded; expected an error with \"%s\"", want);
	if (!strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
}

static json_t *meas(json_t *root, size_t i)
{
	return json_array_get(json_object_get(root, "measurements"), i);
}

static void scale(json_t *o, const char *key, double f)
{
	json_t *v = json_object_get(o, key);
	json_object_set_new(o, key, json_real(json_number_value(v) * f));
}

static void test_recorded_loads(void **state)
{
	(void)state;
	assert_null(load(recorded(RECORDED)));
	assert_null(load(recorded(REDUCED)));
}

/* A stored median within the tolerance loads; one beyond it is refused, naming the field. */
static void test_median_tolerance(void **state)
{
	(void)state;
	json_t *r = recorded(RECORDED);
	scale(json_object_get(meas(r, 0), "gbps"), "median", 1 + 5e-7);
	assert_null(load(r));
	r = recorded(RECORDED);
	scale(json_object_get(meas(r, 0), "gbps"), "median", 1 + 1e-4);
	expect(load(r), "f.json:1:");
	r = recorded(RECORDED);
	scale(json_object_get(meas(r, 0), "gbps"), "median", 1 + 1e-4);
	expect(load(r), "measurements[0]: gbps.median: ");
	r = recorded(RECORDED);
	scale(json_object_get(meas(r, 0), "seconds"), "max", 2);
	expect(load(r), "measurements[0]: seconds.max: ");
	r = recorded(RECORDED);
	json_object_del(meas(r, 0), "gbps");
	expect(load(r), "gbps.median: not a number, where its samples give");
}

/* No samples: the writer's zeros load; a figure with n 0 does not; a reduced summary must be
 * the rates of its times. */
static void test_no_samples(void **state)
{
	(void)state;
	json_t *r = recorded(RECORDED), *m = meas(r, 0);
	json_object_set_new(m, "samples_s", json_array());
	json_t *s = json_array_get(json_object_get(m, "streams"), 0);
	json_object_set_new(s, "samples_s", json_array());
	json_object_set_new(s, "gbps", json_pack("{s:i, s:f, s:f, s:f}", "n", 0, "median", 0.0,
						 "min", 0.0, "max", 0.0));
	json_object_set_new(m, "gbps", json_pack("{s:i, s:f, s:f, s:f}", "n", 0, "median", 0.0,
						 "min", 0.0, "max", 0.0));
	json_object_set_new(m, "seconds", json_pack("{s:i, s:f, s:f, s:f}", "n", 0, "median", 0.0,
						    "min", 0.0, "max", 0.0));
	json_t *copy = json_deep_copy(r);
	assert_null(load(r));
	json_object_set_new(json_object_get(meas(copy, 0), "gbps"), "median", json_real(3.0));
	expect(load(copy), "gbps.median: a figure with no samples behind it");

	r = recorded(REDUCED);
	assert_int_equal(json_array_size(json_object_get(meas(r, 0), "samples_s")), 0);
	scale(json_object_get(meas(r, 0), "seconds"), "min", 0.5);
	expect(load(r), "gbps.max: disagrees with the times in 'seconds'");
	r = recorded(REDUCED);
	json_object_set_new(json_object_get(meas(r, 0), "seconds"), "n", json_integer(1));
	expect(load(r), "gbps.n: disagrees");
}

static void test_theoretical_range(void **state)
{
	(void)state;
	const double ok[] = {1e-3, 1e6}, bad[] = {9.99e-4, 1.01e6, 0, -1, 5e-324};
	for (size_t i = 0; i < 2; i++) {
		json_t *r = recorded(RECORDED);
		json_object_set_new(meas(r, 0), "theoretical",
				    json_pack("{s:f, s:s}", "gbps", ok[i], "link", "x"));
		assert_null(load(r));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *r = recorded(RECORDED);
		json_object_set_new(meas(r, 0), "theoretical",
				    json_pack("{s:f, s:s}", "gbps", bad[i], "link", "x"));
		expect(load(r), "measurements[0]: theoretical.gbps: not GB/s from 0.001 to 1e+06");
	}
	json_t *r = recorded(RECORDED);
	json_object_set_new(meas(r, 0), "theoretical",
			    json_pack("{s:s, s:s}", "gbps", "fast", "link", "x"));
	expect(load(r), "theoretical.gbps: not GB/s");
}

/* An endpoint is "host" or a device listed for the measurement's API. */
static void test_endpoints(void **state)
{
	(void)state;
	json_t *r = recorded(RECORDED);
	json_t *s = json_array_get(json_object_get(meas(r, 0), "streams"), 0);
	json_object_set_new(s, "src", json_integer(7));
	expect(load(r), "measurements[0]: streams[0].src: ");
	r = recorded(RECORDED);
	s = json_array_get(json_object_get(meas(r, 0), "streams"), 0);
	json_object_set_new(s, "dst", json_integer(63));
	expect(load(r), "measurements[0]: streams[0].dst: omp device 63 is not one of the devices");
	r = recorded(RECORDED);
	s = json_array_get(json_object_get(meas(r, 0), "streams"), 0);
	json_object_set_new(s, "src", json_string("host"));
	assert_null(load(r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_loads),
		cmocka_unit_test(test_median_tolerance),
		cmocka_unit_test(test_no_samples),
		cmocka_unit_test(test_theoretical_range),
		cmocka_unit_test(test_endpoints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
