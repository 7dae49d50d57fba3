/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/stats.c: summaries, rate conversion and the confidence interval of a
 * median, against hand-computed values. */
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


/* Ranks and coverage of the median's interval, by hand: coverage(j) = 1 - 2 P(B <= j - 1),
 * B ~ binomial(n, 1/2). */
static void test_ci_ranks(void **state)
{
	(void)state;
	size_t j, k;
	double c;
	/* n = 5: [min, max] covers 1 - 2/32 = 0.9375 < 95 %: the best there is, said so. */
	assert_int_equal(nbw_median_ci_ranks(5, 0.95, &j, &k, &c), 0);
	assert_int_equal(j, 1);
	assert_int_equal(k, 5);
	assert_float_equal(c, 0.9375, EPS);
	/* n = 6: [min, max] covers 1 - 2/64 = 0.96875; ranks 2 and 5 only 1 - 14/64. */
	assert_int_equal(nbw_median_ci_ranks(6, 0.95, &j, &k, &c), 0);
	assert_int_equal(j, 1);
	assert_int_equal(k, 6);
	assert_float_equal(c, 0.96875, EPS);
	assert_float_equal(nbw_median_ci_coverage(6, 2), 1.0 - 14.0 / 64.0, EPS);
	/* n = 10: ranks 2 and 9: 1 - 2 (1 + 10) / 1024 = 0.978515625; ranks 3 and 8:
	 * 1 - 2 (1 + 10 + 45) / 1024 = 0.890625 < 95 %. */
	assert_int_equal(nbw_median_ci_ranks(10, 0.95, &j, &k, &c), 0);
	assert_int_equal(j, 2);
	assert_int_equal(k, 9);
	assert_float_equal(c, 1.0 - 22.0 / 1024.0, EPS);
	assert_float_equal(nbw_median_ci_coverage(10, 3), 1.0 - 112.0 / 1024.0, EPS);
	/* n = 20: P(B <= 5) = (1 + 20 + 190 + 1140 + 4845 + 15504) / 2^20 = 21700 / 2^20, ranks 6
	 * and 15 cover 0.958610534...; ranks 7 and 14 (P(B <= 6) = 60460 / 2^20) 0.8846817. */
	assert_int_equal(nbw_median_ci_ranks(20, 0.95, &j, &k, &c), 0);
	assert_int_equal(j, 6);
	assert_int_equal(k, 15);
	assert_float_equal(c, 1.0 - 2.0 * 21700.0 / 1048576.0, 1e-12);
	assert_float_equal(nbw_median_ci_coverage(20, 7), 1.0 - 2.0 * 60460.0 / 1048576.0, 1e-12);
	/* A lower level: n = 10 at 0.85 takes ranks 3 and 8 (0.890625). */
	assert_int_equal(nbw_median_ci_ranks(10, 0.85, &j, &k, &c), 0);
	assert_int_equal(j, 3);
	assert_float_equal(c, 0.890625, EPS);
	/* One sample: the interval is the sample, coverage 0; two: [min, max] at 0.5. */
	assert_int_equal(nbw_median_ci_ranks(1, 0.95, &j, &k, &c), 0);
	assert_true(j == 1 && k == 1 && c == 0.0);
	assert_int_equal(nbw_median_ci_ranks(2, 0.95, &j, &k, &c), 0);
	assert_true(j == 1 && k == 2);
	assert_float_equal(c, 0.5, EPS);
	/* Nothing to rank, or a level that is not a probability. */
	assert_int_equal(nbw_median_ci_ranks(0, 0.95, &j, &k, &c), -1);
	assert_int_equal(nbw_median_ci_ranks(10, 1.0, &j, &k, &c), -1);
	assert_int_equal(nbw_median_ci_ranks(10, 0.0, &j, &k, &c), -1);
	assert_int_equal(nbw_median_ci_ranks(10, NAN, &j, &k, &c), -1);
	/* Large n: the coverage stays just above the level, ranks symmetric. */
	assert_int_equal(nbw_median_ci_ranks(1000, 0.95, &j, &k, &c), 0);
	assert_int_equal(j + k, 1001);
	assert_true(c >= 0.95 && nbw_median_ci_coverage(1000, j + 1) < 0.95);
}

/* The rank of n + 1 samples is that of n or one more (what the executor's incremental
 * search relies on), and the binary search agrees with a linear one. */
static void test_ci_ranks_monotone(void **state)
{
	(void)state;
	size_t prev = 1;
	for (size_t n = 1; n <= 400; n++) {
		size_t j, k, lin = 1;
		double c;
		assert_int_equal(nbw_median_ci_ranks(n, 0.95, &j, &k, &c), 0);
		while (nbw_median_ci_coverage(n, lin + 1) >= 0.95)
			lin++;
		assert_int_equal(j, lin);
		assert_true(j >= prev && j <= prev + 1);
		prev = j;
	}
}

