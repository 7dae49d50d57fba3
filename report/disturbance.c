/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report's disturbance table: per results file and stage of nodebw run, what else
 * took the machine while the stage measured (results "disturbance", common/disturb.c), and
 * whether the stage counts as disturbed and why (thresholds in nodebw/disturb.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jget.h"
#include "nodebw/disturb.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"

static void reasons_str(json_t *st, char *buf, size_t len)
{
	size_t w = 0, i;
	json_t *x;
	buf[0] = '\0';
	json_array_foreach(json_object_get(st, "reasons"), i, x)
		if (json_is_string(x) && w < len)
			w += (size_t)snprintf(buf + w, len - w, "%s%s", w ? "; " : "",
					      json_string_value(x));
}

/* x at key times scale, or "-" where the counter was unavailable (null). */
static void num_cell(struct nbw_rtable *t, json_t *st, const char *key, double scale,
		     const char *fmt)
{
	double x = jnum(st, key);
	if (isnan(x))
		nbw_rtable_cell(t, "-");
	else
		nbw_rtable_cell(t, fmt, scale * x);
}

static void env_para(struct nbw_rdoc *r, json_t *env, const char *file)
{
	json_t *thp = json_object_get(env, "transparent_hugepage");
	nbw_rdoc_para(r, "%s: %d CPUs online; transparent huge pages %s (defrag %s); CPU "
			 "frequency governors: %s; %d kdamond (DAMON) thread%s.",
		      file, jint(env, "cpus_online", 0), jstr(thp, "enabled"), jstr(thp, "defrag"),
		      jstr(env, "cpufreq_governors"), jint(env, "kdamond_threads", 0),
		      jint(env, "kdamond_threads", 0) == 1 ? "" : "s");
}

/* The stages of a results document's disturbance record (or NULL). */
static json_t *stages_of(json_t *root)
{
	struct nbw_rv_doc doc;
	nbw_rv_doc_read(root, &doc);
	return json_object_get(doc.disturbance, "stages"); /* view lacks the stages */
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
		json_t *d = doc.disturbance, *st;
		size_t i;
		if (!d)
			continue;
		/* view lacks the disturbance's environment and stages (their inner keys) */
		env_para(r, json_object_get(d, "environment"), in->paths[f]);
		json_array_foreach(json_object_get(d, "stages"), i, st) {
			char why[400];
			reasons_str(st, why, sizeof(why));
			nbw_rtable_cell(t, "%zu", f + 1);
			nbw_rtable_cell(t, "%s", jstr(st, "stage"));
			nbw_rtable_cell(t, "%.1f", jnum(st, "seconds"));
			nbw_rtable_cell(t, "%.2f -> %.2f", jnum(st, "load_avg_start"),
					jnum(st, "load_avg_end"));
			num_cell(t, st, "other_cpu_share", 100.0, "%.1f%%");
			num_cell(t, st, "steal_share", 100.0, "%.1f%%");
			num_cell(t, st, "kdamond_share_of_one_cpu", 100.0, "%.1f%%");
			num_cell(t, st, "reclaim_scanned_pages", 1.0, "%.0f");
			num_cell(t, st, "reclaim_direct_scanned_pages", 1.0, "%.0f");
			num_cell(t, st, "compact_stalls", 1.0, "%.0f");
			num_cell(t, st, "thp_fault_alloc", 1.0, "%.0f");
			nbw_rtable_cell(t, "%s%s", json_is_true(json_object_get(st, "disturbed"))
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
