/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fleet comparison on a terminal, as a report folder (report.md and report.html,
 * tables/ as CSV, the nodes x paths heat map, fleet-summary.json); the command is
 * tools/cmd-compare.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_priv.h"
#include "nodebw/fleet.h"
#include "nodebw/report.h"
#include "nodebw/results.h"

#define S(o, k) json_string_value(json_object_get((o), (k)))
#define N(o, k) json_number_value(json_object_get((o), (k)))
#define I(o, k) ((int)json_integer_value(json_object_get((o), (k))))

/** Columns of the heat map: the paths with an outlier, then the others, at most this many. */
#define FLEET_MAP_PATHS 40

/* Paths of the node below a threshold or a reference (nodebw check's verdicts). */
static int failed_paths(json_t *node)
{
	return (int)json_integer_value(json_object_get(json_object_get(node, "verdicts"), "failed"));
}

void nbw_fleet_print(FILE *f, json_t *s)
{
	json_t *nodes = json_object_get(s, "nodes"), *td = json_object_get(s, "topology_differences");
	json_t *out = json_object_get(s, "outliers"), *o;
	size_t i;
	fprintf(f, "Fleet %s: %zu nodes in %zu group%s (%s)\n", S(s, "fleet"), json_array_size(nodes),
		json_array_size(json_object_get(s, "groups")),
		json_array_size(json_object_get(s, "groups")) == 1 ? "" : "s", S(s, "units"));
	if (json_array_size(td) == 0) {
		fprintf(f, "Topology: no differences between the nodes of a group.\n");
	} else {
		fprintf(f, "Topology differences (%zu):\n", json_array_size(td));
		json_array_foreach(td, i, o)
			fprintf(f, "  %s: %s is %s, %d of %d nodes have %s\n", S(o, "node"),
				S(o, "what"), S(o, "value"), I(o, "nodes_with_fleet_value"),
				I(o, "nodes"), S(o, "fleet_value"));
	}
	if (json_array_size(out) == 0) {
		fprintf(f, "Outliers: none (%s).\n", S(s, "rule"));
	} else {
		fprintf(f, "Outliers (%zu; %s):\n", json_array_size(out), S(s, "rule"));
		json_array_foreach(out, i, o) {
			if (i == 20) {
				fprintf(f, "  ... %zu more in fleet-summary.json\n",
					json_array_size(out) - 20);
				break;
			}
			fprintf(f, "  %s: %s\n", S(o, "node"), S(o, "reason"));
		}
	}
	fprintf(f, "Nodes:\n");
	json_array_foreach(nodes, i, o) {
		if (!json_is_true(json_object_get(o, "readable")))
			fprintf(f, "  %-20s %-10s %s\n", S(o, "node"), S(o, "status"), S(o, "reason"));
		else
			fprintf(f, "  %-20s %-10s %s; %d paths, %d outliers, %d topology differences, "
				   "%d paths failing nodebw check\n", S(o, "node"), S(o, "status"),
				S(o, "group"), I(o, "paths"), I(o, "outliers"),
				I(o, "topology_differences"), failed_paths(o));
	}
}

static void nodes_table(struct nbw_rdoc *r, json_t *nodes)
{
	static const char *const h[] = { "node", "status", "group", "paths", "outliers",
					  "topology differences", "failing nodebw check",
					  "reason" };
	struct nbw_rtable *t = nbw_rtable_new("fleet-nodes", 8, h);
	size_t i;
	json_t *o;
	json_array_foreach(nodes, i, o) {
		nbw_rtable_cell(t, "%s", S(o, "node"));
		nbw_rtable_cell(t, "%s", S(o, "status"));
		nbw_rtable_cell(t, "%s", S(o, "group") ? S(o, "group") : "-");
		bool ok = json_is_true(json_object_get(o, "readable"));
		nbw_rtable_cell(t, ok ? "%d" : "-", I(o, "paths"));
		nbw_rtable_cell(t, ok ? "%d" : "-", I(o, "outliers"));
		nbw_rtable_cell(t, ok ? "%d" : "-", I(o, "topology_differences"));
		json_t *fl = json_object_get(json_object_get(o, "verdicts"), "failing");
		if (ok && json_array_size(fl))
			nbw_rtable_cell(t, "%d: %s%s", failed_paths(o), json_string_value(json_array_get(fl, 0)),
					json_array_size(fl) > 1 ? "; ..." : "");
		else
			nbw_rtable_cell(t, ok ? "%d" : "-", failed_paths(o));
		nbw_rtable_cell(t, "%s", S(o, "reason") && *S(o, "reason") ? S(o, "reason") : "-");
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "The nodes: how each node's run ended (fleet-node.json) and what the "
			     "comparison found");
}

