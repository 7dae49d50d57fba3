/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stages of `nodebw run` after the probes (the plane-size sweep, the solver, the
 * calibration and the report) and the closing stage of both commands, the summary
 * (tools/run_stages.c has the table).
 */
#include "run_stages.h"
#include "stages.h"

#include <stdio.h>

#include "runterm.h"
#include "summary.h"
#include "nodebw/cli.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/session.h"

bool nbw_stage_solver_wanted(const struct nbw_stage_ctx *c)
{
	return c->ro->solver;
}

/* A stage after the probes failed: the results say so, the run goes to its summary. */
static enum nbw_stage_next after_failed(struct nbw_stage_ctx *c)
{
	fprintf(stderr, "nodebw: error: %s\n", c->err);
	nbw_doc_set_state(c->doc, "failed", c->err);
	nbw_doc_write(c->doc, c->dir, c->err, sizeof(c->err));
	c->after_rc = 1;
	return NBW_STAGE_CLOSE;
}

enum nbw_stage_next nbw_stage_plane(struct nbw_stage_ctx *c)
{
	if (nbw_stop_requested)
		return NBW_STAGE_NEXT;
	if (nbw_run_plane_sweep(c->ro, c->o, c->doc, c->dir, c->err, sizeof(c->err)))
		return after_failed(c);
	nbw_run_disturb_stage(&c->dist, c->doc, "plane-size sweep");
	return NBW_STAGE_NEXT;
}

enum nbw_stage_next nbw_stage_solver(struct nbw_stage_ctx *c)
{
	if (nbw_stop_requested)
		return NBW_STAGE_NEXT;
	struct nbw_run_solver_status ss;
	if (nbw_run_solver(c->ro, c->o, c->doc, c->dir, &ss, c->err, sizeof(c->err)))
		return after_failed(c);
	nbw_run_disturb_stage(&c->dist, c->doc, "solver");
	if (nbw_doc_write(c->doc, c->dir, c->err, sizeof(c->err)))
		fprintf(stderr, "nodebw: warning: %s\n", c->err);
	nbw_run_progress(c->ro, "solver: %u runs, %u failed verification, %u child failures%s",
			 ss.runs, ss.verify_failed, ss.child_failures,
			 ss.interrupted ? "; interrupted" : "");
	if (ss.verify_failed || ss.child_failures)
		c->after_rc = NBW_EXIT_PARTIAL;
	return NBW_STAGE_NEXT;
}

/* The report is made from what was measured, also after Ctrl-C. */
enum nbw_stage_next nbw_stage_report(struct nbw_stage_ctx *c)
{
	const struct nbw_run_opts *ro = c->ro;
	const char *dir = c->dir;
	nbw_run_progress(ro, "calibration: %s/calibration.json", dir);
	if (nbw_run_report(ro, dir, c->products, &c->summary, c->err, sizeof(c->err))) {
		fprintf(stderr, "nodebw: error: %s\n", c->err);
		c->after_rc = 1;
		return NBW_STAGE_CLOSE;
	}
	nbw_run_progress(ro, "results %s/results.json, calibration %s/calibration.json%s%s%s, "
			     "run.log; regenerate the report with: nodebw report %s/results.json",
			 dir, dir, ro->report ? ", report " : "", ro->report ? dir : "",
			 ro->report ? "/report/report.html" : "", dir);
	return NBW_STAGE_NEXT;
}

enum nbw_stage_next nbw_stage_summary(struct nbw_stage_ctx *c)
{
	/* A run whose later stages marked the results complete: an API that could not run
	 * still failed the command. */
	if (c->is_run && (c->st.unavailable || c->st.backend_errors) && !c->st.interrupted &&
	    !nbw_stop_requested) {
		nbw_stage_unavailable_state(c);
		if (nbw_doc_write(c->doc, c->dir, c->err, sizeof(c->err)))
			fprintf(stderr, "nodebw: warning: %s\n", c->err);
	}
	/* Nothing measured (an API asked for that cannot run): no summary of nothing. */
	struct nbw_rv_doc h;
	nbw_rv_doc_read(c->doc->root, &h);
	if (json_array_size(h.measurements) == 0 && json_array_size(h.solver_runs) == 0)
		return NBW_STAGE_NEXT;
	/* The measurements made of those planned; then the status line gives way to the
	 * summary. */
	if (c->is_run && c->ro->term) {
		nbw_stages_count_line(c);
		nbw_runterm_finish(c->ro->term);
	}
	/* With --json (run), stdout holds the results document: the summary goes to stderr. */
	if (c->products && (!c->o->quiet || (c->o->json && c->is_run))) {
		char results[4200];
		snprintf(results, sizeof(results), "%s/results.json", c->dir ? c->dir : ".");
		nbw_summary_print(c->o->json ? stderr : stdout, c->doc, c->products, c->summary,
				  c->dir ? results : NULL, nbw_now() - c->t0);
	}
	return NBW_STAGE_NEXT;
}
