/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of the "Whole node" section (report/node*.c), each on one results document's
 * "devices" and "measurements" through analysis/ (include/nodebw/analysis.h).
 */
#ifndef NODEBW_REPORT_NODE_PRIV_H
#define NODEBW_REPORT_NODE_PRIV_H

#include <jansson.h>

#include "nodebw/report.h"

/** Heat maps are drawn for every P2P matrix when there are at most this many ... */
#define NBW_NODE_MAPS_ALL 4
/** ... else only for single-stream sync/async ones with peer access enabled or n/a, and
 *  for at most this many matrices per results file; every matrix is a table. */
#define NBW_NODE_MAPS_MAX 8
/** Series (mode x host memory) drawn in one per-device bar chart; the rest are in its
 *  table only. */
#define NBW_NODE_BAR_SERIES_MAX 6

/** \p tag prefixes plot and table names ("" for a single file, "f1-" ...); \p level is
 *  the heading level of the part. */
void nbw_node_matrices(struct nbw_rdoc *r, json_t *matrices, const char *tag, int level);
void nbw_node_devices(struct nbw_rdoc *r, json_t *tables, const char *tag, int level);
void nbw_node_concurrent(struct nbw_rdoc *r, json_t *rows, const char *tag, int level);
/** \p rows: nbw_analysis_latency's. */
void nbw_node_latency(struct nbw_rdoc *r, json_t *rows, const char *tag, int level);
/** \p v: nbw_verdicts' object. */
void nbw_node_verdicts(struct nbw_rdoc *r, json_t *v, const char *tag, int level);
void nbw_node_outliers(struct nbw_rdoc *r, json_t *outliers, json_t *groups, const char *tag,
		       int level);

#endif
