/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "Whole node" section: per results file, the P2P matrices as heat maps and tables,
 * the per-device host<->device bars, and the outliers (analysis/, the same figures as
 * `nodebw matrix`). With several files each gets its own subsection: device ids of
 * different files are different devices.
 */
#include <stdio.h>

#include "nodebw/analysis.h"
#include "nodebw/curves.h"
#include "nodebw/products.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/verdict.h"
#include "node_priv.h"

void nbw_report_whole_node(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 2, "Whole node");
	nbw_rdoc_para(r, "Every device and pair the results hold, at the run's comparison size, "
			 "the one size every device and pair has, named with each table "
			 "(bandwidth in GB/s = 1e9 bytes per second; the median of the "
			 "repetitions): the device-to-device matrices, the host<->device bandwidth "
			 "per device, every device at once, the devices and pairs flagged as "
			 "outliers, the pointer-chase latency beside the smallest copy, and the "
			 "verdicts of `nodebw check`. The same "
			 "figures as `nodebw matrix RESULTS.json`; doc/analysis.md describes them.");
	for (size_t i = 0; i < in->nfiles; i++) {
		char tag[32] = "", head[4200];
		if (in->nfiles > 1) {
			snprintf(tag, sizeof(tag), "f%zu-", i);
			snprintf(head, sizeof(head), "File %zu: %s", i, in->paths[i]);
			nbw_rdoc_heading(r, 3, head);
		}
		const struct nbw_products *p = nbw_rinput_products(in, i);
		if (!p) {
			nbw_rdoc_para(r, "Out of memory: the whole node of this file is left out.");
			continue;
		}
		int level = in->nfiles > 1 ? 4 : 3;
		nbw_node_matrices(r, p->matrices, tag, level);
		nbw_node_devices(r, p->device_tables, tag, level);
		nbw_node_concurrent(r, p->all_at_once, tag, level);
		nbw_node_outliers(r, p->outliers, p->outlier_groups, tag, level);
		nbw_node_latency(r, p->latency, tag, level);
		json_t *v = nbw_verdicts_node(in->docs[i], in->criteria);
		if (v)
			nbw_node_verdicts(r, v, tag, level);
		json_decref(v);
	}
}
