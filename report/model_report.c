/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The model sections of the report: the paper's model (k(N), k-bar by both rules, beta at
 * the halo-plane sizes, a Table 6), the extended model's calibrated terms, predictions
 * against the solver's measured runtimes (MAPE and bias per (G, version), the paper's
 * Figure 8), and speedups (Figures 3 and 6).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/limits.h"
#include "nodebw/model.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/stats.h"
#include "nodebw/jget.h"
#include "model_priv.h"

#define MAXN 32

/* One validated configuration: the fastest round of the runs' fastest repetitions. */
struct vrow {
	char version[12];
	int g, n, steps, runs;
	double seconds, spread;   /* the fastest round; NBW_ROUNDS_CORE spread (nbw_rounds_time) */
	double matched, mspread;  /* paired runs: nbw_paired_time and its rounds' spread */
	bool has_pair;
	struct nbw_paper_pred paper;
	struct nbw_ext_pred ext, compcal, onedev;  /* fitted, compute-calibrated, one-device */
	double conly;                 /* the compute-only baseline: the measured compute-only
				       * step x steps (doc/model.md) */
	bool has_paper, has_ext, has_compcal, has_onedev, has_conly;
	char why[200];
};

static int cmp_row(const void *a, const void *b)
{
	const struct vrow *x = a, *y = b;
	if (x->g != y->g)
		return x->g - y->g;
	int c = strcmp(x->version, y->version);
	return c ? c : x->n - y->n;
}

/* Out of memory while grouping: every row goes, the caller sees none. */
static size_t drop_rows(struct vrow *rows, double **secs, struct nbw_paired *pairs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(secs[k]);
		nbw_paired_free(&pairs[k]);
	}
	(void)rows;
	return 0;
}

/* Cubic runs of baseline and v1-v4 grouped by (version, G, N, steps). */
static size_t collect_rows(json_t *runs, struct vrow **out)
{
	struct vrow *rows = NULL;
	double **secs = NULL;
	struct nbw_paired *pairs = NULL;
	size_t n = 0, i;
	json_t *r;
	json_array_foreach(runs, i, r) {
		struct nbw_rv_solver_run x;
		nbw_rv_solver_read(r, &x);
		const char *v = x.version;
		/* The compute-only runs and the co-run probe are calibration, not the solver. */
		if (!nbw_rv_solver_ok(&x) || !x.cubic_n || strcmp(v, "serial") == 0 ||
		    strcmp(v, "corun") == 0 || x.no_exchange)
			continue;
		int g = x.g, nn = x.cubic_n, steps = x.steps;
		size_t k;
		for (k = 0; k < n; k++)
			if (strcmp(rows[k].version, v) == 0 && rows[k].g == g && rows[k].n == nn &&
			    rows[k].steps == steps)
				break;
		if (k == n) {
			struct vrow *more = realloc(rows, (n + 1) * sizeof(*rows));
			double **ms = realloc(secs, (n + 1) * sizeof(*secs));
			struct nbw_paired *mp = realloc(pairs, (n + 1) * sizeof(*pairs));
			rows = more ? more : rows;
			secs = ms ? ms : secs;
			pairs = mp ? mp : pairs;
			if (!more || !ms || !mp) {
				n = drop_rows(rows, secs, pairs, n);
				break;
			}
			memset(&pairs[n], 0, sizeof(pairs[n]));
			memset(&rows[n], 0, sizeof(rows[n]));
			snprintf(rows[n].version, sizeof(rows[n].version), "%s", v);
			rows[n].g = g;
			rows[n].n = nn;
			rows[n].steps = steps;
			secs[n] = NULL;
			n++;
		}
		double *s = realloc(secs[k], (size_t)(rows[k].runs + 1) * sizeof(double));
		if (!s || nbw_paired_add(&pairs[k], r)) {
			free(s ? s : secs[k]);
			secs[k] = NULL;
			n = drop_rows(rows, secs, pairs, n);
			break;
		}
		secs[k] = s;
		s[rows[k].runs++] = x.fastest_s;
	}
	for (size_t k = 0; k < n; k++) {
		rows[k].seconds = nbw_rounds_time(secs[k], (size_t)rows[k].runs, &rows[k].spread);
		rows[k].matched = nbw_paired_time(&pairs[k], &rows[k].mspread);
		rows[k].has_pair = rows[k].matched > 0.0;
		free(secs[k]);
		nbw_paired_free(&pairs[k]);
	}
	free(secs);
	free(pairs);
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_row);
	*out = rows;
	return n;
}

static const struct vrow *find_row(const struct vrow *rows, size_t n, const char *v, int g,
				   int nn)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].version, v) == 0 && rows[i].g == g && rows[i].n == nn)
			return &rows[i];
	return NULL;
}

static double rel(double pred, double meas)
{
	return (pred - meas) / meas;
}

/* ---- the paper's model -------------------------------------------------------------- */

/* Which device or pair bounds each (G, version, N) and where its times came from. */
static void paper_bounds(struct nbw_rdoc *r, const struct nbw_calib *c, const int *ns, int nn,
			 const int *gl, int ngl)
{
	if (c->nsets == 0) {
		nbw_rdoc_para(r, "The calibration has no per-device or per-pair transfer "
				 "measurements: the paths above stand for every device and pair.");
		return;
	}
	nbw_rdoc_para(r, "Version 4 copies its halo planes between the neighbours 0<->1, ..., "
			 "(G-2)<->(G-1), so beta_P2P is that of the slowest neighbour pair; "
			 "Versions 1-3 stage them through each device's own HtoD and DtoH, so "
			 "beta_HtoD and beta_DtoH are those of the slowest device among 0..G-1. "
			 "A device or pair measured only at the matrix sizes (the sweep's smallest "
			 "and largest) is a matrix estimate: the reference curve's time x its "
			 "measured ratio to the reference there, interpolated in log(bytes).");
	const char *h[] = {"G", "version", "N", "plane bytes", "beta (GB/s)", "beta DtoH (GB/s)",
			   "bounded by"};
	struct nbw_rtable *t = nbw_rtable_new("paper-beta-bound", 7, h);
	nbw_rtable_csv_names(t, (const char *const[]){"g", "version", "n", "plane_bytes",
							"beta_gbps", "beta_dtoh_gbps",
							"bounded_by"});
	static const char *vs[] = {"v1", "v2", "v3", "v4"};
	for (int gi = 0; gi < ngl; gi++)
		for (int k = 0; k < 4; k++)
			for (int i = 0; i < nn; i++) {
				struct nbw_paper_pred p;
				if (nbw_predict_paper(c, NBW_KBAR_ALL, ns[i], gl[gi], vs[k], 1, &p,
						      NULL, 0))
					continue;
				nbw_rtable_cell(t, "%d", gl[gi]);
				nbw_rtable_cell(t, "%s", vs[k]);
				nbw_rtable_cell(t, "%d", ns[i]);
				nbw_rtable_cell(t, "%.0f", 8.0 * ns[i] * ns[i]);
				nbw_rtable_cell(t, "%.4g", p.beta_gbps[0]);
				nbw_rtable_cell(t, k < 3 ? "%.4g" : "-", p.beta_gbps[1]);
				nbw_rtable_cell(t, "%s", p.bound);
				nbw_rtable_end_row(t);
			}
	nbw_rdoc_table(r, t, "beta of the paper's model per (G, version, N): Versions 1-3 "
			     "beta_HtoD and beta_DtoH of the slowest device, Version 4 beta_P2P of "
			     "the slowest neighbour pair (GB/s = 1e9 B/s).");
}

