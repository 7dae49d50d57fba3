/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stages `nodebw probe` and `nodebw run` share: the pre-run check, the probes, the
 * hidden-helper sweep and the analyses of what they measured (tools/run_stages.c has the
 * table).
 */
#include "run_stages.h"
#include "stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runterm.h"
#include "summary.h"
#include "nodebw/cli.h"
#include "nodebw/gap.h"
#include "nodebw/products.h"
#include "nodebw/session.h"
#include "nodebw/sink.h"

enum nbw_stage_next nbw_stage_prerun(struct nbw_stage_ctx *c)
{
	nbw_run_disturb_start(&c->dist, c->doc, c->is_run);
	return NBW_STAGE_NEXT;
}

/* The probes' threads and the terminal sink are done with once the probes are. */
static void release_probe_ctx(struct nbw_stage_ctx *c)
{
	nbw_probe_ctx_free(c->pctx);
	c->pctx = NULL;
	nbw_sink_terminal_free(c->term);
	c->term = NULL;
}

/* The probes (or the sweep) failed: bad input ends the command with exit 2 (the folder
 * removed); anything else leaves what was measured, marked as failed. */
static enum nbw_stage_next probes_failed(struct nbw_stage_ctx *c, int rc)
{
	release_probe_ctx(c);
	if (c->st.checkpoint_errors)
		fprintf(stderr, "nodebw: %u checkpoint write%s of the results failed: %s\n",
			c->st.checkpoint_errors, c->st.checkpoint_errors == 1 ? "" : "s",
			c->st.checkpoint_why);
	if (rc == NBW_EXIT_USAGE) {
		c->usage_error = true;
	} else {
		char why[NBW_REASON_LEN * 2];
		nbw_doc_set_state(c->doc, "failed", c->err);
		nbw_doc_write(c->doc, c->dir, why, sizeof(why));
	}
	fprintf(stderr, "nodebw: error: %s\n", c->err);
	c->probe_rc = rc == NBW_EXIT_USAGE ? NBW_EXIT_USAGE : 1;
	return NBW_STAGE_ABORT;
}

enum nbw_stage_next nbw_stage_probes(struct nbw_stage_ctx *c)
{
	int rc = nbw_probe_run(c->pctx, c->o, c->doc, c->dir, &c->st, c->err, sizeof(c->err));
	nbw_run_disturb_stage(&c->dist, c->doc, "probes");
	if (rc)
		return probes_failed(c, rc);
	if (c->is_run) {
		struct nbw_runterm *rt = c->ro->term;
		char planned[64] = "", design[96] = "";
		if (c->plan.known)
			snprintf(planned, sizeof(planned), " of %zu planned", c->plan.probes);
		/* The series the plan leaves out on purpose are no finding: counted here, each
		 * with its reason in run.log and the results. */
		if (rt && rt->design_skips)
			snprintf(design, sizeof(design), " (%u by design: see run.log)",
				 rt->design_skips);
		nbw_run_progress(c->ro, "probes: %u measurements%s, %u skipped%s",
				 c->st.measurements, planned, c->st.skipped, design);
	}
	return NBW_STAGE_NEXT;
}

bool nbw_stage_hht_wanted(const struct nbw_stage_ctx *c)
{
	return c->o->hht_sweep;
}

enum nbw_stage_next nbw_stage_hht(struct nbw_stage_ctx *c)
{
	if (nbw_stop_requested)
		return NBW_STAGE_NEXT;
	struct nbw_runterm *rt = c->is_run ? c->ro->term : NULL;
	if (rt && c->plan.hht)
		nbw_run_doing(c->ro, "the async modes again in a child process");
	int rc = nbw_hht_sweep(c->o, c->doc, c->dir,
			       rt ? rt->detail : c->o->quiet ? NULL : stdout, &c->st, c->err,
			       sizeof(c->err));
	if (rt)
		nbw_runterm_measured(rt, nbw_stages_measured(c));
	nbw_run_disturb_stage(&c->dist, c->doc, "hidden-helper sweep");
	if (rc)
		return probes_failed(c, rc);
	if (c->is_run)
		nbw_run_progress(c->ro, "hidden-helper sweep: %u measurements in all",
				 c->st.measurements);
	return NBW_STAGE_NEXT;
}

/* The OpenMP-vs-native gap table of what was measured (the products'): printed, and kept
 * in the results. */
static void gap_table(struct nbw_doc *doc, const struct nbw_products *p,
		      const struct nbw_probe_opts *o, FILE *f)
{
	/* The summary has the gap per mode; the whole table with --verbose (or nodebw gap). */
	if (!o->quiet && o->verbose)
		nbw_gap_print(f, p->gaps);
	nbw_doc_set(doc, "gaps", json_incref(p->gaps));
}

