/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/results.h"

#include "nodebw/jints.h"
#include "nodebw/jsonpos.h"
#include "nodebw/limits.h"
#include "nodebw/readfile.h"
#include "nodebw/results_view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nodebw/sysinfo.h"
#include "nodebw/version.h"

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
	double total = (double)m->bytes * (m->nstreams ? m->nstreams : 1);
	summarize_rates(m->samples_s, m->n, total, &m->gbps);
	if (m->n)
		nbw_summarize(m->samples_s, m->n, &m->seconds);
	/* The interval of the median time (at the level a document asked for, else ours). */
	double level = m->ci.level > 0.0 && m->ci.level < 1.0 ? m->ci.level : NBW_CI_LEVEL;
	nbw_median_ci_of(m->samples_s, m->n, level, &m->ci);
	m->converged = m->ci.n && nbw_ci_converged(m->ci.coverage, m->ci.half_width);
	for (unsigned i = 0; i < m->nstreams; i++) {
		struct nbw_stream *s = &m->streams[i];
		summarize_rates(s->samples_s, s->n, (double)m->bytes, &s->gbps);
		summarize_rates(s->alone_samples_s, s->n_alone, (double)m->bytes, &s->alone_gbps);
		summarize_rates(s->device_samples_s, s->n_device, (double)m->bytes,
				&s->device_gbps);
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
	double total = (double)m->bytes * (m->nstreams ? m->nstreams : 1);
	if (!c->n || !(c->lo > 0.0) || !isfinite(c->half_width))
		return json_null();
	char method[96];
	snprintf(method, sizeof(method), "order statistics (binomial ranks %zu,%zu of %zu)", c->j,
		 c->k, c->n);
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:[I, I], s:s}", "level", c->level,
			 "coverage", c->coverage, "lo_s", c->lo, "hi_s", c->hi, "lo_gbps",
			 total / c->hi / 1e9, "hi_gbps", total / c->lo / 1e9, "half_width_pct",
			 100.0 * c->half_width, "ranks", (json_int_t)c->j, (json_int_t)c->k, "method",
			 method);
}

static json_t *device_ref(int dev)
{
	return dev < 0 ? json_string("host") : json_integer(dev);
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
	unsigned lo = m->conc == NBW_CONC_SINGLE ? 1 : m->conc == NBW_CONC_RING ? 3 : 2,
		 hi = m->conc == NBW_CONC_SINGLE ? 1
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
	if (labels_from_json(j, m, err, errlen) || optional_from_json(j, m, err, errlen))
		return -1;
	if (streams_from_json(j, m, err, errlen) || overlap_from_json(j, m, err, errlen) ||
	    repetitions_from_json(j, m, err, errlen)) {
		nbw_measurement_free(m);
		return -1;
	}
	return 0;
}

/* ---- document ------------------------------------------------------------------------ */

static int csv_ensure(struct nbw_doc *d);
static void csv_row(FILE *f, json_t *devices, const struct nbw_measurement *x,
		    const char *hht_label, int plane_process);
static void csv_row_json(FILE *f, json_t *devices, json_t *m);

struct nbw_doc *nbw_doc_new(int argc, char **argv)
{
	struct nbw_doc *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_t *cmd = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	d->devices = json_array();
	d->skipped = json_array();
	d->measurements = json_array();
	d->root = json_pack(
		"{s:s, s:i, s:{s:s, s:s, s:b, s:s}, s:s, s:o, s:{s:s, s:s, s:s}, s:o, s:o, s:o, s:O, "
		"s:O, s:O}",
		"schema", NBW_SCHEMA_NAME, "schema_version", NBW_SCHEMA_VERSION, "tool", "name",
		"nodebw", "version", NBW_VERSION, "openmp_offload",
		strcmp(NBW_OFFLOAD_TARGETS, "none") != 0, "offload_targets", NBW_OFFLOAD_TARGETS,
		"created", stamp, "command", cmd, "units",
		"bandwidth", "GB/s = 1e9 bytes per second", "time", "seconds", "size", "bytes",
		"machine", nbw_sysinfo_machine(), "software", nbw_sysinfo_software(), "environment",
		nbw_sysinfo_environment(), "devices", d->devices, "skipped", d->skipped,
		"measurements", d->measurements);
	if (!d->root || csv_ensure(d)) {
		nbw_doc_free(d);
		return NULL;
	}
	/* From the first checkpoint on, a file left by a run that dies says it is not done. */
	nbw_doc_set_state(d, "running", NULL);
	return d;
}

