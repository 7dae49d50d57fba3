/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole report of merged results files: the summary, overview, whole-node, transfers
 * and model sections into one document, and summary.json beside report.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"
#include "nodebw/rundir.h"
#include "rdoc_priv.h"

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

static int write_report(const struct nbw_rinput *in, json_t *summary, const char *dir,
			int *no_image, char *why, size_t whylen, char *err, size_t errlen)
{
	struct nbw_rv_doc doc;
	nbw_rv_doc_read(in->docs[0], &doc);
	char title[256];
	snprintf(title, sizeof(title), "nodebw report: %s%s",
		 *doc.hostname ? doc.hostname : "unknown host",
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
	nbw_report_run_compare(r, in);
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

/* A folder the report may replace whole: absent, empty, or an earlier report (report.md
 * in it). A folder holding anything else is written into in place, as before. */
static bool replaceable(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT;
	bool empty = true, report = false;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		empty = false;
		report |= strcmp(e->d_name, "report.md") == 0;
	}
	closedir(d);
	return empty || report;
}

/* The staged report \p stage in \p dir's place; the earlier one (if any) goes. */
static int swap_in(const char *stage, const char *dir, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st) != 0) {
		if (rename(stage, dir) == 0)
			return 0;
	} else if (renameat2(AT_FDCWD, stage, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
		nbw_remove_tree(stage); /* now the earlier report */
		return 0;
	} else {
		char old[4200];
		snprintf(old, sizeof(old), "%s.old", stage);
		if (rename(dir, old) == 0) {
			if (rename(stage, dir) == 0) {
				nbw_remove_tree(old);
				return 0;
			}
			rename(old, dir); /* put the earlier report back */
		}
	}
	snprintf(err, errlen, "cannot put the report in place at %s: %s", dir, strerror(errno));
	return -1;
}

int nbw_report_write(const struct nbw_rinput *in, json_t *summary, const char *dir,
		     int *no_image, char *why, size_t whylen, char *err, size_t errlen)
{
	if (!replaceable(dir))
		return write_report(in, summary, dir, no_image, why, whylen, err, errlen);
	/* Written beside, then put in place: a report that fails midway (a full disk) leaves
	 * the earlier report, or none, never a partial folder. The staging folder's name is
	 * one that the results folder's recovery removes after a kill (common/rundir.c). */
	char stage[4200];
	snprintf(stage, sizeof(stage), "%s.tmpXXXXXX", dir);
	if (!mkdtemp(stage)) {
		snprintf(err, errlen, "cannot create a folder beside %s: %s", dir, strerror(errno));
		return -1;
	}
	chmod(stage, 0755);
	int rc = write_report(in, summary, stage, no_image, why, whylen, err, errlen);
	if (rc == 0)
		rc = swap_in(stage, dir, err, errlen);
	if (rc) {
		nbw_remove_tree(stage);
		/* The message names the report folder, not the staging one. */
		char *at = strstr(err, stage), msg[1024];
		if (at) {
			snprintf(msg, sizeof(msg), "%.*s%s%s", (int)(at - err), err, dir,
				 at + strlen(stage));
			snprintf(err, errlen, "%s", msg);
		}
	}
	return rc;
}

int nbw_report_build(const struct nbw_rinput *in, json_t *summary, const char *dir, char *err,
		     size_t errlen)
{
	return nbw_report_write(in, summary, dir, NULL, NULL, 0, err, errlen);
}
