/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What `nodebw run` shows a person while it runs (tools/runterm.c): on a terminal one
 * status line rewritten in place (the stage, series and measurements done of the plan, the
 * time left) with the findings printed above it as they come; the per-series lines in
 * run.log in the results folder, and on the terminal too with --verbose or when stdout is
 * not a terminal. Every line it prints fits NBW_TERM_COLUMNS columns.
 */
#ifndef NODEBW_TOOLS_RUNTERM_H
#define NODEBW_TOOLS_RUNTERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nodebw/sink.h"

#define NBW_RUNTERM_MAX_STAGES 16

struct nbw_runterm {
	FILE *out;          /**< the terminal's stream (stdout) */
	FILE *lines;        /**< where the stage lines and findings go (stdout, or stderr) */
	FILE *real_err;     /**< the process's stderr, while errors pass above the status */
	FILE *log;          /**< run.log, line-buffered (NULL: could not be opened) */
	FILE *detail;       /**< the per-series stream: run.log, and the terminal when shown */
	FILE *errs;         /**< stderr while the status line is live */
	bool live;          /**< the status line is drawn (a terminal, not --json/--quiet) */
	bool show_detail;   /**< the per-series lines on the terminal too */
	bool quiet;         /**< --quiet: no stage lines */
	bool drawn;         /**< the status line is on the screen now */
	double last_draw;   /**< when it was drawn last (nbw_now) */
	int cols;           /**< the terminal's columns, at most NBW_TERM_COLUMNS */
	char part_detail[2048], part_err[2048];  /**< a line written in pieces, so far */
	double t0;          /**< when the run started (nbw_now) */
	double limit;       /**< the run's time limit (0: none) */
	/* the plan and where the run is in it */
	size_t nstages;
	char stage_names[NBW_RUNTERM_MAX_STAGES][32];
	double stage_est[NBW_RUNTERM_MAX_STAGES];
	int stage;          /**< index of the stage running, -1 before the first */
	double stage_t0;
	double stage_frac;  /**< the stage's part done, when it knows (< 0: not known) */
	size_t meas_planned, meas_done, stage_meas_start, stage_meas_planned;
	size_t series_total, series_done;
	unsigned design_skips;  /**< series the plan leaves out on purpose, this stage */
	char doing[200];    /**< what the stage does now */
};

/** Set \p t up for a run writing to \p dir (run.log there): \p tty: stdout is a terminal;
 *  \p verbose: the per-series lines on the terminal too; \p json: stdout holds the results
 *  document (the lines go to stderr, nothing live); \p quiet: no stage lines. 0, or -1
 *  with \p err (run.log cannot be written). */
int nbw_runterm_open(struct nbw_runterm *t, const char *dir, bool tty, bool verbose, bool json,
		     bool quiet, double t0, double limit, char *err, size_t errlen);
/** The status line cleared (a newline after it), stderr given back, run.log closed. */
void nbw_runterm_close(struct nbw_runterm *t);
/** The status line cleared and no longer drawn: what follows (the summary) prints plainly. */
void nbw_runterm_finish(struct nbw_runterm *t);

/** The plan: stage \p i's name and estimate in seconds (at most NBW_RUNTERM_MAX_STAGES). */
void nbw_runterm_plan_stage(struct nbw_runterm *t, const char *name, double est);
/** The measurements and the probes' series planned (the plan line says them). */
void nbw_runterm_plan_counts(struct nbw_runterm *t, size_t measurements, size_t series);
/** Stage \p name starts; \p planned: the measurements it should record (0: none known). */
void nbw_runterm_stage(struct nbw_runterm *t, const char *name, size_t planned);
/** The stage's part done (0-1), for the time left. */
void nbw_runterm_fraction(struct nbw_runterm *t, double frac);
/** The measurements recorded so far in the whole run (the results document's count). */
void nbw_runterm_measured(struct nbw_runterm *t, size_t done);
/** What the stage does now, on the status line (and in run.log after \p stamp); off a
 *  terminal a line (after \p stamp). */
void nbw_runterm_doing(struct nbw_runterm *t, const char *stamp, const char *text);
/** A stage line or a finding: in run.log, and printed above the status line (wrapped). */
void nbw_runterm_say(struct nbw_runterm *t, const char *text);
/** The same for a line that already has its place: the lines stream only when shown. */
void nbw_runterm_detail(struct nbw_runterm *t, const char *text);
/** Seconds left by the plan and the progress so far (< 0: not known). */
double nbw_runterm_left(const struct nbw_runterm *t);

/** The sink that counts the probes' series and measurements for the status line, says a
 *  failed verification, an error or a skip that is not by design as a finding, and counts
 *  the skips by design. Free with free(). */
struct nbw_sink *nbw_runterm_sink(struct nbw_runterm *t);

#endif