/* The state the results file is left in after the probes: a run goes on with the solver
 * (its stage sets the state when it ends); an API asked for that cannot run fails the
 * command, and the results say so. */
static void set_final_state(struct nbw_stage_ctx *c)
{
	char detail[NBW_REASON_LEN + 96];
	const struct nbw_run_status *st = &c->st;
	if (st->interrupted) {
		snprintf(detail, sizeof(detail), "stopped by %s after %u measurements",
			 nbw_signal_name(nbw_stop_signal), st->measurements);
		nbw_doc_set_state(c->doc, "interrupted", detail);
	} else if (st->unavailable || st->backend_errors) {
		nbw_stage_unavailable_state(c);
	} else if (!(c->is_run && c->ro->solver)) {
		nbw_doc_set_state(c->doc, "complete", NULL);
	}
}

void nbw_stage_unavailable_state(struct nbw_stage_ctx *c)
{
	char detail[NBW_REASON_LEN + 96];
	snprintf(detail, sizeof(detail), "%s%s",
		 c->st.backend_errors ? "an API is present but unusable: "
				      : "an API asked for with --api cannot run: ",
		 c->st.unavailable_why);
	nbw_doc_set_state(c->doc, "failed", detail);
}

/* The probes' exit status: 0, partial, 1 for an API that cannot run, 128 + N. */
static int probes_exit(const struct nbw_stage_ctx *c)
{
	const struct nbw_run_status *st = &c->st;
	int rc = st->interrupted ? nbw_stop_status()
		 : st->verify_failed || st->errors ? NBW_EXIT_PARTIAL
						   : 0;
	if (st->unavailable || st->backend_errors) {
		fprintf(stderr, "nodebw: error: %s%s\n",
			st->backend_errors ? "an API is present but unusable: "
					   : "an API asked for with --api cannot run: ",
			st->unavailable_why);
		rc = st->interrupted ? rc : 1;
	}
	return rc;
}

enum nbw_stage_next nbw_stage_analyses(struct nbw_stage_ctx *c)
{
	release_probe_ctx(c);
	/* Which OpenMP device is which native one, kept in the document's devices. */
	nbw_gap_match_devices(c->doc->devices);
	/* Every derived product of what was measured, once: stored in the results below,
	 * printed at the end, handed to the report. */
	c->products = nbw_products_new(c->doc->root);
	if (!c->products) {
		snprintf(c->err, sizeof(c->err), "out of memory deriving the results' analyses");
		fprintf(stderr, "nodebw: error: %s\n", c->err);
		c->probe_rc = 1;
		return NBW_STAGE_ABORT;
	}
	struct nbw_runterm *rt = c->is_run ? c->ro->term : NULL;
	gap_table(c->doc, c->products, c->o, rt ? rt->detail : stdout);
	if (c->st.checkpoint_errors)
		fprintf(stderr, "nodebw: %u checkpoint write%s of the results failed: %s\n",
			c->st.checkpoint_errors, c->st.checkpoint_errors == 1 ? "" : "s",
			c->st.checkpoint_why);
	c->st.interrupted |= nbw_stop_requested != 0;
	/* The whole-node analyses of what was measured, kept in the results. */
	nbw_summary_analyse(c->doc, c->products);
	set_final_state(c);
	if (nbw_doc_write(c->doc, c->dir, c->err, sizeof(c->err))) {
		fprintf(stderr, "nodebw: error: %s\n", c->err);
		c->probe_rc = 1;
		return NBW_STAGE_ABORT;
	}
	const struct nbw_run_status *st = &c->st;
	if (rt) {
		char *line = NULL;
		if (asprintf(&line, "%u measurements: %u verified, %u failed verification, %u with "
				    "an error; %u skipped%s; results: %s/results.json and "
				    "results.csv",
			     st->measurements, st->measurements - st->verify_failed - st->errors,
			     st->verify_failed, st->errors, st->skipped,
			     st->interrupted ? "; interrupted, partial results kept" : "",
			     c->dir) >= 0)
			nbw_runterm_say(rt, line);
		free(line);
	} else if (!c->o->quiet || c->o->json || st->verify_failed || st->errors)
		fprintf(c->o->json ? stderr : stdout,
			"\n%u measurements: %u verified, %u failed verification, %u with an "
			"error; %u skipped%s\nresults: %s/results.json and results.csv\n",
			st->measurements, st->measurements - st->verify_failed - st->errors,
			st->verify_failed, st->errors, st->skipped,
			st->interrupted ? "; interrupted, partial results kept" : "", c->dir);
	c->probe_rc = probes_exit(c);
	c->measured = true;
	return NBW_STAGE_NEXT;
}
