/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the machine speed reference (nodebw/speedref.h): it measures real host work,
 * so the checks are of what any working machine gives (finite, positive figures, a copy
 * that reproduced its source) and of the record's shape, not of speeds. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/speedref.h"

static void test_measure(void **state)
{
	(void)state;
	struct nbw_speedref s;
	char err[200] = "";
	assert_int_equal(nbw_speedref_measure(&s, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* A step is four multiply-adds: more than a picosecond, less than a millisecond on
	 * anything that runs this test (valgrind and the sanitizers included). */
	assert_true(isfinite(s.core_ns) && s.core_ns > 1e-3 && s.core_ns < 1e6);
	assert_true(isfinite(s.cache_gbps) && s.cache_gbps > 0.0);
	assert_true(isfinite(s.memory_gbps) && s.memory_gbps > 0.0);
	/* The whole measurement includes the kernels' own time. */
	double kernels = 5.0 * s.core_ns * 1e-9 * NBW_SPEEDREF_CORE_STEPS +
			 5.0 * NBW_SPEEDREF_MEMORY_BYTES / (s.memory_gbps * 1e9);
	assert_true(s.seconds >= kernels);
}

static void test_json(void **state)
{
	(void)state;
	struct nbw_speedref s = {.core_ns = 1.5, .cache_gbps = 80.0, .memory_gbps = 9.5,
				 .seconds = 0.25};
	json_t *j = nbw_speedref_json(&s);
	assert_non_null(j);
	assert_int_equal(json_object_size(j), 4);
	assert_true(json_real_value(json_object_get(j, "core_ns_per_step")) == 1.5);
	assert_true(json_real_value(json_object_get(j, "cache_gbps")) == 80.0);
	assert_true(json_real_value(json_object_get(j, "memory_gbps")) == 9.5);
	assert_true(json_real_value(json_object_get(j, "seconds")) == 0.25);
	json_decref(j);
	/* The method names its units and its byte counting. */
	assert_non_null(strstr(nbw_speedref_method(), "GB/s = 1e9 B/s"));
	assert_non_null(strstr(nbw_speedref_method(), "counted once"));
}

/* The best of each kernel over recorded points, and each point against it, by hand: the
 * core's figure is a time (least is best), the copies' rates (largest is best); a failed
 * point and a missing figure count for nothing. */
static void test_best_and_slower(void **state)
{
	(void)state;
	json_t *list = json_loads(
		"[{\"at\": \"start\", \"core_ns_per_step\": 1.2, \"cache_gbps\": 100.0,"
		"  \"memory_gbps\": 20.0},"
		" {\"at\": \"after probes\", \"error\": \"out of memory\"},"
		" {\"at\": \"solver round 1\", \"core_ns_per_step\": 1.5, \"cache_gbps\": 110.0},"
		" {\"at\": \"solver round 2\", \"core_ns_per_step\": 1.1, \"cache_gbps\": 88.0,"
		"  \"memory_gbps\": 16.0}]",
		0, NULL);
	assert_non_null(list);
	struct nbw_speedref b;
	nbw_speedref_best(list, &b);
	assert_true(b.core_ns == 1.1 && b.cache_gbps == 110.0 && b.memory_gbps == 20.0);
	double x[3];
	nbw_speedref_slower(json_array_get(list, 3), &b, x);
	assert_true(x[0] == 1.0 && fabs(x[1] - 1.25) < 1e-12 && fabs(x[2] - 1.25) < 1e-12);
	nbw_speedref_slower(json_array_get(list, 2), &b, x);
	assert_true(fabs(x[0] - 1.5 / 1.1) < 1e-12 && x[1] == 1.0 && isnan(x[2]));
	nbw_speedref_slower(json_array_get(list, 1), &b, x);
	assert_true(isnan(x[0]) && isnan(x[1]) && isnan(x[2]));
	json_decref(list);
	/* No points at all: nothing is best. */
	json_t *none = json_array();
	nbw_speedref_best(none, &b);
	assert_true(isnan(b.core_ns) && isnan(b.cache_gbps) && isnan(b.memory_gbps));
	json_decref(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_best_and_slower),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
