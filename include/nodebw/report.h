/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief `nodebw report`: turn one or more results files into a report folder (Markdown and
 * HTML, CSV tables, gnuplot plots as PNG and SVG with their data and .gp scripts).
 *
 * Layers (report/):
 * - curves.c: the measured transfer series of each path (api, direction, mode, host memory,
 *   concurrency, peer access) over sizes, and the bandwidth at any size by interpolation;
 * - fit.c: t(n) = alpha + n / beta per path (GSL weighted least squares), n_1/2;
 * - rdoc.c, plot.c: one document written as Markdown and HTML at once, tables that are
 *   also CSV files, plots that are gnuplot data + script + PNG + SVG;
 * - transfers.c: the transfers section; the model sections live in model_report.c;
 * - report_cmd.c: the command, loading and merging results files.
 */
#ifndef NODEBW_REPORT_H
#define NODEBW_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- transfer curves ---------------------------------------------------------------- */

/** What identifies one measured path; strings as in results.json. */
struct nbw_curve_key {
	char api[16];        /**< "omp", "cuda", "host", ... */
	char dir[8];         /**< "htod", "dtoh", "p2p" */
	char mode[12];       /**< "sync", "async", "nowait", "parallel" */
	char host_mem[16];   /**< "pageable", "pinned", "registered", "none" */
	char conc[8];        /**< "single", "dual", "bidir" */
	char peer[12];       /**< "n/a", "enabled", "disabled" */
	char bind[8];        /**< "local", "remote", "none", "" when not recorded */
	int hidden_helpers;  /**< as measured; -1 for native APIs */
	char sweep[24];      /**< the hidden-helper sweep's label ("hht-0"), "planes" for the
				  plane-size sweep (every process), "" for the main run */
	char devices[24];    /**< the streams' endpoints, e.g. "h->0", "0->1", "0->1,1->0" */
};

struct nbw_curve_point {
	double bytes;              /**< bytes of one transfer (per stream) */
	double seconds;            /**< median wall time of one repetition (all streams) */
	double gbps;               /**< median aggregate GB/s (1e9 B/s) */
	double gbps_min, gbps_max; /**< over the repetitions */
	double overlap_speedup;    /**< two streams: serial estimate / concurrent; 0 if none */
	/** The 95 % confidence interval of the median GB/s (median_ci) and its relative
	 *  half-width in percent; NaN in a document written before it. */
	double ci_lo_gbps, ci_hi_gbps, ci_half_width_pct;
	int converged;             /**< the repetitions met the interval's target: 1, 0, -1 unknown */
	char stop[48];             /**< why the repetitions stopped; "" when unknown */
	/** The plane-size sweep (sweep "planes"): the processes that measured this size; the
	 *  point is the fastest process's median, proc_slowest_s the slowest's. 0 elsewhere. */
	int processes;
	double proc_slowest_s;
};

struct nbw_curve {
	struct nbw_curve_key key;
	int streams;                /**< 1, or 2 for dual and bidir */
	char link[64];              /**< topology label ("PCIe Gen5 x16", "host memory, no link") */
	double theoretical_gbps;    /**< < 0: unknown */
	size_t n;                   /**< points, sorted by bytes */
	struct nbw_curve_point *pt;
	int file;                   /**< index of the results file it came from */
};

struct nbw_curves {
	struct nbw_curve *c;
	size_t n;
};

/** Group the verified, error-free measurements of \p measurements (array of a results
 *  document) into curves; several files can be added with their index. 0 or -1 (memory). */
int nbw_curves_add(struct nbw_curves *cs, json_t *measurements, int file);
/** The same with the matrix cells of a whole-node run too (every device and pair at the
 *  matrix sizes, each its own curve): what the fleet comparison compares. */
int nbw_curves_add_cells(struct nbw_curves *cs, json_t *measurements, int file);
void nbw_curves_free(struct nbw_curves *cs);

/** The first curve matching the non-NULL fields (NULL or "" = any; hidden_helpers < -1 = any). */
const struct nbw_curve *nbw_curves_find(const struct nbw_curves *cs, const char *api,
					const char *dir, const char *mode, const char *host_mem,
					const char *conc);

/** Median seconds of one repetition at \p bytes: linear interpolation of t(n) between the
 *  two measured sizes around \p bytes; outside the measured range the nearest point scaled
 *  with the fitted alpha-beta line when there is one. Negative when the curve is empty.
 *  \p how (may be NULL) says "measured", "interpolated 1.0 MB..2.1 MB" or "extrapolated". */
double nbw_curve_seconds_at(const struct nbw_curve *c, double bytes, char *how, size_t howlen);

/* ---- alpha-beta fit ----------------------------------------------------------------- */

struct nbw_abfit {
	bool ok;
	double alpha_s;          /**< latency: t(0) */
	double beta_gbps;        /**< asymptotic bandwidth, GB/s (1e9 B/s) */
	double n_half_bytes;     /**< alpha * beta: size that reaches half of beta */
	double max_rel_resid;    /**< largest |t_fit - t| / t over the points */
	size_t n;                /**< points used */
	char why[96];            /**< when !ok */
	/* Set by nbw_abfit_range (nbw_abfit: the whole set). */
	double lo_bytes, hi_bytes;  /**< the smallest and largest size of the points used */
	size_t n_all;               /**< points given */
	double max_rel_resid_all;   /**< largest relative residual over every point given */
	double peak_gbps;           /**< highest measured bandwidth, bytes / seconds */
	double peak_bytes;          /**< its size */
	bool describes;             /**< max_rel_resid <= NBW_ABFIT_HOLDS over the points used */
	bool beta_above_peak;       /**< beta more than 5 % above every measured size */
};