static void section_paper(struct nbw_rdoc *r, const struct nbw_calib *c, const int *ns,
			  int nn, const int *gl, int ngl)
{
	int gmax = ngl ? gl[ngl - 1] : 0;
	nbw_rdoc_heading(r, 3, "The paper's model (Eq. 7-12)");
	nbw_rdoc_para(r, "k(N) = T / (n_steps (N-2)^3) from one-device (baseline) runs of N^3 "
			 "grids (Eq. 7-8); one halo plane is 8 N^2 bytes; beta is the bandwidth "
			 "the OpenMP probes measured at that size on the path each version uses "
			 "(Version 1: omp_target_memcpy; Versions 2-4: omp_target_memcpy_async), "
			 "with the solver's hidden-helper setting where it was measured.");
	if (c->nk == 0) {
		nbw_rdoc_para(r, "No one-device runs of cubic grids in these results: k(N) and "
				 "k-bar cannot be computed (run 'nodebw run' or 'nodebw heat "
				 "--versions baseline').");
		return;
	}
	const char *hk[] = {"N", "k(N) (s per point and step)", "k(N) x 1e11"};
	struct nbw_rtable *t = nbw_rtable_new("paper-k", 3, hk);
	nbw_rtable_csv_names(t, (const char *const[]){"n", "k_s", "k_x1e11"});
	for (size_t i = 0; i < c->nk; i++) {
		nbw_rtable_cell(t, "%d", c->k[i].n);
		nbw_rtable_cell(t, "%.5g", c->k[i].k);
		nbw_rtable_cell(t, "%.4f", c->k[i].k * 1e11);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "k(N) of the one-device runs (fastest round).");
	double all = 0.0, top3 = 0.0;
	nbw_calib_kbar(c, NBW_KBAR_ALL, &all, NULL, 0);
	nbw_calib_kbar(c, NBW_KBAR_TOP3, &top3, NULL, 0);
	nbw_rdoc_item(r, "k-bar, mean over all %zu sizes (Eq. 8 as written): %.5g s "
			 "(%.4f x 1e-11); used for the predictions below", c->nk, all, all * 1e11);
	nbw_rdoc_item(r, "k-bar, mean over the three largest sizes (the rule of the paper's "
			 "artifact scripts): %.5g s (%.4f x 1e-11)", top3, top3 * 1e11);

	const char *hb[] = {"N", "plane bytes", "path", "beta (GB/s)", "time per plane (us)",
			    "how"};
	struct nbw_rtable *tb = nbw_rtable_new("paper-beta", 6, hb);
	nbw_rtable_csv_names(tb, (const char *const[]){"n", "plane_bytes", "path", "beta_gbps",
							"time_per_plane_us", "how"});
	static const char *paths[] = {"htod/sync", "dtoh/sync", "htod/async", "dtoh/async",
				      "p2p/async"};
	for (int i = 0; i < nn; i++)
		for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
			double b = 8.0 * ns[i] * ns[i], t1;
			char how[160];
			nbw_rtable_cell(tb, "%d", ns[i]);
			nbw_rtable_cell(tb, "%.0f", b);
			nbw_rtable_cell(tb, "%s", paths[p]);
			if (nbw_calib_xfer_s(c, paths[p], b, &t1, how, sizeof(how)) == 0) {
				nbw_rtable_cell(tb, "%.4g", b / t1 / 1e9);
				nbw_rtable_cell(tb, "%.4g", t1 * 1e6);
			} else {
				nbw_rtable_cell(tb, "-");
				nbw_rtable_cell(tb, "-");
			}
			nbw_rtable_cell(tb, "%s", how);
			nbw_rtable_end_row(tb);
		}
	nbw_rdoc_table(r, tb, "beta of each path's reference curve (device 0, pair 0->1) at "
			      "each N's halo-plane size (GB/s = 1e9 B/s).");
	paper_bounds(r, c, ns, nn, gl, ngl);

	/* Table 6 of this node. */
	const char *h6[] = {"devices", "G", "k-bar (x 1e-11)", "beta_P2P (GB/s)", "at"};
	struct nbw_rtable *t6 = nbw_rtable_new("table6", 5, h6);
	nbw_rtable_csv_names(t6, (const char *const[]){"devices", "g_values", "k_bar_x1e11",
							"beta_p2p_gbps", "at"});
	int nbig = ns[nn - 1];
	double b = 8.0 * nbig * nbig, t1;
	char how[160];
	nbw_rtable_cell(t6, "%s", c->device_kind[0] ? c->device_kind : "?");
	nbw_rtable_cell(t6, "%s", gmax >= 4 ? "2, 4" : "2");
	nbw_rtable_cell(t6, "%.4f", all * 1e11);
	if (nbw_calib_xfer_s(c, "p2p/async", b, &t1, how, sizeof(how)) == 0)
		nbw_rtable_cell(t6, "%.4g", b / t1 / 1e9);
	else
		nbw_rtable_cell(t6, "-");
	const struct nbw_xpath *p2p = NULL;
	for (size_t i = 0; i < c->npaths; i++)
		if (strcmp(c->paths[i].name, "p2p/async") == 0)
			p2p = &c->paths[i];
	if (p2p && p2p->ends_known)
		nbw_rtable_cell(t6, "plane of N = %d (%.0f B), pair %d->%d", nbig, b, p2p->src,
				p2p->dst);
	else
		nbw_rtable_cell(t6, "plane of N = %d (%.0f B)", nbig, b);
	nbw_rtable_end_row(t6);
	nbw_rdoc_table(r, t6, "The paper's Table 6 for this node (paper: H100 6.4042 / 253.11, "
			      "MI250X 13.584 / 61.28, Max 1550 4.6676 / 62.85).");
}

/* ---- the extended model's terms ------------------------------------------------------ */

/* The plane-size sweep: per path and halo-plane size, the fastest and slowest process and
 * what the main probe run alone would have given the models. */
