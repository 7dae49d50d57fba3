/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole node, part 5: latency per path, the pointer chase's nanoseconds per dependent load
 * beside the 8 B copy's microseconds (nbw_analysis_latency, the table of `nodebw matrix`).
 */
#include <math.h>
#include <stdio.h>

#include "nodebw/analysis.h"
#include "nodebw/products.h"
#include "node_priv.h"
#include "rdoc_priv.h"

static void cell(struct nbw_rtable *t, double v, const char *fmt)
{
	if (isfinite(v))
		nbw_rtable_cellv(t, v, fmt, v);
	else
		nbw_rtable_cell(t, "-");
}

static void where(char *buf, size_t len, int s, int d)
{
	char a[16], b[16];
	snprintf(a, sizeof(a), s < 0 ? "h" : "%d", s);
	snprintf(b, sizeof(b), d < 0 ? "h" : "%d", d);
	snprintf(buf, len, "%s->%s", a, b);
}

void nbw_node_latency(struct nbw_rdoc *r, json_t *rows, const char *tag, int level)
{
	static const char *const hdr[] = { "api", "direction", "host memory", "path",
					   "copy us (smallest size)", "copy B", "chase ns/load (small)",
					   "small set B", "chase ns/load (large)", "large set B",
					   "large set touched B" };
	static const char *const csv[] = { "api", "direction", "host_mem", "path", "copy_us",
					   "copy_us_bytes", "chase_small_ns", "chase_small_ns_bytes",
					   "chase_large_ns", "chase_large_ns_bytes",
					   "chase_large_touched_bytes" };
	if (json_array_size(rows) == 0)
		return;
	nbw_rdoc_heading(r, level, "Latency: pointer chase beside the smallest copy");
	nbw_rdoc_para(r, "Per path that has a chase measurement: the median time of one sync copy "
			 "at the smallest size measured (microseconds: the API's whole call, "
			 "issue to completion) and the chase's latency per dependent load "
			 "(nanoseconds: one device thread, or a host thread for DtoH, following a "
			 "random cycle of 64 B slots; the launch and wait cost removed by the slope "
			 "over a one-load transfer) at its smallest and largest working set. A large "
			 "set is walked only in part when a whole walk would take too long: its "
			 "touched bytes say how much.");
	char name[64], w[32];
	snprintf(name, sizeof(name), "%slatency", tag);
	struct nbw_rtable *t = nbw_rtable_new(name, sizeof(hdr) / sizeof(hdr[0]), hdr);
	nbw_rtable_csv_names(t, csv);
	size_t i;
	json_t *j;
	json_array_foreach(rows, i, j) {
		struct nbw_pv_latency row;
		nbw_pv_latency(j, &row);
		nbw_rtable_cell(t, "%s", row.api);
		nbw_rtable_cell(t, "%s", row.direction);
		nbw_rtable_cell(t, "%s", row.host_mem);
		where(w, sizeof(w), row.src, row.dst);
		nbw_rtable_cell(t, "%s", w);
		cell(t, row.copy_us, "%.2f");
		cell(t, row.copy_us_bytes, "%.0f");
		cell(t, row.chase_small_ns, "%.1f");
		cell(t, row.chase_small_ns_bytes, "%.0f");
		cell(t, row.chase_large_ns, "%.1f");
		cell(t, row.chase_large_ns_bytes, "%.0f");
		cell(t, row.chase_large_touched_bytes, "%.0f");
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Latency per path: copy microseconds and chase nanoseconds per load");
}
