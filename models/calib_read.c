/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibrations read back from files that nodebw (calib_write.c) or a user wrote
 * (doc/model.md): malformed JSON as file:line:col, bad fields as file: key.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/jclean.h"
#include "nodebw/jints.h"
#include "nodebw/jsonpos.h"
#include "nodebw/limits.h"
#include "nodebw/readfile.h"
#include "nodebw/model.h"
#include "nodebw/advice.h"
#include "calib_priv.h"
#include "nodebw/face.h"
#include "nodebw/app.h"
#include "nodebw/jget.h"

static int bad(char *err, size_t errlen, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: %s", path, what);
	return -1;
}

/* What a calibration's numbers may be, in physical bounds: a prediction from numbers
 * outside them would be infinite, denormal or meaningless (1e308 s per point, 1e-320 GB/s). */
#define K_LO 1e-15      /* seconds per interior point and step */
#define K_HI 1.0
#define BETA_LO 1e-6    /* GB/s */
#define BETA_HI 1e5
#define ALPHA_HI 10.0   /* seconds */
#define BYTES_HI 1e15
#define SEC_LO 1e-12    /* seconds of a transfer or a step */
#define SEC_HI 1e5
#define RATIO_LO 1e-6
#define RATIO_HI 1e6

/* A finite number in [lo, hi] into \p out; -1 otherwise. */
static int within(json_t *v, double lo, double hi, double *out)
{
	if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
	    !(json_number_value(v) >= lo) || !(json_number_value(v) <= hi))
		return -1;
	*out = json_number_value(v);
	return 0;
}

static int seconds(json_t *v, double *out)
{
	return within(v, SEC_LO, SEC_HI, out);
}

static int read_ks(json_t *a, const char *where, struct nbw_ksample **out, size_t *n,
		   char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, where, "must be an array of {\"n\", \"k\"[, \"planes\"]}");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[96];
		snprintf(at, sizeof(at), "%s[%zu]", where, i);
		json_t *jn = json_object_get(s, "n"), *jp = json_object_get(s, "planes");
		double k;
		if (!json_is_integer(jn) || json_integer_value(jn) < 3)
			return bad(err, errlen, at, "\"n\" must be an integer >= 3");
		int nn = (int)json_integer_value(jn);
		if (jp && (!json_is_integer(jp) || json_integer_value(jp) < 1 ||
			   json_integer_value(jp) > nn - 2))
			return bad(err, errlen, at, "\"planes\" must be an integer in 1..n-2");
		if (within(json_object_get(s, "k"), K_LO, K_HI, &k))
			return bad(err, errlen, at, "\"k\" must be seconds per interior point and "
						    "step from %g to %g", K_LO, K_HI);
		if (nbw_calib_add_k(out, n, nn, jp ? (int)json_integer_value(jp) : nn - 2, k))
			return bad(err, errlen, at, "out of memory");
	}
	return 0;
}

static int read_points(struct nbw_xpath *p, json_t *o, const char *at, char *err,
		       size_t errlen);

/* "plane_sweep": [{bytes, processes, fastest_s, slowest_s[, main_run_s]}] of a path (the
 * halo-plane sizes measured again in separate processes; calib_write.c). */
static int read_plane_sweep(struct nbw_xpath *p, json_t *a, const char *at, char *err,
			    size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > NBW_CALIB_MAX_PLANES)
		return bad(err, errlen, at, "\"plane_sweep\" must be an array of at most %d "
					    "sizes", NBW_CALIB_MAX_PLANES);
	size_t i;
	json_t *q;
	json_array_foreach(a, i, q) {
		struct nbw_xplane x = {0};
		json_t *pr = json_object_get(q, "processes"), *m = json_object_get(q, "main_run_s");
		if (!json_is_object(q) || within(json_object_get(q, "bytes"), 1.0, BYTES_HI, &x.bytes) ||
		    seconds(json_object_get(q, "fastest_s"), &x.fastest_s) ||
		    seconds(json_object_get(q, "slowest_s"), &x.slowest_s) ||
		    x.slowest_s < x.fastest_s || !json_is_integer(pr) ||
		    json_integer_value(pr) < 1 || json_integer_value(pr) > 1 << 20 ||
		    (m && seconds(m, &x.main_s)))
			return bad(err, errlen, at, "plane_sweep[%zu] must be {bytes, processes, "
				   "fastest_s <= slowest_s[, main_run_s]}", i);
		x.processes = (int)json_integer_value(pr);
		p->planes[p->nplanes++] = x;
	}
	return 0;
}

