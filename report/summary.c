/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The summary: what a reader wants before the detail. Per path (api, direction, mode, host
 * memory, peer access) the bandwidth at the largest size and the best one, the fraction
 * of the theoretical figure, the latency of the smallest transfer; the OpenMP-vs-native
 * gap per mode with its sign; the solver's speedups and both models' accuracy; the
 * outliers; and a sentence for each. Built once as JSON (report/summary.json), then
 * written as the report's first section and printed at the end of `nodebw run`.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/products.h"
#include "nodebw/findings.h"
#include "nodebw/gap.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/sizes.h"
#include "nodebw/speedref.h"
#include "nodebw/stats.h"
#include "drop_cause.h"
#include "gap_words.h"
#include "nodebw/jget.h"
#include "rdoc_priv.h"

/* ---- paths -------------------------------------------------------------------------- */

static bool same_path(const struct nbw_curve *a, const struct nbw_curve *b)
{
	return a->file == b->file && strcmp(a->key.api, b->key.api) == 0 &&
	       strcmp(a->key.dir, b->key.dir) == 0 && strcmp(a->key.mode, b->key.mode) == 0 &&
	       strcmp(a->key.host_mem, b->key.host_mem) == 0 &&
	       strcmp(a->key.peer, b->key.peer) == 0 && strcmp(a->key.bind, b->key.bind) == 0;
}

/* The main run's single-stream curves (not the hidden-helper sweep, not two streams); a
 * copy within one device is no path between two. */
static bool path_curve(const struct nbw_curve *c)
{
	if (c->n == 0 || strcmp(c->key.conc, "single") != 0 || c->key.sweep[0])
		return false;
	const char *arrow = strstr(c->key.devices, "->");
	return !arrow || strncmp(c->key.devices, arrow + 2, (size_t)(arrow - c->key.devices)) != 0 ||
	       arrow[2 + (arrow - c->key.devices)] != '\0';
}

static double median_of(double *v, size_t n)
{
	return nbw_median(v, n); /* sorts; NaN when n == 0 */
}

/* The kind of the first device a curve touches ("host-plugin", "cuda", ...). */
static const char *device_kind(const struct nbw_rinput *in, const struct nbw_curve *c)
{
	int dev = -1;
	for (const char *p = c->key.devices; *p && dev < 0; p++)
		if (*p >= '0' && *p <= '9')
			dev = atoi(p);
	size_t i;
	json_t *d;
	json_array_foreach(in->devices, i, d) {
		struct nbw_rv_device v;
		nbw_rv_device_read(d, &v);
		if (v.file == c->file && strcmp(v.api, c->key.api) == 0 && v.id == dev)
			return v.kind;
	}
	return "";
}

static void size_text(double bytes, char *out, size_t len)
{
	nbw_size_label(bytes > 0 ? (uint64_t)bytes : 0, out, len);
}

static bool host_memory_kind(const char *kind)
{
	return strcmp(kind, "host-plugin") == 0 || strcmp(kind, "host-memory") == 0;
}

/* Microseconds for people: 3 significant digits, no exponent. */
static void us_text(double us, char *out, size_t len)
{
	snprintf(out, len, us >= 100.0 ? "%.0f" : "%.3g", us);
}

