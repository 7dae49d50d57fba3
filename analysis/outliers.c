/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The outlier rule (include/nodebw/analysis.h, doc/analysis.md): at the comparison size, a
 * device or pair whose bandwidth is more than 10 % below the median of its peers of the same
 * link kind and below it by more than its own 95 % interval, or below 70 % of its
 * theoretical figure, is flagged with the reason.
 *
 * Like is compared with like: each series (api, direction, mode, host_mem, concurrency,
 * peer_access, binding) is judged at the run's comparison size
 * (nbw_analysis_comparison_bytes), and its measurements there are grouped by
 * link kind (the link label: NV18, PCIe Gen5 x16, NODE, ...). A member's peers are the
 * other members of its group; the median rule applies only to groups of at least
 * NBW_OUTLIER_MIN_GROUP members, the theoretical rule whenever a theoretical figure is
 * known (never for host memory). Same-device copies are not peer links and are left out.
 * Host memory (host-plugin devices, host regions) is judged by the median rule like any
 * other kind: its members share one physical memory and one link label, so a member far
 * below its peers is a slow path of the API (a staging buffer, a helper thread), which is
 * what the rule is there to show.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "nodebw/analysis.h"
#include "nodebw/sizes.h"

struct cand {
	struct nbw_rv_meas x;
	char series[160];
	size_t order;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *p = a, *q = b;
	int c = strcmp(p->series, q->series);
	if (c)
		return c;
	if (p->x.bytes != q->x.bytes)
		return p->x.bytes > q->x.bytes ? -1 : 1; /* largest size first */
	c = strcmp(p->x.link, q->x.link);
	if (c)
		return c;
	return (p->order > q->order) - (p->order < q->order);
}

static bool same_group(const struct cand *a, const struct cand *b)
{
	return !strcmp(a->series, b->series) && a->x.bytes == b->x.bytes &&
	       !strcmp(a->x.link, b->x.link);
}

static const char *what_of(const struct nbw_rv_meas *x)
{
	if (strcmp(x->direction, "p2p") == 0)
		return "pair";
	return x->nstreams > 1 ? "devices" : "device";
}

/* "3->6", "3<->6", "5", "0+1". */
static void where_of(const struct nbw_rv_meas *x, char *buf, size_t len)
{
	if (strcmp(x->direction, "p2p") == 0)
		snprintf(buf, len, "%d%s%d", x->src, x->nstreams > 1 ? "<->" : "->", x->dst);
	else {
		bool htod = strcmp(x->direction, "htod") == 0;
		size_t o = 0;
		buf[0] = '\0';
		for (int i = 0; i < x->nstreams; i++) {
			const struct nbw_rv_stream *s = &x->streams[i];
			if (o < len)
				o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? "+" : "",
						      htod ? s->dst : s->src);
		}
	}
}

static json_t *devices_of(const struct nbw_rv_meas *x)
{
	json_t *a = json_array();
	for (int i = 0; i < x->nstreams; i++) {
		int ends[2] = { x->streams[i].src, x->streams[i].dst };
		for (int k = 0; k < 2; k++) {
			if (ends[k] < 0) /* host */
				continue;
			bool seen = false;
			for (size_t j = 0; j < json_array_size(a); j++)
				seen = seen || json_integer_value(json_array_get(a, j)) == ends[k];
			if (!seen)
				json_array_append_new(a, json_integer(ends[k]));
		}
	}
	return a;
}

