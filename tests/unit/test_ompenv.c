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

static const char *env_name, *env_value;

static const char *one_var(const char *name)
{
	return env_name && strcmp(name, env_name) == 0 ? env_value : NULL;
}

static int check(const char *name, const char *value)
{
	struct nbw_ompenv_limits l = {.cpus = 8, .memory = 16ULL << 30};
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
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (check(bad[i][0], bad[i][1]) != 2)
			fail_msg("%s='%s' accepted", bad[i][0], bad[i][1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