/* "what it means" of one path; the sentences say once that host memory has no link. */
static void path_meaning(const struct nbw_rs_path *p, char *out, size_t len)
{
	double large = p->large_gbps, best = p->best_gbps, fr = p->fraction;
	char lsz[32], bsz[32];
	size_text(p->large_bytes, lsz, sizeof(lsz));
	size_text(p->best_bytes, bsz, sizeof(bsz));
	bool host = host_memory_kind(p->device_kind);
	size_t w = 0;
	if (!isfinite(large)) {
		snprintf(out, len, "not measured at %s, the comparison size (its sweep is in the "
			 "transfers section)", lsz);
		return;
	}
	if (isfinite(fr)) {
		const char *how = fr >= 0.8 ? "near the limit of its link"
				  : fr >= 0.5 ? "below its link"
					      : "far below its link";
		w += (size_t)snprintf(out + w, len - w, "%s (%.0f %% of %.1f GB/s at %s)", how,
				      100.0 * fr, p->theoretical_gbps, lsz);
	} else {
		w += (size_t)snprintf(out + w, len - w, "%s", host ? "host memory: no link"
								   : "no theoretical figure");
	}
	/* A cause only where the measurements recorded one (drop_cause.c), never a guess. */
	const char *cause = p->drop_cause;
	if (w < len && isfinite(best) && best > 1.25 * large)
		w += (size_t)snprintf(out + w, len - w,
				      "; peaks at %s, %.1fx the comparison size%s%s%s", bsz,
				      best / large, cause[0] ? " (" : "", cause, cause[0] ? ")" : "");
	double lat = p->latency_us;
	if (w < len && isfinite(lat) && lat > 5.0)
		snprintf(out + w, len - w, "; slow small transfers (%.0f us for %s)", lat,
			 p->small_size);
}

static json_t *path_json(const struct nbw_rinput *in, const struct nbw_curve *const *g, size_t n,
			 json_t *tables, json_t *matrices)
{
	const struct nbw_curve *c0 = g[0];
	/* The path's figure is at the run's comparison size, the median over every device or
	 * pair of it there (nbw_path_at_comparison, as the headlines); the sweep's best and
	 * the smallest size's latency come from its curves. */
	int members = 0;
	long long cmp = -1;
	double large = nbw_path_at_comparison(tables, matrices, c0->key.api, c0->key.dir,
					      c0->key.mode, c0->key.host_mem, c0->key.peer,
					      c0->key.bind, &members, &cmp);
	double lb = cmp > 0 ? (double)cmp : 0, best = -1, best_b = 0, small_b = INFINITY, theo = -1;
	for (size_t i = 0; i < n; i++) {
		small_b = fmin(small_b, g[i]->pt[0].bytes);
		if (g[i]->theoretical_gbps > 0 && theo < 0)
			theo = g[i]->theoretical_gbps;
		for (size_t k = 0; k < g[i]->n; k++)
			if (g[i]->pt[k].gbps > best) {
				best = g[i]->pt[k].gbps;
				best_b = g[i]->pt[k].bytes;
			}
	}
	/* The best is never below the path's own figure: the curves are the sweep of device 0
	 * and the first pair, the comparison figure the median over every device there. */
	if (isfinite(large) && large > best) {
		best = large;
		best_b = lb;
	}
	double *sv = calloc(n, sizeof(double));
	size_t ns = 0;
	json_t *ends = json_array();
	for (size_t i = 0; sv && i < n; i++) {
		if (g[i]->pt[0].bytes == small_b)
			sv[ns++] = g[i]->pt[0].seconds * 1e6;
		json_array_append_new(ends, json_string(g[i]->key.devices));
	}
	double lat = sv ? median_of(sv, ns) : NAN;
	free(sv);
	char lsz[32], ssz[32], bsz[32];
	size_text(lb, lsz, sizeof(lsz));
	size_text(small_b, ssz, sizeof(ssz));
	size_text(best_b, bsz, sizeof(bsz));
	json_t *p = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:s, s:o, s:f, "
			      "s:s, s:I, s:I, s:s, s:s}",
			      "file", c0->file, "api", c0->key.api, "direction", c0->key.dir,
			      "mode", c0->key.mode, "host_mem", c0->key.host_mem, "peer_access",
			      c0->key.peer, "binding", c0->key.bind, "device_kind",
			      device_kind(in, c0), "endpoints", ends, "large_bytes", (json_int_t)lb,
			      "large_size", lsz, "large_gbps", isfinite(large) ? json_real(large) : json_null(), "best_gbps", best,
			      "best_size", bsz, "best_bytes", (json_int_t)best_b, "small_bytes",
			      (json_int_t)small_b,
			      "small_size", ssz, "link", c0->link);
	json_object_set_new(p, "members", json_integer(members));
	json_object_set_new(p, "latency_us", isfinite(lat) ? json_real(lat) : json_null());
	json_object_set_new(p, "theoretical_gbps", theo > 0 ? json_real(theo) : json_null());
	json_object_set_new(p, "fraction",
			    theo > 0 && isfinite(large) ? json_real(large / theo) : json_null());
	char cause[200], m[600];
	nbw_report_drop_cause(g, n, lb, best_b, cause, sizeof(cause));
	json_object_set_new(p, "drop_cause", cause[0] ? json_string(cause) : json_null());
	struct nbw_rs_path pv;
	nbw_rs_path_of(p, &pv);
	path_meaning(&pv, m, sizeof(m));
	json_object_set_new(p, "meaning", json_string(m));
	return p;
}

