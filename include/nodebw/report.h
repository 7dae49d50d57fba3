/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief `nodebw report`: turn one or more results files into a report folder (Markdown and
 * HTML, CSV tables, gnuplot plots as PNG and SVG with their data and .gp scripts).
 *
 * Layers (report/; what it reads, results files, curves and fits, is nodebw/curves.h, and
 * the models it shows are nodebw/model.h, both in models/):
 * - rdoc.c, plot.c: one document written as Markdown and HTML at once, tables that are
 *   also CSV files, plots that are gnuplot data + script + PNG + SVG;
 * - transfers.c: the transfers section; the model sections live in model_report.c;
 * - build.c: the whole report of merged results files (the command is tools/cmd-report.c).
 */
#ifndef NODEBW_REPORT_H
#define NODEBW_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nodebw/curves.h"

/* ---- one document as Markdown and HTML ---------------------------------------------- */

struct nbw_rdoc;
struct nbw_rtable;

/** A report in folder \p dir (created if missing, with plots/ and tables/). NULL with
 *  \p err when the folder cannot be made. */
struct nbw_rdoc *nbw_rdoc_new(const char *dir, const char *title, char *err, size_t errlen);
const char *nbw_rdoc_dir(const struct nbw_rdoc *r);
void nbw_rdoc_heading(struct nbw_rdoc *r, int level, const char *text);
/** Pages: what follows goes to page \p stem (\p stem.md and \p stem.html beside report.md,
 *  titled \p title, made on first use; the main page's contents name every page), or back to
 *  the main page (report.md, report.html) when \p stem is NULL. false: out of memory. */
bool nbw_rdoc_page(struct nbw_rdoc *r, const char *stem, const char *title);
/** A paragraph that is a link \p text to page \p stem, then the plain \p after (may be NULL). */
void nbw_rdoc_link_page(struct nbw_rdoc *r, const char *stem, const char *text,
			const char *after);
/** The figures placed between these stand side by side where the window is wide enough. */
void nbw_rdoc_grid_begin(struct nbw_rdoc *r);
void nbw_rdoc_grid_end(struct nbw_rdoc *r);
/** The report's verdict paragraph (plain text): \p kind 1 = pass, 0 = does not pass, -1 =
 *  nothing judged; shown as a coloured box in HTML, a bold line in Markdown. */
