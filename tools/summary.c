/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The end of `nodebw probe` and `nodebw run` (and `nodebw summary`): the whole-node analyses
 * stored in the document, and the one summary, at most NBW_SUMMARY_LINES lines on a node of
 * host-plugin devices (doc/run.md says what it holds, in order).
 */
#include "summary.h"
#include "nodebw/findings.h"
#include "nodebw/sizes.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/analysis.h"
#include "nodebw/cli.h"
#include "nodebw/gap.h"
#include "nodebw/products.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/termtext.h"

void nbw_summary_analyse(struct nbw_doc *doc, const struct nbw_products *p)
{
	nbw_doc_set(doc, "outliers", json_incref(p->outliers));
	nbw_doc_set(doc, "outlier_groups", json_incref(p->outlier_groups));
	nbw_doc_set(doc, "all_at_once", json_incref(p->all_at_once));
	nbw_doc_set(doc, "matrices", json_incref(p->matrices));
	nbw_doc_set(doc, "device_tables", json_incref(p->device_tables));
}

/* The summary's length on a node of host-plugin devices (links add their matrices). */
#define NBW_SUMMARY_LINES 40

/* The summary being written: its stream and the lines so far. */
struct out {
	FILE *f;
	int lines;
};

/* The lines \p text takes wrapped to NBW_TERM_COLUMNS after a lead of \p lead columns;
 * with \p f, written (the first line after \p first, the rest after \p rest). */
static int wrap(FILE *f, const char *first, const char *rest, const char *text)
{
	return nbw_term_wrap(f, first, rest, text, NBW_TERM_COLUMNS);
}

/* One item ("  * text", wrapped); false when it would pass \p limit lines. */
static bool item(struct out *o, const char *text, int limit)
{
	int n = wrap(NULL, "  * ", "    ", text);
	if (o->lines + n > limit)
		return false;
	o->lines += wrap(o->f, "  * ", "    ", text);
	return true;
}

/* Whether matrix \p m has a link to show: a cell whose link is not host memory. */
static bool has_links(const struct nbw_pv_matrix *m)
{
	struct nbw_pv_cell cell;
	for (size_t r = 0; r < m->n; r++)
		for (size_t c = 0; c < m->n; c++)
			if (r != c && nbw_pv_matrix_cell(m, r, c, &cell) && cell.link[0] &&
			    strcmp(cell.link, NBW_HOST_MEMORY_LABEL) != 0)
				return true;
	return false;
}

/* The bandwidth block of each single-stream P2P matrix with links to show (real GPU pairs;
 * host-plugin devices have none: their matrices stay with nodebw matrix). A cell measured
 * only at the smallest size has no figure at the comparison size: "-". */
static void p2p_matrices(struct out *o, json_t *mx)
{
	size_t i;
	json_t *j;
	json_array_foreach(mx, i, j) {
		struct nbw_pv_matrix m;
		if (!nbw_pv_matrix(j, &m) || strcmp(m.concurrency, "single") != 0 ||
		    strcmp(m.peer_access, "disabled") == 0 || !has_links(&m))
			continue;
		char sz[32];
		nbw_size_label(m.bandwidth_bytes > 0 ? (uint64_t)m.bandwidth_bytes : 0, sz,
			       sizeof(sz));
		fprintf(o->f, "\n  %s p2p %s%s: GB/s at %s (rows = source, columns = "
			      "destination; link in brackets)\n", m.api, m.mode,
			strcmp(m.peer_access, "enabled") == 0 ? ", peer access on" : "", sz);
		fprintf(o->f, "    %7s", "src\\dst");
		for (size_t c = 0; c < m.n; c++)
			fprintf(o->f, " %16d", nbw_pv_matrix_device(&m, c));
		fprintf(o->f, "\n");
		o->lines += 3;
		for (size_t r = 0; r < m.n; r++) {
			fprintf(o->f, "    %7d", nbw_pv_matrix_device(&m, r));
			for (size_t c = 0; c < m.n; c++) {
				struct nbw_pv_cell cell;
				char buf[40] = "-";
				if (nbw_pv_matrix_cell(&m, r, c, &cell) && isfinite(cell.gbps))
					snprintf(buf, sizeof(buf), "%.2f [%.13s]", cell.gbps,
						 cell.link);
				fprintf(o->f, " %16s", buf);
			}
			fprintf(o->f, "\n");
			o->lines++;
		}
	}
}

