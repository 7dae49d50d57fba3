/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Whole-node analyses of a finished results document: the P2P matrices (bandwidth
 * at the run's comparison size, the same for every series; latency at the
 * smallest; per API, mode, concurrency and peer access), the per-device host<->device
 * tables (the same rule), and the outlier rule.
 *
 * Everything works on the JSON of a results document (its "devices" and "measurements"),
 * with whatever devices and pairs it holds, so the same code serves a fresh run and a
 * recorded file (`nodebw matrix RESULTS.json`). Nothing here measures anything, keeps
 * state between calls or exits. Only verified measurements without an error take part;
 * the hidden-helper sweep's re-runs are left out. Bandwidth is GB/s = 1e9 B/s.
 *
 * A same-device P2P copy (src = dst) is labelled NBW_SAME_DEVICE_LABEL, never a peer
 * link, and takes no part in the outlier rule; copies between host-plugin devices or host
 * memory regions are labelled "host memory, no link" and never have a theoretical figure.
 * The shapes of the JSON are described in doc/analysis.md.
 */
#ifndef NODEBW_ANALYSIS_H
#define NODEBW_ANALYSIS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define NBW_SAME_DEVICE_LABEL "same device (not a peer link)"
#define NBW_HOST_MEMORY_LABEL "host memory, no link"

/** The outlier rule. */
#define NBW_OUTLIER_RULE                                                                   \
	"at the comparison size, a device or pair whose bandwidth is more than 10 % below "  \
	"the median of its peers of the same link kind (host memory included) and below it " \
	"by more than its own 95 % interval, or below 70 % of its theoretical figure, is "   \
	"flagged with the reason"
/** Flagged when GB/s < NBW_OUTLIER_PEER_FRACTION x the median of its peers. */
#define NBW_OUTLIER_PEER_FRACTION 0.9
/** Flagged when GB/s < NBW_OUTLIER_THEORETICAL_FRACTION x its theoretical GB/s. */
#define NBW_OUTLIER_THEORETICAL_FRACTION 0.7
/** The median rule needs a group of at least this many members (itself included). */
#define NBW_OUTLIER_MIN_GROUP 3

/** The comparison size of a run, in bytes: the one size at which every device and pair is
 *  judged, ranked, drawn in a matrix and summed in an aggregate, in every output. It is the
 *  large size of the plan's matrix cells (the measurements whose size set is "matrix"),
 *  which every device and pair has; in a run where every set ran the whole sweep, the
 *  plan's rule for its cells over the sizes the most device sets were measured at: the
 *  largest not above the cells' cap (64 MiB, NBW_MATRIX_MAX_BYTES) other than the smallest,
 *  else the largest. -1 when the document has no bandwidth measurement.
 *  A device or pair without a measurement at this size is reported as such, never at
 *  another size. */
long long nbw_analysis_comparison_bytes(json_t *devices, json_t *measurements);

/** The analyses below at a comparison size already derived (nbw_products_derive derives it
 *  once for all of them); the functions without _at derive it themselves. */
json_t *nbw_analysis_matrices_at(json_t *devices, json_t *measurements, long long cmp);
json_t *nbw_analysis_device_tables_at(json_t *devices, json_t *measurements, long long cmp);
json_t *nbw_analysis_concurrent_at(json_t *devices, json_t *measurements, long long cmp);
json_t *nbw_analysis_outliers_at(json_t *devices, json_t *measurements, long long cmp,
				 json_t **groups);

/** P2P matrices: an array with one object per (api, mode, concurrency, peer_access) of the
 *  P2P measurements: "devices" (ids, ascending), "bandwidth_bytes" (the comparison size,
 *  nbw_analysis_comparison_bytes; "not_at_bandwidth_bytes" lists the pairs measured only
 *  at other sizes), "latency_bytes" (smallest), "cells" (rows =
 *  source, columns = destination; null = not measured), "notes". New reference, never NULL. */
json_t *nbw_analysis_matrices(json_t *devices, json_t *measurements);

/** Host<->device tables: an array with one object per (api, direction, mode, host_mem) of
 *  the single-stream htod/dtoh measurements, "rows" one per device at "bytes", the
 *  comparison size ("not_at_bytes": the devices measured only at other sizes).
 *  New reference, never NULL. */
json_t *nbw_analysis_device_tables(json_t *devices, json_t *measurements);

/** The outlier rule at the size of every series (the matrices' rule): an array of
 *  outlier objects (empty when none). When \p groups is not NULL it receives (new reference) one object
 *  per group of like measurements, saying how many members it has and whether the median
 *  rule applied. Never NULL. */
json_t *nbw_analysis_outliers(json_t *devices, json_t *measurements, json_t **groups);

/** Every device at once (host-to-all, all-to-host) and the P2P ring, one object per series
 *  at the comparison size: aggregate, each stream, the sum of each stream alone and the
 *  scaling against it, the sum of the links' theoretical figures, the host memory's limit
 *  (host backend, mode parallel) and which of the two bounds the aggregate, the slowest
 *  stream. New reference, never NULL. */
json_t *nbw_analysis_concurrent(json_t *devices, json_t *measurements);
void nbw_analysis_print_concurrent(FILE *f, json_t *rows);

/** Terminal output; each table is preceded by a line stating "GB/s = 1e9 B/s". */
void nbw_analysis_print_matrices(FILE *f, json_t *matrices);
/** The latency table: one row per API and single-stream path that has a chase measurement
 *  ({api, direction, host_mem, src, dst (-1 = host), copy_us and copy_us_bytes: the median
 *  time of one sync copy at the smallest size measured on the path, chase_small_ns and
 *  chase_large_ns with their _bytes (chase_small_ns_bytes ...): the chase's latency per load at its smallest and
 *  largest working set, chase_large_touched_bytes}). New reference, never NULL. */
json_t *nbw_analysis_latency(json_t *devices, json_t *measurements);
void nbw_analysis_print_latency(FILE *f, json_t *rows);
void nbw_analysis_print_device_tables(FILE *f, json_t *tables);
/** The outlier table, or an explicit "no outliers" line; \p groups may be NULL. */
void nbw_analysis_print_outliers(FILE *f, json_t *outliers, json_t *groups);

/** Everything a run did not measure or could not verify, from a whole results document:
 *  measurements with an error or without passed verification, solver runs that failed
 *  verification, solver children that failed, and the skipped list; each
 *  {"kind": "error" | "verification failed" | "not verified" | "skipped", "what", "reason"}. */
json_t *nbw_analysis_failures(json_t *root);
/** The entries of \p failures that are not "skipped". */
size_t nbw_analysis_failure_count(json_t *failures);
/** Element \p i of \p failures as fields (borrowed, "" when absent); false past the end. */
struct nbw_pv_failure {
	const char *kind, *what, *reason;
	bool skipped; /**< an entry of the skipped list, not a failure */
};
bool nbw_pv_failure(json_t *failures, size_t i, struct nbw_pv_failure *out);

#endif
