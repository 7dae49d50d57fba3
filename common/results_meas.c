/* SPDX-License-Identifier: BSD-3-Clause */
/* One measurement of the results document: its summaries, and it to and from JSON (with
 * every field checked as it is read back). */
#include "nodebw/results.h"
#include "results_priv.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/limits.h"

static void free_stream(struct nbw_stream *s)
{
	free(s->samples_s);
	free(s->alone_samples_s);
	free(s->device_samples_s);
	memset(s, 0, sizeof(*s));
}

void nbw_measurement_free(struct nbw_measurement *m)
{
	free(m->samples_s);
	m->samples_s = NULL;
	m->n = 0;
	for (unsigned i = 0; i < NBW_MAX_STREAMS; i++)
		free_stream(&m->streams[i]);
}

static void summarize_rates(const double *s, size_t n, double bytes, struct nbw_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	double *r = malloc(n * sizeof(*r));
	if (!r)
		return;
	nbw_rates_gbps(s, n, bytes, r);
	nbw_summarize(r, n, out);
	free(r);
}

void nbw_measurement_summarize(struct nbw_measurement *m)
{
	double total = m->face.has ? (double)nbw_face_rec_step_bytes(&m->face, m->nstreams)
				   : (double)m->bytes * (m->nstreams ? m->nstreams : 1);
	summarize_rates(m->samples_s, m->n, total, &m->gbps);
	if (m->n)
		nbw_summarize(m->samples_s, m->n, &m->seconds);
	/* The interval of the median time (at the level a document asked for, else ours). */
	double level = m->ci.level > 0.0 && m->ci.level < 1.0 ? m->ci.level : NBW_CI_LEVEL;
	nbw_median_ci_of(m->samples_s, m->n, level, &m->ci);
	m->converged = m->ci.n && nbw_ci_converged(m->ci.coverage, m->ci.half_width);
	for (unsigned i = 0; i < m->nstreams; i++) {
		struct nbw_stream *s = &m->streams[i];
		double b = m->face.has ? (double)nbw_face_rec_stream_bytes(&m->face, i)
				       : (double)m->bytes;
		summarize_rates(s->samples_s, s->n, b, &s->gbps);
		summarize_rates(s->alone_samples_s, s->n_alone, b, &s->alone_gbps);
		summarize_rates(s->device_samples_s, s->n_device, b, &s->device_gbps);
	}
}

/* ---- JSON conversion ---------------------------------------------------------------- */

static json_t *array_of(const double *x, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(x[i]));
	return a;
}

static json_t *summary_json(const struct nbw_summary *s)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "n", (json_int_t)s->n, "median",
			 s->median, "min", s->min, "max", s->max, "mean", s->mean, "sd", s->sd,
			 "cv", s->cv);
}

/* The interval of the median: in seconds from the samples, in GB/s the same order
 * statistics of the rates (the slowest time is the lowest rate). */
static json_t *median_ci_json(const struct nbw_measurement *m)
{
	const struct nbw_median_ci *c = &m->ci;
	double total = (double)m->bytes * (m->nstreams ? m->nstreams : 1), lo_gbps, hi_gbps;
	if (!nbw_median_ci_gbps(c, total, &lo_gbps, &hi_gbps))
		return json_null();
	char method[96];
	snprintf(method, sizeof(method), "order statistics (binomial ranks %zu,%zu of %zu)", c->j,
		 c->k, c->n);
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:[I, I], s:s}", "level", c->level,
			 "coverage", c->coverage, "lo_s", c->lo, "hi_s", c->hi, "lo_gbps",
			 lo_gbps, "hi_gbps", hi_gbps, "half_width_pct",
			 100.0 * c->half_width, "ranks", (json_int_t)c->j, (json_int_t)c->k, "method",
			 method);
}

static json_t *device_ref(int dev)
{
	return dev < 0 ? json_string("host") : json_integer(dev);
}

