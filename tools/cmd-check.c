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
		"device pair's P2P, one direction or both at once): pass, warning, below\n"
		"threshold, below reference or not judged, always with the reason. Each path is\n"
		"judged at the run's comparison size (the matrix cells' size), on the best of the\n"
		"measurements a criterion selects, against (a) the site's thresholds\n"
		"(--thresholds; none unless given), (b) the shipped table of published figures\n"
		"(data/references.json: rows found by the device's PCI IDs first, its name second;\n"
		"a minimum and a reference per row, each cited), (c) the link's theoretical\n"
		"figure. Without --thresholds only (b) and (c) apply.\n"
		"With a results file it judges that file; without one it runs `nodebw probe`\n"
		"with the PROBE OPTIONS first (by default check's short plan: --quick --sizes\n"
		"64MiB --mode async --host-mem pinned --no-hht-sweep, each unless named; --default\n"
		"or --full for the whole sweep; doc/check.md) and judges what was measured, saving\n"
		"the verdicts as check.json beside results.json.\n"
		"Bandwidth is GB/s = 1e9 bytes per second.\n"
		"\n"
		"Options:\n"
		"  --thresholds FILE     the site's thresholds (schema nodebw-thresholds, doc/check.md)\n"
		"  --references FILE     another table of published figures; 'none': none\n"
		"  --tolerance PCT       a path passes a published figure without a minimum of its\n"
		"                        own at >= (100 - PCT) %% of its low end (default %.0f)\n"
		"  --min-fraction PCT    ... and the link's theoretical figure, or a spec-only row,\n"
		"                        at >= PCT %% (default %.0f)\n"
		"  --strict              a warning (from a published minimum up to 1.05 x it) fails\n"
		"  --all                 list every path, not only those that did not pass\n"
		"  --json                the verdicts as one JSON object on stdout\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: 0 pass (every judged path passes or warns, every site rule judged a\n"
		"path), 1 a path is below a threshold or a minimum (or a probe failed; a warning\n"
		"too with --strict), 2 bad input, 3 NOT JUDGED: no path was judged, or a site\n"
		"rule judged no path, and nothing failed.\n"
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
	int rc = nbw_check_results(doc->root, cr, co, json, stdout, NULL, err, sizeof(err));
	if (!json && rc >= 0) /* after the verdicts: their outcome is the first line */
		printf("nodebw check: %s\n", file);
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
		char **pv = nbw_check_plan_args(&argc, av);
		if (!pv) {
			fprintf(stderr, "nodebw: error: out of memory\n");
			free(av);
			return 1;
		}
		rc = nbw_cmd_probe(argc, pv, pv, argc, &co, json);
		free(pv);
	}
	free(av);
	return rc;
}
