/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading one measurement for the analyses: devices, link label, theoretical figure. */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/analysis.h"

const char *nbw_an_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

bool nbw_an_usable(json_t *m)
{
	json_t *ver = json_object_get(m, "verification");
	return json_is_object(m) && json_is_null(json_object_get(m, "error")) &&
	       strcmp(nbw_an_str(ver, "status"), "passed") == 0 &&
	       !json_object_get(m, "hht_sweep");
}

json_t *nbw_an_device(json_t *devices, const char *api, int id)
{
	size_t i;
	json_t *d;
	json_array_foreach(devices, i, d) {
		json_t *v = json_object_get(d, "id");
		if (json_is_integer(v) && json_integer_value(v) == id &&
		    strcmp(nbw_an_str(d, "api"), api) == 0)
			return d;
	}
	return NULL;
}

/* Is the device host memory (a host-plugin device, a host region)? A device the document
 * does not list counts as host memory only for the host API. */
static bool is_host_memory(json_t *devices, const char *api, int id)
{
	json_t *d = nbw_an_device(devices, api, id);
	if (!d)
		return strcmp(api, "host") == 0;
	const char *kind = nbw_an_str(d, "kind");
	return json_is_false(json_object_get(d, "is_gpu")) ||
	       strcmp(kind, "host-plugin") == 0 || strcmp(kind, "host-memory") == 0;
}

static int endpoint(json_t *stream, const char *key)
{
	json_t *v = json_object_get(stream, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

static double median_of(json_t *m, const char *key)
{
	json_t *s = json_object_get(json_object_get(m, key), "median");
	return json_is_number(s) ? json_number_value(s) : NAN;
}

bool nbw_an_read(json_t *devices, json_t *m, struct nbw_an_meas *out)
{
	memset(out, 0, sizeof(*out));
	json_t *streams = json_object_get(m, "streams"), *bytes = json_object_get(m, "bytes");
	if (!nbw_an_usable(m) || json_array_size(streams) == 0 || !json_is_integer(bytes))
		return false;
	out->m = m;
	out->api = nbw_an_str(m, "api");
	out->direction = nbw_an_str(m, "direction");
	out->mode = nbw_an_str(m, "mode");
	out->host_mem = nbw_an_str(m, "host_mem");
	out->concurrency = nbw_an_str(m, "concurrency");
	out->peer_access = nbw_an_str(m, "peer_access");
	out->bind = nbw_an_str(json_object_get(m, "binding"), "policy");
	out->bytes = json_integer_value(bytes);
	out->nstreams = (int)json_array_size(streams);
	out->src = endpoint(json_array_get(streams, 0), "src");
	out->dst = endpoint(json_array_get(streams, 0), "dst");
	out->gbps = median_of(m, "gbps");
	out->seconds = median_of(m, "seconds");
	json_t *hw = json_object_get(json_object_get(m, "median_ci"), "half_width_pct");
	json_t *conv = json_object_get(m, "converged");
	out->ci_half_width_pct = json_is_number(hw) ? json_number_value(hw) : NAN;
	out->converged = json_is_boolean(conv) ? json_is_true(conv) : -1;
	out->same_device = strcmp(out->direction, "p2p") == 0 && out->src == out->dst;
	for (int i = 0; i < out->nstreams; i++) {
		json_t *s = json_array_get(streams, (size_t)i);
		int ends[2] = { endpoint(s, "src"), endpoint(s, "dst") };
		for (int k = 0; k < 2; k++)
			if (ends[k] >= 0 && is_host_memory(devices, out->api, ends[k]))
				out->host_memory = true;
	}
	json_t *th = json_object_get(m, "theoretical");
	json_t *g = json_object_get(th, "gbps");
	const char *link = nbw_an_str(th, "link");
	out->theoretical = json_is_number(g) && json_number_value(g) > 0.0
				   ? json_number_value(g)
				   : -1.0;
	if (out->same_device) {
		snprintf(out->link, sizeof(out->link), "%s", NBW_SAME_DEVICE_LABEL);
		out->theoretical = -1.0;
	} else if (out->host_memory) {
		/* Host memory has no link, whatever an older writer put there. */
		snprintf(out->link, sizeof(out->link), "%s", NBW_HOST_MEMORY_LABEL);
		out->theoretical = -1.0;
	} else {
		snprintf(out->link, sizeof(out->link), "%s", *link ? link : "unknown");
	}
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_point(const void *a, const void *b)
{
	const struct nbw_an_point *x = a, *y = b;
	if (x->bytes != y->bytes)
		return (x->bytes > y->bytes) - (x->bytes < y->bytes);
	if (x->src != y->src)
		return (x->src > y->src) - (x->src < y->src);
	return (x->dst > y->dst) - (x->dst < y->dst);
}

json_int_t nbw_an_series_size(struct nbw_an_point *p, size_t n, json_int_t fallback)
{
	json_int_t best = fallback;
	size_t best_n = 0;
	qsort(p, n, sizeof(*p), cmp_point);
	for (size_t i = 0; i < n;) {
		size_t sets = 0, j = i;
		for (; j < n && p[j].bytes == p[i].bytes; j++)
			sets += j == i || cmp_point(&p[j], &p[j - 1]) != 0;
		if (sets >= best_n) { /* ascending: a tie goes to the larger size */
			best = p[i].bytes;
			best_n = sets;
		}
		i = j;
	}
	return best;
}

double nbw_an_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

json_t *nbw_an_num(double x, bool positive)
{
	if (!isfinite(x) || (positive && x <= 0.0))
		return json_null();
	return json_real(x);
}