static int read_path(struct nbw_calib *c, const char *name, json_t *o, char *err,
		     size_t errlen)
{
	char at[96];
	snprintf(at, sizeof(at), "transfers.%s", name);
	static const char *dirs[] = {"htod", "dtoh", "p2p"};
	bool dir_ok = false;
	for (int d = 0; d < 3; d++)
		dir_ok |= strncmp(name, dirs[d], strlen(dirs[d])) == 0 &&
			  (name[strlen(dirs[d])] == '\0' || name[strlen(dirs[d])] == '/');
	if (!dir_ok || strlen(name) >= sizeof(c->paths[0].name))
		return bad(err, errlen, at, "a path name is htod, dtoh or p2p, optionally with "
					    "/MODE and /dual or /bidir");
	if (!json_is_object(o))
		return bad(err, errlen, at, "must be an object with beta_gbps and/or points");
	struct nbw_xpath *p = realloc(c->paths, (c->npaths + 1) * sizeof(*p));
	if (!p)
		return bad(err, errlen, at, "out of memory");
	c->paths = p;
	p = &c->paths[c->npaths++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	json_t *js = json_object_get(o, "src"), *jd = json_object_get(o, "dst");
	if (js || jd) {
		p->src = nbw_calib_end_of(js);
		p->dst = nbw_calib_end_of(jd);
		if (p->src < -1 || p->dst < -1)
			return bad(err, errlen, at, "\"src\" and \"dst\" go together: \"host\" or a "
						    "device id");
		p->ends_known = true;
	}
	if (read_points(p, o, at, err, errlen))
		return -1;
	return read_plane_sweep(p, json_object_get(o, "plane_sweep"), at, err, errlen);
}

/* alpha_s, beta_gbps and points of a path or set object into \p p. */
static int read_points(struct nbw_xpath *p, json_t *o, const char *at, char *err,
		       size_t errlen)
{
	p->alpha_s = -1.0;
	json_t *a = json_object_get(o, "alpha_s"), *b = json_object_get(o, "beta_gbps");
	json_t *pts = json_object_get(o, "points");
	if (a && within(a, 0.0, ALPHA_HI, &p->alpha_s))
		return bad(err, errlen, at, "\"alpha_s\" must be seconds from 0 to %g", ALPHA_HI);
	if (b && within(b, BETA_LO, BETA_HI, &p->beta_gbps))
		return bad(err, errlen, at, "\"beta_gbps\" must be GB/s from %g to %g", BETA_LO,
			   BETA_HI);
	if (pts && !json_is_array(pts))
		return bad(err, errlen, at, "\"points\" must be an array of [bytes, seconds]");
	size_t np = json_array_size(pts);
	if (np) {
		p->bytes = malloc(np * sizeof(double));
		p->seconds = malloc(np * sizeof(double));
		if (!p->bytes || !p->seconds)
			return bad(err, errlen, at, "out of memory");
	}
	for (size_t i = 0; i < np; i++) {
		json_t *pt = json_array_get(pts, i);
		double x, y;
		if (!json_is_array(pt) || json_array_size(pt) != 2 ||
		    within(json_array_get(pt, 0), 1.0, BYTES_HI, &x) ||
		    seconds(json_array_get(pt, 1), &y))
			return bad(err, errlen, at, "points[%zu] must be [bytes from 1 to %g, seconds "
				   "from %g to %g]", i, BYTES_HI, SEC_LO, SEC_HI);
		if (i && x <= p->bytes[i - 1])
			return bad(err, errlen, at, "points must be in ascending size");
		p->bytes[i] = x;
		p->seconds[i] = y;
		p->n = i + 1;
	}
	if (!(p->beta_gbps > 0.0) && p->n == 0)
		return bad(err, errlen, at, "needs \"beta_gbps\" or \"points\"");
	return 0;
}

/* "transfer_sets": [{"path", "src", "dst", points and/or "ratio": [[bytes, r], ...]}]. */
static int read_sets(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "transfer_sets", "must be an array of per-device and "
							 "per-pair transfer objects");
	size_t i;
	json_t *o;
	json_array_foreach(a, i, o) {
		char at[64];
		snprintf(at, sizeof(at), "transfer_sets[%zu]", i);
		const char *path = json_string_value(json_object_get(o, "path"));
		int src = nbw_calib_end_of(json_object_get(o, "src"));
		int dst = nbw_calib_end_of(json_object_get(o, "dst"));
		static const char *dirs[] = {"htod", "dtoh", "p2p"};
		bool dir_ok = false;
		for (int d = 0; d < 3 && path; d++)
			dir_ok |= strncmp(path, dirs[d], strlen(dirs[d])) == 0 &&
				  (path[strlen(dirs[d])] == '\0' || path[strlen(dirs[d])] == '/');
		if (!json_is_object(o) || !dir_ok || strlen(path) >= sizeof(c->sets[0].path))
			return bad(err, errlen, at, "needs \"path\": htod, dtoh or p2p, "
						    "optionally with /MODE");
		bool host_ok = strncmp(path, "p2p", 3) == 0 ? src >= 0 && dst >= 0
			       : strncmp(path, "htod", 4) == 0 ? src == -1 && dst >= 0
							       : src >= 0 && dst == -1;
		if (!host_ok || src == dst)
			return bad(err, errlen, at, "\"src\" and \"dst\": \"host\" or device ids, "
						    "as the direction has them");
		json_t *ratio = json_object_get(o, "ratio");
		if (ratio && (!json_is_array(ratio) || json_array_size(ratio) < 1 ||
			      json_array_size(ratio) > 2))
			return bad(err, errlen, at, "\"ratio\" must be one or two [bytes, ratio]");
		struct nbw_xset *x = realloc(c->sets, (c->nsets + 1) * sizeof(*x));
		if (!x)
			return bad(err, errlen, at, "out of memory");
		c->sets = x;
		x = &c->sets[c->nsets++];
		memset(x, 0, sizeof(*x));
		snprintf(x->path, sizeof(x->path), "%s", path);
		char e[32];
		nbw_calib_ends_name(e, sizeof(e), src, dst);
		snprintf(x->own.name, sizeof(x->own.name), "%.15s %.15s", path, e);
		x->src = src;
		x->dst = dst;
		x->own.alpha_s = -1.0;
		snprintf(x->ratio_to, sizeof(x->ratio_to), "%s",
			 json_string_value(json_object_get(o, "ratio_to"))
				 ? json_string_value(json_object_get(o, "ratio_to"))
				 : "the path's curve");
		for (size_t j = 0; j < json_array_size(ratio); j++) {
			json_t *pt = json_array_get(ratio, j);
			double xb, r;
			if (!json_is_array(pt) || json_array_size(pt) != 2 ||
			    within(json_array_get(pt, 0), 1.0, BYTES_HI, &xb) ||
			    within(json_array_get(pt, 1), RATIO_LO, RATIO_HI, &r))
				return bad(err, errlen, at, "ratio[%zu] must be [bytes from 1 to %g, "
					   "ratio from %g to %g]", j, BYTES_HI, RATIO_LO, RATIO_HI);
			if (j && xb <= x->ratio_bytes[0])
				return bad(err, errlen, at, "ratio sizes must be ascending");
			x->ratio_bytes[j] = xb;
			x->ratio[j] = r;
			x->nratio = j + 1;
		}
		x->estimate = x->nratio > 0;
		bool own = json_object_get(o, "points") || json_object_get(o, "beta_gbps");
		if (!own && !x->estimate)
			return bad(err, errlen, at, "needs \"points\", \"beta_gbps\" or \"ratio\"");
		if (own && read_points(&x->own, o, at, err, errlen))
			return -1;
	}
	return 0;
}