/** A line describes a path when every point it was fitted on is within this relative
 *  residual. */
#define NBW_ABFIT_HOLDS 0.20

/** Fit t = alpha + n / beta to \p n points (bytes, seconds) by least squares on relative
 *  residuals (weights 1/t^2, GSL); alpha is held at 0 when the free fit makes it negative.
 *  Needs two distinct sizes. Returns 0 or -1 (out->why says why). */
int nbw_abfit(const double *bytes, const double *seconds, size_t n, struct nbw_abfit *out);
/** The fit over the sizes where the model holds: beta is what large transfers get, so the
 *  fit runs from the smallest size at which every point up to the largest size stays
 *  within NBW_ABFIT_HOLDS of its line (at least three sizes, or all when fewer; on host
 *  memory the small sizes that live in the caches fall outside); when no such run exists,
 *  the fit over all points with \p describes false. Also reports the peak measured
 *  bandwidth and whether beta lies above it. */
int nbw_abfit_range(const double *bytes, const double *seconds, size_t n,
		    struct nbw_abfit *out);
/** nbw_abfit_range on a curve's points. */
int nbw_abfit_curve_range(const struct nbw_curve *c, struct nbw_abfit *out);
/** The same on a curve's points. */
int nbw_abfit_curve(const struct nbw_curve *c, struct nbw_abfit *out);

/* ---- one document as Markdown and HTML ---------------------------------------------- */

struct nbw_rdoc;
struct nbw_rtable;

/** A report in folder \p dir (created if missing, with plots/ and tables/). NULL with
 *  \p err when the folder cannot be made. */
struct nbw_rdoc *nbw_rdoc_new(const char *dir, const char *title, char *err, size_t errlen);
const char *nbw_rdoc_dir(const struct nbw_rdoc *r);
void nbw_rdoc_heading(struct nbw_rdoc *r, int level, const char *text);
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

/** Results files merged for one report. */
struct nbw_rinput {
	size_t nfiles;
	const char **paths;
	json_t **docs;          /**< the loaded documents */
	json_t *devices;        /**< all files' devices (each with "file": index) */
	json_t *measurements;   /**< all files' measurements (each with "file": index) */
	json_t *solver_runs;    /**< all files' solver runs (each with "file": index) */
	struct nbw_curves curves;
};

/** Load and merge results files; on error \p err names the file, line and column. */
int nbw_rinput_load(struct nbw_rinput *in, const char *const *paths, size_t n, char *err,
		    size_t errlen);
void nbw_rinput_free(struct nbw_rinput *in);

/** The sections. */
void nbw_report_overview(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The disturbance table of nodebw run's stages (part of the overview). */
void nbw_report_disturbance(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The machine speed reference taken during nodebw run (report/speedref.c). */
void nbw_report_speed_reference(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** The machine's speed per solver round, from the solver runs (report/drift.c). */
void nbw_report_solver_drift(struct nbw_rdoc *r, const struct nbw_rinput *in);
void nbw_report_transfers(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** Whole node: P2P heat maps and tables, per-device bars, outliers (report/node*.c). */
void nbw_report_whole_node(struct nbw_rdoc *r, const struct nbw_rinput *in);
/** Model, predictions and validation (model_report.c). */
void nbw_report_model(struct nbw_rdoc *r, const struct nbw_rinput *in);

/** The solver's measured speedups and both models' accuracy per (G, version), for the
 *  summary (model_report.c): {"speedups": [{G, version, largest_n, speedup_at_largest_n,
 *  best_speedup, best_n}], "accuracy": [{G, version, sizes, paper_mape, paper_bias,
 *  extended_mape, extended_bias, max_spread}]} (fractions, not per cent), or {"why": ...}
 *  when there is nothing to show. */
json_t *nbw_model_summary(const struct nbw_rinput *in);

/** The summary that opens the report and ends `nodebw run` (summary.c): per path the
 *  large-size and best bandwidth, the fraction of theoretical and the small-size latency;
 *  the OpenMP-vs-native gap; the solver's speedups and the models' accuracy; the outliers;
 *  and the sentences that say what they mean. A new object (documented in
 *  doc/report.md), never NULL but for memory. */
json_t *nbw_report_summary(const struct nbw_rinput *in);
/** The summary as the report's first section. */
void nbw_report_summary_section(struct nbw_rdoc *r, json_t *summary);
/** The summary's solver table on a terminal (a line per G and version; nothing without
 *  solver runs): part of the one summary at the end of `nodebw run` (tools/summary.c). */
void nbw_report_summary_solver(FILE *f, json_t *summary);

/** The whole report of \p in into \p dir, opening with \p summary (NULL: made here) and
 *  with summary.json beside report.md. 0, or -1 with \p err. */
int nbw_report_build(const struct nbw_rinput *in, json_t *summary, const char *dir, char *err,
		     size_t errlen);

/** `nodebw report [--output DIR] RESULTS...` (argv[0] is "report"): 0, 1 or 2. */
int nbw_report_main(int argc, char **argv);

#endif
