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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
