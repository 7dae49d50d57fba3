/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report's evidence of the physics the paper's model leaves out (doc/model.md, "What
 * the paper's model leaves out"): each term with the measured figure that shows it, from
 * the calibration of one results file, and which of nodebw's models carries it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "nodebw/model.h"
#include "nodebw/report.h"
#include "nodebw/stats.h"

/* min and max of the values pushed so far. */
struct range {
	double lo, hi;
	size_t n;
};

static void push(struct range *r, double x)
{
	if (!isfinite(x))
		return;
	r->lo = r->n ? fmin(r->lo, x) : x;
	r->hi = r->n ? fmax(r->hi, x) : x;
	r->n++;
}

static double k_of(const struct nbw_ksample *k, size_t nk, int n, int planes)
{
	for (size_t i = 0; i < nk; i++)
		if (k[i].n == n && (planes < 0 || k[i].planes == planes))
			return k[i].k;
	return NAN;
}

/* The fastest compute-only step of (form, G, N): paired runs give one per version. */
static const struct nbw_csample *cs_of(const struct nbw_calib *c, bool per_device, int g, int n)
{
	const struct nbw_csample *best = NULL;
	for (size_t i = 0; i < c->ncs; i++)
		if (c->cs[i].per_device == per_device && c->cs[i].g == g && c->cs[i].n == n &&
		    (!best || c->cs[i].step_s < best->step_s))
			best = &c->cs[i];
	return best;
}

static int cmp_k(const void *a, const void *b)
{
	const struct nbw_ksample *x = a, *y = b;
	return (x->n > y->n) - (x->n < y->n);
}

static void row(struct nbw_rtable *t, const char *term, const char *evidence, const char *use)
{
	nbw_rtable_cell(t, "%s", term);
	nbw_rtable_cell(t, "%s", evidence);
	nbw_rtable_cell(t, "%s", use);
	nbw_rtable_end_row(t);
}

/* "what: G = 2: lo-hi; G = 4: lo-hi" with \p fmt of the two bounds. */
static void per_g(char *buf, size_t len, const char *what, const struct range r[2],
		  const char *fmt)
{
	size_t w = (size_t)snprintf(buf, len, "%s: ", what);
	for (int gi = 0; gi < 2 && w < len; gi++) {
		w += (size_t)snprintf(buf + w, len - w, "%sG = %d: ", gi ? "; " : "", 2 + 2 * gi);
		if (w >= len)
			break;
		w += r[gi].n ? (size_t)snprintf(buf + w, len - w, fmt, r[gi].lo, r[gi].hi)
			     : (size_t)snprintf(buf + w, len - w, "-");
	}
}

/* The largest departure of k(N) from the geometric mean of its neighbours' k. */
static void trend_evidence(const struct nbw_calib *c, char *buf, size_t len)
{
	struct nbw_ksample *k = malloc((c->nk + 1) * sizeof(*k));
	if (!k || c->nk < 3) {
		snprintf(buf, len, "fewer than 3 one-device sizes");
		free(k);
		return;
	}
	memcpy(k, c->k, c->nk * sizeof(*k));
	qsort(k, c->nk, sizeof(*k), cmp_k);
	double worst = 0.0;
	int at = 0;
	for (size_t i = 1; i + 1 < c->nk; i++) {
		double dev = k[i].k / sqrt(k[i - 1].k * k[i + 1].k) - 1.0;
		if (fabs(dev) > fabs(worst)) {
			worst = dev;
			at = k[i].n;
		}
	}
	snprintf(buf, len, "k(%d) is %+.1f %% off the geometric mean of its neighbours' k", at,
		 100.0 * worst);
	free(k);
}

/* Appends the launch probe's figures to \p buf: per launch for the one-thread forms, per
 * step for a thread per device. */
static void launch_evidence(const struct nbw_calib *c, char *buf, size_t len)
{
	size_t w = strlen(buf);
	static const char *const forms[] = {"one-thread", "sync", "per-device"};
	static const char *const what[] = {
		"one host thread, nowait", "blocking",
		"a thread per device, per step: 2 launches, taskwait, barrier"};
	for (int f = 0; f < 3 && w < len; f++) {
		bool any = false;
		for (size_t i = 0; i < c->nlaunch && w < len; i++) {
			const struct nbw_lsample *l = &c->launch[i];
			if (strcmp(l->form, forms[f]) != 0)
				continue;
			double v = f < 2 ? l->step_s / (2.0 * l->g) : l->step_s;
			w += (size_t)snprintf(buf + w, len - w, "%s G = %d: %.2f us",
					      any ? "," : f ? ";" : ". Launch probe:", l->g, v * 1e6);
			if (!any && w < len)
				w += (size_t)snprintf(buf + w, len - w, " (%s)", what[f]);
			any = true;
		}
	}
}

/* The slab shape against N^3, and the sizes off the trend. */
static void physics_slab(struct nbw_rtable *t, const struct nbw_calib *c)
{
	char ev[640];

	/* The slab shape: cache and aliasing of N x N x (P+2) against N^3. */
	struct range ks = {0};
	for (size_t i = 0; i < c->nslab; i++)
		push(&ks, c->slab[i].k / k_of(c->k, c->nk, c->slab[i].n, -1));
	if (ks.n)
		snprintf(ev, sizeof(ev), "k_slab / k(N) = %.2f-%.2f over %zu slab shapes", ks.lo,
			 ks.hi, ks.n);
	else
		snprintf(ev, sizeof(ev), "no slab and cubic runs of the same N");
	row(t, "slab shape (cache, aliasing)", ev,
	    "k_slab of the exact shape (compute-calibrated, fitted); the paper's k-bar is of N^3 grids");
	trend_evidence(c, ev, sizeof(ev));
	row(t, "anomalous sizes", ev, "k_slab and the compute-only runs of the exact N");
}

/* One host thread for G devices: serialisation and per-launch cost; G devices at once. */
static void physics_one_thread(struct nbw_rtable *t, const struct nbw_calib *c)
{
	char ev[640];

	/* One host thread for G devices: serialisation and per-launch cost. */
	struct range ser[2] = {{0}}, launch[2] = {{0}}, busy[2] = {{0}};
	for (size_t i = 0; i < c->ncs; i++) {
		const struct nbw_csample *s = &c->cs[i];
		int gi = s->g == 2 ? 0 : s->g == 4 ? 1 : -1;
		int planes = (s->n - 2 + s->g - 1) / s->g;
		double area = (double)(s->n - 2) * (s->n - 2);
		double kslab = k_of(c->slab, c->nslab, s->n, planes);
		if (gi < 0 || !isfinite(kslab))
			continue;
		if (s->per_device) {
			push(&busy[gi], s->step_s / (kslab * area * planes));
			continue;
		}
		const struct nbw_csample *pd = cs_of(c, true, s->g, s->n);
		if (pd)
			push(&ser[gi], s->step_s / pd->step_s);
		/* 2 G launches per step (interior and boundary of each device). */
		push(&launch[gi], (s->step_s - kslab * area * (s->n - 2)) / (2.0 * s->g) * 1e6);
	}
	per_g(ev, sizeof(ev), "compute-only step of one host thread over a thread per device",
	      ser, "%.2f-%.2f");
	row(t, "one host thread drives G devices (Versions 1-2)", ev,
	    "compute-calibrated compute of the v2 form; the paper's model divides by G");
	per_g(ev, sizeof(ev), "(one-thread compute-only step - the G slabs' one-device compute) "
			      "/ 2G launches", launch, "%.1f to %.1f us");
	launch_evidence(c, ev, sizeof(ev));
	row(t, "per-launch cost with G, one host thread", ev,
	    c->nlaunch ? "inside the compute-only runs; the probe's step is the compute-calibrated launch "
			 "term where the compute is carried over from other sizes"
		       : "inside the compute-only runs (compute-calibrated); no launch probe in this run");
	per_g(ev, sizeof(ev), "a thread per device, compute-only step over the one-device slab "
			      "time (1 = no interference)", busy, "%.2f-%.2f");
	row(t, "devices at work at once (shared cores, memory)", ev,
	    "compute-calibrated compute of the v3 form");
}

/* Copies from several host threads at once. */
static void physics_dual(struct nbw_rtable *t, const struct nbw_calib *c)
{
	/* Copies from several host threads at once. */
	char ev[640] = "";
	size_t w = 0;
	static const char *const pairs[][2] = {{"htod/async", "htod/async/dual"},
					       {"p2p/async", "p2p/async/bidir"}};
	for (int p = 0; p < 2; p++) {
		const struct nbw_xpath *x = NULL, *y = NULL;
		for (size_t i = 0; i < c->npaths; i++) {
			if (strcmp(c->paths[i].name, pairs[p][0]) == 0)
				x = &c->paths[i];
			if (strcmp(c->paths[i].name, pairs[p][1]) == 0)
				y = &c->paths[i];
		}
		if (x && y && x->alpha_s >= 0.0 && y->alpha_s >= 0.0 && w < sizeof(ev))
			w += (size_t)snprintf(ev + w, sizeof(ev) - w,
					      "%s%s alpha %.2f us alone, %.2f us with two at once",
					      w ? "; " : "", pairs[p][0], x->alpha_s * 1e6,
					      y->alpha_s * 1e6);
	}
	row(t, "copies from two host threads at once", w ? ev : "no dual/bidir probes",
	    "the bandwidth part as contention (compute-calibrated, fitted); the latency part only in "
	    "the fitted interaction");
}

/* The halo copies as a thread per device issues them: the launch probe's copy forms.
 * Whether the probe measured any. */
static bool physics_copy_forms(struct nbw_rtable *t, const struct nbw_calib *c)
{
	/* The halo copies as a thread per device issues them: the launch probe's copy forms. */
	bool copy_probe = false;
	char ev[640];
	for (int f = 0; f < 2; f++) {
		const char *form = f ? "direct-copy" : "staged-copy";
		struct range per_copy[2] = {{0}};
		for (size_t i = 0; i < c->nlaunch; i++) {
			const struct nbw_lsample *l = &c->launch[i];
			if (strcmp(l->form, form) != 0 || (l->g != 2 && l->g != 4))
				continue;
			double base = nbw_calib_launch_step(c, true, l->g);
			if (!(base > 0.0))
				continue;
			/* The busiest thread: one or two neighbours, two copies per plane staged. */
			int copies = (l->g > 2 ? 2 : 1) * (f ? 1 : 2);
			push(&per_copy[l->g / 2 - 1], (l->step_s - base) / copies * 1e6);
		}
		if (!per_copy[0].n && !per_copy[1].n)
			continue;
		copy_probe = true;
		char what[96];
		snprintf(what, sizeof(what), "launch probe, %s step - per-device step per copy",
			 form);
		per_g(ev, sizeof(ev), what, per_copy, "%.1f to %.1f us");
		row(t, f ? "halo copies from a thread per device (Version 4: device -> device)"
			 : "halo copies from a thread per device (Version 3: device -> host -> device)",
		    ev,
		    "compute-calibrated: the probe's step difference at N is the transfer term of Versions 3-4 "
		    "(it holds the copy, its target task, the wake-ups and the cores' sharing)");
	}

	return copy_probe;
}

/* A thread per device on more devices than CPUs: the copies share a core. */
static void physics_oversub(struct nbw_rtable *t, const struct nbw_calib *c, bool copy_probe)
{
	char ev[640];

	/* A thread per device on more devices than CPUs: the copies share a core. */
	int gmax = 0;
	for (size_t i = 0; i < c->ncs; i++)
		gmax = c->cs[i].per_device && c->cs[i].g > gmax ? c->cs[i].g : gmax;
	if (c->host_cpus <= 0)
		snprintf(ev, sizeof(ev), "CPUs unknown (the results' machine.cpus_allowed or "
					 "cpus_online)");
	else
		snprintf(ev, sizeof(ev), "%d CPUs, %s devices: %s", c->host_cpus,
			 c->device_kind[0] ? c->device_kind : "unknown",
			 strcmp(c->device_kind, "host-plugin") != 0
				 ? "copies run on copy engines, not on the host threads (factor 1)"
			 : gmax > c->host_cpus
				 ? "Versions 3-4 on G > CPUs run G / CPUs host threads per core "
				   "(each computing or spinning at the barrier)"
				 : "no more host threads than CPUs in the compute-only runs");
	row(t, "host threads sharing a core with the copies (Versions 3-4, host plugin)", ev,
	    copy_probe ? "compute-calibrated: inside the copy probe's step at the measured N; elsewhere the "
			 "busiest thread's transfer x G / CPUs where G > CPUs (oversub in nodebw "
			 "predict --json)"
		       : "compute-calibrated: the busiest thread's transfer x G / CPUs where G > CPUs (oversub "
			 "in nodebw predict --json)");
}

/* What the runs with the exchange cost beyond their terms. */
static void physics_interaction(struct nbw_rtable *t, const struct nbw_calib *c)
{
	/* What the runs with the exchange cost beyond their terms. */
	struct range f[4] = {{0}}, o[4] = {{0}};
	static const char *const vn[] = {"v1", "v2", "v3", "v4"};
	for (int k = 0; k < 4; k++)
		for (int g = 2; g <= 4; g += 2) {
			struct nbw_ext_pred e;
			int n0 = 0;
			for (size_t i = 0; i < c->nvs; i++)
				if (strcmp(c->vs[i].version, vn[k]) == 0 && c->vs[i].g == g)
					n0 = c->vs[i].n;
			if (n0 && nbw_predict_ext(c, n0, g, vn[k], 1, 0, &e, NULL, 0) == 0 &&
			    e.interaction > 0.0) {
				push(&f[k], e.interaction);
				push(&o[k], e.interaction_step_s * 1e6);
			}
		}
	size_t w = 0;
	char ev[640] = "";
	for (int k = 0; k < 4 && w < sizeof(ev); k++)
		if (f[k].n)
			w += (size_t)snprintf(ev + w, sizeof(ev) - w,
					      "%s%s f %.3f-%.3f, o %.1f to %.1f us/step", w ? "; " : "",
					      vn[k], f[k].lo, f[k].hi, o[k].lo, o[k].hi);
	row(t, "copies under compute load, waits behind a neighbour", w ? ev : "no timed runs",
	    "fitted only: the interaction, measured step = f x compute-calibrated step + o, over "
	    "G = 2, 4");
}

/* Overlap of the halo with the interior. */
static void physics_overlap(struct nbw_rtable *t, const struct nbw_calib *c)
{
	char ev[640];

	/* Overlap. */
	bool gpu = strcmp(c->device_kind, "host-plugin") != 0;
	snprintf(ev, sizeof(ev), "%s, %d hidden helper threads in the solver runs: %s",
		 c->device_kind[0] ? c->device_kind : "unknown devices", c->hidden_helpers,
		 gpu || c->hidden_helpers > 0
			 ? "asynchronous work runs beside the host thread"
			 : "a nowait target region runs on the thread that meets it, so nothing "
			   "overlaps the compute");
	row(t, "overlap of the halo with the interior (Versions 2-4)", ev,
	    "boundary + max(interior, transfer) where it overlaps, else the sum (both)");
}

void nbw_report_model_physics(struct nbw_rdoc *r, const struct nbw_calib *c)
{
	nbw_rdoc_heading(r, 3, "What the paper's model leaves out: evidence");
	const char *h[] = {"term", "measured here", "carried by"};
	struct nbw_rtable *t = nbw_rtable_new("model-physics", 3, h);
	nbw_rtable_csv_names(t, (const char *const[]){"term", "evidence", "carried_by"});
	physics_slab(t, c);
	physics_one_thread(t, c);
	physics_dual(t, c);
	bool copy_probe = physics_copy_forms(t, c);
	physics_oversub(t, c, copy_probe);
	physics_interaction(t, c);
	physics_overlap(t, c);
	nbw_rdoc_table(r, t, "Each term with what this run measured of it (ranges over the grid "
			     "sizes); doc/model.md gives the formulas.");
}
