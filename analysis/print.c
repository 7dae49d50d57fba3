/* SPDX-License-Identifier: BSD-3-Clause */
/* Terminal output of the analyses, in the style of `nvidia-smi topo -m` and CUDA's
 * p2pBandwidthLatencyTest: aligned columns, "-" for what was not measured, the unit stated
 * above every table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "nodebw/bidir.h"
#include "nodebw/analysis.h"
#include "nodebw/sizes.h"

#define UNITS "GB/s = 1e9 B/s"

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void fmt_num(char *buf, size_t len, double x, const char *f)
{
	if (isfinite(x))
		snprintf(buf, len, f, x);
	else
		snprintf(buf, len, "-");
}

static void fmt_pct(char *buf, size_t len, double frac)
{
	if (isfinite(frac))
		snprintf(buf, len, "%.0f%%", 100.0 * frac);
	else
		snprintf(buf, len, "-");
}

/* The median's 95 % interval as "+-0.8 %", "+-3.2 % n.c." where the repetitions stopped
 * before it was within +-1 % (not converged), "-" where the document has none. */
static void fmt_ci(char *buf, size_t len, json_t *row)
{
	double hw = num(row, "ci_half_width_pct");
	json_t *conv = json_object_get(row, "converged");
	if (isfinite(hw))
		snprintf(buf, len, "+-%.1f %%%s", hw, json_is_false(conv) ? " n.c." : "");
	else
		snprintf(buf, len, "-");
}

static void series_title(FILE *f, json_t *mx)
{
	fprintf(f, "%s p2p %s %s", jstr(mx, "api"), jstr(mx, "mode"),
		jstr(mx, "concurrency"));
	if (strcmp(jstr(mx, "peer_access"), "n/a") != 0)
		fprintf(f, ", peer access %s", jstr(mx, "peer_access"));
	const char *bind = jstr(mx, "binding");
	if (bind[0] && strcmp(bind, "local") != 0)
		fprintf(f, ", bind %s", bind);
}

enum what { BANDWIDTH, DIRECTION, FRACTION, LATENCY, LINK };

static void cell_text(json_t *cell, enum what w, char *buf, size_t len)
{
	if (!json_is_object(cell)) {
		snprintf(buf, len, "-");
		return;
	}
	bool same = json_is_integer(json_object_get(cell, "src")) &&
		    json_equal(json_object_get(cell, "src"), json_object_get(cell, "dst"));
	switch (w) {
	case BANDWIDTH:
		fmt_num(buf, len, num(cell, "gbps"), "%.2f");
		break;
	case DIRECTION: /* cell (a, b) of both directions at once: a -> b's own figure */
		fmt_num(buf, len,
			num(json_array_get(json_object_get(json_object_get(cell, "bidir"),
							   "directions"), 0), "gbps"),
			"%.2f");
		break;
	case FRACTION:
		fmt_pct(buf, len, num(cell, "fraction"));
		break;
	case LATENCY:
		fmt_num(buf, len, num(cell, "latency_us"), "%.2f");
		break;
	case LINK:
		snprintf(buf, len, "%s", same ? "X" : jstr(cell, "link"));
		if (strcmp(buf, NBW_HOST_MEMORY_LABEL) == 0)
			snprintf(buf, len, "HOST");
		break;
	}
	if (same && w != LINK && strcmp(buf, "-") != 0 && strlen(buf) + 1 < len)
		strcat(buf, "*");
}

/* Cell (r, c); each direction's own figure of a pair measured once as (c, r) is that
 * run's second direction. */
static void grid_text(json_t *cells, size_t r, size_t c, enum what w, char *buf, size_t len)
{
	json_t *cell = json_array_get(json_array_get(cells, r), c);
	json_t *t = json_array_get(json_array_get(cells, c), r);
	if (w == DIRECTION && !json_object_get(cell, "bidir") && json_object_get(t, "bidir")) {
		fmt_num(buf, len,
			num(json_array_get(json_object_get(json_object_get(t, "bidir"),
							   "directions"), 1), "gbps"),
			"%.2f");
		return;
	}
	cell_text(cell, w, buf, len);
}

