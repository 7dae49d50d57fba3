/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a prediction leaves what the calibration measured (include/nodebw/advice.h,
 * doc/model.md "Outside the calibration"): the grid size N against the solver's calibrated
 * sizes, G against the device counts the versions and probes ran on, and the halo plane
 * (8 N^2 bytes) against the sizes the version's transfer paths were measured at; each
 * with how far, and the nodebw command line that would measure it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "nodebw/advice.h"
#include "nodebw/sizes.h"

/* nodebw run --solver-n: at most this many sizes, each 8 to 4096 (tools/run.c). */
#define RUN_MAX_N 16
#define RUN_N_LO 8
#define RUN_N_HI 4096

/* A sorted set of small positive integers. */
struct iset {
	int v[256];
	int n;
};

static void iset_add(struct iset *s, int x)
{
	int i = 0;
	while (i < s->n && s->v[i] < x)
		i++;
	if ((i < s->n && s->v[i] == x) || s->n == (int)(sizeof(s->v) / sizeof(s->v[0])))
		return;
	memmove(&s->v[i + 1], &s->v[i], (size_t)(s->n - i) * sizeof(int));
	s->v[i] = x;
	s->n++;
}

static bool iset_has(const struct iset *s, int x)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return true;
	return false;
}

static void iset_str(char *buf, size_t len, const struct iset *s, const char *sep)
{
	size_t w = 0;
	buf[0] = '\0';
	for (int i = 0; i < s->n && w < len; i++)
		w += (size_t)snprintf(buf + w, len - w, "%s%d", i ? sep : "", s->v[i]);
}

/* The grid sizes of every solver run and probe of the calibration. */
static void calibrated_n(const struct nbw_calib *c, struct iset *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < c->nk; i++)
		iset_add(s, c->k[i].n);
	for (size_t i = 0; i < c->nslab; i++)
		iset_add(s, c->slab[i].n);
	for (size_t i = 0; i < c->nvs; i++)
		iset_add(s, c->vs[i].n);
	for (size_t i = 0; i < c->ncs; i++)
		iset_add(s, c->cs[i].n);
	for (size_t i = 0; i < c->ncorun; i++)
		iset_add(s, c->corun[i].n);
	for (size_t i = 0; i < c->nlaunch; i++)
		if (c->launch[i].n > 0)
			iset_add(s, c->launch[i].n);
}

/* The device counts of the versions' runs and the multi-device probes. */
static void calibrated_g(const struct nbw_calib *c, struct iset *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < c->nvs; i++)
		iset_add(s, c->vs[i].g);
	for (size_t i = 0; i < c->ncs; i++)
		iset_add(s, c->cs[i].g);
	for (size_t i = 0; i < c->ncorun; i++)
		iset_add(s, c->corun[i].g);
	for (size_t i = 0; i < c->nlaunch; i++)
		if (c->launch[i].g >= 2)
			iset_add(s, c->launch[i].g);
}

/* The largest device id any transfer of the calibration was measured on (-1: none). */
static int measured_devices(const struct nbw_calib *c)
{
	int top = -1;
	for (size_t i = 0; i < c->npaths; i++)
		if (c->paths[i].ends_known)
			top = c->paths[i].src > top ? c->paths[i].src : top,
			top = c->paths[i].dst > top ? c->paths[i].dst : top;
	for (size_t i = 0; i < c->nsets; i++) {
		top = c->sets[i].src > top ? c->sets[i].src : top;
		top = c->sets[i].dst > top ? c->sets[i].dst : top;
	}
	return top;
}

/* "nodebw run --solver-n 40,52,64,76,512": the calibrated sizes and \p n, as nodebw run
 * takes them; "" when it cannot (N outside 8-4096, or too many sizes). */
static void run_for_n(char *buf, size_t len, const struct iset *ns, int n)
{
	buf[0] = '\0';
	if (n < RUN_N_LO || n > RUN_N_HI)
		return;
	struct iset s = {.n = 0};
	for (int i = 0; i < ns->n; i++)
		if (ns->v[i] >= RUN_N_LO && ns->v[i] <= RUN_N_HI)
			iset_add(&s, ns->v[i]);
	iset_add(&s, n);
	while (s.n > RUN_MAX_N) { /* keep n and the sizes nearest it */
		int far = 0;
		for (int i = 1; i < s.n; i++)
			if (abs(s.v[i] - n) > abs(s.v[far] - n))
				far = i;
		memmove(&s.v[far], &s.v[far + 1], (size_t)(s.n - far - 1) * sizeof(int));
		s.n--;
	}
	char list[256];
	iset_str(list, sizeof(list), &s, ",");
	snprintf(buf, len, "nodebw run --solver-n %s", list);
}

static struct nbw_range_warning *next(struct nbw_range_warning *out, size_t *k, const char *what)
{
	struct nbw_range_warning *w = &out[(*k)++];
	memset(w, 0, sizeof(*w));
	snprintf(w->what, sizeof(w->what), "%s", what);
	w->factor = NAN;
	return w;
}

