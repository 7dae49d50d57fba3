/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed views of a results document: its head, its devices and its measurements
 * (include/nodebw/results_view.h). With results.c, the only code that knows the keys.
 */
#include "nodebw/results_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/stats.h"
#include "results_priv.h"

/* ---- devices ----------------------------------------------------------------------- */

bool nbw_rv_device_read(json_t *d, struct nbw_rv_device *out)
{
	memset(out, 0, sizeof(*out));
	out->api = out->name = out->kind = out->pci_bus_id = out->memory = "";
	out->native_api = out->native_by = "";
	out->native_id = -1;
	out->id = out->runtime_id = out->file = out->is_gpu = -1;
	if (!json_is_object(d))
		return false;
	out->j = d;
	out->api = jstr(d, "api");
	out->name = jstr(d, "name");
	out->kind = jstr(d, "kind");
	out->pci_bus_id = jstr(d, "pci_bus_id");
	out->id = jint(d, "id", -1);
	out->runtime_id = jint(d, "runtime_id", -1);
	out->file = jint(d, "file", -1);
	json_t *g = json_object_get(d, "is_gpu");
	out->is_gpu = json_is_boolean(g) ? json_is_true(g) : -1;
	out->host_memory = out->is_gpu == 0 || strcmp(out->kind, "host-plugin") == 0 ||
			   strcmp(out->kind, "host-memory") == 0;
	out->memory = jstr(d, "memory");
	json_t *n = json_object_get(d, "native");
	out->native_api = jstr(n, "api");
	out->native_id = jint(n, "id", -1);
	out->native_by = jstr(n, "by");
	return true;
}

bool nbw_rv_device_find(json_t *devices, const char *api, int id, struct nbw_rv_device *out)
{
	struct nbw_rv_device tmp;
	if (!out)
		out = &tmp;
	size_t i;
	json_t *d;
	json_array_foreach(devices, i, d) {
		if (nbw_rv_device_read(d, out) && out->id == id && strcmp(out->api, api) == 0)
			return true;
	}
	nbw_rv_device_read(NULL, out);
	return false;
}

/* Is the device host memory? A device the document does not list counts as host memory
 * only for the host API. */
static bool is_host_memory(json_t *devices, const char *api, int id)
{
	struct nbw_rv_device d;
	if (!nbw_rv_device_find(devices, api, id, &d))
		return strcmp(api, "host") == 0;
	return d.host_memory;
}

/* ---- measurements ------------------------------------------------------------------ */

static int endpoint(json_t *stream, const char *key)
{
	return jint(stream, key, -1); /* "host" (a string) is -1 too */
}

static void read_streams(json_t *devices, json_t *m, struct nbw_rv_meas *out)
{
	json_t *streams = json_object_get(m, "streams"), *s;
	size_t i;
	json_array_foreach(streams, i, s) {
		if (i >= NBW_RV_MAX_STREAMS)
			break;
		struct nbw_rv_stream *o = &out->streams[i];
		o->src = endpoint(s, "src");
		o->dst = endpoint(s, "dst");
		o->gbps = rv_median(s, "gbps");
		o->alone_gbps = rv_median(s, "alone_gbps");
		out->nstreams = (int)i + 1;
		int ends[2] = {o->src, o->dst};
		for (int k = 0; k < 2; k++)
			if (ends[k] >= 0 && is_host_memory(devices, out->api, ends[k]))
				out->host_memory = true;
	}
	out->src = out->nstreams ? out->streams[0].src : -1;
	out->dst = out->nstreams ? out->streams[0].dst : -1;
}

