/* SPDX-License-Identifier: BSD-3-Clause */
/* Huge-page host memory (common/hugepage.c): what the kernel gave, read from recorded smaps
 * entries (tests/fixtures/smaps-hugepage/, see tests/fixtures/README.md); what the system
 * offers, from a hand-written /proc and /sys copy; and a real allocation on this machine
 * when it can give huge pages at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/hugepage.h"

#define FIX NODEBW_FIXTURES "/smaps-hugepage/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = calloc(1, 1 << 16);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

/* Parse one fixture for its buffer [lo, lo + 4 MiB) and format the line. */
static void given(const char *file, uintptr_t lo, struct nbw_hugepage_given *g, char *line,
		  size_t len)
{
	size_t n;
	char *text = slurp(file, &n);
	assert_int_equal(nbw_hugepage_given_parse(text, n, lo, lo + (4u << 20), g), 0);
	nbw_hugepage_given_format(g, "madvise", line, len);
	free(text);
}

static void test_thp_given(void **state)
{
	(void)state;
	struct nbw_hugepage_given g;
	char line[320];
	given(FIX "thp.smaps", 0x7fa13fc00000u, &g, line, sizeof(line));
	assert_int_equal(g.vmas, 1);
	assert_int_equal(g.rss_kb, 4096);
	assert_int_equal(g.anon_huge_kb, 4096);
	assert_int_equal(g.hugetlb_kb, 0);
	assert_true(g.thp_advised);
	assert_false(g.hugetlb_vma);
	assert_string_equal(line, "THP: 4 MiB of 4 MiB resident in huge pages (AnonHugePages of "
				  "/proc/self/smaps)");
}

static void test_hugetlb_given(void **state)
{
	(void)state;
	struct nbw_hugepage_given g;
	char line[320];
	given(FIX "hugetlb.smaps", 0x7fb6a5600000u, &g, line, sizeof(line));
	assert_true(g.hugetlb_vma);
	assert_int_equal(g.kernel_page_kb, 2048);
	assert_int_equal(g.hugetlb_kb, 4096);
	assert_int_equal(g.rss_kb, 0);
	assert_string_equal(line, "hugetlb 2 MiB pages: 4 MiB of the 4 MiB mapping "
				  "(KernelPageSize, Private/Shared_Hugetlb of /proc/self/smaps)");
}

static void test_thp_none_given(void **state)
{
	(void)state;
	struct nbw_hugepage_given g;
	char line[320];
	given(FIX "thp-none.smaps", 0x7f0ef8000000u, &g, line, sizeof(line));
	assert_true(g.thp_advised);
	assert_int_equal(g.anon_huge_kb, 0);
	assert_int_equal(g.rss_kb, 4096);
	assert_string_equal(line, "THP advised, no huge pages given (AnonHugePages 0 of 4 MiB "
				  "resident; THP mode madvise)");
}

/* Only the mappings overlapping the buffer count; a range outside every mapping is none. */
static void test_range(void **state)
{
	(void)state;
	size_t a, b;
	char *t1 = slurp(FIX "thp.smaps", &a), *t2 = slurp(FIX "hugetlb.smaps", &b);
	char *both = malloc(a + b);
	assert_non_null(both);
	memcpy(both, t2, b);
	memcpy(both + b, t1, a);
	struct nbw_hugepage_given g;
	assert_int_equal(nbw_hugepage_given_parse(both, a + b, 0x7fa13fe00000u,
						  0x7fa13fe00001u, &g), 0);
	assert_int_equal(g.vmas, 1);
	assert_int_equal(g.anon_huge_kb, 4096);
	assert_false(g.hugetlb_vma);
	/* The buffer's end is exclusive: [end of the THP mapping, +1) holds nothing. */
	assert_int_equal(nbw_hugepage_given_parse(both, a + b, 0x7fa140000000u,
						  0x7fa140000001u, &g), -1);
	char line[160];
	nbw_hugepage_given_format(&g, "madvise", line, sizeof(line));
	assert_non_null(strstr(line, "unknown"));
	free(both);
	free(t1);
	free(t2);
}

static void test_sys_never(void **state)
{
	(void)state;
	struct nbw_hugepage_sys s;
	char why[256];
	nbw_hugepage_sys_read(NODEBW_FIXTURES "/hugepage-never", &s);
	assert_string_equal(s.thp_mode, "never");
	assert_int_equal(s.hugetlb_free, 0);
	assert_int_equal(s.hugetlb_overcommit, 0);
	assert_int_equal(s.hugetlb_page, 2u << 20);
	assert_int_equal(s.thp_page, 2u << 20);
	assert_int_equal(nbw_hugepage_granule(&s), 2u << 20);
	assert_int_equal(nbw_hugepage_available(&s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "disabled (\"never\")"));
	/* Reserved pages make it available whatever THP says. */
	s.hugetlb_free = 4;
	assert_int_equal(nbw_hugepage_available(&s, why, sizeof(why)), 0);
	/* A kernel without THP and without hugetlb pages. */
	nbw_hugepage_sys_read(NODEBW_FIXTURES "/no-such-root", &s);
	assert_string_equal(s.thp_mode, "");
	assert_int_equal(nbw_hugepage_granule(&s), 2u << 20);
	assert_int_equal(nbw_hugepage_available(&s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not in this kernel"));
}

/* A real allocation of a size that is no multiple of the granule: aligned, the whole span
 * mapped, writable, and the kernel's answer read back for it. */
static void test_alloc(void **state)
{
	(void)state;
	struct nbw_hugepage_sys s;
	char why[256];
	nbw_hugepage_sys_read("", &s);
	if (nbw_hugepage_available(&s, why, sizeof(why))) {
		print_message("skipped: %s\n", why);
		skip();
	}
	size_t g = nbw_hugepage_granule(&s), n = 3u << 20, span = nbw_hugepage_span(n);
	assert_int_equal(span % g, 0);
	assert_true(span >= n && span < n + g);
	void *p = NULL;
	enum nbw_hugepage_how how;
	assert_int_equal(nbw_hugepage_alloc(n, &p, &how, why, sizeof(why)), 0);
	assert_int_equal((uintptr_t)p % g, 0);
	memset(p, 0x5a, span);
	char line[320];
	assert_int_equal(nbw_hugepage_given(p, n, line, sizeof(line)), 0);
	print_message("%s\n", line);
	assert_true(strncmp(line, how == NBW_HUGEPAGE_HUGETLB ? "hugetlb " : "THP", 3) == 0);
	nbw_hugepage_free(p, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thp_given),     cmocka_unit_test(test_hugetlb_given),
		cmocka_unit_test(test_thp_none_given), cmocka_unit_test(test_range),
		cmocka_unit_test(test_sys_never),     cmocka_unit_test(test_alloc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
