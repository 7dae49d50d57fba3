/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report's drift table: how fast the machine was in each round of nodebw run's solver
 * stage, read from the solver runs themselves. Per round and purpose (validation,
 * calibration, compute-only) the median over the configurations of the round's time over the
 * configuration's fastest round. A machine whose own speed moves (memory bandwidth taken by
 * other guests of the host, frequency) slows every configuration of a round alike, and no
 * counter of the disturbance table sees it; the models then pair calibration and validation
 * runs measured at different speeds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/model.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/stats.h"
#include "round_label.h"

/* A round at most this much slower (median over its configurations) is at the floor. */
#define DRIFT_FLOOR 1.10
#define DRIFT_MAX_ROUNDS 64

static const char *const purposes[] = {"validation", "calibration", "compute-only"};

struct cfg {
	char key[160];
	int purpose;
	double best;
	double round_s[DRIFT_MAX_ROUNDS + 1]; /* 0: not run in that round */
};

static int purpose_of(const char *p)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(p, purposes[i]) == 0)
			return i;
	return -1;
}

/* The configurations of file \p f: per round its fastest repetition. */
static struct cfg *configurations(json_t *runs, int f, size_t *n, int *rounds)
{
	struct cfg *c = NULL;
	size_t i;
	json_t *r;
	*n = 0;
	*rounds = 0;
	json_array_foreach(runs, i, r) {
		struct nbw_rv_solver_run v;
		nbw_rv_solver_read(r, &v);
		int p = purpose_of(v.purpose), round = v.round;
		double s = v.fastest_s;
		if (v.file != f || p < 0 || round < 1 || round > DRIFT_MAX_ROUNDS || !(s > 0.0) ||
		    v.error)
			continue;
		char key[160];
		snprintf(key, sizeof(key), "%d %s %d %dx%dx%d %d %s %s", p, v.version, v.g, v.nx,
			 v.ny, v.nz, v.steps, v.no_exchange ? "none" : "halo", v.launch);
		struct cfg *x = NULL;
		for (size_t k = 0; k < *n && !x; k++)
			if (strcmp(c[k].key, key) == 0)
				x = &c[k];
		if (!x) {
			struct cfg *a = realloc(c, (*n + 1) * sizeof(*a));
			if (!a)
				break;
			c = a;
			x = &c[(*n)++];
			memset(x, 0, sizeof(*x));
			snprintf(x->key, sizeof(x->key), "%s", key);
			x->purpose = p;
		}
		if (x->round_s[round] == 0.0 || s < x->round_s[round])
			x->round_s[round] = s;
		if (x->best == 0.0 || s < x->best)
			x->best = s;
		if (round > *rounds)
			*rounds = round;
	}
	return c;
}

/* Median over the configurations of purpose \p p of round \p round's time over their
 * fastest; NAN when none ran then. \p count gets how many. */
static double round_factor(const struct cfg *c, size_t n, int p, int round, double *buf,
			   size_t *count)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (c[k].purpose == p && c[k].round_s[round] > 0.0)
			buf[m++] = c[k].round_s[round] / c[k].best;
	*count = m;
	return m ? nbw_median(buf, m) : NAN;
}

void nbw_report_solver_drift(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	struct nbw_rtable *t = NULL;
	double lo = INFINITY, hi = 0.0, part_gap = 0.0;
	int slow_rounds = 0, all_rounds = 0;
	char gap_round[32] = "-";
	for (size_t f = 0; f < in->nfiles; f++) {
		size_t n;
		int rounds;
		struct cfg *c = configurations(in->solver_runs, (int)f, &n, &rounds);
		double *buf = malloc((n + 1) * sizeof(double));
		if (!buf || rounds < 2) {
			free(c);
			free(buf);
			continue;
		}
		if (!t) {
			const char *h[] = {"file", "round", "validation", "calibration",
					   "compute-only", "configurations", "verdict"};
			t = nbw_rtable_new("solver-drift", 7, h);
			nbw_rtable_csv_names(t, (const char *const[]){
							"file", "round", "validation_x",
							"calibration_x", "compute_only_x",
							"configurations", "verdict"});
		}
		for (int round = 1; round <= rounds; round++) {
			double x[3], rlo = INFINITY, rhi = 0.0;
			size_t cnt = 0, k;
			for (int p = 0; p < 3; p++) {
				x[p] = round_factor(c, n, p, round, buf, &k);
				cnt += k;
				if (!isnan(x[p])) {
					rlo = fmin(rlo, x[p]);
					rhi = fmax(rhi, x[p]);
				}
			}
			if (!cnt)
				continue;
			all_rounds++;
			nbw_rtable_cell(t, "%zu", f + 1);
			char lbl[32], num[16]; /* the terminal's numbering; the CSV keeps the record's */
			nbw_round_label(in->docs[f], round, lbl, sizeof(lbl));
			snprintf(num, sizeof(num), "%d", round);
			nbw_rtable_cellc(t, num, "%s", lbl);
			for (int p = 0; p < 3; p++)
				if (isnan(x[p]))
					nbw_rtable_cell(t, "-");
				else
					nbw_rtable_cell(t, "%.2fx", x[p]);
			nbw_rtable_cell(t, "%zu", cnt);
			bool slow = rhi > DRIFT_FLOOR;
			slow_rounds += slow;
			if (slow)
				nbw_rtable_cell(t, "slower than the floor (up to %.2fx)", rhi);
			else
				nbw_rtable_cell(t, "at the floor");
			nbw_rtable_end_row(t);
			lo = fmin(lo, rlo);
			hi = fmax(hi, rhi);
			if (rhi / rlo > part_gap) {
				part_gap = rhi / rlo;
				nbw_round_label(in->docs[f], round, gap_round, sizeof(gap_round));
			}
		}
		free(c);
		free(buf);
	}
	if (!t)
		return;
	nbw_rdoc_heading(r, 3, "The machine's own speed during the solver rounds");
	nbw_rdoc_para(r, "%d of %d rounds were slower than the floor by more than %.0f %% "
			 "(median over their configurations %.2fx to %.2fx). Within one round the "
			 "parts differed by up to %.2fx (round %s). The configurations of a round "
			 "are slowed alike when the machine itself changes speed (memory bandwidth "
			 "taken by other guests of the host, CPU frequency), which the disturbance "
			 "counters above cannot see. Each configuration takes its fastest round, so "
			 "calibration and validation are compared at the floor only when both "
			 "reached it; where they did not, the models' errors hold the drift.",
		      slow_rounds, all_rounds, 100 * (DRIFT_FLOOR - 1.0), lo, hi, part_gap, gap_round);
	nbw_rdoc_table(r, t, "Per round of the solver stage and purpose of its runs: the median "
			     "over the configurations of the round's time over that "
			     "configuration's fastest round (1.00x = the floor). Extra rounds re-run "
			     "only the configurations whose rounds disagreed.");
}
