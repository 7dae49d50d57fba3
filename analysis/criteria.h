/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to analysis/: the criteria of include/nodebw/verdict.h as read from the files. */
#ifndef NODEBW_ANALYSIS_CRITERIA_H
#define NODEBW_ANALYSIS_CRITERIA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/link_health.h"
#include "nodebw/verdict.h"

#define NBW_CRIT_MATCHES 8
/* A published figure is judged on a path measured at >= min(its min_bytes, this). */
#define NBW_CRIT_SATURATED_BYTES (64LL << 20)

enum nbw_crit_kind { NBW_CRIT_THRESHOLD, NBW_CRIT_PUBLISHED };

/* One site threshold or one published row: the paths it selects and its figure. */
struct nbw_crit {
	enum nbw_crit_kind kind;
	char name[160];
	char gpu[64];                    /* published: the GPU model's display name */
	char match[NBW_CRIT_MATCHES][64]; /* substrings of the device name; "*" = any */
	size_t nmatch;
	char api[16], direction[8], concurrency[8], engine[8], host_mem[16], mode[16];
	char link[64], link_match[64];   /* published: the link in words, its label's substring */
	double lo, hi;                   /* threshold: lo = hi = min_gbps */
	long long min_bytes;             /* 0: the largest size measured */
	bool spec_only;                  /* a datasheet's link rate */
	bool floor;                      /* a published health check's pass threshold */
	bool aggregate;                  /* judges every stream of a concurrent set together */
	bool bidir_per_direction;        /* bidir: the figure is each direction's, not the sum */
	char source[1200], url[256];
	/* PCI IDs ("vvvv:dddd" or "vvvv:dddd:ssss:ssss", lower-case): a device with recorded
	 * IDs is matched by these alone; the name strings serve devices without IDs. */
	char pci[NBW_CRIT_MATCHES][20];
	size_t npci;
	/* published: the minimum (a health check's; NAN: derived from the tolerance or the
	 * theoretical fraction) and the reference a healthy node gives, each with its source. */
	double minimum, reference;
	char minimum_source[600], reference_source[600];
};

/* Whether \p r names a device called \p name with PCI IDs \p pci ("" when unknown): by
 * ID when both have IDs, else by name; \p how says which ("PCI ID 10de:2330", "name
 * 'H100 SXM'"). analysis/crit_match.c. */
bool nbw_crit_matches(const struct nbw_crit *r, const char *name, const char *pci, char *how,
		      size_t howlen);
/* Read \p key (absent: none) as a list of 1 to 8 PCI IDs into r->pci; 0, or -1 with err
 * "WHERE.KEY: what". */
int nbw_crit_read_pci(json_t *o, const char *where, const char *key, struct nbw_crit *r,
		      char *err, size_t errlen);

struct nbw_criteria {
	struct nbw_crit *v;
	size_t n, cap;
	char thr_file[512], ref_file[512];
	double ref_tolerance, theoretical_fraction;
	struct nbw_lh_limits lh;         /* the thresholds file's "link_health" (or defaults) */
};

#endif