void nbw_summary_print(FILE *f, const struct nbw_doc *doc, const struct nbw_products *p,
		       json_t *report, const char *results,
		       double seconds)
{
	struct out o = {f, 2};
	if (!p)
		return; /* nothing was derived (out of memory): said where it failed */
	fprintf(f, "\n==== Summary (GB/s = 1e9 B/s; latency in microseconds) ====\n");
	/* The items of the one summary: the report's summary holds them for a run (its
	 * summary section prints the same); a probe's are made here by the same function. */
	json_t *items = json_incref(nbw_rs_items_json(report));
	if (!items)
		items = nbw_summary_items(doc->root, p, NULL);
	int nsp = 0;
	struct nbw_rs_speedup sp;
	while (nbw_rs_speedup(report, (size_t)nsp, &sp))
		nsp++;
	/* What follows the items: the solver's table (a blank line, two of explanation, its
	 * header and a row each), the line of findings left out, and the results and report
	 * lines as they wrap. */
	char took[48] = "", html[4200] = "";
	if (seconds >= 0.0)
		snprintf(took, sizeof(took), "; run time %.1f s", seconds);
	if (results) {
		/* The report beside it, when the run wrote one. */
		const char *slash = strrchr(results, '/');
		int dl = slash ? (int)(slash - results) : 1;
		snprintf(html, sizeof(html), "%.*s/report/report.html", dl, slash ? results : ".");
		if (!report || access(html, R_OK) != 0)
			html[0] = '\0';
	}
	int tail = 1 + (results ? nbw_term_wrapf(NULL, "  ", "    ", NBW_TERM_COLUMNS,
						 "results: %s (every matrix, device and outlier: "
						 "nodebw matrix %s)%s", results, results, took)
				: 1);
	if (html[0])
		tail += nbw_term_wrapf(NULL, "  ", "    ", NBW_TERM_COLUMNS,
				       "report: %s (and report.md beside it)", html);
	int reserve = tail + (nsp ? 3 + nsp : 0);
	size_t i, left = 0;
	json_t *it;
	json_array_foreach(items, i, it) {
		/* The first items (counts, convergence, hidden helpers, the headlines) always
		 * fit; the later ones give way to the solver's table. */
		if (!item(&o, json_string_value(it), i < 8 ? NBW_SUMMARY_LINES : NBW_SUMMARY_LINES - reserve))
			left++;
	}
	json_decref(items);
	p2p_matrices(&o, p->matrices);
	if (report)
		nbw_report_summary_solver(f, report);
	if (left)
		fprintf(f, "  (%zu more finding%s in the report's summary)\n", left,
			left == 1 ? "" : "s");
	if (results) {
		nbw_term_wrapf(f, "  ", "    ", NBW_TERM_COLUMNS,
			       "results: %s (every matrix, device and outlier: nodebw matrix %s)%s",
			       results, results, took);
		if (html[0])
			nbw_term_wrapf(f, "  ", "    ", NBW_TERM_COLUMNS,
				       "report: %s (and report.md beside it)", html);
	} else {
		nbw_term_wrapf(f, "  ", "    ", NBW_TERM_COLUMNS,
			       "every matrix, device and outlier: nodebw matrix FILE%s", took);
	}
}

void nbw_print_failures(FILE *f, const struct nbw_doc *doc)
{
	json_t *all = nbw_analysis_failures(doc->root);
	size_t n = nbw_analysis_failure_count(all), shown = 0;
	struct nbw_pv_failure x;
	if (n)
		nbw_term_wrapf(f, "nodebw: ", "  ", NBW_TERM_COLUMNS,
			       "%zu measurement%s or solver run%s failed or %s not verified (exit "
			       "status %d; report.md lists them all):",
			       n, n == 1 ? "" : "s", n == 1 ? "" : "s", n == 1 ? "was" : "were",
			       NBW_EXIT_PARTIAL);
	for (size_t i = 0; nbw_pv_failure(all, i, &x); i++) {
		if (x.skipped)
			continue;
		if (shown++ == 20) {
			fprintf(f, "  ... and %zu more\n", n - 20);
			break;
		}
		/* One line each, whole: scripts grep them (kind: what: reason). */
		fprintf(f, "  %s: %s: %s\n", x.kind, x.what, x.reason);
	}
	json_decref(all);
}
