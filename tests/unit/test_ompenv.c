/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/ompenv.c: the OpenMP runtime's environment, judged against fixed
 * limits (8 CPUs, 16 GiB) through a table standing in for the environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/ompenv.h"

static const char *env_name, *env_value, *env_name2, *env_value2;

static const char *one_var(const char *name)
{
	if (env_name2 && strcmp(name, env_name2) == 0)
		return env_value2;
	return env_name && strcmp(name, env_name) == 0 ? env_value : NULL;
}

static long helpers_min;

static int check(const char *name, const char *value)
{
	struct nbw_ompenv_limits l = {.cpus = 8, .memory = 16ULL << 30, .helpers_min = helpers_min};
	char err[400] = "";
	env_name = name;
	env_value = value;
	int rc = nbw_ompenv_check(one_var, &l, err, sizeof(err));
	if (rc) {
		assert_non_null(strstr(err, name));
		assert_null(strchr(err, '\n'));
	}
	return rc;
}

static void test_accepted(void **state)
{
	(void)state;
	assert_int_equal(check(NULL, NULL), 0);
	static const char *const ok[][2] = {
		{"LIBOMPTARGET_DEBUG", "0"}, {"LIBOMPTARGET_INFO", "-1"},
		{"LIBOMPTARGET_INFO", "32"}, {"OMP_NUM_THREADS", "1"},
		{"OMP_NUM_THREADS", "256"}, {"OMP_NUM_THREADS", "4,2"},
		{"OMP_STACKSIZE", "64M"}, {"OMP_STACKSIZE", "4096"}, {"OMP_STACKSIZE", "512M"},
		{"OMP_STACKSIZE", "8k"}, {"OMP_PROC_BIND", "spread,close"},
		{"OMP_PROC_BIND", "TRUE"}, {"OMP_PLACES", "cores"}, {"OMP_PLACES", "sockets(2)"},
		{"OMP_PLACES", "{0:4},{4:4}"}, {"OMP_PLACES", "{0,1},{2,3}"},
		{"LIBOMP_NUM_HIDDEN_HELPER_THREADS", "0"},
		{"LIBOMP_NUM_HIDDEN_HELPER_THREADS", "16"},
		{"KMP_STACKSIZE", "4M"}, {"GOMP_STACKSIZE", "64k"},
		{"OMP_THREAD_LIMIT", "8"}, {"KMP_DEVICE_THREAD_LIMIT", "64"},
		{"KMP_ALL_THREADS", "1024"},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (check(ok[i][0], ok[i][1]))
			fail_msg("%s=%s refused", ok[i][0], ok[i][1]);
}

static void test_refused(void **state)
{
	(void)state;
	static const char *const bad[][2] = {
		{"LIBOMPTARGET_DEBUG", "garbage"}, {"LIBOMPTARGET_DEBUG", ""},
		{"LIBOMPTARGET_DEBUG", "3abc"}, {"LIBOMPTARGET_INFO", "2147483648"},
		{"OMP_NUM_THREADS", "abc"}, {"OMP_NUM_THREADS", "-1"}, {"OMP_NUM_THREADS", "0"},
		{"OMP_NUM_THREADS", "257"}, {"OMP_NUM_THREADS", "4,"}, {"OMP_NUM_THREADS", ""},
		{"OMP_STACKSIZE", "1T"}, {"OMP_STACKSIZE", "0"}, {"OMP_STACKSIZE", "513M"},
		{"OMP_STACKSIZE", "M"}, {"OMP_STACKSIZE", "8KB"},
		{"OMP_STACKSIZE", "99999999999999999999G"}, {"OMP_PROC_BIND", "sideways"},
		{"OMP_PROC_BIND", "close,"}, {"OMP_PLACES", "cores(x)"}, {"OMP_PLACES", "{0:4"},
		{"OMP_PLACES", "{{0}}"}, {"OMP_PLACES", "bananas"},
		{"LIBOMP_NUM_HIDDEN_HELPER_THREADS", "17"},
		{"LIBOMP_NUM_HIDDEN_HELPER_THREADS", "-3"},
		/* tried: each of these aborts (1T) or spins for ever (a limit below 8) */
		{"KMP_STACKSIZE", "1T"}, {"GOMP_STACKSIZE", "1T"}, {"KMP_STACKSIZE", "abc"},
		{"OMP_THREAD_LIMIT", "4"}, {"OMP_THREAD_LIMIT", "7"}, {"OMP_THREAD_LIMIT", "0"},
		{"OMP_THREAD_LIMIT", "abc"}, {"KMP_DEVICE_THREAD_LIMIT", "4"},
		{"KMP_ALL_THREADS", "4"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (check(bad[i][0], bad[i][1]) != 2)
			fail_msg("%s='%s' accepted", bad[i][0], bad[i][1]);
}

/* The thread limit is held against the hidden-helper team: the variable's count (8 when
 * unset), and at least what the command starts itself (nodebw run's sweep: 8). */
static void test_limit_against_helpers(void **state)
{
	(void)state;
	env_name2 = "LIBOMP_NUM_HIDDEN_HELPER_THREADS";
	env_value2 = "16";
	assert_int_equal(check("OMP_THREAD_LIMIT", "12"), 2);
	assert_int_equal(check("OMP_THREAD_LIMIT", "16"), 0);
	env_value2 = "2";
	assert_int_equal(check("OMP_THREAD_LIMIT", "4"), 0);
	helpers_min = 8;
	assert_int_equal(check("OMP_THREAD_LIMIT", "4"), 2);
	assert_int_equal(check("OMP_THREAD_LIMIT", "8"), 0);
	helpers_min = 0;
	env_name2 = env_value2 = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_limit_against_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
