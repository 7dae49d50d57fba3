/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The latency table (include/nodebw/analysis.h): per API and path (HtoD and DtoH per device
 * and host memory, P2P per pair), the 8 B copy latency (the median time of one sync copy
 * at the smallest size measured on that path, single stream) beside the pointer chase's
 * latency per load (chase mode) at its smallest and largest working set.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "nodebw/analysis.h"

/* The row of (api, direction, host_mem, src, dst) in \p rows, made when absent. */
static json_t *row_of(json_t *rows, const struct nbw_rv_meas *x)
{
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		if (!strcmp(jstr(r, "api"), x->api) &&
		    !strcmp(jstr(r, "direction"), x->direction) &&
		    !strcmp(jstr(r, "host_mem"), x->host_mem) &&
		    jint(r, "src", -2) == x->src && jint(r, "dst", -2) == x->dst)
			return r;
	}
	r = json_pack("{s:s, s:s, s:s, s:i, s:i}", "api", x->api, "direction", x->direction,
		      "host_mem", x->host_mem, "src", x->src, "dst", x->dst);
	json_array_append_new(rows, r);
	return r;
}

/* Keep in \p r under \p key the figure of the smallest (or largest) size seen so far. */
static void keep(json_t *r, const char *key, long long bytes, double value, bool smallest,
		 json_t *extra)
{
	char bk[48];
	snprintf(bk, sizeof(bk), "%s_bytes", key);
	long long have = jint(r, bk, -1);
	if (have < 0 || (smallest ? bytes < have : bytes > have)) {
		json_object_set_new(r, bk, json_integer(bytes));
		json_object_set_new(r, key, nbw_an_num(value, false));
		if (extra)
			json_object_set(r, "chase_large_touched_bytes", extra);
	}
	json_decref(extra);
}

json_t *nbw_analysis_latency(json_t *devices, json_t *measurements)
{
	json_t *rows = json_array(), *m;
	size_t i;
	/* Chases first: only paths with a chase get a row. */
	for (int pass = 0; pass < 2; pass++)
		json_array_foreach(measurements, i, m) {
			struct nbw_rv_meas x;
			if (!nbw_rv_meas_read(devices, m, &x) || x.nstreams != 1 ||
			    strcmp(x.concurrency, "single"))
				continue;
			if (pass == 0 && nbw_rv_meas_chase_usable(&x)) {
				json_t *r = row_of(rows, &x);
				json_t *c = json_object_get(m, "chase");
				keep(r, "chase_small_ns", x.bytes, x.chase_latency_ns, true, NULL);
				keep(r, "chase_large_ns", x.bytes, x.chase_latency_ns, false,
				     json_integer(jint(c, "touched_bytes", -1)));
			} else if (pass == 1 && nbw_rv_meas_usable(&x) && !strcmp(x.mode, "sync") &&
				   x.bytes > 0) {
				json_t *r = NULL, *e;
				size_t k;
				json_array_foreach(rows, k, e)
					if (!strcmp(jstr(e, "api"), x.api) &&
					    !strcmp(jstr(e, "direction"), x.direction) &&
					    !strcmp(jstr(e, "host_mem"), x.host_mem) &&
					    jint(e, "src", -2) == x.src &&
					    jint(e, "dst", -2) == x.dst)
						r = e;
				if (r)
					keep(r, "copy_us", x.bytes, x.seconds * 1e6, true, NULL);
			}
		}
	return rows;
}

static void cell(char *buf, size_t len, json_t *r, const char *key, const char *fmt)
{
	json_t *v = json_object_get(r, key);
	if (json_is_number(v))
		snprintf(buf, len, fmt, json_number_value(v));
	else
		snprintf(buf, len, "-");
}

void nbw_analysis_print_latency(FILE *f, json_t *rows)
{
	if (!json_array_size(rows))
		return;
	fprintf(f, "\n  latency per API and path: copy us = median time of one sync copy at its "
		   "smallest size; chase ns/load = pointer chase (one thread's dependent loads, "
		   "random 64 B slots) at the smallest and largest working set\n");
	fprintf(f, "    %-5s %-5s %-10s %-8s %10s %7s %12s %12s %10s\n", "api", "dir", "host mem",
		"path", "copy us", "at B", "chase ns(s)", "chase ns(l)", "touched B");
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		char path[32], copy[24], at[24], cs[24], cl[24], touched[24];
		long long s = jint(r, "src", -1), d = jint(r, "dst", -1);
		if (s < 0)
			snprintf(path, sizeof(path), "h->%lld", d);
		else if (d < 0)
			snprintf(path, sizeof(path), "%lld->h", s);
		else
			snprintf(path, sizeof(path), "%lld->%lld", s, d);
		cell(copy, sizeof(copy), r, "copy_us", "%.2f");
		long long b = jint(r, "copy_us_bytes", -1);
		snprintf(at, sizeof(at), b >= 0 ? "%lld" : "-", b);
		cell(cs, sizeof(cs), r, "chase_small_ns", "%.2f");
		cell(cl, sizeof(cl), r, "chase_large_ns", "%.2f");
		long long t = jint(r, "chase_large_touched_bytes", -1);
		snprintf(touched, sizeof(touched), t >= 0 ? "%lld" : "-", t);
		fprintf(f, "    %-5s %-5s %-10s %-8s %10s %7s %12s %12s %10s\n", jstr(r, "api"),
			jstr(r, "direction"), jstr(r, "host_mem"), path, copy, at, cs, cl,
			touched);
	}
}
