/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The extended model and its calibration-only form: formulas only, on a calibration
 * (include/nodebw/model.h, doc/model.md), so that each can be checked against
 * hand-computed cases.
 */
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "nodebw/app_model.h"
#include "nodebw/limits.h"
#include "nodebw/model.h"
#include "nodebw/stats.h"

/* ---- the extended model ------------------------------------------------------------- */

/* k of one-device runs of the slab (n, planes): the median of exact matches; otherwise the
 * samples of the same n interpolated in planes, otherwise k-bar of the cubic runs. */
int nbw_mdl_slab_k(const struct nbw_calib *c, int n, int planes, double *k, char *why,
		   size_t whylen)
{
	double *x = malloc((c->nslab + c->nk + 1) * sizeof(double));
	if (!x)
		return -1;
	size_t m = 0;
	for (size_t i = 0; i < c->nslab; i++)
		if (c->slab[i].n == n && c->slab[i].planes == planes)
			x[m++] = c->slab[i].k;
	if (m) {
		*k = nbw_median(x, m);
		free(x);
		return 0;
	}
	free(x);
	/* Nearest slab by interior points of the slab, same n first. */
	const struct nbw_ksample *best = NULL;
	double target = (double)(n - 2) * (n - 2) * planes, bestd = INFINITY;
	for (int pass = 0; pass < 2 && !best; pass++)
		for (size_t i = 0; i < c->nslab + c->nk; i++) {
			const struct nbw_ksample *s = i < c->nslab ? &c->slab[i]
								   : &c->k[i - c->nslab];
			if (pass == 0 && s->n != n)
				continue;
			double pts = (double)(s->n - 2) * (s->n - 2) * s->planes;
			double d = fabs(log(pts / target));
			if (d < bestd) {
				bestd = d;
				best = s;
			}
		}
	if (best) {
		*k = best->k;
		return 0;
	}
	if (c->kbar_given > 0.0) {
		*k = c->kbar_given;
		return 0;
	}
	say(why, whylen, "no one-device run of the slab %dx%dx%d (nor any k)", n, n, planes + 2);
	return -1;
}

/* busy and overhead of (v, g) from the samples of sizes other than exclude_n: the least-
 * squares line y = overhead + busy x through the measured samples (relative residuals),
 * or the medians of hand-given values. */
static void version_terms(const struct nbw_calib *c, const char *v, int g, int exclude_n,
			  double *busy, double *overhead, size_t *used)
{
	size_t m = 0, given = 0, cap = c->nvs + 1;
	double *x = malloc(cap * sizeof(double)), *y = malloc(cap * sizeof(double));
	double *w = malloc(cap * sizeof(double)), *gb = malloc(cap * sizeof(double));
	double *go = malloc(cap * sizeof(double));
	*busy = 1.0;
	*overhead = 0.0;
	*used = 0;
	if (!x || !y || !w || !gb || !go)
		goto out;
	bool distinct = false;
	for (size_t i = 0; i < c->nvs; i++) {
		const struct nbw_vsample *s = &c->vs[i];
		if (strcmp(s->version, v) != 0 || s->g != g || (exclude_n && s->n == exclude_n))
			continue;
		if (s->x_s > 0.0 && s->y_s > 0.0) {
			x[m] = s->x_s;
			y[m] = s->y_s;
			w[m] = 1.0 / (s->y_s * s->y_s);
			distinct = distinct || x[m] != x[0];
			m++;
		} else {
			gb[given] = s->busy;
			go[given++] = s->overhead_s;
		}
	}
	if (m >= 2 && distinct) {
		double c0, c1, v00, v01, v11, chi;
		gsl_fit_wlinear(x, 1, w, 1, y, 1, m, &c0, &c1, &v00, &v01, &v11, &chi);
		if (c0 < 0.0 || c1 <= 0.0) {
			/* No negative overhead: the line through the origin. */
			c0 = 0.0;
			gsl_fit_wmul(x, 1, w, 1, y, 1, m, &c1, &v11, &chi);
		}
		*busy = c1;
		*overhead = c0;
		*used = m;
	} else if (m >= 1) {
		for (size_t i = 0; i < m; i++)
			x[i] = y[i] / x[i];
		*busy = nbw_median(x, m);
		*used = m;
	} else if (given) {
		*busy = nbw_median(gb, given);
		*overhead = fmax(0.0, nbw_median(go, given));
		*used = given;
	}
out:
	free(x);
	free(y);
	free(w);
	free(gb);
	free(go);
}

