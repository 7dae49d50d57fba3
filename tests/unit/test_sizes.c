/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/sizes.c: size parsing, size lists, default sweeps, labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/sizes.h"

#define KiB 1024ull
#define MiB (1024ull * 1024ull)

static uint64_t parse_ok(const char *s)
{
	uint64_t v = 0;
	char err[256] = "";
	int rc = nbw_size_parse(s, &v, err, sizeof(err));
	if (rc != 0)
		print_error("nbw_size_parse(\"%s\") failed: %s\n", s, err);
	assert_int_equal(rc, 0);
	return v;
}

static void parse_bad(const char *s)
{
	uint64_t v = 12345;
	char err[256] = "";
	assert_int_equal(nbw_size_parse(s, &v, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	assert_null(strchr(err, '\n'));
	/* A failed parse leaves the output alone. */
	assert_int_equal(v, 12345);
}

static void test_parse_plain(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("1"), 1);
	assert_int_equal(parse_ok("8"), 8);
	assert_int_equal(parse_ok("4096"), 4096);
	assert_int_equal(parse_ok("4096B"), 4096);
	assert_int_equal(parse_ok("8B"), 8);
	assert_int_equal(parse_ok("  64"), 64);
	assert_int_equal(parse_ok("18446744073709549568"), 18446744073709549568ull);
}

static void test_parse_decimal(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("1K"), 1000);
	assert_int_equal(parse_ok("1KB"), 1000);
	assert_int_equal(parse_ok("2M"), 2000000);
	assert_int_equal(parse_ok("2MB"), 2000000);
	assert_int_equal(parse_ok("3G"), 3000000000ull);
	assert_int_equal(parse_ok("3GB"), 3000000000ull);
	assert_int_equal(parse_ok("4k"), 4000);
	assert_int_equal(parse_ok("4kb"), 4000);
	assert_int_equal(parse_ok("5m"), 5000000);
}

static void test_parse_binary(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("1KiB"), KiB);
	assert_int_equal(parse_ok("64KiB"), 64 * KiB);
	assert_int_equal(parse_ok("1MiB"), MiB);
	assert_int_equal(parse_ok("256MiB"), 256 * MiB);
	assert_int_equal(parse_ok("1GiB"), 1024 * MiB);
	assert_int_equal(parse_ok("4GiB"), 4096 * MiB);
}

static void test_parse_fraction(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("1.5K"), 1500);
	assert_int_equal(parse_ok("1.5KiB"), 1536);
	assert_int_equal(parse_ok("0.5MiB"), 512 * KiB);
	assert_int_equal(parse_ok("2.5MB"), 2500000);
	assert_int_equal(parse_ok("1.0"), 1);
}

static void test_parse_reject(void **state)
{
	(void)state;
	parse_bad("");
	parse_bad("   ");
	parse_bad("0");
	parse_bad("0KiB");
	parse_bad("-5");
	parse_bad("-5K");
	parse_bad("abc");
	parse_bad("K");
	parse_bad("12XB");
	parse_bad("12 K x");
	parse_bad("1.5");
	parse_bad("1.0001K");
	parse_bad("0.5");
	parse_bad("99999999999TB");
	parse_bad("18446744073709551616");
	parse_bad("1e30");
}

