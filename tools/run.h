/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw run` beyond the probes: solver runs, calibration and report (tools/run.c). */
#ifndef NODEBW_TOOLS_RUN_H
#define NODEBW_TOOLS_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/cli.h"
#include "nodebw/disturb.h"
#include "nodebw/results.h"

#define NBW_RUN_MAX_N 16

struct nbw_criteria;

struct nbw_run_opts {
	bool solver, report, quiet, full;
	bool standard;          /**< --default: the standard profile (run's own is --quick) */
	bool json; /**< --json: progress lines on stderr, stdout keeps the results document */
	bool list_stages;       /**< --list-stages: print the stages with estimates, run nothing */
	int n[NBW_RUN_MAX_N];   /**< --solver-n; nn == 0: by device kind */
	int nn;
	int steps;              /**< --solver-steps; 0: by device kind */
	int rounds;             /**< --solver-rounds; 0: 10 on host-plugin devices, else 3 (5
				     with --full) */
	double time_limit;      /**< --time-limit seconds for the whole run (0: none); -1 = not
				     given: 300 with the quick profile, else none */
	/** What the report's verdicts judge by (tools/check.h): --check's thresholds and the
	 *  published figures; NULL: the theoretical figures only. */
	const struct nbw_criteria *criteria;
	/** The terminal and run.log (tools/runterm.h); NULL: progress lines as plain lines. */
	struct nbw_runterm *term;
};

struct nbw_run_solver_status {
	unsigned runs, verify_failed, child_failures;
	int interrupted;
};

/** Take --no-solver, --no-report, --solver-n, --solver-steps, --solver-rounds, --time-limit
 *  out of argv
 *  (and note --quiet/--full). 0, or -1 with \p err. */
int nbw_run_extract_opts(int *argc, char **argv, struct nbw_run_opts *ro, char *err,
			 size_t errlen);
/** Check \p argc options of `nodebw run` (\p argv without the command word) as `nodebw run`
 *  would parse them, without running anything: 0, or -1 with one line in \p err (the
 *  fleet's run options after --). */
int nbw_run_check_opts(int argc, char **argv, char *err, size_t errlen);
/** The run's wall-clock limit in seconds (0: none): --time-limit, else 300 s with the quick
 *  profile. */
double nbw_run_time_limit(const struct nbw_run_opts *ro);
/** Start the clock of the progress lines: `nodebw run` does at its start, so the elapsed
 *  time counts the topology and the probes too. */
void nbw_run_clock_start(void);
/** A stage line or a finding with the elapsed time since nbw_run_clock_start (unless
 *  quiet): above the status line on a terminal, and in run.log. */
void nbw_run_progress(const struct nbw_run_opts *ro, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** What a stage does now: the status line on a terminal, else a progress line as
 *  nbw_run_progress; in run.log either way. */
void nbw_run_doing(const struct nbw_run_opts *ro, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** The plane-size sweep (nbw_plane_sweep) at the solver's halo planes 8 N^2: its first
 *  processes, before the solver (nbw_run_solver runs one more as each round starts);
 *  nothing without an OpenMP device or with --no-solver. */
int nbw_run_plane_sweep(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
			struct nbw_doc *doc, const char *dir, char *err, size_t errlen);
/** The solver's validation and calibration runs, merged into \p doc and written. */
int nbw_run_solver(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
		   struct nbw_doc *doc, const char *dir, struct nbw_run_solver_status *st,
		   char *err, size_t errlen);
/** What disturbs the machine during the run's stages (include/nodebw/disturb.h). */
struct nbw_run_disturb {
	struct nbw_disturb_snap last;
	bool ok;          /**< last holds a snapshot */
	bool speedref;    /**< the machine speed reference at the start and after each stage */
};
/** The machine's settings (THP, cpufreq, kdamond) into \p doc's "disturbance", the first
 *  snapshot, and the one-second "pre-run check" stage (whether the machine is idle); with
 *  \p speedref (nodebw run), the machine speed reference after it and after every stage. */
void nbw_run_disturb_start(struct nbw_run_disturb *d, struct nbw_doc *doc, bool speedref);
/** What happened since the last snapshot, as stage \p name of "disturbance.stages"; the
 *  load average is recorded, not judged. */
void nbw_run_disturb_stage(struct nbw_run_disturb *d, struct nbw_doc *doc, const char *name);
/** The machine speed reference (nodebw/speedref.h) now, appended to
 *  "disturbance.speed_reference" of \p doc as taken \p at ("start", "after probes",
 *  "solver round 3", ...). Nothing when \p doc has no "disturbance". */
void nbw_run_speed_reference(struct nbw_doc *doc, const char *at);
struct nbw_products;
/** calibration.json and the report folder from \p dir/results.json; \p summary (may be
 *  NULL) gets the report's summary (nbw_report_summary), to print at the end. \p products:
 *  the derived products the run made from the same measurements, lent to the report (NULL:
 *  derived from the file). */
int nbw_run_report(const struct nbw_run_opts *ro, const char *dir,
		   struct nbw_products *products, json_t **summary, char *err,
		   size_t errlen);

#endif
