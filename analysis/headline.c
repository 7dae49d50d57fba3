/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each API's headline figures (include/nodebw/findings.h): read from the device tables, the
 * P2P matrices and the all-at-once rows, which are all at the run's comparison size, so a
 * headline is a figure of every device or pair at one size, never a sweep's end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "nodebw/findings.h"
#include "nodebw/sizes.h"

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static struct nbw_headline *put(struct nbw_headline *out, size_t max, size_t *n, const char *api,
				const char *what)
{
	if (*n >= max)
		return NULL;
	struct nbw_headline *h = &out[(*n)++];
	memset(h, 0, sizeof(*h));
	snprintf(h->api, sizeof(h->api), "%s", api);
	snprintf(h->what, sizeof(h->what), "%s", what);
	h->gbps = h->lo_gbps = h->hi_gbps = NAN;
	h->bytes = -1;
	return h;
}

/* The median over the members (a device table's rows or a matrix's off-diagonal cells, at
 * the comparison size) and the medians of their intervals' ends: the range the median
 * takes when each member moves within its own interval (NaN when one has none). */
struct members {
	double *v, *lo, *hi;
	size_t n, cap;
	bool all_ci;
};

static bool members_init(struct members *m, size_t cap)
{
	memset(m, 0, sizeof(*m));
	m->cap = cap ? cap : 1;
	m->all_ci = true;
	m->v = calloc(m->cap, sizeof(double));
	m->lo = calloc(m->cap, sizeof(double));
	m->hi = calloc(m->cap, sizeof(double));
	return m->v && m->lo && m->hi;
}

static void members_add(struct members *m, json_t *o)
{
	double g = num(o, "gbps"), lo = num(o, "ci_lo_gbps"), hi = num(o, "ci_hi_gbps");
	if (!isfinite(g) || m->n >= m->cap)
		return;
	m->all_ci = m->all_ci && isfinite(lo) && isfinite(hi);
	m->v[m->n] = g;
	m->lo[m->n] = lo;
	m->hi[m->n++] = hi;
}

static double members_done(struct members *m, struct nbw_path_fig *f)
{
	f->gbps = m->v ? nbw_an_median(m->v, m->n) : NAN;
	bool ci = m->v && m->all_ci && m->n;
	f->lo_gbps = ci ? nbw_an_median(m->lo, m->n) : NAN;
	f->hi_gbps = ci ? nbw_an_median(m->hi, m->n) : NAN;
	f->members = (int)m->n;
	free(m->v);
	free(m->lo);
	free(m->hi);
	return f->gbps;
}

/* The median over the devices of one device table (its rows, at the comparison size). */
static double table_median(json_t *t, struct nbw_path_fig *f)
{
	size_t j;
	json_t *r;
	struct members m;
	if (members_init(&m, json_array_size(json_object_get(t, "rows"))))
		json_array_foreach(json_object_get(t, "rows"), j, r)
			members_add(&m, r);
	f->bytes = (long long)json_integer_value(json_object_get(t, "bytes"));
	return members_done(&m, f);
}

/* The median over the ordered pairs of one P2P matrix (not the diagonal). */
static double matrix_median(json_t *m, struct nbw_path_fig *f)
{
	size_t nd = json_array_size(json_object_get(m, "devices")), r, c;
	json_t *row, *cell;
	struct members v;
	if (members_init(&v, nd * nd))
		json_array_foreach(json_object_get(m, "cells"), r, row)
			json_array_foreach(row, c, cell)
				if (r != c && json_is_object(cell))
					members_add(&v, cell);
	f->bytes = (long long)json_integer_value(json_object_get(m, "bandwidth_bytes"));
	return members_done(&v, f);
}

bool nbw_path_figure(json_t *tables, json_t *matrices, const char *api, const char *dir,
		     const char *mode, const char *host_mem, const char *peer, const char *bind,
		     struct nbw_path_fig *out)
{
	size_t i;
	json_t *t;
	bool p2p = strcmp(dir, "p2p") == 0;
	*out = (struct nbw_path_fig){ NAN, NAN, NAN, 0, -1 };
	json_array_foreach(p2p ? matrices : tables, i, t) {
		if (strcmp(str(t, "api"), api) || strcmp(str(t, "mode"), mode) ||
		    (bind && bind[0] && strcmp(str(t, "binding"), bind)))
			continue;
		if (p2p ? strcmp(str(t, "concurrency"), "single") ||
				  strcmp(str(t, "peer_access"), peer)
			: strcmp(str(t, "direction"), dir) || strcmp(str(t, "host_mem"), host_mem))
			continue;
		if (p2p)
			matrix_median(t, out);
		else
			table_median(t, out);
		return isfinite(out->gbps);
	}
	return false;
}

double nbw_path_at_comparison(json_t *tables, json_t *matrices, const char *api,
			      const char *dir, const char *mode, const char *host_mem,
			      const char *peer, const char *bind, int *members, long long *bytes)
{
	struct nbw_path_fig f;
	nbw_path_figure(tables, matrices, api, dir, mode, host_mem, peer, bind, &f);
	*members = f.members;
	*bytes = f.bytes;
	return f.gbps;
}