static void check_n(const struct iset *ns, int n, struct nbw_range_warning *out, size_t *k)
{
	if (ns->n == 0) {
		struct nbw_range_warning *w = next(out, k, "N");
		snprintf(w->text, sizeof(w->text), "N=%d: the calibration holds no solver run (no "
			 "grid size), so N cannot be checked against what was measured", n);
		run_for_n(w->run, sizeof(w->run), ns, n);
		return;
	}
	int lo = ns->v[0], hi = ns->v[ns->n - 1];
	if (n >= lo && n <= hi)
		return;
	char list[512];
	iset_str(list, sizeof(list), ns, ", ");
	struct nbw_range_warning *w = next(out, k, "N");
	w->factor = (double)n / (n > hi ? hi : lo);
	snprintf(w->text, sizeof(w->text), "N=%d is %.2gx the %s calibrated N=%d (calibrated "
		 "N=%s): every term measured at N is carried over from those sizes",
		 n, w->factor, n > hi ? "largest" : "smallest", n > hi ? hi : lo, list);
	run_for_n(w->run, sizeof(w->run), ns, n);
	if (!w->run[0])
		snprintf(w->text + strlen(w->text), sizeof(w->text) - strlen(w->text),
			 "; nodebw run --solver-n takes N from %d to %d only", RUN_N_LO, RUN_N_HI);
}

static void check_g(const struct nbw_calib *c, const struct iset *gs, const struct iset *ns,
		    int n, int g, const char *v, struct nbw_range_warning *out, size_t *k)
{
	if (iset_has(gs, g))
		return;
	struct nbw_range_warning *w = next(out, k, "G");
	size_t len = sizeof(w->text), at;
	if (gs->n == 0) {
		snprintf(w->text, len, "G=%d: the calibration holds no multi-device run, so G "
			 "cannot be checked against what was measured", g);
	} else {
		char list[256];
		iset_str(list, sizeof(list), gs, ", ");
		int near = gs->v[0];
		for (int i = 1; i < gs->n; i++)
			if (abs(gs->v[i] - g) <= abs(near - g))
				near = gs->v[i];
		w->factor = (double)g / near;
		snprintf(w->text, len, "G=%d: calibrated G=%s; the terms measured per G (devices "
			 "computing at once, launches, copies, the fitted interaction) are carried "
			 "over or missing", g, list);
	}
	int top = measured_devices(c);
	at = strlen(w->text);
	if (top >= 0 && g - 1 > top)
		snprintf(w->text + at, len - at, "; devices %d-%d have no transfer measurement of "
			 "their own (the path's curve stands in)", top + 1, g - 1);
	/* nodebw run runs Versions 1-4 on G = 2 and 4 only (tools/run_solver.c). */
	if (g == 2 || g == 4) {
		char r[300];
		run_for_n(r, sizeof(r), ns, n);
		snprintf(w->run, sizeof(w->run), "%s (nodebw run calibrates G=2 and, on a node with "
			 "4 or more devices, G=4)", r[0] ? r : "nodebw run");
	} else {
		snprintf(w->run, sizeof(w->run), "nodebw heat --versions %s --gpus %d --n %d "
			 "--paired (nodebw run calibrates G=2 and 4 only; this times G=%d itself, "
			 "on a node with %d devices, to check the prediction against)",
			 v, g, n, g, g);
	}
}

/* The paths a version's halo copies take (model_paper.c, model_ext.c). */
static const struct nbw_xpath *version_path(const struct nbw_calib *c, int vn, int which)
{
	char name[32];
	if (vn == 4)
		snprintf(name, sizeof(name), "p2p/%s", version_mode(vn));
	else
		snprintf(name, sizeof(name), "%s/%s", which ? "dtoh" : "htod", version_mode(vn));
	const struct nbw_xpath *p = find_path(c, name);
	if (!p) { /* the mode-less fallback, as nbw_calib_xfer_s */
		*strchr(name, '/') = '\0';
		p = find_path(c, name);
	}
	return p;
}

static const char *label(double bytes, char *buf, size_t len)
{
	char l[48];
	nbw_size_label((uint64_t)bytes, l, sizeof(l));
	if (bytes < 1024.0)
		snprintf(buf, len, "%s", l);
	else
		snprintf(buf, len, "%s (%.0f B)", l, bytes);
	return buf;
}

/* The measured sizes shared by the version's paths: the largest of their smallest and the
 * smallest of their largest, and the path that sets each. */
struct span {
	bool have;
	double lo, hi;
	const char *lo_path, *hi_path;
};

static void span_add(struct span *s, double lo, double hi, const char *path)
{
	if (!s->have || lo > s->lo) {
		s->lo = lo;
		s->lo_path = path;
	}
	if (!s->have || hi < s->hi) {
		s->hi = hi;
		s->hi_path = path;
	}
	s->have = true;
}