static void read_outcome(json_t *m, struct nbw_rv_meas *out)
{
	json_t *ver = json_object_get(m, "verification");
	out->error = json_string_value(json_object_get(m, "error"));
	if (!out->error && json_object_get(m, "error") && !json_is_null(json_object_get(m, "error")))
		out->error = "error (not a string)";
	out->verify_status = jstr(ver, "status");
	out->verify_detail = jstr(ver, "detail");
	/* "passed" with no byte checked verified nothing. */
	json_t *cb = json_object_get(ver, "checked_bytes");
	if (!strcmp(out->verify_status, "passed") && cb &&
	    !(json_is_number(cb) && json_number_value(cb) >= 1.0))
		out->verify_status = "not-run";
	out->stop = jstr(m, "stop");
	/* A bandwidth or time that no transfer can have (negative, zero, NaN) is no figure. */
	out->gbps = rv_median(m, "gbps");
	out->seconds = rv_median(m, "seconds");
	if (!(out->gbps > 0.0))
		out->gbps = NAN;
	if (!(out->seconds > 0.0))
		out->seconds = NAN;
	json_t *g = json_object_get(m, "gbps");
	out->gbps_min = jnum(g, "min");
	out->gbps_max = jnum(g, "max");
	json_t *ci = json_object_get(m, "median_ci");
	out->ci_lo_gbps = jnum(ci, "lo_gbps");
	out->ci_hi_gbps = jnum(ci, "hi_gbps");
	out->ci_half_width_pct = jnum(ci, "half_width_pct");
	json_t *conv = json_object_get(m, "converged");
	out->converged = json_is_boolean(conv) ? json_is_true(conv) : -1;
	out->time_capped = json_is_true(json_object_get(m, "time_capped"));
	out->reps = jint(m, "repetitions", -1);
	out->warmup = jint(m, "warmup", -1);
	double f = jnum(m, "first_rep_s");
	out->first_rep_s = f > 0.0 ? f : NAN;
	out->minor_faults_per_rep = jnum(m, "minor_faults_per_rep");
	out->elapsed_s = jnum(m, "elapsed_s");
	json_t *ov = json_object_get(m, "overlap");
	out->overlap_speedup = jnum(ov, "speedup");
	out->overlap_verdict = jstr(ov, "verdict");
}

/* The link and its theoretical figure; a same-device copy and host memory have none,
 * whatever an older writer put there. */
static void read_link(json_t *m, struct nbw_rv_meas *out)
{
	json_t *th = json_object_get(m, "theoretical");
	double g = jnum(th, "gbps");
	const char *link = jstr(th, "link");
	/* Out of range is refused where the file is loaded (results_check.c); a document made
	 * in memory gets no figure from one. */
	out->theoretical = nbw_theory_gbps_ok(g) ? g : -1.0;
	out->theoretical_recorded = g;
	out->link_recorded = link;
	if (out->same_device) {
		snprintf(out->link, sizeof(out->link), "%s", NBW_SAME_DEVICE_LABEL);
		out->theoretical = -1.0;
	} else if (out->host_memory) {
		snprintf(out->link, sizeof(out->link), "%s", NBW_HOST_MEMORY_LABEL);
		out->theoretical = -1.0;
	} else {
		snprintf(out->link, sizeof(out->link), "%s", *link ? link : "unknown");
	}
}

bool nbw_rv_meas_read(json_t *devices, json_t *m, struct nbw_rv_meas *out)
{
	memset(out, 0, sizeof(*out));
	out->api = out->probe = out->direction = out->mode = out->host_mem = out->path = "";
	out->concurrency = out->peer_access = out->bind = out->size_set = out->hht_sweep = "";
	out->verify_status = out->verify_detail = out->stop = out->overlap_verdict = "";
	out->link_recorded = out->bytes_counting = "";
	out->theoretical_recorded = NAN;
	out->src = out->dst = out->hidden_helpers = out->file = -1;
	out->bytes = -1;
	out->chase_latency_ns = out->chase_overhead_us = NAN;
	out->chase_loads = -1;
	if (!json_is_object(m)) {
		read_outcome(NULL, out);
		return false;
	}
	out->j = m;
	out->api = jstr(m, "api");
	out->probe = jstr(m, "probe");
	out->path = jstr(m, "path");
	out->bytes_counting = jstr(m, "bytes_counting");
	out->direction = jstr(m, "direction");
	out->mode = jstr(m, "mode");
	out->host_mem = jstr(m, "host_mem");
	out->concurrency = jstr(m, "concurrency");
	out->peer_access = jstr(m, "peer_access");
	out->bind = jstr(json_object_get(m, "binding"), "policy");
	out->size_set = jstr(m, "size_set");
	json_t *hh = json_object_get(m, "hht_sweep");
	out->hht_sweep = json_is_string(hh) ? json_string_value(hh) : hh ? "yes" : "";
	out->plane_sweep = json_is_object(json_object_get(m, "plane_sweep"));
	out->hidden_helpers = jint(m, "hidden_helpers", -1);
	out->file = jint(m, "file", -1);
	json_t *b = json_object_get(m, "bytes");
	out->bytes = json_is_integer(b) && json_integer_value(b) >= 0 ? json_integer_value(b) : -1;
	read_streams(devices, m, out);
	read_outcome(m, out);
	out->same_device = strcmp(out->direction, "p2p") == 0 && out->nstreams &&
			   out->src == out->dst;
	read_link(m, out);
	out->face = json_is_object(json_object_get(m, "shape"));
	json_t *c = json_object_get(m, "chase");
	out->chase = strcmp(out->mode, "chase") == 0;
	out->chase_latency_ns = jnum(c, "latency_ns");
	out->chase_overhead_us = jnum(c, "overhead_us");
	out->chase_loads = jint(c, "loads", -1);
	return true;
}

