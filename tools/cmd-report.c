/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw report [--output DIR] RESULTS.json...`: load one or more results files
 * (nbw_rinput_load), make the report folder and write the report (nbw_report_write).
 * Bad input is one line on stderr and exit status 2.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd-compare.h"
#include "cmd-args.h"
#include "cmd-report.h"
#include "staging_signals.h"
#include "check.h"
#include "nodebw/cli.h"
#include "nodebw/report.h"

/* mkdir -p */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
	char *p = strdup(dir);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create folder %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	struct stat st;
	if (mkdir(dir, 0755) != 0 && (errno != EEXIST || stat(dir, &st) != 0 ||
				      !S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "cannot create folder %s: %s", dir,
			 errno == EEXIST ? "a file of that name exists" : strerror(errno));
		return -1;
	}
	if (access(dir, W_OK) != 0) {
		snprintf(err, errlen, "report folder %s is not writable", dir);
		return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw report [--output DIR] RESULTS.json...\n"
		"       nodebw report --fleet FLEET_DIR [--output DIR]   (= nodebw compare)\n"
		"\n"
		"Write a report of one or more results files (from 'nodebw run', 'probe' or\n"
		"'heat') into a folder: report.md and report.html, every table as CSV under\n"
		"tables/, and every plot as PNG and SVG under plots/ with its gnuplot data (.dat)\n"
		"and script (.gp), which can be edited and run again to restyle it.\n"
		"\n"
		"Options:\n"
		"  -o, --output DIR  the report folder (default: 'report' beside the first\n"
		"                    results file); created if missing, files in it are replaced\n"
		"  --check FILE      the site's thresholds for the verdicts section (beside the\n"
		"                    shipped published figures; --references FILE|none,\n"
		"                    --tolerance PCT, --min-fraction PCT as for nodebw check)\n"
		"  -h, --help        this text\n"
		"\n"
		"Plots need gnuplot (on PATH, or the program named by NODEBW_GNUPLOT); without it\n"
		"the report says so and keeps the data and scripts. Bandwidth is in GB/s =\n"
		"1e9 bytes per second.\n"
		"\n"
		"Examples:\n"
		"  nodebw report nodebw-results/20260101-120000/results.json\n"
		"  nodebw report --output cmp node1/results.json node2/results.json\n");
}

static int report_files(int argc, char **argv, const char *output,
			const struct nbw_criteria *cr);

int nbw_report_main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--fleet") == 0)
			return nbw_fleet_compare_main(argc, argv);
	const char *output = NULL;
	/* --check FILE, --references FILE|none, ...: the criteria of the verdicts. */
	char **av;
	struct nbw_criteria *cr;
	int rc = nbw_check_cmd_criteria(&argc, argv, &av, &cr);
	if (rc) {
		free(av);
		return rc;
	}
	argv = av;
	rc = report_files(argc, argv, output, cr);
	nbw_criteria_free(cr);
	free(av);
	return rc;
}

static int report_files(int argc, char **argv, const char *output,
			const struct nbw_criteria *cr)
{
	const char **files = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*files));
	size_t nfiles = 0;
	bool only_files = false;
	if (!files) {
		fprintf(stderr, "nodebw: error: out of memory\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
			files[nfiles++] = a;
		} else if (strcmp(a, "--") == 0) {
			only_files = true;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			free(files);
			return 0;
		} else if (strcmp(a, "--output") == 0 || strcmp(a, "-o") == 0) {
			if (i + 1 >= argc || !argv[i + 1][0]) {
				fprintf(stderr, "nodebw: error: %s needs a folder\n", a);
				free(files);
				return NBW_EXIT_USAGE;
			}
			output = argv[++i];
		} else if (strncmp(a, "--output=", 9) == 0) {
			if (!a[9]) {
				fprintf(stderr, "nodebw: error: --output needs a folder\n");
				free(files);
				return NBW_EXIT_USAGE;
			}
			output = a + 9;
		} else {
			fprintf(stderr, "nodebw: error: unknown option '%s' (see 'nodebw report "
					"--help')\n", a);
			free(files);
			return NBW_EXIT_USAGE;
		}
	}
	if (nfiles == 0) {
		fprintf(stderr, "nodebw: error: 'report' needs at least one results file "
				"(results.json; see 'nodebw report --help')\n");
		free(files);
		return NBW_EXIT_USAGE;
	}
	char dir[4096], err[1024];
	if (output) {
		snprintf(dir, sizeof(dir), "%s", output);
	} else {
		const char *slash = strrchr(files[0], '/');
		if (slash == files[0])
			snprintf(dir, sizeof(dir), "/report");
		else if (slash)
			snprintf(dir, sizeof(dir), "%.*s/report", (int)(slash - files[0]), files[0]);
		else
			snprintf(dir, sizeof(dir), "report");
	}
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dir[--dl] = '\0';

	struct nbw_rinput in;
	if (nbw_rinput_load(&in, files, nfiles, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		free(files);
		return NBW_EXIT_USAGE;
	}
	free(files);
	in.criteria = cr;
	for (size_t i = 0; i < in.nfiles; i++)
		nbw_cmd_note_writer(in.paths[i], in.docs[i]);
	if (make_dirs(dir, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		nbw_rinput_free(&in);
		return NBW_EXIT_USAGE;
	}
	int no_image = 0;
	char why[600] = "";
	nbw_clean_staging_on_signals(dir);
	int rc = nbw_report_write(&in, NULL, dir, &no_image, why, sizeof(why), err, sizeof(err));
	nbw_rinput_free(&in);
	if (rc) {
		rmdir(dir); /* the folder made for it, when nothing else is there */
		fprintf(stderr, "nodebw: error: %s; nothing of this report was kept\n", err);
		return 1;
	}
	printf("report: %s/report.md and %s/report.html\n", dir, dir);
	if (no_image)
		printf("%d plot%s without an image (%s); their data and gnuplot scripts are in "
		       "%s/plots\n", no_image, no_image == 1 ? "" : "s", why, dir);
	return 0;
}
