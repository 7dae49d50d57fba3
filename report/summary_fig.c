/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The summary's picture: every path of the summary one row, a filled dot at its median
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

static char *data_text(json_t *sum, size_t *len, size_t *usable)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	fputs("# row, GB/s at the comparison size, best GB/s (NaN = none), \"path\"\n", f);
	struct nbw_rs_path p;
	*usable = 0;
	for (size_t i = 0; nbw_rs_path(sum, i, &p); i++) {
		double large = p.large_gbps, best = p.best_gbps;
		*usable += (isfinite(large) && large > 0) || (isfinite(best) && best > 0);
		char label[160];
		path_label(&p, label, sizeof(label));
		fprintf(f, "%zu", i);
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
	fprintf(f, "if (fmt eq 'svg') {\n"
		   "\tset terminal svg size 760,%d dynamic font 'Sans,12' background rgb 'white'\n"
		   "} else {\n"
		   "\tif (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "\t\tset terminal pngcairo size 760,%d font 'Sans,11' background rgb 'white'\n"
		   "\t} else {\n"
		   "\t\tset terminal png size 760,%d background rgb 'white'\n"
		   "\t}\n"
		   "}\n"
		   "set output out\n", h, h, h);
	fputs("set title ", f);
	nbw_gp_quote(f, title);
	fprintf(f, "\nset xlabel 'GB/s (1e9 B/s), log scale'\n"
		   "set logscale x\nset format x '%%g'\n"
		   "set yrange [%g:-0.7]\nset ytics scale 0 font ',10'\n"
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
	char stem[160];
	nbw_rdoc_claim_name(r, "plot", "summary-paths", stem, sizeof(stem));
	char *data = data_text(sum, &dlen, &usable);
	if (data && usable == 0) {
		free(data);
		return -1;
	}
	char *script = script_text(stem, "Every path: median GB/s", rows, &slen);
	nbw_rdoc_figure_aside(r);
	static const char caption[] =
		"Every path of the summary, one row each: the median bandwidth at the comparison "
		"size (filled) and the best median at any size (open), GB/s = 1e9 B/s, log "
		"scale; the table below has the figures";
	int rc = nbw_rdoc_plot_files(r, stem, data, dlen, script, slen, caption);
	free(data);
	free(script);
	return rc;
}
