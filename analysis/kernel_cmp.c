/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel copy versus API copy (include/nodebw/kernel_cmp.h). */
#include "nodebw/kernel_cmp.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/gap.h"
#include "nodebw/results_view.h"

#define KCMP_CLEAR 0.03

static bool same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Same path, concurrency, devices and size: only the mode differs. */
static bool same_point(const struct nbw_rv_meas *a, const struct nbw_rv_meas *b)
{
	if (!same_str(a->api, b->api) || !same_str(a->direction, b->direction) ||
	    !same_str(a->host_mem, b->host_mem) || !same_str(a->concurrency, b->concurrency) ||
	    !same_str(a->peer_access, b->peer_access) || !same_str(a->bind, b->bind) ||
	    a->bytes != b->bytes || a->nstreams != b->nstreams || a->file != b->file)
		return false;
	for (int i = 0; i < a->nstreams; i++)
		if (a->streams[i].src != b->streams[i].src || a->streams[i].dst != b->streams[i].dst)
			return false;
	return true;
}

/* A measurement either side of the comparison may use: verified, one of the run's own
 * points (not a hidden-helper or plane-size sweep's), with a median. */
static bool usable(const struct nbw_rv_meas *x)
{
	return nbw_rv_meas_verified(x) && !(x->hht_sweep && x->hht_sweep[0]) && !x->plane_sweep &&
	       isfinite(x->gbps) && x->gbps > 0 && x->bytes > 0 && !x->face;
}

static json_t *row(const struct nbw_rv_meas *k, const struct nbw_rv_meas *c)
{
	char ends[256];
	nbw_rv_meas_ends(k, ends, sizeof(ends));
	json_t *r = json_object();
	json_object_set_new(r, "api", json_string(k->api));
	json_object_set_new(r, "direction", json_string(k->direction));
	json_object_set_new(r, "host_mem", json_string(k->host_mem));
	json_object_set_new(r, "concurrency", json_string(k->concurrency));
	json_object_set_new(r, "devices", json_string(ends));
	json_object_set_new(r, "size_bytes", json_integer(k->bytes));
	json_object_set_new(r, "kernel_gbps", json_real(k->gbps));
	json_object_set_new(r, "copy_mode", json_string(NBW_KCMP_COPY_MODE));
	json_object_set_new(r, "copy_gbps", json_real(c->gbps));
	json_object_set_new(r, "ratio", json_real(k->gbps / c->gbps));
	if (isfinite(k->seconds) && isfinite(c->seconds)) {
		json_object_set_new(r, "kernel_us", json_real(1e6 * k->seconds));
		json_object_set_new(r, "copy_us", json_real(1e6 * c->seconds));
	}
	return r;
}

static json_t *pair_rows(json_t *devices, json_t *measurements)
{
	json_t *rows = json_array();
	size_t n = json_array_size(measurements);
	struct nbw_rv_meas *v = calloc(n ? n : 1, sizeof(*v));
	bool *ok = calloc(n ? n : 1, sizeof(*ok));
	if (!v || !ok) {
		free(v);
		free(ok);
		return rows;
	}
	for (size_t i = 0; i < n; i++)
		ok[i] = nbw_rv_meas_read(devices, json_array_get(measurements, i), &v[i]) &&
			usable(&v[i]);
	for (size_t i = 0; i < n; i++) {
		if (!ok[i] || !same_str(v[i].mode, "kernel"))
			continue;
		for (size_t j = 0; j < n; j++)
			if (ok[j] && same_str(v[j].mode, NBW_KCMP_COPY_MODE) && same_point(&v[i], &v[j])) {
				json_array_append_new(rows, row(&v[i], &v[j]));
				break;
			}
	}
	free(v);
	free(ok);
	return rows;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static bool same_group(json_t *a, json_t *b)
{
	return strcmp(jstr(a, "api"), jstr(b, "api")) == 0 &&
	       strcmp(jstr(a, "direction"), jstr(b, "direction")) == 0 &&
	       strcmp(jstr(a, "host_mem"), jstr(b, "host_mem")) == 0;
}

/* The median ratio of the one-stream rows of \p key's group in a size band. */
static double band_median(json_t *rows, json_t *key, bool small, size_t *count)
{
	size_t i, n = 0;
	json_t *r;
	double *v = malloc((json_array_size(rows) + 1) * sizeof(*v));
	*count = 0;
	if (!v)
		return NAN;
	json_array_foreach(rows, i, r) {
		long long b = json_integer_value(json_object_get(r, "size_bytes"));
		bool in = small ? b <= (long long)NBW_GAP_LATENCY_MAX_BYTES
				: b >= (long long)NBW_GAP_BANDWIDTH_MIN_BYTES;
		if (in && strcmp(jstr(r, "concurrency"), "single") == 0 && same_group(r, key))
			v[n++] = json_number_value(json_object_get(r, "ratio"));
	}
	double m = NAN;
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
		m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	}
	free(v);
	*count = n;
	return m;
}

