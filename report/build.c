/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole report of merged results files: the summary, overview, whole-node, transfers
 * and model sections into one document, and summary.json beside report.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"
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

int nbw_report_write(const struct nbw_rinput *in, json_t *summary, const char *dir,
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
	return nbw_report_write(in, summary, dir, NULL, NULL, 0, err, errlen);
}