static void print_grid(FILE *f, json_t *mx, enum what w)
{
	json_t *ids = json_object_get(mx, "devices"), *cells = json_object_get(mx, "cells");
	size_t n = json_array_size(ids);
	int width = w == LINK ? 6 : 9;
	char buf[NBW_RV_LINK_LEN];
	for (size_t r = 0; r < n; r++)
		for (size_t c = 0; c < n; c++) {
			grid_text(cells, r, c, w, buf, sizeof(buf));
			if ((int)strlen(buf) + 1 > width)
				width = (int)strlen(buf) + 1;
		}
	fprintf(f, "  %7s", "src\\dst");
	for (size_t c = 0; c < n; c++)
		fprintf(f, " %*lld", width, (long long)json_integer_value(json_array_get(ids, c)));
	fprintf(f, "\n");
	for (size_t r = 0; r < n; r++) {
		fprintf(f, "  %7lld", (long long)json_integer_value(json_array_get(ids, r)));
		for (size_t c = 0; c < n; c++) {
			grid_text(cells, r, c, w, buf, sizeof(buf));
			fprintf(f, " %*s", width, buf);
		}
		fprintf(f, "\n");
	}
}

static bool has_fraction(json_t *mx)
{
	json_t *cells = json_object_get(mx, "cells");
	for (size_t r = 0; r < json_array_size(cells); r++)
		for (size_t c = 0; c < json_array_size(cells); c++)
			if (json_is_number(json_object_get(
				    json_array_get(json_array_get(cells, r), c), "fraction")))
				return true;
	return false;
}

static bool has_diagonal(json_t *mx)
{
	json_t *cells = json_object_get(mx, "cells");
	for (size_t r = 0; r < json_array_size(cells); r++)
		if (json_is_object(json_array_get(json_array_get(cells, r), r)))
			return true;
	return false;
}

/* The devices or pairs of a table measured at other sizes only: said, with the size. */
static void print_missing(FILE *f, json_t *missing, const char *size, const char *what)
{
	size_t k;
	json_t *x;
	if (!json_array_size(missing))
		return;
	fprintf(f, "  not measured at %s (no figure from another size): %s%s", size, what,
		json_array_size(missing) == 1 ? "" : "s");
	json_array_foreach(missing, k, x) {
		if (json_is_string(x))
			fprintf(f, " %s", json_string_value(x));
		else
			fprintf(f, " %lld", (long long)json_integer_value(x));
	}
	fprintf(f, "\n");
}

void nbw_analysis_print_matrices(FILE *f, json_t *matrices)
{
	size_t i;
	json_t *mx;
	if (json_array_size(matrices) == 0) {
		fprintf(f, "\nP2P matrices: no verified device-to-device measurement\n");
		return;
	}
	json_array_foreach(matrices, i, mx) {
		bool bidir = strcmp(jstr(mx, "concurrency"), "bidir") == 0;
		fprintf(f, "\n");
		series_title(f, mx);
		char bsz[32], lsz[32];
		nbw_size_label((uint64_t)json_integer_value(json_object_get(mx, "bandwidth_bytes")),
			       bsz, sizeof(bsz));
		nbw_size_label((uint64_t)json_integer_value(json_object_get(mx, "latency_bytes")),
			       lsz, sizeof(lsz));
		fprintf(f, ": bandwidth at %s, %s (median; %s; rows = source, columns = "
			   "destination)\n",
			bsz, bidir ? "the sum of both directions" : "one direction", UNITS);
		print_grid(f, mx, BANDWIDTH);
		if (bidir) {
			fprintf(f, "  each direction at %s (cell a, b: a -> b's own figure while b -> a "
				   "copies; %s)\n", bsz, NBW_BIDIR_DEFINITION);
			print_grid(f, mx, DIRECTION);
		}
		if (has_fraction(mx)) {
			fprintf(f, "  fraction of theoretical (%s; '-' = not known)\n", UNITS);
			print_grid(f, mx, FRACTION);
		} else {
			fprintf(f, "  fraction of theoretical: no theoretical figure is known\n");
		}
		fprintf(f, "  link (as nvidia-smi topo -m; X = same device, HOST = host memory, no "
			   "link)\n");
		print_grid(f, mx, LINK);
		fprintf(f, "  latency at %s, microseconds (median time of one transfer%s)\n",
			lsz, bidir ? ", both directions at once" : "");
		print_grid(f, mx, LATENCY);
		if (has_diagonal(mx))
			fprintf(f, "  * %s\n", NBW_SAME_DEVICE_LABEL);
		print_missing(f, json_object_get(mx, "not_at_bandwidth_bytes"), bsz, "pair");
		json_t *notes = json_object_get(mx, "notes"), *note;
		size_t k;
		json_array_foreach(notes, k, note)
			if (strstr(json_string_value(note), "host memory"))
				fprintf(f, "  note: %s\n", json_string_value(note));
	}
}

