/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw matrix RESULTS.json [--json]`: the whole-node view of a results file (analysis/). */
#include "cmd-matrix.h"
#include "cmd-args.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/products.h"
#include "nodebw/kernel_cmp.h"
#include "nodebw/cli.h"
#include "nodebw/results.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw matrix [--json] RESULTS.json\n"
		"\n"
		"The whole-node view of a results file, in the style of nvidia-smi topo -m and\n"
		"CUDA's p2pBandwidthLatencyTest:\n"
		"  - per API, mode, concurrency (single/bidir) and peer access, the N x N P2P\n"
		"    matrix (rows = source, columns = destination): median GB/s at the largest\n"
		"    size measured on every pair (named above it), fraction of theoretical,\n"
		"    link label, latency (median microseconds per transfer) at the smallest\n"
		"    size; '-' = not measured; a diagonal cell is a copy within one device, not\n"
		"    a peer link;\n"
		"  - per API, direction, mode and host memory, each device's HtoD/DtoH GB/s at\n"
		"    the largest size measured on every device (the same rule as the report's);\n"
		"  - kernel copies (mode kernel) beside the same API's blocking copy (sync):\n"
		"    per API, direction and host memory the median ratio kernel / copy of the\n"
		"    small (<= 64 KiB) and large (>= 1 MiB) sizes (nodebw gap has every row);\n"
		"  - the outliers: %s.\n"
		"\n"
		"Bandwidth is GB/s = 1e9 bytes per second. Host-plugin devices are host memory:\n"
		"their copies are labelled so, never as peer links, and have no theoretical figure.\n"
		"\n"
		"Options:\n"
		"  --json     one JSON object: \"units\", \"matrices\", \"devices\", \"outliers\",\n"
		"             \"outlier_rule\", \"outlier_groups\", \"all_at_once\",\n"
		"             \"kernel_vs_copy\" (doc/analysis.md)\n"
		"  -h, --help this text\n"
		"\n"
		"Example:\n"
		"  nodebw matrix results/node42/results.json\n",
		NBW_OUTLIER_RULE);
}

int nbw_matrix_main(int argc, char **argv)
{
	bool json;
	const char *file;
	struct nbw_doc *doc;
	int rc = nbw_cmd_one_results_file(argc, argv, usage, &json, &file, &doc);
	if (rc)
		return rc == 1 ? 0 : rc;
	struct nbw_products *p = nbw_products_new(doc->root);
	if (!p) {
		fprintf(stderr, "nodebw: error: out of memory deriving the analyses of %s\n", file);
		nbw_doc_free(doc);
		return 1;
	}
	json_t *mx = p->matrices, *dev = p->device_tables, *out = p->outliers;
	json_t *groups = p->outlier_groups, *conc = p->all_at_once, *lat = p->latency;
	json_t *kc = p->kernel_vs_copy;
	if (json) {
		json_t *all = json_pack("{s:s, s:O, s:O, s:O, s:s, s:O, s:O, s:O, s:O}", "units",
					"GB/s = 1e9 bytes per second; latency in microseconds "
					"(chase: nanoseconds per load)",
					"matrices", mx, "devices", dev, "outliers", out, "outlier_rule",
					NBW_OUTLIER_RULE, "outlier_groups", groups, "all_at_once", conc,
					"kernel_vs_copy", kc, "latency", lat);
		json_dumpf(all, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
		printf("\n");
		json_decref(all);
	} else {
		printf("nodebw matrix: %s (bandwidth in GB/s = 1e9 B/s)\n", file);
		nbw_analysis_print_matrices(stdout, mx);
		nbw_analysis_print_device_tables(stdout, dev);
		nbw_analysis_print_concurrent(stdout, conc);
		nbw_kernel_compare_print(stdout, kc, false);
		nbw_analysis_print_latency(stdout, lat);
		nbw_analysis_print_outliers(stdout, out, groups);
	}
	nbw_products_free(p);
	nbw_doc_free(doc);
	return 0;
}