static void test_ci_values(void **state)
{
	(void)state;
	/* n = 10, sorted 1..10 shuffled: ranks 2 and 9 -> [2, 9]. The array is not sorted in
	 * place. */
	const double x[] = { 7.0, 2.0, 10.0, 4.0, 1.0, 9.0, 3.0, 8.0, 6.0, 5.0 };
	double copy[10], lo, hi, c;
	memcpy(copy, x, sizeof(x));
	assert_int_equal(nbw_median_ci(copy, 10, 0.95, &lo, &hi, &c), 0);
	assert_memory_equal(copy, x, sizeof(x));
	assert_float_equal(lo, 2.0, EPS);
	assert_float_equal(hi, 9.0, EPS);
	assert_float_equal(c, 0.978515625, EPS);
	/* n = 5: [min, max] and its coverage 93.75 %. */
	const double five[] = { 1.02, 0.99, 1.00, 1.01, 0.98 };
	assert_int_equal(nbw_median_ci(five, 5, 0.95, &lo, &hi, &c), 0);
	assert_float_equal(lo, 0.98, EPS);
	assert_float_equal(hi, 1.02, EPS);
	assert_float_equal(c, 0.9375, EPS);
	/* n = 6: also [min, max], now at 96.875 %. */
	const double six[] = { 3.0, 1.0, 6.0, 2.0, 5.0, 4.0 };
	assert_int_equal(nbw_median_ci(six, 6, 0.95, &lo, &hi, NULL), 0);
	assert_float_equal(lo, 1.0, EPS);
	assert_float_equal(hi, 6.0, EPS);
	/* n = 20: 0.1 .. 2.0 -> ranks 6 and 15 = 0.6 and 1.5. */
	double twenty[20];
	for (int i = 0; i < 20; i++)
		twenty[i] = 0.1 * (double)((i * 7) % 20 + 1);
	assert_int_equal(nbw_median_ci_sorted((const double[]){ 1, 2, 3 }, 3, 0.95, &lo, &hi, &c),
			 0);
	assert_true(lo == 1.0 && hi == 3.0);
	assert_float_equal(c, 0.75, 1e-12);
	struct nbw_median_ci ci;
	assert_int_equal(nbw_median_ci_of(twenty, 20, 0.95, &ci), 0);
	assert_int_equal(ci.n, 20);
	assert_int_equal(ci.j, 6);
	assert_int_equal(ci.k, 15);
	assert_float_equal(ci.lo, 0.6, 1e-12);
	assert_float_equal(ci.hi, 1.5, 1e-12);
	assert_float_equal(ci.median, 1.05, 1e-12);
	/* max(1.05 - 0.6, 1.5 - 1.05) / 1.05 = 0.45 / 1.05 */
	assert_float_equal(ci.half_width, 0.45 / 1.05, 1e-12);
	assert_float_equal(ci.level, 0.95, 0.0);
	/* No samples: -1 and a cleared interval. */
	memset(&ci, 0x55, sizeof(ci));
	assert_int_equal(nbw_median_ci_of(x, 0, 0.95, &ci), -1);
	assert_int_equal(ci.n, 0);
	assert_int_equal(nbw_median_ci(x, 0, 0.95, &lo, &hi, &c), -1);
	assert_int_equal(nbw_median_ci(NULL, 3, 0.95, &lo, &hi, &c), -1);
}

static void test_ci_half_width(void **state)
{
	(void)state;
	/* Asymmetric: the larger side counts. */
	assert_float_equal(nbw_ci_half_width(100.0, 99.5, 100.8), 0.008, 1e-15);
	assert_float_equal(nbw_ci_half_width(100.0, 98.0, 100.5), 0.02, 1e-15);
	assert_true(isinf(nbw_ci_half_width(0.0, 0.0, 1.0)));
	assert_true(isinf(nbw_ci_half_width(1.0, NAN, 1.0)));
	/* Converged: within +-1 % at 95 % or more. */
	assert_true(nbw_ci_converged(0.9586, 0.008));
	assert_true(nbw_ci_converged(0.95, 0.01));
	assert_false(nbw_ci_converged(0.9586, 0.0101));
	assert_false(nbw_ci_converged(0.9375, 0.001)); /* n = 5: 95 % is out of reach */
	assert_false(nbw_ci_converged(0.99, INFINITY));
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
		cmocka_unit_test(test_ci_ranks),
		cmocka_unit_test(test_ci_ranks_monotone),
		cmocka_unit_test(test_ci_values),
		cmocka_unit_test(test_ci_half_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