/* The chase mode's figures (null for every other measurement). */
static json_t *chase_json(const struct nbw_chase_result *c)
{
	if (!c->has)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:i, s:I, s:i, s:f, s:f, s:f, s:s}", "loads",
			 (json_int_t)c->loads, "base_loads", (json_int_t)c->base_loads, "slots",
			 (json_int_t)c->slots, "stride_bytes", (int)c->stride_bytes,
			 "touched_bytes", (json_int_t)c->touched_bytes, "base_repetitions",
			 (int)c->base_reps, "base_median_s", c->base_median_s, "latency_ns",
			 c->latency_ns, "overhead_us", c->overhead_us, "method", c->method);
}

json_t *nbw_measurement_to_json(const struct nbw_measurement *m)
{
	json_t *streams = json_array();
	for (unsigned i = 0; i < m->nstreams; i++) {
		const struct nbw_stream *s = &m->streams[i];
		json_t *js = json_pack("{s:o, s:o, s:o, s:o}", "src", device_ref(s->src_device), "dst",
				       device_ref(s->dst_device), "samples_s",
				       array_of(s->samples_s, s->n), "gbps", summary_json(&s->gbps));
		if (s->n_alone) {
			json_object_set_new(js, "alone_samples_s",
					    array_of(s->alone_samples_s, s->n_alone));
			json_object_set_new(js, "alone_gbps", summary_json(&s->alone_gbps));
		}
		if (s->n_device) {
			json_object_set_new(js, "device_samples_s",
					    array_of(s->device_samples_s, s->n_device));
			json_object_set_new(js, "device_gbps", summary_json(&s->device_gbps));
		}
		json_array_append_new(streams, js);
	}
	json_t *j = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:i, s:i, s:i, s:o, s:o,"
		" s:o, s:o, s:{s:s, s:I, s:s}}",
		"api", m->api, "probe", m->probe, "interface", m->interface, "direction",
		nbw_dir_name(m->dir), "mode", nbw_mode_name(m->mode), "host_mem",
		nbw_hostmem_name(m->hostmem), "concurrency", nbw_conc_name(m->conc), "path", m->path,
		"bytes_counting", m->bytes_counting, "bytes", (json_int_t)m->bytes, "host_mem_note",
		m->host_mem_note, "hidden_helpers", m->hidden_helpers, "warmup", (int)m->warmup,
		"repetitions", (int)m->reps, "samples_s", array_of(m->samples_s, m->n), "gbps",
		summary_json(&m->gbps), "seconds", summary_json(&m->seconds), "streams", streams,
		"verification", "status", m->verify_status, "checked_bytes",
		(json_int_t)m->verify_bytes, "detail", m->verify_detail);
	if (m->verify_reps[0])
		json_object_set_new(json_object_get(j, "verification"), "checked_repetitions",
				    json_string(m->verify_reps));
	json_object_set_new(j, "halo_n", m->halo_n ? json_integer(m->halo_n) : json_null());
	if (m->size_set[0])
		json_object_set_new(j, "size_set", json_string(m->size_set));
	json_object_set_new(j, "peer_access", json_string(nbw_peer_name(m->peer)));
	json_object_set_new(j, "start", json_string(m->start));
	json_object_set_new(j, "device_timer",
			    m->device_timer[0] ? json_string(m->device_timer) : json_null());
	if (m->huge_pages[0])
		json_object_set_new(j, "huge_pages", json_string(m->huge_pages));
	if (m->sched[0]) {
		json_object_set_new(j, "sched", json_string(m->sched));
		json_object_set_new(j, "sched_note", json_string(m->sched_note));
	}
	bool known = m->theoretical_gbps > 0.0;
	json_object_set_new(
		j, "theoretical",
		json_pack("{s:o, s:o, s:s, s:s}", "gbps",
			  known ? json_real(m->theoretical_gbps) : json_null(), "fraction",
			  known && m->gbps.n ? json_real(m->gbps.median / m->theoretical_gbps)
					     : json_null(),
			  "link", m->link, "basis", m->theoretical_basis));
	json_object_set_new(j, "binding",
			    json_pack("{s:s, s:o, s:s}", "policy",
				      m->bind_policy[0] ? m->bind_policy : "none", "node",
				      m->bind_node >= 0 ? json_integer(m->bind_node) : json_null(),
				      "host_pages", m->host_pages));
	if (m->has_overlap)
		json_object_set_new(j, "overlap",
				    json_pack("{s:f, s:f, s:f, s:[f, f], s:s}", "serial_estimate_s",
					      m->serial_estimate_s, "concurrent_s", m->concurrent_s,
					      "speedup", m->overlap_speedup, "speedup_quartile_range",
					      m->overlap_lo, m->overlap_hi, "verdict",
					      m->overlap_verdict));
	else
		json_object_set_new(j, "overlap", json_null());
	json_object_set_new(j, "median_ci", m->error[0] ? json_null() : median_ci_json(m));
	if (m->stop[0] && !m->error[0]) {
		json_object_set_new(j, "converged", json_boolean(m->converged));
		json_object_set_new(j, "stop", json_string(m->stop));
		json_object_set_new(j, "time_capped", json_boolean(m->time_capped));
	}
	/* Both are the executor's, which sets stop too. */
	if (m->stop[0] && !m->error[0] && m->first_rep_s > 0.0)
		json_object_set_new(j, "first_rep_s", json_real(m->first_rep_s));
	if (m->stop[0] && !m->error[0] && m->minor_faults_per_rep >= 0.0)
		json_object_set_new(j, "minor_faults_per_rep", json_real(m->minor_faults_per_rep));
	json_object_set_new(j, "error", m->error[0] ? json_string(m->error) : json_null());
	if (m->mode == NBW_MODE_CHASE)
		json_object_set_new(j, "chase", chase_json(&m->chase));
	if (m->face.has)
		nbw_face_rec_to_json(m, j);
	if (m->elapsed_s > 0.0)
		json_object_set_new(j, "elapsed_s", json_real(m->elapsed_s));
	return j;
}