static int read_versions(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "versions", "must be an array");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[64];
		snprintf(at, sizeof(at), "versions[%zu]", i);
		const char *v = json_string_value(json_object_get(s, "version"));
		json_t *g = json_object_get(s, "G"), *n = json_object_get(s, "n");
		json_t *busy = json_object_get(s, "busy"), *o = json_object_get(s, "overhead_s");
		json_t *jx = json_object_get(s, "slab_compute_s"), *jy = json_object_get(s, "step_s");
		json_t *jm = json_object_get(s, "measured_step_s");
		json_t *jp = json_object_get(s, "measured_paired");
		double x = 0.0, y = 0.0, ms = 0.0;
		if ((jx || jy) && (seconds(jx, &x) || seconds(jy, &y)))
			return bad(err, errlen, at, "\"slab_compute_s\" and \"step_s\" go together, "
						    "seconds from %g to %g", SEC_LO, SEC_HI);
		if (jm && seconds(jm, &ms))
			return bad(err, errlen, at, "\"measured_step_s\" must be seconds from %g to "
						    "%g", SEC_LO, SEC_HI);
		if (jm && !n)
			return bad(err, errlen, at, "\"measured_step_s\" needs \"n\"");
		if (jp && (!json_is_boolean(jp) || !jm))
			return bad(err, errlen, at, "\"measured_paired\" must be true or false, "
						    "beside \"measured_step_s\"");
		if (!v || strlen(v) != 2 || v[0] != 'v' || v[1] < '1' || v[1] > '4')
			return bad(err, errlen, at, "\"version\" must be v1, v2, v3 or v4");
		if (!json_is_integer(g) || json_integer_value(g) < 2)
			return bad(err, errlen, at, "\"G\" must be an integer >= 2");
		if (n && (!json_is_integer(n) || json_integer_value(n) < 3))
			return bad(err, errlen, at, "\"n\" must be an integer >= 3");
		double bv = 1.0;
		double ov = 0.0;
		if (busy && within(busy, RATIO_LO, RATIO_HI, &bv))
			return bad(err, errlen, at, "\"busy\" must be a number from %g to %g",
				   RATIO_LO, RATIO_HI);
		if (o && within(o, -SEC_HI, SEC_HI, &ov))
			return bad(err, errlen, at, "\"overhead_s\" must be seconds from %g to %g",
				   -SEC_HI, SEC_HI);
		struct nbw_vsample *vs = realloc(c->vs, (c->nvs + 1) * sizeof(*vs));
		if (!vs)
			return bad(err, errlen, at, "out of memory");
		c->vs = vs;
		vs = &c->vs[c->nvs++];
		memset(vs, 0, sizeof(*vs));
		snprintf(vs->version, sizeof(vs->version), "%s", v);
		vs->g = (int)json_integer_value(g);
		vs->n = n ? (int)json_integer_value(n) : 0;
		vs->busy = bv;
		vs->overhead_s = ov;
		vs->x_s = x;
		vs->y_s = y;
		vs->measured_s = ms;
		vs->paired = jp && json_is_true(jp);
	}
	return 0;
}

/* compute_only: [{host_threads, G, n, step_s}] */
static int read_cs(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "compute_only", "must be an array");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[64];
		snprintf(at, sizeof(at), "compute_only[%zu]", i);
		const char *th = json_string_value(json_object_get(s, "host_threads"));
		json_t *g = json_object_get(s, "G"), *n = json_object_get(s, "n");
		double t;
		if (!th || (strcmp(th, "one") != 0 && strcmp(th, "per-device") != 0))
			return bad(err, errlen, at, "\"host_threads\" must be \"one\" or "
						    "\"per-device\"");
		if (!json_is_integer(g) || !json_is_integer(n))
			return bad(err, errlen, at, "\"G\" and \"n\" must be integers");
		if (seconds(json_object_get(s, "step_s"), &t))
			return bad(err, errlen, at, "\"step_s\" must be seconds from %g to %g",
				   SEC_LO, SEC_HI);
		json_t *pw = json_object_get(s, "paired_with");
		const char *pv = json_string_value(pw);
		bool pd = strcmp(th, "per-device") == 0;
		/* v1-v2 drive the devices from one host thread, v3-v4 from one per device. */
		char lo = pd ? '3' : '1';
		if (pw && (!pv || strlen(pv) != 2 || pv[0] != 'v' || pv[1] < lo || pv[1] > lo + 1))
			return bad(err, errlen, at, "\"paired_with\" must be \"v1\" or \"v2\" "
						    "(host_threads one) or \"v3\" or \"v4\" "
						    "(per-device)");
		struct nbw_csample *cs = realloc(c->cs, (c->ncs + 1) * sizeof(*cs));
		if (!cs)
			return bad(err, errlen, at, "out of memory");
		c->cs = cs;
		cs = &c->cs[c->ncs++];
		*cs = (struct nbw_csample){.per_device = pd, .g = (int)json_integer_value(g),
					   .n = (int)json_integer_value(n), .step_s = t};
		if (pv)
			snprintf(cs->paired, sizeof(cs->paired), "%s", pv);
	}
	return 0;
}

