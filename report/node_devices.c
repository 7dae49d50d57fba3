/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole node, part 2: host<->device bandwidth per device. The tables of
 * nbw_analysis_device_tables (one per api, direction, mode and host memory) are gathered
 * per api and direction into one bar chart (one bar per device and series, at most
 * NBW_NODE_BAR_SERIES_MAX series) and one table with every series; the theoretical GB/s of
 * the host links is drawn as a dashed reference line where it is known. Each series is read
 * at the run's comparison size, named in the caption and in the CSV file's bytes column of
 * every series. The tables are read through their typed views (include/nodebw/products.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/products.h"
#include "node_priv.h"
#include "rdoc_priv.h"

#define MAX_HLINES 3

/* The device ids of the tables \p idx[0..n), ascending, into \p ids (capacity \p cap). */
static size_t device_ids(const struct nbw_pv_table *tables, const size_t *idx, size_t n,
			 int *ids, size_t cap)
{
	size_t nid = 0;
	for (size_t s = 0; s < n; s++) {
		struct nbw_pv_devrow row;
		for (size_t k = 0; nbw_pv_table_row(&tables[idx[s]], k, &row); k++) {
			int id = row.device;
			size_t p = 0;
			while (p < nid && ids[p] < id)
				p++;
			if ((p < nid && ids[p] == id) || nid == cap)
				continue;
			memmove(ids + p + 1, ids + p, (nid - p) * sizeof(*ids));
			ids[p] = id;
			nid++;
		}
	}
	return nid;
}

struct group {
	const char *api, *dir;
	size_t *idx, n;       /* tables of this api and direction */
	int *ids;
	size_t nid;
	bool host_memory, any_theory;
	double bytes;         /* the largest size, the same for every series unless mixed */
	bool mixed;
	char at[64];          /* "at 268435456 B", or "at the size of each series (...)" */
};

/* "sync, pinned host memory", and its size where the group's series differ in size. */
static void series_title(const struct nbw_pv_table *t, bool mixed, char *out, size_t outlen)
{
	int k = snprintf(out, outlen, "%s, %s host memory", t->mode, t->host_mem);
	if (mixed && k >= 0 && (size_t)k < outlen)
	{
		char sz[32];
		nbw_human_bytes((double)t->bytes, sz, sizeof(sz));
		snprintf(out + k, outlen - (size_t)k, ", %s", sz);
	}
}

static void bars(struct nbw_rdoc *r, const struct nbw_pv_table *tables, const struct group *g,
		 const char *tag, const char *what)
{
	size_t ns = g->n < NBW_NODE_BAR_SERIES_MAX ? g->n : NBW_NODE_BAR_SERIES_MAX;
	struct nbw_plot_series *ser = calloc(ns, sizeof(*ser));
	double *x = calloc(ns * g->nid, sizeof(*x)), *y = calloc(ns * g->nid, sizeof(*y));
	char (*titles)[96] = calloc(ns, sizeof(*titles));
	char *extra = NULL, *tics = NULL;
	size_t tlen = 0;
	FILE *tf = open_memstream(&tics, &tlen);
	if (!ser || !x || !y || !titles || !tf)
		goto out;
	double w = 0.8 / (double)ns;
	double hline[MAX_HLINES];
	char htitle[MAX_HLINES][120];
	const char *hptr[MAX_HLINES];
	size_t nh = 0;
	for (size_t s = 0; s < ns; s++) {
		const struct nbw_pv_table *t = &tables[g->idx[s]];
		series_title(t, g->mixed, titles[s], sizeof(titles[s]));
		for (size_t d = 0; d < g->nid; d++) {
			struct nbw_pv_devrow row;
			nbw_pv_table_find(t, g->ids[d], &row);
			x[s * g->nid + d] = (double)d - 0.4 + w * ((double)s + 0.5);
			y[s * g->nid + d] = row.gbps;
			double th = row.theoretical_gbps;
			bool seen = !isfinite(th);
			for (size_t h = 0; h < nh && !seen; h++)
				seen = fabs(hline[h] - th) < 0.05;
			if (!seen && nh < MAX_HLINES) {
				hline[nh] = th;
				snprintf(htitle[nh], sizeof(htitle[nh]), "theoretical %.1f GB/s (%s)",
					 th, row.link);
				hptr[nh] = htitle[nh];
				nh++;
			}
		}
		ser[s] = (struct nbw_plot_series){ .title = titles[s], .x = x + s * g->nid,
						   .y = y + s * g->nid, .n = g->nid,
						   .style = "boxes fillstyle solid 0.75 border -1" };
	}
	fputs("set xtics (", tf);
	for (size_t d = 0; d < g->nid; d++)
		fprintf(tf, "%s'%d' %zu", d ? ", " : "", g->ids[d], d);
	fputs(")", tf);
	fclose(tf);
	tf = NULL;
	if (asprintf(&extra, "set boxwidth %g absolute\nset xrange [-0.6:%g]\n"
			     "set grid noxtics ytics\n%s", w, (double)g->nid - 0.4, tics) < 0)
		extra = NULL;
	char name[200], title[300], ylabel[80], xlabel[120], cap[1200];
	snprintf(name, sizeof(name), "%sdevices-%s-%s", tag, g->api, g->dir);
	snprintf(title, sizeof(title), "%s: GB/s (1e9 B/s) per device %s", what, g->at);
	snprintf(ylabel, sizeof(ylabel), "GB/s (1e9 B/s), median");
	snprintf(xlabel, sizeof(xlabel), "%s", g->host_memory ? "device (host memory, not a GPU)"
							       : "device");
	struct nbw_plot p = { .name = name, .title = title, .xlabel = xlabel, .ylabel = ylabel,
			      .series = ser, .nseries = ns, .hline = hline,
			      .hline_title = hptr, .nhline = nh, .yzero = true, .extra = extra };
	int k = snprintf(cap, sizeof(cap), "%s: median GB/s (1e9 B/s) of one device at a time "
			 "%s, one bar per device and series.", what, g->at);
	if (k >= 0 && (size_t)k < sizeof(cap) && g->host_memory)
		k += snprintf(cap + k, sizeof(cap) - (size_t)k, " Host-plugin devices and host "
			      "regions are host memory: these are host-to-host copies, not GPU "
			      "figures; no theoretical line.");
	else if (k >= 0 && (size_t)k < sizeof(cap) && nh)
		k += snprintf(cap + k, sizeof(cap) - (size_t)k, " Dashed: the theoretical GB/s "
			      "of the host link.");
	else if (k >= 0 && (size_t)k < sizeof(cap))
		k += snprintf(cap + k, sizeof(cap) - (size_t)k, " No theoretical figure is known.");
	if (k >= 0 && (size_t)k < sizeof(cap) && g->n > ns)
		snprintf(cap + k, sizeof(cap) - (size_t)k, " %zu more series are in the table only.",
			 g->n - ns);
	nbw_rdoc_plot(r, &p, cap);
out:
	if (tf)
		fclose(tf);
	free(tics);
	free(extra);
	free(ser);
	free(x);
	free(y);
	free(titles);
}

static void table(struct nbw_rdoc *r, const struct nbw_pv_table *tables, const struct group *g,
		  const char *tag, const char *what)
{
	size_t nc = 3 + g->n * (g->any_theory ? 2 : 1);
	const char **hdr = calloc(nc, sizeof(*hdr)), **csv = calloc(nc, sizeof(*csv));
	char (*names)[128] = calloc(g->n * 4, sizeof(*names));
	if (!hdr || !csv || !names) {
		free(hdr);
		free(csv);
		free(names);
		return;
	}
	char (*cnames)[128] = names + 2 * g->n;
	csv[0] = "device";
	csv[1] = "link";
	csv[2] = "theoretical_gbps";
	hdr[0] = "device";
	hdr[1] = "link";
	hdr[2] = "theoretical GB/s";
	for (size_t s = 0; s < g->n; s++) {
		char st[96];
		series_title(&tables[g->idx[s]], g->mixed, st, sizeof(st));
		snprintf(names[2 * s], sizeof(names[0]), "%s: GB/s", st);
		snprintf(names[2 * s + 1], sizeof(names[0]), "%s: %% of theoretical", st);
		hdr[3 + s * (g->any_theory ? 2 : 1)] = names[2 * s];
		if (g->any_theory)
			hdr[4 + s * 2] = names[2 * s + 1];
		const struct nbw_pv_table *ts = &tables[g->idx[s]];
		snprintf(cnames[2 * s], sizeof(cnames[0]), "%s_%s_gbps,%s_%s_bytes", ts->mode,
			 ts->host_mem, ts->mode, ts->host_mem);
		snprintf(cnames[2 * s + 1], sizeof(cnames[0]), "%s_%s_theoretical_pct", ts->mode,
			 ts->host_mem);
		csv[3 + s * (g->any_theory ? 2 : 1)] = cnames[2 * s];
		if (g->any_theory)
			csv[4 + s * 2] = cnames[2 * s + 1];
	}
	char name[200], cap[600];
	snprintf(name, sizeof(name), "%sdevices-%s-%s", tag, g->api, g->dir);
	struct nbw_rtable *t = nbw_rtable_new(name, nc, hdr);
	nbw_rtable_csv_names(t, csv);
	for (size_t d = 0; d < g->nid; d++) {
		struct nbw_pv_devrow first;
		bool found = false;
		for (size_t s = 0; s < g->n && !found; s++)
			found = nbw_pv_table_find(&tables[g->idx[s]], g->ids[d], &first);
		double th = first.theoretical_gbps;
		nbw_rtable_cell(t, "%d", g->ids[d]);
		nbw_rtable_cell(t, "%s", first.link);
		if (isfinite(th))
			nbw_rtable_cell(t, "%.1f", th);
		else
			nbw_rtable_cell(t, "-");
		for (size_t s = 0; s < g->n; s++) {
			struct nbw_pv_devrow row;
			nbw_pv_table_find(&tables[g->idx[s]], g->ids[d], &row);
			double v = row.gbps, f = row.fraction;
			/* The CSV file: the GB/s and the series' size, the size it was read at. */
			char csv_v[64];
			double b = tables[g->idx[s]].bytes >= 0 ? (double)tables[g->idx[s]].bytes : NAN;
			if (isfinite(v)) {
				snprintf(csv_v, sizeof(csv_v), "%.2f,%.0f", v, b);
				nbw_rtable_cellc(t, csv_v, "%.2f", v);
			} else {
				snprintf(csv_v, sizeof(csv_v), "-,%.0f", b);
				nbw_rtable_cellc(t, csv_v, "-");
			}
			if (g->any_theory && isfinite(f))
				nbw_rtable_cell(t, "%.1f", 100.0 * f);
			else if (g->any_theory)
				nbw_rtable_cell(t, "-");
		}
		nbw_rtable_end_row(t);
	}
	snprintf(cap, sizeof(cap), "%s: median GB/s (1e9 B/s) per device %s; - = not "
				   "measured or not known%s", what, g->at,
		 g->host_memory ? "; host memory: host-to-host copies, not GPU figures" : "");
	nbw_rdoc_table(r, t, cap);
	free(hdr);
	free(csv);
	free(names);
}

void nbw_node_devices(struct nbw_rdoc *r, json_t *tables_json, const char *tag, int level)
{
	nbw_rdoc_heading(r, level, "Host and device, per device");
	size_t nt = json_array_size(tables_json);
	if (nt == 0) {
		nbw_rdoc_para(r, "No verified single-stream host<->device (htod, dtoh) measurement.");
		return;
	}
	bool *done = calloc(nt, sizeof(*done));
	size_t *idx = calloc(nt, sizeof(*idx));
	struct nbw_pv_table *tables = calloc(nt, sizeof(*tables));
	size_t cap = 0;
	for (size_t i = 0; tables && i < nt; i++) {
		nbw_pv_table(json_array_get(tables_json, i), &tables[i]);
		cap += tables[i].nrows;
	}
	int *ids = calloc(cap ? cap : 1, sizeof(*ids));
	if (!done || !idx || !ids || !tables)
		goto out;
	for (size_t i = 0; i < nt; i++) {
		if (done[i])
			continue;
		const struct nbw_pv_table *ti = &tables[i];
		struct group g = { .api = ti->api, .dir = ti->direction, .idx = idx, .ids = ids,
				   .bytes = (double)ti->bytes };
		for (size_t j = i; j < nt; j++) {
			const struct nbw_pv_table *tj = &tables[j];
			if (done[j] || strcmp(tj->api, g.api) || strcmp(tj->direction, g.dir))
				continue;
			done[j] = true;
			idx[g.n++] = j;
			struct nbw_pv_devrow row;
			for (size_t k = 0; nbw_pv_table_row(tj, k, &row); k++) {
				g.host_memory |= row.host_memory;
				g.any_theory |= isfinite(row.theoretical_gbps) != 0;
			}
			g.mixed |= (double)tj->bytes != g.bytes;
		}
		g.nid = device_ids(tables, idx, g.n, ids, cap);
		if (g.mixed)
			snprintf(g.at, sizeof(g.at), "at the size of each series (in its title)");
		else
			{
				char sz[32];
				nbw_human_bytes(g.bytes, sz, sizeof(sz));
				snprintf(g.at, sizeof(g.at), "at %s", sz);
			}
		char what[120];
		snprintf(what, sizeof(what), "%s %s (%s)%s", g.api,
			 strcmp(g.dir, "htod") == 0 ? "host to device" : "device to host", g.dir,
			 g.host_memory ? ", devices in host memory (not GPUs)" : "");
		nbw_rdoc_heading(r, level + 1, what);
		bars(r, tables, &g, tag, what);
		table(r, tables, &g, tag, what);
	}
out:
	free(done);
	free(idx);
	free(ids);
	free(tables);
}
