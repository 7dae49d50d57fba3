/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw check`: does every path of this node reach what it should? (doc/check.md) */
#include "cmd-check.h"

#include <stdlib.h>
#include <string.h>

#include "cmd-args.h"
#include "nodebw/cli.h"
#include "nodebw/results.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw check [OPTIONS] RESULTS.json\n"
		"       nodebw check [OPTIONS] [PROBE OPTIONS]\n"
		"\n"
		"A verdict for every measured path (each device's HtoD and DtoH, each ordered\n"
		"device pair's P2P, one direction or both at once): pass, below threshold, below\n"
		"reference or not judged, always with the reason. Each path is judged at the\n"
		"largest size measured, on the best of the measurements a criterion selects,\n"
		"against (a) the site's thresholds (--thresholds), (b) the shipped table of\n"
		"published figures per GPU model and link (data/references.json, each row citing\n"
		"its source; spec-only rows marked), (c) the link's theoretical figure.\n"
		"With a results file it judges that file; without one it runs `nodebw probe`\n"
		"with the PROBE OPTIONS first (e.g. --quick, --api, --output) and judges what\n"
		"was measured, saving the verdicts as check.json beside results.json.\n"
		"Bandwidth is GB/s = 1e9 bytes per second.\n"
		"\n"
		"Options:\n"
		"  --thresholds FILE     the site's thresholds (schema nodebw-thresholds, doc/check.md)\n"
		"  --references FILE     another table of published figures; 'none': none\n"
		"  --tolerance PCT       a path passes a published figure at >= (100 - PCT) %% of\n"
		"                        its low end (default %.0f)\n"
		"  --min-fraction PCT    ... and the link's theoretical figure, or a spec-only row,\n"
		"                        at >= PCT %% (default %.0f)\n"
		"  --all                 list every path, not only those that did not pass\n"
		"  --json                the verdicts as one JSON object on stdout\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: 0 every path passes (or is not judged), 1 a path is below a\n"
		"threshold or a reference (or a probe failed), 2 bad input.\n"
		"\n"
		"Examples:\n"
		"  nodebw check --thresholds site.json results/node42/results.json\n"
		"  nodebw check --thresholds site.json --quick --output node42\n",
		100.0 * NBW_REF_TOLERANCE_DEFAULT, 100.0 * NBW_THEORETICAL_FRACTION_DEFAULT);
}

/* A results file to judge: the one argument, not an option (probe options all start with
 * '-'; a missing or unreadable file is then the loader's one-line error). */
static bool is_results_file(int argc, char **argv)
{
	return argc == 2 && argv[1][0] != '-';
}

static int judge_file(const char *file, const struct nbw_check_opts *co, bool json)
{
	char err[1024], note[300];
	struct nbw_criteria *cr = nbw_check_criteria(co, note, sizeof(note), err, sizeof(err));
	if (!cr) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return NBW_EXIT_USAGE;
	}
	if (note[0])
		fprintf(stderr, "nodebw: note: %s\n", note);
	struct nbw_doc *doc = nbw_doc_load(file, err, sizeof(err));
	if (!doc) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		nbw_criteria_free(cr);
		return NBW_EXIT_USAGE;
	}
	nbw_cmd_note_writer(file, doc->root);
	if (!json)
		printf("nodebw check: %s\n", file);
	int rc = nbw_check_results(doc->root, cr, co, json, stdout, NULL, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		rc = 1;
	}
	nbw_doc_free(doc);
	nbw_criteria_free(cr);
	return rc;
}

int nbw_check_main(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 2, sizeof(char *)), err[400];
	if (!av) {
		fprintf(stderr, "nodebw: error: out of memory\n");
		return 1;
	}
	memcpy(av, argv, (size_t)argc * sizeof(char *));
	struct nbw_check_opts co;
	bool json = false;
	int rc = 0;
	if (nbw_check_extract(&argc, av, false, &co, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		free(av);
		return NBW_EXIT_USAGE;
	}
	co.on = true;
	/* --json and --help are ours; the rest, without a results file, is the probe's. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(av[i], "--help") || !strcmp(av[i], "-h")) {
			usage(stdout);
			free(av);
			return 0;
		}
		if (!strcmp(av[i], "--json")) {
			json = true;
			memmove(&av[i], &av[i + 1], (size_t)(argc - i) * sizeof(char *));
			argc--;
			i--;
		}
	}
	if (is_results_file(argc, av)) {
		rc = judge_file(av[1], &co, json);
	} else {
		/* argv[0] becomes "probe": the results document records the command as run. */
		av[0] = "probe";
		if (json) /* stdout is the verdicts' */
			av[argc++] = "--quiet";
		av[argc] = NULL;
		rc = nbw_cmd_probe(argc, av, av, argc, &co, json);
	}
	free(av);
	return rc;
}
