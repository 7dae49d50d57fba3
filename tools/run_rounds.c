/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The solver stage's rounds: every planned round (a plane-size sweep process, the cubic
 * grids, the slab shapes, the launch probe), then extra rounds of the configurations whose
 * rounds disagree, while the stage's budget and the run's time limit allow.
 */
#include "run_solver.h"
#include "runterm.h"

#include <stdio.h>
#include <string.h>

#include "nodebw/heat.h"
#include "nodebw/model.h"
#include "nodebw/results_view.h"
#include "nodebw/runner.h"
#include "nodebw/session.h"

static bool solver_going(const struct nbw_solver_run *s, int rc)
{
	return rc == 0 && !nbw_stop_requested && !s->st->interrupted;
}

/* Whether an unstable configuration before \p i in \p bad is the same version, G and shape
 * (the other half of a paired configuration). */
static bool paired_before(const struct nbw_unstable *bad, size_t i)
{
	const struct nbw_unstable *u = &bad[i];
	for (size_t j = 0; j < i; j++) {
		const struct nbw_unstable *w = &bad[j];
		/* The co-run probe's two forms run on different device counts of one slab's G. */
		bool same_g = u->slab_g || w->slab_g ? u->slab_g == w->slab_g : u->g == w->g;
		if (!strcmp(u->version, w->version) && same_g && u->nx == w->nx &&
		    u->ny == w->ny && u->nz == w->nz && u->steps == w->steps)
			return true;
	}
	return false;
}

/* The launch probe (the models' launch and copy terms, and the evidence of its per-launch
 * cost), in the rounds the stability test always has: a second or so each. */
static int launch_probe(struct nbw_solver_run *s, int r)
{
	const struct nbw_solver_plan *p = &s->p;
	struct nbw_argbuf a = {.n = 0};
	nbw_arg(&a, "nodebw");
	nbw_arg(&a, "heat");
	nbw_arg(&a, "--launch-probe");
	nbw_arg(&a, "--gpus");
	nbw_arg(&a, "%s", p->glist + 2);
	nbw_arg(&a, "--n");
	nbw_arg(&a, "%s", p->nlist);
	nbw_run_doing(s->ro, "solver round %d/%d: launch probe (empty target regions launched "
				"as v1-v4 launch, G = %s; v3 and v4 halo copies, N = %s)",
			 r, p->rounds, p->glist + 2, p->nlist);
	return nbw_solver_heat_child(s, &a, r, "calibration");
}

/* Part 0 of round \p r: the cubic grids, baseline and v1-v4, paired; part 1: one-device
 * runs of the slab shapes and, on G >= 2, the co-run probe of each G's slabs. */
static int round_part(struct nbw_solver_run *s, int r, int part, const char *left)
{
	const struct nbw_solver_plan *p = &s->p;
	struct nbw_argbuf a = {.n = 0};
	nbw_arg(&a, "nodebw");
	nbw_arg(&a, "heat");
	/* The phases of the instrumented runs come from the rounds every run has; later
	 * rounds spend that time on more paired repetitions, which the validation's
	 * speed-matched time and the compute-calibrated model's compute take. */
	bool core = r <= NBW_ROUNDS_CORE;
	if (part == 0) {
		nbw_arg(&a, "--n");
		nbw_arg(&a, "%s", p->nlist);
		nbw_arg(&a, "--versions");
		nbw_arg(&a, p->ng ? "baseline,v1,v2,v3,v4" : "baseline");
		nbw_arg(&a, "--gpus");
		nbw_arg(&a, "%s", p->glist);
		if (core)
			nbw_arg(&a, "--instrument");
		/* The compute-calibrated model's compute: each version's repetitions also
		 * without the halo copies, moments before, on the same buffers. */
		nbw_arg(&a, "--paired");
		if (p->spin_baseline) {
			nbw_arg(&a, "--baseline-blocktime");
			nbw_arg(&a, "%d", NBW_RUN_BASELINE_BLOCKTIME_MS);
		}
	} else {
		nbw_arg(&a, "--shapes");
		nbw_arg(&a, "%s", p->shapes);
		nbw_arg(&a, "--versions");
		nbw_arg(&a, "baseline");
		nbw_arg(&a, "--baseline-launch");
		nbw_arg(&a, "nowait");
		nbw_arg(&a, "--gpus");
		nbw_arg(&a, "%s", p->glist);
		/* The one-device model's compute: G one-device slab runs at once. */
		if (p->ng)
			nbw_arg(&a, "--corun");
	}
	const char *purpose = part == 0 ? "validation" : "calibration";
	int reps = part == 0 && !core ? NBW_RUN_LATE_REPS : NBW_RUN_REPS;
	nbw_run_doing(s->ro, "solver round %d/%d: %s (%s; %d steps, %d repetitions)%s", r,
			 p->rounds,
			 part == 1 ? (p->ng ? "one-device runs of the slab shapes, and G of them "
					      "at once (co-run probe)"
					    : "one-device runs of the slab shapes")
			 : core	   ? "cubic grids, baseline and v1-v4, timed with "
				     "and without the halo copies + instrumented"
				   : "cubic grids, baseline and v1-v4, timed with "
				     "and without the halo copies",
			 part == 1 ? p->shapes : p->nlist, p->steps, reps, part == 0 ? left : "");
	return nbw_solver_child(s, &a, p->steps, reps, r, purpose);
}

