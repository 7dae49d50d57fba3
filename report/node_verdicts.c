/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole node, part 4: the verdicts of `nodebw check` (analysis/verdicts.c, the same
 * function and criteria): the counts, the rule, and a table of every path that did not
 * pass, each judgement that failed with its limit and source; the paths not judged by
 * reason.
 */
#include <stdio.h>
#include <string.h>

#include "nodebw/jget.h"
#include "nodebw/verdict.h"
#include "node_priv.h"
#include "rdoc_priv.h"

static void verdict_rows(struct nbw_rtable *t, json_t *p)
{
	size_t k;
	json_t *j;
	json_array_foreach(json_object_get(p, "judgements"), k, j) {
		const char *v = jstr(j, "verdict");
		if (!strcmp(v, "pass") || !strcmp(v, "not judged"))
			continue;
		nbw_rtable_cell(t, "%s", v);
		nbw_rtable_cell(t, "%s %s %s %s", jstr(p, "api"), jstr(p, "direction"),
				jstr(p, "concurrency"), jstr(p, "where"));
		nbw_rtable_cell(t, "%s", jstr(p, "link"));
		nbw_rtable_cellv(t, jnum(j, "gbps"), "%.2f", jnum(j, "gbps"));
		nbw_rtable_cellv(t, jnum(j, "limit_gbps"), "%.2f", jnum(j, "limit_gbps"));
		nbw_rtable_cell(t, "%s: %s", jstr(j, "against"), jstr(j, "what"));
		nbw_rtable_cell(t, "%s", jstr(j, "source"));
		nbw_rtable_end_row(t);
	}
}

void nbw_node_verdicts(struct nbw_rdoc *r, json_t *v, const char *tag, int level)
{
	static const char *const hdr[] = { "verdict", "path", "link", "GB/s", "limit GB/s",
					   "against", "source" };
	static const char *const csv[] = { "verdict", "path", "link", "gbps", "limit_gbps",
					   "against", "source" };
	json_t *c = json_object_get(v, "counts"), *paths = json_object_get(v, "paths");
	nbw_rdoc_heading(r, level, "Verdicts");
	const char *tf = jstr(v, "thresholds_file"), *rf = jstr(v, "references_file");
	nbw_rdoc_para(r, "`nodebw check`'s verdicts (GB/s = 1e9 B/s): %zu paths, %d pass, %d "
			 "below a site threshold, %d below a published or theoretical figure, %d "
			 "not judged. Rule: %s. Site thresholds: %s; published figures: %s "
			 "(doc/references.md).",
		      json_array_size(paths), jint(c, "pass", 0), jint(c, "below threshold", 0),
		      jint(c, "below reference", 0), jint(c, "not judged", 0), jstr(v, "rule"),
		      tf[0] ? tf : "none given", rf[0] ? rf : "none");
	size_t i, rows = 0;
	json_t *p;
	json_array_foreach(paths, i, p)
		rows += strcmp(jstr(p, "verdict"), "pass") && strcmp(jstr(p, "verdict"), "not judged");
	if (rows) {
		char name[64];
		snprintf(name, sizeof(name), "%sverdicts", tag);
		struct nbw_rtable *t = nbw_rtable_new(name, sizeof(hdr) / sizeof(hdr[0]), hdr);
		nbw_rtable_csv_names(t, csv);
		json_array_foreach(paths, i, p)
			verdict_rows(t, p);
		nbw_rdoc_table(r, t, "Every judgement that failed, one row each (a path can fail "
				     "several); the limit is the threshold, or the share of a "
				     "published figure or of the link's theoretical figure that "
				     "passes.");
	}
	json_array_foreach(paths, i, p) {
		if (strcmp(jstr(p, "verdict"), "not judged"))
			continue;
		nbw_rdoc_item(r, "not judged, e.g. %s %s %s: %s", jstr(p, "api"),
			      jstr(p, "direction"), jstr(p, "where"), jstr(p, "reason"));
		break;
	}
}
