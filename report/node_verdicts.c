/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole node, part 4: the verdicts of `nodebw check` (analysis/verdicts.c, the same
 * function and criteria): the counts, the rule, and a table of every path that did not
 * pass, each judgement that failed with its limit and source; the paths not judged by
 * reason.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/link_health.h"
#include "nodebw/results_view.h"
#include "nodebw/verdict.h"
#include "node_priv.h"
#include "rdoc_priv.h"

static void verdict_rows(struct nbw_rtable *t, const struct nbw_pv_vpath *p)
{
	struct nbw_pv_judgement j;
	for (size_t k = 0; nbw_pv_judgement(p, k, &j); k++) {
		if (!strcmp(j.verdict, "pass") || !strcmp(j.verdict, "not judged"))
			continue;
		nbw_rtable_cell(t, "%s", j.verdict);
		if (isfinite(p->bidir_sum_gbps)) /* both figures of both directions at once */
			nbw_rtable_cell(t, "%s %s %s %s (sum %.2f GB/s; %d->%d %.2f, %d->%d %.2f "
					"GB/s)", p->api, p->direction, p->concurrency, p->where,
					p->bidir_sum_gbps, p->bidir_src[0], p->bidir_dst[0],
					p->bidir_dir_gbps[0], p->bidir_src[1], p->bidir_dst[1],
					p->bidir_dir_gbps[1]);
		else
			nbw_rtable_cell(t, "%s %s %s %s", p->api, p->direction, p->concurrency,
					p->where);
		nbw_rtable_cell(t, "%s", p->link);
		nbw_rtable_cellv(t, j.gbps, "%.2f", j.gbps);
		nbw_rtable_cellv(t, j.limit_gbps, "%.2f", j.limit_gbps);
		nbw_rtable_cell(t, "%s: %s", j.against, j.what);
		nbw_rtable_cell(t, "%s", j.source);
		nbw_rtable_end_row(t);
	}
}

/* The links' health beside the bandwidth (analysis/link_health.c): the counts, then every
 * entry that did not pass. */
static void link_health_table(struct nbw_rdoc *r, json_t *vj, const char *tag)
{
	static const char *const hdr[] = { "verdict", "device", "aspect", "link", "reason",
					   "rule", "source" };
	struct nbw_pv_lh_counts c;
	nbw_pv_link_health_counts(vj, &c);
	if (!c.present)
		return;
	nbw_rdoc_para(r, "Link health (what each GPU's links report about themselves, read when "
			 "the results were taken): %d pass, %d fail, %d warning, %d not judged; "
			 "limits: %s. A failing entry fails the node.",
		      c.pass, c.fail, c.warning, c.not_judged, c.limits);
	if (c.fail + c.warning == 0)
		return;
	char name[64];
	snprintf(name, sizeof(name), "%slink-health", tag);
	struct nbw_rtable *t = nbw_rtable_new(name, sizeof(hdr) / sizeof(hdr[0]), hdr);
	struct nbw_pv_lh e;
	for (size_t i = 0; nbw_pv_link_health(vj, i, &e); i++) {
		if (strcmp(e.verdict, "fail") && strcmp(e.verdict, "warning"))
			continue;
		nbw_rtable_cell(t, "%s", e.verdict);
		nbw_rtable_cell(t, "%s", e.device);
		nbw_rtable_cell(t, "%s", e.aspect);
		nbw_rtable_cell(t, "%s", e.link);
		nbw_rtable_cell(t, "%s", e.reason);
		nbw_rtable_cell(t, "%s", e.rule);
		nbw_rtable_cell(t, "%s", e.source);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Every link-health entry that failed or warned, with its rule and "
			     "the source of its limit.");
}

void nbw_node_verdicts(struct nbw_rdoc *r, json_t *vj, const char *tag, int level)
{
	static const char *const hdr[] = { "verdict", "path", "link", "GB/s", "limit GB/s",
					   "against", "source" };
	static const char *const csv[] = { "verdict", "path", "link", "gbps", "limit_gbps",
					   "against", "source" };
	struct nbw_pv_verdicts v;
	nbw_pv_verdicts(vj, &v);
	nbw_rdoc_heading(r, level, "Verdicts");
	const char *tf = v.thresholds_file, *rf = v.references_file;
	nbw_rdoc_para(r, "`nodebw check`'s verdicts (GB/s = 1e9 B/s): %zu paths, %d pass, %d "
			 "below a site threshold, %d below a published or theoretical figure, %d "
			 "not judged. Rule: %s. Site thresholds: %s; published figures: %s "
			 "(doc/references.md).",
		      v.npaths, v.pass, v.below_threshold, v.below_reference, v.not_judged, v.rule,
		      tf[0] ? tf : "none given", rf[0] ? rf : "none");
	size_t rows = 0;
	struct nbw_pv_vpath p;
	for (size_t i = 0; nbw_pv_vpath(&v, i, &p); i++)
		rows += strcmp(p.verdict, "pass") && strcmp(p.verdict, "not judged");
	if (rows) {
		char name[64];
		snprintf(name, sizeof(name), "%sverdicts", tag);
		struct nbw_rtable *t = nbw_rtable_new(name, sizeof(hdr) / sizeof(hdr[0]), hdr);
		nbw_rtable_csv_names(t, csv);
		for (size_t i = 0; nbw_pv_vpath(&v, i, &p); i++)
			verdict_rows(t, &p);
		nbw_rdoc_table(r, t, "Every judgement that failed, one row each (a path can fail "
				     "several); the limit is the threshold, or the share of a "
				     "published figure or of the link's theoretical figure that "
				     "passes.");
	}
	for (size_t i = 0; nbw_pv_vpath(&v, i, &p); i++) {
		if (strcmp(p.verdict, "not judged"))
			continue;
		nbw_rdoc_item(r, "not judged, e.g. %s %s %s: %s", p.api, p.direction, p.where,
			      p.reason);
		break;
	}
	link_health_table(r, vj, tag);
}

void nbw_report_verdict(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rv_doc doc;
		nbw_rv_doc_read(in->docs[f], &doc);
		json_t *vj = nbw_verdicts_node(in->docs[f], in->criteria);
		if (!vj)
			continue;
		struct nbw_pv_verdicts v;
		nbw_pv_verdicts(vj, &v);
		char who[4200] = "", text[6000];
		if (in->nfiles > 1)
			snprintf(who, sizeof(who), " (%s)", in->paths[f]);
		/* The outcome `nodebw check` gives (analysis/verdicts_outcome.c), never derived
		 * again here. */
		int judged = v.pass + v.warning + v.below_threshold + v.below_reference;
		int kind;
		const char *word;
		if (!strcmp(v.outcome, "fail")) {
			kind = 0;
			word = "does not pass";
		} else if (!strcmp(v.outcome, "pass")) {
			kind = 1;
			word = "passes";
		} else if (!strcmp(v.outcome, "warning")) {
			kind = 1;
			word = "passes with a warning";
		} else {
			kind = -1;
			word = "NOT JUDGED, so no pass";
		}
		snprintf(text, sizeof(text), "Verdict%s: %s: %s (%d of %zu paths judged; "
			 "detail: the node's Verdicts).", who, word, v.outcome_reason, judged,
			 v.npaths);
		nbw_rdoc_verdict(r, kind, text);
		json_decref(vj);
	}
}
