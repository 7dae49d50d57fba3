/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw run` beyond the probes: solver runs, calibration and report (tools/run.c). */
#ifndef NODEBW_TOOLS_RUN_H
#define NODEBW_TOOLS_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/disturb.h"
#include "nodebw/results.h"

#define NBW_RUN_MAX_N 16

struct nbw_run_opts {
	bool solver, report, quiet, full;
	bool json; /**< --json: progress lines on stderr, stdout keeps the results document */
	int n[NBW_RUN_MAX_N];   /**< --solver-n; nn == 0: by device kind */
	int nn;
	int steps;              /**< --solver-steps; 0: by device kind */
	int rounds;             /**< --solver-rounds; 0: 3 (5 with --full) */
};

struct nbw_run_solver_status {
	unsigned runs, verify_failed, child_failures;
	int interrupted;
};

/** Take --no-solver, --no-report, --solver-n, --solver-steps, --solver-rounds out of argv
 *  (and note --quiet/--full). 0, or -1 with \p err. */
int nbw_run_extract_opts(int *argc, char **argv, struct nbw_run_opts *ro, char *err,
			 size_t errlen);
/** Start the clock of the progress lines: `nodebw run` does at its start, so the elapsed
 *  time counts the topology and the probes too. */
void nbw_run_clock_start(void);
/** A progress line with the elapsed time since nbw_run_clock_start (unless quiet). */
void nbw_run_progress(const struct nbw_run_opts *ro, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** The solver's validation and calibration runs, merged into \p doc and written. */
int nbw_run_solver(const struct nbw_run_opts *ro, struct nbw_doc *doc, const char *dir,
		   struct nbw_run_solver_status *st, char *err, size_t errlen);
/** What disturbs the machine during the run's stages (include/nodebw/disturb.h). */
struct nbw_run_disturb {
	struct nbw_disturb_snap last;
	bool ok;          /**< last holds a snapshot */
};
/** The machine's settings (THP, cpufreq, kdamond) into \p doc's "disturbance", the first
 *  snapshot, and the one-second "pre-run check" stage (whether the machine is idle). */
void nbw_run_disturb_start(struct nbw_run_disturb *d, struct nbw_doc *doc);
/** What happened since the last snapshot, as stage \p name of "disturbance.stages"; the
 *  load average is recorded, not judged. */
void nbw_run_disturb_stage(struct nbw_run_disturb *d, struct nbw_doc *doc, const char *name);
/** calibration.json and the report folder from \p dir/results.json; \p summary (may be
 *  NULL) gets the report's summary (nbw_report_summary), to print at the end. */
int nbw_run_report(const struct nbw_run_opts *ro, const char *dir, json_t **summary, char *err,
		   size_t errlen);

#endif
