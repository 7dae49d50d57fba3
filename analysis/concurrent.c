/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every device at once (host-to-all, all-to-host), the P2P ring and all-to-all: at the run's comparison
 * size (nbw_analysis_comparison_bytes), the aggregate against three references: the sum of each stream timed alone
 * (how well the copies scale), the sum of the links' theoretical figures (what the wires
 * could carry) and the host memory measured alone, which the host backend measures with one
 * copy spread over every core (mode parallel). Of the last two, the lower one the aggregate
 * stays within is the bound; a reference the aggregate exceeds is no bound (the host-memory
 * reference is one measurement, taken at another moment: four copies at once have moved
 * more), and the verdict says so with the percentage instead.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "nodebw/analysis.h"
#include "nodebw/sizes.h"

static bool concurrent(const struct nbw_rv_meas *x)
{
	return !strcmp(x->concurrency, "all") || !strcmp(x->concurrency, "ring") ||
	       !strcmp(x->concurrency, "a2a");
}

static bool same_series(const struct nbw_rv_meas *a, const struct nbw_rv_meas *b)
{
	return !strcmp(a->api, b->api) && !strcmp(a->direction, b->direction) &&
	       !strcmp(a->mode, b->mode) && !strcmp(a->host_mem, b->host_mem) &&
	       !strcmp(a->concurrency, b->concurrency) && !strcmp(a->peer_access, b->peer_access) &&
	       !strcmp(a->bind, b->bind);
}

/* Measurement \p m into \p x when the analyses can use it (nbw_rv_meas_usable). */
static bool usable(json_t *devices, json_t *m, struct nbw_rv_meas *x)
{
	return nbw_rv_meas_read(devices, m, x) && nbw_rv_meas_usable(x);
}

/* A stream's end as the document names it: a device id or "host". */
static json_t *end_json(int id)
{
	return id < 0 ? json_string("host") : json_integer(id);
}

/* The host-memory reference for a direction: the host backend's one copy over every core
 * (mode parallel, one stream) at the aggregate's size (the comparison size: a reference at
 * another size would compare two sizes), the same host memory kind if measured; of its
 * regions, the highest: what the host's memory was seen to move for one copy (a slow
 * region, itself an outlier, would make every aggregate look above the reference). */
static double host_reference(json_t *devices, json_t *ms, const struct nbw_rv_meas *x,
			     const char **mem_used)
{
	double best = NAN;
	json_int_t best_bytes = -1;
	bool best_same = false;
	size_t i;
	json_t *m;
	json_array_foreach(ms, i, m) {
		struct nbw_rv_meas h;
		if (!usable(devices, m, &h) || strcmp(h.api, "host") ||
		    strcmp(h.mode, "parallel") || strcmp(h.concurrency, "single") ||
		    strcmp(h.direction, x->direction) || !isfinite(h.gbps) || h.bytes != x->bytes)
			continue;
		bool same = !strcmp(h.host_mem, x->host_mem);
		if ((same && !best_same) ||
		    (same == best_same && (h.bytes > best_bytes || !(h.gbps <= best)))) {
			best = h.gbps;
			best_bytes = h.bytes;
			best_same = same;
			*mem_used = h.host_mem;
		}
	}
	return best;
}

/* What the aggregate \p agg was measured against, in words (\p out), and the bound that
 * supports: the lower of the links' theoretical sum and the host-memory reference among
 * those the aggregate stays within; NULL when it exceeds every known one or none is known. */
static const char *verdict(double agg, double links, double host, char *out, size_t len)
{
	const char *bound = NULL;
	double lf = agg / links, hf = agg / host;
	int k = 0;
	out[0] = '\0';
	if (isfinite(hf) && hf > 1.0)
		k += snprintf(out, len, "above the host-memory reference measured alone (%.1f %%)",
			      100.0 * hf);
	if (isfinite(lf) && lf > 1.0 && k >= 0 && (size_t)k < len)
		k += snprintf(out + k, len - (size_t)k, "%sabove the links' theoretical sum (%.1f %%)",
			      k ? "; " : "", 100.0 * lf);
	bool by_links = isfinite(lf) && lf <= 1.0, by_host = isfinite(hf) && hf <= 1.0;
	if (by_links && (!by_host || links <= host))
		bound = "links";
	else if (by_host)
		bound = "host memory";
	if (bound && k >= 0 && (size_t)k < len)
		snprintf(out + k, len - (size_t)k, "%s%.1f %% of %s", k ? "; " : "",
			 100.0 * (by_links && bound[0] == 'l' ? lf : hf),
			 bound[0] == 'l' ? "the links' theoretical sum"
					 : "the host-memory reference measured alone");
	else if (!isfinite(lf) && !isfinite(hf))
		snprintf(out, len, "no reference known");
	return bound;
}

