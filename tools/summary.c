/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The end of `nodebw probe` and `nodebw run` (and `nodebw summary`): the whole-node analyses
 * stored in the document, and the one summary, at most NBW_SUMMARY_LINES lines on a node of
 * host-plugin devices (doc/run.md says what it holds, in order).
 */
#include "summary.h"
#include "findings.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/cli.h"
#include "nodebw/gap.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"

void nbw_summary_analyse(struct nbw_doc *doc)
{
	json_t *groups = NULL;
	json_t *out = nbw_analysis_outliers(doc->devices, doc->measurements, &groups);
	nbw_doc_set(doc, "outliers", out);
	nbw_doc_set(doc, "outlier_groups", groups ? groups : json_array());
	nbw_doc_set(doc, "all_at_once", nbw_analysis_concurrent(doc->devices, doc->measurements));
	nbw_doc_set(doc, "matrices", nbw_analysis_matrices(doc->devices, doc->measurements));
	nbw_doc_set(doc, "device_tables",
		    nbw_analysis_device_tables(doc->devices, doc->measurements));
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* The summary's length on a node of host-plugin devices (links add their matrices). */
#define NBW_SUMMARY_LINES 40
#define NBW_SUMMARY_WIDTH 100

/* The summary being written: its stream and the lines so far. */
struct out {
	FILE *f;
	int lines;
};

/* The lines \p text takes wrapped to NBW_SUMMARY_WIDTH after a lead of \p lead columns;
 * with \p f, written (the first line after \p first, the rest after \p rest). */
static int wrap(FILE *f, const char *first, const char *rest, const char *text)
{
	const char *lead = first;
	int lines = 0;
	while (*text) {
		size_t room = NBW_SUMMARY_WIDTH - strlen(lead), n = strlen(text);
		if (n > room) {
			n = room;
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = room;
		}
		if (f)
			fprintf(f, "%s%.*s\n", lead, (int)n, text);
		lines++;
		text += n;
		while (*text == ' ')
			text++;
		lead = rest;
	}
	return lines;
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The counts: measurements, verified, failed, skipped; devices per API with their kind. */
static void counts_text(const struct nbw_doc *doc, char *out, size_t len)
{
	size_t i, n = json_array_size(doc->measurements), bad = 0, err = 0, w = 0;
	json_t *m, *d;
	struct nbw_rv_doc head;
	nbw_rv_doc_read(doc->root, &head);
	json_array_foreach(doc->measurements, i, m) {
		struct nbw_rv_meas x;
		nbw_rv_meas_read(NULL, m, &x);
		if (x.error)
			err++;
		else if (strcmp(x.verify_status, "passed") != 0)
			bad++;
	}
	w += (size_t)snprintf(out, len, "%zu measurements, %zu verified, %zu failed verification, "
				       "%zu with an error; %zu skipped; devices:", n, n - bad - err,
			      bad, err, json_array_size(head.skipped));
	const char *last = "";
	int count = 0;
	json_array_foreach(doc->devices, i, d) {
		struct nbw_rv_device v;
		nbw_rv_device_read(d, &v);
		if (strcmp(v.api, last) && count && w < len)
			w += (size_t)snprintf(out + w, len - w, " %d;", count);
		if (strcmp(v.api, last) && w < len) {
			w += (size_t)snprintf(out + w, len - w, " %s %s x", v.api, v.kind);
			count = 0;
		}
		last = v.api;
		count++;
	}
	if (count && w < len)
		snprintf(out + w, len - w, " %d", count);
}

/* Per API, the best (mode and memory) of the per-device medians of HtoD and DtoH. */
static void api_transfers(json_t *tables, const char *api, char *out, size_t len)
{
	static const char *const dirs[2] = {"htod", "dtoh"};
	size_t w = 0;
	for (int d = 0; d < 2; d++) {
		double best = NAN;
		char how[64] = "";
		size_t i, j;
		json_t *t, *r;
		json_array_foreach(tables, i, t) {
			if (strcmp(str(t, "api"), api) || strcmp(str(t, "direction"), dirs[d]))
				continue;
			double v[256];
			size_t n = 0;
			json_array_foreach(json_object_get(t, "rows"), j, r)
				if (n < 256 && isfinite(json_number_value(json_object_get(r, "gbps"))))
					v[n++] = json_number_value(json_object_get(r, "gbps"));
			double med = median(v, n);
			if (isfinite(med) && !(med <= best)) {
				best = med;
				snprintf(how, sizeof(how), "%s %s", str(t, "mode"), str(t, "host_mem"));
			}
		}
		if (isfinite(best) && w < len)
			w += (size_t)snprintf(out + w, len - w, "%s%s %.2f GB/s (%s)", w ? ", " : "",
					      d ? "DtoH" : "HtoD", best, how);
	}
}

/* Per API, the best mode's median single-stream P2P cell. */
static void api_p2p(json_t *mx, const char *api, char *out, size_t len)
{
	double best = NAN;
	char how[64] = "";
	size_t i, r, c;
	json_t *m, *row, *cell;
	json_array_foreach(mx, i, m) {
		if (strcmp(str(m, "api"), api) || strcmp(str(m, "concurrency"), "single"))
			continue;
		double v[1024];
		size_t n = 0;
		json_array_foreach(json_object_get(m, "cells"), r, row)
			json_array_foreach(row, c, cell)
				if (r != c && json_is_object(cell) && n < 1024)
					v[n++] = json_number_value(json_object_get(cell, "gbps"));
		double med = median(v, n);
		if (isfinite(med) && !(med <= best)) {
			best = med;
			snprintf(how, sizeof(how), "%s%s", str(m, "mode"),
				 strcmp(str(m, "peer_access"), "enabled") == 0 ? ", peer access" : "");
		}
	}
	if (isfinite(best))
		snprintf(out, len, "P2P %.2f GB/s (%s)", best, how);
}

/* Per API, the highest aggregate of every device at once. */
static void api_at_once(json_t *rows, const char *api, char *out, size_t len)
{
	double best = NAN;
	char how[64] = "";
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		double g = json_number_value(json_object_get(r, "aggregate_gbps"));
		if (strcmp(str(r, "api"), api) || !isfinite(g) || g <= best)
			continue;
		best = g;
		snprintf(how, sizeof(how), "%s %s", str(r, "pattern"), str(r, "mode"));
	}
	if (isfinite(best))
		snprintf(out, len, "every device at once %.2f GB/s (%s)", best, how);
}

/* One line per API: its transfers at the largest size (medians over its devices or pairs,
 * the best mode and memory). */
static void api_lines(struct out *o, const struct nbw_doc *doc, json_t *tables, json_t *mx)
{
	size_t i;
	json_t *d;
	const char *last = "";
	json_array_foreach(doc->devices, i, d) {
		struct nbw_rv_device v;
		nbw_rv_device_read(d, &v);
		const char *api = v.api;
		if (strcmp(api, last) == 0)
			continue;
		last = api;
		char hd[200] = "", p2p[100] = "", all[100] = "", text[420];
		api_transfers(tables, api, hd, sizeof(hd));
		api_p2p(mx, api, p2p, sizeof(p2p));
		api_at_once(json_object_get(doc->root, "all_at_once"), api, all, sizeof(all));
		if (!hd[0] && !p2p[0] && !all[0])
			continue;
		snprintf(text, sizeof(text), "%s (largest size, median over devices or pairs): %s%s%s%s%s",
			 api, hd, hd[0] && p2p[0] ? ", " : "", p2p, (hd[0] || p2p[0]) && all[0] ? ", " : "",
			 all);
		item(o, text, NBW_SUMMARY_LINES - 4);
	}
}

/* Whether matrix \p m has a link to show: a cell whose link is not host memory. */
static bool has_links(json_t *m)
{
	size_t r, c;
	json_t *row, *cell;
	json_array_foreach(json_object_get(m, "cells"), r, row)
		json_array_foreach(row, c, cell)
			if (r != c && json_is_object(cell) && str(cell, "link")[0] &&
			    strcmp(str(cell, "link"), NBW_HOST_MEMORY_LABEL) != 0)
				return true;
	return false;
}

/* The bandwidth block of each single-stream P2P matrix with links to show (real GPU pairs;
 * host-plugin devices have none: their matrices stay with nodebw matrix). */
static void p2p_matrices(struct out *o, json_t *mx)
{
	size_t i, r, c;
	json_t *m, *row, *cell;
	json_array_foreach(mx, i, m) {
		if (strcmp(str(m, "concurrency"), "single") != 0 ||
		    strcmp(str(m, "peer_access"), "disabled") == 0 || !has_links(m))
			continue;
		json_t *devs = json_object_get(m, "devices");
		fprintf(o->f, "\n  %s p2p %s%s: GB/s at %lld B (rows = source, columns = "
			      "destination; link in brackets)\n", str(m, "api"), str(m, "mode"),
			strcmp(str(m, "peer_access"), "enabled") == 0 ? ", peer access on" : "",
			(long long)json_integer_value(json_object_get(m, "bandwidth_bytes")));
		fprintf(o->f, "    %7s", "src\\dst");
		json_array_foreach(devs, c, cell)
			fprintf(o->f, " %16lld", (long long)json_integer_value(cell));
		fprintf(o->f, "\n");
		o->lines += 3;
		json_array_foreach(json_object_get(m, "cells"), r, row) {
			fprintf(o->f, "    %7lld", (long long)json_integer_value(json_array_get(devs, r)));
			json_array_foreach(row, c, cell) {
				char buf[40] = "-";
				if (json_is_object(cell))
					snprintf(buf, sizeof(buf), "%.2f [%.13s]",
						 json_number_value(json_object_get(cell, "gbps")),
						 str(cell, "link"));
				fprintf(o->f, " %16s", buf);
			}
			fprintf(o->f, "\n");
			o->lines++;
		}
	}
}

/* The outliers in one item: how many, the first. */
static void outliers_item(struct out *o, const struct nbw_doc *doc, int limit)
{
	json_t *all = json_object_get(doc->root, "outliers");
	size_t n = json_array_size(all);
	if (!n)
		return;
	char text[600];
	json_t *x = json_array_get(all, 0);
	snprintf(text, sizeof(text), "%zu outlier%s (more than 10 %% below their peers); the "
		 "first: %s", n, n == 1 ? "" : "s", str(x, "reason")[0] ? str(x, "reason") : str(x, "what"));
	item(o, text, limit);
}

static double band_gap(json_t *s, const char *b)
{
	json_t *band = json_object_get(s, b);
	json_t *v = json_object_get(band, "median_relative_gap");
	return json_is_number(v) && nbw_gap_measurable(band) ? json_number_value(v) : NAN;
}

/* The OpenMP-vs-native gap per mode and device count in one item (probe; a run's report
 * sentences say it): the median relative gap of the small and of the large sizes. */
static void gap_item(struct out *o, json_t *gaps, int limit)
{
	char text[900];
	size_t i, w = 0;
	json_t *s;
	w += (size_t)snprintf(text, sizeof(text), "OpenMP vs native (gap = native - OpenMP, + = "
				  "OpenMP slower; medians of the sizes <= 64 KiB / >= 1 MiB; "
				  "nodebw gap has the table):");
	const char *first = text + w;
	json_array_foreach(json_object_get(gaps, "summary"), i, s) {
		if (strcmp(str(s, "direction"), "all") != 0 || w >= sizeof(text))
			continue;
		char sm[16] = "n/m", lg[16] = "n/m";
		double a = band_gap(s, "latency_band"), b = band_gap(s, "bandwidth_band");
		if (isfinite(a))
			snprintf(sm, sizeof(sm), "%+.0f %%", 100.0 * a);
		if (isfinite(b))
			snprintf(lg, sizeof(lg), "%+.0f %%", 100.0 * b);
		int dv = (int)json_integer_value(json_object_get(s, "devices"));
		w += (size_t)snprintf(text + w, sizeof(text) - w, "%s %s %s %d dev. %s / %s",
				      text + w == first ? "" : ";", str(s, "native_api"),
				      str(s, "omp_mode"), dv, sm, lg);
	}
	if (text + w != first)
		item(o, text, limit);
}

/* The report's sentences that fit before \p limit (but the fastest paths, which the API
 * lines have); how many did not. */
static size_t report_sentences(struct out *o, json_t *report, int limit)
{
	size_t i, left = 0;
	json_t *s;
	json_array_foreach(json_object_get(report, "sentences"), i, s) {
		/* The fastest path per API and direction: the API lines above say it. */
		if (strncmp(json_string_value(s), "Fastest ", 8) == 0)
			continue;
		if (!item(o, json_string_value(s), limit))
			left++;
	}
	return left;
}

void nbw_summary_print(FILE *f, const struct nbw_doc *doc, json_t *report, double seconds)
{
	struct out o = {f, 2};
	fprintf(f, "\n==== Summary (GB/s = 1e9 B/s; latency in microseconds) ====\n");
	char text[1200];
	counts_text(doc, text, sizeof(text));
	item(&o, text, NBW_SUMMARY_LINES);
	if (nbw_findings_not_converged(doc->measurements, text, sizeof(text)))
		item(&o, text, NBW_SUMMARY_LINES);
	if (nbw_findings_hidden_helpers(doc->measurements, text, sizeof(text)))
		item(&o, text, NBW_SUMMARY_LINES);
	/* nbw_summary_analyse stored them; computed here only for a document without. */
	json_t *tables = json_incref(json_object_get(doc->root, "device_tables"));
	if (!tables)
		tables = nbw_analysis_device_tables(doc->devices, doc->measurements);
	json_t *mx = json_incref(json_object_get(doc->root, "matrices"));
	if (!mx)
		mx = nbw_analysis_matrices(doc->devices, doc->measurements);
	api_lines(&o, doc, tables, mx);
	/* The solver's table (run) and the closing lines keep their room. */
	json_t *speedups = json_object_get(json_object_get(report, "solver"), "speedups");
	int reserve = 3 + (json_array_size(speedups) ? 2 + (int)json_array_size(speedups) : 0);
	outliers_item(&o, doc, NBW_SUMMARY_LINES - reserve);
	if (!report)
		gap_item(&o, json_object_get(doc->root, "gaps"), NBW_SUMMARY_LINES - reserve);
	if (nbw_findings_kernel_vs_copy(doc->devices, doc->measurements, text, sizeof(text)))
		item(&o, text, NBW_SUMMARY_LINES - reserve);
	size_t left = report ? report_sentences(&o, report, NBW_SUMMARY_LINES - reserve) : 0;
	p2p_matrices(&o, mx);
	json_decref(tables);
	json_decref(mx);
	if (report)
		nbw_report_summary_solver(f, report);
	if (left)
		fprintf(f, "  (%zu more finding%s in report.md)\n", left, left == 1 ? "" : "s");
	char took[48] = "";
	if (seconds >= 0.0)
		snprintf(took, sizeof(took), "; run time %.1f s", seconds);
	fprintf(f, "  every matrix, device and outlier: nodebw matrix RESULTS.json%s%s\n",
		report ? "; every path and sentence: report.md" : "", took);
}

void nbw_print_failures(FILE *f, const struct nbw_doc *doc)
{
	json_t *all = nbw_analysis_failures(doc->root);
	size_t n = nbw_analysis_failure_count(all), shown = 0, i;
	json_t *x;
	if (n)
		fprintf(f, "\nnodebw: %zu measurement%s or solver run%s failed or %s not verified "
			   "(exit status %d; report.md lists them all):\n",
			n, n == 1 ? "" : "s", n == 1 ? "" : "s", n == 1 ? "was" : "were",
			NBW_EXIT_PARTIAL);
	json_array_foreach(all, i, x) {
		if (strcmp(str(x, "kind"), "skipped") == 0)
			continue;
		if (shown++ == 20) {
			fprintf(f, "  ... and %zu more\n", n - 20);
			break;
		}
		fprintf(f, "  %s: %s: %s\n", str(x, "kind"), str(x, "what"), str(x, "reason"));
	}
	json_decref(all);
}
