/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed views of the fleet's documents (fleet/compare_priv.h): a node's record, the
 * comparison summary, a node's fleet-node.json.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_priv.h"
#include "nodebw/jclean.h"
#include "nodebw/jget.h"
#include "nodebw/readfile.h"




/* The key of member \p i of object \p o; NULL past the end. */
static const char *key_at(json_t *o, size_t i)
{
	void *it = json_object_iter(o);
	for (size_t k = 0; it && k < i; k++)
		it = json_object_iter_next(o, it);
	return it ? json_object_iter_key(it) : NULL;
}

bool nbw_fv_node(json_t *nodes, size_t i, struct nbw_fv_node *out)
{
	return nbw_fv_node_of(json_array_get(nodes, i), out);
}

bool nbw_fv_node_of(json_t *o, struct nbw_fv_node *out)
{
	memset(out, 0, sizeof(*out));
	out->node = out->status = out->reason = "";
	if (!json_is_object(o))
		return false;
	out->j = o;
	out->node = jstr(o, "node");
	out->status = jstr(o, "status");
	out->reason = jstr(o, "reason");
	out->group = json_string_value(json_object_get(o, "group"));
	out->readable = json_is_true(json_object_get(o, "readable"));
	out->paths = jint(o, "paths", 0);
	out->outliers = jint(o, "outliers", 0);
	out->topology_differences = jint(o, "topology_differences", 0);
	json_t *v = json_object_get(o, "verdicts");
	out->failed = jint(v, "failed", 0);
	out->nfailing = json_array_size(json_object_get(v, "failing"));
	return true;
}

const char *nbw_fv_node_failing(const struct nbw_fv_node *n, size_t i)
{
	const char *s = json_string_value(
		json_array_get(json_object_get(json_object_get(n->j, "verdicts"), "failing"), i));
	return s ? s : "";
}

const char *nbw_fv_topo_key(const struct nbw_fv_node *n, size_t i)
{
	return key_at(json_object_get(n->j, "topology"), i);
}

const char *nbw_fv_topo_value(const struct nbw_fv_node *n, const char *key)
{
	return json_string_value(json_object_get(json_object_get(n->j, "topology"), key));
}

const char *nbw_fv_value_path(const struct nbw_fv_node *n, size_t i)
{
	return key_at(json_object_get(n->j, "values"), i);
}

size_t nbw_fv_nvalues(const struct nbw_fv_node *n)
{
	return json_object_size(json_object_get(n->j, "values"));
}

bool nbw_fv_value(const struct nbw_fv_node *n, const char *path, struct nbw_fv_value *out)
{
	json_t *v = json_object_get(json_object_get(n->j, "values"), path);
	memset(out, 0, sizeof(*out));
	out->value = out->theoretical_gbps = NAN;
	out->unit = out->better = out->kind = "";
	if (!json_is_object(v))
		return false;
	out->value = json_number_value(json_object_get(v, "value"));
	out->theoretical_gbps = jnum(v, "theoretical_gbps");
	out->unit = jstr(v, "unit");
	out->better = jstr(v, "better");
	out->kind = jstr(v, "kind");
	out->link = json_string_value(json_object_get(v, "link"));
	return true;
}

double nbw_fv_values_value(json_t *values, const char *path)
{
	json_t *v = json_object_get(values, path);
	return v ? json_number_value(json_object_get(v, "value")) : NAN;
}

bool nbw_fv_tdiff(json_t *tdiffs, size_t i, struct nbw_fv_tdiff *out)
{
	json_t *o = json_array_get(tdiffs, i);
	memset(out, 0, sizeof(*out));
	out->group = out->node = out->what = out->value = out->fleet_value = "";
	if (!json_is_object(o))
		return false;
	out->group = jstr(o, "group");
	out->node = jstr(o, "node");
	out->what = jstr(o, "what");
	out->value = jstr(o, "value");
	out->fleet_value = jstr(o, "fleet_value");
	out->nodes_with_fleet_value = jint(o, "nodes_with_fleet_value", 0);
	out->nodes = jint(o, "nodes", 0);
	return true;
}

