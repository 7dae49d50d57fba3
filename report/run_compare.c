/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report's comparison of two runs (`nodebw report A B`, exactly two results files):
 * the second against the first, path by path, as nbw_runcmp computes it (the same struct
 * `nodebw compare A B` prints), one table with its CSV (tables/run-compare.csv).
 */
#include <math.h>
#include <stdio.h>

#include "nodebw/report.h"
#include "nodebw/runcmp.h"
#include "nodebw/sizes.h"

static void gbps_cell(struct nbw_rtable *t, double v)
{
	if (isfinite(v))
		nbw_rtable_cellv(t, v, "%.2f", v);
	else
		nbw_rtable_cell(t, "-");
}

static void run_item(struct nbw_rdoc *r, const char *which, const struct nbw_rc_run *x)
{
	nbw_rdoc_item(r, "%s: %s (host %s, created %s, nodebw %s, revision %s)", which, x->file,
		      x->host[0] ? x->host : "unknown", x->created[0] ? x->created : "unknown",
		      x->version[0] ? x->version : "unknown",
		      x->revision[0] ? x->revision : "not recorded");
}

void nbw_report_run_compare(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	if (in->nfiles != 2)
		return;
	struct nbw_runcmp c;
	if (nbw_runcmp(in->docs[0], in->paths[0], in->docs[1], in->paths[1], &c) != 0) {
		nbw_rdoc_para(r, "The comparison of the two runs could not be made: out of memory.");
		return;
	}
	char sa[32] = "no size", sb[32] = "no size";
	if (c.a.comparison_bytes > 0)
		nbw_size_label((uint64_t)c.a.comparison_bytes, sa, sizeof(sa));
	if (c.b.comparison_bytes > 0)
		nbw_size_label((uint64_t)c.b.comparison_bytes, sb, sizeof(sb));
	nbw_rdoc_heading(r, 2, "Run B against run A");
	run_item(r, "A", &c.a);
	run_item(r, "B", &c.b);
	if (c.hosts_differ)
		nbw_rdoc_para(r, "Warning: A and B ran on different hosts (%s, %s): this compares "
				 "two machines, not one node over time.", c.a.host, c.b.host);
	nbw_rdoc_para(r, "Compared at %s, A's comparison size%s%s%s. Worse: %zu, better: %zu, "
			 "within noise: %zu, not judged: %zu, only in A: %zu, only in B: %zu. "
			 "Bandwidth in GB/s = 1e9 bytes per second; %s.", sa,
		      c.a.comparison_bytes != c.b.comparison_bytes ? " (B's own is " : "",
		      c.a.comparison_bytes != c.b.comparison_bytes ? sb : "",
		      c.a.comparison_bytes != c.b.comparison_bytes ? ")" : "",
		      c.counts[NBW_RC_WORSE], c.counts[NBW_RC_BETTER], c.counts[NBW_RC_SAME],
		      c.counts[NBW_RC_NO_INTERVAL], c.counts[NBW_RC_ONLY_A], c.counts[NBW_RC_ONLY_B],
		      NBW_RC_RULE);
	static const char *const h[] = { "verdict", "path", "size", "A GB/s", "A low", "A high",
					 "B GB/s", "B low", "B high", "B/A" };
	static const char *const csv[] = { "verdict", "path", "bytes", "a_gbps", "a_lo_gbps",
					   "a_hi_gbps", "b_gbps", "b_lo_gbps", "b_hi_gbps",
					   "ratio" };
	struct nbw_rtable *t = nbw_rtable_new("run-compare", sizeof(h) / sizeof(h[0]), h);
	nbw_rtable_csv_names(t, csv);
	for (size_t i = 0; i < c.npaths; i++) {
		const struct nbw_rc_path *p = &c.paths[i];
		char sz[32] = "-", csz[32] = "";
		if (p->bytes > 0) {
			nbw_size_label((uint64_t)p->bytes, sz, sizeof(sz));
			snprintf(csz, sizeof(csz), "%lld", p->bytes);
		}
		nbw_rtable_cell(t, "%s", nbw_rc_verdict_name(p->verdict));
		nbw_rtable_cell(t, "%s", p->name);
		nbw_rtable_cellc(t, csz[0] ? csz : NULL, "%s", sz);
		gbps_cell(t, p->a.gbps);
		gbps_cell(t, p->a.lo_gbps);
		gbps_cell(t, p->a.hi_gbps);
		gbps_cell(t, p->b.gbps);
		gbps_cell(t, p->b.lo_gbps);
		gbps_cell(t, p->b.hi_gbps);
		if (isfinite(p->ratio))
			nbw_rtable_cellv(t, p->ratio, "%.2f", p->ratio);
		else
			nbw_rtable_cell(t, "-");
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Every headline and summary path of B against A at A's comparison "
			     "size: the worse first (the worst first), then the better, the "
			     "unchanged and those only one run has there; low and high are the "
			     "figure's range (GB/s = 1e9 B/s).");
	nbw_runcmp_release(&c);
}