static int copy_str(json_t *j, const char *key, char *dst, size_t len, char *err, size_t errlen)
{
	json_t *v = json_object_get(j, key);
	if (!json_is_string(v)) {
		snprintf(err, errlen, "field '%s' missing or not a string", key);
		return -1;
	}
	snprintf(dst, len, "%s", json_string_value(v));
	return 0;
}

static int get_int(json_t *j, const char *key, json_int_t lo, json_int_t hi, json_int_t *out,
		   char *err, size_t errlen)
{
	json_t *v = json_object_get(j, key);
	if (!json_is_integer(v)) {
		snprintf(err, errlen, "field '%s' missing or not an integer", key);
		return -1;
	}
	*out = json_integer_value(v);
	if (*out < lo || *out > hi) {
		snprintf(err, errlen, "field '%s' = %lld is out of range", key, (long long)*out);
		return -1;
	}
	return 0;
}

#define NBW_SAMPLE_MAX_S 86400.0

static int read_samples(json_t *a, double **out, size_t *n, const char *key, char *err,
			size_t errlen)
{
	*out = NULL;
	*n = 0;
	if (!json_is_array(a)) {
		snprintf(err, errlen, "field '%s' missing or not an array", key);
		return -1;
	}
	size_t cnt = json_array_size(a);
	if (cnt == 0)
		return 0;
	*out = malloc(cnt * sizeof(**out));
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cnt; i++) {
		json_t *v = json_array_get(a, i);
		double x = json_is_number(v) ? json_number_value(v) : NAN;
		/* A timed repetition, as the clock can give one: more than 0, at most a day. */
		if (!(x > 0.0 && x <= NBW_SAMPLE_MAX_S)) {
			snprintf(err, errlen, "'%s'[%zu] is not a time in seconds from 0 (excluded) to "
				 "%g", key, i, NBW_SAMPLE_MAX_S);
			return -1;
		}
		(*out)[i] = x;
	}
	*n = cnt;
	return 0;
}

