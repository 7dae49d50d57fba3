/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report's disturbance table: per results file and stage of nodebw run, what else
 * took the machine while the stage measured (results "disturbance", common/disturb.c), and
 * whether the stage counts as disturbed and why (thresholds in nodebw/disturb.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/jget.h"
#include "nodebw/disturb.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"

static void reasons_str(const struct nbw_rv_stage *st, char *buf, size_t len)
{
	size_t w = 0, i;
	json_t *x;
	buf[0] = '\0';
	json_array_foreach(st->reasons, i, x)
		if (json_is_string(x) && w < len)
			w += (size_t)snprintf(buf + w, len - w, "%s%s", w ? "; " : "",
					      json_string_value(x));
}

/* x at key times scale, or "-" where the counter was unavailable (null). */
static void num_cell(struct nbw_rtable *t, double x, double scale, const char *fmt)
{
	if (isnan(x))
		nbw_rtable_cell(t, "-");
	else
		nbw_rtable_cell(t, fmt, scale * x);
}

static void env_para(struct nbw_rdoc *r, json_t *env, const char *file)
{
	struct nbw_rv_env e;
	nbw_rv_env_read(env, &e);
	nbw_rdoc_para(r, "%s: %d CPUs online; transparent huge pages %s (defrag %s); CPU "
			 "frequency governors: %s; %d kdamond (DAMON) thread%s.",
		      file, e.cpus_online, e.thp_enabled, e.thp_defrag, e.cpufreq_governors,
		      e.kdamond_threads, e.kdamond_threads == 1 ? "" : "s");
}

/* The stages of a results document's disturbance record (or NULL). */
static json_t *stages_of(json_t *root)
{
	struct nbw_rv_doc doc;
	nbw_rv_doc_read(root, &doc);
	return doc.stages;
}

void nbw_report_disturbance(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	size_t have = 0;
	for (size_t f = 0; f < in->nfiles; f++)
		have += json_array_size(stages_of(in->docs[f]));
	if (!have)
		return;
	nbw_rdoc_heading(r, 3, "Disturbance during the run");
	const char *h[] = {"file", "stage", "seconds", "load avg start -> end",
			   "other processes' CPU", "steal", "kdamond (of one CPU)",
			   "reclaim scanned", "direct reclaim scanned", "compaction stalls",
			   "THP faults", "verdict"};
	struct nbw_rtable *t = nbw_rtable_new("disturbance", 12, h);
	nbw_rtable_csv_names(t, (const char *const[]){"file", "stage", "seconds", "load_avg",
						       "other_cpu_share_pct", "steal_share_pct",
						       "kdamond_share_pct", "reclaim_scanned",
						       "reclaim_direct_scanned", "compact_stalls",
						       "thp_faults", "verdict"});
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rv_doc doc;
		nbw_rv_doc_read(in->docs[f], &doc);
		json_t *st;
		size_t i;
		if (!doc.disturbance)
			continue;
		env_para(r, doc.environment, in->paths[f]);
		json_array_foreach(doc.stages, i, st) {
			struct nbw_rv_stage s;
			nbw_rv_stage_read(st, &s);
			char why[400];
			reasons_str(&s, why, sizeof(why));
			nbw_rtable_cell(t, "%zu", f + 1);
			nbw_rtable_cell(t, "%s", s.stage);
			nbw_rtable_cell(t, "%.1f", s.seconds);
			nbw_rtable_cell(t, "%.2f -> %.2f", s.load_avg_start, s.load_avg_end);
			num_cell(t, s.other_cpu_share, 100.0, "%.1f%%");
			num_cell(t, s.steal_share, 100.0, "%.1f%%");
			num_cell(t, s.kdamond_share, 100.0, "%.1f%%");
			num_cell(t, s.reclaim_scanned, 1.0, "%.0f");
			num_cell(t, s.reclaim_direct_scanned, 1.0, "%.0f");
			num_cell(t, s.compact_stalls, 1.0, "%.0f");
			num_cell(t, s.thp_faults, 1.0, "%.0f");
			nbw_rtable_cell(t, "%s%s", s.disturbed
							    ? "disturbed: "
							    : "quiet",
					why);
			nbw_rtable_end_row(t);
		}
	}
	char cap[1024];
	snprintf(cap, sizeof(cap),
		 "Per stage of nodebw run: what else used the machine while it measured "
		 "(common/disturb.c). A stage counts as disturbed when other processes took more "
		 "than %.0f %% of the CPU time, steal more than %.0f %%, kdamond more than %.0f %% "
		 "of one CPU, or there was direct reclaim or a compaction stall; its figures may "
		 "then be slower than the machine is. The pre-run check is a second of nodebw "
		 "doing nothing: disturbed there means the machine was not idle at the start. "
		 "The load average is shown, not judged (it holds what ran a minute before).",
		 100 * NBW_DISTURB_OTHER_SHARE, 100 * NBW_DISTURB_STEAL_SHARE,
		 100 * NBW_DISTURB_KDAMOND_SHARE);
	nbw_rdoc_table(r, t, cap);
}