/* Contention of two copies at once on a path: one stream's asymptotic bandwidth over half
 * the two-stream aggregate (fitted betas), at least 1; from the times at the size when a
 * beta is missing. */
static double contention(const struct nbw_calib *c, const char *single, const char *conc,
			 double bytes, double t_single)
{
	const struct nbw_xpath *a = find_path(c, single), *b = find_path(c, conc);
	if (a && b && a->beta_gbps > 0.0 && b->beta_gbps > 0.0)
		return fmax(1.0, a->beta_gbps / (b->beta_gbps / 2.0));
	double t;
	if (b && nbw_calib_xfer_s(c, conc, bytes, &t, NULL, 0) == 0 && t > t_single)
		return t / t_single;
	return 1.0;
}

static int check_args(int n, int g, const char *v, int steps, int *vn, char *why,
		      size_t whylen)
{
	if (!is_version(v, vn) || g < 2 || g > NBW_MAX_DEVICES || n < 3 ||
	    n > NBW_GRID_MAX_SIDE || steps < 1 || steps > NBW_STEPS_MAX || n - 2 < g) {
		say(why, whylen, "the model covers v1-v4 on G = 2 to %d devices with at least one "
				 "plane each, N = 3 to %d, steps 1 to %d", NBW_MAX_DEVICES,
		    NBW_GRID_MAX_SIDE, NBW_STEPS_MAX);
		return -1;
	}
	return 0;
}

/* The transfer term both extended models share: per step, the busiest host thread's
 * planes; fills xfers, xfer_one_s, contention, busiest and bound. */
