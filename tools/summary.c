/* SPDX-License-Identifier: BSD-3-Clause */
#include "summary.h"

#include <math.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/cli.h"
#include "nodebw/gap.h"

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

/* Best HtoD and DtoH per (api, device) over every mode and host memory kind. */
static void best_per_device(FILE *f, json_t *tables)
{
	struct best {
		char api[16];
		int dev;
		double g[2];
		char how[2][40];
		char link[48];
	} b[256];
	size_t nb = 0, i, j;
	json_t *t, *r;
	json_array_foreach(tables, i, t) {
		int d = strcmp(str(t, "direction"), "dtoh") == 0;
		json_array_foreach(json_object_get(t, "rows"), j, r) {
			double g = json_number_value(json_object_get(r, "gbps"));
			int dev = (int)json_integer_value(json_object_get(r, "device"));
			size_t k = 0;
			while (k < nb && !(b[k].dev == dev && strcmp(b[k].api, str(t, "api")) == 0))
				k++;
			if (k == nb) {
				if (nb == sizeof(b) / sizeof(b[0]))
					continue;
				memset(&b[nb], 0, sizeof(b[nb]));
				snprintf(b[nb].api, sizeof(b[nb].api), "%s", str(t, "api"));
				b[nb].dev = dev;
				snprintf(b[nb].link, sizeof(b[nb].link), "%s", str(r, "link"));
				nb++;
			}
			if (isfinite(g) && g > b[k].g[d]) {
				b[k].g[d] = g;
				snprintf(b[k].how[d], sizeof(b[k].how[d]), "%s %s", str(t, "mode"),
					 str(t, "host_mem"));
			}
		}
	}
	if (!nb)
		return;
	fprintf(f, "\n  best host<->device bandwidth per device (GB/s, largest size, one stream; "
		   "best mode and host memory):\n");
	fprintf(f, "    %-5s %3s %9s %-16s %9s %-16s %s\n", "api", "dev", "HtoD", "(how)", "DtoH",
		"(how)", "link");
	for (size_t k = 0; k < nb; k++) {
		char g[2][24];
		for (int d = 0; d < 2; d++)
			snprintf(g[d], sizeof(g[d]), b[k].how[d][0] ? "%.2f" : "-", b[k].g[d]);
		fprintf(f, "    %-5s %3d %9s %-16s %9s %-16s %s\n", b[k].api, b[k].dev, g[0],
			b[k].how[0], g[1], b[k].how[1], b[k].link);
	}
}

/* The bandwidth block of each single-stream P2P matrix (peer access on or n/a). */
static void p2p_matrices(FILE *f, json_t *mx)
{
	size_t i, r, c;
	json_t *m, *row, *cell;
	json_array_foreach(mx, i, m) {
		if (strcmp(str(m, "concurrency"), "single") != 0 ||
		    strcmp(str(m, "peer_access"), "disabled") == 0)
			continue;
		json_t *devs = json_object_get(m, "devices");
		fprintf(f, "\n  %s p2p %s%s: GB/s at %lld B (rows = source, columns = "
			   "destination; link in brackets)\n", str(m, "api"), str(m, "mode"),
			strcmp(str(m, "peer_access"), "enabled") == 0 ? ", peer access on" : "",
			(long long)json_integer_value(json_object_get(m, "bandwidth_bytes")));
		fprintf(f, "    %7s", "src\\dst");
		json_array_foreach(devs, c, cell)
			fprintf(f, " %16lld", (long long)json_integer_value(cell));
		fprintf(f, "\n");
		json_array_foreach(json_object_get(m, "cells"), r, row) {
			fprintf(f, "    %7lld",
				(long long)json_integer_value(json_array_get(devs, r)));
			json_array_foreach(row, c, cell) {
				char buf[40] = "-";
				if (json_is_object(cell)) {
					const char *l = str(cell, "link");
					snprintf(buf, sizeof(buf), "%.2f [%.13s]",
						 json_number_value(json_object_get(cell, "gbps")),
						 strcmp(l, NBW_HOST_MEMORY_LABEL) == 0 ? "HOST" : l);
				}
				fprintf(f, " %16s", buf);
			}
			fprintf(f, "\n");
		}
	}
}