static int parse_device_ref(json_t *v, int *dev)
{
	if (json_is_string(v) && strcmp(json_string_value(v), "host") == 0) {
		*dev = -1;
		return 0;
	}
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*dev = (int)json_integer_value(v);
		return 0;
	}
	return -1;
}

/* The labels every measurement has: what, where, how many. */
static int labels_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen)
{
	char dir[16], mode[16], mem[16], conc[16];
	json_int_t bytes = 0, checked = 0, hh = 0, warm = 0, reps = 0;
	if (copy_str(j, "api", m->api, sizeof(m->api), err, errlen) ||
	    copy_str(j, "probe", m->probe, sizeof(m->probe), err, errlen) ||
	    copy_str(j, "interface", m->interface, sizeof(m->interface), err, errlen) ||
	    copy_str(j, "direction", dir, sizeof(dir), err, errlen) ||
	    copy_str(j, "mode", mode, sizeof(mode), err, errlen) ||
	    copy_str(j, "host_mem", mem, sizeof(mem), err, errlen) ||
	    copy_str(j, "concurrency", conc, sizeof(conc), err, errlen) ||
	    copy_str(j, "path", m->path, sizeof(m->path), err, errlen) ||
	    copy_str(j, "host_mem_note", m->host_mem_note, sizeof(m->host_mem_note), err, errlen) ||
	    copy_str(j, "bytes_counting", m->bytes_counting, sizeof(m->bytes_counting), err, errlen))
		return -1;
	json_t *ver = json_object_get(j, "verification");
	if (!json_is_object(ver)) {
		snprintf(err, errlen, "field 'verification' missing or not an object");
		return -1;
	}
	if (get_int(j, "bytes", 1, INT64_MAX, &bytes, err, errlen) ||
	    get_int(j, "hidden_helpers", -1, 64, &hh, err, errlen) ||
	    get_int(j, "warmup", 0, INT_MAX, &warm, err, errlen) ||
	    get_int(j, "repetitions", 0, INT_MAX, &reps, err, errlen) ||
	    get_int(ver, "checked_bytes", 0, INT64_MAX, &checked, err, errlen) ||
	    copy_str(ver, "status", m->verify_status, sizeof(m->verify_status), err, errlen) ||
	    copy_str(ver, "detail", m->verify_detail, sizeof(m->verify_detail), err, errlen))
		return -1;
	int d = nbw_dir_parse(dir), mo = nbw_mode_parse(mode), me = nbw_hostmem_parse(mem),
	    c = nbw_conc_parse(conc);
	const char *bad = d < 0 ? "direction" : mo < 0 ? "mode" : me < 0 ? "host_mem"
			  : c < 0 ? "concurrency" : NULL;
	if (bad) {
		snprintf(err, errlen, "field '%s' has an unknown value", bad);
		return -1;
	}
	m->dir = (enum nbw_dir)d;
	m->mode = (enum nbw_mode)mo;
	m->hostmem = (enum nbw_hostmem)me;
	m->conc = (enum nbw_conc)c;
	m->bytes = (uint64_t)bytes;
	m->verify_bytes = (uint64_t)checked;
	json_t *vreps = json_object_get(ver, "checked_repetitions");
	if (json_is_string(vreps))
		snprintf(m->verify_reps, sizeof(m->verify_reps), "%s", json_string_value(vreps));
	m->hidden_helpers = (int)hh;
	m->warmup = (unsigned)warm;
	m->reps = (unsigned)reps;
	return 0;
}