static void plane_table(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	size_t rows = 0;
	for (size_t i = 0; i < c->npaths; i++)
		rows += c->paths[i].nplanes;
	if (!rows)
		return;
	const char *h[] = {"path", "bytes", "processes", "fastest (GB/s)", "slowest (GB/s)",
			   "slowest / fastest", "main run (GB/s)", "main / fastest time"};
	struct nbw_rtable *t = nbw_rtable_new("ext-planes", 8, h);
	nbw_rtable_csv_names(t, (const char *const[]){"path", "bytes", "processes",
						       "fastest_gbps", "slowest_gbps",
						       "slowest_over_fastest", "main_run_gbps",
						       "main_over_fastest"});
	int procs = 0;
	for (size_t i = 0; i < c->npaths; i++)
		for (size_t j = 0; j < c->paths[i].nplanes; j++) {
			const struct nbw_xplane *q = &c->paths[i].planes[j];
			/* Two-stream paths move the bytes twice (aggregate GB/s). */
			double mult = strstr(c->paths[i].name, "/dual") ||
					      strstr(c->paths[i].name, "/bidir")
					      ? 2.0 : 1.0;
			double b = q->bytes * mult / 1e9;
			procs = q->processes > procs ? q->processes : procs;
			nbw_rtable_cell(t, "%s", c->paths[i].name);
			nbw_rtable_cell(t, "%.0f", q->bytes);
			nbw_rtable_cell(t, "%d", q->processes);
			nbw_rtable_cell(t, "%.4g", b / q->fastest_s);
			nbw_rtable_cell(t, "%.4g", b / q->slowest_s);
			nbw_rtable_cell(t, "%.2f", q->slowest_s / q->fastest_s);
			nbw_rtable_cell(t, q->main_s > 0.0 ? "%.4g" : "-", b / q->main_s);
			nbw_rtable_cell(t, q->main_s > 0.0 ? "%.2f" : "-", q->main_s / q->fastest_s);
			nbw_rtable_end_row(t);
		}
	char cap[512];
	snprintf(cap, sizeof(cap),
		 "The plane-size sweep: each path the models read measured again at the solver's "
		 "halo-plane sizes in %d separate processes (GB/s = 1e9 B/s, from each process's "
		 "median time). A copy's time there moves more between processes than within "
		 "one, so the models take the fastest process, as they take the solver's "
		 "fastest round; main run = what the probe run alone gave (interpolated where it "
		 "did not measure the size).",
		 procs);
	nbw_rdoc_table(r, t, cap);
}

/* k of one-device runs of exactly the slab shape. */
static void ext_kslab_table(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	const char *hs[] = {"N", "planes", "k_slab (s)", "k_slab / k(N)"};
	struct nbw_rtable *t = nbw_rtable_new("ext-kslab", 4, hs);
	nbw_rtable_csv_names(t, (const char *const[]){"n", "planes", "k_slab_s",
							"k_slab_over_k_n"});
	for (size_t i = 0; i < c->nslab; i++) {
		double kn = 0.0;
		for (size_t j = 0; j < c->nk; j++)
			if (c->k[j].n == c->slab[i].n)
				kn = c->k[j].k;
		nbw_rtable_cell(t, "%d", c->slab[i].n);
		nbw_rtable_cell(t, "%d", c->slab[i].planes);
		nbw_rtable_cell(t, "%.5g", c->slab[i].k);
		nbw_rtable_cell(t, kn > 0.0 ? "%.3f" : "-", kn > 0.0 ? c->slab[i].k / kn : 0.0);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "k of one-device runs of exactly the slab shape N x N x (P+2).");
}

/* The instrumented runs: everything but the halo copies per step, against k_slab. */
static void ext_versions_table(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	const char *hv[] = {"version", "G", "N", "one-device slab compute per step (us)",
			    "measured per step without halo (us)", "ratio",
			    "timed step (us)"};
	struct nbw_rtable *tv = nbw_rtable_new("ext-versions", 7, hv);
	nbw_rtable_csv_names(tv, (const char *const[]){"version", "g", "n", "slab_compute_us",
							"no_halo_step_us", "ratio",
							"timed_step_us"});
	for (size_t i = 0; i < c->nvs; i++) {
		nbw_rtable_cell(tv, "%s", c->vs[i].version);
		nbw_rtable_cell(tv, "%d", c->vs[i].g);
		nbw_rtable_cell(tv, "%d", c->vs[i].n);
		nbw_rtable_cell(tv, "%.2f", c->vs[i].x_s * 1e6);
		nbw_rtable_cell(tv, "%.2f", c->vs[i].y_s * 1e6);
		nbw_rtable_cell(tv, "%.3f", c->vs[i].busy);
		nbw_rtable_cell(tv, c->vs[i].measured_s > 0.0 ? "%.2f" : "-",
				c->vs[i].measured_s * 1e6);
		nbw_rtable_end_row(tv);
	}
	nbw_rdoc_table(r, tv, "Instrumented runs (fastest repetition, fastest round): "
			      "the time per step of everything but the halo copies, with "
			      "G devices at work, against k_slab x (N-2)^2 x P.");
}

/* The fitted model's terms per (version, G) over every size. */
static void ext_fitted_table(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	const char *hf[] = {"version", "G", "sizes", "fitted on", "interaction f",
			    "interaction o per step (us)", "busy (slope)",
			    "overhead per step (us)"};
	struct nbw_rtable *tf = nbw_rtable_new("ext-fitted-terms", 8, hf);
	nbw_rtable_csv_names(tf, (const char *const[]){"version", "g", "sizes", "fitted_on",
							"interaction", "interaction_step_us",
							"busy_slope", "overhead_step_us"});
	static const char *vn[] = {"v1", "v2", "v3", "v4"};
	for (int g = 2; g <= 4; g += 2)
		for (int k = 0; k < 4; k++) {
			struct nbw_ext_pred e;
			int n0 = 0;
			size_t cnt = 0;
			for (size_t i = 0; i < c->nvs; i++)
				if (strcmp(c->vs[i].version, vn[k]) == 0 && c->vs[i].g == g) {
					n0 = c->vs[i].n;
					cnt++;
				}
			if (!cnt || nbw_predict_ext(c, n0, g, vn[k], 1, 0, &e, NULL, 0))
				continue;
			bool inter = e.interaction > 0.0;
			nbw_rtable_cell(tf, "%s", vn[k]);
			nbw_rtable_cell(tf, "%d", g);
			nbw_rtable_cell(tf, "%zu", cnt);
			nbw_rtable_cell(tf, "%s", inter ? "timed runs / compute-calibrated" : "instrumented phases");
			nbw_rtable_cell(tf, inter ? "%.3f" : "-", e.interaction);
			nbw_rtable_cell(tf, inter ? "%.2f" : "-", e.interaction_step_s * 1e6);
			nbw_rtable_cell(tf, inter ? "-" : "%.3f", e.busy);
			nbw_rtable_cell(tf, inter ? "-" : "%.2f", e.overhead_s * 1e6);
			nbw_rtable_end_row(tf);
		}
	nbw_rdoc_table(r, tf, "The fitted model's terms over every size: the interaction "
			      "step = f x compute-calibrated step + o, the mean of a cost that grows with the "
			      "step (f = (1 + r) / 2, r the median measured / compute-calibrated step) and one "
			      "per step that does not (o = d / 2, d the median measured - compute-calibrated "
			      "step), or busy and overhead (y = overhead + busy x, relative least "
			      "squares) where the compute-calibrated model has no data; the validation below refits without the "
			      "size it predicts.");
}

/* The calibration's transfer paths: alpha and beta. */
static void ext_paths_table(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	const char *hp[] = {"path", "alpha (us)", "beta (GB/s)", "measured sizes"};
	struct nbw_rtable *tp = nbw_rtable_new("ext-paths", 4, hp);
	nbw_rtable_csv_names(tp, (const char *const[]){"path", "alpha_us", "beta_gbps",
							"measured_sizes"});
	for (size_t i = 0; i < c->npaths; i++) {
		const struct nbw_xpath *p = &c->paths[i];
		nbw_rtable_cell(tp, "%s", p->name);
		nbw_rtable_cell(tp, p->alpha_s >= 0.0 ? "%.3f" : "-", p->alpha_s * 1e6);
		nbw_rtable_cell(tp, p->beta_gbps > 0.0 ? "%.4g" : "-", p->beta_gbps);
		nbw_rtable_cell(tp, "%zu", p->n);
		nbw_rtable_end_row(tp);
	}
	nbw_rdoc_table(r, tp, "Transfer paths of the calibration (OpenMP probes; alpha and "
			      "beta fitted, GB/s = 1e9 B/s).");
}

