/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Two runs of one node compared (analysis/runcmp.c): did it get better or worse?
 *
 * Run A (the earlier, the reference) and run B (the later) are two results documents. Every
 * headline figure (per API: HtoD, DtoH, P2P, every device at once; nbw_headlines) and every
 * summary path (per API, direction, mode, host memory or peer access, binding: the median
 * over its devices or pairs, nbw_path_figure) is read in both at A's comparison size
 * (nbw_analysis_comparison_bytes of A; B's products are derived at that size,
 * nbw_products_derive_at, never taken from another size), with the range each figure takes
 * when every member moves within its own 95 % interval of the median. A difference is
 * beyond noise when the two ranges do not overlap.
 *
 * The comparison is computed here once; `nodebw compare A B` (terminal and --json) and the
 * report's section (report/run_compare.c) render this struct. GB/s = 1e9 B/s.
 */
#ifndef NODEBW_RUNCMP_H
#define NODEBW_RUNCMP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/** What became of a path from A to B, in the order the comparison lists them. */
enum nbw_rc_verdict {
	NBW_RC_WORSE,       /**< B's range wholly below A's */
	NBW_RC_BETTER,      /**< B's range wholly above A's */
	NBW_RC_SAME,        /**< the ranges overlap: within both runs' noise */
	NBW_RC_NO_INTERVAL, /**< both have the figure, one has no interval: not judged */
	NBW_RC_ONLY_A,      /**< no figure in B at the size compared */
	NBW_RC_ONLY_B,      /**< no figure in A at the size compared */
	NBW_RC_NVERDICTS
};

/** One run's side of a path. */
struct nbw_rc_side {
	bool present;           /**< the run has the figure at the size compared */
	double gbps;            /**< NaN when not present */
	double lo_gbps, hi_gbps; /**< the figure's range (NaN: no interval) */
	int members;            /**< devices or pairs in the median; streams of an aggregate */
	char how[64];           /**< a headline's mode and memory ("sync pinned"); "" */
};

/** One compared path. */
struct nbw_rc_path {
	bool headline;          /**< an API's headline, else a summary path */
	char api[16];
	char what[8];           /**< headline: "htod", "dtoh", "p2p", "all"; path: direction */
	char mode[16], host_mem[16], peer_access[16], binding[16]; /**< paths; "" headlines */
	char name[160];         /**< "omp HtoD (best mode and memory)", "omp htod sync pinned" */
	long long bytes;        /**< the size compared at (A's; B's own for NBW_RC_ONLY_B) */
	struct nbw_rc_side a, b;
	double ratio;           /**< B / A; NaN unless both present */
	enum nbw_rc_verdict verdict;
	/** NBW_RC_ONLY_A when the sizes differ: B has the path at its own comparison size
	 *  (so it was measured, not at A's size). */
	bool b_other_size;
};

/** What one run's document says about itself. */
struct nbw_rc_run {
	char file[1024];        /**< as named on the command line */
	char host[128], created[40], version[40], revision[64]; /**< "" when the file has none */
	long long comparison_bytes; /**< -1: no bandwidth measurement */
};

struct nbw_runcmp {
	struct nbw_rc_run a, b;
	bool hosts_differ;      /**< both name a host and the names differ */
	long long bytes;        /**< the size compared at: A's comparison size */
	struct nbw_rc_path *paths; /**< worse (worst first), better (best first), within
				    *   noise, not judged, only in A, only in B */
	size_t npaths;
	size_t counts[NBW_RC_NVERDICTS];
};

/** Compare results documents \p a and \p b (named \p file_a, \p file_b) into \p out.
 *  0, or -1 when out of memory (\p out then holds nothing). */
int nbw_runcmp(json_t *a, const char *file_a, json_t *b, const char *file_b,
	       struct nbw_runcmp *out);
void nbw_runcmp_release(struct nbw_runcmp *c);

/** "worse", "better", "within noise", "not judged", "only in A", "only in B". */
const char *nbw_rc_verdict_name(enum nbw_rc_verdict v);
/** The heading of a verdict's group: "Worse (beyond noise)", ... */
const char *nbw_rc_verdict_heading(enum nbw_rc_verdict v);
/** The rule in one sentence, for every output. */
#define NBW_RC_RULE                                                                         \
	"beyond noise = the two runs' ranges do not overlap, where a figure's range is where "  \
	"the median over its devices or pairs lies when each moves within its own 95 % "       \
	"interval of the median (an aggregate: its own interval)"

/** The comparison as JSON (doc/usage.md, "nodebw compare A B"). New reference; NULL when
 *  out of memory. */
json_t *nbw_runcmp_json(const struct nbw_runcmp *c);

#endif
