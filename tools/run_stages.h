/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw probe` and `nodebw run` as a table of stages (tools/run_stages.c): each stage says
 * what it runs, what it writes and how long it should take; the runner walks the table.
 * doc/run.md lists the same stages (`nodebw run --list-stages`).
 */
#ifndef NODEBW_TOOLS_RUN_STAGES_H
#define NODEBW_TOOLS_RUN_STAGES_H

#include <stdbool.h>
#include <stdio.h>

#include "run.h"
#include "nodebw/results.h"
#include "nodebw/runner.h"

/** What the stages share while the command runs. */
struct nbw_products;

/** What the run will measure, counted before it starts (nbw_stages_count). */
struct nbw_stage_plan {
	bool known;              /**< counted */
	size_t probes, series;   /**< the probes' measurements and series */
	size_t hht;              /**< the hidden-helper sweep's measurements */
	size_t plane_process;    /**< one process of the plane-size sweep */
	int plane_processes;     /**< its processes (2 before the solver, 1 per round) */
	int rounds;              /**< the solver's planned rounds (0: no solver) */
	size_t total;            /**< every measurement planned */
};

struct nbw_stage_ctx {
	bool is_run;                       /**< nodebw run (else nodebw probe) */
	const struct nbw_run_opts *ro;     /**< run's own options (probe: all off) */
	const struct nbw_probe_opts *o;
	struct nbw_doc *doc;
	const char *dir;                   /**< the results folder */
	struct nbw_probe_ctx *pctx;        /**< the probes' threads and sinks (freed after them) */
	struct nbw_sink *term;             /**< the terminal sink (NULL: quiet) */
	struct nbw_run_status st;          /**< the probes and the hidden-helper sweep */
	struct nbw_run_disturb dist;
	json_t *summary;                   /**< the report's summary (run), for the end */
	struct nbw_products *products;     /**< the measurements' derived products, once */
	double t0;                         /**< when the command started */
	int probe_rc;     /**< the probes' exit contribution: 0, 1, NBW_EXIT_PARTIAL, 128 + N */
	int after_rc;     /**< the run's stages after the probes: 0, 1 or NBW_EXIT_PARTIAL */
	bool usage_error; /**< bad input found by the probes: exit 2, the folder removed */
	bool measured;    /**< the probes and their analyses ended (with or without data) */
	struct nbw_stage_plan plan;
	char err[1400];
};

/** A stage's verdict: go on, skip to the closing stages, or stop at once. */
enum nbw_stage_next { NBW_STAGE_NEXT, NBW_STAGE_CLOSE, NBW_STAGE_ABORT };

/** One stage of the pipeline, as data. */
struct nbw_stage {
	const char *name;
	const char *runs;          /**< what it runs, one sentence */
	const char *writes;        /**< the files and results.json keys it writes */
	const char *estimate_how;  /**< how its time estimate is made */
	double (*estimate)(const struct nbw_stage_ctx *c);   /**< seconds */
	bool run_only;             /**< a stage of nodebw run only */
	bool closing;              /**< runs also after a stage said NBW_STAGE_CLOSE */
	bool (*wanted)(const struct nbw_stage_ctx *c);       /**< NULL: always */
	enum nbw_stage_next (*run)(struct nbw_stage_ctx *c);
};

/** The table, in order; \p n gets its length. */
const struct nbw_stage *nbw_stages(size_t *n);
/** Whether stage \p s runs in this command (its kind, options). */
bool nbw_stage_wanted(const struct nbw_stage *s, const struct nbw_stage_ctx *c);
/** The stages this command runs, with their estimates and what they write, as a table on
 *  \p f (nodebw run --list-stages). */
void nbw_stages_list(FILE *f, const struct nbw_stage_ctx *c);
/** Count what the stages will measure into \p c->plan (the backends opened for their
 *  devices, nothing measured). */
void nbw_stages_count(struct nbw_stage_ctx *c);
/** The measurements the document holds now. */
size_t nbw_stages_measured(const struct nbw_stage_ctx *c);
/** One line: the measurements made of those planned, honestly when they differ. */
void nbw_stages_count_line(const struct nbw_stage_ctx *c);
/** One progress line with the plan (each stage's estimate) before the run (run, on a
 *  terminal). */
void nbw_stages_plan_line(const struct nbw_stage_ctx *c);
/** Walk the table: every wanted stage in order until one says NBW_STAGE_ABORT; after
 *  NBW_STAGE_CLOSE only the closing stages. */
void nbw_stages_walk(struct nbw_stage_ctx *c);

#endif
