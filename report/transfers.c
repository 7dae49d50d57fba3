/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transfers section: per direction and mode one log-log plot of median bandwidth
 * against transfer size, one line per measured path (API, host memory, one or two devices,
 * peer access), the theoretical bandwidth of the link as a horizontal line when the
 * topology knew it, and the OpenMP-versus-native gap as the plot's note (the style of the
 * paper's Figure 4); then per direction a table of the alpha-beta fits, and the gap table.
 */
#include "nodebw/report.h"
#include "nodebw/sizes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/gap.h"
#include "nodebw/results_view.h"
#include "gap_words.h"
#include "rdoc_priv.h"

#define MAX_HLINES 4

static const char *const dirs[] = { "htod", "dtoh", "p2p" };
static const char *const modes[] = { "sync", "async", "nowait", "parallel", "kernel" };

static const char *dir_words(const char *dir)
{
	return strcmp(dir, "htod") == 0 ? "host to device"
	       : strcmp(dir, "dtoh") == 0 ? "device to host"
	       : "device to device";
}

static bool is_omp(const struct nbw_curve *c)
{
	return strcmp(c->key.api, "omp") == 0;
}

/* True when the curve's devices are host memory (host plugin, host regions): no link. */
static bool host_memory(const struct nbw_rinput *in, const struct nbw_curve *c)
{
	if (strstr(c->link, "host memory"))
		return true;
	size_t i, n = 0;
	json_t *d;
	json_array_foreach(in->devices, i, d) {
		struct nbw_rv_device v;
		nbw_rv_device_read(d, &v);
		if (v.file != c->file || strcmp(v.api, c->key.api) != 0)
			continue;
		const char *kind = v.kind;
		if (v.is_gpu == 1 ||
		    (strcmp(kind, "host-plugin") != 0 && strcmp(kind, "host-memory") != 0))
			return false;
		n++;
	}
	return n > 0;
}

/* One band of one row of the gap table in words: the row's own figures and verdict, never
 * a mean over rows, so that the caption reads as `nodebw gap` and the summary do. */
static void band_words(const struct nbw_pv_gap *row, bool small, char *out, size_t len)
{
	const struct nbw_pv_gap_band *b = small ? &row->small : &row->large;
	double rel = b->median_relative_gap;
	out[0] = '\0';
	if (!b->present || !isfinite(rel))
		return;
	if (!b->measurable)
		snprintf(out, len, "%s sizes %s", small ? "small" : "large", NBW_GAP_NOT_MEASURABLE);
	else if (small)
		nbw_gap_small_words(rel, b->median_extra_us, out, len);
	else
		snprintf(out, len, "large sizes %+.0f %% (%s)", 100.0 * rel, nbw_gap_verdict(rel));
}

/* The rows of the gap table (nbw_report_doc_gaps) for \p dir and \p mode, each as the gap
 * table has it: "OpenMP vs host: pinned, 1 device: small sizes +91 % (OpenMP slower, +0.20
 * us per transfer), large sizes +3 % (no clear gap); ..."; "" when there is none. */
static void gap_note(const struct nbw_rinput *in, json_t **gaps, const char *dir,
		     const char *mode, char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = '\0';
	for (size_t f = 0; f < in->nfiles && n < outlen; f++) {
		size_t rows = 0;
		struct nbw_pv_gap s;
		for (size_t i = 0; nbw_pv_gap(gaps[f], i, &s); i++) {
			if (strcmp(s.direction, dir) != 0 || strcmp(s.omp_mode, mode) != 0)
				continue;
			char small[112], large[64], mem[32] = "";
			band_words(&s, true, small, sizeof(small));
			band_words(&s, false, large, sizeof(large));
			if (!small[0] && !large[0])
				continue;
			if (s.host_mem[0] && strcmp(s.host_mem, "none") != 0)
				snprintf(mem, sizeof(mem), "%s, ", s.host_mem);
			int dv = s.devices;
			const char *native = s.native_api[0] ? s.native_api : "native";
			char head[96] = "";
			if (!rows)
				snprintf(head, sizeof(head), "OpenMP vs %s: ", native);
			if (!rows && in->nfiles > 1)
				snprintf(head, sizeof(head), "file %zu: OpenMP vs %s: ", f, native);
			int wr = snprintf(out + n, outlen - n, "%s%s%s%d device%s: %s%s%s",
					  n ? "; " : "", head, mem, dv, dv == 1 ? "" : "s", small,
					  small[0] && large[0] ? ", " : "", large);
			if (wr < 0 || (size_t)wr >= outlen - n) {
				out[n] = '\0';
				return;
			}
			n += (size_t)wr;
			rows++;
		}
	}
}