/* The per-device and per-pair transfers of the calibration (it has some). */
static void ext_sets_table(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	int nbig = 0;
	for (size_t i = 0; i < c->nk; i++)
		nbig = c->k[i].n > nbig ? c->k[i].n : nbig;
	const char *hx[] = {"path", "from", "to", "source", "ratio at small size",
			    "ratio at large size", "ratio against", "time per plane (us)",
			    "at plane bytes"};
	struct nbw_rtable *tx = nbw_rtable_new("ext-sets", 9, hx);
	nbw_rtable_csv_names(tx, (const char *const[]){"path", "from", "to", "source",
							"small_ratio,small_ratio_bytes",
							"large_ratio,large_ratio_bytes",
							"ratio_against", "time_per_plane_us",
							"plane_bytes"});
	for (size_t i = 0; i < c->nsets; i++) {
		const struct nbw_xset *x = &c->sets[i];
		double b = 8.0 * nbig * nbig, t1;
		nbw_rtable_cell(tx, "%s", x->path);
		nbw_rtable_cell(tx, x->src < 0 ? "host" : "%d", x->src);
		nbw_rtable_cell(tx, x->dst < 0 ? "host" : "%d", x->dst);
		nbw_rtable_cell(tx, "%s", x->estimate ? "matrix estimate" : "own sweep");
		if (x->estimate) {
			char rv[2][64]; /* CSV: the ratio and its size in bytes, two columns */
			for (int k = 0; k < 2; k++)
				snprintf(rv[k], sizeof(rv[k]), "%.6g,%.0f", x->ratio[k],
					 x->ratio_bytes[k]);
			nbw_rtable_cellc(tx, rv[0], "%.3g at %.0f B", x->ratio[0], x->ratio_bytes[0]);
			if (x->nratio > 1)
				nbw_rtable_cellc(tx, rv[1], "%.3g at %.0f B", x->ratio[1],
						 x->ratio_bytes[1]);
			else
				nbw_rtable_cell(tx, "-");
			nbw_rtable_cell(tx, "%s", x->ratio_to);
		} else {
			nbw_rtable_cell(tx, "-");
			nbw_rtable_cell(tx, "-");
			nbw_rtable_cell(tx, "-");
		}
		if (nbig && nbw_calib_xfer_ends_s(c, x->path, x->src, x->dst, b, &t1, NULL, NULL,
						  0) == 0)
			nbw_rtable_cell(tx, "%.4g", t1 * 1e6);
		else
			nbw_rtable_cell(tx, "-");
		nbw_rtable_cell(tx, nbig ? "%.0f" : "-", b);
		nbw_rtable_end_row(tx);
	}
	nbw_rdoc_table(r, tx, "Per-device and per-pair transfers of the calibration (the "
			      "reference curves above are device 0 and pair 0->1): own sweep = the "
			      "device's or pair's whole size sweep; matrix estimate = only the "
			      "matrix sizes were measured, its time is the reference's x the ratio, "
			      "linear in log(bytes) between the two sizes and constant outside. "
			      "The extended model takes, per step, the busiest host thread's own "
			      "hops: Version 4 g -> each neighbour, Version 3 DtoH of g and HtoD of "
			      "each neighbour, Versions 1-2 every hop in turn.");
}

static void section_ext_terms(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	nbw_rdoc_heading(r, 3, "The compute-calibrated and fitted models: calibrated terms");
	nbw_rdoc_para(r, "Per step, for the host thread with the most work (doc/model.md). "
			 "compute-calibrated: compute = the runs of the version's form without the halo "
			 "copies on G devices at once (v2 for Versions 1-2, v3 for 3-4; at another "
			 "N their median ratio to the one-device slab time k_slab x (N-2)^2 x P, P = "
			 "ceil((N-2)/G)); transfer = the planes that thread moves x the measured "
			 "time of one 8 N^2-byte transfer on the version's path (latency included) x "
			 "the contention factor of concurrent copies (one stream's bandwidth over "
			 "half the two-stream aggregate); Versions 2-4 overlap the interior with the "
			 "halo when the runtime can run asynchronous work (GPU queues or hidden "
			 "helpers: here %s, hidden helpers %d). fitted: the mean of two "
			 "one-term fits on the other sizes' timed multi-device runs (when "
			 "validating a size it is left out), the compute-calibrated step x their median "
			 "measured / compute-calibrated ratio r and the compute-calibrated step + their median "
			 "difference d: step = f x compute-calibrated step + o, f = (1 + r) / 2, o = d / 2; "
			 "without runs free of the halo copies in the calibration, "
			 "k_slab x busy + overhead fitted on the instrumented runs instead.",
		      c->device_kind[0] ? c->device_kind : "unknown devices", c->hidden_helpers);
	ext_kslab_table(r, c);
	ext_versions_table(r, c);
	ext_fitted_table(r, c);
	ext_paths_table(r, c);
	plane_table(r, c);
	if (c->nsets > 0)
		ext_sets_table(r, c);
}

/* ---- validation --------------------------------------------------------------------- */

/* Accuracy of the three models per (G, version) over the grids whose rounds agree
 * (spread <= NBW_STABLE_SPREAD); the others are counted apart, never in the MAPE. */
/* A model's error over the stable grids it predicts. */
struct err_sum {
	double mape, bias;
	int n;
};

static void err_add(struct err_sum *e, bool have, double model, double t)
{
	if (!have)
		return;
	double x = rel(model, t);
	e->mape += fabs(x);
	e->bias += x;
	e->n++;
}

static void err_done(struct err_sum *e)
{
	if (e->n) {
		e->mape /= e->n;
		e->bias /= e->n;
	}
}

struct acc {
	int n;              /* stable grids (the paper's and the fitted model predict each) */
	struct err_sum paper, ext, compcal, onedev, conly; /* ext: the fitted model; conly: the
							    * compute-only baseline */
	double halo_share;  /* mean over the grids with a compute-only run of (T - C) / T */
	int nhalo;
	int unstable;       /* grids whose rounds differ by more than NBW_STABLE_SPREAD */
	double max_spread;
	bool matched;       /* against the speed-matched time of paired runs (every grid) */
	int ns[MAXN];       /* the stable grids' N, ascending */
	int nns;
};

/* A percentage of a fraction, "-" when there is none. */
static void pct_cell(struct nbw_rtable *t, bool have, double frac, bool sign)
{
	if (!have)
		nbw_rtable_cell(t, "-");
	else if (sign)
		nbw_rtable_cell(t, "%+.1f%%", 100 * frac);
	else
		nbw_rtable_cell(t, "%.1f%%", 100 * frac);
}

/* What the models are validated against: the speed-matched time of paired runs, else the
 * fastest round (\p raw: always the fastest round); and that measure's spread. */