static json_t *paths_json(const struct nbw_rinput *in)
{
	json_t *out = json_array();
	const struct nbw_curves *cs = &in->curves;
	const struct nbw_curve **g = calloc(cs->n ? cs->n : 1, sizeof(*g));
	bool *done = calloc(cs->n ? cs->n : 1, sizeof(*done));
	for (size_t i = 0; g && done && i < cs->n; i++) {
		if (done[i] || !path_curve(&cs->c[i]))
			continue;
		size_t n = 0;
		for (size_t k = i; k < cs->n; k++)
			if (!done[k] && path_curve(&cs->c[k]) && same_path(&cs->c[i], &cs->c[k])) {
				g[n++] = &cs->c[k];
				done[k] = true;
			}
		size_t f = cs->c[i].file >= 0 && (size_t)cs->c[i].file < in->nfiles
				   ? (size_t)cs->c[i].file : 0;
		const struct nbw_products *p = nbw_rinput_products(in, f);
		if (p)
			json_array_append_new(out, path_json(in, g, n, p->device_tables,
							     p->matrices));
	}
	free(g);
	free(done);
	return out;
}

/* ---- gaps, solver, outliers --------------------------------------------------------- */

json_t *nbw_report_doc_gaps(const struct nbw_rinput *in, size_t f)
{
	const struct nbw_products *p = nbw_rinput_products(in, f);
	return p ? p->gaps : NULL;
}

static void gap_meaning(const struct nbw_pv_gap *s, char *out, size_t len)
{
	const struct nbw_pv_gap_band *lb = &s->small, *bb = &s->large;
	double lr = lb->median_relative_gap, br = bb->median_relative_gap;
	size_t w = 0;
	/* A band whose intervals overlap says so, without a signed figure. */
	if (isfinite(lr) && !lb->measurable)
		w += (size_t)snprintf(out + w, len - w, "small sizes: %s", NBW_GAP_NOT_MEASURABLE);
	else if (isfinite(lr)) {
		/* The extra time only where its sign agrees with the verdict (gap_words.c). */
		double us = lb->median_extra_us;
		char t[48] = "";
		if (nbw_gap_extra_agrees(lr, us))
			snprintf(t, sizeof(t), ", %+.*f us per transfer", fabs(us) < 10 ? 2 : 0,
				 us);
		w += (size_t)snprintf(out + w, len - w, "small sizes: %s (%+.0f %%%s)",
				      lb->verdict, 100.0 * lr, t);
	}
	if (w < len && isfinite(br) && !bb->measurable)
		w += (size_t)snprintf(out + w, len - w, "%slarge sizes: %s", w ? "; " : "",
				      NBW_GAP_NOT_MEASURABLE);
	else if (w < len && isfinite(br))
		w += (size_t)snprintf(out + w, len - w, "%slarge sizes: %s (%+.2f GB/s, %+.0f %%)",
				      w ? "; " : "", bb->verdict, bb->median_gap_gbps, 100.0 * br);
	if (w < len && s->nsign_changes) {
		char sz[32];
		size_text((double)nbw_pv_gap_sign_change(s, 0), sz, sizeof(sz));
		w += (size_t)snprintf(out + w, len - w, "; the sign changes at %s%s", sz,
				      s->nsign_changes > 1 ? " and more" : "");
	}
	if (!w)
		snprintf(out, len, "not measured in both APIs");
}