void nbw_doc_set_state(struct nbw_doc *d, const char *state, const char *detail)
{
	json_object_set_new(d->root, "state", json_string(state));
	if (detail)
		json_object_set_new(d->root, "state_detail", json_string(detail));
	else
		json_object_del(d->root, "state_detail");
	json_object_set_new(d->root, "interrupted",
			    json_boolean(strcmp(state, "interrupted") == 0 ||
					 strcmp(state, "killed") == 0));
}

void nbw_doc_free(struct nbw_doc *d)
{
	if (!d)
		return;
	json_decref(d->devices);
	json_decref(d->skipped);
	json_decref(d->measurements);
	json_decref(d->root);
	if (d->csv)
		fclose(d->csv);
	free(d->csv_buf);
	free(d);
}

int nbw_doc_api_devices(const struct nbw_doc *d, const char *api)
{
	size_t i;
	json_t *x;
	int n = 0;
	json_array_foreach(d->devices, i, x) {
		const char *a = json_string_value(json_object_get(x, "api"));
		n += a && strcmp(a, api) == 0;
	}
	return n;
}

void nbw_doc_add_device(struct nbw_doc *d, const char *api, const struct nbw_device *dev)
{
	json_array_append_new(d->devices,
			      json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:b, s:o}", "api", api, "id",
					dev->id, "runtime_id", dev->runtime_id, "kind", dev->kind, "name", dev->name, "memory",
					dev->memory, "is_gpu", dev->is_gpu, "pci_bus_id",
					dev->pci_bus_id[0] ? json_string(dev->pci_bus_id)
							   : json_null()));
}

void nbw_doc_add_skip(struct nbw_doc *d, const char *api, const char *probe, const char *what,
		      const char *reason)
{
	json_array_append_new(d->skipped, json_pack("{s:s, s:s, s:s, s:s}", "api", api, "probe",
						    probe, "what", what, "reason", reason));
}

void nbw_doc_add_measurement(struct nbw_doc *d, const struct nbw_measurement *m)
{
	json_array_append_new(d->measurements, nbw_measurement_to_json(m));
	if (d->csv)
		csv_row(d->csv, d->devices, m, NULL, 0);
}

void nbw_doc_add_measurement_json(struct nbw_doc *d, json_t *m)
{
	json_array_append(d->measurements, m);
	if (d->csv)
		csv_row_json(d->csv, d->devices, m);
	json_decref(m);
}

void nbw_doc_set(struct nbw_doc *d, const char *key, json_t *value)
{
	json_object_set_new(d->root, key, value);
}

const char *nbw_short_path(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);
	if (n < 120 || len < 8)
		return path;
	snprintf(buf, len, "...%s", path + n - (len - 4 < 100 ? len - 4 : 100));
	return buf;
}

int nbw_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char sp[112];
	size_t plen = strlen(path) + 16;
	char *tmp = malloc(plen);
	if (!tmp) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(tmp, plen, "%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", nbw_short_path(tmp, sp, sizeof(sp)),
			 strerror(errno));
		free(tmp);
		return -1;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) { /* EFBIG (file-size limit), ENOSPC (disk full), EDQUOT... */
			if (w == 0)
				errno = ENOSPC;
			break;
		}
		off += (size_t)w;
	}
	int ok = off == len && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
	int saved = errno;
	if (close(fd) != 0 && ok) {
		ok = 0;
		saved = errno;
	}
	if (!ok || rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", nbw_short_path(path, sp, sizeof(sp)),
			 strerror(ok ? errno : saved));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* results.csv: one row per measurement, a header of machine names with their units
 * (_bytes, _gbps = GB/s = 1e9 B/s, _s = seconds) and nothing else, so that
 * pandas.read_csv(path) reads it as it is; what the columns mean is in
 * doc/results-schema.md ("The CSV view"), how bytes are counted in results.json. */
