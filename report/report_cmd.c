/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw report [--output DIR] RESULTS.json...`: load one or more results files, merge
 * their devices, measurements and solver runs (each element tagged with "file": its file's
 * index), build the transfer curves, and write the report folder (overview, transfers,
 * model). Bad input is one line on stderr and exit status 2.
 */
#include "nodebw/fleet.h"
#include "nodebw/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodebw/cli.h"
#include "nodebw/results.h"
#include "rdoc_priv.h"

/* Append shallow copies of \p from's elements, each with "file": \p file, to \p to. */
static int merge_array(json_t *to, json_t *from, int file)
{
	size_t i;
	json_t *e;
	json_array_foreach(from, i, e) {
		json_t *c = json_is_object(e) ? json_copy(e) : NULL;
		if (!c || json_object_set_new(c, "file", json_integer(file)) ||
		    json_array_append_new(to, c))
			return -1;
	}
	return 0;
}

int nbw_rinput_load(struct nbw_rinput *in, const char *const *paths, size_t n, char *err,
		    size_t errlen)
{
	memset(in, 0, sizeof(*in));
	if (n == 0) {
		snprintf(err, errlen, "no results file given");
		return -1;
	}
	in->paths = calloc(n, sizeof(*in->paths));
	in->docs = calloc(n, sizeof(*in->docs));
	in->devices = json_array();
	in->measurements = json_array();
	in->solver_runs = json_array();
	if (!in->paths || !in->docs || !in->devices || !in->measurements || !in->solver_runs)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		in->paths[i] = strdup(paths[i]);
		if (!in->paths[i])
			goto oom;
		in->nfiles = i + 1;
		struct nbw_doc *d = nbw_doc_load(paths[i], err, errlen);
		if (!d)
			goto fail;
		in->docs[i] = json_incref(d->root);
		nbw_doc_free(d);
		json_t *root = in->docs[i];
		json_t *ms = json_object_get(root, "measurements");
		json_t *runs = json_object_get(root, "solver_runs");
		if (runs && !json_is_array(runs)) {
			snprintf(err, errlen, "%s: 'solver_runs' must be an array", paths[i]);
			goto fail;
		}
		if (json_array_size(ms) == 0 && json_array_size(runs) == 0) {
			snprintf(err, errlen, "%s: neither measurements nor solver runs: nothing to "
					      "report", paths[i]);
			goto fail;
		}
		if (merge_array(in->devices, json_object_get(root, "devices"), (int)i) ||
		    merge_array(in->measurements, ms, (int)i) ||
		    (runs && merge_array(in->solver_runs, runs, (int)i)) ||
		    nbw_curves_add(&in->curves, ms, (int)i))
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	nbw_rinput_free(in);
	return -1;
}

void nbw_rinput_free(struct nbw_rinput *in)
{
	for (size_t i = 0; i < in->nfiles; i++) {
		free((char *)in->paths[i]);
		if (in->docs)
			json_decref(in->docs[i]);
	}
	free(in->paths);
	free(in->docs);
	json_decref(in->devices);
	json_decref(in->measurements);
	json_decref(in->solver_runs);
	nbw_curves_free(&in->curves);
	memset(in, 0, sizeof(*in));
}

/* summary.json beside report.md: the summary for scripts and monitoring. */
static int write_summary(const char *dir, json_t *sum, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	char *text = json_dumps(sum, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = nbw_write_atomic(path, text, strlen(text), err, errlen);
	free(text);
	return rc;
}

static int build(const struct nbw_rinput *in, json_t *summary, const char *dir, int *no_image,
		 char *why, size_t whylen, char *err, size_t errlen)
{
	const char *host = json_string_value(
		json_object_get(json_object_get(in->docs[0], "machine"), "hostname"));
	char title[256];
	snprintf(title, sizeof(title), "nodebw report: %s%s", host ? host : "unknown host",
		 in->nfiles > 1 ? " and more" : "");
	struct nbw_rdoc *r = nbw_rdoc_new(dir, title, err, errlen);
	if (!r)
		return -1;
	json_t *sum = summary ? json_incref(summary) : nbw_report_summary(in);
	if (!sum) {
		snprintf(err, errlen, "out of memory");
		nbw_rdoc_free(r);
		return -1;
	}
	nbw_report_summary_section(r, sum);
	nbw_report_overview(r, in);
	nbw_report_whole_node(r, in);
	nbw_report_transfers(r, in);
	nbw_report_model(r, in);
	if (no_image)
		*no_image = nbw_rdoc_plot_failures(r, why, whylen);
	int rc = write_summary(dir, sum, err, errlen);
	json_decref(sum);
	if (rc == 0)
		rc = nbw_rdoc_write(r, err, errlen);
	nbw_rdoc_free(r);
	return rc;
}

int nbw_report_build(const struct nbw_rinput *in, json_t *summary, const char *dir, char *err,
		     size_t errlen)
{
	return build(in, summary, dir, NULL, NULL, 0, err, errlen);
}

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

int nbw_report_main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--fleet") == 0)
			return nbw_fleet_compare_main(argc, argv);
	const char *output = NULL;
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
	if (make_dirs(dir, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		nbw_rinput_free(&in);
		return NBW_EXIT_USAGE;
	}
	int no_image = 0;
	char why[600] = "";
	int rc = build(&in, NULL, dir, &no_image, why, sizeof(why), err, sizeof(err));
	nbw_rinput_free(&in);
	if (rc) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return 1;
	}
	printf("report: %s/report.md and %s/report.html\n", dir, dir);
	if (no_image)
		printf("%d plot%s without an image (%s); their data and gnuplot scripts are in "
		       "%s/plots\n", no_image, no_image == 1 ? "" : "s", why, dir);
	return 0;
}
