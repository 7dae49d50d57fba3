/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The summary's picture: the fastest and the slowest path of each API and direction one row
 * each (the table of every path has the rest), a filled dot at its median
 * bandwidth at the comparison size and an open one at the best median any size reached, on a
 * log scale, so that the fastest and the slowest paths and the drops at large sizes show at
 * a glance before the tables. Placed beside the summary's sentences (nbw_rdoc_figure_aside).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/report.h"
#include "rdoc_priv.h"
#include "summary_fig.h"

/* "omp p2p sync, peer enabled" / "host htod async pinned": one path's row label. */
static void path_label(const struct nbw_rs_path *p, char *out, size_t len)
{
	const char *mem = p->host_mem, *peer = p->peer_access;
	bool has_mem = mem[0] && strcmp(mem, "none") != 0;
	bool has_peer = peer[0] && strcmp(peer, "n/a") != 0;
	snprintf(out, len, "%s %s %s%s%s%s%s", p->api, p->direction, p->mode,
		 has_mem ? " " : "", has_mem ? mem : "",
		 has_peer ? ", peer " : "", has_peer ? peer : "");
}

static void put_gbps(FILE *f, double v)
{
	if (isfinite(v) && v > 0)
		fprintf(f, " %.6g", v);
	else
		fputs(" NaN", f);
}

/* The rows drawn: per results file, API and direction the fastest and the slowest path at the
 * comparison size (one row when they are the same path); the summary's table has them all.
 * \p keep has one flag per path; returns how many are kept. */
static size_t select_rows(json_t *sum, bool *keep, size_t n)
{
	struct nbw_rs_path p, q;
	size_t kept = 0;
	for (size_t i = 0; i < n && nbw_rs_path(sum, i, &p); i++) {
		if (!(isfinite(p.large_gbps) && p.large_gbps > 0))
			continue;
		bool fastest = true, slowest = true;
		for (size_t j = 0; j < n && nbw_rs_path(sum, j, &q) && (fastest || slowest); j++) {
			if (j == i || q.file != p.file || strcmp(q.api, p.api) ||
			    strcmp(q.direction, p.direction) ||
			    !(isfinite(q.large_gbps) && q.large_gbps > 0))
				continue;
			/* Ties go to the first path. */
			if (q.large_gbps > p.large_gbps || (q.large_gbps == p.large_gbps && j < i))
				fastest = false;
			if (q.large_gbps < p.large_gbps || (q.large_gbps == p.large_gbps && j < i))
				slowest = false;
		}
		keep[i] = fastest || slowest;
		kept += keep[i];
	}
	return kept;
}

static char *data_text(json_t *sum, const bool *keep, size_t *len, size_t *usable)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	fputs("# row, GB/s at the comparison size, best GB/s (NaN = none), \"path\"\n", f);
	struct nbw_rs_path p;
	*usable = 0;
	size_t row = 0;
	bool many = false; /* several results files: each label names its file */
	for (size_t i = 0; nbw_rs_path(sum, i, &p); i++)
		many |= p.file != 0;
	for (size_t i = 0; nbw_rs_path(sum, i, &p); i++) {
		if (!keep[i])
			continue;
		double large = p.large_gbps, best = p.best_gbps;
		*usable += (isfinite(large) && large > 0) || (isfinite(best) && best > 0);
		char label[160], one[150];
		path_label(&p, one, sizeof(one));
		if (many)
			snprintf(label, sizeof(label), "file %d: %s", p.file, one);
		else
			snprintf(label, sizeof(label), "%s", one);
		fprintf(f, "%zu", row++);
		put_gbps(f, large);
		put_gbps(f, best);
		fputs(" \"", f);
		for (const char *c = label; *c; c++)
			fputc(*c == '"' ? '\'' : *c, f);
		fputs("\"\n", f);
	}
	fclose(f);
	return buf;
}

static char *script_text(const char *stem, const char *title, size_t rows, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	nbw_gp_preamble(f, stem, title, "one line per path: row, GB/s at the comparison size, "
			"best GB/s, \"path\"");
	/* Taller with more paths; the row labels need room on the left. */
	int h = 170 + 26 * (int)rows;
	h = h < 380 ? 380 : h > 1600 ? 1600 : h;
	fprintf(f, "if (fmt eq 'phone') {\n"
		   "\tset terminal svg size 440,%d dynamic font 'Sans,12' background rgb 'white'\n"
		   "} else { if (fmt eq 'svg') {\n"
		   "\tset terminal svg size 560,%d dynamic font 'Sans,12' background rgb 'white'\n"
		   "} else {\n"
		   "\tif (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "\t\tset terminal pngcairo size 760,%d font 'Sans,11' background rgb 'white'\n"
		   "\t} else {\n"
		   "\t\tset terminal png size 760,%d background rgb 'white'\n"
		   "\t}\n"
		   "} }\n"
		   "set output out\n", h, h, h, h);
	fputs("set title ", f);
	nbw_gp_quote(f, title);
	fprintf(f, "\nset xlabel 'GB/s (1e9 B/s), log scale'\n"
		   "set logscale x\nset format x '%%g'\n"
		   "set yrange [%g:-0.7]\nset ytics scale 0\n"
		   "set grid xtics mxtics lc rgb '#dddddd'\n"
		   "set key below\nset offsets graph 0.05, graph 0.05, 0, 0\n",
		(double)rows - 0.3);
	fputs("plot datafile using 2:1:ytic(4) with points pt 7 ps 1.4 lc rgb '#0072b2' "
	      "title 'at the comparison size', \\\n"
	      "\tdatafile using 3:1 with points pt 6 ps 1.8 lc rgb '#d55e00' "
	      "title 'best size'\n", f);
	fclose(f);
	return buf;
}

int nbw_report_summary_figure(struct nbw_rdoc *r, json_t *sum)
{
	size_t rows = 0, usable = 0, dlen = 0, slen = 0;
	struct nbw_rs_path p;
	while (nbw_rs_path(sum, rows, &p))
		rows++;
	if (rows == 0)
		return -1;
	bool *keep = calloc(rows, sizeof(*keep));
	if (!keep)
		return -1;
	size_t kept = select_rows(sum, keep, rows);
	if (kept == 0) {
		free(keep);
		return -1;
	}
	char stem[160];
	nbw_rdoc_claim_name(r, "plot", "summary-paths", stem, sizeof(stem));
	char *data = data_text(sum, keep, &dlen, &usable);
	free(keep);
	if (data && usable == 0) {
		free(data);
		return -1;
	}
	char *script = script_text(stem, "Median GB/s per path", kept, &slen);
	nbw_rdoc_figure_aside(r);
	static const char caption[] =
		"The fastest and the slowest path of each API and direction: the median bandwidth "
		"at the comparison size (filled) and the best median at any size (open), GB/s = "
		"1e9 B/s, log scale; every path is in the table of every path";
	int rc = nbw_rdoc_plot_files(r, stem, data, dlen, script, slen, caption);
	free(data);
	free(script);
	return rc;
}