/* launch: [{form, G[, N], step_s, rounds[, ci_lo_s, ci_hi_s]}] (N: the copy forms only) */
static int read_launch(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "launch", "must be an array");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[64];
		snprintf(at, sizeof(at), "launch[%zu]", i);
		const char *form = json_string_value(json_object_get(s, "form"));
		json_t *g = json_object_get(s, "G"), *rounds = json_object_get(s, "rounds");
		double t, lo = 0.0, hi = 0.0;
		if (!nbw_calib_launch_form_known(form))
			return bad(err, errlen, at, "\"form\" must be \"sync\", \"one-thread\", "
						    "\"per-device\", \"staged-copy\" or "
						    "\"direct-copy\"");
		if (!json_is_integer(g))
			return bad(err, errlen, at, "\"G\" must be an integer");
		json_t *nj = json_object_get(s, "N");
		bool copies = nbw_calib_launch_form_copies(form);
		if (copies && (!json_is_integer(nj) || json_integer_value(nj) < 3 ||
			       json_integer_value(nj) > 1000000))
			return bad(err, errlen, at, "\"N\" of a copy form must be an integer "
						    "3-1000000");
		if (!copies && nj)
			return bad(err, errlen, at, "\"N\" belongs to the copy forms only");
		if (rounds && (!json_is_integer(rounds) || json_integer_value(rounds) < 1 ||
			       json_integer_value(rounds) > 100000))
			return bad(err, errlen, at, "\"rounds\" must be an integer 1-100000");
		if (seconds(json_object_get(s, "step_s"), &t))
			return bad(err, errlen, at, "\"step_s\" must be seconds from %g to %g",
				   SEC_LO, SEC_HI);
		if (json_object_get(s, "ci_lo_s") &&
		    (seconds(json_object_get(s, "ci_lo_s"), &lo) ||
		     seconds(json_object_get(s, "ci_hi_s"), &hi) || lo > t || hi < t))
			return bad(err, errlen, at, "\"ci_lo_s\" <= \"step_s\" <= \"ci_hi_s\", "
						    "positive seconds");
		struct nbw_lsample *l = realloc(c->launch, (c->nlaunch + 1) * sizeof(*l));
		if (!l)
			return bad(err, errlen, at, "out of memory");
		c->launch = l;
		l = &c->launch[c->nlaunch++];
		memset(l, 0, sizeof(*l));
		snprintf(l->form, sizeof(l->form), "%s", form);
		l->g = (int)json_integer_value(g);
		l->n = copies ? (int)json_integer_value(nj) : 0;
		l->step_s = t;
		l->ci_lo_s = lo;
		l->ci_hi_s = hi;
		l->rounds = rounds ? (int)json_integer_value(rounds) : 1;
	}
	return 0;
}

/* corun: [{form, G, at_once, n, step_s}] */
static int read_corun(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "corun", "must be an array");
	size_t i;
	json_t *s;
	json_array_foreach(a, i, s) {
		char at[64];
		snprintf(at, sizeof(at), "corun[%zu]", i);
		const char *form = jstr(s, "form");
		json_t *g = json_object_get(s, "G"), *ao = json_object_get(s, "at_once");
		json_t *n = json_object_get(s, "n");
		double t;
		if (strcmp(form, "one-thread") != 0 && strcmp(form, "per-device") != 0)
			return bad(err, errlen, at, "\"form\" must be \"one-thread\" or \"per-device\"");
		if (!json_is_integer(g) || !json_is_integer(n))
			return bad(err, errlen, at, "\"G\" and \"n\" must be integers");
		if (!json_is_integer(ao) || json_integer_value(ao) < 1 ||
		    json_integer_value(ao) > json_integer_value(g))
			return bad(err, errlen, at, "\"at_once\" must be an integer 1 to G");
		if (json_integer_value(n) - 2 < json_integer_value(g))
			return bad(err, errlen, at, "\"n\" - 2 must be at least G (a plane each)");
		if (seconds(json_object_get(s, "step_s"), &t))
			return bad(err, errlen, at, "\"step_s\" must be seconds from %g to %g",
				   SEC_LO, SEC_HI);
		struct nbw_corun *k = realloc(c->corun, (c->ncorun + 1) * sizeof(*k));
		if (!k)
			return bad(err, errlen, at, "out of memory");
		c->corun = k;
		c->corun[c->ncorun++] = (struct nbw_corun){
			.per_device = strcmp(form, "per-device") == 0,
			.g = (int)json_integer_value(g), .at_once = (int)json_integer_value(ao),
			.n = (int)json_integer_value(n), .step_s = t};
	}
	return 0;
}

/* "faces": the face probes (models/calib_faces.c). */
static int face_bad(char *err, size_t errlen, size_t i, const char *what)
{
	snprintf(err, errlen, "faces[%zu]: %s", i, what);
	return -1;
}

