/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP-vs-native gap in words (report/gap_words.c): the verdict follows the relative
 * gap, and an extra time per transfer of the other sign is left out, never printed beside
 * words it contradicts. The figures are planted: +43 % beside -0.04 us is the case a
 * separately taken median gave on a recorded run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../report/gap_words.h"

static void contradicting_time_left_out(void **state)
{
	(void)state;
	char s[128];
	nbw_gap_small_words(0.43, -0.04, s, sizeof(s));
	assert_string_equal(s, "small sizes +43 % (OpenMP slower)");
	nbw_gap_small_words(-0.037, 1.06, s, sizeof(s));
	assert_string_equal(s, "small sizes -4 % (OpenMP faster)");
}

static void agreeing_time_printed(void **state)
{
	(void)state;
	char s[128];
	nbw_gap_small_words(0.91, 0.225, s, sizeof(s));
	assert_string_equal(s, "small sizes +91 % (OpenMP slower, +0.23 us per transfer)");
	nbw_gap_small_words(-0.087, -0.256, s, sizeof(s));
	assert_string_equal(s, "small sizes -9 % (OpenMP faster, -0.26 us per transfer)");
	nbw_gap_small_words(0.5, 39.3, s, sizeof(s));
	assert_string_equal(s, "small sizes +50 % (OpenMP slower, +39 us per transfer)");
}

static void agreement(void **state)
{
	(void)state;
	assert_true(nbw_gap_extra_agrees(0.1, 0.0));
	assert_true(nbw_gap_extra_agrees(-0.1, -2.0));
	assert_false(nbw_gap_extra_agrees(0.1, -0.01));
	assert_false(nbw_gap_extra_agrees(-0.1, 0.01));
	assert_false(nbw_gap_extra_agrees(NAN, 1.0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(contradicting_time_left_out),
		cmocka_unit_test(agreeing_time_printed),
		cmocka_unit_test(agreement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
