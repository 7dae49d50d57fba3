/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw summary RESULTS.json`: the summary that `nodebw probe` or `nodebw run` printed at
 * its end, again from the results file (tools/summary.c). */
#include "cmd-summary.h"
#include "cmd-args.h"
#include "summary.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/cli.h"
#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw summary RESULTS.json\n"
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
		"  -h, --help this text\n"
		"\n"
		"Example:\n"
		"  nodebw summary results/node42/results.json\n");
}

int nbw_summary_main(int argc, char **argv)
{
	bool json;
	const char *file;
	struct nbw_doc *doc;
	int rc = nbw_cmd_one_results_file(argc, argv, usage, &json, &file, &doc);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (json) {
		fprintf(stderr, "nodebw: error: 'summary' has no --json (a run's report has "
				"summary.json)\n");
		nbw_doc_free(doc);
		return NBW_EXIT_USAGE;
	}
	/* The analyses a finished run stored; computed for a file without them. */
	if (!json_object_get(doc->root, "device_tables"))
		nbw_summary_analyse(doc);
	json_t *report = NULL;
	struct nbw_rinput in;
	char err[512];
	const char *paths[1] = {file};
	/* A run's summary has the report's sentences and the solver's table. */
	struct nbw_rv_doc h;
	nbw_rv_doc_read(doc->root, &h);
	if (h.solver) {
		if (nbw_rinput_load(&in, paths, 1, err, sizeof(err))) {
			fprintf(stderr, "nodebw: error: %s\n", err);
			nbw_doc_free(doc);
			return NBW_EXIT_USAGE;
		}
		report = nbw_report_summary(&in);
		nbw_rinput_free(&in);
	}
	nbw_summary_print(stdout, doc, report, file, -1.0);
	json_decref(report);
	nbw_doc_free(doc);
	return 0;
}
