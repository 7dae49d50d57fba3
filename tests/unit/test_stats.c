/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/stats.c: summaries and rate conversion, against hand-computed values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/stats.h"

#define EPS 1e-12

static void test_odd(void **state)
{
	(void)state;
	/* Sorted: 1 2 3 4 10. mean 4, deviations -3 -2 -1 0 6, squares 9+4+1+0+36 = 50,
	 * sample variance 50/4 = 12.5. */
	const double x[] = { 4.0, 1.0, 10.0, 3.0, 2.0 };
	double copy[5];
	memcpy(copy, x, sizeof(x));
	struct nbw_summary s;
	assert_int_equal(nbw_summarize(copy, 5, &s), 0);
	assert_memory_equal(copy, x, sizeof(x));
	assert_int_equal(s.n, 5);
	assert_float_equal(s.median, 3.0, EPS);
	assert_float_equal(s.min, 1.0, EPS);
	assert_float_equal(s.max, 10.0, EPS);
	assert_float_equal(s.mean, 4.0, EPS);
	assert_float_equal(s.sd, sqrt(12.5), EPS);
	assert_float_equal(s.cv, sqrt(12.5) / 4.0, EPS);
}

static void test_even(void **state)
{
	(void)state;
	/* Sorted: 2 4 6 8 -> median (4+6)/2 = 5, mean 5, squares 9+1+1+9 = 20, var 20/3. */
	const double x[] = { 8.0, 2.0, 6.0, 4.0 };
	double copy[4];
	memcpy(copy, x, sizeof(x));
	struct nbw_summary s;
	assert_int_equal(nbw_summarize(copy, 4, &s), 0);
	assert_memory_equal(copy, x, sizeof(x));
	assert_int_equal(s.n, 4);
	assert_float_equal(s.median, 5.0, EPS);
	assert_float_equal(s.min, 2.0, EPS);
	assert_float_equal(s.max, 8.0, EPS);
	assert_float_equal(s.mean, 5.0, EPS);
	assert_float_equal(s.sd, sqrt(20.0 / 3.0), EPS);
	assert_float_equal(s.cv, sqrt(20.0 / 3.0) / 5.0, EPS);
}

static void test_two(void **state)
{
	(void)state;
	const double x[] = { 0.25, 0.75 };
	struct nbw_summary s;
	assert_int_equal(nbw_summarize(x, 2, &s), 0);
	assert_float_equal(s.median, 0.5, EPS);
	assert_float_equal(s.mean, 0.5, EPS);
	/* squares 0.0625 * 2 = 0.125, / (n-1) = 0.125 */
	assert_float_equal(s.sd, sqrt(0.125), EPS);
	assert_float_equal(s.cv, sqrt(0.125) / 0.5, EPS);
}

static void test_constant(void **state)
{
	(void)state;
	const double x[] = { 2.5, 2.5, 2.5 };
	struct nbw_summary s;
	assert_int_equal(nbw_summarize(x, 3, &s), 0);
	assert_float_equal(s.median, 2.5, EPS);
	assert_float_equal(s.sd, 0.0, EPS);
	assert_float_equal(s.cv, 0.0, EPS);
}

static void test_zero_mean(void **state)
{
	(void)state;
	const double x[] = { -1.0, 1.0 };
	struct nbw_summary s;
	assert_int_equal(nbw_summarize(x, 2, &s), 0);
	assert_float_equal(s.mean, 0.0, EPS);
	assert_float_equal(s.sd, sqrt(2.0), EPS);
	assert_float_equal(s.cv, 0.0, 0.0); /* documented: 0 when mean == 0 */
}

static void test_one(void **state)
{
	(void)state;
	const double x[] = { 7.5 };
	struct nbw_summary s;
	assert_int_equal(nbw_summarize(x, 1, &s), 0);
	assert_int_equal(s.n, 1);
	assert_float_equal(s.median, 7.5, EPS);
	assert_float_equal(s.min, 7.5, EPS);
	assert_float_equal(s.max, 7.5, EPS);
	assert_float_equal(s.mean, 7.5, EPS);
	assert_true(s.sd == 0.0);
	assert_true(s.cv == 0.0);
}

static void test_empty(void **state)
{
	(void)state;
	const double x[] = { 1.0 };
	struct nbw_summary s;
	memset(&s, 0x55, sizeof(s));
	assert_int_equal(nbw_summarize(x, 0, &s), -1);
	/* The summary is cleared, not left with garbage. */
	assert_int_equal(s.n, 0);
	assert_true(s.median == 0.0 && s.mean == 0.0 && s.sd == 0.0);
}

static void test_rates(void **state)
{
	(void)state;
	const double t[] = { 1.0, 0.5, 2e-3, 1e-6 };
	double r[4];
	nbw_rates_gbps(t, 4, 1e9, r);
	assert_float_equal(r[0], 1.0, EPS);
	assert_float_equal(r[1], 2.0, EPS);
	assert_float_equal(r[2], 500.0, 1e-9);
	assert_float_equal(r[3], 1e6, 1e-3);
	/* 256 MiB in 10 ms = 26.8435456 GB/s */
	double t2 = 0.01, r2;
	nbw_rates_gbps(&t2, 1, 268435456.0, &r2);
	assert_float_equal(r2, 26.8435456, 1e-9);
}

static void test_rates_zero_time(void **state)
{
	(void)state;
	/* A zero duration cannot give a rate; it must not give inf either. */
	const double t[] = { 0.0, 1.0 };
	double r[2] = { -1.0, -1.0 };
	nbw_rates_gbps(t, 2, 8.0, r);
	assert_true(isfinite(r[0]));
	assert_float_equal(r[1], 8e-9, 1e-20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even),
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_zero_mean),
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_rates_zero_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