/* What tells the series of one plot apart. */
struct distinct {
	bool bind, hh, file;
};

static void series_title(const struct nbw_curve *c, const struct distinct *d, bool reference,
			 char *out, size_t outlen)
{
	const struct nbw_curve_key *k = &c->key;
	char devs[64];
	if (strcmp(k->conc, "single") == 0)
		snprintf(devs, sizeof(devs), "1 device (%s)", k->devices);
	else
		snprintf(devs, sizeof(devs), "2 devices (%s: %s)", k->conc, k->devices);
	bool mem = strcmp(k->host_mem, "none") != 0;
	snprintf(out, outlen, "%s%s%s%s%s, %s", k->api, reference ? " " : "",
		 reference ? k->mode : "", mem ? ", " : "", mem ? k->host_mem : "", devs);
	size_t n = strlen(out);
	if (strcmp(k->peer, "n/a") != 0)
		n += (size_t)snprintf(out + n, outlen - n, ", peer %s", k->peer);
	if (n < outlen && d->bind && k->bind[0])
		n += (size_t)snprintf(out + n, outlen - n, ", bind %s", k->bind);
	if (n < outlen && d->hh && k->hidden_helpers >= 0)
		n += (size_t)snprintf(out + n, outlen - n, ", %d hidden helpers",
				      k->hidden_helpers);
	if (n < outlen && strcmp(k->sweep, "planes") == 0 && c->n)
		n += (size_t)snprintf(out + n, outlen - n, ", plane sizes: fastest of %d processes",
				      c->pt[0].processes);
	if (n < outlen && d->file)
		n += (size_t)snprintf(out + n, outlen - n, " [file %d]", c->file);
	if (n < outlen && reference)
		snprintf(out + n, outlen - n, ", native reference");
}

static bool same_group(const struct nbw_curve *a, const struct nbw_curve *b)
{
	return strcmp(a->key.host_mem, b->key.host_mem) == 0 &&
	       strcmp(a->key.conc, b->key.conc) == 0 && strcmp(a->key.peer, b->key.peer) == 0;
}

/* Same colour for the same host memory, device count and peer access in every API, so an
 * OpenMP line and its native counterpart share it. */
static int colour_of(const struct nbw_curve *const *cv, size_t i)
{
	size_t first = i;
	for (size_t k = 0; k < i; k++)
		if (same_group(cv[k], cv[i])) {
			first = k;
			break;
		}
	int colour = 0;
	for (size_t j = 0; j <= first; j++) {
		bool fresh = true;
		for (size_t k = 0; k < j && fresh; k++)
			fresh = !same_group(cv[k], cv[j]);
		colour += fresh;
	}
	return colour;
}

static int cmp_curve(const void *a, const void *b)
{
	const struct nbw_curve *x = *(const struct nbw_curve *const *)a;
	const struct nbw_curve *y = *(const struct nbw_curve *const *)b;
	int r = is_omp(y) - is_omp(x); /* OpenMP first */
	if (!r)
		r = strcmp(x->key.api, y->key.api);
	if (!r)
		r = strcmp(x->key.conc, y->key.conc) * -1; /* single before dual/bidir */
	if (!r)
		r = strcmp(x->key.host_mem, y->key.host_mem);
	if (!r)
		r = strcmp(x->key.peer, y->key.peer);
	if (!r)
		r = x->file - y->file;
	if (!r)
		r = x->key.hidden_helpers - y->key.hidden_helpers;
	return r;
}

/* A kernel plot's references: the same API's sync copies (its blocking copy call) on the same
 * host memory, concurrency and devices as one of its \p own kernel curves. The new count. */
