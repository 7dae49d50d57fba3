/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Looking up a calibration (include/nodebw/model.h): k-bar, a transfer path's time at any
 * size, and the time of one device's or one pair's copy with where it came from. No I/O.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "nodebw/limits.h"
#include "nodebw/model.h"
#include "nodebw/stats.h"
#include "nodebw/advice.h"

void nbw_calib_free(struct nbw_calib *c)
{
	for (size_t i = 0; i < c->npaths; i++) {
		free(c->paths[i].bytes);
		free(c->paths[i].seconds);
	}
	free(c->paths);
	for (size_t i = 0; i < c->nsets; i++) {
		free(c->sets[i].own.bytes);
		free(c->sets[i].own.seconds);
	}
	free(c->sets);
	free(c->k);
	free(c->slab);
	free(c->vs);
	free(c->launch);
	free(c->cs);
	free(c->corun);
	free(c->boxes);
	free(c->boxcoruns);
	free(c->faces);
	if (c->valid) {
		nbw_validation_free(c->valid);
		free(c->valid);
	}
	memset(c, 0, sizeof(*c));
}

static int cmp_ksample_n(const void *a, const void *b)
{
	int x = ((const struct nbw_ksample *)a)->n, y = ((const struct nbw_ksample *)b)->n;
	return (x > y) - (x < y);
}

int nbw_calib_kbar(const struct nbw_calib *c, enum nbw_kbar_rule rule, double *kbar,
		   char *why, size_t whylen)
{
	if (c->nk == 0) {
		if (c->kbar_given > 0.0) {
			*kbar = c->kbar_given;
			return 0;
		}
		say(why, whylen, "no k: needs one-device (baseline) runs of cubic grids or a "
				 "given k-bar");
		return -1;
	}
	struct nbw_ksample *s = malloc(c->nk * sizeof(*s));
	if (!s) {
		say(why, whylen, "out of memory");
		return -1;
	}
	memcpy(s, c->k, c->nk * sizeof(*s));
	qsort(s, c->nk, sizeof(*s), cmp_ksample_n);
	size_t from = rule == NBW_KBAR_TOP3 && c->nk > 3 ? c->nk - 3 : 0;
	double sum = 0.0;
	for (size_t i = from; i < c->nk; i++)
		sum += s[i].k;
	*kbar = sum / (double)(c->nk - from);
	free(s);
	return 0;
}


static double path_time(const struct nbw_xpath *p, double bytes, char *how, size_t howlen)
{
	const double *b = p->bytes, *t = p->seconds;
	for (size_t i = 0; i < p->n; i++) {
		if (b[i] == bytes) {
			say(how, howlen, "%s measured at %.0f B", p->name, bytes);
			return t[i];
		}
		if (i + 1 < p->n && b[i] < bytes && bytes < b[i + 1]) {
			say(how, howlen, "%s interpolated between %.0f B and %.0f B", p->name, b[i],
			    b[i + 1]);
			return t[i] + (bytes - b[i]) / (b[i + 1] - b[i]) * (t[i + 1] - t[i]);
		}
	}
	if (p->beta_gbps > 0.0) {
		double alpha = p->alpha_s > 0.0 ? p->alpha_s : 0.0;
		say(how, howlen, "%s: %s%.4g GB/s", p->name,
		    p->alpha_s > 0.0 ? "alpha + n / beta, beta = " : "n / beta, beta = ",
		    p->beta_gbps);
		return alpha + bytes / (p->beta_gbps * 1e9);
	}
	if (p->n) {
		/* Beyond the measured sizes without a fit: time proportional to size. */
		size_t i = bytes < b[0] ? 0 : p->n - 1;
		say(how, howlen, "%s scaled from %.0f B", p->name, b[i]);
		return bytes < b[0] ? t[0] : t[i] * bytes / b[i];
	}
	return -1.0;
}

int nbw_calib_xfer_s(const struct nbw_calib *c, const char *name, double bytes, double *t,
		     char *how, size_t howlen)
{
	const struct nbw_xpath *p = find_path(c, name);
	if (!p) {
		/* "p2p/async/bidir" -> "p2p/async" is not a fallback (different meaning); the
		 * mode-less name is: "htod/async" -> "htod". */
		char base[32];
		snprintf(base, sizeof(base), "%s", name);
		char *slash = strchr(base, '/');
		if (slash && !strchr(slash + 1, '/')) {
			*slash = '\0';
			p = find_path(c, base);
		}
	}
	double x = p ? path_time(p, bytes, how, howlen) : -1.0;
	if (!(x > 0.0)) {
		say(how, howlen, "no transfer measurement for path %s", name);
		return -1;
	}
	*t = x;
	return 0;
}

/* ---- per device and per pair ------------------------------------------------------- */

const char *nbw_xsrc_name(enum nbw_xsrc s)
{
	switch (s) {
	case NBW_XSRC_REFERENCE:
		return "reference sweep";
	case NBW_XSRC_OWN:
		return "own sweep";
	case NBW_XSRC_ESTIMATE:
		return "matrix estimate";
	default:
		return "not measured on its own: the path's curve";
	}
}

