/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fleet comparison on a terminal, as a report folder (report.md and report.html,
 * tables/ as CSV, the nodes x paths heat map, fleet-summary.json); the command is
 * tools/cmd-compare.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare_priv.h"
#include "nodebw/fleet.h"
#include "nodebw/cli.h"
#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/rundir.h"

/** Columns of the heat map: the paths with an outlier, then the others, at most this many. */
#define FLEET_MAP_PATHS 40

void nbw_fleet_print(FILE *f, json_t *s)
{
	struct nbw_fv_summary v;
	nbw_fv_summary(s, &v);
	fprintf(f, "Fleet %s: %zu nodes in %zu group%s (%s)\n", v.fleet, v.nnodes, v.ngroups,
		v.ngroups == 1 ? "" : "s", v.units);
	if (v.ntdiffs == 0) {
		fprintf(f, "Topology: no differences between the nodes of a group.\n");
	} else {
		fprintf(f, "Topology differences (%zu):\n", v.ntdiffs);
		struct nbw_fv_tdiff o;
		for (size_t i = 0; nbw_fv_tdiff(v.tdiffs, i, &o); i++)
			fprintf(f, "  %s: %s is %s, %d of %d nodes have %s\n", o.node, o.what,
				o.value, o.nodes_with_fleet_value, o.nodes, o.fleet_value);
	}
	if (v.noutliers == 0) {
		fprintf(f, "Outliers: none (%s).\n", v.rule);
	} else {
		fprintf(f, "Outliers (%zu; %s):\n", v.noutliers, v.rule);
		struct nbw_fv_outlier o;
		for (size_t i = 0; nbw_fv_outlier(v.outliers, i, &o); i++) {
			if (i == 20) {
				fprintf(f, "  ... %zu more in fleet-summary.json\n", v.noutliers - 20);
				break;
			}
			fprintf(f, "  %s: %s\n", o.node, o.reason);
		}
	}
	fprintf(f, "Nodes:\n");
	struct nbw_fv_node o;
	for (size_t i = 0; nbw_fv_node(v.nodes, i, &o); i++) {
		if (!o.readable)
			fprintf(f, "  %-20s %-10s %s\n", o.node, o.status, o.reason);
		else
			fprintf(f, "  %-20s %-10s %s; %d paths, %d outliers, %d topology differences, "
				   "%d paths failing nodebw check\n", o.node, o.status,
				o.group ? o.group : "", o.paths, o.outliers, o.topology_differences,
				o.failed);
	}
}

static void nodes_table(struct nbw_rdoc *r, json_t *nodes)
{
	static const char *const h[] = { "node", "status", "group", "paths", "outliers",
					  "topology differences", "failing nodebw check",
					  "reason" };
	struct nbw_rtable *t = nbw_rtable_new("fleet-nodes", 8, h);
	struct nbw_fv_node o;
	for (size_t i = 0; nbw_fv_node(nodes, i, &o); i++) {
		nbw_rtable_cell(t, "%s", o.node);
		nbw_rtable_cell(t, "%s", o.status);
		nbw_rtable_cell(t, "%s", o.group ? o.group : "-");
		bool ok = o.readable;
		nbw_rtable_cell(t, ok ? "%d" : "-", o.paths);
		nbw_rtable_cell(t, ok ? "%d" : "-", o.outliers);
		nbw_rtable_cell(t, ok ? "%d" : "-", o.topology_differences);
		if (ok && o.nfailing)
			nbw_rtable_cell(t, "%d: %s%s", o.failed, nbw_fv_node_failing(&o, 0),
					o.nfailing > 1 ? "; ..." : "");
		else
			nbw_rtable_cell(t, ok ? "%d" : "-", o.failed);
		nbw_rtable_cell(t, "%s", *o.reason ? o.reason : "-");
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "The nodes: how each node's run ended (fleet-node.json) and what the "
			     "comparison found");
}

static void topo_table(struct nbw_rdoc *r, json_t *td)
{
	struct nbw_fv_tdiff o;
	if (!nbw_fv_tdiff(td, 0, &o)) {
		nbw_rdoc_para(r, "No topology differences: within each group every node has the same "
				 "CPU, devices, host links (PCIe generation and width), NUMA placement "
				 "and device-to-device links.");
		return;
	}
	static const char *const h[] = { "node", "what", "this node", "the others",
					  "nodes with it" };
	struct nbw_rtable *t = nbw_rtable_new("fleet-topology-differences", 5, h);
	for (size_t i = 0; nbw_fv_tdiff(td, i, &o); i++) {
		nbw_rtable_cell(t, "%s", o.node);
		nbw_rtable_cell(t, "%s", o.what);
		nbw_rtable_cell(t, "%s", o.value);
		nbw_rtable_cell(t, "%s", o.fleet_value);
		nbw_rtable_cell(t, "%d of %d", o.nodes_with_fleet_value, o.nodes);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Topology differences, listed first: a node whose item differs from "
			     "the value most nodes of its group have");
}

