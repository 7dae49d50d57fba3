/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a results file states beside its samples, checked once where the file is loaded
 * (nbw_doc_load_buffer): every reader, `nodebw check` among them, then takes figures that
 * the samples support, ranges that a link can have and endpoints that are listed devices.
 *
 * - A summary (gbps, seconds, a stream's gbps, alone_gbps, device_gbps) of a measurement
 *   with samples holds the median, min and max that nbw_measurement_summarize computes from
 *   them, the writer's own function, to NBW_STORED_REL_TOL. A summary of no samples is the
 *   writer's all-zero one of a failed measurement, or (a reduced file, samples dropped) one
 *   whose figures are ordered and, for the measurement's gbps, the rates its seconds give.
 * - theoretical.gbps, where a number, is GB/s from NBW_THEORY_MIN_GBPS to
 *   NBW_THEORY_MAX_GBPS; so are the topology's host-link and pair figures.
 * - No repetition (nor a stream's) is faster than NBW_THEORY_MAX_GBPS: a sample such as
 *   1e-300 s is positive but no clock gave it.
 * - A stream's src and dst name a device the document lists for the measurement's API (or
 *   "host").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/results.h"
#include "nodebw/results_view.h"
#include "results_priv.h"

#define SUMMARY_MAX_S 86400.0

static bool close_to(double stored, double computed)
{
	return fabs(stored - computed) <= NBW_STORED_REL_TOL * fabs(computed);
}

static int fail(char *path, size_t plen, char *e, size_t elen, const char *at, const char *what)
{
	snprintf(path, plen, "%s", at);
	snprintf(e, elen, "%s", what);
	return -1;
}

/* A summary stored with samples: the figures nbw_measurement_summarize made of them. */
static int summary_with_samples(json_t *s, const char *at, const struct nbw_summary *c,
				const char *unit, char *path, size_t plen, char *e, size_t elen)
{
	static const char *const keys[] = {"median", "min", "max"};
	const double want[] = {c->median, c->min, c->max};
	for (size_t k = 0; k < 3; k++) {
		json_t *v = json_object_get(s, keys[k]);
		char p[96], w[200];
		snprintf(p, sizeof(p), "%s.%s", at, keys[k]);
		if (json_is_number(v) && close_to(json_number_value(v), want[k]))
			continue;
		if (json_is_number(v))
			snprintf(w, sizeof(w), "%s: %.6g %s disagrees with its samples, which give "
				 "%.6g %s", p, json_number_value(v), unit, want[k], unit);
		else
			snprintf(w, sizeof(w), "%s: not a number, where its samples give %.6g %s", p,
				 want[k], unit);
		return fail(path, plen, e, elen, p, w);
	}
	return 0;
}

/* A summary stored without samples: the writer's zeros (n 0), or ordered figures from 0
 * (excluded) to \p most (a reduced file). \p n_out gets its n (0 for none). */
static int summary_no_samples(json_t *s, const char *at, double most, json_int_t *n_out,
			      char *path, size_t plen, char *e, size_t elen)
{
	char p[96], w[200];
	*n_out = 0;
	if (!s || json_is_null(s))
		return 0;
	json_t *n = json_object_get(s, "n");
	snprintf(p, sizeof(p), "%s.n", at);
	if (!json_is_object(s) || (n && !(json_is_integer(n) && json_integer_value(n) >= 0))) {
		snprintf(w, sizeof(w), "%s: not a count of samples", p);
		return fail(path, plen, e, elen, p, w);
	}
	*n_out = n ? json_integer_value(n) : 0;
	double v[3];
	static const char *const keys[] = {"median", "min", "max"};
	for (size_t k = 0; k < 3; k++) {
		json_t *x = json_object_get(s, keys[k]);
		v[k] = json_is_number(x) ? json_number_value(x) : NAN;
		snprintf(p, sizeof(p), "%s.%s", at, keys[k]);
		if (*n_out == 0 && x && !json_is_null(x) && v[k] != 0.0) {
			snprintf(w, sizeof(w), "%s: a figure with no samples behind it", p);
			return fail(path, plen, e, elen, p, w);
		}
		if (*n_out > 0 && !(v[k] > 0.0 && v[k] <= most)) {
			snprintf(w, sizeof(w), "%s: not a figure from 0 (excluded) to %g", p, most);
			return fail(path, plen, e, elen, p, w);
		}
	}
	if (*n_out > 0 && !(v[1] <= v[0] * (1 + NBW_STORED_REL_TOL) &&
			    v[0] <= v[2] * (1 + NBW_STORED_REL_TOL))) {
		snprintf(p, sizeof(p), "%s.median", at);
		snprintf(w, sizeof(w), "%s: not between its min and max", p);
		return fail(path, plen, e, elen, p, w);
	}
	return 0;
}

/* A reduced measurement's gbps against its seconds: the per-repetition rates of those
 * times (the median rate is at least total / the median time, equal for an odd count). */
static int rates_of_times(json_t *m, const struct nbw_measurement *x, char *path, size_t plen,
			  char *e, size_t elen)
{
	json_int_t ng, ns;
	json_t *g = json_object_get(m, "gbps"), *s = json_object_get(m, "seconds");
	if (summary_no_samples(g, "gbps", NBW_THEORY_MAX_GBPS, &ng, path, plen, e, elen) ||
	    summary_no_samples(s, "seconds", SUMMARY_MAX_S, &ns, path, plen, e, elen))
		return -1;
	if (ng == 0)
		return 0;
	double total = (double)x->bytes * (x->nstreams ? x->nstreams : 1) / 1e9;
	double gmed = jnum(g, "median"), gmin = jnum(g, "min"), gmax = jnum(g, "max");
	double smed = jnum(s, "median"), smin = jnum(s, "min"), smax = jnum(s, "max");
	double t = 1 + NBW_STORED_REL_TOL;
	const char *bad = ns != ng ? "gbps.n"
			  : !close_to(gmin, total / smax) ? "gbps.min"
			  : !close_to(gmax, total / smin) ? "gbps.max"
			  : !(total / smed <= gmed * t) ? "gbps.median" : NULL;
	if (!bad)
		return 0;
	char w[200];
	snprintf(w, sizeof(w), "%s: disagrees with the times in 'seconds' (%.6g B in %.6g s is "
		 "%.6g GB/s)", bad, total * 1e9, smed, total / smed);
	return fail(path, plen, e, elen, bad, w);
}

/* A repetition whose rate no link reaches (its time absurdly short for its bytes): the
 * fastest repetition's GB/s at most NBW_THEORY_MAX_GBPS. */
static int rate_possible(const char *at, double fastest_gbps, char *path, size_t plen,
			 char *e, size_t elen)
{
	if (!(fastest_gbps > NBW_THEORY_MAX_GBPS))
		return 0;
	char w[200];
	snprintf(w, sizeof(w), "%s: a repetition at %.6g GB/s, beyond any link (at most %g GB/s): "
		 "its time is too short for its bytes", at, fastest_gbps, NBW_THEORY_MAX_GBPS);
	return fail(path, plen, e, elen, at, w);
}

static int summaries(json_t *m, const struct nbw_measurement *x, char *path, size_t plen,
		     char *e, size_t elen)
{
	if (x->n && rate_possible("samples_s", x->gbps.max, path, plen, e, elen))
		return -1;
	for (unsigned i = 0; i < x->nstreams; i++) {
		const struct nbw_stream *s = &x->streams[i];
		char at[64];
		snprintf(at, sizeof(at), "streams[%u].samples_s", i);
		if ((s->n && rate_possible(at, s->gbps.max, path, plen, e, elen)) ||
		    (s->n_alone && rate_possible(at, s->alone_gbps.max, path, plen, e, elen)) ||
		    (s->n_device && rate_possible(at, s->device_gbps.max, path, plen, e, elen)))
			return -1;
	}
	if (x->n) {
		if (summary_with_samples(json_object_get(m, "gbps"), "gbps", &x->gbps, "GB/s", path,
					 plen, e, elen) ||
		    summary_with_samples(json_object_get(m, "seconds"), "seconds", &x->seconds, "s",
					 path, plen, e, elen))
			return -1;
	} else if (rates_of_times(m, x, path, plen, e, elen)) {
		return -1;
	}
	json_t *streams = json_object_get(m, "streams");
	for (unsigned i = 0; i < x->nstreams; i++) {
		const struct nbw_stream *s = &x->streams[i];
		json_t *js = json_array_get(streams, i);
		static const char *const keys[] = {"gbps", "alone_gbps", "device_gbps"};
		const struct nbw_summary *c[] = {&s->gbps, &s->alone_gbps, &s->device_gbps};
		const size_t n[] = {s->n, s->n_alone, s->n_device};
		for (size_t k = 0; k < 3; k++) {
			char at[64];
			json_int_t cnt;
			snprintf(at, sizeof(at), "streams[%u].%s", i, keys[k]);
			if (n[k] ? summary_with_samples(json_object_get(js, keys[k]), at, c[k],
							"GB/s", path, plen, e, elen)
				 : summary_no_samples(json_object_get(js, keys[k]), at,
						      NBW_THEORY_MAX_GBPS, &cnt, path, plen, e,
						      elen))
				return -1;
		}
	}
	return 0;
}

bool nbw_theory_gbps_ok(double g)
{
	return isfinite(g) && g >= NBW_THEORY_MIN_GBPS && g <= NBW_THEORY_MAX_GBPS;
}

/* A theoretical figure at \p key of \p o: absent, null or GB/s in range. */
static int theory(json_t *o, const char *key, const char *at, char *path, size_t plen, char *e,
		  size_t elen)
{
	json_t *g = json_object_get(o, key);
	if (!g || json_is_null(g) || (json_is_number(g) && nbw_theory_gbps_ok(json_number_value(g))))
		return 0;
	char w[200];
	snprintf(w, sizeof(w), "%s: not GB/s from %g to %g (or null: not known)", at,
		 NBW_THEORY_MIN_GBPS, NBW_THEORY_MAX_GBPS);
	return fail(path, plen, e, elen, at, w);
}

static int endpoints(json_t *devices, const struct nbw_measurement *x, char *path, size_t plen,
		     char *e, size_t elen)
{
	for (unsigned i = 0; i < x->nstreams; i++) {
		const int ends[2] = {x->streams[i].src_device, x->streams[i].dst_device};
		for (int k = 0; k < 2; k++) {
			if (ends[k] < 0 || nbw_rv_device_find(devices, x->api, ends[k], NULL))
				continue;
			char at[48], w[200];
			snprintf(at, sizeof(at), "streams[%u].%s", i, k ? "dst" : "src");
			snprintf(w, sizeof(w), "%s: %s device %d is not one of the devices listed",
				 at, x->api, ends[k]);
			return fail(path, plen, e, elen, at, w);
		}
	}
	return 0;
}

int nbw_results_check_measurement(json_t *devices, json_t *m, const struct nbw_measurement *x,
				  char *path, size_t plen, char *e, size_t elen)
{
	if (endpoints(devices, x, path, plen, e, elen) ||
	    theory(json_object_get(m, "theoretical"), "gbps", "theoretical.gbps", path, plen, e,
		   elen))
		return -1;
	return summaries(m, x, path, plen, e, elen);
}

int nbw_results_check_topology(json_t *topo, char *path, size_t plen, char *e, size_t elen)
{
	size_t i;
	json_t *o;
	char at[96];
	json_array_foreach(json_object_get(topo, "devices"), i, o) {
		snprintf(at, sizeof(at), "topology.devices[%zu].host_link.theoretical_gbps", i);
		if (theory(json_object_get(o, "host_link"), "theoretical_gbps", at, path, plen, e,
			   elen))
			return -1;
	}
	json_array_foreach(json_object_get(topo, "pairs"), i, o) {
		snprintf(at, sizeof(at), "topology.pairs[%zu].theoretical_gbps", i);
		if (theory(o, "theoretical_gbps", at, path, plen, e, elen))
			return -1;
		snprintf(at, sizeof(at), "topology.pairs[%zu].pcie.theoretical_gbps", i);
		if (theory(json_object_get(o, "pcie"), "theoretical_gbps", at, path, plen, e, elen))
			return -1;
	}
	return 0;
}