static size_t add_sync_twins(const struct nbw_curves *cs, const char *dir,
			     const struct nbw_curve **cv, size_t own)
{
	size_t n = own;
	for (size_t i = 0; i < cs->n; i++) {
		const struct nbw_curve *c = &cs->c[i];
		if (!c->n || strcmp(c->key.dir, dir) != 0 || strcmp(c->key.mode, "sync") != 0)
			continue;
		for (size_t j = 0; j < own; j++) {
			const struct nbw_curve_key *k = &cv[j]->key;
			if (strcmp(k->api, c->key.api) == 0 &&
			    strcmp(k->host_mem, c->key.host_mem) == 0 &&
			    strcmp(k->conc, c->key.conc) == 0 &&
			    strcmp(k->devices, c->key.devices) == 0 &&
			    strcmp(k->peer, c->key.peer) == 0 && cv[j]->file == c->file) {
				cv[n++] = c;
				break;
			}
		}
	}
	return n;
}

/* The curves of one plot into \p cv (sorted, OpenMP first), then the references after them
 * (\p ref true): OpenMP's nowait has no native twin, so the native async copies it is held
 * against in the gap table are drawn as references. The count of all, 0 when the plot has
 * no curve of its own. */
static size_t gather_curves(const struct nbw_curves *cs, const char *dir, const char *mode,
			    const struct nbw_curve **cv, bool *ref)
{
	size_t n = 0, nomp = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct nbw_curve *c = &cs->c[i];
		if (c->n && strcmp(c->key.dir, dir) == 0 && strcmp(c->key.mode, mode) == 0) {
			cv[n++] = c;
			nomp += is_omp(c);
		}
	}
	size_t own = n;
	if (strcmp(mode, "kernel") == 0)
		n = add_sync_twins(cs, dir, cv, own);
	if (strcmp(mode, "nowait") == 0 && nomp)
		for (size_t i = 0; i < cs->n; i++) {
			const struct nbw_curve *c = &cs->c[i];
			if (c->n && !is_omp(c) && strcmp(c->key.dir, dir) == 0 &&
			    strcmp(c->key.mode, "async") == 0)
				cv[n++] = c;
		}
	if (own == 0)
		return 0;
	qsort(cv, own, sizeof(*cv), cmp_curve);
	for (size_t i = own; i < n; i++)
		ref[i] = true;
	return n;
}

static struct distinct distinct_of(const struct nbw_curve *const *cv, size_t n, size_t nfiles)
{
	struct distinct d = { .file = nfiles > 1 };
	for (size_t i = 1; i < n; i++) {
		d.bind = d.bind || strcmp(cv[i]->key.bind, cv[0]->key.bind) != 0;
		for (size_t j = 0; j < i; j++)
			d.hh = d.hh || (strcmp(cv[i]->key.api, cv[j]->key.api) == 0 &&
					cv[i]->key.hidden_helpers != cv[j]->key.hidden_helpers);
	}
	return d;
}

/* The theoretical lines of a plot: one per distinct figure, at most MAX_HLINES. */
struct hlines {
	double v[MAX_HLINES];
	char title[MAX_HLINES][128];
	const char *ptr[MAX_HLINES];
	size_t n;
};

static void add_hline(struct hlines *h, const struct nbw_curve *c)
{
	double th = c->theoretical_gbps;
	if (!(th > 0) || h->n == MAX_HLINES)
		return;
	for (size_t k = 0; k < h->n; k++)
		if (fabs(h->v[k] - th) <= 1e-3 * th)
			return;
	h->v[h->n] = th;
	snprintf(h->title[h->n], sizeof(h->title[h->n]), "theoretical%s%s: %.3g GB/s%s",
		 c->link[0] ? " " : "", c->link, th, c->streams > 1 ? " (two streams)" : "");
	h->ptr[h->n] = h->title[h->n];
	h->n++;
}

