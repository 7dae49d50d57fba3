/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one-device model (doc/model.md, "The one-device model"): what Version V will do on G
 * devices, from measurements that need no multi-device code: the one-device slab run, the
 * co-run probe (one-device runs on several devices at once), the launch probe and the copy
 * probes. No run of Versions 1-4, with or without their halo copies, enters it.
 *
 * Compute per step, for the busiest device and host thread:
 *   one host thread (v1-v2):   K1(G, N) + (2G - 2) x L1(G) / (2G)
 *   a thread per device (v3-4): Kp(G, N) x G / A + Lp(G)
 * with K1 the co-run of G devices driven by one host thread, Kp the co-run of A =
 * min(G, host CPUs) devices driven by a thread each, L1 and Lp the launch probe's steps of
 * the one-thread and per-device forms. Without the co-run probe at any N of that form and
 * G, the device kind's rule stands in for it: S the one-device slab step, K1 = G S on
 * host-plugin devices without hidden helpers (a target nowait runs on the thread that meets
 * it, so one thread computes the slabs in turn), else S (launches return at once, the
 * devices compute side by side); Kp = S (A devices at once on their own cores or chips).
 */
#include <math.h>
#include <stdlib.h>

#include "nodebw/stats.h"
#include "model_priv.h"
#include "nodebw/app_model.h"

/* The co-run's step of (form, g) at N = n: the exact grid, else the median over the
 * measured N' of K(N') / S(N') times S(n), with S the one-device slab step; \p at_once gets
 * the devices that ran at once. -1 when the calibration has no co-run of that form and g. */
static int corun_step(const struct nbw_calib *c, bool per_device, int g, int n, double s_n,
		      double *step, int *at_once, int *carried_from)
{
	double *r = malloc((c->ncorun + 1) * sizeof(double)), exact = INFINITY;
	size_t m = 0;
	*carried_from = 0;
	if (!r)
		return -1;
	for (size_t i = 0; i < c->ncorun; i++) {
		const struct nbw_corun *k = &c->corun[i];
		if (k->per_device != per_device || k->g != g)
			continue;
		*at_once = k->at_once;
		double kk;
		int planes = (k->n - 2 + g - 1) / g;
		if (k->n == n && k->step_s < exact)
			exact = k->step_s;
		else if (nbw_mdl_slab_k(c, k->n, planes, &kk, NULL, 0) == 0)
			r[m++] = k->step_s / (kk * (double)(k->n - 2) * (k->n - 2) * planes);
	}
	int rc = 0;
	if (isfinite(exact)) {
		*step = exact;
	} else if (m) {
		*step = nbw_median(r, m) * s_n;
		*carried_from = (int)m;
	} else {
		rc = -1;
	}
	free(r);
	return rc;
}

int nbw_predict_onedev(const struct nbw_calib *c, int n, int g, const char *v, int steps,
		       struct nbw_ext_pred *out, char *why, size_t whylen)
{
	int vn, planes;
	if (nbw_mdl_ext_start(c, n, g, v, steps, out, &vn, &planes, why, whylen))
		return -1;
	bool per_device = vn >= 3;
	bool host = strcmp(c->device_kind, "host-plugin") == 0;
	/* The one-device run of the slab: the application model's local box of z-slabs. */
	double s = nbw_app_box_compute_s(out->k_slab, (const long[3]){n, n, planes + 2}, 1), k;
	double l = nbw_calib_launch_step(c, per_device, g);
	int at_once = g, carried;
	const char *form = per_device ? "a thread per device" : "one host thread";
	if (corun_step(c, per_device, g, n, s, &k, &at_once, &carried) == 0) {
		if (carried)
			say(out->compute_from, sizeof(out->compute_from),
			    "co-run probe (%s, %d devices at once), carried over from %d other N by "
			    "the one-device slab runs", form, at_once, carried);
		else
			say(out->compute_from, sizeof(out->compute_from),
			    "co-run probe (%s, %d devices at once)", form, at_once);
	} else if (per_device) {
		k = s;
		at_once = host && c->host_cpus > 0 && c->host_cpus < g ? c->host_cpus : g;
		say(out->compute_from, sizeof(out->compute_from),
		    "one-device slab run, %d devices at once on their own %s (no co-run probe)",
		    at_once, host ? "cores" : "devices");
	} else {
		bool serial = host && c->hidden_helpers == 0;
		k = serial ? g * s : s;
		say(out->compute_from, sizeof(out->compute_from),
		    "one-device slab run x %d: %s (no co-run probe)", serial ? g : 1,
		    serial ? "one host thread computes the slabs in turn (host plugin, no hidden "
			     "helpers)"
			   : "the devices compute side by side");
	}
	/* What the versions launch beyond the one-device code's one kernel per device and
	 * step: Versions 1-2 one boundary kernel per neighbour (2G - 2 in all), at the
	 * one-thread form's cost per launch; Versions 3-4 the per-device form's whole step
	 * (their launches, taskwait and barrier on G threads). */
	double launch = per_device ? l : (2.0 * g - 2.0) * l / (2.0 * g);
	double kd = per_device ? k * g / at_once : k;
	/* More devices than host CPUs (host plugin): each core runs G / A threads' slabs in
	 * turn, so the caches see all G slabs as in the one-thread co-run, which then bounds
	 * the step from below: that co-run over the A cores. */
	double k1;
	int a1, c1;
	if (per_device && host && g > at_once &&
	    corun_step(c, false, g, n, s, &k1, &a1, &c1) == 0 && k1 / at_once > kd) {
		kd = k1 / at_once;
		size_t at = strlen(out->compute_from);
		say(out->compute_from + at, sizeof(out->compute_from) - at,
		    "; bounded by the one-thread co-run of all %d slabs over %d CPUs", g, at_once);
	}
	double compute = kd + launch;
	out->launch_s = steps * launch;
	return nbw_mdl_halo_step(c, n, g, vn, steps, planes, compute, out, why, whylen);
}