void nbw_analysis_print_device_tables(FILE *f, json_t *tables)
{
	size_t i, k;
	json_t *t, *row;
	if (json_array_size(tables) == 0) {
		fprintf(f, "\nHost<->device: no verified single-stream htod/dtoh measurement\n");
		return;
	}
	json_array_foreach(tables, i, t) {
		char tsz[32];
		nbw_size_label((uint64_t)json_integer_value(json_object_get(t, "bytes")), tsz,
			       sizeof(tsz));
		fprintf(f, "\n%s %s %s %s: one device at a time at %s (%s; 95%% interval of "
			   "the median as +- %% of it, n.c. = not within +-1 %%)\n",
			jstr(t, "api"), jstr(t, "direction"), jstr(t, "mode"),
			jstr(t, "host_mem"), tsz, UNITS);
		fprintf(f, "  %6s %10s %15s %-24s %12s %9s\n", "device", "GB/s", "95% interval",
			"link", "theor. GB/s", "fraction");
		json_array_foreach(json_object_get(t, "rows"), k, row) {
			char g[32], ci[32], th[32], fr[16];
			fmt_num(g, sizeof(g), num(row, "gbps"), "%.2f");
			fmt_ci(ci, sizeof(ci), row);
			fmt_num(th, sizeof(th), num(row, "theoretical_gbps"), "%.1f");
			fmt_pct(fr, sizeof(fr), num(row, "fraction"));
			fprintf(f, "  %6lld %10s %15s %-24s %12s %9s\n",
				(long long)json_integer_value(json_object_get(row, "device")), g, ci,
				jstr(row, "link"), th, fr);
		}
		print_missing(f, json_object_get(t, "not_at_bytes"), tsz, "device");
		json_t *note;
		json_array_foreach(json_object_get(t, "notes"), k, note)
			if (strstr(json_string_value(note), "host memory"))
				fprintf(f, "  note: %s\n", json_string_value(note));
	}
}

void nbw_analysis_print_outliers(FILE *f, json_t *outliers, json_t *groups)
{
	size_t i;
	json_t *o;
	fprintf(f, "\nOutliers (%s; rule: %s)\n", UNITS, NBW_OUTLIER_RULE);
	fprintf(f, "  judged at the comparison size (the size of the matrices and tables), grouped by api, direction, mode, host memory, "
		   "concurrency, peer access, binding, size and link kind; the median rule needs "
		   "a group of at least %d\n", NBW_OUTLIER_MIN_GROUP);
	if (json_array_size(outliers) == 0) {
		fprintf(f, "  no outliers\n");
	} else {
		fprintf(f, "  %-7s %-7s %-5s %-5s %-6s %-8s %-6s %-16s %9s %11s %11s %8s\n",
			"what", "where", "api", "dir", "mode", "host mem", "conc", "link",
			"GB/s", "peer median", "theor. GB/s", "fraction");
		json_array_foreach(outliers, i, o) {
			char g[32], med[32], th[32], fr[16];
			fmt_num(g, sizeof(g), num(o, "gbps"), "%.2f");
			fmt_num(med, sizeof(med), num(o, "peer_median_gbps"), "%.2f");
			fmt_num(th, sizeof(th), num(o, "theoretical_gbps"), "%.1f");
			fmt_pct(fr, sizeof(fr), num(o, "fraction"));
			fprintf(f, "  %-7s %-7s %-5s %-5s %-6s %-8s %-6s %-16s %9s %11s %11s %8s\n",
				jstr(o, "what"), jstr(o, "where"), jstr(o, "api"),
				jstr(o, "direction"), jstr(o, "mode"),
				jstr(o, "host_mem"), jstr(o, "concurrency"),
				jstr(o, "link"), g, med, th, fr);
			fprintf(f, "          reason: %s\n", jstr(o, "reason"));
		}
	}
	size_t small = 0;
	json_array_foreach(groups, i, o)
		small += !json_is_true(json_object_get(o, "median_rule"));
	if (small)
		fprintf(f, "  %zu of %zu groups have fewer than %d members: only the theoretical "
			   "rule was applied to them (see --json \"outlier_groups\")\n",
			small, json_array_size(groups), NBW_OUTLIER_MIN_GROUP);
}