static json_t *one(json_t *devices, json_t *ms, const struct nbw_rv_meas *x)
{
	json_t *devs = json_array(), *out = json_array();
	double alone_sum = 0.0, slow = INFINITY;
	bool alone_known = true;
	int slow_src = -1, slow_dst = -1;
	for (int i = 0; i < x->nstreams; i++) {
		const struct nbw_rv_stream *s = &x->streams[i];
		double g = s->gbps, a = s->alone_gbps;
		/* Each device once (all-to-all names every device n - 1 times). */
		int dev = s->dst >= 0 ? s->dst : s->src;
		bool seen = false;
		for (int k = 0; k < i && !seen; k++)
			seen = (x->streams[k].dst >= 0 ? x->streams[k].dst : x->streams[k].src) == dev;
		if (!seen)
			json_array_append_new(devs, end_json(dev));
		json_array_append_new(out, json_pack("{s:o, s:o, s:o, s:o}", "src",
						     end_json(s->src), "dst", end_json(s->dst),
						     "gbps", nbw_an_num(g, true), "alone_gbps",
						     nbw_an_num(a, true)));
		if (isfinite(a))
			alone_sum += a;
		else
			alone_known = false;
		if (isfinite(g) && g < slow) {
			slow = g;
			slow_src = s->src;
			slow_dst = s->dst;
		}
	}
	const char *mem_used = "";
	bool p2p = !strcmp(x->direction, "p2p");
	/* Host memory bounds what crosses it: every host<->device copy, and copies between
	 * host-plugin devices (which are host memory); not a GPU ring. */
	double ref = !p2p || x->host_memory ? host_reference(devices, ms, x, &mem_used) : NAN;
	double links = x->theoretical > 0.0 ? x->theoretical : NAN;
	char said[200];
	const char *bound = verdict(x->gbps, links, ref, said, sizeof(said));
	const char *pattern = p2p ? (!strcmp(x->concurrency, "a2a") ? "all-to-all" : "ring")
			      : !strcmp(x->direction, "htod") ? "host-to-all"
							      : "all-to-host";
	json_t *o = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:s, s:o, "
		"s:o, s:o, s:o, s:o, s:s}",
		"pattern", pattern, "api", x->api, "direction", x->direction, "mode", x->mode,
		"host_mem", x->host_mem, "concurrency", x->concurrency, "peer_access",
		x->peer_access, "binding", x->bind, "bytes", (json_int_t)x->bytes, "devices", devs,
		"streams", out, "aggregate_gbps", nbw_an_num(x->gbps, true), "alone_sum_gbps",
		nbw_an_num(alone_known ? alone_sum : NAN, true), "scaling",
		nbw_an_num(alone_known && alone_sum > 0 ? x->gbps / alone_sum : NAN, true), "link",
		x->link, "links_theoretical_gbps", nbw_an_num(links, true),
		"fraction_of_links", nbw_an_num(x->gbps / links, true), "host_memory_limit_gbps",
		nbw_an_num(ref, true), "fraction_of_host_limit",
		nbw_an_num(x->gbps / ref, true), "bound",
		bound ? json_string(bound) : json_null(), "verdict", said);
	double ci_lo, ci_hi;
	if (nbw_rv_meas_ci_gbps(x, &ci_lo, &ci_hi)) {
		json_object_set_new(o, "aggregate_ci_lo_gbps", json_real(ci_lo));
		json_object_set_new(o, "aggregate_ci_hi_gbps", json_real(ci_hi));
	}
	json_object_set_new(o, "host_limit_host_mem",
			    isfinite(ref) ? json_string(mem_used) : json_null());
	json_object_set_new(o, "slowest",
			    isfinite(slow) ? json_pack("{s:o, s:o, s:f}", "src",
						       slow_src < 0 ? json_string("host")
								    : json_integer(slow_src),
						       "dst",
						       slow_dst < 0 ? json_string("host")
								    : json_integer(slow_dst),
						       "gbps", slow)
					   : json_null());
	return o;
}