static int ext_transfer(const struct nbw_calib *c, int n, int g, int vn, struct nbw_ext_pred *out,
			double *transfer_out, char *why, size_t whylen)
{
	/* Transfers of the busiest host thread per step: each hop at the measured time of one
	 * plane between its own devices; with copies from several host threads at once
	 * (Versions 3, 4) the bandwidth term grows by the contention factor (of the path's
	 * curves, applied to every device's and pair's time alike). */
	double b = plane_bytes(n), scale[2] = {1.0, 1.0}, csum = 0.0;
	char how[400], name[2][32], conc[40];
	const char *mode = version_mode(vn);
	const char *hops[2] = {"dtoh", "htod"};
	int nhops = vn == 4 ? 1 : 2;
	for (int h = 0; h < nhops; h++) {
		double t;
		snprintf(name[h], sizeof(name[h]), "%s/%s", vn == 4 ? "p2p" : hops[h], mode);
		if (nbw_calib_xfer_s(c, name[h], b, &t, how, sizeof(how))) {
			say(why, whylen, "the extended model needs %s at %.0f B: %s", name[h], b,
			    how);
			return -1;
		}
		double f = 1.0;
		if (vn >= 3) {
			snprintf(conc, sizeof(conc), "%s/%s", name[h], vn == 4 ? "bidir" : "dual");
			f = contention(c, name[h], conc, b, t);
			const struct nbw_xpath *p = find_path(c, name[h]);
			double bw = p && p->beta_gbps > 0.0 ? p->beta_gbps * 1e9 : b / t;
			scale[h] = (t + (f - 1.0) * b / bw) / t;
		}
		csum += f;
	}
	out->contention = csum / nhops;
	/* One host thread (V1, V2) moves every interface's two planes in turn; a thread per
	 * device (V3, V4) moves its own: one neighbour at the ends, two inside. Each plane
	 * goes g -> neighbour (V4) or g -> host -> neighbour (V1-V3). */
	double transfer_step = -1.0, raw_best = 0.0;
	struct xsrc_count kbest = {{0}};
	bool one_thread = vn <= 2;
	out->busiest = -1;
	for (int th = one_thread ? -1 : 0; th < (one_thread ? 0 : g); th++) {
		int lo = th < 0 ? 0 : th, hi = th < 0 ? g - 1 : th, nplanes = 0;
		double raw = 0.0, with = 0.0;
		struct xsrc_count k = {{0}};
		for (int d = lo; d <= hi; d++)
			for (int nb = d - 1; nb <= d + 1; nb += 2) {
				if (nb < 0 || nb >= g)
					continue;
				nplanes++;
				for (int h = 0; h < nhops; h++) {
					int src = vn == 4 || h == 0 ? d : -1;
					int dst = vn == 4 || h == 1 ? nb : -1;
					double t;
					enum nbw_xsrc from;
					if (nbw_calib_xfer_ends_s(c, name[h], src, dst, b, &t, &from,
								  how, sizeof(how))) {
						say(why, whylen, "the extended model needs %s at %.0f "
								 "B: %s", name[h], b, how);
						return -1;
					}
					raw += t;
					with += t * scale[h];
					count_src(&k, from);
				}
			}
		if (with > transfer_step) {
			transfer_step = with;
			raw_best = raw;
			out->xfers = nplanes;
			out->busiest = th;
			kbest = k;
		}
	}
	out->xfer_one_s = raw_best / out->xfers;
	bool sets = nbw_calib_has_sets(c, name[0]) || (nhops > 1 && nbw_calib_has_sets(c, name[1]));
	char src[160];
	nbw_mdl_sources_str(src, sizeof(src), "transfer", &kbest);
	int bz = out->busiest;
	if (!sets)
		say(out->bound, sizeof(out->bound), "%s%s%s for every %s (the calibration has no "
			"per-%s measurements)", name[0], nhops > 1 ? " + " : "",
		    nhops > 1 ? name[1] : "", vn == 4 ? "pair" : "device",
		    vn == 4 ? "pair" : "device");
	else if (one_thread)
		say(out->bound, sizeof(out->bound), "one host thread moves every plane of devices "
			"0-%d in turn, each DtoH of its device then HtoD of the neighbour (%s)",
		    g - 1, src);
	else if (vn == 4) {
		char down[24] = "", up[24] = "";
		if (bz > 0)
			snprintf(down, sizeof(down), "%d->%d", bz, bz - 1);
		if (bz + 1 < g)
			snprintf(up, sizeof(up), "%d->%d", bz, bz + 1);
		say(out->bound, sizeof(out->bound), "busiest host thread: device %d (%s%s%s; %s)",
		    bz, down, down[0] && up[0] ? ", " : "", up, src);
	} else
		say(out->bound, sizeof(out->bound), "busiest host thread: device %d (DtoH of %d, "
			"HtoD of its neighbour%s; %s)", bz, bz, bz > 0 && bz + 1 < g ? "s" : "",
		    src);
	*transfer_out = transfer_step;
	return 0;
}

/* Whether the devices run asynchronous work beside the host thread: GPU queues, or the
 * host plugin's hidden helper threads. */
static bool overlaps(const struct nbw_calib *c, int vn)
{
	return vn >= 2 && (strcmp(c->device_kind, "host-plugin") != 0 || c->hidden_helpers > 0);
}

/* One step from its terms: the device computes the boundary planes, then the interior
 * while the copy engine (or a helper thread) moves the halo. */
static void ext_total(struct nbw_ext_pred *out, int steps, double compute_step,
		      double boundary_step, double transfer_step, double overhead_step)
{
	double step = nbw_app_step_s(out->overlap, compute_step, boundary_step, transfer_step,
				     overhead_step);
	out->compute_s = steps * compute_step;
	out->transfer_s = steps * transfer_step;
	out->overhead_s = steps * overhead_step;
	out->total_s = steps * step;
}

/* Both extended models: the arguments checked, the slab's planes and its k. */
int nbw_mdl_ext_start(const struct nbw_calib *c, int n, int g, const char *v, int steps,
		     struct nbw_ext_pred *out, int *vn, int *planes, char *why, size_t whylen)
{
	memset(out, 0, sizeof(*out));
	if (check_args(n, g, v, steps, vn, why, whylen))
		return -1;
	*planes = (n - 2 + g - 1) / g;
	out->planes = *planes;
	out->oversub = 1.0;
	return nbw_mdl_slab_k(c, n, *planes, &out->k_slab, why, whylen);
}

