/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Huge-page host memory (`--host-mem hugepage`) and what the kernel really gave.
 *
 * One allocator for every backend (common/hugepage.c, libc only, so the plugins compile it
 * in): an anonymous mapping with MAP_HUGETLB (the default huge page size) when the kernel
 * has huge pages for it, else an aligned anonymous mapping advised with MADV_HUGEPAGE
 * (transparent huge pages) and touched page by page before use. The mapping always spans
 * nbw_hugepage_span(bytes) bytes, so nbw_hugepage_free() needs only the pointer and the
 * buffer's size. Page-locking it (mlock, cudaHostRegister, hipHostRegister) is the caller's;
 * lock the whole span, so a lock boundary never splits a huge page.
 *
 * What the kernel gave is read from /proc/self/smaps for the mapping(s) holding a buffer:
 * hugetlb (KernelPageSize and Private/Shared_Hugetlb) or transparent huge pages
 * (AnonHugePages against Rss), recorded per measurement (doc/results-schema.md, huge_pages).
 */
#ifndef NODEBW_HUGEPAGE_H
#define NODEBW_HUGEPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What the system offers, read from /proc/meminfo, /proc/sys/vm and
 *  /sys/kernel/mm/transparent_hugepage under a root folder ("" = this machine). */
struct nbw_hugepage_sys {
	size_t hugetlb_page;      /**< default huge page size (Hugepagesize), 0: unknown */
	long hugetlb_free;        /**< HugePages_Free, -1: unknown */
	long hugetlb_overcommit;  /**< /proc/sys/vm/nr_overcommit_hugepages, -1: unknown */
	size_t thp_page;          /**< hpage_pmd_size, 0: no THP in this kernel */
	char thp_mode[16];        /**< the bracketed word of THP "enabled": always, madvise,
				       never; "" when the kernel has no THP */
};

void nbw_hugepage_sys_read(const char *root, struct nbw_hugepage_sys *s);

/** The granule of every huge-page mapping: the larger of the hugetlb and THP page sizes
 *  (2 MiB when neither is known). */
size_t nbw_hugepage_granule(const struct nbw_hugepage_sys *s);
/** Bytes mapped for a buffer of \p bytes: rounded up to the granule (at least one). */
size_t nbw_hugepage_span(size_t bytes);

/** 0 when huge pages can be had at all (free or overcommittable hugetlb pages, or THP not
 *  "never"), else -1 with the reason in \p why (the series is skipped with it). */
int nbw_hugepage_available(const struct nbw_hugepage_sys *s, char *why, size_t whylen);

/** How a buffer was obtained. */
enum nbw_hugepage_how { NBW_HUGEPAGE_HUGETLB, NBW_HUGEPAGE_THP };

/** Map \p bytes of huge-page memory into \p *out (aligned to the granule, touched). 0, or a
 *  negative errno with \p why: -ENOTSUP when neither hugetlb nor THP can give huge pages,
 *  -ENOMEM when the mappings fail. \p how (may be NULL) says which path gave it. */
int nbw_hugepage_alloc(size_t bytes, void **out, enum nbw_hugepage_how *how, char *why,
		       size_t whylen);
void nbw_hugepage_free(void *p, size_t bytes);

/** The smaps figures of the mapping(s) overlapping a buffer, summed. */
struct nbw_hugepage_given {
	unsigned vmas;            /**< mappings overlapping the buffer (0: none found) */
	uint64_t size_kb;         /**< their Size */
	uint64_t rss_kb;          /**< their Rss */
	uint64_t anon_huge_kb;    /**< AnonHugePages: transparent huge pages */
	uint64_t hugetlb_kb;      /**< Private_Hugetlb + Shared_Hugetlb */
	uint64_t kernel_page_kb;  /**< the largest KernelPageSize among them */
	bool thp_advised;         /**< VmFlags has "hg" (MADV_HUGEPAGE) */
	bool hugetlb_vma;         /**< VmFlags has "ht" (a hugetlb mapping) */
};

/** Parse smaps text (\p len bytes) for the mappings overlapping [lo, hi). 0, or -1 when the
 *  text holds no mapping there. */
int nbw_hugepage_given_parse(const char *text, size_t len, uintptr_t lo, uintptr_t hi,
			     struct nbw_hugepage_given *g);
/** One line of what the kernel gave, e.g. "hugetlb 2 MiB pages: 4.0 MiB of 4.0 MiB" or
 *  "THP: 4.0 MiB of 4.0 MiB resident in huge pages (AnonHugePages of /proc/self/smaps)". */
void nbw_hugepage_given_format(const struct nbw_hugepage_given *g, const char *thp_mode,
			       char *buf, size_t len);
/** Read /proc/self/smaps for the buffer [p, p + bytes) and format it into \p buf. 0, or -1
 *  with the reason in \p buf. */
int nbw_hugepage_given(const void *p, size_t bytes, char *buf, size_t len);

#endif