static void test_parse_null(void **state)
{
	(void)state;
	uint64_t v = 7;
	char err[128] = "";
	assert_int_equal(nbw_size_parse(NULL, &v, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	assert_int_equal(v, 7);
}

static void test_parse_list(void **state)
{
	(void)state;
	struct nbw_sizes s;
	char err[256] = "";
	assert_int_equal(nbw_sizes_parse_list("1MiB,8,4KiB,8,1KiB,4096", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.v[0].bytes, 8);
	assert_int_equal(s.v[1].bytes, 1024);
	assert_int_equal(s.v[2].bytes, 4096);
	assert_int_equal(s.v[3].bytes, MiB);
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.v[i].halo_n, 0);
	nbw_sizes_free(&s);
	assert_null(s.v);
	assert_int_equal(s.n, 0);
}

static void test_parse_list_halo(void **state)
{
	(void)state;
	struct nbw_sizes s;
	char err[256] = "";
	assert_int_equal(nbw_sizes_parse_list("3276800,2097152,100,3276800", &s, err, sizeof(err)),
			 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.v[0].bytes, 100);
	assert_int_equal(s.v[0].halo_n, 0);
	assert_int_equal(s.v[1].bytes, 8ull * 512 * 512);
	assert_int_equal(s.v[1].halo_n, 512);
	assert_int_equal(s.v[2].bytes, 8ull * 640 * 640);
	assert_int_equal(s.v[2].halo_n, 640);
	nbw_sizes_free(&s);

	/* 2MiB is the halo plane of N = 512 however it is written. */
	assert_int_equal(nbw_sizes_parse_list("2MiB,13107200", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[0].halo_n, 512);
	assert_int_equal(s.v[1].halo_n, 1280);
	nbw_sizes_free(&s);
}

static void test_parse_list_reject(void **state)
{
	(void)state;
	static const char *const bad[] = { "", ",", "8,0", "8,abc", "1.5,8", "8,,-1", "8,12XB",
					   "8,,16", ",8", "8,", "0x10" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nbw_sizes s = { 0 };
		char err[256] = "";
		assert_int_equal(nbw_sizes_parse_list(bad[i], &s, err, sizeof(err)), -1);
		assert_true(strlen(err) > 0);
		assert_null(s.v);
		assert_int_equal(s.n, 0);
	}
}

static bool is_pow2(uint64_t x)
{
	return x && (x & (x - 1)) == 0;
}

static int halo_of(uint64_t b)
{
	for (int n = 512; n <= 1280; n += 128)
		if (b == 8ull * (uint64_t)n * (uint64_t)n)
			return n;
	return 0;
}

static void check_sorted_tagged(const struct nbw_sizes *s)
{
	for (size_t i = 1; i < s->n; i++)
		assert_true(s->v[i - 1].bytes < s->v[i].bytes);
	for (size_t i = 0; i < s->n; i++)
		assert_int_equal(s->v[i].halo_n, halo_of(s->v[i].bytes));
}

static bool contains(const struct nbw_sizes *s, uint64_t b)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].bytes == b)
			return true;
	return false;
}

static void test_default_full(void **state)
{
	(void)state;
	struct nbw_sizes s;
	assert_int_equal(nbw_sizes_default(&s, 256 * MiB, false), 0);
	check_sorted_tagged(&s);
	assert_int_equal(s.v[0].bytes, 8);
	assert_int_equal(s.v[s.n - 1].bytes, 256 * MiB);
	/* 2^3 .. 2^28: 26 powers of two. */
	size_t npow = 0;
	for (uint64_t b = 8; b <= 256 * MiB; b *= 2) {
		assert_true(contains(&s, b));
		npow++;
	}
	assert_int_equal(npow, 26);
	/* The seven halo planes; those of 512 and 1024 are powers of two already. */
	int halos = 0;
	for (int n = 512; n <= 1280; n += 128) {
		assert_true(contains(&s, 8ull * (uint64_t)n * (uint64_t)n));
		halos++;
	}
	assert_int_equal(halos, 7);
	for (size_t i = 0; i < s.n; i++)
		assert_true(is_pow2(s.v[i].bytes) || s.v[i].halo_n);
	assert_int_equal(s.n, 26 + 5);
	size_t tagged = 0;
	for (size_t i = 0; i < s.n; i++)
		tagged += s.v[i].halo_n != 0;
	assert_int_equal(tagged, 7);
	nbw_sizes_free(&s);
}

static void test_default_small_max(void **state)
{
	(void)state;
	struct nbw_sizes s;
	/* Below the first halo plane: powers of two only. */
	assert_int_equal(nbw_sizes_default(&s, 1 * MiB, false), 0);
	check_sorted_tagged(&s);
	assert_int_equal(s.n, 18); /* 2^3 .. 2^20 */
	assert_int_equal(s.v[s.n - 1].bytes, MiB);
	nbw_sizes_free(&s);
	/* A max that is not a power of two: the largest power of two below it. */
	assert_int_equal(nbw_sizes_default(&s, 3 * MiB, false), 0);
	check_sorted_tagged(&s);
	assert_int_equal(s.v[s.n - 1].bytes, 2 * MiB);
	assert_int_equal(s.v[s.n - 1].halo_n, 512);
	nbw_sizes_free(&s);
}

/* A huge maximum (e.g. "--max-size 10000000TB") must end: the doubling may not wrap. */
static void test_default_huge_max(void **state)
{
	(void)state;
	struct nbw_sizes s;
	for (int sparse = 0; sparse < 2; sparse++) {
		assert_int_equal(nbw_sizes_default(&s, UINT64_MAX, sparse), 0);
		check_sorted_tagged(&s);
		assert_int_equal(s.v[s.n - 1].bytes, 1ull << 63);
		nbw_sizes_free(&s);
	}
}