static bool one_of(const char *s, const char *const *set)
{
	for (; s && *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

/* An exchange's "decomp": [px, py, pz], each from 1 to NBW_DECOMP_MAX_FACTOR, two devices
 * at least. 0, or -1. */
static int decomp_read(json_t *a, int out[3])
{
	if (!json_is_array(a) || json_array_size(a) != 3)
		return -1;
	long g = 1;
	for (size_t k = 0; k < 3; k++) {
		json_t *x = json_array_get(a, k);
		if (!json_is_integer(x) || json_integer_value(x) < 1 ||
		    json_integer_value(x) > NBW_DECOMP_MAX_FACTOR)
			return -1;
		out[k] = (int)json_integer_value(x);
		g *= out[k];
	}
	return g >= 2 ? 0 : -1;
}

int nbw_calib_faces_read(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	static const char *const faces[] = {"z", "y", "x", NULL},
				 *const methods[] = {"rect", "pack", NULL},
				 *const paths[] = {"htod", "dtoh", "p2p", NULL},
				 *const xpaths[] = {"device", "host-staged", NULL},
				 *const kinds[] = {"face", "exchange", NULL},
				 *const modes[] = {"sync", "async", NULL};
	if (!a)
		return 0;
	if (!json_is_array(a)) {
		snprintf(err, errlen, "faces: must be an array");
		return -1;
	}
	size_t i;
	json_t *o;
	json_array_foreach(a, i, o) {
		struct nbw_facerun f = {0};
		json_t *b = json_object_get(o, "box"), *d = json_object_get(o, "depth"),
		       *e = json_object_get(o, "element_bytes"), *t = json_object_get(o, "seconds");
		const char *fa = json_string_value(json_object_get(o, "face")),
			   *me = json_string_value(json_object_get(o, "method")),
			   *pa = json_string_value(json_object_get(o, "path")),
			   *mo = json_string_value(json_object_get(o, "mode")),
			   *ki = json_string_value(json_object_get(o, "kind"));
		/* "kind" is new: a calibration without it holds face copies only. */
		if (json_object_get(o, "kind") && !one_of(ki, kinds))
			return face_bad(err, errlen, i, "\"kind\" must be \"face\" or \"exchange\"");
		bool xchg = ki && !strcmp(ki, "exchange");
		if (!json_is_integer(d) || json_integer_value(d) < 1 ||
		    json_integer_value(d) > NBW_FACE_MAX_DEPTH)
			return face_bad(err, errlen, i, "\"depth\" must be an integer from 1 to 16");
		if (!json_is_integer(e) || json_integer_value(e) < 1 ||
		    json_integer_value(e) > NBW_FACE_MAX_ELEM)
			return face_bad(err, errlen, i, "\"element_bytes\" must be an integer from "
							"1 to 64");
		f.depth = (int)json_integer_value(d);
		f.elem = (int)json_integer_value(e);
		if (!json_is_array(b) || json_array_size(b) != 3)
			return face_bad(err, errlen, i, "\"box\" must be [nx, ny, nz]");
		double box_bytes = f.elem;
		for (size_t k = 0; k < 3; k++) {
			json_t *x = json_array_get(b, k);
			if (!json_is_integer(x) || json_integer_value(x) < 2L * f.depth ||
			    json_integer_value(x) > 1L << 30)
				return face_bad(err, errlen, i, "\"box\" sides must be integers of at "
								"least 2 depth");
			f.box[k] = (long)json_integer_value(x);
			box_bytes *= (double)f.box[k];
		}
		if (box_bytes > (double)NBW_FACE_MAX_BOX_BYTES)
			return face_bad(err, errlen, i, "\"box\" is larger than 1 GiB");
		if (!xchg && !one_of(fa, faces))
			return face_bad(err, errlen, i, "\"face\" must be \"z\", \"y\" or \"x\"");
		if (xchg && decomp_read(json_object_get(o, "decomp"), f.decomp))
			return face_bad(err, errlen, i, "\"decomp\" must be [px, py, pz] of integers "
							"from 1 to 64, at least 2 devices");
		json_t *fl = json_object_get(o, "fields");
		if (xchg && fl && (!json_is_integer(fl) || json_integer_value(fl) < 1 ||
				   json_integer_value(fl) > NBW_FACE_MAX_FIELDS))
			return face_bad(err, errlen, i, "\"fields\" must be an integer from 1 to 4");
		f.fields = xchg && fl ? (int)json_integer_value(fl) : 1;
		if (!one_of(me, methods))
			return face_bad(err, errlen, i, "\"method\" must be \"rect\" or \"pack\"");
		if (!xchg && !one_of(pa, paths))
			return face_bad(err, errlen, i, "\"path\" must be \"htod\", \"dtoh\" or \"p2p\"");
		if (xchg && !one_of(pa, xpaths))
			return face_bad(err, errlen, i, "\"path\" of an exchange must be \"device\" "
							"or \"host-staged\"");
		if (!one_of(mo, modes))
			return face_bad(err, errlen, i, "\"mode\" must be \"sync\" or \"async\"");
		f.seconds = json_is_number(t) ? json_number_value(t) : NAN;
		if (!(f.seconds >= 1e-12 && f.seconds <= 1e5))
			return face_bad(err, errlen, i, "\"seconds\" must be seconds from 1e-12 to 1e5");
		snprintf(f.kind, sizeof(f.kind), "%s", xchg ? "exchange" : "face");
		snprintf(f.face, sizeof(f.face), "%s", xchg ? "" : fa);
		snprintf(f.method, sizeof(f.method), "%s", me);
		snprintf(f.path, sizeof(f.path), "%s", pa);
		snprintf(f.mode, sizeof(f.mode), "%s", mo);
		if (nbw_calib_add_face(c, &f))
			return face_bad(err, errlen, i, "out of memory");
	}
	return 0;
}

/* "local_boxes": the one-device runs of application local boxes (models/calib_boxes.c). */
static int box_bad(char *err, size_t errlen, size_t i, const char *what)
{
	snprintf(err, errlen, "local_boxes[%zu]: %s", i, what);
	return -1;
}

int nbw_calib_boxes_read(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0;
	if (!json_is_array(a)) {
		snprintf(err, errlen, "local_boxes: must be an array");
		return -1;
	}
	size_t i;
	json_t *o;
	json_array_foreach(a, i, o) {
		int r = jint(o, "radius", 0), f = jint(o, "fields", 0);
		double t = jnum(o, "step_s");
		json_t *b = json_object_get(o, "box");
		long box[3];
		if (r < 1 || r > NBW_APP_MAX_RADIUS)
			return box_bad(err, errlen, i, "\"radius\" must be an integer from 1 to 4");
		if (f < 1 || f > NBW_APP_MAX_FIELDS)
			return box_bad(err, errlen, i, "\"fields\" must be an integer from 1 to 16");
		if (!(t >= 1e-12 && t <= 1e5))
			return box_bad(err, errlen, i, "\"step_s\" must be seconds from 1e-12 to 1e5");
		if (!json_is_array(b) || json_array_size(b) != 3)
			return box_bad(err, errlen, i, "\"box\" must be [nx, ny, nz]");
		for (int k = 0; k < 3; k++) {
			json_t *x = json_array_get(b, (size_t)k);
			if (!json_is_integer(x) || json_integer_value(x) < 2L * r + 1 ||
			    json_integer_value(x) > NBW_APP_MAX_SIDE)
				return box_bad(err, errlen, i, "\"box\" sides must be integers from "
							   "2 radius + 1 to 100000");
			box[k] = (long)json_integer_value(x);
		}
		if (nbw_calib_add_box(c, r, f, box, t))
			return box_bad(err, errlen, i, "out of memory");
	}
	return 0;
}

/* "local_box_coruns": the co-runs of application local boxes (models/calib_boxcorun.c). */
static int boxco_bad(char *err, size_t errlen, size_t i, const char *what)
{
	snprintf(err, errlen, "local_box_coruns[%zu]: %s", i, what);
	return -1;
}

static int boxco_read_one(json_t *o, size_t i, struct nbw_boxcorun *k, char *err, size_t errlen)
{
	const char *form = json_string_value(json_object_get(o, "form"));
	json_t *g = json_object_get(o, "G"), *ao = json_object_get(o, "at_once");
	json_t *b = json_object_get(o, "box");
	k->radius = jint(o, "radius", 0);
	k->fields = jint(o, "fields", 0);
	k->step_s = jnum(o, "step_s");
	if (!form || (strcmp(form, "one-thread") != 0 && strcmp(form, "per-device") != 0))
		return boxco_bad(err, errlen, i,
				 "\"form\" must be \"one-thread\" or \"per-device\"");
	k->per_device = strcmp(form, "per-device") == 0;
	if (k->radius < 1 || k->radius > NBW_APP_MAX_RADIUS)
		return boxco_bad(err, errlen, i, "\"radius\" must be an integer from 1 to 4");
	if (k->fields < 1 || k->fields > NBW_APP_MAX_FIELDS)
		return boxco_bad(err, errlen, i, "\"fields\" must be an integer from 1 to 16");
	if (!json_is_integer(g) || json_integer_value(g) < 2 || json_integer_value(g) > 64)
		return boxco_bad(err, errlen, i, "\"G\" must be an integer from 2 to 64");
	k->g = (int)json_integer_value(g);
	if (!json_is_integer(ao) || json_integer_value(ao) < 1 || json_integer_value(ao) > k->g)
		return boxco_bad(err, errlen, i, "\"at_once\" must be an integer 1 to G");
	k->at_once = (int)json_integer_value(ao);
	if (!(k->step_s >= 1e-12 && k->step_s <= 1e5))
		return boxco_bad(err, errlen, i, "\"step_s\" must be seconds from 1e-12 to 1e5");
	if (!json_is_array(b) || json_array_size(b) != 3)
		return boxco_bad(err, errlen, i, "\"box\" must be [nx, ny, nz]");
	for (int d = 0; d < 3; d++) {
		json_t *x = json_array_get(b, (size_t)d);
		if (!json_is_integer(x) || json_integer_value(x) < 2L * k->radius + 1 ||
		    json_integer_value(x) > NBW_APP_MAX_SIDE)
			return boxco_bad(err, errlen, i, "\"box\" sides must be integers from "
							 "2 radius + 1 to 100000");
		k->box[d] = (long)json_integer_value(x);
	}
	return 0;
}

int nbw_calib_box_coruns_read(struct nbw_calib *c, json_t *a, char *err, size_t errlen)
{
	if (!a)
		return 0; /* calibrations before the box co-runs */
	if (!json_is_array(a)) {
		snprintf(err, errlen, "local_box_coruns: must be an array");
		return -1;
	}
	size_t i;
	json_t *o;
	json_array_foreach(a, i, o) {
		struct nbw_boxcorun k;
		memset(&k, 0, sizeof(k));
		if (boxco_read_one(o, i, &k, err, errlen))
			return -1;
		if (nbw_calib_add_box_corun(c, &k))
			return boxco_bad(err, errlen, i, "out of memory");
	}
	return 0;
}

/* ---- "validation": what the run validated (models/calib_valid.c writes it) ---------- */

static int vbad(char *err, size_t errlen, const char *at, const char *what)
{
	snprintf(err, errlen, "%s: %s", at, what);
	return -1;
}

/* A MAPE: a fraction >= 0 (a model may miss by more than 100 %), or absent (NAN). */
static int mape_of(json_t *m, const char *key, double *out, const char *at, char *err,
		   size_t errlen)
{
	json_t *x = json_object_get(m, key);
	*out = NAN;
	if (!x)
		return 0;
	if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0.0 ||
	    json_number_value(x) > 1e6) {
		char where[160];
		snprintf(where, sizeof(where), "%s.mape.%s", at, key);
		return vbad(err, errlen, where, "must be a fraction >= 0 (0.05 = 5 %)");
	}
	*out = json_number_value(x);
	return 0;
}

static int read_entry(json_t *o, const char *at, struct nbw_valid_entry *e, char *err,
		      size_t errlen)
{
	memset(e, 0, sizeof(*e));
	if (!json_is_object(o))
		return vbad(err, errlen, at, "must be an object");
	json_t *g = json_object_get(o, "G"), *ns = json_object_get(o, "n");
	json_t *u = json_object_get(o, "unstable_sizes"), *m = json_object_get(o, "mape");
	const char *v = json_string_value(json_object_get(o, "version"));
	const char *meas = json_string_value(json_object_get(o, "measure"));
	if (!json_is_integer(g) || json_integer_value(g) < 2 ||
	    json_integer_value(g) > NBW_MAX_DEVICES)
		return vbad(err, errlen, at, "\"G\" must be an integer 2 to 64");
	if (!v || strlen(v) != 2 || v[0] != 'v' || v[1] < '1' || v[1] > '4')
		return vbad(err, errlen, at, "\"version\" must be \"v1\" to \"v4\"");
	if (!json_is_array(ns) || json_array_size(ns) < 1 ||
	    json_array_size(ns) > NBW_VALID_MAX_N)
		return vbad(err, errlen, at, "\"n\" must be an array of 1 to 32 grid sizes");
	if (u && (!json_is_integer(u) || json_integer_value(u) < 0 ||
		  json_integer_value(u) > NBW_GRID_MAX_SIDE))
		return vbad(err, errlen, at, "\"unstable_sizes\" must be an integer >= 0");
	if (!json_is_object(m))
		return vbad(err, errlen, at, "\"mape\" must be an object of the models' MAPEs");
	e->g = (int)json_integer_value(g);
	snprintf(e->version, sizeof(e->version), "%s", v);
	snprintf(e->measure, sizeof(e->measure), "%s", meas ? meas : "");
	e->unstable = u ? (int)json_integer_value(u) : 0;
	size_t i;
	json_t *x;
	json_array_foreach(ns, i, x) {
		if (!json_is_integer(x) || json_integer_value(x) < 3 ||
		    json_integer_value(x) > NBW_GRID_MAX_SIDE ||
		    (i && json_integer_value(x) <= e->n[i - 1]))
			return vbad(err, errlen, at, "\"n\" must hold grid sizes 3 to 100000, "
						     "ascending");
		e->n[e->nn++] = (int)json_integer_value(x);
	}
	bool any = false;
	for (int k = 0; k < NBW_MODEL_COUNT; k++) {
		if (mape_of(m, nbw_model_names[k], &e->mape[k], at, err, errlen))
			return -1;
		any |= !isnan(e->mape[k]);
	}
	if (mape_of(m, "compute-only", &e->conly_mape, at, err, errlen))
		return -1;
	if (!any)
		return vbad(err, errlen, at, "\"mape\" holds no model's MAPE");
	return 0;
}

int nbw_validation_read(json_t *j, struct nbw_validation *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!j)
		return 0;
	if (!json_is_object(j))
		return vbad(err, errlen, "validation", "must be an object (\"accuracy\" or \"why\")");
	json_t *why = json_object_get(j, "why"), *acc = json_object_get(j, "accuracy");
	if (why && !json_is_string(why))
		return vbad(err, errlen, "validation.why", "must be a string");
	if (acc && !json_is_array(acc))
		return vbad(err, errlen, "validation.accuracy", "must be an array");
	snprintf(out->why, sizeof(out->why), "%s", why ? json_string_value(why) : "");
	size_t n = json_array_size(acc);
	if (n > (size_t)4 * NBW_MAX_DEVICES)
		return vbad(err, errlen, "validation.accuracy", "more entries than (G, version) "
								"pairs");
	if (n == 0)
		return 0;
	out->e = calloc(n, sizeof(*out->e));
	if (!out->e)
		return vbad(err, errlen, "validation", "out of memory");
	for (size_t i = 0; i < n; i++) {
		char at[64];
		snprintf(at, sizeof(at), "validation.accuracy[%zu]", i);
		if (read_entry(json_array_get(acc, i), at, &out->e[i], err, errlen))
			return -1;
		for (size_t k = 0; k < i; k++)
			if (out->e[k].g == out->e[i].g &&
			    strcmp(out->e[k].version, out->e[i].version) == 0)
				return vbad(err, errlen, at, "a second entry of the same G and "
							     "version");
		out->n = i + 1;
	}
	return 0;
}