static double truth(const struct vrow *w, bool raw)
{
	return w->has_pair && !raw ? w->matched : w->seconds;
}

static double truth_spread(const struct vrow *w, bool raw)
{
	return w->has_pair && !raw ? w->mspread : w->spread;
}

static bool row_stable(const struct vrow *w, bool raw)
{
	return truth_spread(w, raw) <= NBW_STABLE_SPREAD;
}

static struct acc accuracy_of(const struct vrow *rows, size_t nr, const char *v, int g,
			      bool raw)
{
	struct acc a = {.max_spread = 1.0, .matched = !raw};
	for (size_t i = 0; i < nr; i++) {
		const struct vrow *w = &rows[i];
		if (strcmp(w->version, v) || w->g != g || !w->has_paper || !w->has_ext)
			continue;
		a.matched &= w->has_pair;
		a.max_spread = fmax(a.max_spread, truth_spread(w, raw));
		if (!row_stable(w, raw)) {
			a.unstable++;
			continue;
		}
		double t = truth(w, raw);
		a.n++;
		if (a.nns < MAXN)
			a.ns[a.nns++] = w->n;
		err_add(&a.paper, true, w->paper.total_s, t);
		err_add(&a.ext, true, w->ext.total_s, t);
		err_add(&a.compcal, w->has_compcal, w->compcal.total_s, t);
		err_add(&a.onedev, w->has_onedev, w->onedev.total_s, t);
		err_add(&a.conly, w->has_conly, w->conly, t);
		if (w->has_conly) {
			a.halo_share += (t - w->conly) / t;
			a.nhalo++;
		}
	}
	struct err_sum *all[] = {&a.paper, &a.ext, &a.compcal, &a.onedev, &a.conly};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		err_done(all[i]);
	if (a.nhalo)
		a.halo_share /= a.nhalo;
	return a;
}

static void plot_group(struct nbw_rdoc *r, const struct vrow *rows, size_t nr, const char *v,
		       int g, const struct acc *a)
{
	double x[MAXN], ym[MAXN], yp[MAXN], ye[MAXN], ya[MAXN], ep[MAXN], ee[MAXN], ea[MAXN];
	size_t m = 0, ma = 0;
	for (size_t i = 0; i < nr && m < MAXN; i++) {
		const struct vrow *w = &rows[i];
		if (strcmp(w->version, v) || w->g != g || !w->has_paper || !w->has_ext)
			continue;
		double t = truth(w, false);
		x[m] = w->n;
		ym[m] = t;
		yp[m] = w->paper.total_s;
		ye[m] = w->ext.total_s;
		ep[m] = 100.0 * rel(w->paper.total_s, t);
		ee[m] = 100.0 * rel(w->ext.total_s, t);
		if (w->has_compcal) {
			ya[m] = w->compcal.total_s;
			ea[m] = 100.0 * rel(w->compcal.total_s, t);
			ma++;
		}
		m++;
	}
	if (m == 0)
		return;
	/* The compute-calibrated line only where it predicts every grid of the plot. */
	size_t nser = ma == m ? 4 : 3;
	char name[64], title[128], note[200], cap[256];
	struct nbw_plot_series s[4] = {
		{a->matched ? "measured (speed-matched)" : "measured", x, ym, m, "linespoints lw 2",
		 .colour = 1, .dash = 1, .point = 7},
		{"paper model", x, yp, m, "linespoints lw 1.5", .colour = 2, .dash = 2, .point = 5},
		{"fitted model", x, ye, m, "linespoints lw 1.5", .colour = 3, .dash = 3,
		 .point = 9},
		{"compute-calibrated model", x, ya, m, "linespoints lw 1.5", .colour = 4, .dash = 4,
		 .point = 11},
	};
	snprintf(name, sizeof(name), "fig8-%s-g%d", v, g);
	snprintf(title, sizeof(title), "%s on %d devices: measured and modelled runtime", v, g);
	/* The MAPE of each model that predicts these grids (a missing one is left out, never 0). */
	const struct {
		const char *name;
		const struct err_sum *e;
	} mm[] = {{"paper", &a->paper}, {"one-device", &a->onedev},
		 {"compute-calibrated", &a->compcal}, {"fitted", &a->ext}};
	size_t w = (size_t)snprintf(note, sizeof(note), "MAPE:");
	const char *sep = "";
	for (size_t i = 0; i < sizeof(mm) / sizeof(mm[0]) && w < sizeof(note); i++)
		if (mm[i].e->n) {
			w += (size_t)snprintf(note + w, sizeof(note) - w, "%s %s %.1f%%", sep,
					      mm[i].name, 100 * mm[i].e->mape);
			sep = ",";
		}
	if (w < sizeof(note))
		snprintf(note + w, sizeof(note) - w, " (%d stable grids, %d unstable)", a->n,
			 a->unstable);
	struct nbw_plot p = {.name = name, .title = title, .xlabel = "grid size N (N^3 points)",
			     .ylabel = "time of the step loop (s)", .logy = true, .series = s,
			     .nseries = nser, .note = note};
	snprintf(cap, sizeof(cap), "Figure 8 style: %s, G = %d; solid measured, dashed models.",
		 v, g);
	nbw_rdoc_plot(r, &p, cap);
	struct nbw_plot_series se[3] = {
		{"paper model", x, ep, m, "linespoints lw 1.5", .colour = 2, .dash = 2, .point = 5},
		{"fitted model", x, ee, m, "linespoints lw 1.5", .colour = 3, .dash = 3,
		 .point = 9},
		{"compute-calibrated model", x, ea, m, "linespoints lw 1.5", .colour = 4, .dash = 4,
		 .point = 11},
	};
	/* One key entry and one dash type per guide pair: +-10 % and +-20 %. */
	static const double guides[] = {10, 20};
	static const char *const gt[] = {"+-10 %", "+-20 %"};
	snprintf(name, sizeof(name), "fig8-err-%s-g%d", v, g);
	snprintf(title, sizeof(title), "%s on %d devices: relative error", v, g);
	struct nbw_plot pe = {.name = name, .title = title, .xlabel = "grid size N",
			      .ylabel = "(T_model - T_measured) / T_measured (%)", .series = se,
			      .nseries = nser - 1, .hline = guides, .hline_title = gt, .nhline = 2,
			      .hline_pm = true};
	snprintf(cap, sizeof(cap), "Relative error per grid size, %s, G = %d, with +-10 %% and "
				   "+-20 %% guides.", v, g);
	nbw_rdoc_plot(r, &pe, cap);
}