/* The gap per (native api, OpenMP mode, devices), over directions and host memory. */
static json_t *gaps_json(const struct nbw_rinput *in)
{
	json_t *out = json_array();
	for (size_t f = 0; f < in->nfiles; f++) {
		json_t *g = nbw_report_doc_gaps(in, f);
		struct nbw_pv_gap s;
		for (size_t i = 0; nbw_pv_gap(g, i, &s); i++) {
			if (strcmp(s.direction, "all") != 0)
				continue;
			json_t *o = json_deep_copy(s.row);
			char m[400];
			gap_meaning(&s, m, sizeof(m));
			json_object_set_new(o, "file", json_integer((json_int_t)f));
			json_object_set_new(o, "meaning", json_string(m));
			json_array_append_new(out, o);
		}
	}
	return out;
}

static json_t *outliers_json(const struct nbw_rinput *in)
{
	json_t *items = json_array();
	size_t not_judged = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		const struct nbw_products *p = nbw_rinput_products(in, f);
		if (!p)
			continue;
		size_t i;
		json_t *x;
		json_array_foreach(p->outliers, i, x) {
			struct nbw_pv_outlier o;
			nbw_pv_outlier(x, &o);
			json_t *c = json_pack("{s:i, s:s, s:s, s:s}", "file", (int)f, "what",
					      o.what, "where", o.where, "reason", o.reason);
			json_array_append_new(items, c);
		}
		/* The groups the median rule did not judge (fewer than its minimum). */
		json_array_foreach(p->outlier_groups, i, x) {
			struct nbw_pv_group g;
			not_judged += nbw_pv_group(x, &g) && !g.median_rule;
		}
	}
	return json_pack("{s:o, s:i}", "items", items, "groups_not_judged", (int)not_judged);
}

/* ---- the headline sentences ---------------------------------------------------------- */

static const char *dir_words(const char *d)
{
	return strcmp(d, "htod") == 0 ? "host-to-device" : strcmp(d, "dtoh") == 0 ? "device-to-host"
							  : "device-to-device";
}

static void path_name(const struct nbw_rs_path *p, char *out, size_t len)
{
	bool mem = strcmp(p->host_mem, "none") != 0, peer = strcmp(p->peer_access, "n/a") != 0;
	snprintf(out, len, "%s %s %s%s%s%s%s", p->api, p->direction, p->mode, mem ? " " : "",
		 mem ? p->host_mem : "", peer ? " peer " : "", peer ? p->peer_access : "");
}

static void add(json_t *sent, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *sent, const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(sent, json_string(buf));
}

/* Per direction, the fastest path of each API at the comparison size. */
static void fastest_by_direction(json_t *sent, const struct nbw_rs_path *pv, size_t n)
{
	static const char *dirs[] = {"htod", "dtoh", "p2p"};
	for (int d = 0; d < 3; d++) {
		char buf[900];
		size_t w = 0;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(pv[i].direction, dirs[d]) != 0)
				continue;
			/* The best path of this API in this direction, once. */
			const struct nbw_rs_path *b = &pv[i];
			bool first = true;
			for (size_t k = 0; k < n; k++) {
				const struct nbw_rs_path *q = &pv[k];
				if (strcmp(q->direction, dirs[d]) || strcmp(q->api, pv[i].api))
					continue;
				if (k < i)
					first = false;
				if (q->large_gbps > b->large_gbps)
					b = q;
			}
			if (!first || w >= sizeof(buf))
				continue;
			char frs[160] = "";
			if (isfinite(b->fraction))
				snprintf(frs, sizeof(frs), ", %.0f %% of %.1f GB/s (%s)",
					 100.0 * b->fraction, b->theoretical_gbps, b->link);
			bool mem = strcmp(b->host_mem, "none") != 0;
			w += (size_t)snprintf(buf + w, sizeof(buf) - w, "%s%s %.2f GB/s (%s%s%s%s%s)",
					      w ? "; " : "", b->api, b->large_gbps, b->mode,
					      mem ? " " : "", mem ? b->host_mem : "", frs,
					      b->best_gbps > 1.25 * b->large_gbps
						      ? ", more at smaller sizes"
						      : "");
		}
		if (w)
			add(sent, "Fastest %s at %s, per API: %s.", dir_words(dirs[d]),
			    pv[0].large_size, buf);
	}
}

