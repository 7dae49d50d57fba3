/* SPDX-License-Identifier: BSD-3-Clause */
/* nodebw's OpenMP device numbering (include/nodebw/devorder.h): GPUs first, each group in
 * the runtime's order. The cases are the device lists libomptarget gives for the builds
 * nodebw makes: host plugin only, a GPU only, and GPU and host targets together (where the
 * runtime puts the four host-plugin devices before the GPU). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nodebw/devorder.h"

static void check(int n, const bool *gpu, const int *want)
{
	int got[16];
	for (int i = 0; i < 16; i++)
		got[i] = -1;
	nbw_order_gpus_first(n, gpu, got);
	for (int i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
	assert_int_equal(got[n], -1); /* nothing written past the end */
}

static void test_host_plugin_only(void **state)
{
	(void)state;
	const bool gpu[] = {false, false, false, false};
	const int want[] = {0, 1, 2, 3};
	check(4, gpu, want);
}

static void test_gpu_after_host_plugin(void **state)
{
	(void)state;
	/* -fopenmp-targets=x86_64-pc-linux-gnu,nvptx64: four host devices, then the H200 */
	const bool gpu[] = {false, false, false, false, true};
	const int want[] = {4, 0, 1, 2, 3};
	check(5, gpu, want);
}

static void test_interleaved_keeps_runtime_order(void **state)
{
	(void)state;
	const bool gpu[] = {false, true, false, true, true, false};
	const int want[] = {1, 3, 4, 0, 2, 5};
	check(6, gpu, want);
}

static void test_gpus_only_and_empty(void **state)
{
	(void)state;
	const bool gpu[] = {true, true};
	const int want[] = {0, 1};
	check(2, gpu, want);
	check(0, gpu, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_plugin_only),
		cmocka_unit_test(test_gpu_after_host_plugin),
		cmocka_unit_test(test_interleaved_keeps_runtime_order),
		cmocka_unit_test(test_gpus_only_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