static json_t *outlier(const struct nbw_rv_meas *x, double med, int peers, bool by_median,
		       bool by_theory)
{
	char where[64], reason[768];
	size_t o;
	where_of(x, where, sizeof(where));
	o = (size_t)snprintf(reason, sizeof(reason), "%s %s (%s %s %s", what_of(x), where,
			     x->api, x->direction, x->mode);
	if (strcmp(x->host_mem, "none") != 0)
		o += (size_t)snprintf(reason + o, sizeof(reason) - o, " %s", x->host_mem);
	if (strcmp(x->concurrency, "single") != 0)
		o += (size_t)snprintf(reason + o, sizeof(reason) - o, " %s", x->concurrency);
	if (strcmp(x->peer_access, "n/a") != 0)
		o += (size_t)snprintf(reason + o, sizeof(reason) - o, ", peer access %s",
				      x->peer_access);
	char sz[32];
	nbw_size_label(x->bytes > 0 ? (uint64_t)x->bytes : 0, sz, sizeof(sz));
	o += (size_t)snprintf(reason + o, sizeof(reason) - o, ", %s, %s): %.2f GB/s", sz,
			      x->link, x->gbps);
	if (by_median && o < sizeof(reason))
		o += (size_t)snprintf(reason + o, sizeof(reason) - o,
				      " is %.1f %% below the median %.1f GB/s of its %d peers of "
				      "the same link kind (more than 10 %%)",
				      100.0 * (1.0 - x->gbps / med), med, peers);
	if (by_theory && o < sizeof(reason))
		snprintf(reason + o, sizeof(reason) - o,
			 "%s is %.1f %% of its theoretical %.1f GB/s (below 70 %%)",
			 by_median ? ", and" : "", 100.0 * x->gbps / x->theoretical,
			 x->theoretical);
	json_t *rules = json_array();
	if (by_median)
		json_array_append_new(rules, json_string("peer-median"));
	if (by_theory)
		json_array_append_new(rules, json_string("theoretical"));
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:s, s:f}",
			      "what", what_of(x), "where", where, "api", x->api, "direction",
			      x->direction, "mode", x->mode, "host_mem", x->host_mem,
			      "concurrency", x->concurrency, "peer_access", x->peer_access,
			      "bytes", (json_int_t)x->bytes, "devices", devices_of(x), "link",
			      x->link, "gbps", x->gbps);
	json_object_set_new(j, "peer_median_gbps", nbw_an_num(med, false));
	json_object_set_new(j, "peers", json_integer(peers));
	json_object_set_new(j, "theoretical_gbps", nbw_an_num(x->theoretical, true));
	json_object_set_new(j, "fraction", x->theoretical > 0.0
						   ? nbw_an_num(x->gbps / x->theoretical, false)
						   : json_null());
	json_object_set_new(j, "rules", rules);
	json_object_set_new(j, "reason", json_string(reason));
	return j;
}

static json_t *group_info(const struct cand *c, size_t n, double med_all, int with_theory)
{
	const struct nbw_rv_meas *x = &c->x;
	bool median_rule = n >= NBW_OUTLIER_MIN_GROUP;
	char note[256];
	if (median_rule && x->host_memory)
		snprintf(note, sizeof(note), "%zu members in host memory: median rule (one "
					     "physical memory, so a member far below its peers is a "
					     "slow path of the API, not a slow link)", n);
	else if (median_rule)
		snprintf(note, sizeof(note), "%zu members: median rule and, where known, the "
					     "theoretical rule", n);
	else
		snprintf(note, sizeof(note), "%zu member%s, fewer than %d: median rule not applied; "
					     "only the theoretical rule (%s)", n, n == 1 ? "" : "s",
			 NBW_OUTLIER_MIN_GROUP,
			 with_theory ? "theoretical figure known" : "no theoretical figure: "
								   "nothing can be flagged");
	json_t *g = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:i, s:b, s:i, s:s}",
			      "api", x->api, "direction", x->direction, "mode", x->mode,
			      "host_mem", x->host_mem, "concurrency", x->concurrency,
			      "peer_access", x->peer_access, "bytes", (json_int_t)x->bytes,
			      "link", x->link, "members", (int)n, "median_rule", median_rule,
			      "with_theoretical", with_theory, "note", note);
	json_object_set_new(g, "median_gbps", nbw_an_num(med_all, false));
	return g;
}

json_t *nbw_analysis_outliers(json_t *devices, json_t *measurements, json_t **groups)
{
	return nbw_analysis_outliers_at(devices, measurements,
					nbw_analysis_comparison_bytes(devices, measurements), groups);
}

