/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report's section on the one-device model (doc/model.md, "The one-device model"): per
 * G and N the measured terms its compute is built from, the one-device slab step, the
 * co-run probe's two forms and the launch probe's steps, and the compute they give.
 */
#include <math.h>
#include <string.h>

#include "model_priv.h"

static void cell(struct nbw_rtable *t, double us)
{
	if (us > 0.0 && isfinite(us))
		nbw_rtable_cell(t, "%.2f", us);
	else
		nbw_rtable_cell(t, "-");
}

static const struct nbw_corun *corun_of(const struct nbw_calib *c, bool per_device, int g, int n)
{
	for (size_t i = 0; i < c->ncorun; i++)
		if (c->corun[i].per_device == per_device && c->corun[i].g == g && c->corun[i].n == n)
			return &c->corun[i];
	return NULL;
}

void nbw_report_model_onedev(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	nbw_rdoc_heading(r, 3, "The one-device model: its measured terms");
	if (!c->ncorun) {
		nbw_rdoc_para(r, "No co-run probe in these results (nodebw heat --corun; nodebw run "
				 "runs it with the slab shapes): the one-device model takes the "
				 "device kind's rule for G devices at once (doc/model.md).");
		return;
	}
	nbw_rdoc_para(r, "Everything the one-device model's compute is built from, per G and N "
			 "(doc/model.md): S, the one-device slab step (k_slab x (N-2)^2 x P, P = "
			 "ceil((N-2)/G)); the co-run probe, G one-device slab runs at once driven "
			 "by one host thread (K1) and min(G, CPUs) of them by a thread each (Kp, "
			 "A devices at once); the launch probe's one-thread (L1) and per-device "
			 "(Lp) steps. Versions 1-2 compute K1 + (2G - 2) L1 / 2G, Versions 3-4 "
			 "Kp G / A + Lp. No run of Versions 1-4 enters any column.");
	const char *h[] = {"G", "N", "S (us)", "K1 (us)", "K1 / S", "A", "Kp (us)", "Kp / S",
			   "L1 (us)", "Lp (us)", "v1-v2 compute (us)", "v3-v4 compute (us)"};
	struct nbw_rtable *t = nbw_rtable_new("onedev-terms", 12, h);
	nbw_rtable_csv_names(t, (const char *const[]){"g", "n", "slab_us", "k1_us", "k1_over_s",
							"at_once", "kp_us", "kp_over_s", "l1_us",
							"lp_us", "compute_v12_us",
							"compute_v34_us"});
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {0.0, 0.0}; /* K1 / S, Kp / S */
	for (size_t i = 0; i < c->ncorun; i++) {
		const struct nbw_corun *k = &c->corun[i];
		if (k->per_device && corun_of(c, false, k->g, k->n))
			continue; /* one row per (G, N), led by its one-thread co-run */
		const struct nbw_corun *k1 = corun_of(c, false, k->g, k->n);
		const struct nbw_corun *kp = corun_of(c, true, k->g, k->n);
		struct nbw_ext_pred o12, o34;
		bool p12 = nbw_predict_onedev(c, k->n, k->g, "v2", 1, &o12, NULL, 0) == 0;
		bool p34 = nbw_predict_onedev(c, k->n, k->g, "v3", 1, &o34, NULL, 0) == 0;
		double s = p12 ? o12.k_slab * (double)(k->n - 2) * (k->n - 2) * o12.planes : NAN;
		nbw_rtable_cell(t, "%d", k->g);
		nbw_rtable_cell(t, "%d", k->n);
		cell(t, s * 1e6);
		cell(t, k1 ? k1->step_s * 1e6 : NAN);
		if (k1 && s > 0.0) {
			nbw_rtable_cell(t, "%.2f", k1->step_s / s);
			lo[0] = fmin(lo[0], k1->step_s / s);
			hi[0] = fmax(hi[0], k1->step_s / s);
		} else
			nbw_rtable_cell(t, "-");
		if (kp)
			nbw_rtable_cell(t, "%d", kp->at_once);
		else
			nbw_rtable_cell(t, "-");
		cell(t, kp ? kp->step_s * 1e6 : NAN);
		if (kp && s > 0.0) {
			nbw_rtable_cell(t, "%.2f", kp->step_s / s);
			lo[1] = fmin(lo[1], kp->step_s / s);
			hi[1] = fmax(hi[1], kp->step_s / s);
		} else
			nbw_rtable_cell(t, "-");
		cell(t, nbw_calib_launch_step(c, false, k->g) * 1e6);
		cell(t, nbw_calib_launch_step(c, true, k->g) * 1e6);
		cell(t, p12 ? o12.compute_s * 1e6 : NAN);
		cell(t, p34 ? o34.compute_s * 1e6 : NAN);
		nbw_rtable_end_row(t);
	}
	char range[2][48];
	for (int f = 0; f < 2; f++)
		if (hi[f] > 0.0)
			snprintf(range[f], sizeof(range[f]), "%.2f-%.2f", lo[f], hi[f]);
		else
			snprintf(range[f], sizeof(range[f]), "not measured");
	char cap[512];
	snprintf(cap, sizeof(cap),
		 "The one-device model's compute per step and what it is made of (microseconds; - "
		 "where not measured). K / S: what the devices computing at once cost against "
		 "one device alone; here K1 / S %s (one host thread driving G devices) and Kp / S "
		 "%s (A devices driven by a thread each). doc/model.md, \"The one-device "
		 "model\", says what each term stands for.",
		 range[0], range[1]);
	nbw_rdoc_table(r, t, cap);
}
