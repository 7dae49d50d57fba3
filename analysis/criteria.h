/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to analysis/: the criteria of include/nodebw/verdict.h as read from the files. */
#ifndef NODEBW_ANALYSIS_CRITERIA_H
#define NODEBW_ANALYSIS_CRITERIA_H

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
};

struct nbw_criteria {
	struct nbw_crit *v;
	size_t n, cap;
	char thr_file[512], ref_file[512];
	double ref_tolerance, theoretical_fraction;
	struct nbw_lh_limits lh;         /* the thresholds file's "link_health" (or defaults) */
};

#endif
