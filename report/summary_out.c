/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The summary of summary.c written out: the report's first section (the picture and the
 * sentences), and the paths, the gap and the solver tables (each also a CSV under tables/)
 * for the sections that ask those questions (report/build.c); the solver's
 * table also on a terminal, in the summary at the end of `nodebw run` (tools/summary.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/report.h"
#include "nodebw/sizes.h"
#include "nodebw/termtext.h"
#include "rdoc_priv.h"
#include "summary_fig.h"

static void num(struct nbw_rtable *t, double v, const char *fmt, double scale)
{
	if (isfinite(v))
		nbw_rtable_cell(t, fmt, v * scale);
	else
		nbw_rtable_cell(t, "-");
}

void nbw_report_summary_paths(struct nbw_rdoc *r, json_t *sum, const char *const *files,
			      size_t nfiles)
{
	static const char *const h[] = {
		"file", "api", "direction", "mode", "host memory", "peer access", "endpoints",
		"comparison size", "GB/s at comparison size", "best GB/s", "best at", "theoretical GB/s",
		"% of theoretical", "link", "smallest size", "latency (us)", "what it means",
	};
	static const char *const csv[] = {
		"file", "api", "direction", "mode", "host_mem", "peer_access", "endpoints",
		"comparison_bytes", "comparison_gbps", "best_gbps", "best_bytes", "theoretical_gbps",
		"theoretical_pct", "link", "smallest_bytes", "latency_us", "meaning",
	};
	/* Several results files: each row names its file. */
	bool many = nfiles > 1;
	size_t skip = many ? 0 : 1;
	struct nbw_rtable *t = nbw_rtable_new("summary-paths", sizeof(h) / sizeof(h[0]) - skip,
					      h + skip);
	nbw_rtable_csv_names(t, csv + skip);
	struct nbw_rs_path p;
	for (size_t i = 0; nbw_rs_path(sum, i, &p); i++) {
		if (many)
			nbw_rtable_cell(t, "%s", p.file >= 0 && (size_t)p.file < nfiles
							 ? files[p.file] : "?");
		nbw_rtable_cell(t, "%s", p.api);
		nbw_rtable_cell(t, "%s", p.direction);
		nbw_rtable_cell(t, "%s", p.mode);
		nbw_rtable_cell(t, "%s", p.host_mem);
		nbw_rtable_cell(t, "%s", p.peer_access);
		char ends[200] = "";
		size_t w = 0;
		for (size_t k = 0; k < p.nendpoints && w < sizeof(ends); k++)
			w += (size_t)snprintf(ends + w, sizeof(ends) - w, "%s%s", k ? " " : "",
					      nbw_rs_path_endpoint(&p, k));
		/* The figure is every device's or pair's at the comparison size: say how many. */
		if (p.members > 0)
			nbw_rtable_cell(t, "%d %s", p.members,
					strcmp(p.direction, "p2p") == 0
						? (p.members == 1 ? "pair" : "pairs")
						: (p.members == 1 ? "device" : "devices"));
		else
			nbw_rtable_cell(t, "%s", ends);
		nbw_rtable_cellv(t, p.large_bytes, "%s", p.large_size);
		num(t, p.large_gbps, "%.2f", 1.0);
		num(t, p.best_gbps, "%.2f", 1.0);
		nbw_rtable_cellv(t, p.best_bytes, "%s", p.best_size);
		num(t, p.theoretical_gbps, "%.1f", 1.0);
		num(t, p.fraction, "%.0f", 100.0);
		nbw_rtable_cell(t, "%s", p.link);
		nbw_rtable_cellv(t, p.small_bytes, "%s", p.small_size);
		num(t, p.latency_us, p.latency_us >= 100 ? "%.0f" : "%.3g", 1.0);
		nbw_rtable_cell(t, "%s", p.meaning);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Every measured path, one device or pair and one stream (GB/s = 1e9 "
			     "B/s; the median of the repetitions, and over the path's devices or "
			     "pairs at the comparison size; best = the sweep's best; latency = the median "
			     "time of one transfer at the smallest size).");
}

void nbw_report_summary_gaps(struct nbw_rdoc *r, json_t *sum)
{
	struct nbw_rs_gap g0;
	if (!nbw_rs_gap(sum, 0, &g0))
		return;
	static const char *const h[] = {"native api", "OpenMP mode", "devices", "what it means"};
	static const char *const csv[] = {"native_api", "omp_mode", "devices", "meaning"};
	struct nbw_rtable *t = nbw_rtable_new("summary-gap", 4, h);
	nbw_rtable_csv_names(t, csv);
	struct nbw_rs_gap s;
	for (size_t i = 0; nbw_rs_gap(sum, i, &s); i++) {
		nbw_rtable_cell(t, "%s", s.native_api);
		nbw_rtable_cell(t, "%s", s.omp_mode);
		nbw_rtable_cell(t, "%d", s.devices);
		nbw_rtable_cell(t, "%s", s.meaning);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "OpenMP against the native API per mode, over directions and host "
			     "memory: gap = native - OpenMP, + = OpenMP slower; medians over the "
			     "small sizes (up to 64 KiB) and the large ones (from 1 MiB).");
}

void nbw_report_summary_models(struct nbw_rdoc *r, json_t *sum)
{
	struct nbw_rs_speedup s0;
	if (!nbw_rs_speedup(sum, 0, &s0))
		return;
	static const char *const h[] = {"G", "version", "speedup at largest N", "largest N",
					"best speedup", "at N", "one-device MAPE",
					"comp.-cal. MAPE", "fitted MAPE", "paper MAPE",
					"compute-only MAPE", "stable grids", "unstable grids",
					"largest spread"};
	static const char *const csv[] = {"g", "version", "speedup_at_largest_n", "largest_n",
					  "best_speedup", "best_n", "onedev_mape_pct",
					  "compcal_mape_pct", "extended_mape_pct", "paper_mape_pct",
					  "conly_mape_pct", "grids", "unstable_grids",
					  "max_round_spread"};
	struct nbw_rtable *t = nbw_rtable_new("summary-models", 14, h);
	nbw_rtable_csv_names(t, csv);
	struct nbw_rs_speedup s;
	for (size_t i = 0; nbw_rs_speedup(sum, i, &s); i++) {
		struct nbw_rs_accuracy m;
		nbw_rs_accuracy_of(sum, s.g, s.version, &m);
		nbw_rtable_cell(t, "%d", s.g);
		nbw_rtable_cell(t, "%s", s.version);
		num(t, s.speedup_at_largest_n, "%.2f", 1.0);
		nbw_rtable_cell(t, "%d", s.largest_n);
		num(t, s.best_speedup, "%.2f", 1.0);
		nbw_rtable_cell(t, "%d", s.best_n);
		num(t, m.onedev_mape, "%.1f", 100.0);
		num(t, m.compcal_mape, "%.1f", 100.0);
		num(t, m.extended_mape, "%.1f", 100.0);
		num(t, m.paper_mape, "%.1f", 100.0);
		num(t, m.conly_mape, "%.1f", 100.0);
		nbw_rtable_cell(t, "%d", m.sizes);
		nbw_rtable_cell(t, "%d", m.unstable_sizes);
		num(t, m.max_spread, "%.2f", 1.0);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "The solver: measured speedup = T(baseline, 1 device) / "
			     "T(version, G devices); MAPE (%) = mean |T_model - T_measured| / "
			     "T_measured over the stable grids; T_measured = the speed-matched "
			     "time of paired runs (each halo repetition timed right after its "
			     "compute-only half; doc/model.md), else the fastest round; "
			     "one-device: from the probes and one-device runs only (no run of "
			     "Versions 1-4); comp.-cal. (compute-calibrated): needs the versions "
			     "run without their halo copies; fitted: also their timed runs, each "
			     "grid predicted without its own runs; compute-only: the baseline "
			     "step = the measured compute-only half; largest spread: of one grid's measure over "
			     "its rounds (above 1.2: unstable, left out of the MAPE).");
}

void nbw_report_summary_section(struct nbw_rdoc *r, json_t *sum)
{
	nbw_report_summary_figure(r, sum); /* beside the sentences */
	nbw_rdoc_para(r, "Units and rules: %s.", nbw_rs_units(sum));
	/* The items of the one summary, as the end of nodebw run printed them; merged files
	 * (several runs) have the sentences only. */
	bool items = nbw_rs_has_items(sum);
	const char *text;
	for (size_t i = 0; (text = items ? nbw_rs_item(sum, i) : nbw_rs_sentence(sum, i)); i++)
		nbw_rdoc_item(r, "%s", text);
}

static void fmt_num(char *out, size_t len, double v, const char *fmt, double scale)
{
	if (isfinite(v))
		snprintf(out, len, fmt, v * scale);
	else
		snprintf(out, len, "-");
}

void nbw_report_summary_solver(FILE *f, json_t *sum)
{
	struct nbw_rs_speedup s;
	if (!nbw_rs_speedup(sum, 0, &s))
		return;
	/* A terminal's table: every line within NBW_TERM_COLUMNS. */
	fprintf(f, "\n");
	nbw_term_wrap(f, "  ", "  ",
		      "MAPE against the measured runtimes: one-dev (before porting), comp-cal "
		      "(compute-calibrated: needs the versions without halo copies), fitted, "
		      "paper; c-only = compute-only, the baseline to beat",
		      NBW_TERM_COLUMNS);
	fprintf(f, "  %-2s %-7s %12s %12s %7s %8s %7s %7s %7s %8s %6s\n", "G", "version",
		"speedup (N)", "best (N)", "one-dev", "comp-cal", "fitted", "paper", "c-only",
		"unstable", "spread");
	for (size_t i = 0; nbw_rs_speedup(sum, i, &s); i++) {
		struct nbw_rs_accuracy m;
		nbw_rs_accuracy_of(sum, s.g, s.version, &m);
		char sp[32], best[32], pm[16], am[16], em[16], om[16], cm[16], spr[16], un[16];
		snprintf(sp, sizeof(sp), "%.2fx (%d)", s.speedup_at_largest_n, s.largest_n);
		snprintf(best, sizeof(best), "%.2fx (%d)", s.best_speedup, s.best_n);
		fmt_num(pm, sizeof(pm), m.paper_mape, "%.1f %%", 100.0);
		fmt_num(am, sizeof(am), m.compcal_mape, "%.1f %%", 100.0);
		fmt_num(om, sizeof(om), m.onedev_mape, "%.1f %%", 100.0);
		fmt_num(cm, sizeof(cm), m.conly_mape, "%.1f %%", 100.0);
		fmt_num(em, sizeof(em), m.extended_mape, "%.1f %%", 100.0);
		fmt_num(spr, sizeof(spr), m.max_spread, "%.2f", 1.0);
		snprintf(un, sizeof(un), "%d of %d", m.unstable_sizes, m.unstable_sizes + m.sizes);
		fprintf(f, "  %-2d %-7s %12s %12s %7s %8s %7s %7s %7s %8s %6s\n", s.g, s.version,
			sp, best, om, am, em, pm, cm, un, spr);
	}
}
