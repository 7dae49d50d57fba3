/* SPDX-License-Identifier: BSD-3-Clause */
/* The summary's findings, headlines and items, derived from a results document in one place
 * (analysis/findings.c, analysis/headline.c, analysis/summary_items.c): the terminal, nodebw
 * summary and the report's summary section print what these return. */
#ifndef NODEBW_FINDINGS_H
#define NODEBW_FINDINGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/** How many measurements did not converge, why, and the largest of them, as one sentence
 *  into \p out; false when every measurement converged (or none says). */
bool nbw_findings_not_converged(json_t *measurements, char *out, size_t len);
/** The hidden-helper sweep's largest effect: the same OpenMP point with different hidden
 *  helper counts, when one median time is twice the other or more; false otherwise. */
bool nbw_findings_hidden_helpers(json_t *measurements, char *out, size_t len);
/** Kernel copies against the same API's sync copies, from \p kc (nbw_kernel_compare, a
 *  product of the document): per API, direction and host memory the median ratio of the
 *  small and the large sizes; false when no kernel copy pairs with a sync copy. */
bool nbw_findings_kernel_vs_copy(json_t *kc, char *out, size_t len);

/** One headline figure of an API at the comparison size: the best (mode, host memory) of
 *  the medians over its devices (HtoD, DtoH) or ordered pairs (P2P, one direction at a
 *  time), or the highest aggregate of every device at once. */
struct nbw_headline {
	char api[16];
	char what[8];           /**< "htod", "dtoh", "p2p", "all" */
	double gbps;
	long long bytes;        /**< the comparison size */
	char how[64];           /**< "sync pinned", "kernel", "host-to-all sync", ... */
	int members;            /**< devices or pairs in the median; streams of the aggregate */
	/** The range of the figure when each member's median moves within its own 95 %
	 *  interval (the medians over the members of their intervals' ends; the aggregate's
	 *  own interval); NaN when a member has no interval. */
	double lo_gbps, hi_gbps;
};

/** One path's figure at the comparison size with its interval (nbw_path_figure). */
struct nbw_path_fig {
	double gbps;            /**< the median over the members; NaN: no figure there */
	double lo_gbps, hi_gbps; /**< as struct nbw_headline's */
	int members;
	long long bytes;        /**< -1: no figure */
};

/** One path's figure at the comparison size: the median over its devices (HtoD, DtoH:
 *  the device table of \p api, \p dir, \p mode, \p host_mem) or its ordered pairs (P2P:
 *  the single-stream matrix of \p api, \p mode, \p peer access), from \p tables and
 *  \p matrices (nbw_analysis_device_tables, _matrices); \p bind "" or NULL: any binding.
 *  NaN when the path has no figure there; \p members and \p bytes say how many and at
 *  what size. The headlines and the report's path table both read paths here. */
/** nbw_path_at_comparison with the figure's interval: false when the path has no figure. */
bool nbw_path_figure(json_t *tables, json_t *matrices, const char *api, const char *dir,
		     const char *mode, const char *host_mem, const char *peer, const char *bind,
		     struct nbw_path_fig *out);
double nbw_path_at_comparison(json_t *tables, json_t *matrices, const char *api,
			      const char *dir, const char *mode, const char *host_mem,
			      const char *peer, const char *bind, int *members, long long *bytes);

/** The headlines of every API of the document (HtoD, DtoH, P2P, every device at once, in
 *  that order, per API in the order of \p devices), from the device tables, the matrices
 *  and the all-at-once rows (nbw_analysis_device_tables, _matrices, _concurrent) given;
 *  at most \p max into \p out; returns how many. */
size_t nbw_headlines(json_t *devices, json_t *tables, json_t *matrices, json_t *all_at_once,
		     struct nbw_headline *out, size_t max);
/** "omp at 8 MiB (median over devices or pairs): HtoD 14.81 GB/s (sync pinned), ..." for
 *  the headlines of \p api; false when it has none. */
bool nbw_headline_text(const struct nbw_headline *h, size_t n, const char *api, char *out,
		       size_t len);

/** The one summary of a results document, as items (an array of strings, each one finding
 *  with its figures and sizes), in order: the counts, the measurements that did not
 *  converge, the hidden-helper finding, each API's headlines at the comparison size, the
 *  outliers, the OpenMP-vs-native gap, kernel copies against the API's copies, then \p
 *  sentences (the report's, may be NULL) but the fastest paths, which the headlines say.
 *  \p root is the document and \p p its products (nbw_products_derive: never a copy an
 *  older nodebw stored). The end of `nodebw run`, `nodebw summary` and the report's summary
 *  section print exactly these. New reference. */
struct nbw_products;
json_t *nbw_summary_items(json_t *root, const struct nbw_products *p, json_t *sentences);

#endif