/* The paths closest to and furthest from their link's theoretical figure, and the fastest
 * small transfer per API. */
static void theory_and_latency(json_t *sent, const struct nbw_rs_path *pv, size_t n)
{
	const struct nbw_rs_path *lo = NULL, *hi = NULL;
	for (size_t i = 0; i < n; i++) {
		double fr = pv[i].fraction;
		if (!isfinite(fr))
			continue;
		if (!lo || fr < lo->fraction)
			lo = &pv[i];
		if (!hi || fr > hi->fraction)
			hi = &pv[i];
	}
	if (lo && hi) {
		char a[96], b[96];
		path_name(hi, a, sizeof(a));
		path_name(lo, b, sizeof(b));
		add(sent, "Against theoretical: closest %s at %.0f %% (%s), furthest %s at %.0f %% "
			  "(%s).", a, 100.0 * hi->fraction, hi->link, b, 100.0 * lo->fraction,
		    lo->link);
	}
	char buf[600];
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		const struct nbw_rs_path *b = NULL;
		bool first = true;
		for (size_t k = 0; k < n; k++) {
			const struct nbw_rs_path *q = &pv[k];
			if (strcmp(q->api, pv[i].api) || !isfinite(q->latency_us))
				continue;
			if (k < i)
				first = false;
			if (!b || q->latency_us < b->latency_us)
				b = q;
		}
		if (!first || !b || w >= sizeof(buf))
			continue;
		char us[16];
		us_text(b->latency_us, us, sizeof(us));
		w += (size_t)snprintf(buf + w, sizeof(buf) - w, "%s%s %s us (%s %s %s, %s)",
				      w ? "; " : "", b->api, us, b->direction, b->mode, b->host_mem,
				      b->small_size);
	}
	if (w)
		add(sent, "Smallest transfers, the fastest path per API: %s.", buf);
}

static void fastest_sentences(json_t *sent, json_t *paths)
{
	size_t n = json_array_size(paths);
	struct nbw_rs_path *pv = calloc(n ? n : 1, sizeof(*pv));
	if (!pv)
		return;
	bool host_only = n > 0;
	for (size_t i = 0; i < n; i++) {
		nbw_rs_path_of(json_array_get(paths, i), &pv[i]);
		host_only = host_only && host_memory_kind(pv[i].device_kind);
	}
	if (host_only)
		add(sent, "Every device measured is host memory (OpenMP host-plugin devices and "
			  "the host reference): the figures are copies within the host's memory, "
			  "with no link and no theoretical figure to hold them against; on a GPU "
			  "node the same summary has the links.");
	fastest_by_direction(sent, pv, n);
	theory_and_latency(sent, pv, n);
	free(pv);
}

struct gap_cell {
	const char *mode, *band;
	int devices;
	double rel;
};

static int cmp_cell(const void *a, const void *b)
{
	double x = fabs(((const struct gap_cell *)a)->rel), y = fabs(((const struct gap_cell *)b)->rel);
	return (x < y) - (x > y);
}

/* "+70 % async large sizes on 2 devices, ..." for the \p n largest of \p c. */
static void cells_text(const struct gap_cell *c, size_t nc, size_t n, char *out, size_t len)
{
	size_t w = 0;
	out[0] = '\0';
	for (size_t i = 0; i < nc && i < n && w < len; i++)
		w += (size_t)snprintf(out + w, len - w, "%s%+.0f %% %s %s sizes on %d device%s",
				      i ? ", " : "", 100.0 * c[i].rel, c[i].mode, c[i].band,
				      c[i].devices, c[i].devices == 1 ? "" : "s");
}

/* Where OpenMP loses and wins against the native API: counts, then the largest gaps; over
 * the rows of every file that take a mode over every direction and host memory. */