/* The best (mode and memory) of the per-device medians of one direction. */
static void transfers(json_t *tables, const char *api, const char *dir, struct nbw_headline *h)
{
	size_t i;
	json_t *t;
	json_array_foreach(tables, i, t) {
		if (strcmp(str(t, "api"), api) || strcmp(str(t, "direction"), dir))
			continue;
		struct nbw_path_fig f;
		double med = table_median(t, &f);
		if (isfinite(med) && !(med <= h->gbps)) {
			h->gbps = med;
			h->bytes = f.bytes;
			h->members = f.members;
			h->lo_gbps = f.lo_gbps;
			h->hi_gbps = f.hi_gbps;
			snprintf(h->how, sizeof(h->how), "%s %s", str(t, "mode"), str(t, "host_mem"));
		}
	}
}

/* The best mode's median single-stream P2P cell (peer links and host memory; not a
 * same-device copy). */
static void p2p(json_t *mx, const char *api, struct nbw_headline *h)
{
	size_t i;
	json_t *m;
	json_array_foreach(mx, i, m) {
		if (strcmp(str(m, "api"), api) || strcmp(str(m, "concurrency"), "single"))
			continue;
		struct nbw_path_fig f;
		double med = matrix_median(m, &f);
		if (isfinite(med) && !(med <= h->gbps)) {
			h->gbps = med;
			h->bytes = f.bytes;
			h->members = f.members;
			h->lo_gbps = f.lo_gbps;
			h->hi_gbps = f.hi_gbps;
			snprintf(h->how, sizeof(h->how), "%s%s", str(m, "mode"),
				 strcmp(str(m, "peer_access"), "enabled") == 0 ? ", peer access" : "");
		}
	}
}

/* The highest aggregate of every device at once. */
static void at_once(json_t *rows, const char *api, struct nbw_headline *h)
{
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		double g = num(r, "aggregate_gbps");
		if (strcmp(str(r, "api"), api) || !isfinite(g) || g <= h->gbps)
			continue;
		h->gbps = g;
		h->bytes = (long long)json_integer_value(json_object_get(r, "bytes"));
		h->members = (int)json_array_size(json_object_get(r, "devices"));
		h->lo_gbps = num(r, "aggregate_ci_lo_gbps");
		h->hi_gbps = num(r, "aggregate_ci_hi_gbps");
		snprintf(h->how, sizeof(h->how), "%s %s", str(r, "pattern"), str(r, "mode"));
	}
}

size_t nbw_headlines(json_t *devices, json_t *tables, json_t *matrices, json_t *all_at_once,
		     struct nbw_headline *out, size_t max)
{
	size_t n = 0, i;
	json_t *d;
	char last[16] = "";
	json_array_foreach(devices, i, d) {
		struct nbw_rv_device v;
		nbw_rv_device_read(d, &v);
		if (strcmp(v.api, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", v.api);
		bool seen = false; /* an API listed again after another (merged files) */
		for (size_t k = 0; k < n; k++)
			seen = seen || strcmp(out[k].api, v.api) == 0;
		if (seen)
			continue;
		static const char *const what[] = { "htod", "dtoh", "p2p", "all" };
		for (size_t w = 0; w < 4; w++) {
			struct nbw_headline h;
			memset(&h, 0, sizeof(h));
			h.gbps = NAN;
			if (w < 2)
				transfers(tables, v.api, what[w], &h);
			else if (w == 2)
				p2p(matrices, v.api, &h);
			else
				at_once(all_at_once, v.api, &h);
			struct nbw_headline *o;
			if (isfinite(h.gbps) && (o = put(out, max, &n, v.api, what[w]))) {
				o->gbps = h.gbps;
				o->bytes = h.bytes;
				o->members = h.members;
				o->lo_gbps = h.lo_gbps;
				o->hi_gbps = h.hi_gbps;
				snprintf(o->how, sizeof(o->how), "%s", h.how);
			}
		}
	}
	return n;
}

bool nbw_headline_text(const struct nbw_headline *h, size_t n, const char *api, char *out,
		       size_t len)
{
	size_t w = 0;
	long long bytes = -1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(h[i].api, api) == 0 && bytes < 0)
			bytes = h[i].bytes;
	if (bytes < 0)
		return false;
	char sz[32];
	nbw_size_label((uint64_t)bytes, sz, sizeof(sz));
	w += (size_t)snprintf(out, len, "%s at %s (median over devices or pairs):", api, sz);
	bool first = true;
	for (size_t i = 0; i < n && w < len; i++) {
		if (strcmp(h[i].api, api))
			continue;
		const char *name = !strcmp(h[i].what, "htod")   ? "HtoD"
				   : !strcmp(h[i].what, "dtoh") ? "DtoH"
				   : !strcmp(h[i].what, "p2p")  ? "P2P"
								: "every device at once";
		w += (size_t)snprintf(out + w, len - w, "%s %s %.2f GB/s (%s)", first ? "" : ",",
				      name, h[i].gbps, h[i].how);
		first = false;
	}
	return true;
}