const char *nbw_kernel_compare_verdict(double ratio)
{
	if (!isfinite(ratio))
		return "not measured";
	if (ratio > 1.0 + KCMP_CLEAR)
		return "kernel faster";
	if (ratio < 1.0 - KCMP_CLEAR)
		return "kernel slower";
	return "no clear difference";
}

static void set_band(json_t *s, const char *name, double m, size_t n)
{
	json_t *b = json_object();
	json_object_set_new(b, "rows", json_integer((json_int_t)n));
	json_object_set_new(b, "median_ratio", isfinite(m) ? json_real(m) : json_null());
	json_object_set_new(b, "verdict", json_string(nbw_kernel_compare_verdict(m)));
	json_object_set_new(s, name, b);
}

static json_t *summary(json_t *rows)
{
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(rows, i, r) {
		if (strcmp(jstr(r, "concurrency"), "single") != 0)
			continue;
		bool seen = false;
		for (size_t j = 0; j < json_array_size(out) && !seen; j++)
			seen = same_group(json_array_get(out, j), r);
		if (seen)
			continue;
		json_t *s = json_object();
		json_object_set_new(s, "api", json_string(jstr(r, "api")));
		json_object_set_new(s, "direction", json_string(jstr(r, "direction")));
		json_object_set_new(s, "host_mem", json_string(jstr(r, "host_mem")));
		size_t ns, nl;
		double a = band_median(rows, r, true, &ns), b = band_median(rows, r, false, &nl);
		set_band(s, "small_band", a, ns);
		set_band(s, "large_band", b, nl);
		json_array_append_new(out, s);
	}
	return out;
}

json_t *nbw_kernel_compare(json_t *devices, json_t *measurements)
{
	json_t *c = json_object();
	json_object_set_new(c, "definition",
			    json_string("ratio = kernel GB/s / API copy GB/s (mode sync: the API's "
					"blocking copy call) on the same path, devices and size; "
					"> 1: the copy kernel is faster. Bands: one stream, sizes "
					"<= 64 KiB and >= 1 MiB, median ratio, a verdict beyond "
					"+-3 %"));
	json_t *rows = pair_rows(devices, measurements);
	json_object_set_new(c, "summary", summary(rows));
	json_object_set_new(c, "rows", rows);
	return c;
}

static void print_rows(FILE *f, json_t *rows)
{
	size_t i;
	json_t *r;
	fprintf(f, "  %-4s %-5s %-9s %-7s %-24s %11s %10s %10s %10s %10s %7s\n", "api", "dir",
		"host mem", "conc.", "devices", "size (B)", "kernel GB/s", "sync GB/s", "kernel us",
		"sync us", "ratio");
	json_array_foreach(rows, i, r)
		fprintf(f, "  %-4s %-5s %-9s %-7s %-24.24s %11lld %10.4g %10.4g %10.4g %10.4g %6.2fx\n",
			jstr(r, "api"), jstr(r, "direction"), jstr(r, "host_mem"),
			jstr(r, "concurrency"), jstr(r, "devices"),
			(long long)json_integer_value(json_object_get(r, "size_bytes")),
			json_number_value(json_object_get(r, "kernel_gbps")),
			json_number_value(json_object_get(r, "copy_gbps")),
			json_number_value(json_object_get(r, "kernel_us")),
			json_number_value(json_object_get(r, "copy_us")),
			json_number_value(json_object_get(r, "ratio")));
}

static void band_text(json_t *s, const char *band, char *buf, size_t len)
{
	json_t *b = json_object_get(s, band), *m = json_object_get(b, "median_ratio");
	if (json_is_number(m))
		snprintf(buf, len, "%.2fx %s", json_number_value(m), jstr(b, "verdict"));
	else
		snprintf(buf, len, "not measured");
}

size_t nbw_kernel_compare_print(FILE *f, json_t *cmp, bool rows)
{
	json_t *sum = json_object_get(cmp, "summary"), *s;
	json_t *rv = json_object_get(cmp, "rows");
	size_t i;
	if (json_array_size(rv) == 0)
		return 0;
	fprintf(f, "\nKernel copy vs API copy (GB/s = 1e9 B/s; us = median microseconds per "
		   "transfer)\n  %s\n", jstr(cmp, "definition"));
	if (rows)
		print_rows(f, rv);
	fprintf(f, "  %-4s %-5s %-9s %-32s %-32s\n", "api", "dir", "host mem",
		"<= 64 KiB (median ratio)", ">= 1 MiB (median ratio)");
	json_array_foreach(sum, i, s) {
		char a[64], b[64];
		band_text(s, "small_band", a, sizeof(a));
		band_text(s, "large_band", b, sizeof(b));
		fprintf(f, "  %-4s %-5s %-9s %-32s %-32s\n", jstr(s, "api"), jstr(s, "direction"),
			jstr(s, "host_mem"), a, b);
	}
	return json_array_size(sum);
}
