/* SPDX-License-Identifier: BSD-3-Clause */
/* Huge-page host memory and what the kernel gave (include/nodebw/hugepage.h). libc only:
 * the vendor plugins and the OpenMP library compile this file in, as the core does. */
#include "nodebw/hugepage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SMAPS_MAX (64u << 20)

static bool read_text(const char *root, const char *path, char *buf, size_t len)
{
	char full[512];
	snprintf(full, sizeof(full), "%s%s", root ? root : "", path);
	FILE *f = fopen(full, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n > 0;
}

/* The value of "Key: value" in /proc/meminfo-like text, -1 when absent. */
static long long key_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, kl) == 0 && p[kl] == ':')
			return strtoll(p + kl + 1, NULL, 10);
	return -1;
}

void nbw_hugepage_sys_read(const char *root, struct nbw_hugepage_sys *s)
{
	char buf[8192];
	memset(s, 0, sizeof(*s));
	s->hugetlb_free = s->hugetlb_overcommit = -1;
	if (read_text(root, "/proc/meminfo", buf, sizeof(buf))) {
		long long kb = key_value(buf, "Hugepagesize");
		s->hugetlb_page = kb > 0 ? (size_t)kb * 1024 : 0;
		s->hugetlb_free = (long)key_value(buf, "HugePages_Free");
	}
	if (read_text(root, "/proc/sys/vm/nr_overcommit_hugepages", buf, sizeof(buf)))
		s->hugetlb_overcommit = strtol(buf, NULL, 10);
	if (read_text(root, "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf,
		      sizeof(buf)))
		s->thp_page = (size_t)strtoull(buf, NULL, 10);
	if (read_text(root, "/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf))) {
		const char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
		if (a && b && (size_t)(b - a - 1) < sizeof(s->thp_mode))
			snprintf(s->thp_mode, sizeof(s->thp_mode), "%.*s", (int)(b - a - 1), a + 1);
	}
}

size_t nbw_hugepage_granule(const struct nbw_hugepage_sys *s)
{
	size_t g = s->hugetlb_page > s->thp_page ? s->hugetlb_page : s->thp_page;
	return g ? g : (size_t)2 << 20;
}

size_t nbw_hugepage_span(size_t bytes)
{
	struct nbw_hugepage_sys s;
	nbw_hugepage_sys_read("", &s);
	size_t g = nbw_hugepage_granule(&s);
	size_t n = bytes ? bytes : 1;
	return (n + g - 1) / g * g;
}

int nbw_hugepage_available(const struct nbw_hugepage_sys *s, char *why, size_t whylen)
{
	if (s->hugetlb_free > 0 || s->hugetlb_overcommit > 0)
		return 0;
	if (s->thp_mode[0] && strcmp(s->thp_mode, "never") != 0)
		return 0;
	snprintf(why, whylen,
		 "no huge pages to be had: none reserved for MAP_HUGETLB (HugePages_Free %ld, "
		 "nr_overcommit_hugepages %ld) and transparent huge pages are %s",
		 s->hugetlb_free, s->hugetlb_overcommit,
		 s->thp_mode[0] ? "disabled (\"never\")" : "not in this kernel");
	return -1;
}

static void *map_hugetlb(size_t span)
{
#ifdef MAP_HUGETLB
	void *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
#else
	(void)span;
	return NULL;
#endif
}

/* An anonymous mapping of span bytes aligned to g, advised for THP and touched. */
static void *map_thp(size_t span, size_t g, char *why, size_t whylen)
{
	size_t over = span + g;
	char *base = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		snprintf(why, whylen, "mmap(%zu bytes) failed: %s", over, strerror(errno));
		return NULL;
	}
	char *p = (char *)(((uintptr_t)base + g - 1) / g * g);
	if (p > base)
		munmap(base, (size_t)(p - base));
	if (base + over > p + span)
		munmap(p + span, (size_t)(base + over - (p + span)));
	if (madvise(p, span, MADV_HUGEPAGE)) {
		snprintf(why, whylen, "madvise(MADV_HUGEPAGE) failed: %s", strerror(errno));
		munmap(p, span);
		return NULL;
	}
	long pg = sysconf(_SC_PAGESIZE);
	for (size_t off = 0; off < span; off += pg > 0 ? (size_t)pg : 4096)
		p[off] = 0;
	return p;
}

int nbw_hugepage_alloc(size_t bytes, void **out, enum nbw_hugepage_how *how, char *why,
		       size_t whylen)
{
	struct nbw_hugepage_sys s;
	nbw_hugepage_sys_read("", &s);
	size_t g = nbw_hugepage_granule(&s), n = bytes ? bytes : 1;
	size_t span = (n + g - 1) / g * g;
	*out = map_hugetlb(span);
	if (*out) {
		if (how)
			*how = NBW_HUGEPAGE_HUGETLB;
		return 0;
	}
	int e = errno;
	if (!s.thp_mode[0] || strcmp(s.thp_mode, "never") == 0) {
		snprintf(why, whylen,
			 "no huge pages: mmap(MAP_HUGETLB, %zu bytes) failed (%s; HugePages_Free "
			 "%ld) and transparent huge pages are %s",
			 span, strerror(e), s.hugetlb_free,
			 s.thp_mode[0] ? "disabled (\"never\")" : "not in this kernel");
		return -ENOTSUP;
	}
	*out = map_thp(span, g, why, whylen);
	if (!*out)
		return -ENOMEM;
	if (how)
		*how = NBW_HUGEPAGE_THP;
	return 0;
}

void nbw_hugepage_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, nbw_hugepage_span(bytes));
}

/* ---- what the kernel gave ------------------------------------------------------------ */

