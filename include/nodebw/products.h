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

/** Derive every product of the results document \p root into \p out (zeroed first). 0, or
 *  -1 when out of memory (then \p out holds nothing). */
int nbw_products_derive(json_t *root, struct nbw_products *out);
/** A new struct nbw_products derived from \p root, or NULL when out of memory. */
struct nbw_products *nbw_products_new(json_t *root);
/** Release what \p p holds (not \p p itself); \p p may be zeroed or NULL. */
void nbw_products_release(struct nbw_products *p);
/** Release \p p and free it; NULL is fine. */
void nbw_products_free(struct nbw_products *p);

#endif