/* The fitted model's interaction of (v, g) from the sizes other than exclude_n, each with a
 * timed multi-device run's step M and the compute-calibrated model's step A: the mean of two one-term
 * fits, the median ratio r = M / A (a cost that grows with the step) and the median
 * difference d = M - A (a cost per step that does not). Returned as the line
 * M = f A + o with f = (1 + r) / 2 and *o = d / 2. f = 0 when no size has both. */
static double interaction(const struct nbw_calib *c, const char *v, int g, int steps,
			  int exclude_n, double *o, size_t *used)
{
	double *r = malloc((c->nvs + 1) * 2 * sizeof(double));
	double *d = r ? r + c->nvs + 1 : NULL;
	size_t m = 0;
	*used = 0;
	*o = 0.0;
	if (!r)
		return 0.0;
	for (size_t i = 0; i < c->nvs; i++) {
		const struct nbw_vsample *s = &c->vs[i];
		struct nbw_ext_pred p;
		if (strcmp(s->version, v) != 0 || s->g != g || s->measured_s <= 0.0 ||
		    s->n == exclude_n || nbw_predict_compcal(c, s->n, g, v, steps, &p, NULL, 0))
			continue;
		double a = p.total_s / steps;
		r[m] = s->measured_s / a;
		d[m++] = s->measured_s - a;
	}
	*used = m;
	double f = 0.0;
	if (m) {
		f = (1.0 + nbw_median(r, m)) / 2.0;
		*o = nbw_median(d, m) / 2.0;
	}
	free(r);
	return f;
}

/* The fitted model from instrumented runs alone (calibrations without compute_only): busy
 * and overhead of the least-squares line through the runs' per-step time without the halo
 * copies. */
static int fitted_from_phases(const struct nbw_calib *c, int n, int g, const char *v, int steps,
			      int exclude_n, struct nbw_ext_pred *out, char *why, size_t whylen)
{
	int vn, planes;
	if (nbw_mdl_ext_start(c, n, g, v, steps, out, &vn, &planes, why, whylen))
		return -1;
	size_t used;
	double overhead_step, transfer_step;
	version_terms(c, v, g, exclude_n, &out->busy, &overhead_step, &used);
	if (!used) {
		/* busy 1 would be a guess, not a fit: the one-device model is the prediction
		 * without the versions' runs. */
		say(why, whylen, "the fitted model needs %s's runs on %d devices (versions in the "
				 "calibration: timed or instrumented runs at other N)", v, g);
		return -1;
	}
	double area = (double)(n - 2) * (n - 2);
	double kk = out->k_slab * out->busy;
	double compute_step = kk * area * planes;
	double boundary_step = kk * area * (planes >= 2 ? 2 : planes);
	if (ext_transfer(c, n, g, vn, out, &transfer_step, why, whylen))
		return -1;
	out->overlap = overlaps(c, vn);
	ext_total(out, steps, compute_step, boundary_step, transfer_step, overhead_step);
	return 0;
}

int nbw_predict_ext(const struct nbw_calib *c, int n, int g, const char *v, int steps,
		    int exclude_n, struct nbw_ext_pred *out, char *why, size_t whylen)
{
	size_t used;
	int vn;
	if (check_args(n, g, v, steps, &vn, why, whylen))
		return -1;
	double o;
	double f = interaction(c, v, g, steps, exclude_n, &o, &used);
	if (f > 0.0 && nbw_predict_compcal(c, n, g, v, steps, out, why, whylen) == 0) {
		/* The compute-calibrated terms, and what the multi-device runs show beyond them. */
		double total = f * out->total_s + o * steps;
		out->interaction = f;
		out->interaction_step_s = o;
		out->interaction_sizes = (int)used;
		out->overhead_s = total - out->total_s;
		out->total_s = total;
		return 0;
	}
	return fitted_from_phases(c, n, g, v, steps, exclude_n, out, why, whylen);
}

/* Declared in model_priv.h (the evidence table uses it too). */
double nbw_calib_launch_step(const struct nbw_calib *c, bool per_device, int g)
{
	for (size_t i = 0; i < c->nlaunch; i++)
		if (c->launch[i].g == g &&
		    strcmp(c->launch[i].form, per_device ? "per-device" : "one-thread") == 0)
			return c->launch[i].step_s;
	return 0.0;
}

