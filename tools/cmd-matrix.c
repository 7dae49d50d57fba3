/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw matrix RESULTS.json [--json]`: the whole-node view of a results file (analysis/). */
#include "cmd-matrix.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/analysis.h"
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
		"    size, fraction of theoretical, link label, latency (median microseconds per\n"
		"    transfer) at the smallest size; '-' = not measured; a diagonal cell is a\n"
		"    copy within one device, not a peer link;\n"
		"  - per API, direction, mode and host memory, each device's HtoD/DtoH GB/s;\n"
		"  - the outliers: %s.\n"
		"\n"
		"Bandwidth is GB/s = 1e9 bytes per second. Host-plugin devices are host memory:\n"
		"their copies are labelled so, never as peer links, and have no theoretical figure.\n"
		"\n"
		"Options:\n"
		"  --json     one JSON object: \"units\", \"matrices\", \"devices\", \"outliers\",\n"
		"             \"outlier_rule\", \"outlier_groups\" (doc/analysis.md)\n"
		"  -h, --help this text\n"
		"\n"
		"Example:\n"
		"  nodebw matrix results/node42/results.json\n",
		NBW_OUTLIER_RULE);
}

int nbw_matrix_main(int argc, char **argv)
{
	bool json = false;
	const char *file = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "nodebw: error: unknown option '%s' (see 'nodebw matrix "
					"--help')\n", argv[i]);
			return NBW_EXIT_USAGE;
		} else if (file) {
			fprintf(stderr, "nodebw: error: 'matrix' takes one results file\n");
			return NBW_EXIT_USAGE;
		} else {
			file = argv[i];
		}
	}
	if (!file) {
		fprintf(stderr, "nodebw: error: 'matrix' needs a results file (results.json)\n");
		return NBW_EXIT_USAGE;
	}
	char err[1024];
	struct nbw_doc *doc = nbw_doc_load(file, err, sizeof(err));
	if (!doc) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return NBW_EXIT_USAGE;
	}
	json_t *groups = NULL;
	json_t *mx = nbw_analysis_matrices(doc->devices, doc->measurements);
	json_t *dev = nbw_analysis_device_tables(doc->devices, doc->measurements);
	json_t *out = nbw_analysis_outliers(doc->devices, doc->measurements, &groups);
	if (json) {
		json_t *all = json_pack("{s:s, s:O, s:O, s:O, s:s, s:O}", "units",
					"GB/s = 1e9 bytes per second; latency in microseconds",
					"matrices", mx, "devices", dev, "outliers", out, "outlier_rule",
					NBW_OUTLIER_RULE, "outlier_groups", groups);
		json_dumpf(all, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
		printf("\n");
		json_decref(all);
	} else {
		printf("nodebw matrix: %s (bandwidth in GB/s = 1e9 B/s)\n", file);
		nbw_analysis_print_matrices(stdout, mx);
		nbw_analysis_print_device_tables(stdout, dev);
		nbw_analysis_print_outliers(stdout, out, groups);
	}
	json_decref(mx);
	json_decref(dev);
	json_decref(out);
	json_decref(groups);
	nbw_doc_free(doc);
	return 0;
}
