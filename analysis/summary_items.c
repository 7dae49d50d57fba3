/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one summary of a results document (include/nodebw/findings.h): its items, in order,
 * each a finding with its figures and sizes. The end of `nodebw run`, `nodebw summary` and
 * the report's summary section print these items, so the three say the same things with the
 * same figures in the same order.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/findings.h"
#include "nodebw/gap.h"
#include "nodebw/products.h"
#include "nodebw/results_view.h"

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void add(json_t *items, const char *text)
{
	if (text[0])
		json_array_append_new(items, json_string(text));
}

/* The counts: measurements, verified, failed, skipped; devices per API with their kind. */
static void counts_text(const struct nbw_rv_doc *head, char *out, size_t len)
{
	size_t i, n = json_array_size(head->measurements), bad = 0, err = 0, w = 0;
	json_t *m, *d;
	json_array_foreach(head->measurements, i, m) {
		struct nbw_rv_meas x;
		nbw_rv_meas_read(NULL, m, &x);
		if (x.error)
			err++;
		else if (strcmp(x.verify_status, "passed") != 0)
			bad++;
	}
	w += (size_t)snprintf(out, len, "%zu measurements, %zu verified, %zu failed verification, "
				       "%zu with an error; %zu skipped; devices:", n, n - bad - err,
			      bad, err, json_array_size(head->skipped));
	const char *last = "";
	int count = 0;
	json_array_foreach(head->devices, i, d) {
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

/* The outliers in one item: how many, the first. */
static void outliers_text(json_t *all, char *out, size_t len)
{
	size_t n = json_array_size(all);
	out[0] = '\0';
	if (!n)
		return;
	json_t *x = json_array_get(all, 0);
	snprintf(out, len, "%zu outlier%s (more than 10 %% below their peers, or below 70 %% of "
		 "the theoretical figure); the first: %s", n, n == 1 ? "" : "s",
		 str(x, "reason")[0] ? str(x, "reason") : str(x, "what"));
}

static double band_gap(json_t *s, const char *b)
{
	json_t *band = json_object_get(s, b);
	json_t *v = json_object_get(band, "median_relative_gap");
	return json_is_number(v) && nbw_gap_measurable(band) ? json_number_value(v) : NAN;
}

/* The OpenMP-vs-native gap per mode and device count in one item: the median relative gap
 * of the small and of the large sizes. */
static void gap_text(json_t *gaps, char *out, size_t len)
{
	size_t i, w = 0;
	json_t *s;
	w += (size_t)snprintf(out, len, "OpenMP vs native (gap = native - OpenMP, + = OpenMP "
				       "slower; medians of the sizes <= 64 KiB / >= 1 MiB; nodebw "
				       "gap has the table):");
	size_t first = w;
	json_array_foreach(json_object_get(gaps, "summary"), i, s) {
		if (strcmp(str(s, "direction"), "all") != 0 || w >= len)
			continue;
		char sm[16] = "n/m", lg[16] = "n/m";
		double a = band_gap(s, "latency_band"), b = band_gap(s, "bandwidth_band");
		if (isfinite(a))
			snprintf(sm, sizeof(sm), "%+.0f %%", 100.0 * a);
		if (isfinite(b))
			snprintf(lg, sizeof(lg), "%+.0f %%", 100.0 * b);
		int dv = (int)json_integer_value(json_object_get(s, "devices"));
		w += (size_t)snprintf(out + w, len - w, "%s %s %s %d dev. %s / %s",
				      w == first ? "" : ";", str(s, "native_api"),
				      str(s, "omp_mode"), dv, sm, lg);
	}
	if (w == first)
		out[0] = '\0';
}

json_t *nbw_summary_items(json_t *root, const struct nbw_products *p, json_t *sentences)
{
	json_t *items = json_array();
	struct nbw_rv_doc head;
	nbw_rv_doc_read(root, &head);
	char text[1600];
	counts_text(&head, text, sizeof(text));
	add(items, text);
	if (nbw_findings_not_converged(head.measurements, text, sizeof(text)))
		add(items, text);
	if (nbw_findings_hidden_helpers(head.measurements, text, sizeof(text)))
		add(items, text);
	const struct nbw_headline *h = p->headlines;
	size_t nh = p->nheadlines;
	char last[16] = "";
	for (size_t i = 0; i < nh; i++) {
		if (strcmp(h[i].api, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", h[i].api);
		if (nbw_headline_text(h, nh, h[i].api, text, sizeof(text)))
			add(items, text);
	}
	outliers_text(p->outliers, text, sizeof(text));
	add(items, text);
	if (!sentences) {
		gap_text(p->gaps, text, sizeof(text));
		add(items, text);
	}
	if (nbw_findings_kernel_vs_copy(p->kernel_vs_copy, text, sizeof(text)))
		add(items, text);
	size_t i;
	json_t *s;
	json_array_foreach(sentences, i, s) {
		/* The fastest path per API and direction: the headlines above say it. */
		if (json_is_string(s) && strncmp(json_string_value(s), "Fastest ", 8) != 0)
			add(items, json_string_value(s));
	}
	return items;
}