json_t *nbw_analysis_concurrent(json_t *devices, json_t *measurements)
{
	return nbw_analysis_concurrent_at(devices, measurements,
					  nbw_analysis_comparison_bytes(devices, measurements));
}

json_t *nbw_analysis_concurrent_at(json_t *devices, json_t *measurements, long long cmp)
{
	json_t *res = json_array();
	size_t n = json_array_size(measurements), i;
	struct nbw_rv_meas *best = calloc(n ? n : 1, sizeof(*best));
	size_t nb = 0;
	json_t *m;
	if (!best)
		return res;
	json_array_foreach(measurements, i, m) {
		struct nbw_rv_meas x;
		if (!usable(devices, m, &x) || !concurrent(&x) || !isfinite(x.gbps) ||
		    x.bytes != cmp)
			continue;
		size_t k = 0;
		while (k < nb && !same_series(&best[k], &x))
			k++;
		if (k == nb)
			best[nb++] = x;
	}
	for (size_t k = 0; k < nb; k++)
		json_array_append_new(res, one(devices, measurements, &best[k]));
	free(best);
	return res;
}

static const char *s_of(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void num(FILE *f, json_t *o, const char *k, const char *fmt, int width)
{
	json_t *v = json_object_get(o, k);
	if (json_is_number(v))
		fprintf(f, fmt, width, json_number_value(v));
	else
		fprintf(f, "%*s", width, "-");
}

static void endpoint(char *buf, size_t len, json_t *v)
{
	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else
		snprintf(buf, len, "host");
}

void nbw_analysis_print_concurrent(FILE *f, json_t *rows)
{
	if (json_array_size(rows) == 0)
		return;
	char sz[32];
	nbw_size_label((uint64_t)json_integer_value(json_object_get(json_array_get(rows, 0), "bytes")),
		       sz, sizeof(sz));
	fprintf(f, "\n  Every device at once (GB/s = 1e9 B/s, at %s, the comparison size; aggregate = "
		   "all streams' bytes / wall time; scaling = aggregate / sum of each stream "
		   "alone; links = sum of the links' theoretical figures; host mem = the host "
		   "backend's one copy over every core, measured alone; bound = the lower of the "
		   "two that the aggregate stays within, - = none)\n", sz);
	fprintf(f, "    %-5s %-12s %-8s %-10s %4s %9s %9s %7s %9s %6s %9s %6s  %-11s %-18s %s\n",
		"api", "pattern", "mode", "memory", "devs", "aggregate", "sum alone", "scaling",
		"links", "frac", "host mem", "frac", "bound", "slowest stream", "measured");
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		char peer[24] = "";
		if (strcmp(s_of(r, "peer_access"), "n/a"))
			snprintf(peer, sizeof(peer), " peer %s", s_of(r, "peer_access"));
		fprintf(f, "    %-5s %-12s %-8s %-10s %4zu ", s_of(r, "api"), s_of(r, "pattern"),
			s_of(r, "mode"), s_of(r, "host_mem"),
			json_array_size(json_object_get(r, "devices")));
		num(f, r, "aggregate_gbps", "%*.2f", 9);
		fputc(' ', f);
		num(f, r, "alone_sum_gbps", "%*.2f", 9);
		fputc(' ', f);
		num(f, r, "scaling", "%*.2f", 7);
		fputc(' ', f);
		num(f, r, "links_theoretical_gbps", "%*.1f", 9);
		fputc(' ', f);
		num(f, r, "fraction_of_links", "%*.2f", 6);
		fputc(' ', f);
		num(f, r, "host_memory_limit_gbps", "%*.2f", 9);
		fputc(' ', f);
		num(f, r, "fraction_of_host_limit", "%*.2f", 6);
		json_t *sl = json_object_get(r, "slowest");
		char a[16], b[16], slow[64];
		endpoint(a, sizeof(a), json_object_get(sl, "src"));
		endpoint(b, sizeof(b), json_object_get(sl, "dst"));
		snprintf(slow, sizeof(slow), "%s->%s %.2f%s", a, b,
			 json_number_value(json_object_get(sl, "gbps")), peer);
		fprintf(f, "  %-11s %-18s %s\n", *s_of(r, "bound") ? s_of(r, "bound") : "-", slow,
			s_of(r, "verdict"));
	}
}