/* Fields added over time, absent in older documents. */
static int optional_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen)
{
	json_t *halo = json_object_get(j, "halo_n");
	m->halo_n = json_is_integer(halo) ? (int)json_integer_value(halo) : 0;
	json_t *sset = json_object_get(j, "size_set");
	if (sset && (!json_is_string(sset) || (strcmp(json_string_value(sset), "sweep") != 0 &&
					       strcmp(json_string_value(sset), "matrix") != 0))) {
		snprintf(err, errlen, "field 'size_set' is not \"sweep\" or \"matrix\"");
		return -1;
	}
	snprintf(m->size_set, sizeof(m->size_set), "%s", sset ? json_string_value(sset) : "");
	/* Schema 1 files have neither field. */
	json_t *peer = json_object_get(j, "peer_access"), *start = json_object_get(j, "start");
	int pe = peer ? nbw_peer_parse(json_string_value(peer)) : NBW_PEER_NA;
	if (pe < 0) {
		snprintf(err, errlen, "field 'peer_access' has an unknown value");
		return -1;
	}
	m->peer = (enum nbw_peer)pe;
	if (start && !json_is_string(start)) {
		snprintf(err, errlen, "field 'start' is not a string");
		return -1;
	}
	snprintf(m->start, sizeof(m->start), "%s", start ? json_string_value(start) : "");
	json_t *timer = json_object_get(j, "device_timer");
	if (json_is_string(timer))
		snprintf(m->device_timer, sizeof(m->device_timer), "%s", json_string_value(timer));
	/* Optional: only measurements on huge-page host memory record what the kernel gave. */
	if (json_object_get(j, "huge_pages") &&
	    copy_str(j, "huge_pages", m->huge_pages, sizeof(m->huge_pages), err, errlen))
		return -1;
	/* Optional: only backends with a scheduling setting (CUDA) record it. */
	if (json_object_get(j, "sched") &&
	    (copy_str(j, "sched", m->sched, sizeof(m->sched), err, errlen) ||
	     copy_str(j, "sched_note", m->sched_note, sizeof(m->sched_note), err, errlen)))
		return -1;
	/* Optional (added with the topology): what the path could give, and the binding. */
	json_t *th = json_object_get(j, "theoretical"), *bd = json_object_get(j, "binding");
	m->theoretical_gbps = -1.0;
	m->bind_node = -1;
	if (json_is_object(th)) {
		json_t *g = json_object_get(th, "gbps");
		m->theoretical_gbps = json_is_number(g) ? json_number_value(g) : -1.0;
		const char *l = json_string_value(json_object_get(th, "link"));
		const char *b = json_string_value(json_object_get(th, "basis"));
		snprintf(m->link, sizeof(m->link), "%s", l ? l : "");
		snprintf(m->theoretical_basis, sizeof(m->theoretical_basis), "%s", b ? b : "");
	}
	if (json_is_object(bd)) {
		const char *pol = json_string_value(json_object_get(bd, "policy"));
		const char *pg = json_string_value(json_object_get(bd, "host_pages"));
		json_t *nd = json_object_get(bd, "node");
		snprintf(m->bind_policy, sizeof(m->bind_policy), "%s", pol ? pol : "");
		snprintf(m->host_pages, sizeof(m->host_pages), "%s", pg ? pg : "");
		m->bind_node = json_is_integer(nd) ? (int)json_integer_value(nd) : -1;
	}
	json_t *el = json_object_get(j, "elapsed_s");
	m->elapsed_s = json_is_number(el) ? json_number_value(el) : 0.0;
	json_t *e = json_object_get(j, "error");
	if (json_is_string(e))
		snprintf(m->error, sizeof(m->error), "%s", json_string_value(e));
	return 0;
}

