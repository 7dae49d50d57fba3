/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fleet comparison: nodes grouped by their device models (nodes with other GPUs are
 * never compared with each other); per group, the topology differences (each item's most
 * common value against the nodes that differ), and per path the fleet median, the median
 * absolute deviation, the spread and each node's ratio to the median; a node is an
 * outlier on a path by the rule in nodebw/fleet.h. The summary's shape is in doc/fleet.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_priv.h"
#include "nodebw/fleet.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The topology differences of the nodes \p idx of one group. */
static void topo_diffs(json_t *nodes, const size_t *idx, size_t n, const char *group,
		       json_t *out)
{
	json_t *keys = json_object(); /* every key any node has, in first-seen order */
	struct nbw_fv_node *nv = calloc(n ? n : 1, sizeof(*nv));
	if (!nv) {
		json_decref(keys);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		nbw_fv_node(nodes, idx[i], &nv[i]);
		const char *k;
		for (size_t q = 0; (k = nbw_fv_topo_key(&nv[i], q)); q++)
			json_object_set_new(keys, k, json_true());
	}
	const char *key;
	json_t *unused;
	json_object_foreach(keys, key, unused) {
		/* the most common value (a missing item counts as "missing") */
		const char *vals[n];
		for (size_t i = 0; i < n; i++) {
			const char *s = nbw_fv_topo_value(&nv[i], key);
			vals[i] = s ? s : "missing";
		}
		size_t best = 0, best_count = 0;
		for (size_t i = 0; i < n; i++) {
			size_t c = 0;
			for (size_t j = 0; j < n; j++)
				c += strcmp(vals[i], vals[j]) == 0;
			if (c > best_count) {
				best_count = c;
				best = i;
			}
		}
		if (best_count == n)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(vals[i], vals[best]) == 0)
				continue;
			json_array_append_new(
				out, json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i}", "group", group,
					       "node", nv[i].node,
					       "what", key, "value", vals[i], "fleet_value", vals[best],
					       "nodes_with_fleet_value", (int)best_count, "nodes",
					       (int)n));
		}
	}
	json_decref(keys);
	free(nv);
}

/* Compare one path over the nodes \p idx of a group. */
static void compare_path(json_t *nodes, const size_t *idx, size_t n, const char *group,
			 const char *path, json_t *paths, json_t *outliers)
{
	double vals[n], sorted[n];
	size_t have = 0;
	struct nbw_fv_value proto, v;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		struct nbw_fv_node node;
		nbw_fv_node(nodes, idx[i], &node);
		bool has = nbw_fv_value(&node, path, &v);
		vals[i] = has ? v.value : NAN;
		if (has) {
			sorted[have++] = vals[i];
			if (!any)
				proto = v;
			any = true;
		}
	}
	if (!any)
		return;
	bool higher = strcmp(proto.better, "higher") == 0;
	double med = median_of(sorted, have);
	double dev[have > 0 ? have : 1];
	for (size_t i = 0; i < have; i++)
		dev[i] = fabs(sorted[i] - med);
	double mad = have ? median_of(dev, have) : 0;
	/* the group's robust standard deviation, floored so that identical nodes do not
	 * make every small difference infinitely significant */
	double sigma = fmax(1.4826 * mad, NBW_FLEET_SIGMA_FLOOR * med);
	/* Per-transfer times at the smallest size are shown, not judged: one run per node
	 * cannot tell a node from the between-process scatter of sub-microsecond copies
	 * (doc/fleet.md: 0.39 against 0.78 us for the same copy in two processes). */
	bool latency = strcmp(proto.kind, "latency") == 0;
	bool judged = have >= NBW_FLEET_MIN_NODES && !latency;
	json_t *ratios = json_object();
	const char *unit = proto.unit;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(vals[i]))
			continue;
		struct nbw_fv_node node;
		nbw_fv_node(nodes, idx[i], &node);
		const char *name = node.node;
		json_object_set_new(ratios, name, json_real(vals[i] / med));
		if (!judged)
			continue;
		double ratio = vals[i] / med;
		double worse = higher ? 1.0 - ratio : ratio - 1.0;
		double z = (vals[i] - med) / sigma;
		if (!(worse > NBW_FLEET_OUTLIER_FRACTION && fabs(z) > NBW_FLEET_OUTLIER_SIGMAS))
			continue;
		nbw_fv_value(&node, path, &v);
		const char *link = v.link;
		double theo = isfinite(v.theoretical_gbps) ? v.theoretical_gbps : 0.0;
		char reason[640], theo_s[128] = "";
		if (theo > 0 && strcmp(unit, "GB/s") == 0)
			snprintf(theo_s, sizeof(theo_s), ", %.0f %% of the link's theoretical %.1f GB/s",
				 100.0 * vals[i] / theo, theo);
		snprintf(reason, sizeof(reason),
			 "%s: %.4g %s, %.2f x the fleet median %.4g %s (%s is better; %.1f robust "
			 "standard deviations of the %zu nodes away; range %.4g-%.4g)%s%s%s", path,
			 vals[i], unit, ratio, med, unit, higher ? "higher" : "lower", fabs(z), have,
			 sorted[0], sorted[have - 1],
			 link ? "; link: " : "", link ? link : "", theo_s);
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:i, s:s}",
				      "group", group, "node", name, "path", path, "kind", v.kind,
				      "unit", unit,
				      "value", vals[i], "fleet_median", med, "robust_sd", sigma,
				      "ratio", ratio, "robust_z", z,
				      "nodes", (int)have, "reason", reason);
		if (link)
			json_object_set_new(o, "link", json_string(link));
		if (theo > 0)
			json_object_set_new(o, "theoretical_gbps", json_real(theo));
		json_array_append_new(outliers, o);
	}
	json_array_append_new(
		paths, json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:i, s:b, s:o}",
				 "group", group, "path", path, "kind", proto.kind, "unit", unit,
				 "better", higher ? "higher" : "lower", "median", med, "mad", mad,
				 "min", sorted[0], "max", sorted[have - 1], "spread",
				 sorted[0] > 0 ? sorted[have - 1] / sorted[0] : 0.0, "nodes",
				 (int)have, "judged", judged, "ratios", ratios));
}