/* The compute-calibrated compute per step of (form, g, n): the compute-only run of exactly that grid,
 * else carried over from its other grids: the launch probe's step L of that form plus the
 * median over them of ((step - L) / one-device slab time) x this grid's slab time (L = 0
 * without the probe, or when a grid's step is not above it). \p launch gets the L used (0
 * for an exact grid). -1 when the calibration has none of that form and G. */
enum cs_use { CS_OWN, CS_PLAIN, CS_ANY };

/* Which compute-only samples stand for version \p v on \p g devices: its own paired ones
 * (timed beside its halo runs) where the calibration has any, else the form's runs of
 * their own, else any of the form (another version's paired ones). */
static enum cs_use cs_use_for(const struct nbw_calib *c, bool per_device, int g, const char *v)
{
	bool plain = false;
	for (size_t i = 0; i < c->ncs; i++) {
		const struct nbw_csample *s = &c->cs[i];
		if (s->per_device != per_device || s->g != g)
			continue;
		if (v && strcmp(s->paired, v) == 0)
			return CS_OWN;
		plain |= s->paired[0] == '\0';
	}
	return plain ? CS_PLAIN : CS_ANY;
}

static bool cs_usable(const struct nbw_csample *s, bool per_device, int g, const char *v,
		      enum cs_use use)
{
	if (s->per_device != per_device || s->g != g)
		return false;
	return use == CS_ANY || (use == CS_OWN ? strcmp(s->paired, v) == 0 : s->paired[0] == '\0');
}

static int compcal_step(const struct nbw_calib *c, bool per_device, int g, const char *v,
			int n, int planes, double k_slab, double *step, double *launch)
{
	double area = (double)(n - 2) * (n - 2), *r = malloc((c->ncs + 1) * sizeof(double));
	double l = nbw_calib_launch_step(c, per_device, g), exact = INFINITY;
	enum cs_use use = cs_use_for(c, per_device, g, v);
	size_t m = 0;
	*launch = 0.0;
	if (!r)
		return -1;
	for (size_t i = 0; i < c->ncs; i++) {
		const struct nbw_csample *s = &c->cs[i];
		if (!cs_usable(s, per_device, g, v, use))
			continue;
		if (s->n == n && s->step_s < exact)
			exact = s->step_s;
		if (s->step_s <= l)
			l = 0.0;
	}
	if (isfinite(exact)) {
		*step = exact;
		free(r);
		return 0;
	}
	for (size_t i = 0; i < c->ncs; i++) {
		const struct nbw_csample *s = &c->cs[i];
		int p = (s->n - 2 + g - 1) / g;
		double k;
		if (cs_usable(s, per_device, g, v, use) && nbw_mdl_slab_k(c, s->n, p, &k, NULL, 0) == 0)
			r[m++] = (s->step_s - l) / (k * (double)(s->n - 2) * (s->n - 2) * p);
	}
	int rc = m ? 0 : -1;
	if (m) {
		*step = l + nbw_median(r, m) * k_slab * area * planes;
		*launch = l;
	}
	free(r);
	return rc;
}

/* What Version \p vn's halo copies add to a step of G = \p g devices, grid N = \p n, from
 * the launch probe: its copy form's step (staged-copy for Version 3, direct-copy for 4)
 * less its per-device step, both near-empty regions, so the difference is the copies with
 * everything they cost the host threads (the copy itself, its target task, the wake-ups
 * and, on more threads than CPUs, the cores' sharing). At an N between two measured ones,
 * linear in the plane's bytes between them; at none, -1 (so outside the measured planes
 * the transfer curves stand for the copies). Negative differences count as 0. */
static int copy_probe_step(const struct nbw_calib *c, int vn, int g, int n, double *step)
{
	const char *form = vn == 3 ? "staged-copy" : "direct-copy";
	double l = nbw_calib_launch_step(c, true, g);
	const struct nbw_lsample *lo = NULL, *hi = NULL;
	if (vn < 3 || !(l > 0.0))
		return -1;
	for (size_t i = 0; i < c->nlaunch; i++) {
		const struct nbw_lsample *s = &c->launch[i];
		if (s->g != g || s->n < 3 || strcmp(s->form, form) != 0)
			continue;
		if (s->n <= n && (!lo || s->n > lo->n))
			lo = s;
		if (s->n >= n && (!hi || s->n < hi->n))
			hi = s;
	}
	if (!lo || !hi)
		return -1;
	double dlo = fmax(0.0, lo->step_s - l), dhi = fmax(0.0, hi->step_s - l);
	if (lo->n == hi->n) {
		*step = dlo;
		return 0;
	}
	double blo = (double)lo->n * lo->n, bhi = (double)hi->n * hi->n, b = (double)n * n;
	*step = dlo + (dhi - dlo) * (b - blo) / (bhi - blo);
	return 0;
}