static void gap_sentences(json_t *sent, const struct nbw_rinput *in)
{
	size_t ng = 0;
	struct nbw_pv_gap s;
	const char *native = "";
	for (size_t f = 0; f < in->nfiles; f++)
		for (size_t i = 0; nbw_pv_gap(nbw_report_doc_gaps(in, f), i, &s); i++)
			if (!strcmp(s.direction, "all")) {
				native = ng++ ? native : s.native_api;
			}
	if (!ng)
		return;
	struct gap_cell *slow = calloc(2 * ng, sizeof(*slow)), *fast = calloc(2 * ng, sizeof(*fast));
	size_t ns = 0, nf = 0, cells = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		for (size_t i = 0; nbw_pv_gap(nbw_report_doc_gaps(in, f), i, &s); i++) {
			if (strcmp(s.direction, "all"))
				continue;
			const struct nbw_pv_gap_band *bands[] = {&s.small, &s.large};
			static const char *const words[] = {"small", "large"};
			for (int b = 0; slow && fast && b < 2; b++) {
				double r = bands[b]->median_relative_gap;
				if (!isfinite(r))
					continue;
				cells++;
				if (fabs(r) <= NBW_GAP_CLEAR || !bands[b]->measurable)
					continue;
				struct gap_cell c = {s.omp_mode, words[b], s.devices ? s.devices : 1,
						     r};
				if (r > 0)
					slow[ns++] = c;
				else
					fast[nf++] = c;
			}
		}
	}
	char a[600], b[600];
	if (slow && fast) {
		qsort(slow, ns, sizeof(*slow), cmp_cell);
		qsort(fast, nf, sizeof(*fast), cmp_cell);
		cells_text(slow, ns, 3, a, sizeof(a));
		cells_text(fast, nf, 3, b, sizeof(b));
		if (ns)
			add(sent, "Where OpenMP loses: slower than %s in %zu of %zu (mode, size "
				  "band, device count) cases; the largest: %s (+ = share of the "
				  "native bandwidth OpenMP lacks).", native, ns, cells, a);
		if (nf)
			add(sent, "OpenMP faster than %s in %zu case%s: %s.", native, nf,
			    nf == 1 ? "" : "s", b);
		if (!ns && !nf)
			add(sent, "No clear OpenMP-vs-%s gap: every case within %.0f %%.", native,
			    100.0 * NBW_GAP_CLEAR);
	}
	free(slow);
	free(fast);
}

/* One model's MAPE of \p a (0: one-device, 1: compute-calibrated, 2: fitted, 3: the
 * paper's, 4: the compute-only baseline). */
static double mape_of(const struct nbw_rs_accuracy *a, int m)
{
	const double v[5] = {a->onedev_mape, a->compcal_mape, a->extended_mape, a->paper_mape,
			     a->conly_mape};
	return v[m];
}