/* The streams and their samples (allocated: nbw_measurement_free). */
static int streams_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen)
{
	if (read_samples(json_object_get(j, "samples_s"), &m->samples_s, &m->n, "samples_s", err,
			 errlen))
		return -1;
	json_t *streams = json_object_get(j, "streams");
	if (!json_is_array(streams) || json_array_size(streams) > NBW_MAX_STREAMS) {
		snprintf(err, errlen, "field 'streams' missing or longer than %d", NBW_MAX_STREAMS);
		return -1;
	}
	m->nstreams = (unsigned)json_array_size(streams);
	bool one = m->conc == NBW_CONC_SINGLE || m->conc == NBW_CONC_FACE;
	unsigned lo = one ? 1 : m->conc == NBW_CONC_RING ? 3 : 2,
		 hi = one ? 1
		      : m->conc == NBW_CONC_DUAL || m->conc == NBW_CONC_BIDIR ? 2
									: NBW_MAX_STREAMS;
	if (m->nstreams < lo || m->nstreams > hi) {
		snprintf(err, errlen, "field 'streams' has %u entries; concurrency '%s' has %u to %u",
			 m->nstreams, nbw_conc_name(m->conc), lo, hi);
		return -1;
	}
	for (unsigned i = 0; i < m->nstreams; i++) {
		json_t *js = json_array_get(streams, i);
		struct nbw_stream *s = &m->streams[i];
		if (parse_device_ref(json_object_get(js, "src"), &s->src_device) ||
		    parse_device_ref(json_object_get(js, "dst"), &s->dst_device)) {
			snprintf(err, errlen, "streams[%u]: bad src/dst", i);
			return -1;
		}
		if (read_samples(json_object_get(js, "samples_s"), &s->samples_s, &s->n,
				 "streams.samples_s", err, errlen))
			return -1;
		json_t *alone = json_object_get(js, "alone_samples_s");
		if (alone && read_samples(alone, &s->alone_samples_s, &s->n_alone,
					  "streams.alone_samples_s", err, errlen))
			return -1;
		json_t *dev = json_object_get(js, "device_samples_s");
		if (dev && read_samples(dev, &s->device_samples_s, &s->n_device,
					"streams.device_samples_s", err, errlen))
			return -1;
	}
	return 0;
}

static int overlap_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen)
{
	json_t *ov = json_object_get(j, "overlap");
	if (!json_is_object(ov))
		return 0;
	const char *verdict = NULL;
	json_error_t je;
	if (json_unpack_ex(ov, &je, 0, "{s:F, s:F, s:F, s:s}", "serial_estimate_s",
			   &m->serial_estimate_s, "concurrent_s", &m->concurrent_s, "speedup",
			   &m->overlap_speedup, "verdict", &verdict)) {
		snprintf(err, errlen, "overlap: %s", je.text);
		return -1;
	}
	m->has_overlap = true;
	snprintf(m->overlap_verdict, sizeof(m->overlap_verdict), "%s", verdict);
	/* Older files have no range. */
	json_t *range = json_object_get(ov, "speedup_quartile_range");
	m->overlap_lo = json_number_value(json_array_get(range, 0));
	m->overlap_hi = json_number_value(json_array_get(range, 1));
	return 0;
}

/* The chase mode's figures: absent or null (no figures: an error, another mode) or the
 * whole object. The latency may be negative only as measured noise, never NaN. */
