/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application model (include/nodebw/app_model.h, doc/model.md "The application
 * model"): an application's step on G devices from the calibration's probes and one-device
 * runs and its description only; formulas on a calibration, checked by hand-computed cases
 * (tests/unit/test_app_model.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "nodebw/app_model.h"
#include "nodebw/limits.h"
#include "nodebw/stats.h"

double nbw_app_box_points(const long box[3], int radius)
{
	double p = 1.0;
	for (int i = 0; i < 3; i++)
		p *= (double)(box[i] - 2L * radius);
	return p;
}

double nbw_app_face_bytes(double face_elements, int radius, int fields, int element_bytes)
{
	return face_elements * radius * fields * element_bytes;
}

double nbw_app_box_compute_s(double k, const long box[3], int radius)
{
	return k * nbw_app_box_points(box, radius);
}

double nbw_app_step_s(bool overlap, double compute, double boundary, double exchange,
		      double launch)
{
	double step = overlap ? boundary + fmax(compute - boundary, exchange) : compute + exchange;
	return step + launch;
}

int nbw_app_decomps(const struct nbw_app *a, int g, int out[][3], int max)
{
	int n = 0;
	if (!nbw_app_decomp_open(a)) {
		if (a->decomp[0] * a->decomp[1] * a->decomp[2] == g && nbw_app_decomp_fits(a, a->decomp) &&
		    max > 0) {
			memcpy(out[0], a->decomp, sizeof(out[0]));
			n = 1;
		}
		return n;
	}
	/* z first (the contiguous faces), then y, then x. */
	for (int pz = g; pz >= 1; pz--)
		for (int py = g / pz; py >= 1; py--) {
			if (g % pz || (g / pz) % py)
				continue;
			int d[3] = {g / pz / py, py, pz};
			if (n < max && nbw_app_decomp_fits(a, d))
				memcpy(out[n++], d, sizeof(d));
		}
	return n;
}

/* The paper's case: z-slabs of a cubic grid, radius 1, one 8-byte field. */
static bool paper_case(const struct nbw_app *a, const int d[3])
{
	return d[0] == 1 && d[1] == 1 && d[2] >= 2 && a->radius == 1 && a->fields == 1 &&
	       a->element_bytes == 8 && a->grid[0] == a->grid[1] && a->grid[1] == a->grid[2] &&
	       a->compute == NBW_APP_COMPUTE_KERNEL;
}

/* The version whose form the app's exchange and overlap are: host-staged without overlap
 * Version 1 (one host thread, blocking copies), with overlap Version 3 (a host thread per
 * device, asynchronous copies); device Version 4. "" when none (device without overlap). */
static const char *paper_version(enum nbw_app_exchange e, bool overlap)
{
	if (e == NBW_APP_HOST_STAGED)
		return overlap ? "v3" : "v1";
	return overlap ? "v4" : "";
}

/* The one-device model of that version: the same terms, named as the app model names them. */
static int from_version(const struct nbw_calib *c, const struct nbw_app *a, const char *v,
			struct nbw_app_pred *out, char *why, size_t whylen)
{
	struct nbw_ext_pred e;
	int n = (int)a->grid[0], g = out->g, steps = (int)a->steps;
	if (nbw_predict_onedev(c, n, g, v, steps, &e, why, whylen))
		return -1;
	out->paper_version = true;
	snprintf(out->version, sizeof(out->version), "%s", v);
	out->compute_s = (e.compute_s - e.launch_s) / steps;
	out->launch_s = e.launch_s / steps;
	out->exchange_s = e.transfer_s / steps;
	out->boundary_s = out->compute_s * (e.planes >= 2 ? 2.0 : 1.0) / e.planes;
	out->overlap = e.overlap;
	out->concurrency = e.busy;
	out->step_s = e.total_s / steps;
	out->total_s = e.total_s;
	out->neighbours = e.xfers;
	out->box_measured = true;
	out->faces_measured = e.copy_probe;
	say(out->compute_from, sizeof(out->compute_from), "the one-device model of %s: %s", v,
	    e.compute_from);
	say(out->exchange_from, sizeof(out->exchange_from), "%s; %s",
	    e.copy_probe ? "the launch probe's copy form" : "the transfer curves", e.bound);
	return 0;
}

/* One device's k (seconds per interior point and step) of the app's radius: the
 * calibration's one-device runs, radius 1 (the solver's 7-point stencil), the exact slab,
 * else the nearest by points; \p exact says whether the box itself was measured. */
static int kernel_k(const struct nbw_calib *c, const struct nbw_app *a, const long box[3],
		    double *k, bool *exact, char *from, size_t fromlen)
{
	*exact = false;
	/* The generalised solver's one-device runs of this radius and field count: the box
	 * itself, else the nearest by points. */
	const struct nbw_boxrun *best = NULL;
	double pts = nbw_app_box_points(box, a->radius), bestd = INFINITY;
	for (size_t i = 0; i < c->nboxes; i++) {
		const struct nbw_boxrun *b = &c->boxes[i];
		if (b->radius != a->radius || b->fields != a->fields)
			continue;
		double d = fabs(log(nbw_app_box_points(b->box, b->radius) / pts));
		if (d < bestd) {
			bestd = d;
			best = b;
		}
	}
	if (best) {
		*k = best->step_s / nbw_app_box_points(best->box, best->radius);
		*exact = bestd == 0.0 && !memcmp(best->box, box, sizeof(best->box));
		if (*exact)
			say(from, fromlen, "the one-device run of this box (radius %d, %d field%s)",
			    a->radius, a->fields, a->fields == 1 ? "" : "s");
		else
			say(from, fromlen, "the nearest one-device run by points (%ldx%ldx%ld, "
			    "radius %d, %d field%s), scaled by points", best->box[0], best->box[1],
			    best->box[2], a->radius, a->fields, a->fields == 1 ? "" : "s");
		return 0;
	}
	bool slab = box[0] == box[1];
	if (slab)
		for (size_t i = 0; i < c->nslab; i++)
			if (c->slab[i].n == box[0] && c->slab[i].planes == box[2] - 2)
				*exact = true;
	int planes = (int)(box[2] - 2 * a->radius);
	double side = sqrt((double)(box[0] - 2) * (double)(box[1] - 2)) + 2.0;
	if (nbw_mdl_slab_k(c, slab ? (int)box[0] : (int)lround(side), planes, k, NULL, 0))
		return -1;
	bool other = a->radius > 1 || a->fields > 1;
	say(from, fromlen, "%s, radius 1, one field (nodebw-heat)%s",
	    *exact ? "the one-device run of this box" : "the nearest one-device run by points",
	    other ? ", standing in for this radius and field count (not measured)" : "");
	if (other)
		*exact = false;
	return 0;
}

/* What G devices at once cost against one alone, a thread per device: the co-run probe's
 * median ratio to the one-device slab runs at this G; without it the device kind's rule
 * (host plugin: G / host CPUs when more devices than CPUs, else 1). */
static double concurrency(const struct nbw_calib *c, int g, char *how, size_t howlen)
{
	double *r = malloc((c->ncorun + 1) * sizeof(double)), f = 1.0;
	size_t m = 0;
	for (size_t i = 0; r && i < c->ncorun; i++) {
		const struct nbw_corun *k = &c->corun[i];
		double kk;
		int planes = (k->n - 2 + k->g - 1) / k->g;
		if (!k->per_device || k->g != g ||
		    nbw_mdl_slab_k(c, k->n, planes, &kk, NULL, 0))
			continue;
		double one = kk * (double)(k->n - 2) * (k->n - 2) * planes;
		r[m++] = k->step_s / one * g / k->at_once;
	}
	bool host = strcmp(c->device_kind, "host-plugin") == 0;
	if (m) {
		f = nbw_median(r, m);
		say(how, howlen, "x %.2f for %d devices at once (co-run probe, %zu size%s)", f, g,
		    m, m == 1 ? "" : "s");
	} else if (host && c->host_cpus > 0 && g > c->host_cpus) {
		f = (double)g / c->host_cpus;
		say(how, howlen, "x %.2f: %d devices share %d host CPUs (no co-run probe)", f, g,
		    c->host_cpus);
	} else {
		say(how, howlen, "x 1: the devices compute side by side (no co-run probe)");
	}
	free(r);
	return f;
}

/* One message of \p bytes on the exchange's path; \p hops the path names. */
static int message_s(const struct nbw_calib *c, enum nbw_app_exchange e, const char *mode,
		     double bytes, double *t, char *why, size_t whylen)
{
	char hops[2][24];
	snprintf(hops[0], sizeof(hops[0]), "%s/%s", e == NBW_APP_DEVICE ? "p2p" : "dtoh", mode);
	snprintf(hops[1], sizeof(hops[1]), "htod/%s", mode);
	int n = e == NBW_APP_HOST_STAGED ? 2 : 1;
	*t = 0.0;
	for (int h = 0; h < n; h++) {
		double x;
		char how[300];
		if (nbw_calib_xfer_s(c, hops[h], bytes, &x, how, sizeof(how))) {
			say(why, whylen, "the application model needs %s at %.0f B: %s", hops[h],
			    bytes, how);
			return -1;
		}
		*t += x;
	}
	return 0;
}

/* The contiguous runs of the face normal to axis \p i of \p box, every field: the x-face is
 * radius elements per (y, z) row, the y-face radius rows of the box's x extent per z, the
 * z-face radius planes at once (x is contiguous, then y, then z). */
static void face_runs(const struct nbw_app *a, const long box[3], int i, double *runs,
		      double *run_bytes)
{
	double r = a->radius, eb = a->element_bytes, f = a->fields;
	if (i == 0) {
		*runs = f * (double)box[1] * box[2];
		*run_bytes = r * eb;
	} else if (i == 1) {
		*runs = f * (double)box[2];
		*run_bytes = r * eb * box[0];
	} else {
		*runs = f;
		*run_bytes = r * eb * box[0] * box[1];
	}
}

/* One message of the face normal to axis \p i of \p box, one field, from the calibration's
 * face probes (the solver copies faces asynchronously: async first): host-staged DtoH +
 * HtoD, device P2P. 1 with \p t, \p exact and \p from; 0 when the calibration has no probe
 * of that face and method (every hop). */
static int face_probe_s(const struct nbw_calib *c, const struct nbw_app *a, const long box[3],
			int i, enum nbw_app_exchange e, enum nbw_app_copy copy, double *t,
			bool *exact, char *from, size_t fromlen)
{
	static const char *const names[3] = {"x", "y", "z"};
	const char *hops[2] = {e == NBW_APP_DEVICE ? "p2p" : "dtoh", "htod"};
	const char *method = copy == NBW_APP_PACK ? "pack" : "rect";
	int n = e == NBW_APP_HOST_STAGED ? 2 : 1;
	char how[2][140];
	*t = 0.0;
	*exact = true;
	for (int h = 0; h < n; h++) {
		double x;
		bool ex;
		if (nbw_calib_face_s(c, box, a->radius, a->element_bytes, names[i], method, hops[h],
				     "async", &x, &ex, how[h], sizeof(how[h])))
			return 0;
		*t += x;
		*exact = *exact && ex;
	}
	if (n == 2)
		say(from, fromlen, "%s + %s", how[0], how[1]);
	else
		say(from, fromlen, "%s", how[0]);
	return 1;
}

/* Whether the devices run asynchronous work beside the host thread (model_ext.c). */
static bool can_overlap(const struct nbw_calib *c)
{
	return strcmp(c->device_kind, "host-plugin") != 0 || c->hidden_helpers > 0;
}

static const char *dominant(const struct nbw_app_pred *p)
{
	double cmp = p->overlap ? p->compute_s - p->boundary_s : p->compute_s;
	if (p->launch_s > cmp && p->launch_s > p->exchange_s)
		return "launch";
	return p->exchange_s > cmp ? "exchange" : "compute";
}

/* The busiest device: the largest interior (the first of each axis), with the most
 * neighbours (inside the device grid where an axis has 3 or more). */
static void busiest(const struct nbw_app *a, const int d[3], struct nbw_app_pred *out)
{
	/* The first device of each axis has the most points (an inner one as many or one
	 * fewer), an inner one the most faces: the first device's box with an inner device's
	 * neighbours bounds them all. */
	nbw_app_local_box(a, d, (const int[3]){0, 0, 0}, out->interior, out->box);
	out->neighbours = 0;
	for (int i = 0; i < 3; i++)
		out->neighbours += d[i] >= 3 ? 2 : d[i] == 2 ? 1 : 0;
}

/* The exchange from the calibration's exchange probe of this decomposition: with the app's
 * fields, else one field's step x fields. 0, or -1 when it has neither. */
static int exchange_probe(const struct nbw_calib *c, const struct nbw_app *a, const int decomp[3],
			  enum nbw_app_exchange exchange, enum nbw_app_copy copy,
			  struct nbw_app_pred *out)
{
	char how[300];
	double tx;
	const char *path = exchange == NBW_APP_DEVICE ? "device" : "host-staged";
	if (a->fields > 1 &&
	    nbw_calib_exchange_fields_s(c, out->box, a->radius, a->element_bytes, decomp, a->fields,
					nbw_app_copy_name(copy), path, "async", &tx, how,
					sizeof(how)) == 0) {
		out->exchange_s = tx;
		out->exchange_probed = out->faces_measured = out->exchange_fields = true;
		say(out->exchange_from, sizeof(out->exchange_from), "the exchange probe of %dx%dx%d "
		    "with the app's %d fields (%s)", decomp[0], decomp[1], decomp[2], a->fields, how);
		return 0;
	}
	if (nbw_calib_exchange_s(c, out->box, a->radius, a->element_bytes, decomp,
				 nbw_app_copy_name(copy), path, "async", &tx, how, sizeof(how)) == 0) {
		out->exchange_s = tx * a->fields;
		out->exchange_probed = out->faces_measured = true;
		out->exchange_fields = a->fields == 1;
		say(out->exchange_from, sizeof(out->exchange_from), "the exchange probe of %dx%dx%d "
		    "(%s)%s", decomp[0], decomp[1], decomp[2], how,
		    a->fields > 1 ? ", x fields (a message per field)" : "");
		return 0;
	}
	return -1;
}

/* The exchange: every face with a neighbour sends one message (doc/model.md); \p k the
 * compute's seconds per point (the pack kernels' estimate), \p lstep the launch probe's
 * per-device step. 0, or -1 with \p why. */
static int exchange_terms(const struct nbw_calib *c, const struct nbw_app *a,
			  const int decomp[3], enum nbw_app_exchange exchange,
			  enum nbw_app_copy copy, double k, double lstep, struct nbw_app_pred *out,
			  char *why, size_t whylen)
{
	/* The message bytes of each split axis (0: not split), then the concurrent exchange
	 * probe of this decomposition (every message at once): measured with the app's fields
	 * (each face once per field, each field's chain on its own), else with one field,
	 * times the fields (a message per field, as the solver sends them). */
	for (int i = 0; i < 3; i++) {
		int faces = decomp[i] >= 3 ? 2 : decomp[i] == 2 ? 1 : 0;
		double elems = (double)out->box[(i + 1) % 3] * out->box[(i + 2) % 3];
		out->face_bytes[i] = faces ? nbw_app_face_bytes(elems, a->radius, a->fields,
								a->element_bytes) : 0.0;
	}
	if (exchange_probe(c, a, decomp, exchange, copy, out) == 0)
		return 0;
	double ex = 0.0, ex_rows = 0.0;
	/* The launch probe's per-device step holds each thread's two launches. */
	double launch1 = lstep / 2.0;
	int probed = 0, nearest = 0, curves = 0;
	char fromf[3][160] = {"", "", ""};
	for (int i = 0; i < 3; i++) {
		int faces = decomp[i] >= 3 ? 2 : decomp[i] == 2 ? 1 : 0;
		if (!faces)
			continue;
		double elems = (double)out->box[(i + 1) % 3] * out->box[(i + 2) % 3];
		double t;
		bool exact;
		int fr = face_probe_s(c, a, out->box, i, exchange, copy, &t, &exact, fromf[i],
				      sizeof(fromf[i]));
		if (fr < 0)
			return -1;
		if (fr == 1) {
			if (copy == NBW_APP_RECT && i < 2)
				ex_rows += faces * t * a->fields;
			else
				ex += faces * t * a->fields;
			probed += exact;
			nearest += !exact;
			continue;
		}
		curves++;
		double runs, run_bytes;
		face_runs(a, out->box, i, &runs, &run_bytes);
		if (copy == NBW_APP_PACK || runs <= a->fields) {
			/* One contiguous copy of the message (pack: after a pack kernel, before
			 * an unpack kernel; each one point's compute per element). */
			if (message_s(c, exchange, "async", out->face_bytes[i], &t, why, whylen))
				return -1;
			if (copy == NBW_APP_PACK)
				t += 2.0 * launch1 + 2.0 * k * elems * a->radius * a->fields;
		} else {
			/* The rectangular copy: one copy per contiguous run, as the API's
			 * rectangular copy issues them, each at the blocking curve's time. */
			if (message_s(c, exchange, "sync", run_bytes, &t, why, whylen))
				return -1;
			ex_rows += faces * t * runs;
			t = 0.0;
		}
		ex += faces * t;
		if (i < 2)
			out->strided_unmeasured = true;
	}
	double oversub = strcmp(c->device_kind, "host-plugin") == 0 && c->host_cpus > 0 &&
				 out->g > c->host_cpus
			 ? (double)out->g / c->host_cpus
			 : 1.0;
	/* On host-plugin devices the rectangular copies of strided faces (a copy call per row)
	 * of the G host threads take turns rather than share the CPUs: measured on the 2-core
	 * VM, the halo phase of 4x1x1 (two x-faces per inner device) took 2.8x one thread's
	 * face probes, of 2x2x1 3.6-5x (doc/model.md). */
	bool turns = strcmp(c->device_kind, "host-plugin") == 0 && ex_rows > 0.0;
	out->exchange_s = ex * oversub + ex_rows * (turns ? (double)out->g : oversub);
	out->faces_measured = curves == 0 && nearest == 0;
	out->faces_nearest = nearest > 0;
	if (curves == 0) {
		char list[400] = "";
		for (int i = 2; i >= 0; i--)
			if (fromf[i][0]) {
				size_t w = strlen(list);
				snprintf(list + w, sizeof(list) - w, "%s%s", w ? "; " : "", fromf[i]);
			}
		say(out->exchange_from, sizeof(out->exchange_from), "the face probes (%s%s)%s%s",
		    nearest ? "nearest shape: " : "", list, a->fields > 1 ? ", x fields" : "",
		    turns ? "; the host threads' row copies take turns (x G)"
		    : oversub > 1.0 ? "; host threads share the CPUs" : "");
	} else {
		say(out->exchange_from, sizeof(out->exchange_from), "the contiguous transfer "
			"curves (%s) %s%s%s%s", exchange == NBW_APP_HOST_STAGED ? "DtoH + HtoD" : "P2P",
		    copy == NBW_APP_PACK	    ? "at each packed message's bytes"
		    : out->strided_unmeasured ? "per contiguous run of the rectangular copy (blocking)"
					      : "at each message's bytes (contiguous z-faces)",
		    out->strided_unmeasured ? "; strided faces not measured" : "",
		    probed + nearest ? "; the face probes for the others" : "",
		    turns ? "; the host threads' row copies take turns (x G)"
		    : oversub > 1.0 ? "; host threads share the CPUs" : "");
	}
	return 0;
}

int nbw_app_predict(const struct nbw_calib *c, const struct nbw_app *a, const int decomp[3],
		    enum nbw_app_exchange exchange, enum nbw_app_copy copy,
		    struct nbw_app_pred *out, char *why, size_t whylen)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->decomp, decomp, sizeof(out->decomp));
	out->g = decomp[0] * decomp[1] * decomp[2];
	out->exchange = exchange;
	out->copy = copy;
	if (out->g < 2 || !nbw_app_decomp_fits(a, decomp)) {
		say(why, whylen, "%dx%dx%d does not split the grid %ldx%ldx%ld with at least %d "
			"interior points per device", decomp[0], decomp[1], decomp[2], a->grid[0],
		    a->grid[1], a->grid[2], a->radius);
		return -1;
	}
	const char *v = paper_version(exchange, a->overlap);
	if (paper_case(a, decomp) && copy == NBW_APP_RECT && v[0] &&
	    a->steps <= NBW_STEPS_MAX) {
		busiest(a, decomp, out);
		out->face_bytes[2] = nbw_app_face_bytes((double)out->box[0] * out->box[1], 1, 1, 8);
		if (from_version(c, a, v, out, why, whylen))
			return -1;
		out->dominant = dominant(out);
		return 0;
	}
	busiest(a, decomp, out);
	/* Compute: one device's local box, then G devices at once. */
	double one, k;
	char how[160];
	if (a->compute == NBW_APP_COMPUTE_KERNEL) {
		if (kernel_k(c, a, out->box, &k, &out->box_measured, out->compute_from,
			     sizeof(out->compute_from))) {
			say(why, whylen, "the application model needs one-device runs of the "
					 "solver (k_slab or k in the calibration)");
			return -1;
		}
		one = nbw_app_box_compute_s(k, out->box, a->radius);
	} else if (a->compute == NBW_APP_COMPUTE_POINT) {
		k = a->compute_seconds;
		one = nbw_app_box_compute_s(k, out->box, a->radius);
		out->box_measured = true;
		say(out->compute_from, sizeof(out->compute_from), "the app's %.3g s per point",
		    k);
	} else {
		double pts = nbw_app_box_points(a->compute_box, a->radius);
		k = a->compute_seconds / pts;
		one = nbw_app_box_compute_s(k, out->box, a->radius);
		out->box_measured = memcmp(a->compute_box, out->box, sizeof(out->box)) == 0;
		say(out->compute_from, sizeof(out->compute_from), "the app's %.4g s per step of "
			"%ldx%ldx%ld, scaled by points", a->compute_seconds, a->compute_box[0],
		    a->compute_box[1], a->compute_box[2]);
	}
	double cstep;
	int at_once = 0;
	char chow[160];
	if (a->compute == NBW_APP_COMPUTE_KERNEL &&
	    nbw_calib_box_corun(c, a->radius, a->fields, out->box, out->g, &cstep, &at_once, chow,
				sizeof(chow)) == 0 && at_once >= 1 && cstep > 0.0) {
		/* The co-run of this very box: G devices computing it at once, a thread each
		 * (as many at once as the host has CPUs for: the rest take turns with them). */
		out->compute_s = cstep * (double)out->g / at_once;
		out->concurrency = one > 0.0 ? out->compute_s / one : 1.0;
		out->corun_measured = true;
		say(out->compute_from, sizeof(out->compute_from), "the co-run of this box (%s)%s",
		    chow, at_once < out->g ? ", x G / devices at once" : "");
	} else {
		out->concurrency = concurrency(c, out->g, how, sizeof(how));
		size_t at = strlen(out->compute_from);
		say(out->compute_from + at, sizeof(out->compute_from) - at, ", %s", how);
		out->compute_s = one * out->concurrency;
	}
	/* The boundary: the points within radius of a shared face, computed before the
	 * exchange when it overlaps. */
	double inner = 1.0, pts = nbw_app_box_points(out->box, a->radius);
	for (int i = 0; i < 3; i++) {
		long shared = decomp[i] >= 3 ? 2 : decomp[i] == 2 ? 1 : 0;
		long left = out->interior[i] - shared * a->radius;
		inner *= (double)(left > 0 ? left : 0);
	}
	out->boundary_s = pts > 0.0 ? out->compute_s * (pts - inner) / pts : 0.0;
	/* Exchange: every face with a neighbour sends one message. */
	double lstep = nbw_calib_launch_step(c, true, out->g);
	if (exchange_terms(c, a, decomp, exchange, copy, k, lstep, out, why, whylen))
		return -1;
	out->launch_s = lstep;
	out->overlap = a->overlap && can_overlap(c);
	out->step_s = nbw_app_step_s(out->overlap, out->compute_s, out->boundary_s, out->exchange_s,
				     out->launch_s);
	out->total_s = out->step_s * (double)a->steps;
	out->dominant = dominant(out);
	return 0;
}

void nbw_app_faces_arg(const struct nbw_app *a, const struct nbw_app_pred *p, char *buf,
		       size_t len)
{
	snprintf(buf, len, "%ldx%ldx%ld:%d:%d", p->box[0], p->box[1], p->box[2], a->radius,
		 a->element_bytes);
}