/* The set of path \p name (or of its mode-less name, as nbw_calib_xfer_s falls back). */
static const struct nbw_xset *find_set(const struct nbw_calib *c, const char *name, int src,
				       int dst)
{
	for (int pass = 0; pass < 2; pass++) {
		char base[32];
		snprintf(base, sizeof(base), "%s", name);
		if (pass == 1) {
			char *slash = strchr(base, '/');
			if (!slash || strchr(slash + 1, '/') || find_path(c, name))
				return NULL;
			*slash = '\0';
		}
		for (size_t i = 0; i < c->nsets; i++)
			if (c->sets[i].src == src && c->sets[i].dst == dst &&
			    strcmp(c->sets[i].path, base) == 0)
				return &c->sets[i];
	}
	return NULL;
}

bool nbw_calib_has_sets(const struct nbw_calib *c, const char *name)
{
	size_t len = strcspn(name, "/");
	for (size_t i = 0; i < c->nsets; i++)
		if (strcmp(c->sets[i].path, name) == 0 ||
		    (strlen(c->sets[i].path) == len && strncmp(c->sets[i].path, name, len) == 0))
			return true;
	return false;
}

/* r(b): the measured ratios, linear in log(bytes) between the two sizes, constant outside. */
static double ratio_at(const struct nbw_xset *s, double bytes)
{
	if (s->nratio < 2 || bytes <= s->ratio_bytes[0])
		return s->ratio[0];
	if (bytes >= s->ratio_bytes[1])
		return s->ratio[1];
	double f = log(bytes / s->ratio_bytes[0]) / log(s->ratio_bytes[1] / s->ratio_bytes[0]);
	return s->ratio[0] + f * (s->ratio[1] - s->ratio[0]);
}

static void ends_str(char *buf, size_t len, int src, int dst)
{
	char a[16], b[16];
	snprintf(a, sizeof(a), src < 0 ? "host" : "%d", src);
	snprintf(b, sizeof(b), dst < 0 ? "host" : "%d", dst);
	snprintf(buf, len, "%s->%s", a, b);
}

int nbw_calib_xfer_ends_s(const struct nbw_calib *c, const char *name, int src, int dst,
			  double bytes, double *t, enum nbw_xsrc *from, char *how, size_t howlen)
{
	const struct nbw_xset *s = find_set(c, name, src, dst);
	char e[32], h[200];
	ends_str(e, sizeof(e), src, dst);
	if (s && !s->estimate) {
		double x = path_time(&s->own, bytes, h, sizeof(h));
		if (x > 0.0) {
			say(how, howlen, "%s own sweep: %s", e, h);
			if (from)
				*from = NBW_XSRC_OWN;
			*t = x;
			return 0;
		}
	}
	double ref;
	if (nbw_calib_xfer_s(c, name, bytes, &ref, h, sizeof(h))) {
		say(how, howlen, "%s", h);
		return -1;
	}
	if (s && s->estimate && s->nratio > 0) {
		double r = ratio_at(s, bytes);
		if (s->nratio == 2)
			say(how, howlen, "%s matrix estimate: %s x %.3g (ratio measured at %.0f B "
					 "and %.0f B against %s)",
			    e, h, r, s->ratio_bytes[0], s->ratio_bytes[1], s->ratio_to);
		else
			say(how, howlen, "%s matrix estimate: %s x %.3g (ratio measured at %.0f B "
					 "against %s)",
			    e, h, r, s->ratio_bytes[0], s->ratio_to);
		if (from)
			*from = NBW_XSRC_ESTIMATE;
		*t = ref * r;
		return 0;
	}
	const struct nbw_xpath *p = find_path(c, name);
	if (!p) { /* the mode-less fallback of nbw_calib_xfer_s */
		char base[32];
		snprintf(base, sizeof(base), "%s", name);
		char *slash = strchr(base, '/');
		if (slash && !strchr(slash + 1, '/')) {
			*slash = '\0';
			p = find_path(c, base);
		}
	}
	bool same = p && p->ends_known && p->src == src && p->dst == dst;
	if (same)
		say(how, howlen, "%s reference sweep: %s", e, h);
	else
		say(how, howlen, "%s not measured on its own: %s", e, h);
	if (from)
		*from = same ? NBW_XSRC_REFERENCE : NBW_XSRC_GENERIC;
	*t = ref;
	return 0;
}


void nbw_mdl_sources_str(char *buf, size_t len, const char *what_counted,
			 const struct xsrc_count *k)
{
	static const char *what[4][2] = {
		{"not measured on its own (the path's curve)", "not measured on their own (the "
							       "path's curve)"},
		{"reference sweep", "reference sweeps"},
		{"own sweep", "own sweeps"},
		{"matrix estimate", "matrix estimates"},
	};
	int total = k->n[0] + k->n[1] + k->n[2] + k->n[3];
	size_t w = (size_t)snprintf(buf, len, "%d %s%s:", total, what_counted,
				    total == 1 ? "" : "s");
	for (int i = 1; i <= 4 && w < len; i++) {
		int s = i % 4; /* the generic ones last */
		if (!k->n[s])
			continue;
		w += (size_t)snprintf(buf + w, len - w, "%s %d %s", i > 1 && w && buf[w - 1] != ':'
				      ? "," : "", k->n[s], what[s][k->n[s] > 1]);
	}
}