static bool is_header(const char *line, uintptr_t *a, uintptr_t *b)
{
	char *end;
	unsigned long long x = strtoull(line, &end, 16);
	if (end == line || *end != '-')
		return false;
	const char *q = end + 1;
	unsigned long long y = strtoull(q, &end, 16);
	if (end == q || *end != ' ')
		return false;
	*a = (uintptr_t)x;
	*b = (uintptr_t)y;
	return true;
}

/* A two-letter flag of smaps' VmFlags line (" rd wr mr ... hg"). */
static bool has_flag(const char *flags, const char *flag)
{
	for (const char *f = flags; (f = strstr(f, flag)) != NULL; f += 2)
		if (f[-1] == ' ' && (f[2] == ' ' || f[2] == '\0'))
			return true;
	return false;
}

static void add_field(const char *line, struct nbw_hugepage_given *g)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "Size:", offsetof(struct nbw_hugepage_given, size_kb) },
		{ "Rss:", offsetof(struct nbw_hugepage_given, rss_kb) },
		{ "AnonHugePages:", offsetof(struct nbw_hugepage_given, anon_huge_kb) },
		{ "Private_Hugetlb:", offsetof(struct nbw_hugepage_given, hugetlb_kb) },
		{ "Shared_Hugetlb:", offsetof(struct nbw_hugepage_given, hugetlb_kb) },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strncmp(line, keys[i].key, strlen(keys[i].key)) == 0) {
			uint64_t *v = (uint64_t *)((char *)g + keys[i].off);
			*v += strtoull(line + strlen(keys[i].key), NULL, 10);
			return;
		}
	if (strncmp(line, "KernelPageSize:", 15) == 0) {
		uint64_t k = strtoull(line + 15, NULL, 10);
		if (k > g->kernel_page_kb)
			g->kernel_page_kb = k;
	} else if (strncmp(line, "VmFlags:", 8) == 0) {
		g->thp_advised |= has_flag(line + 8, "hg");
		g->hugetlb_vma |= has_flag(line + 8, "ht");
	}
}

int nbw_hugepage_given_parse(const char *text, size_t len, uintptr_t lo, uintptr_t hi,
			     struct nbw_hugepage_given *g)
{
	memset(g, 0, sizeof(*g));
	bool inside = false;
	const char *end = text + len;
	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)(ll < sizeof(line) ? ll : sizeof(line) - 1),
			 p);
		uintptr_t a, b;
		if (is_header(line, &a, &b)) {
			inside = a < hi && b > lo;
			g->vmas += inside;
		} else if (inside) {
			add_field(line, g);
		}
		p = nl ? nl + 1 : end;
	}
	return g->vmas ? 0 : -1;
}

static void human(uint64_t kb, char *buf, size_t len)
{
	/* Whole units without a decimal ("2 MiB pages"), else one decimal. */
	if (kb >= 1024u * 1024u)
		snprintf(buf, len, kb % (1024u * 1024u) ? "%.1f GiB" : "%.0f GiB",
			 (double)kb / (1024.0 * 1024.0));
	else if (kb >= 1024u)
		snprintf(buf, len, kb % 1024u ? "%.1f MiB" : "%.0f MiB", (double)kb / 1024.0);
	else
		snprintf(buf, len, "%" PRIu64 " KiB", kb);
}

void nbw_hugepage_given_format(const struct nbw_hugepage_given *g, const char *thp_mode,
			       char *buf, size_t len)
{
	char a[32], b[32], pg[32];
	if (!g->vmas) {
		snprintf(buf, len, "unknown: no mapping of the buffer in /proc/self/smaps");
	} else if (g->hugetlb_vma || g->hugetlb_kb) {
		human(g->kernel_page_kb, pg, sizeof(pg));
		human(g->hugetlb_kb, a, sizeof(a));
		human(g->size_kb, b, sizeof(b));
		snprintf(buf, len, "hugetlb %s pages: %s of the %s mapping (KernelPageSize, "
			 "Private/Shared_Hugetlb of /proc/self/smaps)", pg, a, b);
	} else if (g->anon_huge_kb) {
		human(g->anon_huge_kb, a, sizeof(a));
		human(g->rss_kb, b, sizeof(b));
		snprintf(buf, len, "THP: %s of %s resident in huge pages (AnonHugePages of "
			 "/proc/self/smaps)", a, b);
	} else {
		human(g->rss_kb, b, sizeof(b));
		snprintf(buf, len, "THP %s, no huge pages given (AnonHugePages 0 of %s resident; "
			 "THP mode %s)", g->thp_advised ? "advised" : "not advised", b,
			 thp_mode && *thp_mode ? thp_mode : "absent");
	}
}

int nbw_hugepage_given(const void *p, size_t bytes, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	if (!f) {
		snprintf(buf, len, "unknown: /proc/self/smaps: %s", strerror(errno));
		return -1;
	}
	size_t cap = 1u << 20, n = 0;
	char *text = malloc(cap);
	while (text) {
		n += fread(text + n, 1, cap - n, f);
		if (n < cap || cap >= SMAPS_MAX)
			break;
		char *t = realloc(text, cap * 2);
		if (!t) {
			free(text);
			text = NULL;
			break;
		}
		text = t;
		cap *= 2;
	}
	fclose(f);
	if (!text) {
		snprintf(buf, len, "unknown: out of memory reading /proc/self/smaps");
		return -1;
	}
	struct nbw_hugepage_given g;
	struct nbw_hugepage_sys s;
	nbw_hugepage_sys_read("", &s);
	int rc = nbw_hugepage_given_parse(text, n, (uintptr_t)p, (uintptr_t)p + (bytes ? bytes : 1),
					  &g);
	free(text);
	nbw_hugepage_given_format(&g, s.thp_mode, buf, len);
	return rc;
}