static void plot_speedups(struct nbw_rdoc *r, const struct vrow *rows, size_t nr, int g)
{
	static const char *vs[] = {"v1", "v2", "v3", "v4"};
	double x[4][MAXN], y[4][MAXN], yp[4][MAXN], ye[4][MAXN];
	struct nbw_plot_series s[8], s6[12];
	size_t ns = 0, ns6 = 0;
	char titles[12][48];
	for (int k = 0; k < 4; k++) {
		size_t m = 0;
		for (size_t i = 0; i < nr && m < MAXN; i++) {
			const struct vrow *w = &rows[i];
			if (strcmp(w->version, vs[k]) || w->g != g)
				continue;
			const struct vrow *b = find_row(rows, nr, "baseline", 1, w->n);
			if (!b)
				continue;
			x[k][m] = w->n;
			y[k][m] = b->seconds / w->seconds;
			yp[k][m] = w->has_paper ? b->seconds / w->paper.total_s : NAN;
			ye[k][m] = w->has_ext ? b->seconds / w->ext.total_s : NAN;
			m++;
		}
		if (!m)
			continue;
		/* One colour per version; in Figure 6 its model line shares it, dashed. */
		s[ns++] = (struct nbw_plot_series){vs[k], x[k], y[k], m, "linespoints lw 2",
						   .colour = k + 1};
		snprintf(titles[ns6], sizeof(titles[0]), "%s measured", vs[k]);
		s6[ns6] = (struct nbw_plot_series){titles[ns6], x[k], y[k], m, "linespoints lw 2",
						   .colour = k + 1, .dash = 1};
		ns6++;
		snprintf(titles[ns6], sizeof(titles[0]), "%s extended model", vs[k]);
		s6[ns6] = (struct nbw_plot_series){titles[ns6], x[k], ye[k], m,
						   "linespoints lw 1.5", .colour = k + 1,
						   .dash = 2};
		ns6++;
	}
	if (!ns)
		return;
	double ideal = g;
	static const char *const it[] = {"ideal (G)"};
	char name[48], title[96], cap[200];
	snprintf(name, sizeof(name), "fig3-speedup-g%d", g);
	snprintf(title, sizeof(title), "Speedup over the one-device baseline, G = %d", g);
	struct nbw_plot p = {.name = name, .title = title, .xlabel = "grid size N",
			     .ylabel = "T(baseline) / T(version)", .series = s, .nseries = ns,
			     .hline = &ideal, .hline_title = it, .nhline = 1};
	snprintf(cap, sizeof(cap), "Figure 3 style: measured speedup of each version on %d "
				   "devices over one device.", g);
	nbw_rdoc_plot(r, &p, cap);
	snprintf(name, sizeof(name), "fig6-speedup-model-g%d", g);
	snprintf(title, sizeof(title), "Speedup measured and predicted (extended), G = %d", g);
	struct nbw_plot p6 = {.name = name, .title = title, .xlabel = "grid size N",
			      .ylabel = "T(baseline) / T(version)", .series = s6, .nseries = ns6,
			      .hline = &ideal, .hline_title = it, .nhline = 1};
	snprintf(cap, sizeof(cap), "Figure 6 style: measured speedups (solid) beside the "
				   "extended model's (dashed), G = %d.", g);
	nbw_rdoc_plot(r, &p6, cap);
}

/* Both models' predictions of every multi-device row (the extended one without the row's
 * own grid size); the number of rows both predict. */
static size_t predict_rows(struct vrow *rows, size_t nr, const struct nbw_calib *c)
{
	size_t npred = 0;
	for (size_t i = 0; i < nr; i++) {
		struct vrow *w = &rows[i];
		if (w->version[0] != 'v' || w->g < 2)
			continue;
		char why[200];
		w->has_paper = nbw_predict_paper(c, NBW_KBAR_ALL, w->n, w->g, w->version, w->steps,
						 &w->paper, why, sizeof(why)) == 0;
		if (!w->has_paper)
			snprintf(w->why, sizeof(w->why), "paper: %s", why);
		w->has_ext = nbw_predict_ext(c, w->n, w->g, w->version, w->steps, w->n, &w->ext,
					     why, sizeof(why)) == 0;
		if (!w->has_ext)
			snprintf(w->why, sizeof(w->why), "fitted: %s", why);
		w->has_compcal = nbw_predict_compcal(c, w->n, w->g, w->version, w->steps, &w->compcal,
						  why, sizeof(why)) == 0;
		w->has_onedev = nbw_predict_onedev(c, w->n, w->g, w->version, w->steps,
						   &w->onedev, why, sizeof(why)) == 0;
		w->has_conly = nbw_predict_compute_only(c, w->n, w->g, w->version, w->steps,
							&w->conly) == 0;
		npred += w->has_paper && w->has_ext;
	}
	return npred;
}

/* The accuracy per (G, version) against the validation's measure (\p raw false: the
 * speed-matched time where the runs were paired, with the Figure 8 plots) or against the
 * fastest round (\p raw true, for comparison). */
static void accuracy_table(struct nbw_rdoc *r, const struct vrow *rows, size_t nr, bool raw)
{
	const char *ha[] = {"G", "version", "measured as", "sizes", "halo share",
			    "one-device MAPE", "one-device bias", "comp.-cal. MAPE",
			    "comp.-cal. bias", "fitted MAPE", "fitted bias", "paper MAPE",
			    "paper bias", "compute-only MAPE", "compute-only bias",
			    "unstable grids", "largest spread"};
	struct nbw_rtable *ta = nbw_rtable_new(raw ? "accuracy-fastest-round" : "accuracy", 17,
					       ha);
	nbw_rtable_csv_names(ta, (const char *const[]){"g", "version", "measure", "sizes",
							"halo_share_pct", "onedev_mape_pct",
							"onedev_bias_pct", "compcal_mape_pct",
							"compcal_bias_pct", "ext_mape_pct",
							"ext_bias_pct", "paper_mape_pct",
							"paper_bias_pct", "conly_mape_pct",
							"conly_bias_pct", "unstable", "max_spread"});
	static const char *vs[] = {"v1", "v2", "v3", "v4"};
	static const int gl[2] = {2, 4};
	for (int gi = 0; gi < 2; gi++)
		for (int k = 0; k < 4; k++) {
			struct acc a = accuracy_of(rows, nr, vs[k], gl[gi], raw);
			if (!a.n && !a.unstable)
				continue;
			nbw_rtable_cell(ta, "%d", gl[gi]);
			nbw_rtable_cell(ta, "%s", vs[k]);
			nbw_rtable_cell(ta, "%s", a.matched ? "speed-matched" : "fastest round");
			nbw_rtable_cell(ta, "%d", a.n);
			pct_cell(ta, a.nhalo > 0, a.halo_share, false);
			const struct err_sum *cols[] = {&a.onedev, &a.compcal, &a.ext, &a.paper,
							&a.conly};
			for (size_t m = 0; m < sizeof(cols) / sizeof(cols[0]); m++) {
				pct_cell(ta, cols[m]->n > 0, cols[m]->mape, false);
				pct_cell(ta, cols[m]->n > 0, cols[m]->bias, true);
			}
			nbw_rtable_cell(ta, "%d", a.unstable);
			nbw_rtable_cell(ta, "%.2f", a.max_spread);
			nbw_rtable_end_row(ta);
			if (!raw)
				plot_group(r, rows, nr, vs[k], gl[gi], &a);
		}
	if (raw) {
		nbw_rdoc_table(r, ta, "For comparison, the same accuracy against the fastest "
				      "round of each grid (its halo runs' own floor, measured at "
				      "whatever speed the machine had then), stable = rounds "
				      "within 1.2x.");
		return;
	}
	nbw_rdoc_table(r, ta, "Accuracy per (G, version): MAPE = mean |T_model - T_measured| / "
			      "T_measured and signed bias = mean (T_model - T_measured) / "
			      "T_measured over the grid sizes whose measure agrees within 1.2x "
			      "(the paper's Figure 8 annotation); unstable grids are counted apart. "
			      "T_measured: speed-matched where every grid of the row was paired "
			      "(the validation table says how), else the fastest round. "
			      "Each model is named by what it needs: one-device: the probes and "
			      "one-device runs only (slab runs, co-run probe, launch probe; no run "
			      "of Versions 1-4); comp.-cal. (compute-calibrated): the versions' "
			      "runs without the halo copies at this N; fitted: the "
			      "compute-calibrated prediction x the interaction of the timed "
			      "multi-device runs at the other sizes (leave-one-out by size); "
			      "paper: Eq. 9/10. compute-only: the baseline a model must beat, "
			      "T = the measured compute-only step x steps (no halo term at all); "
			      "halo share: the mean of (T_measured - compute-only) / T_measured.");
}