/* The interval of the median GB/s: the document's (median_ci), or for a document written
 * before measurements kept one, the same order statistics of its samples at NBW_CI_LEVEL
 * (nbw_median_ci_of and nbw_median_ci_gbps, as the writer computes it). */
bool nbw_rv_meas_ci_gbps(const struct nbw_rv_meas *x, double *lo, double *hi)
{
	*lo = x->ci_lo_gbps;
	*hi = x->ci_hi_gbps;
	if (isfinite(*lo) && isfinite(*hi) && *lo <= *hi)
		return true;
	*lo = *hi = NAN;
	json_t *samples = json_object_get(x->j, "samples_s"), *v;
	size_t n = json_array_size(samples), i, k = 0;
	json_t *stored = json_object_get(x->j, "median_ci");
	if (n == 0 || x->bytes <= 0 || (stored && !json_is_null(stored)))
		return false; /* none to compute, or the document's own says there is none */
	double *t = malloc(n * sizeof(*t));
	if (!t)
		return false;
	json_array_foreach(samples, i, v)
		if (json_is_number(v) && json_number_value(v) > 0.0)
			t[k++] = json_number_value(v);
	struct nbw_median_ci c;
	double total = (double)x->bytes * (x->nstreams > 0 ? x->nstreams : 1);
	bool ok = k == n && nbw_median_ci_of(t, n, NBW_CI_LEVEL, &c) == 0 &&
		  nbw_median_ci_gbps(&c, total, lo, hi) && *lo <= *hi;
	free(t);
	if (!ok)
		*lo = *hi = NAN;
	return ok;
}

bool nbw_rv_meas_verified(const struct nbw_rv_meas *x)
{
	return x->j && !x->error && strcmp(x->verify_status, "passed") == 0;
}

bool nbw_rv_meas_usable(const struct nbw_rv_meas *x)
{
	return nbw_rv_meas_verified(x) && x->nstreams > 0 && x->bytes >= 0 && !x->hht_sweep[0] &&
	       !x->chase && !x->face;
}

bool nbw_rv_meas_chase_usable(const struct nbw_rv_meas *x)
{
	return x->chase && nbw_rv_meas_verified(x) && x->nstreams > 0 && x->bytes >= 0 &&
	       !x->hht_sweep[0] && isfinite(x->chase_latency_ns);
}

void nbw_rv_meas_ends(const struct nbw_rv_meas *x, char *buf, size_t len)
{
	size_t w = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < x->nstreams && w < len; i++) {
		char a[16], b[16];
		const struct nbw_rv_stream *s = &x->streams[i];
		snprintf(a, sizeof(a), s->src >= 0 ? "%d" : "h", s->src);
		snprintf(b, sizeof(b), s->dst >= 0 ? "%d" : "h", s->dst);
		int n = snprintf(buf + w, len - w, "%s%s->%s", i ? "," : "", a, b);
		w += n > 0 ? (size_t)n : 0;
	}
}

/* ---- the document's head ----------------------------------------------------------- */

static json_t *array_or_null(json_t *o, const char *key)
{
	json_t *a = json_object_get(o, key);
	return json_is_array(a) ? a : NULL;
}

static json_t *object_or_null(json_t *o, const char *key)
{
	json_t *a = json_object_get(o, key);
	return json_is_object(a) ? a : NULL;
}