json_t *nbw_analysis_outliers_at(json_t *devices, json_t *measurements, long long cmp_bytes,
				 json_t **groups)
{
	json_t *out = json_array(), *m;
	json_t *gout = groups ? json_array() : NULL;
	size_t nm = json_array_size(measurements), n = 0, i;
	struct cand *c = nm ? calloc(nm, sizeof(*c)) : NULL;
	double *v = nm ? calloc(nm, sizeof(*v)) : NULL;
	if (groups)
		*groups = gout;
	if (!c || !v) {
		free(c);
		free(v);
		return out;
	}
	json_array_foreach(measurements, i, m) {
		struct cand *k = &c[n];
		/* Every device at once is judged against the sum of its links and the host's
		 * memory (nbw_analysis_concurrent), not as one device among peers. */
		if (!nbw_rv_meas_read(devices, m, &k->x) || !nbw_rv_meas_usable(&k->x) ||
		    k->x.same_device || !isfinite(k->x.gbps) || !strcmp(k->x.concurrency, "all") ||
		    !strcmp(k->x.concurrency, "ring") || !strcmp(k->x.concurrency, "a2a"))
			continue;
		snprintf(k->series, sizeof(k->series), "%s|%s|%s|%s|%s|%s|%s", k->x.api,
			 k->x.direction, k->x.mode, k->x.host_mem, k->x.concurrency,
			 k->x.peer_access, k->x.bind);
		k->order = i;
		n++;
	}
	qsort(c, n, sizeof(*c), cmp_cand);
	json_int_t cmp = cmp_bytes;
	for (size_t a = 0; a < n;) {
		/* c[a] starts a series, sizes in descending order; it is judged at the run's
		 * comparison size, the size its matrix or table is read at (a long sweep takes
		 * device 0 and the first pair beyond it; that is a sweep, not a peer). */
		size_t s_end = a;
		while (s_end < n && strcmp(c[s_end].series, c[a].series) == 0)
			s_end++;
		json_int_t judged = cmp;
		size_t first = a;
		while (first < s_end && c[first].x.bytes != judged)
			first++;
		for (size_t g = first; g < s_end && c[g].x.bytes == judged;) {
			size_t e = g, members;
			while (e < s_end && same_group(&c[e], &c[g]))
				e++;
			members = e - g;
			int with_theory = 0;
			for (size_t k = g; k < e; k++) {
				v[k - g] = c[k].x.gbps;
				with_theory += c[k].x.theoretical > 0.0;
			}
			double med_all = nbw_an_median(v, members);
			for (size_t k = g; k < e; k++) {
				const struct nbw_rv_meas *x = &c[k].x;
				double med = NAN;
				if (members >= NBW_OUTLIER_MIN_GROUP) {
					size_t q = 0;
					for (size_t o = g; o < e; o++)
						if (o != k)
							v[q++] = c[o].x.gbps;
					med = nbw_an_median(v, q);
				}
				/* Below by more than 10 %, and by more than its own 95 %
				 * interval where it has one: on a noisy machine a median that
				 * did not settle is not called slow on its noise. */
				double top = isfinite(x->ci_hi_gbps) ? fmax(x->ci_hi_gbps, x->gbps)
								     : x->gbps;
				bool by_median = isfinite(med) &&
						 top < NBW_OUTLIER_PEER_FRACTION * med;
				bool by_theory = x->theoretical > 0.0 &&
						 x->gbps < NBW_OUTLIER_THEORETICAL_FRACTION *
								   x->theoretical;
				if (by_median || by_theory)
					json_array_append_new(
						out, outlier(x, med, isfinite(med) ? (int)members - 1 : 0,
							     by_median, by_theory));
			}
			if (gout)
				json_array_append_new(gout, group_info(&c[g], members, med_all,
								       with_theory));
			g = e;
		}
		a = s_end;
	}
	free(c);
	free(v);
	return out;
}
