/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The derived products of one results document, computed once (analysis/products.c): the
 * comparison size, the P2P matrices, the per-device tables, every device at once, the
 * outliers and the groups the median rule judged or did not, the latency table, the
 * OpenMP-vs-native gap table, the kernel copies against the copy calls and the headlines.
 * (The failed and unverified records are listed, not derived: nbw_analysis_failures.) The end of `nodebw run` and `probe`,
 * `nodebw summary`, `matrix`, the report and the fleet comparison render these; none of them
 * derives a product again, and none is read from a copy an older nodebw stored in the file.
 */
#ifndef NODEBW_PRODUCTS_H
#define NODEBW_PRODUCTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/findings.h"

#define NBW_PRODUCTS_MAX_HEADLINES 64

struct nbw_products {
	long long comparison_bytes; /**< nbw_analysis_comparison_bytes; -1: no bandwidth */
	json_t *matrices;           /**< nbw_analysis_matrices */
	json_t *device_tables;      /**< nbw_analysis_device_tables */
	json_t *all_at_once;        /**< nbw_analysis_concurrent */
	json_t *outliers;           /**< nbw_analysis_outliers */
	json_t *outlier_groups;     /**< the groups, with why each was or was not judged */
	json_t *latency;            /**< nbw_analysis_latency */
	json_t *gaps;               /**< nbw_gap_compute on the devices matched across APIs */
	json_t *kernel_vs_copy;     /**< nbw_kernel_compare */
	struct nbw_headline headlines[NBW_PRODUCTS_MAX_HEADLINES];
	size_t nheadlines;          /**< nbw_headlines over the tables, matrices, all at once */
};

/* ---- typed views of the products' elements ------------------------------------------ *
 * The renderers (report/, tools/, fleet/) read the products through these, never by their
 * keys. Strings are borrowed from the product (valid while it lives) and "" when absent;
 * numbers are NAN when absent (not measured, no theoretical figure). */

/** One P2P matrix of nbw_analysis_matrices. */
struct nbw_pv_matrix {
	const char *api, *direction, *mode, *concurrency, *peer_access, *binding;
	long long bandwidth_bytes; /**< the comparison size */
	long long latency_bytes;   /**< the smallest size */
	size_t n;                  /**< devices: rows and columns */
	size_t nnotes, nmissing;   /**< notes; pairs not measured at bandwidth_bytes */
	json_t *devices_, *cells_, *notes_, *missing_; /* private */
};
/** One cell: measured false where the pair has no measurement in the series. */
struct nbw_pv_cell {
	bool measured;
	int src, dst;
	double gbps, latency_us, theoretical_gbps, fraction;
	const char *link;
	bool peer_link;            /**< not a same-device copy, not host memory */
};
bool nbw_pv_matrix(json_t *m, struct nbw_pv_matrix *out);
int nbw_pv_matrix_device(const struct nbw_pv_matrix *m, size_t i);
bool nbw_pv_matrix_cell(const struct nbw_pv_matrix *m, size_t row, size_t col,
			struct nbw_pv_cell *out);
const char *nbw_pv_matrix_note(const struct nbw_pv_matrix *m, size_t i);
const char *nbw_pv_matrix_missing(const struct nbw_pv_matrix *m, size_t i);

/** One per-device table of nbw_analysis_device_tables. */
struct nbw_pv_table {
	const char *api, *direction, *mode, *host_mem, *concurrency, *binding;
	long long bytes;           /**< the comparison size */
	size_t nrows, nnotes, nmissing;
	json_t *rows_, *notes_, *missing_; /* private */
};
struct nbw_pv_devrow {
	int device;
	double gbps, theoretical_gbps, fraction;
	double ci_half_width_pct;  /**< the median's 95 % interval, +- % (NAN: none) */
	int converged;             /**< 1, 0, or -1 when the document does not say */
	const char *link;
	bool host_memory;
};
bool nbw_pv_table(json_t *t, struct nbw_pv_table *out);
bool nbw_pv_table_row(const struct nbw_pv_table *t, size_t i, struct nbw_pv_devrow *out);
/** The row of device \p id; false when the table has none. */
bool nbw_pv_table_find(const struct nbw_pv_table *t, int id, struct nbw_pv_devrow *out);
const char *nbw_pv_table_note(const struct nbw_pv_table *t, size_t i);
int nbw_pv_table_missing(const struct nbw_pv_table *t, size_t i);

/** One row of nbw_analysis_concurrent (every device at once, the ring). */
struct nbw_pv_conc {
	const char *pattern, *api, *direction, *mode, *host_mem, *concurrency, *peer_access;
	const char *binding, *link, *bound, *verdict, *host_limit_host_mem;
	long long bytes;
	size_t ndevices;
	double aggregate_gbps, alone_sum_gbps, scaling, links_theoretical_gbps;
	double fraction_of_links, host_memory_limit_gbps, fraction_of_host_limit;
	bool has_slowest;
	int slowest_src, slowest_dst; /**< -1: the host */
	double slowest_gbps;
};
bool nbw_pv_conc(json_t *row, struct nbw_pv_conc *out);

/** One outlier of nbw_analysis_outliers. */
struct nbw_pv_outlier {
	const char *what, *where, *api, *direction, *mode, *host_mem, *concurrency;
	const char *peer_access, *link, *reason;
	double gbps, peer_median_gbps, theoretical_gbps, fraction;
	char rules[64];            /**< "median" / "theoretical" / "median + theoretical" */
	int peers;
};
bool nbw_pv_outlier(json_t *o, struct nbw_pv_outlier *out);

/** One group of like measurements of the outlier rule. */
struct nbw_pv_group {
	const char *api, *direction, *mode, *host_mem, *concurrency, *peer_access, *link;
	const char *note;          /**< why the median rule did or did not judge it */
	long long bytes;
	int members;
	double median_gbps;
	bool median_rule;          /**< the median rule judged the group */
};
bool nbw_pv_group(json_t *g, struct nbw_pv_group *out);

/** One row of nbw_analysis_latency. */
struct nbw_pv_latency {
	const char *api, *direction, *host_mem;
	int src, dst;              /**< -1: the host */
	double copy_us, copy_us_bytes, chase_small_ns, chase_small_ns_bytes;
	double chase_large_ns, chase_large_ns_bytes, chase_large_touched_bytes;
};
bool nbw_pv_latency(json_t *row, struct nbw_pv_latency *out);

/** Derive every product of the results document \p root into \p out (zeroed first). 0, or
 *  -1 when out of memory (then \p out holds nothing). */
int nbw_products_derive(json_t *root, struct nbw_products *out);
/** The same at the size \p cmp instead of the document's own comparison size: what a
 *  comparison of two runs reads the second at (the first run's size), so that no figure is
 *  taken from another size. */
int nbw_products_derive_at(json_t *root, long long cmp, struct nbw_products *out);
/** A new struct nbw_products derived from \p root, or NULL when out of memory. */
struct nbw_products *nbw_products_new(json_t *root);
/** Release what \p p holds (not \p p itself); \p p may be zeroed or NULL. */
void nbw_products_release(struct nbw_products *p);
/** Release \p p and free it; NULL is fine. */
void nbw_products_free(struct nbw_products *p);

#endif