static const char *const csv_columns[] = {
	"api", "probe", "direction", "mode", "host_mem", "concurrency", "src", "dst",
	"device_kind", "bytes", "halo_n", "size_set", "hidden_helpers", "hht_sweep",
	"peer_access", "bind_policy", "bind_node", "repetitions", "median_gbps", "min_gbps",
	"max_gbps", "mean_gbps", "cv", "median_s", "ci_lo_gbps", "ci_hi_gbps",
	"ci_half_width_pct", "ci_coverage", "converged", "stop", "device_timer_median_gbps",
	"theoretical_gbps", "fraction_of_theoretical", "link", "overlap_speedup",
	"verification", "error", "interface", "plane_process",
};

static void csv_header(FILE *f)
{
	for (size_t i = 0; i < sizeof(csv_columns) / sizeof(csv_columns[0]); i++)
		fprintf(f, "%s%s", i ? "," : "", csv_columns[i]);
	fputc('\n', f);
}

static void endpoint_list(const struct nbw_measurement *x, bool dst, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned s = 0; s < x->nstreams; s++) {
		int dev = dst ? x->streams[s].dst_device : x->streams[s].src_device;
		size_t l = strlen(buf);
		if (dev < 0)
			snprintf(buf + l, len - l, "%shost", s ? "+" : "");
		else
			snprintf(buf + l, len - l, "%s%d", s ? "+" : "", dev);
	}
}

/* The kind of the devices a measurement touched ("host-plugin", "gpu", ...; "mixed" when
 * they differ; "host" for host-only copies), from the document's device list. */
static void device_kind(json_t *devices, const struct nbw_measurement *x, char *buf,
			size_t len)
{
	snprintf(buf, len, "host");
	bool any = false;
	for (unsigned s = 0; s < x->nstreams; s++)
		for (int e = 0; e < 2; e++) {
			int dev = e ? x->streams[s].dst_device : x->streams[s].src_device;
			if (dev < 0)
				continue;
			struct nbw_rv_device d;
			const char *k = nbw_rv_device_find(devices, x->api, dev, &d) && d.kind[0]
						? d.kind
						: "unknown";
			if (any && strcmp(buf, k) != 0)
				snprintf(buf, len, "mixed");
			else if (!any)
				snprintf(buf, len, "%s", k);
			any = true;
		}
}

static void csv_number(FILE *f, double v, const char *fmt)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, fmt, v);
}