static double band(json_t *s, const char *b, const char *key)
{
	json_t *v = json_object_get(json_object_get(s, b), key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void gap_per_mode(FILE *f, json_t *gaps)
{
	size_t i;
	json_t *s;
	bool any = false;
	json_array_foreach(json_object_get(gaps, "summary"), i, s) {
		if (strcmp(str(s, "direction"), "all") != 0)
			continue;
		if (!any)
			fprintf(f, "\n  OpenMP vs native (over directions and host memory; gap = "
				   "native - OpenMP, + OpenMP slower; medians over small sizes <= 64 "
				   "KiB and large sizes >= 1 MiB):\n");
		any = true;
		char small[96] = "not measured", large[96] = "not measured";
		double lr = band(s, "latency_band", "median_relative_gap");
		double br = band(s, "bandwidth_band", "median_relative_gap");
		json_t *lb = json_object_get(s, "latency_band"), *bb = json_object_get(s, "bandwidth_band");
		if (isfinite(lr) && !nbw_gap_measurable(lb))
			snprintf(small, sizeof(small), "%s", NBW_GAP_NOT_MEASURABLE);
		else if (isfinite(lr))
			snprintf(small, sizeof(small), "%s (%+.0f %%, %+.2f us per transfer)",
				 nbw_gap_band_verdict(lb), 100.0 * lr,
				 band(s, "latency_band", "median_extra_us"));
		if (isfinite(br) && !nbw_gap_measurable(bb))
			snprintf(large, sizeof(large), "%s", NBW_GAP_NOT_MEASURABLE);
		else if (isfinite(br))
			snprintf(large, sizeof(large), "%s (%+.3f GB/s, %+.0f %%)",
				 nbw_gap_band_verdict(bb),
				 band(s, "bandwidth_band", "median_gap_gbps"), 100.0 * br);
		int dv = (int)json_integer_value(json_object_get(s, "devices"));
		fprintf(f, "    %-5s %-6s %d device%s: small sizes %s; large sizes %s\n",
			str(s, "native_api"), str(s, "omp_mode"), dv, dv == 1 ? "" : "s", small, large);
	}
}

/* Every device at once, one row per (api, pattern): the mode and memory with the highest
 * aggregate (`nodebw matrix` prints them all). */
static json_t *best_at_once(json_t *rows)
{
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(rows, i, r) {
		double g = json_number_value(json_object_get(r, "aggregate_gbps"));
		size_t k;
		json_t *o;
		bool seen = false;
		json_array_foreach(out, k, o) {
			if (strcmp(str(o, "api"), str(r, "api")) || strcmp(str(o, "pattern"), str(r, "pattern")))
				continue;
			seen = true;
			if (g > json_number_value(json_object_get(o, "aggregate_gbps")))
				json_array_set(out, k, r);
			break;
		}
		if (!seen)
			json_array_append(out, r);
	}
	return out;
}

void nbw_summary_print(FILE *f, const struct nbw_doc *doc, double seconds)
{
	fprintf(f, "\n==== Summary (GB/s = 1e9 B/s) ====\n");
	/* nbw_summary_analyse stored them; computed here only for a document without. */
	json_t *tables = json_incref(json_object_get(doc->root, "device_tables"));
	if (!tables)
		tables = nbw_analysis_device_tables(doc->devices, doc->measurements);
	best_per_device(f, tables);
	json_decref(tables);
	json_t *mx = json_incref(json_object_get(doc->root, "matrices"));
	if (!mx)
		mx = nbw_analysis_matrices(doc->devices, doc->measurements);
	p2p_matrices(f, mx);
	json_decref(mx);
	json_t *best = best_at_once(json_object_get(doc->root, "all_at_once"));
	nbw_analysis_print_concurrent(f, best);
	json_decref(best);
	fprintf(f, "\n");
	nbw_analysis_print_outliers(f, json_object_get(doc->root, "outliers"),
				    json_object_get(doc->root, "outlier_groups"));
	gap_per_mode(f, json_object_get(doc->root, "gaps"));
	fprintf(f, "\n  every matrix (latency, bidirectional, peer access off, fraction of "
		   "theoretical) and every all-at-once series (above: the best mode and memory "
		   "of each): nodebw matrix RESULTS.json\n");
	fprintf(f, "  run time: %.1f s\n", seconds);
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