static void plot_dir_mode(struct nbw_rdoc *r, const struct nbw_rinput *in, json_t **gaps,
			  const char *dir, const char *mode)
{
	const struct nbw_curves *cs = &in->curves;
	const struct nbw_curve **cv = calloc(cs->n ? cs->n : 1, sizeof(*cv));
	bool *ref = calloc(cs->n ? cs->n : 1, sizeof(*ref));
	size_t n = cv && ref ? gather_curves(cs, dir, mode, cv, ref) : 0;
	if (n == 0) {
		free(cv);
		free(ref);
		return;
	}
	struct distinct d = distinct_of(cv, n, in->nfiles);
	struct nbw_plot_series *ser = calloc(n, sizeof(*ser));
	char (*titles)[160] = calloc(n, sizeof(*titles));
	double **xs = calloc(n, sizeof(*xs)), **ys = calloc(n, sizeof(*ys));
	struct hlines hl = { .n = 0 };
	bool all_host = true;
	if (!ser || !titles || !xs || !ys)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct nbw_curve *c = cv[i];
		xs[i] = malloc(c->n * sizeof(double));
		ys[i] = malloc(c->n * sizeof(double));
		if (!xs[i] || !ys[i])
			goto out;
		for (size_t p = 0; p < c->n; p++) {
			xs[i][p] = c->pt[p].bytes;
			ys[i][p] = c->pt[p].gbps;
		}
		series_title(c, &d, ref[i], titles[i], sizeof(titles[i]));
		/* One colour per group; solid OpenMP, dashed native, dotted references; the
		 * plot writer gives repeats (the hidden-helper sweep) other point types. */
		bool two = c->streams > 1;
		ser[i] = (struct nbw_plot_series){
			.title = titles[i], .x = xs[i], .y = ys[i], .n = c->n,
			.style = ref[i] ? "lines lw 2" : "linespoints lw 2",
			.colour = 1 + (colour_of(cv, i) - 1) % NBW_PLOT_COLOURS,
			.dash = ref[i] ? 3 : is_omp(c) ? 1 : 2,
			.point = ref[i] ? 0 : is_omp(c) ? (two ? 5 : 7) : (two ? 4 : 6),
		};
		if (!ref[i]) {
			all_host = all_host && host_memory(in, c);
			add_hline(&hl, c);
		}
	}

	char name[64], title[160], note[256] = "", gapnote[1536], caption[2560];
	snprintf(name, sizeof(name), "bw-%s-%s", dir, mode);
	snprintf(title, sizeof(title), "%s, %s: median bandwidth against transfer size",
		 dir_words(dir), mode);
	/* The gap rows go in the caption, where they read as the gap table; the plot's own
	 * note line only says what its thin lines are. */
	gap_note(in, gaps, dir, mode, gapnote, sizeof(gapnote));
	if (strcmp(mode, "kernel") == 0 && n > 0)
		snprintf(note, sizeof(note), "Thin lines without points are the same API's sync "
			 "copy (its blocking copy call) on the same devices, the copy kernel's twin");
	const char *noline = hl.n ? ""
			     : all_host ? " No theoretical line: host memory, no link."
					: " No theoretical line: the topology gave no figure for "
					  "this link.";
	snprintf(caption, sizeof(caption), "%s (%s), %s: median bandwidth in GB/s (1e9 B/s) "
		 "against bytes per transfer, log-log; solid lines OpenMP, dashed lines native "
		 "APIs; two devices count the bytes of both streams.%s%s%s%s%s%s%s",
		 dir, dir_words(dir), mode, noline, note[0] ? " " : "", note,
		 note[0] ? "." : "", gapnote[0] ? " Gap per row of the gap table: " : "",
		 gapnote, gapnote[0] ? "." : "");
	struct nbw_plot p = {
		.name = name,
		.title = title,
		.xlabel = "bytes per transfer (decimal: 1 kB = 1000 B)",
		.ylabel = "bandwidth, GB/s (1e9 B/s)",
		.logx = true,
		.logy = true,
		.series = ser,
		.nseries = n,
		.hline = hl.v,
		.hline_title = hl.ptr,
		.nhline = hl.n,
		.note = note[0] ? note : NULL,
		.extra = "set format x '%.0s %cB'",
	};
	char head[96];
	snprintf(head, sizeof(head), "%s %s", dir_words(dir), mode);
	head[0] = (char)(head[0] - 'a' + 'A');
	nbw_rdoc_heading(r, 4, head);
	nbw_rdoc_plot(r, &p, caption);
out:
	for (size_t i = 0; i < n; i++) {
		if (xs)
			free(xs[i]);
		if (ys)
			free(ys[i]);
	}
	free(xs);
	free(ys);
	free(ser);
	free(titles);
	free(cv);
	free(ref);
}

/* Append "; " and a formatted note to \p buf (truncated at \p len, never past it). */
static void addf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void addf(char *buf, size_t len, const char *fmt, ...)
{
	size_t w = strlen(buf);
	if (w && w + 2 < len) {
		memcpy(buf + w, "; ", 3);
		w += 2;
	}
	if (w + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + w, len - w, fmt, ap);
	va_end(ap);
}

/* The interval of a point's median (GB/s), its relative half-width and whether the
 * repetitions met the target ("n.c." = not converged, with why they stopped); empty cells
 * for a document written before measurements had one. */