/* Whether round \p r would end after the run's limit less the report's reserve (then
 * recorded and said). A round is as long as the mean round so far or the last one,
 * whichever is longer: the rounds after the first three time more repetitions and no
 * instrumented runs, so they take longer than the mean of the first (a quick run on the
 * 2-core VM started its ninth round 27 s before the deadline on a 28 s mean; it took 35). */
static bool round_too_late(struct nbw_solver_run *s, int r)
{
	double mean = r > 1 ? (nbw_now() - s->t_solver) / (r - 1) : 0.0;
	double next = mean > s->last_round_s ? mean : s->last_round_s;
	if (!s->limited || r <= NBW_ROUNDS_CORE || nbw_run_elapsed() + next <= s->deadline)
		return false;
	char why[200];
	snprintf(why, sizeof(why),
		 "%d of %d rounds: one more (%.0f s, the longer of the mean round and the last) "
		 "would end after the run's %.0f s limit less %.0f s for the report",
		 r - 1, s->p.rounds, next, s->limit, NBW_RUN_REPORT_RESERVE);
	json_object_set_new(s->info, "rounds_stopped", json_string(why));
	nbw_run_progress(s->ro, "solver: %s", why);
	return true;
}

/* Round \p r: the speed reference, a plane-size sweep process, then its parts. */
static int solver_round(struct nbw_solver_run *s, int r)
{
	const struct nbw_solver_plan *p = &s->p;
	if (s->ro->term)
		nbw_runterm_fraction(s->ro->term, (double)(r - 1) / (double)p->rounds);
	/* The machine's speed as the round starts (the drift table's companion). */
	char at[32];
	snprintf(at, sizeof(at), "solver round %d", r);
	nbw_run_speed_reference(s->doc, at);
	/* One more process of the plane-size sweep, where the run made one. */
	struct nbw_rv_doc h;
	nbw_rv_doc_read(s->doc->root, &h);
	if (h.plane_sweep &&
	    nbw_run_plane_processes(s->ro, s->o, s->doc, s->dir, NBW_RUN_PLANE_BEFORE + r, 1,
				    s->err, s->errlen))
		return -1;
	/* The rounds are alike: the time left is the mean round's times the rest. */
	char left[64] = "";
	if (r > 1)
		snprintf(left, sizeof(left), "; about %.0f s left in the solver",
			 (nbw_now() - s->t_solver) / (r - 1) * (p->rounds - r + 1));
	int rc = 0;
	for (int part = 0; part < 3 && solver_going(s, rc); part++) {
		if (part >= 1 && p->ng == 0)
			continue;
		if (part == 2)
			rc = r > NBW_ROUNDS_CORE ? 0 : launch_probe(s, r);
		else
			rc = round_part(s, r, part, left);
	}
	return rc;
}

int nbw_solver_planned_rounds(struct nbw_solver_run *s)
{
	int rc = 0, rounds_run = 0;
	for (int r = 1; r <= s->p.rounds && solver_going(s, rc); r++) {
		if (round_too_late(s, r))
			break;
		double t0 = nbw_now();
		rc = solver_round(s, r);
		s->last_round_s = nbw_now() - t0;
		if (solver_going(s, rc))
			rounds_run = r;
	}
	json_object_set_new(s->info, "rounds_run", json_integer(rounds_run));
	return rc;
}

/* One unstable configuration \p u measured again as it was (round \p round). */
static int extra_child(struct nbw_solver_run *s, const struct nbw_unstable *u, int round)
{
	const char *v = u->version;
	/* The co-run probe runs again with its slab's one-device run. */
	bool corun = strcmp(v, "corun") == 0;
	bool slab = corun || (strcmp(v, "baseline") == 0 && strcmp(u->launch, "nowait") == 0);
	bool multi = v[0] == 'v';
	struct nbw_argbuf a = {.n = 0};
	int g = u->g;
	nbw_arg(&a, "nodebw");
	nbw_arg(&a, "heat");
	/* A co-run of a box that is no slab of its G (an application's local box) is co-run
	 * as a box of --nx/--ny/--nz; the solver's radius and fields as they ran. */
	int radius = u->radius > 0 ? u->radius : 1, fields = u->fields > 0 ? u->fields : 1;
	if (corun && !nbw_heat_is_slab_shape_r(u->nx, u->ny, u->nz, u->slab_g, radius)) {
		nbw_arg(&a, "--nx");
		nbw_arg(&a, "%d", u->nx);
		nbw_arg(&a, "--ny");
		nbw_arg(&a, "%d", u->ny);
		nbw_arg(&a, "--nz");
		nbw_arg(&a, "%d", u->nz);
	} else {
		nbw_arg(&a, "--shapes");
		nbw_arg(&a, "%dx%dx%d", u->nx, u->ny, u->nz);
	}
	if (radius != 1 || fields != 1) {
		nbw_arg(&a, "--radius");
		nbw_arg(&a, "%d", radius);
		nbw_arg(&a, "--fields");
		nbw_arg(&a, "%d", fields);
	}
	nbw_arg(&a, "--versions");
	nbw_arg(&a, "%s", corun ? "baseline" : v);
	nbw_arg(&a, "--gpus");
	nbw_arg(&a, corun ? "1,%d" : "%d", corun ? u->slab_g : g);
	if (slab) {
		nbw_arg(&a, "--baseline-launch");
		nbw_arg(&a, "nowait");
		if (corun)
			nbw_arg(&a, "--corun");
	} else if (multi) {
		nbw_arg(&a, "--instrument");
		nbw_arg(&a, "--paired");
	} else {
		nbw_arg(&a, "--instrument");
		if (s->p.spin_baseline) {
			nbw_arg(&a, "--baseline-blocktime");
			nbw_arg(&a, "%d", NBW_RUN_BASELINE_BLOCKTIME_MS);
		}
	}
	return nbw_solver_child(s, &a, u->steps, NBW_RUN_REPS, round,
				slab ? "calibration" : "validation");
}