static void test_default_sparse(void **state)
{
	(void)state;
	struct nbw_sizes s;
	assert_int_equal(nbw_sizes_default(&s, 64 * MiB, true), 0);
	check_sorted_tagged(&s);
	/* 8, 64, 512, ..., 16 MiB (every 8x), the 8 MiB halo plane, then 64 MiB. */
	const uint64_t want[] = { 8,	    64,	     512,     4096,	32768,
				  262144, 2 * MiB, 8 * MiB, 16 * MiB, 64 * MiB };
	assert_int_equal(s.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.v[i].bytes, want[i]);
	/* Halo planes 512 (2 MiB, on the ladder) and 1024 (8 MiB) only. */
	assert_true(contains(&s, 2 * MiB));
	assert_true(contains(&s, 8 * MiB));
	assert_false(contains(&s, 8ull * 640 * 640));
	assert_false(contains(&s, 8ull * 1280 * 1280));
	size_t tagged = 0;
	for (size_t k = 0; k < s.n; k++) {
		tagged += s.v[k].halo_n != 0;
		if (s.v[k].halo_n)
			assert_true(s.v[k].halo_n == 512 || s.v[k].halo_n == 1024);
	}
	assert_int_equal(tagged, 2);
	nbw_sizes_free(&s);
}

static void test_default_sparse_on_ladder(void **state)
{
	(void)state;
	struct nbw_sizes s;
	/* 16 MiB is on the 8x ladder: the "largest" entry must not be duplicated. */
	assert_int_equal(nbw_sizes_default(&s, 16 * MiB, true), 0);
	check_sorted_tagged(&s);
	assert_int_equal(s.n, 9); /* 8 ladder sizes and the 8 MiB halo plane */
	assert_int_equal(s.v[s.n - 1].bytes, 16 * MiB);
	nbw_sizes_free(&s);
}

static void test_tag_halo(void **state)
{
	(void)state;
	struct nbw_size v[] = { { 8, 99 }, { 8ull * 768 * 768, 0 }, { 8ull * 896 * 896, 0 },
				{ 8ull * 1152 * 1152, 0 }, { 8ull * 1408 * 1408, 0 } };
	struct nbw_sizes s = { v, 5 };
	nbw_sizes_tag_halo(&s);
	assert_int_equal(v[0].halo_n, 0);
	assert_int_equal(v[1].halo_n, 768);
	assert_int_equal(v[2].halo_n, 896);
	assert_int_equal(v[3].halo_n, 1152);
	assert_int_equal(v[4].halo_n, 0);
}

static void check_label(uint64_t b, const char *want)
{
	char buf[32];
	const char *got = nbw_size_label(b, buf, sizeof(buf));
	assert_ptr_equal(got, buf);
	assert_string_equal(got, want);
}

static void test_label(void **state)
{
	(void)state;
	check_label(8, "8 B");
	check_label(100, "100 B");
	check_label(999, "999 B");
	check_label(1024, "1 KiB");
	check_label(4096, "4 KiB");
	check_label(MiB, "1 MiB");
	check_label(256 * MiB, "256 MiB");
	check_label(1024 * MiB, "1 GiB");
	/* One formatter, binary units throughout: the halo planes are exact. */
	check_label(1500, "1.465 KiB");
	check_label(3276800, "3.125 MiB");
	check_label(13107200, "12.5 MiB");
	check_label(2500000, "2.384 MiB");
	check_label(1536, "1.5 KiB");
	check_label(UINT64_MAX, "16 EiB");
	/* A small buffer truncates, never overflows. */
	char tiny[4];
	nbw_size_label(256 * MiB, tiny, sizeof(tiny));
	assert_string_equal(tiny, "256");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_plain),
		cmocka_unit_test(test_parse_decimal),
		cmocka_unit_test(test_parse_binary),
		cmocka_unit_test(test_parse_fraction),
		cmocka_unit_test(test_parse_reject),
		cmocka_unit_test(test_parse_null),
		cmocka_unit_test(test_parse_list),
		cmocka_unit_test(test_parse_list_halo),
		cmocka_unit_test(test_parse_list_reject),
		cmocka_unit_test(test_default_full),
		cmocka_unit_test(test_default_small_max),
		cmocka_unit_test(test_default_sparse),
		cmocka_unit_test(test_default_sparse_on_ladder),
		cmocka_unit_test(test_default_huge_max),
		cmocka_unit_test(test_tag_halo),
		cmocka_unit_test(test_label),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