static void interval_cells(struct nbw_rtable *t, const struct nbw_curve_point *p)
{
	if (isfinite(p->ci_lo_gbps) && isfinite(p->ci_hi_gbps)) {
		char parts[64];
		snprintf(parts, sizeof(parts), "%.10g,%.10g", p->ci_lo_gbps, p->ci_hi_gbps);
		nbw_rtable_cellc(t, parts, "%.4g - %.4g", p->ci_lo_gbps, p->ci_hi_gbps);
	} else {
		nbw_rtable_cellc(t, ",", "%s", "");
	}
	if (isfinite(p->ci_half_width_pct))
		nbw_rtable_cell(t, "%.2f", p->ci_half_width_pct);
	else
		nbw_rtable_cell(t, "%s", "");
	if (p->converged < 0)
		nbw_rtable_cell(t, "%s", "");
	else if (p->converged)
		nbw_rtable_cell(t, "%s", "yes");
	else
		nbw_rtable_cell(t, "n.c. (%s)", p->stop[0] ? p->stop : "stopped");
}

/* What the fit table's paragraphs count: fits that do not describe their data, betas above
 * every measured size, paths of two sizes. */
struct fit_counts {
	size_t bad, above, two;
};

/* One path's row of the fit table. */
static void fit_row(struct nbw_rtable *t, const struct nbw_rinput *in, const struct nbw_curve *c,
		    struct fit_counts *k)
{
	struct nbw_abfit fit;
	int rc = nbw_abfit_curve_range(c, &fit);
	nbw_rtable_cell(t, "%d", c->file);
	nbw_rtable_cell(t, "%s", c->key.api);
	nbw_rtable_cell(t, "%s", c->key.mode);
	nbw_rtable_cell(t, "%s", c->key.host_mem);
	nbw_rtable_cell(t, "%d (%s)", c->streams, c->key.conc);
	nbw_rtable_cell(t, "%s", c->key.peer);
	if (c->key.hidden_helpers >= 0)
		nbw_rtable_cell(t, "%d", c->key.hidden_helpers);
	else
		nbw_rtable_cell(t, "%s", "");
	nbw_rtable_cell(t, "%zu", c->n);
	if (rc == 0) {
		char hb[32], lo[32], hi[32];
		nbw_human_bytes(fit.n_half_bytes, hb, sizeof(hb));
		nbw_size_label((uint64_t)fit.lo_bytes, lo, sizeof(lo));
		nbw_size_label((uint64_t)fit.hi_bytes, hi, sizeof(hi));
		char parts[96];
		snprintf(parts, sizeof(parts), "%.0f,%.0f,%zu", fit.lo_bytes, fit.hi_bytes,
			 fit.n);
		nbw_rtable_cellc(t, parts, "%s - %s (%zu of %zu)", lo, hi, fit.n, fit.n_all);
		nbw_rtable_cell(t, "%.3f", fit.alpha_s * 1e6);
		nbw_rtable_cell(t, "%.4g", fit.beta_gbps);
		nbw_rtable_cell(t, "%.0f", fit.n_half_bytes);
		nbw_rtable_cell(t, "%s", hb);
		nbw_rtable_cell(t, "%.3f", fit.max_rel_resid);
		nbw_rtable_cell(t, "%.3f", fit.max_rel_resid_all);
		nbw_rtable_cell(t, "%.4g", fit.peak_gbps);
		const struct nbw_curve_point *top = &c->pt[c->n - 1];
		nbw_rtable_cell(t, "%.4g", top->gbps);
	} else {
		for (int e = 0; e < 9; e++)
			nbw_rtable_cell(t, "%s", "");
	}
	interval_cells(t, &c->pt[c->n - 1]);
	if (c->theoretical_gbps > 0) {
		nbw_rtable_cell(t, "%.4g", c->theoretical_gbps);
		if (rc == 0)
			nbw_rtable_cell(t, "%.3f", fit.beta_gbps / c->theoretical_gbps);
		else
			nbw_rtable_cell(t, "%s", "");
	} else {
		nbw_rtable_cell(t, "%s", "");
		nbw_rtable_cell(t, "%s", "");
	}
	char note[320] = "";
	if (rc)
		addf(note, sizeof(note), "no fit: %s", fit.why);
	else {
		if (!fit.describes)
			addf(note, sizeof(note), "DOES NOT DESCRIBE THE DATA: not even the "
			     "largest sizes fit within %.0f %%", 100.0 * NBW_ABFIT_HOLDS);
		if (fit.beta_above_peak) {
			char pk[32];
			nbw_size_label((uint64_t)fit.peak_bytes, pk, sizeof(pk));
			addf(note, sizeof(note), "beta above every measured size (peak %.4g "
			     "GB/s at %s): an extrapolation", fit.peak_gbps, pk);
		}
		if (c->n == 2)
			addf(note, sizeof(note), "two sizes: the line passes through both");
		else if (c->theoretical_gbps <= 0 && host_memory(in, c))
			addf(note, sizeof(note), "host memory, no link");
	}
	nbw_rtable_cell(t, "%s", note);
	nbw_rtable_end_row(t);
	k->two += c->n == 2;
	k->bad += rc == 0 && !fit.describes;
	k->above += rc == 0 && fit.beta_above_peak;
}

