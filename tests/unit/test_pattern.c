/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the verification pattern (nbw_pattern_fill / nbw_pattern_check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/runner.h"

#define GUARD 16

/* Fill a buffer with guard bytes around it, check the guards stay intact. */
static void fill_guarded(unsigned char *raw, size_t n, uint64_t seed)
{
	memset(raw, 0xA5, n + 2 * GUARD);
	nbw_pattern_fill(raw + GUARD, n, seed);
	for (size_t i = 0; i < GUARD; i++) {
		assert_int_equal(raw[i], 0xA5);
		assert_int_equal(raw[GUARD + n + i], 0xA5);
	}
}

static void test_small_sizes(void **state)
{
	(void)state;
	unsigned char raw[40 + 2 * GUARD];
	for (size_t n = 1; n <= 40; n++) {
		fill_guarded(raw, n, 0x1234);
		unsigned char *p = raw + GUARD;
		assert_int_equal(nbw_pattern_check(p, n, 0x1234), n);
		/* Every single flipped byte is found at its own offset. */
		for (size_t k = 0; k < n; k++) {
			p[k] ^= 0x01;
			assert_int_equal(nbw_pattern_check(p, n, 0x1234), k);
			p[k] ^= 0x01;
		}
		assert_int_equal(nbw_pattern_check(p, n, 0x1234), n);
	}
}

static void test_first_bad_offset(void **state)
{
	(void)state;
	unsigned char buf[64];
	nbw_pattern_fill(buf, sizeof(buf), 99);
	buf[45] ^= 0xFF;
	buf[13] ^= 0x80;
	buf[60] = (unsigned char)~buf[60];
	assert_int_equal(nbw_pattern_check(buf, sizeof(buf), 99), 13);
}

static void test_large_sizes(void **state)
{
	(void)state;
	static const size_t sizes[] = { 4096, 4099, 65536 + 5, 1u << 20, 2097152, 3276800 + 3 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		unsigned char *raw = malloc(n + 2 * GUARD);
		assert_non_null(raw);
		fill_guarded(raw, n, 0xdeadbeefcafef00dull);
		unsigned char *p = raw + GUARD;
		assert_int_equal(nbw_pattern_check(p, n, 0xdeadbeefcafef00dull), n);
		const size_t at[] = { 0, 7, 8, n / 2, n - 9, n - 1 };
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			p[at[i]] ^= 0x40;
			assert_int_equal(nbw_pattern_check(p, n, 0xdeadbeefcafef00dull), at[i]);
			p[at[i]] ^= 0x40;
		}
		free(raw);
	}
}

static void test_seeds_differ(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 40; n++) {
		unsigned char a[40], b[40];
		nbw_pattern_fill(a, n, 1);
		nbw_pattern_fill(b, n, 2);
		assert_memory_not_equal(a, b, n);
		/* Data of one seed fails the check of another. */
		assert_true(nbw_pattern_check(a, n, 2) < n);
		assert_true(nbw_pattern_check(b, n, 1) < n);
	}
	/* The same seed always gives the same bytes. */
	unsigned char c[100], d[100];
	nbw_pattern_fill(c, sizeof(c), 42);
	nbw_pattern_fill(d, sizeof(d), 42);
	assert_memory_equal(c, d, sizeof(c));
}

static void test_not_constant(void **state)
{
	(void)state;
	/* A zeroed or memset buffer must not pass, and the pattern must not repeat per word. */
	unsigned char buf[256];
	for (uint64_t seed = 0; seed < 4; seed++) {
		memset(buf, 0, sizeof(buf));
		assert_true(nbw_pattern_check(buf, sizeof(buf), seed) < sizeof(buf));
		nbw_pattern_fill(buf, sizeof(buf), seed);
		assert_memory_not_equal(buf, buf + 8, 8);
		assert_memory_not_equal(buf, buf + 128, 8);
	}
}

static void test_zero_length(void **state)
{
	(void)state;
	unsigned char buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	nbw_pattern_fill(buf, 0, 5);
	const unsigned char want[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	assert_memory_equal(buf, want, 8);
	assert_int_equal(nbw_pattern_check(buf, 0, 5), 0);
}

static void test_unaligned(void **state)
{
	(void)state;
	/* The probe core may hand buffers at any address; the check must not care. */
	unsigned char raw[128 + 8];
	for (size_t off = 0; off < 8; off++) {
		nbw_pattern_fill(raw + off, 123, 77);
		assert_int_equal(nbw_pattern_check(raw + off, 123, 77), 123);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_sizes),
		cmocka_unit_test(test_first_bad_offset),
		cmocka_unit_test(test_large_sizes),
		cmocka_unit_test(test_seeds_differ),
		cmocka_unit_test(test_not_constant),
		cmocka_unit_test(test_zero_length),
		cmocka_unit_test(test_unaligned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