/* A model's time and error against \p tm, "-" twice where it does not predict. */
static void model_cells(struct nbw_rtable *t, bool have, double model, double tm)
{
	if (!have) {
		nbw_rtable_cell(t, "-");
		nbw_rtable_cell(t, "-");
		return;
	}
	nbw_rtable_cell(t, "%.5g", model);
	nbw_rtable_cell(t, "%+.1f%%", 100 * rel(model, tm));
}

static void section_validation(struct nbw_rdoc *r, struct vrow *rows, size_t nr,
			       const struct nbw_calib *c)
{
	nbw_rdoc_heading(r, 3, "Validation: measured against both models");
	size_t npred = predict_rows(rows, nr, c);
	if (npred == 0) {
		nbw_rdoc_para(r, "No multi-device solver run could be predicted%s%s.",
			      nr ? ": " : " (no solver runs in these results)",
			      nr && rows[nr - 1].why[0] ? rows[nr - 1].why : "");
		return;
	}
	const char *h[] = {"G", "version", "N", "steps", "runs", "spread", "fastest round (s)",
			   "paired ratio spread", "speed-matched (s)", "stable",
			   "paper (s)", "eq", "paper err", "overlap Eq. 11/12 (s)",
			   "one-device (s)", "one-device err", "comp.-cal. (s)", "comp.-cal. err",
			   "fitted (s)", "fitted err", "compute-only (s)", "compute-only err",
			   "compute", "transfer", "overhead"};
	struct nbw_rtable *t = nbw_rtable_new("validation", 25, h);
	nbw_rtable_csv_names(t, (const char *const[]){"g", "version", "n", "steps", "runs",
							"spread", "fastest_round_s",
							"ratio_spread", "matched_s", "stable",
							"paper_s", "paper_eq", "paper_err_pct",
							"overlap_s", "onedev_s", "onedev_err_pct",
							"compcal_s", "compcal_err_pct",
							"extended_s", "ext_err_pct", "conly_s",
							"conly_err_pct", "compute_pct",
							"transfer_pct", "overhead_pct"});
	for (size_t i = 0; i < nr; i++) {
		const struct vrow *w = &rows[i];
		if (!w->has_paper || !w->has_ext)
			continue;
		double tot = w->ext.compute_s + w->ext.transfer_s + w->ext.overhead_s;
		nbw_rtable_cell(t, "%d", w->g);
		nbw_rtable_cell(t, "%s", w->version);
		nbw_rtable_cell(t, "%d", w->n);
		nbw_rtable_cell(t, "%d", w->steps);
		nbw_rtable_cell(t, "%d", w->runs);
		double tm = truth(w, false);
		nbw_rtable_cell(t, "%.2f", w->spread);
		nbw_rtable_cell(t, "%.5g", w->seconds);
		nbw_rtable_cell(t, w->has_pair ? "%.3f" : "-", w->mspread);
		nbw_rtable_cell(t, w->has_pair ? "%.5g" : "-", w->matched);
		nbw_rtable_cell(t, "%s", row_stable(w, false) ? "yes" : "unstable");
		nbw_rtable_cell(t, "%.5g", w->paper.total_s);
		nbw_rtable_cell(t, "%s", w->paper.equation);
		nbw_rtable_cell(t, "%+.1f%%", 100 * rel(w->paper.total_s, tm));
		nbw_rtable_cell(t, "%.5g", w->paper.overlap_s);
		model_cells(t, w->has_onedev, w->onedev.total_s, tm);
		model_cells(t, w->has_compcal, w->compcal.total_s, tm);
		model_cells(t, true, w->ext.total_s, tm);
		model_cells(t, w->has_conly, w->conly, tm);
		nbw_rtable_cell(t, "%.0f%%", 100 * w->ext.compute_s / tot);
		nbw_rtable_cell(t, "%.0f%%", 100 * w->ext.transfer_s / tot);
		nbw_rtable_cell(t, "%.0f%%", 100 * w->ext.overhead_s / tot);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Every validated configuration: fastest round = the fastest "
			     "round (each run's fastest repetition); spread = the slowest of the 3 "
			     "fastest rounds / the fastest; speed-matched (runs timed with "
			     "--paired, each repetition right after the same repetition without "
			     "the halo copies) = the fastest compute-only repetition x the median "
			     "over every repetition of halo / compute-only time: the halo run at the "
			     "machine speed of the compute-only floor the compute-calibrated model is "
			     "calibrated on; paired ratio spread = the largest / the smallest "
			     "round's median ratio. T_measured = the speed-matched time where "
			     "there is one, else the fastest round; stable: its spread within 1.2 "
			     "(else unstable, left out of the accuracy table); error = "
			     "(T_model - T_measured) / T_measured; the fitted model's terms as "
			     "shares of its (non-overlapped) sum, where overhead is its interaction "
			     "term (negative: the runs were faster than the compute-calibrated terms).");

	accuracy_table(r, rows, nr, false);
	accuracy_table(r, rows, nr, true);
	static const int gl[2] = {2, 4};
	for (int gi = 0; gi < 2; gi++)
		plot_speedups(r, rows, nr, gl[gi]);
}

static void model_sections(struct nbw_rdoc *r, const struct nbw_rinput *in, bool head);

/* The results file a merged solver run came from (nbw_rinput_load tags every run). */
static int run_file(json_t *run)
{
	struct nbw_rv_solver_run x;
	nbw_rv_solver_read(run, &x);
	return x.file;
}

/* Solver runs of several files are never pooled: each file is its own machine or run, so
 * each gets its own calibration and validation. */
void nbw_report_model(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	int nsolver = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		size_t i;
		json_t *x;
		json_array_foreach(in->solver_runs, i, x)
			if (run_file(x) == (int)f) {
				nsolver++;
				break;
			}
	}
	if (nsolver <= 1) {
		model_sections(r, in, true);
		return;
	}
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rinput one = *in;
		one.nfiles = 1;
		one.paths = &in->paths[f];
		one.docs = &in->docs[f];
		one.solver_runs = json_array();
		one.curves.c = NULL;
		one.curves.n = 0;
		size_t i;
		json_t *x;
		json_array_foreach(in->solver_runs, i, x)
			if (run_file(x) == (int)f)
				json_array_append(one.solver_runs, x);
		struct nbw_curve *cs = malloc((in->curves.n + 1) * sizeof(*cs));
		for (size_t k = 0; cs && k < in->curves.n; k++)
			if (in->curves.c[k].file == (int)f)
				cs[one.curves.n++] = in->curves.c[k];
		one.curves.c = cs;
		/* Calibrated on this file alone. */
		one.calib = NULL;
		if (json_array_size(one.solver_runs) && nbw_rinput_calibrate(&one) == 0) {
			char title[1200];
			snprintf(title, sizeof(title), "Models of %s", in->paths[f]);
			nbw_rdoc_heading(r, 2, title);
			nbw_rdoc_para(r, "The solver runs of each results file are calibrated and "
					 "validated on their own (with that file's transfer "
					 "measurements): files are never pooled.");
			model_sections(r, &one, false);
		}
		nbw_rinput_uncalibrate(&one);
		json_decref(one.solver_runs);
		free(cs); /* the curves' points belong to in */
	}
}

