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
	for (size_t i = 0; i < n; i++) {
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(json_array_get(nodes, idx[i]), "topology"), k, v)
			json_object_set_new(keys, k, json_true());
	}
	const char *key;
	json_t *unused;
	json_object_foreach(keys, key, unused) {
		/* the most common value (a missing item counts as "missing") */
		const char *vals[n];
		for (size_t i = 0; i < n; i++) {
			json_t *t = json_object_get(json_array_get(nodes, idx[i]), "topology");
			const char *s = json_string_value(json_object_get(t, key));
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
			json_t *node = json_array_get(nodes, idx[i]);
			json_array_append_new(
				out, json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i}", "group", group,
					       "node", json_string_value(json_object_get(node, "node")),
					       "what", key, "value", vals[i], "fleet_value", vals[best],
					       "nodes_with_fleet_value", (int)best_count, "nodes",
					       (int)n));
		}
	}
	json_decref(keys);
}

/* Compare one path over the nodes \p idx of a group. */
static void compare_path(json_t *nodes, const size_t *idx, size_t n, const char *group,
			 const char *path, json_t *paths, json_t *outliers)
{
	double vals[n], sorted[n];
	size_t have = 0;
	json_t *proto = NULL;
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_object_get(json_object_get(json_array_get(nodes, idx[i]), "values"),
					    path);
		vals[i] = v ? json_number_value(json_object_get(v, "value")) : NAN;
		if (v) {
			sorted[have++] = vals[i];
			if (!proto)
				proto = v;
		}
	}
	if (!proto)
		return;
	bool higher = strcmp(json_string_value(json_object_get(proto, "better")), "higher") == 0;
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
	bool latency = strcmp(json_string_value(json_object_get(proto, "kind")), "latency") == 0;
	bool judged = have >= NBW_FLEET_MIN_NODES && !latency;
	json_t *ratios = json_object();
	const char *unit = json_string_value(json_object_get(proto, "unit"));
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(vals[i]))
			continue;
		json_t *node = json_array_get(nodes, idx[i]);
		const char *name = json_string_value(json_object_get(node, "node"));
		json_object_set_new(ratios, name, json_real(vals[i] / med));
		if (!judged)
			continue;
		double ratio = vals[i] / med;
		double worse = higher ? 1.0 - ratio : ratio - 1.0;
		double z = (vals[i] - med) / sigma;
		if (!(worse > NBW_FLEET_OUTLIER_FRACTION && fabs(z) > NBW_FLEET_OUTLIER_SIGMAS))
			continue;
		json_t *v = json_object_get(json_object_get(node, "values"), path);
		const char *link = json_string_value(json_object_get(v, "link"));
		double theo = json_number_value(json_object_get(v, "theoretical_gbps"));
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
				      "group", group, "node", name, "path", path, "kind",
				      json_string_value(json_object_get(v, "kind")), "unit", unit,
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
				 "group", group, "path", path, "kind",
				 json_string_value(json_object_get(proto, "kind")), "unit", unit,
				 "better", higher ? "higher" : "lower", "median", med, "mad", mad,
				 "min", sorted[0], "max", sorted[have - 1], "spread",
				 sorted[0] > 0 ? sorted[have - 1] / sorted[0] : 0.0, "nodes",
				 (int)have, "judged", judged, "ratios", ratios));
}

static int outlier_order(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	double rx = json_number_value(json_object_get(x, "ratio"));
	double ry = json_number_value(json_object_get(y, "ratio"));
	bool hx = strcmp(json_string_value(json_object_get(x, "unit")), "GB/s") == 0;
	bool hy = strcmp(json_string_value(json_object_get(y, "unit")), "GB/s") == 0;
	double wx = hx ? 1 - rx : rx - 1, wy = hy ? 1 - ry : ry - 1;
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
		json_t *ni = json_array_get(nodes, i);
		if (done[i] || !json_is_true(json_object_get(ni, "readable")))
			continue;
		const char *g = json_string_value(json_object_get(ni, "group"));
		size_t n = 0;
		json_t *members = json_array();
		for (size_t j = i; j < nn; j++) {
			json_t *nj = json_array_get(nodes, j);
			const char *gj = json_string_value(json_object_get(nj, "group"));
			if (!done[j] && json_is_true(json_object_get(nj, "readable")) && gj &&
			    strcmp(gj, g) == 0) {
				done[j] = true;
				idx[n++] = j;
				json_array_append(members, json_object_get(nj, "node"));
			}
		}
		topo_diffs(nodes, idx, n, g, tdiff);
		json_t *allpaths = json_object();
		for (size_t k = 0; k < n; k++) {
			const char *p;
			json_t *v;
			json_object_foreach(json_object_get(json_array_get(nodes, idx[k]), "values"), p, v)
				json_object_set_new(allpaths, p, json_true());
		}
		size_t before = json_array_size(paths);
		const char *p;
		json_t *unused;
		json_object_foreach(allpaths, p, unused)
			compare_path(nodes, idx, n, g, p, paths, outliers);
		size_t judged = 0;
		for (size_t k = before; k < json_array_size(paths); k++)
			judged += json_is_true(json_object_get(json_array_get(paths, k), "judged"));
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
	json_t **v = calloc(no ? no : 1, sizeof(json_t *));
	for (size_t i = 0; v && i < no; i++)
		v[i] = json_incref(json_array_get(outliers, i));
	if (v) {
		qsort(v, no, sizeof(json_t *), outlier_order);
		json_array_clear(outliers);
		for (size_t i = 0; i < no; i++)
			json_array_append_new(outliers, v[i]);
		free(v);
	}
	/* per node: counts, its worst ratio, and the values no longer needed */
	size_t i;
	json_t *node;
	json_array_foreach(nodes, i, node) {
		const char *name = json_string_value(json_object_get(node, "node"));
		int no_n = 0, td = 0;
		size_t k;
		json_t *o;
		json_array_foreach(outliers, k, o)
			no_n += strcmp(json_string_value(json_object_get(o, "node")), name) == 0;
		json_array_foreach(tdiff, k, o)
			td += strcmp(json_string_value(json_object_get(o, "node")), name) == 0;
		json_object_set_new(node, "outliers", json_integer(no_n));
		json_object_set_new(node, "topology_differences", json_integer(td));
		json_object_set_new(node, "paths",
				    json_integer((json_int_t)json_object_size(
					    json_object_get(node, "values"))));
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