static void outlier_table(struct nbw_rdoc *r, json_t *out, const char *rule)
{
	struct nbw_fv_outlier o;
	if (!nbw_fv_outlier(out, 0, &o)) {
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
	for (size_t i = 0; nbw_fv_outlier(out, i, &o); i++) {
		nbw_rtable_cell(t, "%s", o.node);
		nbw_rtable_cell(t, "%s", o.path);
		nbw_rtable_cellv(t, o.value, "%.4g %s", o.value, o.unit);
		nbw_rtable_cellv(t, o.fleet_median, "%.4g %s", o.fleet_median, o.unit);
		nbw_rtable_cellv(t, o.ratio, "%.3f", o.ratio);
		nbw_rtable_cellv(t, o.robust_z, "%.1f", o.robust_z);
		nbw_rtable_cell(t, "%d", o.nodes);
		nbw_rtable_cell(t, "%s", o.link ? o.link : "-");
		nbw_rtable_cell(t, "%s", o.reason);
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
		struct nbw_fv_node nd;
		nbw_fv_node(nodes, k, &nd);
		const char *n = nd.node;
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
	struct nbw_fv_path p;
	for (size_t i = 0; nbw_fv_path(paths, i, &p); i++) {
		nbw_rtable_cell(t, "%s", p.group);
		nbw_rtable_cell(t, "%s", p.path);
		nbw_rtable_cell(t, "%s", p.unit);
		nbw_rtable_cell(t, "%s", p.better);
		nbw_rtable_cell(t, "%d", p.nodes);
		nbw_rtable_cellv(t, p.median, "%.4g", p.median);
		nbw_rtable_cellv(t, p.mad, "%.3g", p.mad);
		nbw_rtable_cellv(t, p.spread, "%.3f", p.spread);
		nbw_rtable_cell(t, "%s", p.judged ? "yes" : "no");
		for (size_t k = 0; k < nn; k++) {
			struct nbw_fv_node nd;
			nbw_fv_node(nodes, k, &nd);
			double v = nbw_fv_path_ratio(&p, nd.node);
			if (!isnan(v))
				nbw_rtable_cellv(t, v, "%.3f", v);
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
	struct nbw_fv_outlier o;
	for (size_t i = 0; nbw_fv_outlier(out, i, &o); i++)
		if (strcmp(o.group, group) == 0 && strcmp(o.path, path) == 0)
			return true;
	return false;
}

/* nodes x paths of one group: the ratio to the fleet median, oriented so that 1 is the
 * median and below 1 is worse (times are inverted), red to green. */
static void heat_map(struct nbw_rdoc *r, const struct nbw_fv_summary *s,
		     const struct nbw_fv_group *group, int gi)
{
	const char *g = group->group;
	size_t nr = group->nmembers;
	struct nbw_fv_path cols[FLEET_MAP_PATHS];
	size_t nc = 0;
	for (int pass = 0; pass < 2; pass++) {
		struct nbw_fv_path p;
		for (size_t i = 0; nbw_fv_path(s->paths, i, &p); i++) {
			if (nc == FLEET_MAP_PATHS)
				break;
			if (strcmp(p.group, g) != 0 || !p.judged)
				continue;
			bool flagged = path_has_outlier(s->outliers, g, p.path);
			bool main_kind = strcmp(p.kind, "latency") != 0;
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
			rl[a] = nbw_fv_group_member(group, a);
			for (size_t b = 0; b < nc; b++) {
				double x = nbw_fv_path_ratio(&cols[b], rl[a]);
				if (isfinite(x) && strcmp(cols[b].better, "lower") == 0)
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
			cl[b] = cols[b].path;
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

static int fleet_report_in(json_t *s, const char *outdir, char *err, size_t errlen);

/* Written beside, then put in place (report/stage.c): an interrupted or failed comparison
 * leaves the earlier report, or none, never plots/NAME.png.part in the final folder. */
int nbw_fleet_report(json_t *s, const char *outdir, char *err, size_t errlen)
{
	char stage[4200];
	struct stat sb;
	if ((mkdir(outdir, 0755) != 0 && errno != EEXIST) || stat(outdir, &sb) != 0 ||
	    !S_ISDIR(sb.st_mode)) { /* the folder a report in place would make */
		snprintf(err, errlen, "cannot create folder %s: %s", outdir,
			 errno == EEXIST ? "a file of that name exists" : strerror(errno));
		return NBW_EXIT_USAGE;
	}
	int st = nbw_report_stage_open(outdir, stage, sizeof(stage), err, errlen);
	if (st < 0) {
		rmdir(outdir);
		return -1;
	}
	if (st == 0)
		return fleet_report_in(s, outdir, err, errlen);
	int rc = fleet_report_in(s, stage, err, errlen);
	/* The bad-input status of a folder that cannot be made stays the caller's to see. */
	int closed = nbw_report_stage_close(stage, outdir, rc, err, errlen);
	if (rc || closed)
		rmdir(outdir); /* the folder made for it, when nothing else is there */
	return rc ? rc : closed;
}

static int fleet_report_in(json_t *s, const char *outdir, char *err, size_t errlen)
{
	struct nbw_rdoc *r = nbw_rdoc_new(outdir, "nodebw fleet comparison", err, errlen);
	if (!r)
		return NBW_EXIT_USAGE;
	struct nbw_fv_summary v;
	nbw_fv_summary(s, &v);
	nbw_rdoc_para(r, "Fleet folder %s. %s. Nodes are compared only with the nodes of their "
			 "group (the same device models).", v.fleet, v.units);
	nbw_rdoc_heading(r, 2, "Topology differences");
	topo_table(r, v.tdiffs);
	nbw_rdoc_heading(r, 2, "Outliers");
	outlier_table(r, v.outliers, v.rule);
	nbw_rdoc_heading(r, 2, "Nodes");
	nodes_table(r, v.nodes);
	nbw_rdoc_heading(r, 2, "Every node against the fleet");
	struct nbw_fv_group g;
	for (size_t i = 0; nbw_fv_group(v.groups, i, &g); i++)
		heat_map(r, &v, &g, (int)i);
	paths_table(r, v.paths, v.nodes);
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
