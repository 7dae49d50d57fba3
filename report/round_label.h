/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One numbering of nodebw run's solver rounds in the report, the terminal's: a planned round
 * by its number ("round 6", the terminal's "solver round 6/9"), a round that re-ran the
 * unstable configurations as "extra round K" (the terminal's "extra round K of at most M"),
 * whatever number results.json recorded for it. The run records extra rounds after the
 * planned count, also when its time limit stopped the planned rounds early (the 4th extra
 * round after 6 of 9 planned rounds is recorded as 13); K is the rank of the recorded number
 * among the numbers past "rounds_run" that the solver runs and the speed references hold.
 * Header only: used by the drift table and the speed reference table.
 */
#ifndef NODEBW_REPORT_ROUND_LABEL_H
#define NODEBW_REPORT_ROUND_LABEL_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/results_view.h"

/* The round number of a speed reference taken "solver round N", or 0. */
static inline int nbw_round_of_at(const char *at)
{
	int n = 0;
	return at && sscanf(at, "solver round %d", &n) == 1 ? n : 0;
}

/* The K of "extra round K" for recorded round \p round of results document \p doc, or 0
 * when it is a planned round (or the document does not say how many ran). */
static inline int nbw_round_extra(json_t *doc, int round)
{
	struct nbw_rv_doc d;
	json_t *x;
	nbw_rv_doc_read(doc, &d);
	if (d.rounds_run < 0 || round <= d.rounds_run)
		return 0;
	int ran = d.rounds_run, below[64] = {0}, k = 1;
	size_t i;
	json_array_foreach(d.solver_runs, i, x) {
		struct nbw_rv_solver_run v;
		nbw_rv_solver_read(x, &v);
		int n = v.round;
		if (n > ran && n < round && n - ran < 64)
			below[n - ran] = 1;
	}
	json_array_foreach(d.speed_reference, i, x) {
		struct nbw_rv_speedpoint sp;
		nbw_rv_speedpoint_read(x, &sp);
		int n = nbw_round_of_at(sp.at);
		if (n > ran && n < round && n - ran < 64)
			below[n - ran] = 1;
	}
	for (int j = 1; j < 64; j++)
		k += below[j];
	return k;
}

/* "6" or "extra round 4" for recorded round \p round. */
static inline void nbw_round_label(json_t *doc, int round, char *out, size_t len)
{
	int k = nbw_round_extra(doc, round);
	if (k)
		snprintf(out, len, "extra round %d", k);
	else
		snprintf(out, len, "%d", round);
}

#endif
