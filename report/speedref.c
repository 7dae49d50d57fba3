/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report's machine speed reference table: per results file, the fixed host work that
 * nodebw run timed at its start, after each stage and at the start of every solver round
 * (results "disturbance.speed_reference", common/speedref.c), and each figure against the
 * run's best. A machine that was slower throughout a run (another guest on the host, a
 * throttled clock or memory) shows it here, where the drift table (relative to the run's
 * own fastest round) and the disturbance counters cannot; between runs or nodes, the
 * figures compare directly.
 */
#include <math.h>
#include <stdio.h>

#include "nodebw/jget.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/speedref.h"
#include "round_label.h"

/* "1.07x" slower than the best, or "-". */
static void ratio_cell(struct nbw_rtable *t, double slower)
{
	if (isfinite(slower) && slower > 0.0)
		nbw_rtable_cell(t, "%.2fx", slower);
	else
		nbw_rtable_cell(t, "-");
}

/* The speed reference's records of a results document (or NULL), and how they were taken in
 * \p method ("" when not recorded). */
static json_t *speedref_list(json_t *root, const char **method)
{
	struct nbw_rv_doc doc;
	nbw_rv_doc_read(root, &doc);
	if (method)
		*method = doc.speed_reference_method;
	return doc.speed_reference;
}

void nbw_report_speed_reference(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	size_t have = 0;
	for (size_t f = 0; f < in->nfiles; f++)
		have += json_array_size(speedref_list(in->docs[f], NULL));
	if (!have)
		return;
	nbw_rdoc_heading(r, 3, "Machine speed reference");
	const char *h[] = {"file", "taken", "elapsed s", "core ns/step", "cache GB/s",
			   "memory GB/s", "core vs best", "cache vs best", "memory vs best",
			   "verdict"};
	struct nbw_rtable *t = nbw_rtable_new("speed-reference", 10, h);
	nbw_rtable_csv_names(t, (const char *const[]){"file", "at", "elapsed_s",
						       "core_ns_per_step", "cache_gbps",
						       "memory_gbps", "core_slower", "cache_slower",
						       "memory_slower", "verdict"});
	const char *method = NULL;
	for (size_t f = 0; f < in->nfiles; f++) {
		const char *how;
		json_t *list = speedref_list(in->docs[f], &how), *p;
		size_t i;
		if (!list)
			continue;
		if (!method && how[0])
			method = how;
		struct nbw_speedref b;
		nbw_speedref_best(list, &b);
		json_array_foreach(list, i, p) {
			struct nbw_rv_speedpoint sp;
			nbw_rv_speedpoint_read(p, &sp);
			nbw_rtable_cell(t, "%zu", f + 1);
			/* an extra round as the terminal says it; the CSV keeps the record's */
			int xr = nbw_round_extra(in->docs[f], nbw_round_of_at(sp.at));
			if (xr)
				nbw_rtable_cellc(t, sp.at, "solver extra round %d", xr);
			else
				nbw_rtable_cell(t, "%s", sp.at);
			nbw_rtable_cell(t, "%.1f", sp.elapsed_s);
			if (sp.error) {
				/* The measurement failed: say why once, in the figures' place. */
				nbw_rtable_cell(t, "failed: %s", sp.error);
				for (int k = 0; k < 6; k++)
					nbw_rtable_cell(t, "-");
				nbw_rtable_end_row(t);
				continue;
			}
			nbw_rtable_cell(t, "%.3f", sp.core_ns_per_step);
			nbw_rtable_cell(t, "%.1f", sp.cache_gbps);
			nbw_rtable_cell(t, "%.2f", sp.memory_gbps);
			double slower[3];
			nbw_speedref_slower(p, &b, slower);
			static const char *const kernel[3] = {"core", "cache", "memory"};
			char verdict[96];
			size_t w = 0;
			verdict[0] = '\0';
			for (int k = 0; k < 3; k++) {
				ratio_cell(t, slower[k]);
				if (slower[k] > NBW_SPEEDREF_AT_BEST && w < sizeof(verdict))
					w += (size_t)snprintf(verdict + w, sizeof(verdict) - w,
							      "%s%s %.2fx", w ? ", " : "slower: ",
							      kernel[k], slower[k]);
			}
			nbw_rtable_cell(t, "%s", w ? verdict : "at the run's best");
			nbw_rtable_end_row(t);
		}
	}
	char cap[1400];
	snprintf(cap, sizeof(cap),
		 "The machine's own speed during nodebw run, by work that owes nothing to the "
		 "measured paths (common/speedref.c; %s), timed with nothing else of nodebw "
		 "running: at the start, after each stage and as each solver round starts. "
		 "\"vs best\" is how much slower than the run's best (1.00x = its best); "
		 "\"slower\" where a kernel is more than %.2fx its best. A "
		 "virtual machine whose host is shared runs slower at times, and no counter of "
		 "the disturbance table sees it: the probes and solver runs near a slow reference "
		 "were measured on a slower machine. Between runs or nodes the figures compare "
		 "directly (scripts/model-repeatability.py sets them beside k-bar and beta).",
		 method ? method : "method not recorded", NBW_SPEEDREF_AT_BEST);
	nbw_rdoc_table(r, t, cap);
}
