/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of the fleet comparison (fleet/compare*.c): loading the nodes (compare_load.c),
 * the comparison itself (compare.c), and its output (compare_out.c).
 */
#ifndef NODEBW_FLEET_COMPARE_PRIV_H
#define NODEBW_FLEET_COMPARE_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/fleet.h"

/** Every node folder of fleet folder \p dir, each reduced as compare_load.c describes, in
 *  folder-name order; NULL with \p err when there is none. */
struct nbw_criteria;
/* Each node's verdicts judge by \p cr (NULL: the theoretical figures only). */
json_t *nbw_fleet_load_nodes(const char *dir, const struct nbw_criteria *cr, char *err,
			     size_t errlen);

/* ---- typed views of the fleet's documents (compare_view.c) ---------------------------- *
 * A node's record (compare_load.c), the comparison summary (compare.c, fleet-summary.json)
 * and a node's fleet-node.json, read as fields: the one place with compare_load.c and
 * compare.c, which build them, that names their keys. Strings borrowed ("" when absent
 * unless said), numbers NAN when absent. */
struct nbw_fv_node {
	const char *node, *status, *reason;
	const char *group;          /**< NULL when the node has none (unreadable) */
	bool readable;
	int paths, outliers, topology_differences;
	int failed;                 /**< paths failing nodebw check */
	size_t nfailing;
	json_t *j; /* private */
};
bool nbw_fv_node(json_t *nodes, size_t i, struct nbw_fv_node *out);
/** The same of one record \p o. */
bool nbw_fv_node_of(json_t *o, struct nbw_fv_node *out);
const char *nbw_fv_node_failing(const struct nbw_fv_node *n, size_t i);
/** A node record's topology item \p i (NULL past the end) and an item's value (NULL when
 *  the node does not have it). */
const char *nbw_fv_topo_key(const struct nbw_fv_node *n, size_t i);
const char *nbw_fv_topo_value(const struct nbw_fv_node *n, const char *key);
/** One value of a node on a path; link NULL when none. */
struct nbw_fv_value {
	double value, theoretical_gbps;
	const char *unit, *better, *kind, *link;
};
const char *nbw_fv_value_path(const struct nbw_fv_node *n, size_t i);
size_t nbw_fv_nvalues(const struct nbw_fv_node *n);
bool nbw_fv_value(const struct nbw_fv_node *n, const char *path, struct nbw_fv_value *out);
/** The value on \p path of a node's values object \p values while it is built; NAN when
 *  it has none. */
double nbw_fv_values_value(json_t *values, const char *path);

struct nbw_fv_tdiff {
	const char *group, *node, *what, *value, *fleet_value;
	int nodes_with_fleet_value, nodes;
};
bool nbw_fv_tdiff(json_t *tdiffs, size_t i, struct nbw_fv_tdiff *out);
struct nbw_fv_outlier {
	const char *group, *node, *path, *kind, *unit, *reason;
	const char *link;           /**< NULL when none */
	double value, fleet_median, ratio, robust_z;
	int nodes;
};
bool nbw_fv_outlier(json_t *outliers, size_t i, struct nbw_fv_outlier *out);
struct nbw_fv_path {
	const char *group, *path, *kind, *unit, *better;
	double median, mad, spread;
	int nodes;
	bool judged;
	json_t *ratios_; /* private */
};
bool nbw_fv_path(json_t *paths, size_t i, struct nbw_fv_path *out);
/** The ratio of \p node to the fleet median on path \p p; NAN when it has none. */
double nbw_fv_path_ratio(const struct nbw_fv_path *p, const char *node);
struct nbw_fv_group {
	const char *group;
	size_t nmembers;
	json_t *members_; /* private */
};
bool nbw_fv_group(json_t *groups, size_t i, struct nbw_fv_group *out);
const char *nbw_fv_group_member(const struct nbw_fv_group *g, size_t i);
/** The comparison summary's head and its lists (borrowed, for the views above). */
struct nbw_fv_summary {
	const char *fleet, *units, *rule;
	json_t *nodes, *groups, *tdiffs, *outliers, *paths;
	size_t nnodes, ngroups, ntdiffs, noutliers;
};
void nbw_fv_summary(json_t *s, struct nbw_fv_summary *out);
/** Read a node's fleet-node.json \p path through the bounded reader (a FIFO or an
 *  oversized file does not block or swallow the comparison); NULL when it cannot be read or
 *  parsed. */
json_t *nbw_fv_node_file_load(const char *path);
/** A node's fleet-node.json: its name, status and reason (NULL when absent). */
void nbw_fv_node_file(json_t *j, const char **node, const char **status, const char **reason);

#endif