/* One extra round over the unstable configurations \p bad; \p longest: the longest extra
 * child so far; \p why_stop set when the run's limit comes near. */
static int extra_round(struct nbw_solver_run *s, const struct nbw_unstable *bad, size_t nbad,
		       int round, double budget, double *longest, const char **why_stop)
{
	int rc = 0;
	for (size_t i = 0; i < nbad; i++) {
		if (!solver_going(s, rc) || nbw_now() - s->t_solver > budget)
			break;
		/* The longest extra child so far (at least 3 s) must still fit. */
		if (s->limited && nbw_run_elapsed() + *longest > s->deadline) {
			*why_stop = "the run's time limit is near";
			break;
		}
		/* Versions 1-4 are measured again as they were, paired: both halves of a
		 * configuration get one more round, once even when both are unstable; the
		 * co-run probe's two forms likewise. */
		const char *v = bad[i].version;
		if ((v[0] == 'v' || strcmp(v, "corun") == 0) && paired_before(bad, i))
			continue;
		double t_child = nbw_now();
		rc = extra_child(s, &bad[i], round);
		if (nbw_now() - t_child > *longest)
			*longest = nbw_now() - t_child;
	}
	return rc;
}

/* Configurations whose rounds disagree (a round slowed by something else on the machine)
 * are measured again, one round at a time, while the stage's budget lasts: the model takes
 * the fastest round, and a configuration counts as stable once its NBW_ROUNDS_CORE fastest
 * rounds agree; one that never does is reported as unstable. */
int nbw_solver_extra_rounds(struct nbw_solver_run *s)
{
	double budget = s->ro->full ? 1800.0 : 150.0, longest = 3.0;
	const char *why_stop = "the stage's budget is spent";
	int rc = 0;
	/* Extra rounds are numbered after the rounds that ran (fewer than planned when the
	 * run's time limit stopped them), as the terminal counts them. */
	int ran = (int)json_integer_value(json_object_get(s->info, "rounds_run"));
	if (ran <= 0)
		ran = s->p.rounds;
	for (int extra = 1; solver_going(s, rc) && extra <= NBW_RUN_EXTRA_ROUNDS; extra++) {
		struct nbw_rv_doc head;
		nbw_rv_doc_read(s->doc->root, &head);
		struct nbw_unstable *bad = NULL;
		long found = nbw_solver_unstable(head.solver_runs, &bad);
		size_t nb = found > 0 ? (size_t)found : 0;
		double spent = nbw_now() - s->t_solver;
		bool late = s->limited && nbw_run_elapsed() + longest > s->deadline;
		if (late)
			why_stop = "the run's time limit is near";
		if (!nb || spent > budget || late) {
			if (nb) {
				nbw_run_progress(s->ro, "solver: %zu configuration%s still unstable; "
							"%s (stage budget %.0f s, run limit %s)",
						 nb, nb == 1 ? "" : "s", why_stop, budget,
						 s->limit > 0.0 ? "set" : "none");
				json_object_set_new(s->info, "extra_rounds_stopped",
						    json_string(why_stop));
			}
			free(bad);
			break;
		}
		nbw_run_progress(s->ro, "solver: %zu configuration%s with rounds more than %.1fx "
					"apart, measured again (extra round %d of at most %d)",
				 nb, nb == 1 ? "" : "s", NBW_STABLE_SPREAD, extra,
				 NBW_RUN_EXTRA_ROUNDS);
		char at[32];
		snprintf(at, sizeof(at), "solver round %d", ran + extra);
		nbw_run_speed_reference(s->doc, at);
		rc = extra_round(s, bad, nb, ran + extra, budget, &longest, &why_stop);
		free(bad);
	}
	return rc;
}