/* The models' accuracy and the best speedup, from \p sum (a summary holding the solver). */
static void model_sentences(json_t *sent, json_t *sum)
{
	struct nbw_rs_accuracy a;
	if (!nbw_rs_accuracy(sum, 0, &a)) {
		const char *why = nbw_rs_solver_why(sum);
		add(sent, "Models: not validated (%s).",
		    why[0] ? why : "no multi-device solver runs");
		return;
	}
	/* Per model: the range and median of its MAPE over the configurations it predicts
	 * on stable grids. */
	static const char *label[5] = {
		"one-device model (probes and one-device runs only, before porting)",
		"compute-calibrated model (needs the versions run without their halo copies)",
		"fitted model (also the versions' timed runs at the other N)", "the paper's",
		"baseline 'step = measured compute-only half'"};
	size_t n = 0, unstable = 0, grids = 0, matched = 0;
	for (; nbw_rs_accuracy(sum, n, &a); n++) {
		matched += strcmp(a.measure, "speed-matched") == 0;
		unstable += (size_t)a.unstable_sizes;
		grids += (size_t)a.unstable_sizes + (size_t)a.sizes;
	}
	double *x = calloc(n + 1, sizeof(double));
	char part[5][160];
	for (int m = 0; m < 5; m++) {
		size_t k = 0;
		double lo = INFINITY, hi = 0.0;
		for (size_t i = 0; x && nbw_rs_accuracy(sum, i, &a); i++) {
			double v = mape_of(&a, m);
			if (!isfinite(v))
				continue;
			x[k++] = v;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
		if (k)
			snprintf(part[m], sizeof(part[m]), "%s MAPE %.1f-%.1f %% (median %.1f %%)",
				 label[m], 100 * lo, 100 * hi, 100 * median_of(x, k));
		else
			snprintf(part[m], sizeof(part[m]), "%s: no prediction", label[m]);
	}
	free(x);
	add(sent, "Models against the solver's measured runtimes%s, over %zu (G, version) "
		  "configurations: %s; %s; %s; %s; %s.",
	    matched == n   ? " (speed-matched: each halo run timed beside its compute-only "
			     "half)"
	    : matched > 0 ? " (speed-matched where the runs were paired, else the fastest round)"
			  : "",
	    n, part[0], part[1], part[2], part[3], part[4]);
	if (unstable)
		add(sent, "%zu of %zu grids were unstable (their measure differs by more than 1.2x "
			  "between rounds, largest/smallest): left out of the MAPE, marked in the "
			  "validation table.",
		    unstable, grids);
	struct nbw_rs_speedup sp, best;
	bool any = false;
	for (size_t i = 0; nbw_rs_speedup(sum, i, &sp); i++)
		if (!any || sp.best_speedup > best.best_speedup) {
			best = sp;
			any = true;
		}
	if (any)
		add(sent, "Best measured solver speedup: %s on %d devices, %.2fx over one device at "
			  "N = %d (ideal %d).", best.version, best.g, best.best_speedup, best.best_n,
		    best.g);
}

static void outlier_sentences(json_t *sent, const struct nbw_rinput *in)
{
	size_t n = 0, not_judged = 0;
	struct nbw_pv_outlier first = { 0 };
	for (size_t f = 0; f < in->nfiles; f++) {
		const struct nbw_products *p = nbw_rinput_products(in, f);
		size_t i;
		json_t *x;
		json_array_foreach(p ? p->outliers : NULL, i, x)
			if (n++ == 0)
				nbw_pv_outlier(x, &first);
		json_array_foreach(p ? p->outlier_groups : NULL, i, x) {
			struct nbw_pv_group g;
			not_judged += nbw_pv_group(x, &g) && !g.median_rule;
		}
	}
	if (!n) {
		add(sent, "No outliers: no device or pair is more than 10 %% below its peers%s.",
		    not_judged ? " (groups of fewer than 3 are not judged by the median rule)" : "");
		return;
	}
	add(sent, "%zu outlier%s; the first: %s %s: %s.", n, n == 1 ? "" : "s", first.what,
	    first.where, first.reason);
}

/* The stages measured under disturbance (results "disturbance", tools/run.c), per file:
 * one sentence each with its first reason; [{file, stage, reasons}] for summary.json. */
static json_t *disturbance_sentences(json_t *sent, const struct nbw_rinput *in)
{
	json_t *out = json_array();
	size_t quiet = 0, stages = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		size_t i;
		json_t *st;
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[f], &d);
		json_array_foreach(d.stages, i, st) {
			struct nbw_rv_stage s;
			nbw_rv_stage_read(st, &s);
			stages++;
			if (!s.disturbed) {
				quiet++;
				continue;
			}
			json_t *rs = s.reasons;
			json_array_append_new(out, json_pack("{s:i, s:s, s:O}", "file", (int)f,
							     "stage", s.stage, "reasons",
							     rs ? rs : json_null()));
			add(sent, "Measured under disturbance: the %s stage%s (%s%s); its figures "
				  "may be slower than the machine can give.",
			    s.stage, in->nfiles > 1 ? " of a file" : "",
			    json_string_value(json_array_get(rs, 0))
				    ? json_string_value(json_array_get(rs, 0))
				    : "see results.json",
			    json_array_size(rs) > 1 ? "; and more" : "");
		}
	}
	if (stages && quiet == stages)
		add(sent, "No stage was measured under disturbance (other processes, CPU steal, "
			  "memory reclaim and kdamond stayed below their thresholds).");
	return out;
}