/* One CSV row from the measurement itself (no JSON round trip). */
static void csv_row(FILE *f, json_t *devices, const struct nbw_measurement *x,
		    const char *hht_label, int plane_process)
{
	char src[NBW_MAX_STREAMS * 6], dst[NBW_MAX_STREAMS * 6], kind[32];
	endpoint_list(x, false, src, sizeof(src));
	endpoint_list(x, true, dst, sizeof(dst));
	device_kind(devices, x, kind, sizeof(kind));
	fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,", x->api, x->probe, nbw_dir_name(x->dir),
		nbw_mode_name(x->mode), nbw_hostmem_name(x->hostmem), nbw_conc_name(x->conc), src,
		dst);
	csv_field(f, kind);
	fprintf(f, ",%llu,", (unsigned long long)x->bytes);
	if (x->halo_n)
		fprintf(f, "%d", x->halo_n);
	fprintf(f, ",%s,%d,", x->size_set, x->hidden_helpers);
	csv_field(f, hht_label ? hht_label : "");
	fprintf(f, ",%s,%s,", nbw_peer_name(x->peer), x->bind_policy);
	if (x->bind_policy[0] && x->bind_node >= 0)
		fprintf(f, "%d", x->bind_node);
	fprintf(f, ",%u", x->reps);
	bool ok = x->reps > 0 && !x->error[0];
	csv_number(f, ok ? x->gbps.median : NAN, "%.6g");
	csv_number(f, ok ? x->gbps.min : NAN, "%.6g");
	csv_number(f, ok ? x->gbps.max : NAN, "%.6g");
	csv_number(f, ok ? x->gbps.mean : NAN, "%.6g");
	csv_number(f, ok ? x->gbps.cv : NAN, "%.4f");
	csv_number(f, ok ? x->seconds.median : NAN, "%.6g");
	/* The interval of the median (GB/s: the same order statistics of the rates). */
	bool ci = ok && x->ci.n && x->ci.lo > 0.0 && isfinite(x->ci.half_width);
	double total = (double)x->bytes * (x->nstreams ? x->nstreams : 1);
	csv_number(f, ci ? total / x->ci.hi / 1e9 : NAN, "%.6g");
	csv_number(f, ci ? total / x->ci.lo / 1e9 : NAN, "%.6g");
	csv_number(f, ci ? 100.0 * x->ci.half_width : NAN, "%.3f");
	csv_number(f, ci ? x->ci.coverage : NAN, "%.4f");
	fprintf(f, ",%s,", ok && x->stop[0] ? (x->converged ? "true" : "false") : "");
	csv_field(f, ok ? x->stop : "");
	/* The device timer's figure: stream 0's (each stream has its own in the JSON). */
	csv_number(f, ok && x->nstreams && x->streams[0].n_device ? x->streams[0].device_gbps.median
								   : NAN,
		   "%.6g");
	bool th = x->theoretical_gbps > 0.0;
	csv_number(f, th ? x->theoretical_gbps : NAN, "%.6g");
	csv_number(f, th && ok ? x->gbps.median / x->theoretical_gbps : NAN, "%.4f");
	fputc(',', f);
	csv_field(f, x->link);
	csv_number(f, x->has_overlap ? x->overlap_speedup : NAN, "%.3f");
	fprintf(f, ",%s,", x->verify_status);
	csv_field(f, x->error);
	fputc(',', f);
	csv_field(f, x->interface);
	if (plane_process > 0)
		fprintf(f, ",%d\n", plane_process);
	else
		fputs(",\n", f);
}

static void csv_row_json(FILE *f, json_t *devices, json_t *m)
{
	char e[NBW_REASON_LEN];
	struct nbw_measurement x;
	if (nbw_measurement_from_json(m, &x, e, sizeof(e)))
		return;
	json_t *label = json_object_get(m, "hht_sweep");
	json_t *pp = json_object_get(json_object_get(m, "plane_sweep"), "process");
	csv_row(f, devices, &x, json_is_string(label) ? json_string_value(label) : NULL,
		json_is_integer(pp) ? (int)json_integer_value(pp) : 0);
	nbw_measurement_free(&x);
}

/* The CSV rows of a document: kept as the measurements are added (a new document), or
 * made once from the JSON on the first write (a loaded one). */
static int csv_ensure(struct nbw_doc *d)
{
	if (d->csv)
		return 0;
	d->csv = open_memstream(&d->csv_buf, &d->csv_len);
	if (!d->csv)
		return -1;
	csv_header(d->csv);
	size_t i;
	json_t *m;
	json_array_foreach(d->measurements, i, m)
		csv_row_json(d->csv, d->devices, m);
	return 0;
}

