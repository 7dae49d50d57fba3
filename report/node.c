/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "Whole node" section: per results file, the P2P matrices as heat maps and tables,
 * the per-device host<->device bars, and the outliers (analysis/, the same figures as
 * `nodebw matrix`). With several files each gets its own subsection: device ids of
 * different files are different devices.
 */
#include <stdio.h>

#include "nodebw/analysis.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/verdict.h"
#include "node_priv.h"

void nbw_report_whole_node(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 2, "Whole node");
	nbw_rdoc_para(r, "Every device and pair the results hold, at one size per series, the "
			 "largest measured on every pair or device of it and named with each table "
			 "(bandwidth in GB/s = 1e9 bytes per second; the median of the "
			 "repetitions): the device-to-device matrices, the host<->device bandwidth "
			 "per device, every device at once, the devices and pairs flagged as "
			 "outliers, the pointer-chase latency beside the smallest copy, and the "
			 "verdicts of `nodebw check`. The same "
			 "figures as `nodebw matrix RESULTS.json`; doc/analysis.md describes them.");
	for (size_t i = 0; i < in->nfiles; i++) {
		struct nbw_rv_doc doc;
		nbw_rv_doc_read(in->docs[i], &doc);
		json_t *devices = doc.devices, *ms = doc.measurements;
		char tag[32] = "", head[4200];
		if (in->nfiles > 1) {
			snprintf(tag, sizeof(tag), "f%zu-", i);
			snprintf(head, sizeof(head), "File %zu: %s", i, in->paths[i]);
			nbw_rdoc_heading(r, 3, head);
		}
		json_t *mx = nbw_analysis_matrices(devices, ms);
		json_t *tables = nbw_analysis_device_tables(devices, ms);
		json_t *groups = NULL;
		json_t *outliers = nbw_analysis_outliers(devices, ms, &groups);
		int level = in->nfiles > 1 ? 4 : 3;
		nbw_node_matrices(r, mx, tag, level);
		nbw_node_devices(r, tables, tag, level);
		json_t *conc = nbw_analysis_concurrent(devices, ms);
		nbw_node_concurrent(r, conc, tag, level);
		json_decref(conc);
		nbw_node_outliers(r, outliers, groups, tag, level);
		json_t *lat = nbw_analysis_latency(devices, ms);
		nbw_node_latency(r, lat, tag, level);
		json_decref(lat);
		json_t *v = nbw_verdicts(devices, ms, in->criteria);
		if (v)
			nbw_node_verdicts(r, v, tag, level);
		json_decref(v);
		json_decref(mx);
		json_decref(tables);
		json_decref(outliers);
		json_decref(groups);
	}
}