/* The machine speed reference (results "disturbance.speed_reference", common/speedref.c), per
 * file: how far its slowest point fell behind the run's best, in the kernel that fell
 * furthest; [{file, slowest_x, kernel, at, points}] for summary.json. */
static json_t *speed_sentences(json_t *sent, const struct nbw_rinput *in)
{
	static const char *const name[3] = {"core kernel", "cache copy", "memory copy"};
	json_t *out = json_array();
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[f], &d);
		json_t *list = d.speed_reference;
		struct nbw_speedref best;
		nbw_speedref_best(list, &best);
		size_t i, n = 0;
		json_t *p;
		double worst = 0.0;
		int wk = 0;
		const char *wat = "";
		json_array_foreach(list, i, p) {
			bool any = false;
			double slower[3];
			nbw_speedref_slower(p, &best, slower);
			for (int k = 0; k < 3; k++) {
				if (isnan(slower[k]))
					continue;
				any = true;
				if (slower[k] > worst) {
					worst = slower[k];
					wk = k;
					struct nbw_rv_speedpoint sp;
					nbw_rv_speedpoint_read(p, &sp);
					wat = sp.at;
				}
			}
			n += any;
		}
		if (!n)
			continue;
		json_array_append_new(out, json_pack("{s:i, s:f, s:s, s:s, s:i}", "file", (int)f,
						     "slowest_x", worst, "kernel", name[wk], "at",
						     wat, "points", (int)n));
		if (worst > NBW_SPEEDREF_AT_BEST)
			add(sent, "The machine's own speed moved during the run%s: its speed reference "
				  "(fixed host work, %zu points) ran up to %.2fx slower than its best "
				  "(%s, %s), which no disturbance counter sees; figures taken near "
				  "then are slower than the machine can give.",
			    in->nfiles > 1 ? " of a file" : "", n, worst, name[wk], wat);
		else
			add(sent, "The machine's own speed held during the run%s: its speed reference "
				  "(fixed host work, %zu points) stayed within %.2fx of its best.",
			    in->nfiles > 1 ? " of a file" : "", n, worst);
	}
	return out;
}

json_t *nbw_report_summary(const struct nbw_rinput *in)
{
	json_t *paths = paths_json(in);
	json_t *gaps = gaps_json(in);
	json_t *model = nbw_model_summary(in);
	json_t *outl = outliers_json(in);
	json_t *sent = json_array();
	fastest_sentences(sent, paths);
	gap_sentences(sent, in);
	json_t *with_solver = json_pack("{s:O}", "solver", model); /* what the views read */
	model_sentences(sent, with_solver);
	json_decref(with_solver);
	if (in->nfiles != 1) /* one file: the summary's items have the outliers */
		outlier_sentences(sent, in);
	json_t *dist = disturbance_sentences(sent, in);
	json_t *speed = speed_sentences(sent, in);
	/* The one summary's items (analysis/summary_items.c): what the end of nodebw run
	 * prints, and this summary's first list. One results file only: merged files are
	 * several runs, each with its own. */
	const struct nbw_products *p0 = in->nfiles == 1 ? nbw_rinput_products(in, 0) : NULL;
	json_t *items = p0 ? nbw_summary_items(in->docs[0], p0, sent) : json_null();
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "units",
			 "GB/s = 1e9 B/s; the path's figure is at the comparison size (the one "
			 "size every device and pair of the run has), the median over its "
			 "repetitions and over the devices or pairs of the path; best = the "
			 "highest median at any size of the sweep; latency = median time of one "
			 "transfer at the smallest size, in microseconds",
			 "items", items, "sentences", sent, "paths", paths, "gaps", gaps, "solver", model,
			 "outliers", outl, "disturbed_stages", dist, "speed_reference", speed);
}