int nbw_doc_write_csv(struct nbw_doc *d, const char *path, char *err, size_t errlen)
{
	if (csv_ensure(d) || fflush(d->csv)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return nbw_write_atomic(path, d->csv_buf, d->csv_len, err, errlen);
}

/* The final results could not be written (a full disk): what is on disk must not keep
 * saying "running". The last checkpoint there (or, without one, the document's head without
 * its measurements), which is smaller, is written again saying "failed" and why. */
/* \p doc saying "failed": \p why, and how many of \p total measurements it keeps, written
 * atomically at \p path; 0 or -1. */
static int write_failed(json_t *doc, const char *path, const char *why, size_t total)
{
	char detail[700], e[256];
	size_t kept = json_array_size(json_object_get(doc, "measurements"));
	if (kept)
		snprintf(detail, sizeof(detail), "the results could not be written (%s); this file "
			 "keeps %zu of the %zu measurements, those of the last checkpoint that could "
			 "be", why, kept, total);
	else
		snprintf(detail, sizeof(detail), "the results could not be written (%s); none of "
			 "the %zu measurements could be kept", why, total);
	json_object_set_new(doc, "state", json_string("failed"));
	json_object_set_new(doc, "state_detail", json_string(detail));
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	int rc = text ? nbw_write_atomic(path, text, strlen(text), e, sizeof(e)) : -1;
	free(text);
	return rc;
}

/* The final results could not be written (a full disk): what is on disk must not keep
 * saying "running". The last checkpoint there is written again saying "failed" and why;
 * where even that does not fit, the document's head without its measurements. */
static void mark_failed(struct nbw_doc *d, const char *path, const char *why)
{
	char *text = NULL, e[256];
	size_t len = 0, total = json_array_size(d->measurements);
	json_t *old = nbw_readfile(path, 0, &text, &len, e, sizeof(e)) == 0
			      ? json_loadb(text, len, 0, NULL)
			      : NULL;
	free(text);
	int rc = json_is_object(old) ? write_failed(old, path, why, total) : -1;
	json_decref(old);
	json_t *head = rc ? json_copy(d->root) : NULL; /* shallow: only its own keys change */
	if (head) {
		json_object_set_new(head, "measurements", json_array());
		json_object_del(head, "solver_runs");
		write_failed(head, path, why, total);
		json_decref(head);
	}
}

int nbw_doc_write(struct nbw_doc *d, const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create folder %s: %s", dir, strerror(errno));
		return -1;
	}
	char *text = json_dumps(d->root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (!text) {
		snprintf(err, errlen, "cannot serialise the results document");
		return -1;
	}
	/* results.json first, then results.csv from the same measurements: a run killed
	 * between the two leaves its lock file, and the next nodebw writes the CSV again
	 * (common/rundir.c). */
	char *path = NULL;
	if (asprintf(&path, "%s/results.json", dir) < 0) {
		free(text);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = nbw_write_atomic(path, text, strlen(text), err, errlen);
	free(text);
	/* A checkpoint that fails leaves the previous one, still rightly "running"; the final
	 * write that fails leaves a file that says it failed. */
	if (rc && strcmp(json_string_value(json_object_get(d->root, "state")) ?: "", "running"))
		mark_failed(d, path, err);
	free(path);
	if (rc == 0) {
		if (asprintf(&path, "%s/results.csv", dir) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		rc = nbw_doc_write_csv(d, path, err, errlen);
		free(path);
	}
	return rc;
}

struct nbw_doc *nbw_doc_load(const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (nbw_readfile(path, 0, &text, &len, err, errlen))
		return NULL;
	struct nbw_doc *d = nbw_doc_load_buffer(path, text, len, err, errlen);
	free(text);
	return d;
}

/* Each device an object with an API and an id from 0 to NBW_MAX_DEVICES - 1, no (API, id)
 * twice: the readers find devices by that pair. 0, or -1 with \p e ("devices[i]: ..."). */
static int check_devices(json_t *devices, char *e, size_t elen)
{
	size_t i, j;
	json_t *d;
	json_array_foreach(devices, i, d) {
		struct nbw_rv_device v, w;
		json_t *id = json_object_get(d, "id");
		if (!nbw_rv_device_read(d, &v) || !v.api[0] || !json_is_integer(id) || v.id < 0 ||
		    v.id >= NBW_MAX_DEVICES) {
			snprintf(e, elen, "devices[%zu]: a device needs an \"api\" and an \"id\" from 0 "
				 "to %d", i, NBW_MAX_DEVICES - 1);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (nbw_rv_device_read(json_array_get(devices, j), &w) && w.id == v.id &&
			    strcmp(w.api, v.api) == 0) {
				snprintf(e, elen, "devices[%zu]: %s device %d is listed twice", i,
					 v.api, v.id);
				return -1;
			}
	}
	return 0;
}

/* A solver run's times, where present, are seconds from 0 to a week: a 1e308 or a negative
 * time would turn every prediction and accuracy figure built on it into nonsense. 0, or -1
 * with \p e ("solver_runs[i]: ..."). */
static int check_solver_times(json_t *runs, char *e, size_t elen)
{
	static const char *const keys[] = {"seconds", "seconds_per_step", "k_s_per_point"};
	const double most = 7 * 86400.0;
	size_t i, j;
	json_t *r, *x;
	json_array_foreach(runs, i, r) {
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			x = json_object_get(r, keys[k]);
			if (x && !json_is_null(x) &&
			    !(json_is_number(x) && json_number_value(x) >= 0.0 &&
			      json_number_value(x) <= most)) {
				snprintf(e, elen, "solver_runs[%zu]: '%s' is not seconds from 0 to %g",
					 i, keys[k], most);
				return -1;
			}
		}
		json_array_foreach(json_object_get(r, "samples_s"), j, x)
			if (!(json_is_number(x) && json_number_value(x) >= 0.0 &&
			      json_number_value(x) <= most)) {
				snprintf(e, elen, "solver_runs[%zu]: 'samples_s'[%zu] is not seconds "
					 "from 0 to %g", i, j, most);
				return -1;
			}
	}
	return 0;
}

struct nbw_doc *nbw_doc_load_buffer(const char *path, const char *text, size_t len, char *err,
				    size_t errlen)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);
	if (!root) {
		nbw_json_parse_error(path, &je, len, err, errlen);
		return NULL;
	}
	const char *schema = NULL;
	json_int_t version = 0;
	if (json_unpack_ex(root, &je, 0, "{s:s, s:I}", "schema", &schema, "schema_version",
			   &version) ||
	    strcmp(schema, NBW_SCHEMA_NAME) != 0) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, "schema", &line, &col);
		snprintf(err, errlen, "%s:%d:%d: not a nodebw results file (no \"schema\": \"%s\")",
			 path, line, col, NBW_SCHEMA_NAME);
		json_decref(root);
		return NULL;
	}
	if (version < 1 || version > NBW_SCHEMA_VERSION) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, "schema_version", &line, &col);
		snprintf(err, errlen, "%s:%d:%d: schema_version %lld, this nodebw reads 1 to %d",
			 path, line, col, (long long)version, NBW_SCHEMA_VERSION);
		json_decref(root);
		return NULL;
	}
	/* Every integer the readers keep in an int, checked once against what it means. */
	size_t nrules;
	const struct nbw_int_rule *rules = nbw_results_int_rules(&nrules);
	char where[256], what[256];
	if (nbw_json_check_ints(root, rules, nrules, where, sizeof(where), what, sizeof(what))) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, where, &line, &col);
		snprintf(err, errlen, "%s:%d:%d: %s: %s", path, line, col, where, what);
		json_decref(root);
		return NULL;
	}
	struct nbw_doc *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "%s: out of memory", path);
		json_decref(root);
		return NULL;
	}
	d->root = root;
	d->devices = json_incref(json_object_get(root, "devices"));
	d->skipped = json_incref(json_object_get(root, "skipped"));
	d->measurements = json_incref(json_object_get(root, "measurements"));
	if (!json_is_array(d->devices) || !json_is_array(d->skipped) ||
	    !json_is_array(d->measurements)) {
		snprintf(err, errlen, "%s:1:1: 'devices', 'skipped' and 'measurements' must be arrays",
			 path);
		nbw_doc_free(d);
		return NULL;
	}
	char de[160];
	bool bad_devices = check_devices(d->devices, de, sizeof(de)) != 0;
	if (bad_devices || check_solver_times(json_object_get(root, "solver_runs"), de,
					      sizeof(de))) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, bad_devices ? "devices" : "solver_runs", &line, &col);
		snprintf(err, errlen, "%s:%d:%d: %s", path, line, col, de);
		nbw_doc_free(d);
		return NULL;
	}
	size_t i;
	json_t *m;
	json_array_foreach(d->measurements, i, m) {
		struct nbw_measurement x;
		char e[NBW_REASON_LEN];
		if (nbw_measurement_from_json(m, &x, e, sizeof(e))) {
			char at[48];
			int line = 1, col = 1;
			snprintf(at, sizeof(at), "measurements[%zu]", i);
			nbw_json_locate(text, len, at, &line, &col);
			snprintf(err, errlen, "%s:%d:%d: measurements[%zu]: %s", path, line, col, i, e);
			nbw_doc_free(d);
			return NULL;
		}
		nbw_measurement_free(&x);
	}
	return d;
}
