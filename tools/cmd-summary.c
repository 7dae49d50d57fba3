/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw summary RESULTS.json`: the summary that `nodebw probe` or `nodebw run` printed at
 * its end, again from the results file (tools/summary.c). */
#include "cmd-summary.h"
#include "cmd-args.h"
#include "summary.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/cli.h"
#include "nodebw/findings.h"
#include "nodebw/products.h"
#include "nodebw/curves.h"
#include "nodebw/sizes.h"
#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw summary [--json] RESULTS.json\n"
		"\n"
		"The summary that 'nodebw probe' or 'nodebw run' printed at its end, again from\n"
		"the results file: the counts, how many measurements did not converge, the\n"
		"run's findings (such as the hidden-helper sweep's effect), each API's\n"
		"transfers in one line, the P2P matrices where there are links to show, and for\n"
		"a run the report's sentences and the solver's table (at most 40 lines on a node\n"
		"of 4 host-plugin devices; doc/run.md).\n"
		"\n"
		"Bandwidth is GB/s = 1e9 bytes per second.\n"
		"\n"
		"Options:\n"
		"  --json     one JSON object: \"comparison_bytes\" (the one size every device\n"
		"             and pair is compared at), \"headlines\" (per API: HtoD, DtoH, P2P\n"
		"             and every device at once, with mode and size), \"items\" (the\n"
		"             summary's lines) and, for a run, \"solver\" (speedups, accuracy)\n"
		"  -h, --help this text\n"
		"\n"
		"Example:\n"
		"  nodebw summary results/node42/results.json\n");
}

/* --json: the comparison size, the headlines, the summary's items and (a run) the solver's
 * table, as the terminal prints them. */
static int print_json(const struct nbw_doc *doc, const struct nbw_products *p, json_t *report)
{
	const struct nbw_headline *h = p->headlines;
	size_t nh = p->nheadlines;
	json_t *heads = json_array();
	for (size_t i = 0; i < nh; i++) {
		char sz[32];
		nbw_size_label((uint64_t)h[i].bytes, sz, sizeof(sz));
		json_array_append_new(heads, json_pack("{s:s, s:s, s:f, s:I, s:s, s:s, s:i}", "api",
						       h[i].api, "what", h[i].what, "gbps",
						       h[i].gbps, "bytes", (json_int_t)h[i].bytes,
						       "size", sz, "how", h[i].how, "members",
						       h[i].members));
	}
	long long cmp = p->comparison_bytes;
	char csz[32];
	nbw_size_label(cmp > 0 ? (uint64_t)cmp : 0, csz, sizeof(csz));
	json_t *items = json_incref(nbw_rs_items_json(report));
	if (!items)
		items = nbw_summary_items(doc->root, p, NULL);
	json_t *solver = nbw_rs_solver_json(report);
	json_t *all = json_pack("{s:s, s:I, s:s, s:o, s:o, s:O?}", "units",
				"GB/s = 1e9 bytes per second", "comparison_bytes", (json_int_t)cmp,
				"comparison_size", csz, "headlines", heads, "items", items,
				"solver", solver);
	if (!all)
		return 1;
	json_dumpf(all, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
	printf("\n");
	json_decref(all);
	return 0;
}

int nbw_summary_main(int argc, char **argv)
{
	bool json;
	const char *file;
	struct nbw_doc *doc;
	int rc = nbw_cmd_one_results_file(argc, argv, usage, &json, &file, &doc);
	if (rc)
		return rc == 1 ? 0 : rc;
	json_t *report = NULL;
	struct nbw_rinput in = { 0 };
	char err[512];
	const char *paths[1] = {file};
	/* The products, derived once: the report's summary's (a run's summary has its
	 * sentences and the solver's table), else the document's own. */
	struct nbw_products *own = NULL;
	const struct nbw_products *p = NULL;
	struct nbw_rv_doc h;
	nbw_rv_doc_read(doc->root, &h);
	if (h.solver) {
		if (nbw_rinput_load(&in, paths, 1, err, sizeof(err))) {
			fprintf(stderr, "nodebw: error: %s\n", err);
			nbw_doc_free(doc);
			return NBW_EXIT_USAGE;
		}
		report = nbw_report_summary(&in);
		p = nbw_rinput_products(&in, 0);
	} else {
		p = own = nbw_products_new(doc->root);
	}
	if (!p) {
		fprintf(stderr, "nodebw: error: out of memory deriving the analyses of %s\n", file);
		rc = 1;
	} else if (json) {
		rc = print_json(doc, p, report);
	} else {
		nbw_summary_print(stdout, doc, p, report, file, -1.0);
	}
	json_decref(report);
	nbw_products_free(own);
	if (in.nfiles)
		nbw_rinput_free(&in);
	nbw_doc_free(doc);
	return rc;
}