static void topo_table(struct nbw_rdoc *r, json_t *td)
{
	if (json_array_size(td) == 0) {
		nbw_rdoc_para(r, "No topology differences: within each group every node has the same "
				 "CPU, devices, host links (PCIe generation and width), NUMA placement "
				 "and device-to-device links.");
		return;
	}
	static const char *const h[] = { "node", "what", "this node", "the others",
					  "nodes with it" };
	struct nbw_rtable *t = nbw_rtable_new("fleet-topology-differences", 5, h);
	size_t i;
	json_t *o;
	json_array_foreach(td, i, o) {
		nbw_rtable_cell(t, "%s", S(o, "node"));
		nbw_rtable_cell(t, "%s", S(o, "what"));
		nbw_rtable_cell(t, "%s", S(o, "value"));
		nbw_rtable_cell(t, "%s", S(o, "fleet_value"));
		nbw_rtable_cell(t, "%d of %d", I(o, "nodes_with_fleet_value"), I(o, "nodes"));
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Topology differences, listed first: a node whose item differs from "
			     "the value most nodes of its group have");
}

static void outlier_table(struct nbw_rdoc *r, json_t *out, const char *rule)
{
	if (json_array_size(out) == 0) {
		nbw_rdoc_para(r, "No outliers by the rule: %s.", rule);
		return;
	}
	nbw_rdoc_para(r, "The rule: %s.", rule);
	static const char *const h[] = { "node", "path", "value", "fleet median", "ratio",
					  "robust z", "nodes", "link", "reason" };
	static const char *const csv[] = { "node", "path", "value", "fleet_median", "ratio",
					   "robust_z", "nodes", "link", "reason" };
	struct nbw_rtable *t = nbw_rtable_new("fleet-outliers", 9, h);
	nbw_rtable_csv_names(t, csv);
	size_t i;
	json_t *o;
	json_array_foreach(out, i, o) {
		nbw_rtable_cell(t, "%s", S(o, "node"));
		nbw_rtable_cell(t, "%s", S(o, "path"));
		nbw_rtable_cellv(t, N(o, "value"), "%.4g %s", N(o, "value"), S(o, "unit"));
		nbw_rtable_cellv(t, N(o, "fleet_median"), "%.4g %s", N(o, "fleet_median"),
				 S(o, "unit"));
		nbw_rtable_cellv(t, N(o, "ratio"), "%.3f", N(o, "ratio"));
		nbw_rtable_cellv(t, N(o, "robust_z"), "%.1f", N(o, "robust_z"));
		nbw_rtable_cell(t, "%d", I(o, "nodes"));
		nbw_rtable_cell(t, "%s", S(o, "link") ? S(o, "link") : "-");
		nbw_rtable_cell(t, "%s", S(o, "reason"));
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Outliers, worst first (value and median in the path's unit)");
}

/* Every path of every group with each node's ratio to the fleet median (CSV for
 * machines; the heat map shows the paths that matter). */
static void paths_table(struct nbw_rdoc *r, json_t *paths, json_t *nodes)
{
	size_t nn = json_array_size(nodes);
	size_t nc = 9 + nn;
	const char **h = calloc(nc, sizeof(char *));
	const char **csv = calloc(nc, sizeof(char *));
	char (*names)[160] = calloc(nn ? nn : 1, sizeof(*names));
	if (!h || !csv || !names)
		goto done;
	static const char *const fixed[] = { "group", "path", "unit", "better", "nodes", "median",
					     "MAD", "spread (max/min)", "judged" };
	static const char *const fixed_csv[] = { "group", "path", "unit", "better", "nodes",
						 "median", "mad", "spread", "judged" };
	for (size_t c = 0; c < 9; c++) {
		h[c] = fixed[c];
		csv[c] = fixed_csv[c];
	}
	for (size_t k = 0; k < nn; k++) {
		const char *n = S(json_array_get(nodes, k), "node");
		snprintf(names[k], sizeof(names[k]), "ratio_");
		size_t o = 6;
		for (const char *p = n; *p && o + 1 < sizeof(names[k]); p++)
			names[k][o++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p :
					(*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : '_';
		names[k][o] = '\0';
		h[9 + k] = n;
		csv[9 + k] = names[k];
	}
	struct nbw_rtable *t = nbw_rtable_new("fleet-paths", nc, h);
	nbw_rtable_csv_names(t, csv);
	size_t i;
	json_t *p;
	json_array_foreach(paths, i, p) {
		nbw_rtable_cell(t, "%s", S(p, "group"));
		nbw_rtable_cell(t, "%s", S(p, "path"));
		nbw_rtable_cell(t, "%s", S(p, "unit"));
		nbw_rtable_cell(t, "%s", S(p, "better"));
		nbw_rtable_cell(t, "%d", I(p, "nodes"));
		nbw_rtable_cellv(t, N(p, "median"), "%.4g", N(p, "median"));
		nbw_rtable_cellv(t, N(p, "mad"), "%.3g", N(p, "mad"));
		nbw_rtable_cellv(t, N(p, "spread"), "%.3f", N(p, "spread"));
		nbw_rtable_cell(t, "%s", json_is_true(json_object_get(p, "judged")) ? "yes" : "no");
		json_t *ratios = json_object_get(p, "ratios");
		for (size_t k = 0; k < nn; k++) {
			json_t *v = json_object_get(ratios, S(json_array_get(nodes, k), "node"));
			if (v)
				nbw_rtable_cellv(t, json_number_value(v), "%.3f",
						 json_number_value(v));
			else
				nbw_rtable_cell(t, "-");
		}
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Every path of every group: the fleet median in the path's unit, "
			     "its median absolute deviation, and each node's ratio to the median "
			     "(- = not measured there or not in the group)");
done:
	free(h);
	free(csv);
	free(names);
}

static bool path_has_outlier(json_t *out, const char *group, const char *path)
{
	size_t i;
	json_t *o;
	json_array_foreach(out, i, o)
		if (strcmp(S(o, "group"), group) == 0 && strcmp(S(o, "path"), path) == 0)
			return true;
	return false;
}

/* nodes x paths of one group: the ratio to the fleet median, oriented so that 1 is the
 * median and below 1 is worse (times are inverted), red to green. */
static void heat_map(struct nbw_rdoc *r, json_t *s, json_t *group, int gi)
{
	json_t *members = json_object_get(group, "nodes"), *paths = json_object_get(s, "paths");
	json_t *out = json_object_get(s, "outliers");
	const char *g = S(group, "group");
	size_t nr = json_array_size(members);
	json_t *cols[FLEET_MAP_PATHS];
	size_t nc = 0;
	for (int pass = 0; pass < 2; pass++) {
		size_t i;
		json_t *p;
		json_array_foreach(paths, i, p) {
			if (nc == FLEET_MAP_PATHS)
				break;
			if (strcmp(S(p, "group"), g) != 0 || !json_is_true(json_object_get(p, "judged")))
				continue;
			bool flagged = path_has_outlier(out, g, S(p, "path"));
			bool main_kind = strcmp(S(p, "kind"), "latency") != 0;
			if ((pass == 0 && flagged) || (pass == 1 && !flagged && main_kind))
				cols[nc++] = p;
		}
	}
	if (nr < 2 || nc == 0) {
		nbw_rdoc_para(r, "Group \"%s\": no heat map (%zu node%s, %zu judged path%s).", g, nr,
			      nr == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
		return;
	}
	double *val = calloc(nr * nc, sizeof(double));
	char (*txt)[16] = calloc(nr * nc, sizeof(*txt));
	const char **text = calloc(nr * nc, sizeof(char *));
	const char **rl = calloc(nr, sizeof(char *)), **cl = calloc(nc, sizeof(char *));
	if (val && txt && text && rl && cl) {
		for (size_t a = 0; a < nr; a++) {
			rl[a] = json_string_value(json_array_get(members, a));
			for (size_t b = 0; b < nc; b++) {
				json_t *v = json_object_get(json_object_get(cols[b], "ratios"), rl[a]);
				double x = v ? json_number_value(v) : NAN;
				if (isfinite(x) && strcmp(S(cols[b], "better"), "lower") == 0)
					x = 1.0 / x;
				val[a * nc + b] = x;
				if (isfinite(x))
					snprintf(txt[a * nc + b], sizeof(txt[0]), "%.2f", x);
				else
					snprintf(txt[a * nc + b], sizeof(txt[0]), "-");
				text[a * nc + b] = txt[a * nc + b];
			}
		}
		for (size_t b = 0; b < nc; b++)
			cl[b] = S(cols[b], "path");
		char name[32], title[300];
		snprintf(name, sizeof(name), "fleet-map-%d", gi + 1);
		snprintf(title, sizeof(title), "%s: each node against the fleet median (1 = median, "
			 "< 1 worse)", g);
		struct nbw_heatmap h = { .name = name, .title = title, .xlabel = "path",
					 .ylabel = "node", .cblabel = "ratio to the fleet median",
					 .value = val, .text = text, .cbmin = 0.5, .cbmax = 1.5,
					 .red_to_green = true, .rows = nr, .cols = nc,
					 .row_labels = rl, .col_labels = cl };
		char cap[400];
		snprintf(cap, sizeof(cap), "Nodes x paths of group \"%s\": the ratio of each node to "
			 "the fleet median, times inverted so that below 1 is always worse; the paths "
			 "with an outlier first, then the bandwidth and solver paths (at most %d; "
			 "every path is in the table fleet-paths)", g, FLEET_MAP_PATHS);
		nbw_rdoc_heatmap(r, &h, cap);
	}
	free(val);
	free(txt);
	free(text);
	free(rl);
	free(cl);
}

int nbw_fleet_report(json_t *s, const char *outdir, char *err, size_t errlen)
{
	struct nbw_rdoc *r = nbw_rdoc_new(outdir, "nodebw fleet comparison", err, errlen);
	if (!r)
		return -1;
	nbw_rdoc_para(r, "Fleet folder %s. %s. Nodes are compared only with the nodes of their "
			 "group (the same device models).", S(s, "fleet"), S(s, "units"));
	nbw_rdoc_heading(r, 2, "Topology differences");
	topo_table(r, json_object_get(s, "topology_differences"));
	nbw_rdoc_heading(r, 2, "Outliers");
	outlier_table(r, json_object_get(s, "outliers"), S(s, "rule"));
	nbw_rdoc_heading(r, 2, "Nodes");
	nodes_table(r, json_object_get(s, "nodes"));
	nbw_rdoc_heading(r, 2, "Every node against the fleet");
	size_t i;
	json_t *g;
	json_array_foreach(json_object_get(s, "groups"), i, g)
		heat_map(r, s, g, (int)i);
	paths_table(r, json_object_get(s, "paths"), json_object_get(s, "nodes"));
	int rc = nbw_rdoc_write(r, err, errlen);
	nbw_rdoc_free(r);
	if (rc != 0)
		return -1;
	char *text = json_dumps(s, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	char path[4200];
	snprintf(path, sizeof(path), "%s/fleet-summary.json", outdir);
	rc = text ? nbw_write_atomic(path, text, strlen(text), err, errlen) : -1;
	free(text);
	return rc;
}