static void fit_table(struct nbw_rdoc *r, const struct nbw_rinput *in, const char *dir)
{
	const struct nbw_curves *cs = &in->curves;
	const struct nbw_curve **cv = calloc(cs->n ? cs->n : 1, sizeof(*cv));
	if (!cv)
		return;
	size_t n = 0;
	for (size_t i = 0; i < cs->n; i++)
		if (cs->c[i].n && strcmp(cs->c[i].key.dir, dir) == 0)
			cv[n++] = &cs->c[i];
	if (n == 0) {
		free(cv);
		return;
	}
	qsort(cv, n, sizeof(*cv), cmp_curve);
	static const char *const h[] = {
		"file", "api", "mode", "host memory", "devices", "peer access", "hidden helpers",
		"sizes", "fitted sizes", "alpha (us)", "beta (GB/s)", "n_1/2 (bytes)", "n_1/2",
		"max rel. residual (fitted)", "max rel. residual (all sizes)",
		"peak measured (GB/s)", "largest size (GB/s)",
		"largest size: 95 % interval (GB/s)", "largest size: +- % (95 %)",
		"largest size: converged", "theoretical (GB/s)", "beta / theoretical", "note" };
	char name[32];
	snprintf(name, sizeof(name), "fit-%s", dir);
	static const char *const csv[] = {
		"file", "api", "mode", "host_mem", "streams,concurrency", "peer_access",
		"hidden_helpers", "sizes", "fit_min_bytes,fit_max_bytes,fit_sizes", "alpha_us",
		"beta_gbps", "n_half_bytes", "-", "max_rel_resid_fitted", "max_rel_resid_all",
		"peak_gbps", "largest_size_gbps", "largest_size_ci_lo_gbps,largest_size_ci_hi_gbps",
		"largest_size_ci_half_width_pct", "largest_size_converged", "theoretical_gbps",
		"beta_over_theoretical", "note" };
	struct nbw_rtable *t = nbw_rtable_new(name, 23, h);
	nbw_rtable_csv_names(t, csv);
	struct fit_counts k = { 0 };
	for (size_t i = 0; i < n; i++)
		fit_row(t, in, cv[i], &k);
	char caption[1024];
	snprintf(caption, sizeof(caption), "Alpha-beta fits of %s (%s): t(n) = alpha + n / beta, "
		 "n = bytes of all streams of one repetition, fitted on relative residuals from "
		 "the smallest size at which every size up to the largest is within %.0f %% of "
		 "the line (\"fitted sizes\"); beta in GB/s = 1e9 B/s; n_1/2 = alpha x beta "
		 "reaches half of beta; the largest size's median with its distribution-free "
		 "95 %% confidence interval (order statistics) and half-width relative to the "
		 "median time, converged when within +-1 %% (n.c.: not converged, stopped by the "
		 "time cap or the repetition limit)", dir, dir_words(dir),
		 100.0 * NBW_ABFIT_HOLDS);
	nbw_rdoc_table(r, t, caption);
	if (k.bad)
		nbw_rdoc_para(r, "%zu of these fits do not describe their data: not even the three "
				 "largest sizes lie within %.0f %% of one line, so alpha and beta there "
				 "are only the least-squares line through every size; read the "
				 "measured curve instead.", k.bad, 100.0 * NBW_ABFIT_HOLDS);
	if (k.above)
		nbw_rdoc_para(r, "%zu of these fits have a beta above the highest bandwidth any "
				 "size reached (the peak column): the asymptote lies beyond the sizes "
				 "measured, so beta is an extrapolation, not a bandwidth this path "
				 "delivered.", k.above);
	if (k.two)
		nbw_rdoc_para(r, "%zu of these paths were measured at two sizes only: alpha and "
				 "beta then follow from those two points exactly, and the residual "
				 "says nothing about how well the line fits other sizes.", k.two);
	free(cv);
}

