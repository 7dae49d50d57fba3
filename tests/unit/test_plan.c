/* SPDX-License-Identifier: BSD-3-Clause */
/* The probe plan's device sets (common/plan.c), without any backend: every device for
 * HtoD/DtoH, every ordered pair (single) and unordered pair (bidir) for P2P, the first set
 * with the whole sweep and the others at two sizes unless the user named the devices. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nodebw/plan.h"

#define MAXS 64

static void test_htod_each_device(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	struct nbw_plan_set s[MAXS];
	size_t n = nbw_plan_sets(NBW_HTOD, 1, devs, 4, false, s, MAXS);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].nstreams, 1);
		assert_int_equal(s[i].conc, NBW_CONC_SINGLE);
		assert_int_equal(s[i].src[0], -1);
		assert_int_equal(s[i].dst[0], (int)i);
		assert_int_equal(s[i].matrix_only, i > 0); /* device 0: the whole sweep */
	}
	n = nbw_plan_sets(NBW_DTOH, 1, devs, 4, false, s, MAXS);
	assert_int_equal(n, 4);
	assert_int_equal(s[2].src[0], 2);
	assert_int_equal(s[2].dst[0], -1);
}

static void test_dual_first_two(void **state)
{
	(void)state;
	const int devs[] = {2, 0, 1};
	struct nbw_plan_set s[MAXS];
	size_t n = nbw_plan_sets(NBW_HTOD, 2, devs, 3, true, s, MAXS);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].conc, NBW_CONC_DUAL);
	assert_int_equal(s[0].dst[0], 2);
	assert_int_equal(s[0].dst[1], 0);
	assert_int_equal(nbw_plan_sets(NBW_DTOH, 2, devs, 1, true, s, MAXS), 0);
}

static void test_p2p_every_ordered_pair(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	struct nbw_plan_set s[MAXS];
	size_t n = nbw_plan_sets(NBW_P2P, 1, devs, 4, false, s, MAXS);
	assert_int_equal(n, 12);
	bool seen[4][4] = {{false}};
	for (size_t i = 0; i < n; i++) {
		assert_int_not_equal(s[i].src[0], s[i].dst[0]);
		assert_false(seen[s[i].src[0]][s[i].dst[0]]);
		seen[s[i].src[0]][s[i].dst[0]] = true;
		bool first = (s[i].src[0] == 0 && s[i].dst[0] == 1) ||
			     (s[i].src[0] == 1 && s[i].dst[0] == 0);
		assert_int_equal(s[i].matrix_only, !first);
	}
	assert_int_equal(s[0].src[0], 0); /* the first pair comes first */
	assert_int_equal(s[0].dst[0], 1);
}

static void test_p2p_bidir_unordered(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	struct nbw_plan_set s[MAXS];
	size_t n = nbw_plan_sets(NBW_P2P, 2, devs, 4, false, s, MAXS);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].nstreams, 2);
		assert_int_equal(s[i].conc, NBW_CONC_BIDIR);
		assert_int_equal(s[i].src[0], s[i].dst[1]);
		assert_int_equal(s[i].dst[0], s[i].src[1]);
		assert_true(s[i].src[0] < s[i].dst[0]);
	}
}

static void test_named_devices_all_sweep(void **state)
{
	(void)state;
	/* --devices 2,3,1: every pair among them, each with the whole sweep (the old core
	 * measured 2 -> 3 and ignored 1) */
	const int devs[] = {2, 3, 1};
	struct nbw_plan_set s[MAXS];
	size_t n = nbw_plan_sets(NBW_P2P, 1, devs, 3, true, s, MAXS);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_false(s[i].matrix_only);
	assert_int_equal(s[0].src[0], 2);
	assert_int_equal(s[0].dst[0], 3);
}

static void test_one_device_and_bounds(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	struct nbw_plan_set s[MAXS];
	/* one device: P2P is the same-device copy, never a pair; no bidir */
	size_t n = nbw_plan_sets(NBW_P2P, 1, devs, 1, false, s, MAXS);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].src[0], 0);
	assert_int_equal(s[0].dst[0], 0);
	assert_int_equal(nbw_plan_sets(NBW_P2P, 2, devs, 1, false, s, MAXS), 0);
	assert_int_equal(nbw_plan_sets(NBW_HTOD, 1, devs, 0, false, s, MAXS), 0);
	/* never more than the room given */
	assert_int_equal(nbw_plan_sets(NBW_P2P, 1, devs, 4, false, s, 5), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_htod_each_device),
		cmocka_unit_test(test_dual_first_two),
		cmocka_unit_test(test_p2p_every_ordered_pair),
		cmocka_unit_test(test_p2p_bidir_unordered),
		cmocka_unit_test(test_named_devices_all_sweep),
		cmocka_unit_test(test_one_device_and_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