void nbw_rdoc_verdict(struct nbw_rdoc *r, int kind, const char *text);
/** A paragraph (plain text; escaped for HTML). */
void nbw_rdoc_para(struct nbw_rdoc *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** A bullet; consecutive bullets form one list. */
void nbw_rdoc_item(struct nbw_rdoc *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** A table whose rows are also written to tables/<name>.csv. report.md and report.html
 *  show the display \p headers and cells; the CSV file is for machines (doc/report.md, "The
 *  CSV tables"): snake_case column names with the unit in the name, one value per cell
 *  (numbers without units, percent signs or '+', missing values empty, a cell's
 *  "(note)" in a column of its own). */
struct nbw_rtable *nbw_rtable_new(const char *name, size_t ncols, const char *const *headers);
/** The CSV column names (\p names: ncols entries, ^[a-z][a-z0-9_]*$, the unit in the name:
 *  "mean_abs_gap_gbps", "paper_err_pct"); a NULL entry (or no call) derives the name from
 *  the display header. "value_name,note_name" names the note column too (else the note
 *  column of "x" is "x_note"). */
void nbw_rtable_csv_names(struct nbw_rtable *t, const char *const *names);
/** Append one cell to the current row. Its CSV value is the display text, or, in a column
 *  whose every cell is a number or missing ("-", "n/a", "unknown", ""), the number alone:
 *  "+12.3%" -> 12.3, "1 (single)" -> 1 and note "single", "8 B" -> 8, "-" -> empty. */
void nbw_rtable_cell(struct nbw_rtable *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** A number: shown as \p fmt, written to the CSV as \p value (%.10g; not finite = empty). */
void nbw_rtable_cellv(struct nbw_rtable *t, double value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/** A cell whose CSV text is \p csv (NULL = empty) and whose display is \p fmt. */
void nbw_rtable_cellc(struct nbw_rtable *t, const char *csv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void nbw_rtable_end_row(struct nbw_rtable *t);
/** Place the table (consumed) in the document with a caption; writes the CSV. */
void nbw_rdoc_table(struct nbw_rdoc *r, struct nbw_rtable *t, const char *caption);

/** Colours of the plot palette (nbw_plot_series.colour 1..NBW_PLOT_COLOURS). */
#define NBW_PLOT_COLOURS 8

/** One line (or set of bars) of a plot. The plot writer gives every series an explicit
 *  colour, dash type and point type, unique within the plot: what the caller pins is kept
 *  where it is unique, the rest is assigned (a colour no pinned series uses, solid, a point
 *  type of its own); a pinned combination that repeats an earlier one gets another point
 *  type (or dash type, for lines without points). */
struct nbw_plot_series {
	const char *title;
	const double *x, *y;
	size_t n;
	const char *style;   /**< gnuplot style without colour, dash or point type: NULL =
				  "linespoints", "lines lw 2", "boxes fillstyle solid 0.75" */
	int colour;          /**< 1..NBW_PLOT_COLOURS: that palette colour (a model line can
				  share its measured line's colour), 0 = assigned */
	int dash;            /**< gnuplot dashtype (1 = solid), 0 = solid */
	int point;           /**< gnuplot pointtype, 0 = assigned */
};

struct nbw_plot {
	const char *name;    /**< file stem under plots/ */
	const char *title, *xlabel, *ylabel;
	bool logx, logy;
	const struct nbw_plot_series *series;
	size_t nseries;
	const double *hline; /**< horizontal reference lines (theoretical bandwidth, +-10 %),
				  each grey with a dash type of its own, inside the y range */
	const char *const *hline_title;
	size_t nhline;
	bool hline_pm;       /**< each reference line also at minus its value (one key entry) */
	bool yzero;          /**< the y axis starts at 0 (bars) */
	const char *note;    /**< annotation above the plot area ("mean |gap| 1.2 GB/s") */
	const char *extra;   /**< further gnuplot commands, NULL = none */
};

/** Write plots/<name>.dat and .gp, run gnuplot for .png and .svg, and place the figure.
 *  Without gnuplot the data and script stay and the report says why there is no image.
 *  Returns 0, or -1 when no image could be made. */
int nbw_rdoc_plot(struct nbw_rdoc *r, const struct nbw_plot *p, const char *caption);

/** A square heat map (device x device): rows = the first index, drawn top down, columns
 *  the second; each cell coloured by its value and labelled with its text. */
struct nbw_heatmap {
	const char *name;              /**< file stem under plots/ */
	const char *title, *xlabel, *ylabel;
	const char *cblabel;           /**< colour bar label, with the unit */
	size_t n;                      /**< rows = columns (at least 2) */
	const int *ids;                /**< the n row and column labels (device ids) */
	const double *value;           /**< n x n, row-major; NaN = no colour (not measured) */
	const char *const *text;       /**< n x n cell labels, NULL = \p fmt of the value, or
					    "-" where the value is NaN */
	const char *fmt;               /**< printf format of a value, NULL = "%.1f" */
	double cbmin, cbmax;           /**< colour range; NaN = from the data */
	bool red_to_green;   /**< red (low) to green (high), else light to dark blue */
	/** A rectangular map instead (rows > 0): rows x cols cells, row-major, labelled with
	 *  \p row_labels and \p col_labels (the fleet's nodes x paths); n and ids unused. */
	size_t rows, cols;
	const char *const *row_labels, *const *col_labels;
};

/** Write plots/<name>.dat (rows "column row value \"label\"", one block per row) and .gp
 *  (`plot ... with image` and `with labels`), run gnuplot and place the figure. 0 or -1. */
int nbw_rdoc_heatmap(struct nbw_rdoc *r, const struct nbw_heatmap *h, const char *caption);

/** Write report.md and report.html atomically. 0, or -1 with \p err. */
int nbw_rdoc_write(struct nbw_rdoc *r, char *err, size_t errlen);
void nbw_rdoc_free(struct nbw_rdoc *r);

/* ---- the report --------------------------------------------------------------------- */

/** The sections. */
void nbw_report_overview(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The disturbance table of nodebw run's stages (part of the overview). */
void nbw_report_disturbance(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The machine speed reference taken during nodebw run (report/speedref.c). */
void nbw_report_speed_reference(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The machine's speed per solver round, from the solver runs (report/drift.c). */
void nbw_report_solver_drift(struct nbw_rdoc *r, const struct nbw_rinput *in);
void nbw_report_transfers(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The transfers page's table of face probes (report/faces.c): every face copy and exchange,
 *  rect beside pack; nothing when the results have none. */
void nbw_report_faces(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** Whole node: P2P heat maps and tables, per-device bars, outliers (report/node*.c). */
void nbw_report_whole_node(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** Model, predictions and validation (model_report.c). */
void nbw_report_model(struct nbw_rdoc *r, const struct nbw_rinput *in);

/** The solver's measured speedups and both models' accuracy per (G, version), for the
 *  summary (model_report.c): {"speedups": [{G, version, largest_n, speedup_at_largest_n,
 *  best_speedup, best_n}], "accuracy": [{G, version, sizes, n_values, paper_mape, paper_bias,
 *  extended_mape, extended_bias, max_spread}]} (fractions, not per cent), or {"why": ...}
 *  when there is nothing to show. */
json_t *nbw_model_summary(const struct nbw_rinput *in);
struct nbw_validation;
/** The run's validation (include/nodebw/advice.h) from \p summary, an object whose "solver"
 *  is nbw_model_summary's (the whole summary, or {"solver": that}): each model's MAPE per
 *  (G, version) as the accuracy table computed it. 0, or -1 out of memory. */
int nbw_model_validation(json_t *summary, struct nbw_validation *out);
/** The application model's validation of nodebw run (results' "app_validation"), on the
 *  models page (report/app_validation.c). */
void nbw_report_app_validation(struct nbw_rdoc *r, const struct nbw_rinput *in);

/** The summary that opens the report and ends `nodebw run` (summary.c): per path the
 *  large-size and best bandwidth, the fraction of theoretical and the small-size latency;
 *  the OpenMP-vs-native gap; the solver's speedups and the models' accuracy; the outliers;
 *  and the sentences that say what they mean. A new object (documented in
 *  doc/report.md), never NULL but for memory. */
json_t *nbw_report_summary(const struct nbw_rinput *in);
/** The summary's picture and sentences: the report's first section (its heading is the
 *  caller's). */
void nbw_report_summary_section(struct nbw_rdoc *r, json_t *summary);
/** The summary's tables, each where its question is asked: every path, OpenMP against the
 *  native API per mode (nothing without a gap), the solver's speedups and the models'
 *  accuracy (nothing without solver runs). */
void nbw_report_summary_paths(struct nbw_rdoc *r, json_t *summary, const char *const *files,
			      size_t nfiles); /* several files: a column names each row's */
void nbw_report_summary_gaps(struct nbw_rdoc *r, json_t *summary);
void nbw_report_summary_models(struct nbw_rdoc *r, json_t *summary);
/** The verdict of `nodebw check` in one paragraph per results file (pass, does not pass, or
 *  nothing judged: never a pass), for the report's opening (report/node_verdicts.c). */
void nbw_report_verdict(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The topology of every results file (several files: each under a heading of \p level):
 *  the host, a map of the links between devices and the devices with their host links; with
 *  \p detail instead the sources it came from and every pair's link (report/overview.c). */
void nbw_report_topology(struct nbw_rdoc *r, const struct nbw_rinput *in, int level,
			 bool detail);
/** With exactly two results files: the second run against the first, path by path
 *  (include/nodebw/runcmp.h), one table with its CSV (report/run_compare.c); nothing
 *  otherwise. */
void nbw_report_run_compare(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The summary's solver table on a terminal (a line per G and version; nothing without
 *  solver runs): part of the one summary at the end of `nodebw run` (tools/summary.c). */
void nbw_report_summary_solver(FILE *f, json_t *summary);

/** A report folder \p dir written beside its place (report/stage.c): stale staging folders
 *  of \p dir whose writer is gone are removed; when \p dir may be replaced whole (absent,
 *  empty or an earlier report) a staging folder \p stage (dir.tmpXXXXXX, marked with this
 *  process: include/nodebw/staging.h) is made and 1 returned; 0 when the report is to be
 *  written in place; -1 with \p err. */
int nbw_report_stage_open(const char *dir, char *stage, size_t len, char *err, size_t errlen);
/** After writing into \p stage with status \p rc: on 0 the staged report takes \p dir's
 *  place (the earlier one goes), else (or when that fails) the staging folder is removed and
 *  \p err names \p dir. Returns the status. */
int nbw_report_stage_close(const char *stage, const char *dir, int rc, char *err, size_t errlen);

/** The whole report of \p in into \p dir, opening with \p summary (NULL: made here) and
 *  with summary.json beside report.md. 0, or -1 with \p err. */
int nbw_report_build(const struct nbw_rinput *in, json_t *summary, const char *dir, char *err,
		     size_t errlen);
/** nbw_report_build, also saying how many figures have no image (\p no_image, may be NULL)
 *  and the first reason why (\p why): what `nodebw report` prints at the end. */
int nbw_report_write(const struct nbw_rinput *in, json_t *summary, const char *dir,
		     int *no_image, char *why, size_t whylen, char *err, size_t errlen);

/* ---- typed views of the report's summary (report/summary_view.c) -------------------- *
 * The one reader of the summary object (summary.json): everything that renders it reads
 * these fields. Strings borrowed ("" when absent), numbers NAN when absent. */

/** One path of the summary's "paths" (its figure at the comparison size). */
struct nbw_rs_path {
	const char *api, *direction, *mode, *host_mem, *peer_access, *binding, *device_kind;
	const char *large_size, *best_size, *small_size, *link, *drop_cause, *meaning;
	int file, members;
	double large_bytes, large_gbps, best_gbps, best_bytes, small_bytes;
	double latency_us, theoretical_gbps, fraction;
	size_t nendpoints;
	json_t *endpoints_; /* private */
};
bool nbw_rs_path(json_t *summary, size_t i, struct nbw_rs_path *out);
/** The same of one path object \p p (an element of the summary's "paths"). */
bool nbw_rs_path_of(json_t *p, struct nbw_rs_path *out);
const char *nbw_rs_path_endpoint(const struct nbw_rs_path *p, size_t i);

/** One row of the solver's speedups, and its models' accuracy. */
struct nbw_rs_speedup {
	int g, largest_n, best_n;
	const char *version;
	double speedup_at_largest_n, best_speedup;
};
struct nbw_rs_accuracy {
	bool present;
	int g, sizes, unstable_sizes;
	const char *version, *measure;
	double onedev_mape, compcal_mape, extended_mape, paper_mape, conly_mape, max_spread;
	size_t nn;                 /**< the grid sizes N the MAPEs are over */
	json_t *n_values_;         /* private */
};
/** The grid size \p i of \p a's MAPEs (0 past the end). */
int nbw_rs_accuracy_n(const struct nbw_rs_accuracy *a, size_t i);
bool nbw_rs_speedup(json_t *summary, size_t i, struct nbw_rs_speedup *out);
/** Accuracy entry \p i of the summary's solver; false past the end. */
bool nbw_rs_accuracy(json_t *summary, size_t i, struct nbw_rs_accuracy *out);
/** The accuracy of (\p g, \p version); out->present false when there is none. */
void nbw_rs_accuracy_of(json_t *summary, int g, const char *version,
			struct nbw_rs_accuracy *out);
/** Why the summary has no model accuracy ("" when it has). */
const char *nbw_rs_solver_why(json_t *summary);

/** One row of the summary's gap per OpenMP mode (over directions and host memory). */
struct nbw_rs_gap {
	const char *native_api, *omp_mode, *meaning;
	int devices;
};
bool nbw_rs_gap(json_t *summary, size_t i, struct nbw_rs_gap *out);

/** The summary's item \p i (the one summary's items; NULL past the end or when the
 *  summary has none: merged files), sentence \p i, and its units line. */
const char *nbw_rs_item(json_t *summary, size_t i);
bool nbw_rs_has_items(json_t *summary);
const char *nbw_rs_sentence(json_t *summary, size_t i);
const char *nbw_rs_units(json_t *summary);
/** The summary's items and its solver part as they are, to write whole into another JSON
 *  document (borrowed; NULL when absent). */
json_t *nbw_rs_items_json(json_t *summary);
json_t *nbw_rs_solver_json(json_t *summary);

#endif