bool nbw_rv_doc_read(json_t *root, struct nbw_rv_doc *out)
{
	memset(out, 0, sizeof(*out));
	out->state = out->state_detail = out->created = out->tool_version = "";
	out->tool_revision = "";
	out->hostname = out->cpu_model = out->kernel = out->arch = "";
	out->speed_reference_method = "";
	out->schema_version = out->cpus_online = out->cpus_allowed = out->rounds_run = -1;
	out->memory_total_bytes = NAN;
	if (!json_is_object(root))
		return false;
	out->j = root;
	out->state = jstr(root, "state");
	out->state_detail = jstr(root, "state_detail");
	out->created = jstr(root, "created");
	out->tool_version = jstr(json_object_get(root, "tool"), "version");
	out->tool_revision = jstr(json_object_get(root, "tool"), "revision");
	out->schema_version = jint(root, "schema_version", -1);
	out->interrupted = json_is_true(json_object_get(root, "interrupted"));
	out->plane_sweep = json_object_get(root, "plane_sweep") != NULL;
	out->launch_probe = array_or_null(root, "launch_probe");
	out->solver = object_or_null(root, "solver");
	out->solver_children = array_or_null(out->solver, "children");
	out->command = array_or_null(root, "command");
	out->devices = array_or_null(root, "devices");
	out->measurements = array_or_null(root, "measurements");
	out->solver_runs = array_or_null(root, "solver_runs");
	out->skipped = array_or_null(root, "skipped");
	out->topology = object_or_null(root, "topology");
	out->machine = object_or_null(root, "machine");
	out->disturbance = object_or_null(root, "disturbance");
	out->hostname = jstr(out->machine, "hostname");
	out->cpu_model = jstr(out->machine, "cpu_model");
	out->kernel = jstr(out->machine, "kernel");
	out->arch = jstr(out->machine, "arch");
	out->memory_total_bytes = jnum(out->machine, "memory_total_bytes");
	out->cpus_online = jint(out->machine, "cpus_online", -1);
	out->cpus_allowed = jint(out->machine, "cpus_allowed", -1);
	out->software = object_or_null(root, "software");
	out->gaps = json_object_get(root, "gaps");
	out->solver_runs_malformed = json_object_get(root, "solver_runs") && !out->solver_runs;
	out->rounds_run = jint(out->solver, "rounds_run", -1);
	out->environment = object_or_null(out->disturbance, "environment");
	out->stages = array_or_null(out->disturbance, "stages");
	out->speed_reference = array_or_null(out->disturbance, "speed_reference");
	out->speed_reference_method = jstr(out->disturbance, "speed_reference_method");
	return true;
}

bool nbw_rv_skip_read(json_t *s, struct nbw_rv_skip *out)
{
	out->api = jstr(s, "api");
	out->probe = jstr(s, "probe");
	out->what = jstr(s, "what");
	out->reason = jstr(s, "reason");
	return json_is_object(s);
}

bool nbw_rv_child_read(json_t *c, struct nbw_rv_child *out)
{
	out->round = jint(c, "round", -1);
	out->purpose = jstr(c, "purpose");
	out->exit_status = jint(c, "exit_status", 0);
	return json_is_object(c);
}

bool nbw_rv_launch_read(json_t *r, struct nbw_rv_launch *out)
{
	out->form = jstr(r, "form");
	out->g = jint(r, "G", 0);
	out->n = jint(r, "N", 0);
	json_t *st = json_object_get(r, "step_s");
	out->step_s = jnum(st, "median");
	out->ci_lo_s = jnum(st, "ci_lo");
	out->ci_hi_s = jnum(st, "ci_hi");
	json_t *e = json_object_get(r, "error");
	out->ok = json_is_object(r) && (!e || json_is_null(e)) && out->step_s > 0.0 &&
		  strcmp(jstr(json_object_get(r, "verification"), "status"), "passed") == 0;
	return json_is_object(r);
}

bool nbw_rv_env_read(json_t *e, struct nbw_rv_env *out)
{
	json_t *thp = json_object_get(e, "transparent_hugepage");
	out->cpus_online = jint(e, "cpus_online", 0);
	out->kdamond_threads = jint(e, "kdamond_threads", 0);
	out->thp_enabled = jstr(thp, "enabled");
	out->thp_defrag = jstr(thp, "defrag");
	out->cpufreq_governors = jstr(e, "cpufreq_governors");
	return json_is_object(e);
}

bool nbw_rv_stage_read(json_t *s, struct nbw_rv_stage *out)
{
	out->stage = jstr(s, "stage");
	out->seconds = jnum(s, "seconds");
	out->load_avg_start = jnum(s, "load_avg_start");
	out->load_avg_end = jnum(s, "load_avg_end");
	out->other_cpu_share = jnum(s, "other_cpu_share");
	out->steal_share = jnum(s, "steal_share");
	out->kdamond_share = jnum(s, "kdamond_share_of_one_cpu");
	out->reclaim_scanned = jnum(s, "reclaim_scanned_pages");
	out->reclaim_direct_scanned = jnum(s, "reclaim_direct_scanned_pages");
	out->compact_stalls = jnum(s, "compact_stalls");
	out->thp_faults = jnum(s, "thp_fault_alloc");
	out->disturbed = json_is_true(json_object_get(s, "disturbed"));
	out->reasons = array_or_null(s, "reasons");
	return json_is_object(s);
}

bool nbw_rv_speedpoint_read(json_t *p, struct nbw_rv_speedpoint *out)
{
	out->at = jstr(p, "at");
	out->error = json_string_value(json_object_get(p, "error"));
	out->elapsed_s = jnum(p, "elapsed_s");
	out->core_ns_per_step = jnum(p, "core_ns_per_step");
	out->cache_gbps = jnum(p, "cache_gbps");
	out->memory_gbps = jnum(p, "memory_gbps");
	return json_is_object(p);
}