/* An outlier and how much worse than the median it is (a time above it, a rate below). */
struct ranked {
	double worse;
	json_t *o;
};

static int outlier_order(const void *a, const void *b)
{
	double wx = ((const struct ranked *)a)->worse, wy = ((const struct ranked *)b)->worse;
	return wx > wy ? -1 : wx < wy;
}

json_t *nbw_fleet_compare(const char *dir, const struct nbw_criteria *cr, char *err,
			  size_t errlen)
{
	json_t *nodes = nbw_fleet_load_nodes(dir, cr, err, errlen);
	if (!nodes)
		return NULL;
	json_t *groups = json_array(), *tdiff = json_array(), *paths = json_array();
	json_t *outliers = json_array();
	size_t nn = json_array_size(nodes);
	bool *done = calloc(nn ? nn : 1, sizeof(bool));
	size_t *idx = calloc(nn ? nn : 1, sizeof(size_t));
	for (size_t i = 0; i < nn && done && idx; i++) {
		struct nbw_fv_node ni;
		nbw_fv_node(nodes, i, &ni);
		if (done[i] || !ni.readable || !ni.group)
			continue;
		const char *g = ni.group;
		size_t n = 0;
		json_t *members = json_array();
		for (size_t j = i; j < nn; j++) {
			struct nbw_fv_node nj;
			nbw_fv_node(nodes, j, &nj);
			if (!done[j] && nj.readable && nj.group && strcmp(nj.group, g) == 0) {
				done[j] = true;
				idx[n++] = j;
				json_array_append_new(members, json_string(nj.node));
			}
		}
		topo_diffs(nodes, idx, n, g, tdiff);
		json_t *allpaths = json_object();
		for (size_t k = 0; k < n; k++) {
			struct nbw_fv_node nk;
			nbw_fv_node(nodes, idx[k], &nk);
			const char *p;
			for (size_t q = 0; (p = nbw_fv_value_path(&nk, q)); q++)
				json_object_set_new(allpaths, p, json_true());
		}
		size_t before = json_array_size(paths);
		const char *p;
		json_t *unused;
		json_object_foreach(allpaths, p, unused)
			compare_path(nodes, idx, n, g, p, paths, outliers);
		size_t judged = 0;
		struct nbw_fv_path pk;
		for (size_t k = before; nbw_fv_path(paths, k, &pk); k++)
			judged += pk.judged;
		json_decref(allpaths);
		json_array_append_new(groups, json_pack("{s:s, s:o, s:i, s:i}", "group", g, "nodes",
							members, "paths",
							(int)(json_array_size(paths) - before),
							"judged", (int)judged));
	}
	free(done);
	free(idx);
	/* worst first */
	size_t no = json_array_size(outliers);
	struct ranked *v = calloc(no ? no : 1, sizeof(*v));
	for (size_t i = 0; v && i < no; i++) {
		struct nbw_fv_outlier x;
		nbw_fv_outlier(outliers, i, &x);
		v[i].worse = strcmp(x.unit, "GB/s") == 0 ? 1 - x.ratio : x.ratio - 1;
		v[i].o = json_incref(json_array_get(outliers, i));
	}
	if (v) {
		qsort(v, no, sizeof(*v), outlier_order);
		json_array_clear(outliers);
		for (size_t i = 0; i < no; i++)
			json_array_append_new(outliers, v[i].o);
		free(v);
	}
	/* per node: counts, its worst ratio, and the values no longer needed */
	struct nbw_fv_node nv;
	for (size_t i = 0; nbw_fv_node(nodes, i, &nv); i++) {
		json_t *node = json_array_get(nodes, i);
		int no_n = 0, td = 0;
		struct nbw_fv_outlier o;
		struct nbw_fv_tdiff d;
		for (size_t k = 0; nbw_fv_outlier(outliers, k, &o); k++)
			no_n += strcmp(o.node, nv.node) == 0;
		for (size_t k = 0; nbw_fv_tdiff(tdiff, k, &d); k++)
			td += strcmp(d.node, nv.node) == 0;
		size_t npaths = nbw_fv_nvalues(&nv);
		json_object_set_new(node, "outliers", json_integer(no_n));
		json_object_set_new(node, "topology_differences", json_integer(td));
		json_object_set_new(node, "paths", json_integer((json_int_t)npaths));
		json_object_del(node, "values");
		json_object_del(node, "topology");
	}
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "schema",
			 "nodebw-fleet-summary", "schema_version", 1, "fleet", dir, "units",
			 "GB/s = 1e9 bytes per second; us = microseconds per transfer; ms/step = "
			 "milliseconds per solver time step", "rule",
			 "on the bandwidth and solver paths (the small-size times are shown, not judged), "
			 "a node is flagged on a path when it is more than 10 % worse than the fleet "
			 "median of its group (nodes with the same device models; at least 3 nodes with "
			 "the value) and more than 3.5 robust standard deviations (1.4826 x the median "
			 "absolute deviation, at least 2 % of the median) from it",
			 "nodes", nodes, "groups", groups, "topology_differences", tdiff, "outliers",
			 outliers, "paths", paths);
}