/* Host-thread oversubscription of the copies: on host-plugin devices a copy is a memcpy
 * on the host thread that issues it, and with a thread per device (Versions 3-4) on more
 * devices than CPUs each core runs g / host_cpus threads, every one computing or spinning
 * at the barrier, so the busiest thread's copies get host_cpus / g of a core. The probes
 * (one or two threads at once) never see that; the compute-only runs hold it for the
 * kernels. 1 on GPUs (copy engines), for one host thread, and when the CPUs are unknown. */
static double oversubscription(const struct nbw_calib *c, int vn, int g)
{
	if (vn < 3 || c->host_cpus <= 0 || g <= c->host_cpus ||
	    strcmp(c->device_kind, "host-plugin") != 0)
		return 1.0;
	return (double)g / c->host_cpus;
}

int nbw_predict_compcal(const struct nbw_calib *c, int n, int g, const char *v, int steps,
			struct nbw_ext_pred *out, char *why, size_t whylen)
{
	int vn, planes;
	if (nbw_mdl_ext_start(c, n, g, v, steps, out, &vn, &planes, why, whylen))
		return -1;
	double compute_step, launch;
	bool per_device = vn >= 3;
	if (compcal_step(c, per_device, g, v, n, planes, out->k_slab, &compute_step, &launch)) {
		say(why, whylen, "the compute-calibrated model needs %s on %d devices without "
				 "the halo copies (nodebw heat --paired, or --no-exchange; "
				 "compute_only in the calibration)", per_device ? "v3 or v4" : "v1 or v2", g);
		return -1;
	}
	out->launch_s = steps * launch;
	return nbw_mdl_halo_step(c, n, g, vn, steps, planes, compute_step, out, why, whylen);
}

int nbw_predict_compute_only(const struct nbw_calib *c, int n, int g, const char *v, int steps,
			     double *total_s)
{
	int vn;
	if (check_args(n, g, v, steps, &vn, NULL, 0))
		return -1;
	bool per_device = vn >= 3;
	enum cs_use use = cs_use_for(c, per_device, g, v);
	double best = INFINITY;
	for (size_t i = 0; i < c->ncs; i++)
		if (cs_usable(&c->cs[i], per_device, g, v, use) && c->cs[i].n == n)
			best = fmin(best, c->cs[i].step_s);
	if (!isfinite(best))
		return -1;
	*total_s = steps * best;
	return 0;
}

/* The models built on a measured compute (compute-calibrated, one-device): the copies and
 * the overlap per device kind on top of \p compute_step (doc/model.md). */
int nbw_mdl_halo_step(const struct nbw_calib *c, int n, int g, int vn, int steps, int planes,
		      double compute_step, struct nbw_ext_pred *out, char *why, size_t whylen)
{
	double area = (double)(n - 2) * (n - 2);
	/* What G devices at once cost against one device alone (reported as busy). */
	out->busy = compute_step / (out->k_slab * area * planes);
	double transfer_step, boundary_step = compute_step * (planes >= 2 ? 2.0 : 1.0) / planes;
	double probed;
	bool have_probe = copy_probe_step(c, vn, g, n, &probed) == 0;
	/* The transfer curves' terms (paths, contention, whose planes) are reported beside the
	 * copy probe's; only without the probe are they needed. */
	if (ext_transfer(c, n, g, vn, out, &transfer_step, why, whylen) && !have_probe)
		return -1;
	if (have_probe) {
		/* The copies as the threads of the version's form issue them, measured. */
		out->copy_probe = true;
		transfer_step = probed;
	} else {
		out->oversub = oversubscription(c, vn, g);
		transfer_step *= out->oversub;
	}
	out->overlap = overlaps(c, vn);
	ext_total(out, steps, compute_step, boundary_step, transfer_step, 0.0);
	return 0;
}
