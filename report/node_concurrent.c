/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole node, part 3: every device at once (host-to-all, all-to-host), the P2P ring and
 * all-to-all, as nbw_analysis_concurrent gives them: the aggregate against the sum of each stream alone,
 * the sum of the links' theoretical figures and the host memory measured alone, the bound
 * those support (none where the aggregate exceeds them) and what was measured, in words.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/sizes.h"

#include "nodebw/analysis.h"
#include "nodebw/products.h"
#include "node_priv.h"
#include "rdoc_priv.h"

static void num_cell(struct nbw_rtable *t, double v, const char *fmt, double scale)
{
	if (isfinite(v))
		nbw_rtable_cell(t, fmt, v * scale);
	else
		nbw_rtable_cell(t, "-");
}

static void endpoint(char *buf, size_t len, int id)
{
	if (id >= 0)
		snprintf(buf, len, "%d", id);
	else
		snprintf(buf, len, "host");
}

void nbw_node_concurrent(struct nbw_rdoc *r, json_t *rows, const char *tag, int level)
{
	if (json_array_size(rows) == 0)
		return;
	nbw_rdoc_heading(r, level, "Every device at once");
	nbw_rdoc_para(r, "Host to every device at once, every device to the host at once, "
			 "the ring in which every device sends to the next (the halo exchange of "
			 "the solver's Version 4 in one direction), one host thread per device, and "
			 "all-to-all, every ordered pair at once from one host thread each. "
			 "Scaling below 1 means the copies slow each other down. The references are "
			 "the links' theoretical sum and the host memory measured alone (the host "
			 "backend's one copy over every core); the lower one the aggregate stays "
			 "within is named the bound, and where the aggregate exceeds a reference the "
			 "table says so instead of calling it a bound.");
	static const char *const hdr[] = {
		"pattern", "api", "mode", "host memory", "peer access", "devices", "bytes",
		"aggregate GB/s", "sum alone GB/s", "scaling", "links GB/s", "% of links",
		"host memory alone GB/s", "% of host memory alone", "bound", "measured",
		"slowest stream", "slowest GB/s",
	};
	char name[64];
	snprintf(name, sizeof(name), "%sall-at-once", tag);
	static const char *const csv[] = {
		"pattern", "api", "mode", "host_mem", "peer_access", "devices", "bytes",
		"aggregate_gbps", "alone_sum_gbps", "scaling", "links_gbps", "links_pct",
		"host_memory_gbps", "host_memory_pct", "bound", "verdict", "slowest_stream",
		"slowest_gbps",
	};
	struct nbw_rtable *t = nbw_rtable_new(name, sizeof(hdr) / sizeof(hdr[0]), hdr);
	nbw_rtable_csv_names(t, csv);
	size_t i;
	json_t *j;
	json_array_foreach(rows, i, j) {
		struct nbw_pv_conc o;
		nbw_pv_conc(j, &o);
		nbw_rtable_cell(t, "%s", o.pattern);
		nbw_rtable_cell(t, "%s", o.api);
		nbw_rtable_cell(t, "%s", o.mode);
		nbw_rtable_cell(t, "%s", o.host_mem);
		nbw_rtable_cell(t, "%s", o.peer_access);
		nbw_rtable_cell(t, "%zu", o.ndevices);
		char sz[32];
		nbw_rtable_cellv(t, o.bytes >= 0 ? (double)o.bytes : NAN, "%s",
				 nbw_size_label((uint64_t)fmax(0.0, (double)o.bytes), sz, sizeof(sz)));
		num_cell(t, o.aggregate_gbps, "%.2f", 1.0);
		num_cell(t, o.alone_sum_gbps, "%.2f", 1.0);
		num_cell(t, o.scaling, "%.2f", 1.0);
		num_cell(t, o.links_theoretical_gbps, "%.1f", 1.0);
		num_cell(t, o.fraction_of_links, "%.1f", 100.0);
		num_cell(t, o.host_memory_limit_gbps, "%.2f", 1.0);
		num_cell(t, o.fraction_of_host_limit, "%.1f", 100.0);
		if (*o.bound)
			nbw_rtable_cell(t, "%s", o.bound);
		else
			nbw_rtable_cellc(t, "", "-"); /* empty in the CSV file */
		nbw_rtable_cell(t, "%s", o.verdict);
		char a[16], b[16];
		endpoint(a, sizeof(a), o.slowest_src);
		endpoint(b, sizeof(b), o.slowest_dst);
		nbw_rtable_cell(t, "%s->%s", a, b);
		num_cell(t, o.slowest_gbps, "%.2f", 1.0);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t,
		       "Every device at once: GB/s = 1e9 B/s at the comparison size; aggregate = all "
		       "streams' bytes / wall time from the first start to the last end; sum "
		       "alone = each stream timed alone, added; links = sum of the streams' links' "
		       "theoretical figures (none for host memory); host memory alone = the "
		       "host backend's one copy over every core (mode parallel), measured alone; "
		       "bound = the lower of the two that the aggregate stays within (- = none)");
}