static int chase_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen)
{
	json_t *c = json_object_get(j, "chase");
	if (!c || json_is_null(c))
		return 0;
	struct nbw_chase_result *r = &m->chase;
	json_int_t loads, base_loads, slots, stride, touched, reps;
	const char *method;
	json_error_t je;
	if (json_unpack_ex(c, &je, 0, "{s:I, s:I, s:I, s:I, s:I, s:I, s:F, s:F, s:F, s:s}",
			   "loads", &loads, "base_loads", &base_loads, "slots", &slots,
			   "stride_bytes", &stride, "touched_bytes", &touched, "base_repetitions",
			   &reps, "base_median_s", &r->base_median_s, "latency_ns", &r->latency_ns,
			   "overhead_us", &r->overhead_us, "method", &method)) {
		snprintf(err, errlen, "chase: %s", je.text);
		return -1;
	}
	if (loads < 2 || base_loads < 1 || base_loads >= loads || slots < 2 || stride < 8 || stride > 4096 ||
	    touched < 0 || reps < 0 || reps > NBW_REPS_MAX || !isfinite(r->latency_ns) ||
	    !isfinite(r->overhead_us) || !(r->base_median_s >= 0.0)) {
		snprintf(err, errlen, "chase: a field is out of range");
		return -1;
	}
	r->has = true;
	r->loads = (uint64_t)loads;
	r->base_loads = (uint64_t)base_loads;
	r->slots = (uint64_t)slots;
	r->stride_bytes = (unsigned)stride;
	r->touched_bytes = (uint64_t)touched;
	r->base_reps = (unsigned)reps;
	snprintf(r->method, sizeof(r->method), "%s", method);
	return 0;
}

/* An optional number >= 0: \p *out keeps its value when the key is absent. */
static int opt_number(json_t *j, const char *key, double *out, char *err, size_t errlen)
{
	json_t *v = json_object_get(j, key);
	if (!v)
		return 0;
	if (!json_is_number(v) || json_number_value(v) < 0.0) {
		snprintf(err, errlen, "field '%s' is not a number >= 0", key);
		return -1;
	}
	*out = json_number_value(v);
	return 0;
}

/* Optional (added with the adaptive repetitions): the interval is recomputed from the
 * samples at the level the file names; why the repetitions stopped, whether at the time
 * cap, the first repetition and the page faults are the file's. */
static int repetitions_from_json(json_t *j, struct nbw_measurement *m, char *err,
				 size_t errlen)
{
	json_t *ci = json_object_get(j, "median_ci");
	if (ci && !json_is_object(ci) && !json_is_null(ci)) {
		snprintf(err, errlen, "field 'median_ci' is not an object or null");
		return -1;
	}
	json_t *lv = json_object_get(ci, "level");
	if (json_is_number(lv))
		m->ci.level = json_number_value(lv);
	json_t *stop = json_object_get(j, "stop"), *conv = json_object_get(j, "converged");
	json_t *capped = json_object_get(j, "time_capped");
	if (stop && !json_is_string(stop)) {
		snprintf(err, errlen, "field 'stop' is not a string");
		return -1;
	}
	if ((conv && !json_is_boolean(conv)) || (capped && !json_is_boolean(capped))) {
		snprintf(err, errlen, "field '%s' is not a boolean",
			 conv && !json_is_boolean(conv) ? "converged" : "time_capped");
		return -1;
	}
	m->minor_faults_per_rep = -1.0;
	if (opt_number(j, "first_rep_s", &m->first_rep_s, err, errlen) ||
	    opt_number(j, "minor_faults_per_rep", &m->minor_faults_per_rep, err, errlen))
		return -1;
	nbw_measurement_summarize(m);
	if (json_is_string(stop))
		snprintf(m->stop, sizeof(m->stop), "%s", json_string_value(stop));
	if (json_is_boolean(conv))
		m->converged = json_is_true(conv);
	/* Older documents: the stop reason says it. */
	m->time_capped = capped ? json_is_true(capped) : strncmp(m->stop, "time cap", 8) == 0;
	return 0;
}

int nbw_measurement_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (!json_is_object(j)) {
		snprintf(err, errlen, "measurement is not an object");
		return -1;
	}
	if (labels_from_json(j, m, err, errlen) || optional_from_json(j, m, err, errlen) ||
	    chase_from_json(j, m, err, errlen) || nbw_face_rec_from_json(j, m, err, errlen))
		return -1;
	if (streams_from_json(j, m, err, errlen) || overlap_from_json(j, m, err, errlen) ||
	    repetitions_from_json(j, m, err, errlen)) {
		nbw_measurement_free(m);
		return -1;
	}
	return 0;
}