static int calib_from_json(json_t *j, struct nbw_calib *c, char *err, size_t errlen)
{
	if (!json_is_object(j) || strcmp(jstr(j, "schema"), NBW_CALIB_SCHEMA) != 0)
		return bad(err, errlen, "schema",
			   "not a nodebw calibration (needs \"schema\": \"" NBW_CALIB_SCHEMA "\")");
	json_t *jv = json_object_get(j, "schema_version");
	if (!json_is_integer(jv) || json_integer_value(jv) != NBW_CALIB_VERSION)
		return bad(err, errlen, "schema_version", "must be %d (this nodebw reads %d)",
			   NBW_CALIB_VERSION, NBW_CALIB_VERSION);
	/* Every integer kept in an int, checked against what it means before it is read. */
	static const struct nbw_int_rule rules[] = {
		{"n", 3, NBW_GRID_MAX_SIDE, "a grid side N"},
		{"planes", 1, NBW_GRID_MAX_SIDE, "planes of a slab"},
		{"G", 2, NBW_MAX_DEVICES, "G, devices of a run"},
		{"at_once", 1, NBW_MAX_DEVICES, "devices at once"},
		{"steps", 0, NBW_STEPS_MAX, "time steps"},
		{"hidden_helpers", -1, NBW_HH_MAX, "hidden helper threads"},
		{"host_cpus", 0, 1 << 20, "CPUs the solver ran on (0 unknown)"},
		{"src", -1, NBW_MAX_DEVICES - 1, "a device id"},
		{"dst", -1, NBW_MAX_DEVICES - 1, "a device id"},
	};
	char where[160], what[256];
	if (nbw_json_check_ints(j, rules, sizeof(rules) / sizeof(rules[0]), where, sizeof(where),
				what, sizeof(what)))
		return bad(err, errlen, where, "%s", what);
	/* The rules judge integers; a number of another kind there is bad input too, not a
	 * silent "unknown". */
	static const char *const whole[] = {"hidden_helpers", "host_cpus"};
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		json_t *v = json_object_get(j, whole[i]);
		if (v && !json_is_integer(v))
			return bad(err, errlen, whole[i], "must be an integer");
	}
	snprintf(c->source, sizeof(c->source), "%s", jstr(j, "source"));
	snprintf(c->device_kind, sizeof(c->device_kind), "%s", jstr(j, "device_kind"));
	c->hidden_helpers = jint(j, "hidden_helpers", -1);
	c->host_cpus = jint(j, "host_cpus", 0);
	json_t *st = json_object_get(j, "steps");
	if (st && (!json_is_integer(st) || json_integer_value(st) < 0))
		return bad(err, errlen, "steps", "must be an integer >= 0");
	c->steps = st ? (int)json_integer_value(st) : 0;
	json_t *k = json_object_get(j, "k");
	if (k && !json_is_object(k))
		return bad(err, errlen, "k", "must be an object with \"kbar\" and/or \"samples\"");
	json_t *kb = json_object_get(k, "kbar");
	if (kb && within(kb, K_LO, K_HI, &c->kbar_given))
		return bad(err, errlen, "k.kbar", "must be seconds per interior point and step "
						  "from %g to %g", K_LO, K_HI);
	if (read_ks(json_object_get(k, "samples"), "k.samples", &c->k, &c->nk, err, errlen) ||
	    read_ks(json_object_get(j, "k_slab"), "k_slab", &c->slab, &c->nslab, err, errlen))
		return -1;
	json_t *tr = json_object_get(j, "transfers");
	if (tr && !json_is_object(tr))
		return bad(err, errlen, "transfers", "must be an object of paths");
	const char *name;
	json_t *o;
	json_object_foreach(tr, name, o)
		if (read_path(c, name, o, err, errlen))
			return -1;
	if (read_sets(c, json_object_get(j, "transfer_sets"), err, errlen) ||
	    read_cs(c, json_object_get(j, "compute_only"), err, errlen) ||
	    read_launch(c, json_object_get(j, "launch"), err, errlen) ||
	    read_corun(c, json_object_get(j, "corun"), err, errlen) ||
	    nbw_calib_boxes_read(c, json_object_get(j, "local_boxes"), err, errlen) ||
	    nbw_calib_box_coruns_read(c, json_object_get(j, "local_box_coruns"), err, errlen) ||
	    nbw_calib_faces_read(c, json_object_get(j, "faces"), err, errlen))
		return -1;
	json_t *val = json_object_get(j, "validation");
	if (val) {
		c->valid = calloc(1, sizeof(*c->valid));
		if (!c->valid)
			return bad(err, errlen, "validation", "out of memory");
		if (nbw_validation_read(val, c->valid, err, errlen))
			return -1;
	}
	return read_versions(c, json_object_get(j, "versions"), err, errlen);
}

int nbw_calib_load(const char *path, struct nbw_calib *c, char *err, size_t errlen)
{
	char *text;
	size_t len;
	memset(c, 0, sizeof(*c));
	if (nbw_readfile(path, 0, &text, &len, err, errlen))
		return -1;
	int rc = nbw_calib_load_buffer(path, text, len, c, err, errlen);
	free(text);
	return rc;
}

int nbw_calib_load_buffer(const char *path, const char *text, size_t len, struct nbw_calib *c,
			  char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	json_error_t je;
	json_t *j = nbw_json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		nbw_json_parse_error(path, &je, len, err, errlen);
		return -1;
	}
	char e[400];
	int rc = calib_from_json(j, c, e, sizeof(e));
	json_decref(j);
	if (rc) {
		/* e is "JSON.PATH: what": name the line and column of that value. */
		nbw_json_check_error(path, text, len, e, err, errlen);
		nbw_calib_free(c);
	}
	return rc;
}
