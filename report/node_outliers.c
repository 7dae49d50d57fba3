/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole node, part 3: the outliers of nbw_analysis_outliers as a table with their
 * reasons, or the sentence "No outliers" with the rule; then the groups the median rule
 * did not judge (host memory, or fewer than NBW_OUTLIER_MIN_GROUP members).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/products.h"
#include "nodebw/sizes.h"
#include "node_priv.h"
#include "rdoc_priv.h"

static void num_cell(struct nbw_rtable *t, double v, const char *fmt, double scale)
{
	if (isfinite(v))
		nbw_rtable_cell(t, fmt, v * scale);
	else
		nbw_rtable_cell(t, "-");
}

static void outlier_table(struct nbw_rdoc *r, json_t *outliers, const char *tag)
{
	static const char *const hdr[] = {
		"what", "where", "api", "direction", "mode", "host memory", "peer access",
		"link", "GB/s", "peer median GB/s", "theoretical GB/s", "% of theoretical",
		"rules", "reason",
	};
	char name[64];
	static const char *const csv[] = {
		"what", "where", "api", "direction", "mode", "host_mem", "peer_access", "link",
		"gbps", "peer_median_gbps", "theoretical_gbps", "theoretical_pct", "rules",
		"reason",
	};
	snprintf(name, sizeof(name), "%soutliers", tag);
	struct nbw_rtable *t = nbw_rtable_new(name, sizeof(hdr) / sizeof(hdr[0]), hdr);
	nbw_rtable_csv_names(t, csv);
	size_t i;
	json_t *j;
	json_array_foreach(outliers, i, j) {
		struct nbw_pv_outlier o;
		nbw_pv_outlier(j, &o);
		nbw_rtable_cell(t, "%s", o.what);
		nbw_rtable_cell(t, "%s", o.where);
		nbw_rtable_cell(t, "%s", o.api);
		nbw_rtable_cell(t, "%s", o.direction);
		nbw_rtable_cell(t, "%s", o.mode);
		nbw_rtable_cell(t, "%s", o.host_mem);
		nbw_rtable_cell(t, "%s", o.peer_access);
		nbw_rtable_cell(t, "%s", o.link);
		num_cell(t, o.gbps, "%.2f", 1.0);
		num_cell(t, o.peer_median_gbps, "%.2f", 1.0);
		num_cell(t, o.theoretical_gbps, "%.1f", 1.0);
		num_cell(t, o.fraction, "%.1f", 100.0);
		nbw_rtable_cell(t, "%s", o.rules);
		nbw_rtable_cell(t, "%s", o.reason);
		nbw_rtable_end_row(t);
	}
	char cap[600];
	snprintf(cap, sizeof(cap), "Outliers: GB/s = 1e9 B/s at the comparison size; "
				   "where: a device, two devices at once (0+1), a pair one way "
				   "(3->6) or both ways at once (3<->6); rule: %s", NBW_OUTLIER_RULE);
	nbw_rdoc_table(r, t, cap);
}

static void groups_table(struct nbw_rdoc *r, json_t *groups, const char *tag)
{
	size_t small = 0, i;
	json_t *j;
	struct nbw_pv_group g;
	json_array_foreach(groups, i, j)
		small += nbw_pv_group(j, &g) && !g.median_rule;
	size_t n = json_array_size(groups);
	if (small == 0) {
		nbw_rdoc_para(r, "The median rule judged all %zu groups of like measurements.", n);
		return;
	}
	if (small)
		nbw_rdoc_item(r, "%zu of %zu groups have fewer than %d members: the median rule "
				 "was not applied to them, only the theoretical rule where a "
				 "theoretical figure is known.", small, n, NBW_OUTLIER_MIN_GROUP);
	static const char *const hdr[] = {
		"api", "direction", "mode", "host memory", "concurrency", "peer access", "bytes",
		"link", "members", "median GB/s", "why not judged",
	};
	char name[64];
	static const char *const csv[] = {
		"api", "direction", "mode", "host_mem", "concurrency", "peer_access", "bytes",
		"link", "members", "median_gbps", "why_not_judged",
	};
	snprintf(name, sizeof(name), "%soutlier-groups-not-judged", tag);
	struct nbw_rtable *t = nbw_rtable_new(name, sizeof(hdr) / sizeof(hdr[0]), hdr);
	nbw_rtable_csv_names(t, csv);
	json_array_foreach(groups, i, j) {
		if (!nbw_pv_group(j, &g) || g.median_rule)
			continue;
		nbw_rtable_cell(t, "%s", g.api);
		nbw_rtable_cell(t, "%s", g.direction);
		nbw_rtable_cell(t, "%s", g.mode);
		nbw_rtable_cell(t, "%s", g.host_mem);
		nbw_rtable_cell(t, "%s", g.concurrency);
		nbw_rtable_cell(t, "%s", g.peer_access);
		char sz[32];
		double b = g.bytes >= 0 ? (double)g.bytes : NAN;
		nbw_rtable_cellv(t, b, "%s",
				 nbw_size_label((uint64_t)fmax(0.0, (double)g.bytes), sz, sizeof(sz)));
		nbw_rtable_cell(t, "%s", g.link);
		nbw_rtable_cell(t, "%d", g.members);
		num_cell(t, g.median_gbps, "%.2f", 1.0);
		nbw_rtable_cell(t, "%s", g.note);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Groups of like measurements the median rule did not judge "
			     "(GB/s = 1e9 B/s, at the comparison size)");
}

void nbw_node_outliers(struct nbw_rdoc *r, json_t *outliers, json_t *groups, const char *tag,
		       int level)
{
	nbw_rdoc_heading(r, level, "Outliers");
	nbw_rdoc_para(r, "Rule: %s. Each series is judged at the comparison size; like "
			 "is compared with like (api, direction, mode, host memory, concurrency, "
			 "peer access, size and link kind); the median rule needs a group of at "
			 "least %d and compares a member with the median of the others; the "
			 "theoretical rule needs a theoretical figure. Same-device copies are not "
			 "peer links and are left out.", NBW_OUTLIER_RULE, NBW_OUTLIER_MIN_GROUP);
	if (json_array_size(outliers) == 0)
		nbw_rdoc_para(r, "No outliers: no device or pair is more than 10 %% below the "
				 "median of its peers of the same link kind, or below 70 %% of its "
				 "theoretical figure.");
	else
		outlier_table(r, outliers, tag);
	groups_table(r, groups, tag);
}