/* A number cell, empty when the value is not finite (a band without sizes). */
static void num_cell(struct nbw_rtable *t, const char *fmt, double v)
{
	if (isfinite(v))
		nbw_rtable_cell(t, fmt, v);
	else
		nbw_rtable_cell(t, "%s", "");
}

/* OpenMP's extra time per transfer: shown where its sign agrees with the relative gap's
 * (and the verdict's), else an empty cell; the CSV keeps the median either way. */
static void extra_cell(struct nbw_rtable *t, double rel, double extra_us)
{
	if (!isfinite(rel) || !isfinite(extra_us)) {
		nbw_rtable_cell(t, "%s", "");
		return;
	}
	char csv[32];
	snprintf(csv, sizeof(csv), "%.3f", extra_us);
	if (nbw_gap_extra_agrees(rel, extra_us))
		nbw_rtable_cellc(t, csv, "%+.3f", extra_us);
	else
		nbw_rtable_cellc(t, csv, "%s", "");
}

/* The summary rows of every file: the groups, or (\p all) the per-mode "all" rows. */
static void gap_rows(struct nbw_rtable *t, const struct nbw_rinput *in, json_t **gaps,
		     bool all)
{
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_pv_gap s;
		for (size_t i = 0; nbw_pv_gap(gaps[f], i, &s); i++) {
			if ((strcmp(s.direction, "all") == 0) != all)
				continue;
			const struct nbw_pv_gap_band *lat = &s.small, *bw = &s.large;
			nbw_rtable_cell(t, "%zu", f);
			nbw_rtable_cell(t, "%s", s.native_api[0] ? s.native_api : "?");
			nbw_rtable_cell(t, "%s", s.direction[0] ? s.direction : "?");
			nbw_rtable_cell(t, "%s", s.omp_mode[0] ? s.omp_mode : "?");
			nbw_rtable_cell(t, "%s", s.host_mem[0] ? s.host_mem : "?");
			nbw_rtable_cell(t, "%d", s.devices);
			nbw_rtable_cell(t, "%d", s.sizes);
			double lr = lat->median_relative_gap, br = bw->median_relative_gap;
			/* No signed figure where the gap is within the medians' intervals. */
			bool lm = lat->measurable, bm = bw->measurable;
			num_cell(t, "%+.1f", lm ? 100.0 * lr : NAN);
			extra_cell(t, lm ? lr : NAN, lat->median_extra_us);
			nbw_rtable_cell(t, "%s", isfinite(lr) ? lat->verdict : "not measured");
			num_cell(t, "%+.4g", bm ? bw->median_gap_gbps : NAN);
			num_cell(t, "%+.1f", bm ? 100.0 * br : NAN);
			nbw_rtable_cell(t, "%s", isfinite(br) ? bw->verdict : "not measured");
			char chg[160] = "";
			size_t w = 0;
			for (size_t k = 0; k < s.nsign_changes; k++) {
				int l = snprintf(chg + w, sizeof(chg) - w, "%s%lld", k ? " " : "",
						 nbw_pv_gap_sign_change(&s, k));
				if (l < 0 || (size_t)l >= sizeof(chg) - w)
					break;
				w += (size_t)l;
			}
			nbw_rtable_cell(t, "%s", chg);
			nbw_rtable_cell(t, "%.4g", s.mean_abs_gap_gbps);
			nbw_rtable_end_row(t);
		}
	}
}