static void check_plane(const struct nbw_calib *c, const struct iset *ns, int n, int vn,
			struct nbw_range_warning *out, size_t *k)
{
	double b = plane_bytes(n);
	struct span sw = {0}, pt = {0};
	bool sweep = true, points = true;
	for (int which = 0; which < (vn == 4 ? 1 : 2); which++) {
		const struct nbw_xpath *p = version_path(c, vn, which);
		if (!p)
			return; /* the models say what is missing */
		sweep &= p->nplanes > 0;
		points &= p->n > 0;
		if (p->nplanes) {
			double lo = p->planes[0].bytes, hi = p->planes[0].bytes;
			for (size_t i = 1; i < p->nplanes; i++) {
				lo = fmin(lo, p->planes[i].bytes);
				hi = fmax(hi, p->planes[i].bytes);
			}
			span_add(&sw, lo, hi, p->name);
		}
		if (p->n)
			span_add(&pt, p->bytes[0], p->bytes[p->n - 1], p->name);
	}
	if (!points)
		return; /* beta without sizes (a hand-written calibration): nothing to hold b to */
	bool out_sweep = sweep && (b > sw.hi * (1 + 1e-9) || b < sw.lo * (1 - 1e-9));
	bool out_points = b > pt.hi * (1 + 1e-9) || b < pt.lo * (1 - 1e-9);
	if (!out_sweep && !out_points)
		return;
	struct nbw_range_warning *w = next(out, k, "halo plane");
	char bl[64], el[64], pl[64], ph[64];
	label(b, bl, sizeof(bl));
	size_t len = sizeof(w->text);
	const struct span *by = out_sweep ? &sw : &pt;
	bool above = b > by->hi;
	double edge = above ? by->hi : by->lo;
	w->factor = b / edge;
	if (out_sweep)
		snprintf(w->text, len, "halo plane %s of N=%d is %.2gx the %s halo plane the "
			 "plane-size sweep measured on %s (%s, N=%.0f)", bl, n, w->factor,
			 above ? "largest" : "smallest", above ? by->hi_path : by->lo_path,
			 label(edge, el, sizeof(el)), sqrt(edge / BYTES_PER_VALUE));
	else
		snprintf(w->text, len, "halo plane %s of N=%d is %.2gx the %s transfer measured "
			 "on %s (%s)", bl, n, w->factor, above ? "largest" : "smallest",
			 above ? by->hi_path : by->lo_path, label(edge, el, sizeof(el)));
	size_t at = strlen(w->text);
	if (out_sweep && !out_points)
		snprintf(w->text + at, len - at, "; beta there comes from the main size sweep "
			 "(measured %s to %s), not from the halo-plane sizes",
			 label(pt.lo, pl, sizeof(pl)), label(pt.hi, ph, sizeof(ph)));
	else if (out_sweep)
		snprintf(w->text + at, len - at, ", and outside the sizes any transfer was "
			 "measured at (%s to %s): beta there is extrapolated",
			 label(pt.lo, pl, sizeof(pl)), label(pt.hi, ph, sizeof(ph)));
	else
		snprintf(w->text + at, len - at, ": beta there is extrapolated");
	run_for_n(w->run, sizeof(w->run), ns, n);
	if (w->run[0]) {
		at = strlen(w->run);
		snprintf(w->run + at, sizeof(w->run) - at, " (its plane-size sweep measures the "
			 "halo plane of every solver N)");
	}
}

/* The one-device run of exactly this slab (N x N x (ceil((N-2)/G)+2)) and its co-run of the
 * version's form: without them the one-device model carries k over from other shapes, which
 * on grids beyond the caches is where it goes wrong. */
static void check_slab(const struct nbw_calib *c, int n, int g, int vn,
		       struct nbw_range_warning *out, size_t *k)
{
	int planes = (n - 2 + g - 1) / g;
	bool slab = false, corun = false;
	for (size_t i = 0; i < c->nslab; i++)
		slab |= c->slab[i].n == n && c->slab[i].planes == planes;
	for (size_t i = 0; i < c->ncorun; i++)
		corun |= c->corun[i].n == n && c->corun[i].g == g &&
			 c->corun[i].per_device == (vn >= 3);
	/* A hand-written calibration (no slab run, no co-run) gives k as it is meant. */
	if ((slab && corun) || (c->nslab == 0 && c->ncorun == 0))
		return;
	struct nbw_range_warning *w = next(out, k, "slab");
	snprintf(w->text, sizeof(w->text), "the slab of G=%d at N=%d: the calibration has no %s%s%s "
		 "of the slab %dx%dx%d: the one-device model carries its compute over from other "
		 "shapes", g, n, slab ? "" : "one-device run", slab || corun ? "" : " and no ",
		 corun ? "" : "co-run", n, n, planes + 2);
	snprintf(w->run, sizeof(w->run), "nodebw predict --measure with the same options (it "
		 "runs the one-device slab and co-run, about seconds, and predicts)");
}

size_t nbw_range_check(const struct nbw_calib *c, int n, int g, const char *v,
		       struct nbw_range_warning *out)
{
	int vn;
	if (!is_version(v, &vn))
		return 0;
	struct iset ns, gs;
	calibrated_n(c, &ns);
	calibrated_g(c, &gs);
	size_t k = 0;
	check_n(&ns, n, out, &k);
	check_g(c, &gs, &ns, n, g, v, out, &k);
	check_plane(c, &ns, n, vn, out, &k);
	check_slab(c, n, g, vn, out, &k);
	return k;
}