static void model_sections(struct nbw_rdoc *r, const struct nbw_rinput *in, bool head)
{
	struct vrow *rows = NULL;
	size_t nr = collect_rows(in->solver_runs, &rows);
	if (!in->calib) {
		nbw_rdoc_heading(r, 2, "Models");
		nbw_rdoc_para(r, "No calibration: %s", in->calib_err);
		free(rows);
		return;
	}
	const struct nbw_calib *cal = in->calib;
	int ns[MAXN], nn = 0, gl[MAXN], ngl = 0;
	for (size_t i = 0; i < cal->nk && nn < MAXN; i++)
		ns[nn++] = cal->k[i].n;
	/* The device counts of the multi-device runs, ascending (rows are sorted by G). */
	for (size_t i = 0; i < nr; i++)
		if (rows[i].g >= 2 && (ngl == 0 || gl[ngl - 1] != rows[i].g) && ngl < MAXN)
			gl[ngl++] = rows[i].g;
	if (!nr && !cal->nk) {
		nbw_rdoc_heading(r, 2, "Models");
		nbw_rdoc_para(r, "These results hold no solver runs, so neither model can be "
				 "calibrated or validated ('nodebw run' runs the solver; 'nodebw "
				 "predict' predicts from a calibration file).");
	} else {
		/* One section: the models, their terms and their validation beneath it. */
		if (head)
			nbw_rdoc_heading(r, 2, "Models");
		section_paper(r, cal, ns, nn, gl, ngl);
		nbw_report_model_onedev(r, cal);
		section_ext_terms(r, cal);
		nbw_report_model_physics(r, cal);
		section_validation(r, rows, nr, cal);
	}
	free(rows);
}

/* ---- for the summary ---------------------------------------------------------------- */

static json_t *accuracy_obj(const struct acc *a)
{
	json_t *o = json_pack("{s:s, s:i, s:i, s:f}", "measure",
			      a->matched ? "speed-matched" : "fastest round", "sizes", a->n,
			      "unstable_sizes", a->unstable, "max_spread", a->max_spread);
	const struct {
		const char *mape, *bias;
		const struct err_sum *e;
	} m[] = {{"paper_mape", "paper_bias", &a->paper},
		 {"extended_mape", "extended_bias", &a->ext},
		 {"compcal_mape", "compcal_bias", &a->compcal},
		 {"onedev_mape", "onedev_bias", &a->onedev},
		 {"conly_mape", "conly_bias", &a->conly}};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (m[i].e->n) {
			json_object_set_new(o, m[i].mape, json_real(m[i].e->mape));
			json_object_set_new(o, m[i].bias, json_real(m[i].e->bias));
		}
	if (a->nhalo)
		json_object_set_new(o, "halo_share", json_real(a->halo_share));
	json_t *ns = json_array();
	for (int i = 0; i < a->nns; i++)
		json_array_append_new(ns, json_integer(a->ns[i]));
	json_object_set_new(o, "n_values", ns);
	return o;
}

static json_t *accuracy_json(struct vrow *rows, size_t nr, const struct nbw_calib *c)
{
	json_t *acc = json_array();
	static const char *vs[] = {"v1", "v2", "v3", "v4"};
	predict_rows(rows, nr, c);
	for (int g = 2; g <= NBW_MAX_DEVICES; g++)
		for (int k = 0; k < 4; k++) {
			struct acc a = accuracy_of(rows, nr, vs[k], g, false);
			if (!a.n && !a.unstable)
				continue;
			json_t *o = accuracy_obj(&a);
			json_object_set_new(o, "G", json_integer(g));
			json_object_set_new(o, "version", json_string(vs[k]));
			if (a.matched) {
				struct acc f = accuracy_of(rows, nr, vs[k], g, true);
				json_object_set_new(o, "fastest_round", accuracy_obj(&f));
			}
			json_array_append_new(acc, o);
		}
	return acc;
}

/* Per (G, version): the measured speedup over the one-device baseline at the largest grid
 * both ran, and the best one over the grids. */
static json_t *speedups_json(const struct vrow *rows, size_t nr)
{
	struct sp {
		int g, best_n, largest_n;
		const char *version;
		double best, at_largest;
	} *v = calloc(nr ? nr : 1, sizeof(*v));
	size_t nv = 0;
	json_t *out = json_array();
	for (size_t i = 0; v && i < nr; i++) {
		const struct vrow *w = &rows[i];
		if (w->version[0] != 'v' || w->g < 2)
			continue;
		const struct vrow *b = find_row(rows, nr, "baseline", 1, w->n);
		if (!b)
			continue;
		double s = b->seconds / w->seconds;
		size_t k = 0;
		while (k < nv && !(v[k].g == w->g && strcmp(v[k].version, w->version) == 0))
			k++;
		if (k == nv)
			v[nv++] = (struct sp){ .g = w->g, .version = w->version, .best = s,
					       .best_n = w->n };
		/* Rows are sorted by N within (G, version): the last one is the largest. */
		v[k].largest_n = w->n;
		v[k].at_largest = s;
		if (s > v[k].best) {
			v[k].best = s;
			v[k].best_n = w->n;
		}
	}
	for (size_t k = 0; k < nv; k++)
		json_array_append_new(out, json_pack("{s:i, s:s, s:f, s:i, s:i, s:f}", "G", v[k].g,
						     "version", v[k].version, "best_speedup",
						     v[k].best, "best_n", v[k].best_n, "largest_n",
						     v[k].largest_n, "speedup_at_largest_n",
						     v[k].at_largest));
	free(v);
	return out;
}

json_t *nbw_model_summary(const struct nbw_rinput *in)
{
	json_t *out = json_object();
	int files = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[f], &d);
		files += json_array_size(d.solver_runs) > 0;
	}
	if (files > 1) {
		json_object_set_new(out, "why", json_string("solver runs from several results "
							     "files: see each file's model section"));
		return out;
	}
	struct vrow *rows = NULL;
	size_t nr = collect_rows(in->solver_runs, &rows);
	if (!nr) {
		json_object_set_new(out, "why", json_string("no verified solver runs in these "
							     "results ('nodebw run' runs the "
							     "solver)"));
		free(rows);
		return out;
	}
	json_object_set_new(out, "speedups", speedups_json(rows, nr));
	if (in->calib)
		json_object_set_new(out, "accuracy", accuracy_json(rows, nr, in->calib));
	else
		json_object_set_new(out, "why", json_string(in->calib_err));
	free(rows);
	return out;
}
