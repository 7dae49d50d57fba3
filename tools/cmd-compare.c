/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw compare [--output DIR] [--json] [--quiet] FLEET_DIR` (also `nodebw report
 * --fleet`): compare the nodes of a fleet folder (nbw_fleet_compare), write the report
 * folder (nbw_fleet_report) and print the summary. Two runs (`nodebw compare A B`) go to
 * tools/cmd-runcmp.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd-compare.h"
#include "staging_signals.h"
#include "check.h"
#include "nodebw/cli.h"
#include "nodebw/fleet.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw compare [--output DIR] [--json] [--quiet] FLEET_DIR\n"
		"       nodebw compare [--json] A B\n"
		"       nodebw report --fleet FLEET_DIR [--output DIR]\n"
		"\n"
		"Two runs A and B (results files or run folders): run B compared with run A,\n"
		"path by path, beyond noise or not ('nodebw compare --help A B' says more).\n"
		"\n"
		"Compare the nodes of a fleet folder (written by 'nodebw fleet': FLEET_DIR/nodes/\n"
		"<node>/results.json, or any folder of node folders with results.json): nodes\n"
		"grouped by their device models, the topology differences first, then per path\n"
		"(every transfer series at its largest and smallest size, every solver\n"
		"configuration) the fleet median, spread and each node's ratio, and the outliers\n"
		"with the reason. A node whose results cannot be read is listed with the file:line\n"
		"reason and the others are compared.\n"
		"\n"
		"Options:\n"
		"  --output DIR   report folder (default FLEET_DIR/report): report.md,\n"
		"                 report.html, tables/*.csv, the nodes x paths heat map, and\n"
		"                 fleet-summary.json (for monitoring; doc/fleet.md)\n"
		"  --json         the summary (fleet-summary.json) on stdout, nothing else there\n"
		"  --quiet        no terminal summary\n"
		"  --check FILE   each node's nodebw check verdicts also judge by the site's\n"
		"                 thresholds (always by the shipped published figures and the\n"
		"                 links' theoretical figures; --references FILE|none)\n"
		"  -h, --help     this text\n"
		"\n"
		"Outlier rule: more than 10 %% worse than the group's median (>= 3 nodes with the\n"
		"value) and, with >= 5 nodes, more than 3.5 robust standard deviations from it.\n"
		"Bandwidth in GB/s = 1e9 bytes per second.\n");
}

static int compare_fleet(int argc, char **argv, const struct nbw_criteria *cr);

/* The mode from the arguments: 2 for two runs (A B), 1 for a fleet folder; 0 after one line
 * on stderr when they fit neither. An option's value is no argument. */
static int compare_mode(int argc, char **argv)
{
	const char *pos[3];
	int n = 0;
	bool help = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			help = true;
		else if (!strcmp(a, "--fleet"))
			return 1;
		if (!strcmp(a, "--output") || !strcmp(a, "--check") || !strcmp(a, "--references"))
			i++;
		else if (a[0] != '-' || !a[1])
			pos[n < 3 ? n : 2] = a, n++;
	}
	if (help) /* the help of the form the arguments have */
		return n == 2 ? 2 : 1;
	if (n == 2 && nbw_run_compare_is_run(pos[0]) && nbw_run_compare_is_run(pos[1]))
		return 2;
	if (n == 2) {
		const char *bad = nbw_run_compare_is_run(pos[0]) ? pos[1] : pos[0];
		struct stat st;
		if (stat(bad, &st) != 0) {
			fprintf(stderr, "nodebw: error: %s: %s\n", bad, strerror(errno));
			return 0;
		}
		fprintf(stderr, "nodebw: error: %s is not a results file or a run folder: "
				"'nodebw compare A B' compares two runs, 'nodebw compare FLEET_DIR' "
				"one fleet folder\n", bad);
		return 0;
	}
	if (n > 2) {
		fprintf(stderr, "nodebw: error: compare takes two runs (A B) or one fleet folder, "
				"not %d arguments (see 'nodebw compare --help')\n", n);
		return 0;
	}
	if (n == 1 && nbw_run_compare_is_run(pos[0])) {
		fprintf(stderr, "nodebw: error: %s is one run: name the run to compare it with "
				"('nodebw compare A B'), or a fleet folder\n", pos[0]);
		return 0;
	}
	return 1;
}

int nbw_fleet_compare_main(int argc, char **argv)
{
	/* nodebw compare A B (two runs) or FLEET_DIR; nodebw report --fleet is a fleet. */
	if (strcmp(argv[0], "compare") == 0) {
		int mode = compare_mode(argc, argv);
		if (mode == 0)
			return NBW_EXIT_USAGE;
		if (mode == 2)
			return nbw_run_compare_main(argc, argv);
	}
	/* --check FILE, --references FILE|none, ...: the criteria of the verdicts. */
	char **av;
	struct nbw_criteria *cr;
	int rc = nbw_check_cmd_criteria(&argc, argv, &av, &cr);
	if (rc) {
		free(av);
		return rc;
	}
	argv = av;
	rc = compare_fleet(argc, argv, cr);
	nbw_criteria_free(cr);
	free(av);
	return rc;
}

static int compare_fleet(int argc, char **argv, const struct nbw_criteria *cr)
{
	const char *dir = NULL, *out = NULL;
	bool json = false, quiet = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--json") == 0) {
			json = true;
		} else if (strcmp(a, "--quiet") == 0) {
			quiet = true;
		} else if (strcmp(a, "--fleet") == 0 && i + 1 < argc && !dir) {
			dir = argv[++i];
		} else if (strcmp(a, "--output") == 0 && i + 1 < argc) {
			out = argv[++i];
		} else if (a[0] == '-') {
			fprintf(stderr, "nodebw: error: unknown option %s (see 'nodebw %s --help')\n", a, argv[0]);
			return NBW_EXIT_USAGE;
		} else if (!dir) {
			dir = a;
		} else {
			fprintf(stderr, "nodebw: error: one fleet folder only (%s and %s)\n", dir, a);
			return NBW_EXIT_USAGE;
		}
	}
	if (!dir) {
		fprintf(stderr, "nodebw: error: name a fleet folder (see 'nodebw %s --help')\n", argv[0]);
		return NBW_EXIT_USAGE;
	}
	char err[1024], def[4200];
	json_t *s = nbw_fleet_compare(dir, cr, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return NBW_EXIT_USAGE;
	}
	if (!out && !(out = nbw_fleet_default_report(dir, def, sizeof(def)))) {
		fprintf(stderr, "nodebw: error: %s/report is a node's folder; give --output for the "
				"comparison's report\n", dir);
		json_decref(s);
		return NBW_EXIT_USAGE;
	}
	nbw_clean_staging_on_signals(out);
	int rc = nbw_fleet_report(s, out, err, sizeof(err));
	if (rc != 0) {
		/* as nodebw report: an output folder that cannot be made is bad input (2); one
		 * that could not be written (a full disk) is a failure (1) */
		fprintf(stderr, "nodebw: error: %s\n", err);
		json_decref(s);
		return rc == NBW_EXIT_USAGE ? NBW_EXIT_USAGE : 1;
	}
	if (json) {
		char *text = json_dumps(s, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		if (text)
			puts(text);
		free(text);
	} else if (!quiet) {
		nbw_fleet_print(stdout, s);
		printf("Report: %s/report.html, summary %s/fleet-summary.json\n", out, out);
	}
	/* No node readable: nothing was compared. 3, as nodebw fleet ends when a node is not
	 * ok: the report lists each node's reason, and a script sees that it compares nothing. */
	bool none = nbw_fleet_readable_nodes(s) == 0;
	json_decref(s);
	if (none) {
		fprintf(stderr, "nodebw: error: no node's results could be read: nothing was "
				"compared (each node's reason is above and in the report)\n");
		return NBW_EXIT_PARTIAL;
	}
	return 0;
}