static void gap_table(struct nbw_rdoc *r, const struct nbw_rinput *in, json_t **gaps)
{
	nbw_rdoc_heading(r, 3, "OpenMP versus native");
	size_t rows = 0;
	struct nbw_pv_gap g;
	for (size_t f = 0; f < in->nfiles; f++)
		for (size_t i = 0; nbw_pv_gap(gaps[f], i, &g); i++)
			rows++;
	if (rows == 0) {
		nbw_rdoc_para(r, "No OpenMP measurement has a native partner (same direction, "
				 "host memory, device count, size and matched devices), so there is "
				 "no gap table.");
		return;
	}
	nbw_rdoc_para(r, "Gap = native GB/s - OpenMP GB/s at the same size and devices, signed "
			 "(positive: OpenMP slower, negative: OpenMP faster). Each group is read "
			 "in two size bands, by the median over the band's sizes: small sizes "
			 "(up to 64 KiB, where the cost per transfer dominates) as the relative "
			 "gap and OpenMP's extra time per transfer (left out where its median "
			 "has the other sign than the relative gap's; the CSV keeps it), large sizes (1 MiB and up) as "
			 "the gap in GB/s and relative to the native figure; within +-3 %% there "
			 "is no clear gap, and where at most of a band's sizes the two medians' "
			 "95 %% confidence intervals overlap (the gap is smaller than the two "
			 "intervals together) there is no measurable gap and no signed figure. "
			 "\"sign change at\" lists the sizes (bytes) where "
			 "OpenMP goes from slower to faster or back. The mean |gap| over all sizes "
			 "is kept as a secondary figure. OpenMP nowait is held against the native "
			 "async copy. Rows with direction \"all\" take each mode over every "
			 "direction and host memory kind. GB/s = 1e9 B/s.");
	static const char *const h[] = {
		"file", "native API", "direction", "mode", "host memory", "devices", "sizes",
		"small: relative gap (%)", "small: extra us per transfer", "small sizes",
		"large: gap (GB/s)", "large: relative gap (%)", "large sizes",
		"sign change at (bytes)", "mean |gap| (GB/s)" };
	static const char *const csv[] = {
		"file", "native_api", "direction", "mode", "host_mem", "devices", "sizes",
		"small_rel_gap_pct", "small_extra_us", "small_verdict", "large_gap_gbps",
		"large_rel_gap_pct", "large_verdict", "sign_change_bytes", "mean_abs_gap_gbps" };
	struct nbw_rtable *t = nbw_rtable_new("gap", 15, h);
	nbw_rtable_csv_names(t, csv);
	gap_rows(t, in, gaps, false);
	gap_rows(t, in, gaps, true);
	nbw_rdoc_table(r, t, "OpenMP-versus-native gap per direction, mode, host memory and "
			     "device count (GB/s = 1e9 B/s, time in microseconds)");
}

void nbw_report_transfers(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 2, "Transfers");
	size_t curves = 0;
	bool host_only = true;
	for (size_t i = 0; i < in->curves.n; i++)
		if (in->curves.c[i].n) {
			curves++;
			host_only = host_only && host_memory(in, &in->curves.c[i]);
		}
	if (curves == 0) {
		nbw_rdoc_para(r, "No verified transfer measurement: nothing to plot.");
		return;
	}
	nbw_rdoc_para(r, "%zu measured paths (verified measurements without an error), one "
			 "plot per direction and mode. Each line is one path: API, host memory "
			 "kind, one device or two at once (dual: both in the same direction; "
			 "bidir: device to device both ways), peer access. The bandwidth is the "
			 "median over the repetitions in GB/s = 1e9 B/s; with two devices it "
			 "counts the bytes of both streams.", curves);
	if (host_only)
		nbw_rdoc_para(r, "Every device here is host memory (LLVM's host offload plugin and "
				 "the host reference): these curves are memory copies inside this "
				 "machine, not GPU transfers, and there is no link to hold them "
				 "against.");
	json_t **gaps = calloc(in->nfiles ? in->nfiles : 1, sizeof(*gaps));
	if (!gaps)
		return;
	for (size_t f = 0; f < in->nfiles; f++)
		gaps[f] = nbw_report_doc_gaps(in, f); /* borrowed */
	for (size_t d = 0; d < sizeof(dirs) / sizeof(*dirs); d++) {
		bool any = false;
		for (size_t i = 0; i < in->curves.n && !any; i++)
			any = in->curves.c[i].n && strcmp(in->curves.c[i].key.dir, dirs[d]) == 0;
		if (!any)
			continue;
		char head[64];
		snprintf(head, sizeof(head), "%s (%s)", dir_words(dirs[d]), dirs[d]);
		head[0] = (char)(head[0] - 'a' + 'A');
		nbw_rdoc_heading(r, 3, head);
		for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++)
			plot_dir_mode(r, in, gaps, dirs[d], modes[m]);
		fit_table(r, in, dirs[d]);
	}
	gap_table(r, in, gaps);
	free(gaps);
}
