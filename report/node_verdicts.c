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
}

void nbw_report_verdict(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rv_doc doc;
		nbw_rv_doc_read(in->docs[f], &doc);
		json_t *vj = nbw_verdicts(doc.devices, doc.measurements, in->criteria);
		if (!vj)
			continue;
		struct nbw_pv_verdicts v;
		nbw_pv_verdicts(vj, &v);
		char who[4200] = "", text[6000];
		if (in->nfiles > 1)
			snprintf(who, sizeof(who), " (%s)", in->paths[f]);
		int judged = v.pass + v.below_threshold + v.below_reference;
		int failed = v.below_threshold + v.below_reference;
		int kind;
		if (judged == 0) {
			kind = -1;
			snprintf(text, sizeof(text), "Verdict%s: nothing judged, so no pass. None "
				 "of the %zu paths has a limit to be held against (why: the node's detail, "
				 "under Verdicts).", who, v.npaths);
		} else if (failed) {
			kind = 0;
			snprintf(text, sizeof(text), "Verdict%s: does not pass. %d of the %d judged "
				 "paths fall short (%d below a site threshold, %d below a published "
				 "or theoretical figure); %d not judged. Each failed judgement is in "
				 "the node's detail, under Verdicts.", who, failed, judged,
				 v.below_threshold, v.below_reference, v.not_judged);
		} else {
			kind = 1;
			snprintf(text, sizeof(text), "Verdict%s: passes. All %d judged paths reach "
				 "their limits; %d not judged.", who, judged, v.not_judged);
		}
		nbw_rdoc_verdict(r, kind, text);
		json_decref(vj);
	}
}