bool nbw_fv_outlier(json_t *outliers, size_t i, struct nbw_fv_outlier *out)
{
	json_t *o = json_array_get(outliers, i);
	memset(out, 0, sizeof(*out));
	out->group = out->node = out->path = out->kind = out->unit = out->reason = "";
	out->value = out->fleet_median = out->ratio = out->robust_z = NAN;
	if (!json_is_object(o))
		return false;
	out->group = jstr(o, "group");
	out->node = jstr(o, "node");
	out->path = jstr(o, "path");
	out->kind = jstr(o, "kind");
	out->unit = jstr(o, "unit");
	out->reason = jstr(o, "reason");
	out->link = json_string_value(json_object_get(o, "link"));
	out->value = jnum(o, "value");
	out->fleet_median = jnum(o, "fleet_median");
	out->ratio = jnum(o, "ratio");
	out->robust_z = jnum(o, "robust_z");
	out->nodes = jint(o, "nodes", 0);
	return true;
}

bool nbw_fv_path(json_t *paths, size_t i, struct nbw_fv_path *out)
{
	json_t *p = json_array_get(paths, i);
	memset(out, 0, sizeof(*out));
	out->group = out->path = out->kind = out->unit = out->better = "";
	out->median = out->mad = out->spread = NAN;
	if (!json_is_object(p))
		return false;
	out->group = jstr(p, "group");
	out->path = jstr(p, "path");
	out->kind = jstr(p, "kind");
	out->unit = jstr(p, "unit");
	out->better = jstr(p, "better");
	out->median = jnum(p, "median");
	out->mad = jnum(p, "mad");
	out->spread = jnum(p, "spread");
	out->nodes = jint(p, "nodes", 0);
	out->judged = json_is_true(json_object_get(p, "judged"));
	out->ratios_ = json_object_get(p, "ratios");
	return true;
}

double nbw_fv_path_ratio(const struct nbw_fv_path *p, const char *node)
{
	json_t *v = node ? json_object_get(p->ratios_, node) : NULL;
	return v ? json_number_value(v) : NAN;
}

bool nbw_fv_group(json_t *groups, size_t i, struct nbw_fv_group *out)
{
	json_t *g = json_array_get(groups, i);
	memset(out, 0, sizeof(*out));
	out->group = "";
	if (!json_is_object(g))
		return false;
	out->group = jstr(g, "group");
	out->members_ = json_object_get(g, "nodes");
	out->nmembers = json_array_size(out->members_);
	return true;
}

const char *nbw_fv_group_member(const struct nbw_fv_group *g, size_t i)
{
	return json_string_value(json_array_get(g->members_, i));
}

void nbw_fv_summary(json_t *s, struct nbw_fv_summary *out)
{
	out->fleet = jstr(s, "fleet");
	out->units = jstr(s, "units");
	out->rule = jstr(s, "rule");
	out->nodes = json_object_get(s, "nodes");
	out->groups = json_object_get(s, "groups");
	out->tdiffs = json_object_get(s, "topology_differences");
	out->outliers = json_object_get(s, "outliers");
	out->paths = json_object_get(s, "paths");
	out->nnodes = json_array_size(out->nodes);
	out->ngroups = json_array_size(out->groups);
	out->ntdiffs = json_array_size(out->tdiffs);
	out->noutliers = json_array_size(out->outliers);
}

json_t *nbw_fv_node_file_load(const char *path)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	/* A fleet-node.json is a few hundred bytes: 1 MiB is far above any real one. */
	if (nbw_readfile(path, (size_t)1 << 20, &buf, &len, err, sizeof(err)))
		return NULL;
	json_t *j = nbw_json_loadb(buf, len, 0, NULL);
	free(buf);
	return j;
}

void nbw_fv_node_file(json_t *j, const char **node, const char **status, const char **reason)
{
	*node = json_string_value(json_object_get(j, "node"));
	*status = json_string_value(json_object_get(j, "status"));
	*reason = json_string_value(json_object_get(j, "reason"));
}

size_t nbw_fleet_readable_nodes(json_t *summary)
{
	struct nbw_fv_summary v;
	struct nbw_fv_node n;
	size_t k = 0;
	nbw_fv_summary(summary, &v);
	for (size_t i = 0; nbw_fv_node(v.nodes, i, &n); i++)
		k += n.readable;
	return k;
}
