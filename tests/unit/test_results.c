/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/results.c: measurement JSON, the results document, CSV, atomic write. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/analysis.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static double *dup_samples(const double *x, size_t n)
{
	double *p = malloc(n * sizeof(*p));
	assert_non_null(p);
	memcpy(p, x, n * sizeof(*p));
	return p;
}

/* Two host threads, one device each (DUAL HtoD), with alone references and overlap. The
 * numbers have few significant digits so they survive the document's 10-digit reals. */
static void make_dual(struct nbw_measurement *m)
{
	static const double wall[] = { 0.001, 0.002, 0.0015 };
	static const double s0[] = { 0.0009, 0.0019, 0.0014 };
	static const double s0a[] = { 0.0005, 0.0006 };
	static const double s1[] = { 0.00095, 0.00185, 0.00145 };
	static const double s1a[] = { 0.00055, 0.0007, 0.00065 };
	memset(m, 0, sizeof(*m));
	snprintf(m->api, sizeof(m->api), "omp");
	snprintf(m->probe, sizeof(m->probe), "omp-htod");
	snprintf(m->interface, sizeof(m->interface),
		 "omp_target_memcpy_async(..., depobj) + \"taskwait\", nowait");
	m->dir = NBW_HTOD;
	m->mode = NBW_MODE_ASYNC;
	m->hostmem = NBW_HOSTMEM_PINNED;
	m->conc = NBW_CONC_DUAL;
	snprintf(m->path, sizeof(m->path), "host memory -> device 0 | host memory -> device 1");
	snprintf(m->host_mem_note, sizeof(m->host_mem_note), "llvm_omp_target_alloc_host");
	m->bytes = 2097152;
	m->halo_n = 512;
	snprintf(m->size_set, sizeof(m->size_set), "matrix");
	snprintf(m->bytes_counting, sizeof(m->bytes_counting),
		 "bytes of one transfer; the rate counts both streams");
	m->hidden_helpers = 4;
	m->warmup = 2;
	m->reps = 3;
	m->samples_s = dup_samples(wall, 3);
	m->n = 3;
	m->nstreams = 2;
	m->streams[0].src_device = -1;
	m->streams[0].dst_device = 0;
	m->streams[0].samples_s = dup_samples(s0, 3);
	m->streams[0].n = 3;
	m->streams[0].alone_samples_s = dup_samples(s0a, 2);
	m->streams[0].n_alone = 2;
	m->streams[1].src_device = -1;
	m->streams[1].dst_device = 1;
	m->streams[1].samples_s = dup_samples(s1, 3);
	m->streams[1].n = 3;
	m->streams[1].alone_samples_s = dup_samples(s1a, 3);
	m->streams[1].n_alone = 3;
	m->has_overlap = true;
	m->serial_estimate_s = 0.00115;
	m->concurrent_s = 0.0015;
	m->overlap_speedup = 0.7667;
	snprintf(m->overlap_verdict, sizeof(m->overlap_verdict), "serialized");
	snprintf(m->verify_status, sizeof(m->verify_status), "passed");
	m->verify_bytes = 4194304;
	snprintf(m->verify_detail, sizeof(m->verify_detail), "all 4194304 bytes matched");
	m->error[0] = '\0';
}

/* One stream, DtoH, failed before any timed repetition. */
static void make_single_error(struct nbw_measurement *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->api, sizeof(m->api), "omp");
	snprintf(m->probe, sizeof(m->probe), "omp-dtoh");
	snprintf(m->interface, sizeof(m->interface), "omp_target_memcpy");
	m->dir = NBW_DTOH;
	m->mode = NBW_MODE_SYNC;
	m->hostmem = NBW_HOSTMEM_PAGEABLE;
	m->conc = NBW_CONC_SINGLE;
	snprintf(m->path, sizeof(m->path), "device 0 -> host memory");
	snprintf(m->host_mem_note, sizeof(m->host_mem_note), "malloc");
	m->bytes = 8;
	m->halo_n = 0;
	snprintf(m->bytes_counting, sizeof(m->bytes_counting), "bytes of one transfer");
	m->hidden_helpers = -1;
	m->warmup = 1;
	m->reps = 0;
	m->nstreams = 1;
	m->streams[0].src_device = 0;
	m->streams[0].dst_device = -1;
	snprintf(m->verify_status, sizeof(m->verify_status), "not-run");
	m->verify_bytes = 0;
	snprintf(m->verify_detail, sizeof(m->verify_detail), "no transfer completed");
	snprintf(m->error, sizeof(m->error), "omp_target_memcpy returned 5 (\"device lost\")");
}

/* Single stream, P2P, with samples and no error. */
static void make_p2p(struct nbw_measurement *m)
{
	static const double w[] = { 0.25, 0.5, 0.125, 1.0 };
	memset(m, 0, sizeof(*m));
	snprintf(m->api, sizeof(m->api), "omp");
	snprintf(m->probe, sizeof(m->probe), "omp-p2p");
	snprintf(m->interface, sizeof(m->interface), "omp_target_memcpy");
	m->dir = NBW_P2P;
	m->mode = NBW_MODE_NOWAIT;
	m->hostmem = NBW_HOSTMEM_NONE;
	m->conc = NBW_CONC_SINGLE;
	snprintf(m->path, sizeof(m->path), "staged through the host");
	snprintf(m->bytes_counting, sizeof(m->bytes_counting), "bytes of one transfer");
	m->bytes = 1000000000;
	m->hidden_helpers = 0;
	m->warmup = 0;
	m->reps = 4;
	m->samples_s = dup_samples(w, 4);
	m->n = 4;
	m->nstreams = 1;
	m->streams[0].src_device = 1;
	m->streams[0].dst_device = 0;
	m->streams[0].samples_s = dup_samples(w, 4);
	m->streams[0].n = 4;
	snprintf(m->verify_status, sizeof(m->verify_status), "failed");
	m->verify_bytes = 1000000000;
	snprintf(m->verify_detail, sizeof(m->verify_detail), "first bad byte at 12");
}

static void assert_close(double a, double b, double rel)
{
	if (rel == 0.0) {
		if (a != b)
			fail_msg("%.17g != %.17g", a, b);
		return;
	}
	double scale = fmax(fabs(a), fabs(b));
	if (fabs(a - b) > rel * scale)
		fail_msg("%.17g and %.17g differ by more than %g relative", a, b, rel);
}

static void cmp_summary(const struct nbw_summary *a, const struct nbw_summary *b, double rel)
{
	assert_int_equal(a->n, b->n);
	assert_close(a->median, b->median, rel);
	assert_close(a->min, b->min, rel);
	assert_close(a->max, b->max, rel);
	assert_close(a->mean, b->mean, rel);
	assert_close(a->sd, b->sd, rel);
	assert_close(a->cv, b->cv, rel);
}

static void cmp_samples(const double *a, size_t na, const double *b, size_t nb, double rel)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_close(a[i], b[i], rel);
}

/* Every field of two measurements; \p rel is the relative tolerance of the reals (0: exact). */
static void cmp_measurement(const struct nbw_measurement *a, const struct nbw_measurement *b,
			    double rel)
{
	assert_string_equal(a->api, b->api);
	assert_string_equal(a->probe, b->probe);
	assert_string_equal(a->interface, b->interface);
	assert_int_equal(a->dir, b->dir);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->hostmem, b->hostmem);
	assert_int_equal(a->conc, b->conc);
	assert_string_equal(a->path, b->path);
	assert_string_equal(a->host_mem_note, b->host_mem_note);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->halo_n, b->halo_n);
	assert_string_equal(a->size_set, b->size_set);
	assert_string_equal(a->bytes_counting, b->bytes_counting);
	assert_int_equal(a->hidden_helpers, b->hidden_helpers);
	assert_int_equal(a->warmup, b->warmup);
	assert_int_equal(a->reps, b->reps);
	cmp_samples(a->samples_s, a->n, b->samples_s, b->n, rel);
	cmp_summary(&a->gbps, &b->gbps, rel);
	cmp_summary(&a->seconds, &b->seconds, rel);
	assert_int_equal(a->nstreams, b->nstreams);
	for (unsigned i = 0; i < a->nstreams; i++) {
		const struct nbw_stream *x = &a->streams[i], *y = &b->streams[i];
		assert_int_equal(x->src_device, y->src_device);
		assert_int_equal(x->dst_device, y->dst_device);
		cmp_samples(x->samples_s, x->n, y->samples_s, y->n, rel);
		cmp_samples(x->alone_samples_s, x->n_alone, y->alone_samples_s, y->n_alone, rel);
		cmp_summary(&x->gbps, &y->gbps, rel);
		cmp_summary(&x->alone_gbps, &y->alone_gbps, rel);
	}
	assert_int_equal(a->has_overlap, b->has_overlap);
	assert_close(a->serial_estimate_s, b->serial_estimate_s, rel);
	assert_close(a->concurrent_s, b->concurrent_s, rel);
	assert_close(a->overlap_speedup, b->overlap_speedup, rel);
	assert_string_equal(a->overlap_verdict, b->overlap_verdict);
	assert_string_equal(a->verify_status, b->verify_status);
	assert_int_equal(a->verify_bytes, b->verify_bytes);
	assert_string_equal(a->verify_detail, b->verify_detail);
	assert_string_equal(a->error, b->error);
	assert_int_equal(a->ci.n, b->ci.n);
	assert_int_equal(a->ci.j, b->ci.j);
	assert_int_equal(a->ci.k, b->ci.k);
	assert_close(a->ci.lo, b->ci.lo, rel);
	assert_close(a->ci.hi, b->ci.hi, rel);
	assert_close(a->ci.coverage, b->ci.coverage, rel);
	assert_string_equal(a->stop, b->stop);
	assert_int_equal(a->converged, b->converged);
}

static void roundtrip(const struct nbw_measurement *m)
{
	json_t *j = nbw_measurement_to_json(m);
	assert_non_null(j);
	/* Through text too, as the document is. */
	char *text = json_dumps(j, 0);
	assert_non_null(text);
	json_error_t je;
	json_t *j2 = json_loads(text, 0, &je);
	assert_non_null(j2);
	free(text);
	struct nbw_measurement back;
	char err[256] = "";
	int rc = nbw_measurement_from_json(j2, &back, err, sizeof(err));
	if (rc)
		fail_msg("from_json: %s", err);
	cmp_measurement(m, &back, 0.0);
	nbw_measurement_free(&back);
	json_decref(j2);
	json_decref(j);
}

/* ---- the typed view reads what the writer wrote ----------------------------------------- */

/* The measurement's view, read from the document's text as every reader gets it. */
static json_t *view_of(struct nbw_measurement *m, json_t *devices, struct nbw_rv_meas *x)
{
	nbw_measurement_summarize(m);
	json_t *j = nbw_measurement_to_json(m);
	char *text = json_dumps(j, 0);
	json_decref(j);
	assert_non_null(text);
	json_t *back = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(back);
	assert_true(nbw_rv_meas_read(devices, back, x));
	return back;
}

static void view_agrees(const struct nbw_measurement *m, const struct nbw_rv_meas *x)
{
	assert_string_equal(x->api, m->api);
	assert_string_equal(x->probe, m->probe);
	assert_string_equal(x->direction, nbw_dir_name(m->dir));
	assert_string_equal(x->mode, nbw_mode_name(m->mode));
	assert_string_equal(x->host_mem, nbw_hostmem_name(m->hostmem));
	assert_string_equal(x->concurrency, nbw_conc_name(m->conc));
	assert_string_equal(x->peer_access, nbw_peer_name(m->peer));
	assert_string_equal(x->size_set, m->size_set);
	assert_int_equal(x->bytes, (long long)m->bytes);
	assert_int_equal(x->hidden_helpers, m->hidden_helpers);
	assert_int_equal(x->nstreams, (int)m->nstreams);
	for (unsigned i = 0; i < m->nstreams; i++) {
		assert_int_equal(x->streams[i].src, m->streams[i].src_device);
		assert_int_equal(x->streams[i].dst, m->streams[i].dst_device);
	}
	assert_string_equal(x->verify_status, m->verify_status);
	assert_string_equal(x->verify_detail, m->verify_detail);
	if (m->error[0])
		assert_string_equal(x->error, m->error);
	else
		assert_null(x->error);
	assert_string_equal(x->hht_sweep, "");
	assert_false(x->plane_sweep);
}

static void test_view_dual(void **state)
{
	(void)state;
	struct nbw_measurement m;
	make_dual(&m);
	json_t *devices = json_loads(
		"[{\"api\": \"omp\", \"id\": 0, \"kind\": \"nvptx\", \"is_gpu\": true},"
		" {\"api\": \"omp\", \"id\": 1, \"kind\": \"nvptx\", \"is_gpu\": true}]", 0, NULL);
	struct nbw_rv_meas x;
	json_t *j = view_of(&m, devices, &x);
	view_agrees(&m, &x);
	assert_true(nbw_rv_meas_usable(&x));
	assert_false(x.host_memory);
	assert_false(x.same_device);
	assert_close(x.gbps, m.gbps.median, 1e-9);
	assert_close(x.seconds, m.seconds.median, 1e-9);
	assert_close(x.gbps_min, m.gbps.min, 1e-9);
	assert_close(x.streams[1].alone_gbps, m.streams[1].alone_gbps.median, 1e-9);
	assert_close(x.overlap_speedup, m.overlap_speedup, 1e-9);
	assert_string_equal(x.overlap_verdict, "serialized");
	assert_string_equal(x.link, "unknown"); /* no topology was recorded */
	assert_true(x.theoretical < 0.0);
	char ends[64];
	nbw_rv_meas_ends(&x, ends, sizeof(ends));
	assert_string_equal(ends, "h->0,h->1");
	json_decref(j);
	json_decref(devices);
	nbw_measurement_free(&m);
}

static void test_view_error(void **state)
{
	(void)state;
	struct nbw_measurement m;
	make_single_error(&m);
	struct nbw_rv_meas x;
	json_t *j = view_of(&m, NULL, &x);
	view_agrees(&m, &x);
	assert_false(nbw_rv_meas_verified(&x));
	assert_false(nbw_rv_meas_usable(&x));
	assert_true(isnan(x.gbps));
	assert_int_equal(x.converged, -1);
	json_decref(j);
	nbw_measurement_free(&m);
}

/* A P2P copy between two host-plugin devices is host memory: no link, whatever the
 * measurement's topology says; a copy from a device to itself is not a peer link. */
static void test_view_p2p_labels(void **state)
{
	(void)state;
	struct nbw_measurement m;
	make_p2p(&m);
	snprintf(m.verify_status, sizeof(m.verify_status), "passed");
	m.theoretical_gbps = 900.0;
	snprintf(m.link, sizeof(m.link), "NV18");
	json_t *gpus = json_loads("[{\"api\": \"omp\", \"id\": 0, \"kind\": \"nvptx\"},"
				  " {\"api\": \"omp\", \"id\": 1, \"kind\": \"nvptx\"}]", 0, NULL);
	json_t *hosts = json_loads("[{\"api\": \"omp\", \"id\": 0, \"kind\": \"host-plugin\"},"
				   " {\"api\": \"omp\", \"id\": 1, \"kind\": \"host-plugin\"}]", 0, NULL);
	struct nbw_rv_meas x;
	json_t *j = view_of(&m, gpus, &x);
	view_agrees(&m, &x);
	assert_string_equal(x.link, "NV18");
	assert_close(x.theoretical, 900.0, 1e-12);
	json_decref(j);
	j = view_of(&m, hosts, &x);
	assert_true(x.host_memory);
	assert_string_equal(x.link, NBW_HOST_MEMORY_LABEL);
	assert_true(x.theoretical < 0.0);
	json_decref(j);
	m.streams[0].dst_device = 1;
	j = view_of(&m, gpus, &x);
	assert_true(x.same_device);
	assert_string_equal(x.link, NBW_SAME_DEVICE_LABEL);
	json_decref(j);
	json_decref(gpus);
	json_decref(hosts);
	nbw_measurement_free(&m);
}

/* Keys missing or of the wrong type read as absent, never as a crash or a zero figure. */
static void test_view_missing_keys(void **state)
{
	(void)state;
	struct nbw_rv_meas x;
	assert_false(nbw_rv_meas_read(NULL, NULL, &x));
	assert_false(nbw_rv_meas_usable(&x));
	json_t *j = json_loads("{\"api\": 3, \"bytes\": \"8\", \"streams\": {}, \"gbps\": [1],"
			       " \"converged\": \"yes\", \"error\": 7, \"hht_sweep\": true}", 0, NULL);
	assert_true(nbw_rv_meas_read(NULL, j, &x));
	assert_string_equal(x.api, "");
	assert_int_equal(x.bytes, -1);
	assert_int_equal(x.nstreams, 0);
	assert_int_equal(x.src, -1);
	assert_true(isnan(x.gbps));
	assert_int_equal(x.converged, -1);
	assert_non_null(x.error);
	assert_string_not_equal(x.hht_sweep, "");
	assert_false(nbw_rv_meas_usable(&x));
	json_decref(j);
	struct nbw_rv_device d;
	json_t *devs = json_loads("[{\"api\": \"cuda\", \"id\": 2, \"kind\": \"gpu\", \"is_gpu\":"
				  " true, \"name\": \"H100\"}, 5]", 0, NULL);
	assert_true(nbw_rv_device_find(devs, "cuda", 2, &d));
	assert_string_equal(d.name, "H100");
	assert_int_equal(d.is_gpu, 1);
	assert_false(d.host_memory);
	assert_false(nbw_rv_device_find(devs, "cuda", 3, &d));
	assert_false(nbw_rv_device_find(devs, "hip", 2, NULL));
	assert_int_equal(d.id, -1);
	json_decref(devs);
}

/* ---- measurement summaries and JSON ----------------------------------------------------- */

static void test_summarize(void **state)
{
	(void)state;
	struct nbw_measurement m;
	make_dual(&m);
	nbw_measurement_summarize(&m);
	/* Wall time: both streams' bytes. Median of 1, 1.5, 2 ms is 1.5 ms. */
	assert_int_equal(m.gbps.n, 3);
	assert_close(m.gbps.median, 2.0 * 2097152 / 0.0015 / 1e9, 1e-12);
	assert_close(m.gbps.max, 2.0 * 2097152 / 0.001 / 1e9, 1e-12);
	assert_close(m.gbps.min, 2.0 * 2097152 / 0.002 / 1e9, 1e-12);
	assert_int_equal(m.seconds.n, 3);
	assert_close(m.seconds.median, 0.0015, 1e-12);
	assert_close(m.seconds.mean, 0.0015, 1e-12);
	/* Streams: their own bytes. */
	assert_close(m.streams[0].gbps.median, 2097152 / 0.0014 / 1e9, 1e-12);
	assert_int_equal(m.streams[0].alone_gbps.n, 2);
	assert_close(m.streams[0].alone_gbps.median,
		     (2097152 / 0.0005 / 1e9 + 2097152 / 0.0006 / 1e9) / 2, 1e-12);
	assert_close(m.streams[1].alone_gbps.median, 2097152 / 0.00065 / 1e9, 1e-12);
	nbw_measurement_free(&m);
	assert_null(m.samples_s);
	assert_null(m.streams[0].samples_s);
	assert_null(m.streams[1].alone_samples_s);
}

static void test_json_fields(void **state)
{
	(void)state;
	struct nbw_measurement m;
	make_dual(&m);
	nbw_measurement_summarize(&m);
	json_t *j = nbw_measurement_to_json(&m);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "direction")), "htod");
	assert_string_equal(json_string_value(json_object_get(j, "mode")), "async");
	assert_string_equal(json_string_value(json_object_get(j, "host_mem")), "pinned");
	assert_string_equal(json_string_value(json_object_get(j, "concurrency")), "dual");
	assert_int_equal(json_integer_value(json_object_get(j, "bytes")), 2097152);
	assert_int_equal(json_integer_value(json_object_get(j, "halo_n")), 512);
	assert_string_equal(json_string_value(json_object_get(j, "size_set")), "matrix");
	assert_true(json_is_null(json_object_get(j, "error")));
	/* A backend without a scheduling setting records none. */
	assert_null(json_object_get(j, "sched"));
	assert_null(json_object_get(j, "sched_note"));
	json_t *s0 = json_array_get(json_object_get(j, "streams"), 0);
	assert_string_equal(json_string_value(json_object_get(s0, "src")), "host");
	assert_int_equal(json_integer_value(json_object_get(s0, "dst")), 0);
	assert_int_equal(json_array_size(json_object_get(s0, "alone_samples_s")), 2);
	json_t *ov = json_object_get(j, "overlap");
	assert_true(json_is_object(ov));
	assert_string_equal(json_string_value(json_object_get(ov, "verdict")), "serialized");
	json_t *ver = json_object_get(j, "verification");
	assert_string_equal(json_string_value(json_object_get(ver, "status")), "passed");
	assert_int_equal(json_integer_value(json_object_get(ver, "checked_bytes")), 4194304);
	json_decref(j);
	nbw_measurement_free(&m);

	make_single_error(&m);
	nbw_measurement_summarize(&m);
	j = nbw_measurement_to_json(&m);
	assert_true(json_is_null(json_object_get(j, "halo_n")));
	assert_true(json_is_null(json_object_get(j, "overlap")));
	assert_string_equal(json_string_value(json_object_get(j, "error")), m.error);
	assert_int_equal(json_integer_value(json_object_get(j, "hidden_helpers")), -1);
	s0 = json_array_get(json_object_get(j, "streams"), 0);
	assert_null(json_object_get(s0, "alone_samples_s"));
	assert_string_equal(json_string_value(json_object_get(s0, "dst")), "host");
	json_decref(j);
	nbw_measurement_free(&m);
}

static void test_roundtrip_dual(void **state)
{
	(void)state;
	struct nbw_measurement m;
	make_dual(&m);
	nbw_measurement_summarize(&m);
	roundtrip(&m);
	nbw_measurement_free(&m);
}

static void test_roundtrip_single_error(void **state)
{
	(void)state;
	struct nbw_measurement m;
	make_single_error(&m);
	nbw_measurement_summarize(&m);
	roundtrip(&m);
	nbw_measurement_free(&m);
}

static void test_roundtrip_p2p(void **state)
{
	(void)state;
	struct nbw_measurement m;
	make_p2p(&m);
	nbw_measurement_summarize(&m);
	assert_close(m.gbps.max, 8.0, 1e-12);
	assert_close(m.gbps.min, 1.0, 1e-12);
	assert_close(m.gbps.median, 3.0, 1e-12); /* rates 1 2 4 8 */
	roundtrip(&m);
	nbw_measurement_free(&m);
}

/* Mutate one field of a valid measurement's JSON and expect from_json to fail. */
static void expect_reject(void (*mutate)(json_t *j), const char *err_has)
{
	struct nbw_measurement m;
	make_dual(&m);
	nbw_measurement_summarize(&m);
	json_t *j = nbw_measurement_to_json(&m);
	nbw_measurement_free(&m);
	mutate(j);
	struct nbw_measurement back;
	char err[256] = "";
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	if (err_has && !strstr(err, err_has))
		fail_msg("error '%s' does not mention '%s'", err, err_has);
	/* Nothing is left allocated in the output. */
	assert_null(back.samples_s);
	assert_null(back.streams[0].samples_s);
	assert_null(back.streams[0].alone_samples_s);
	json_decref(j);
}

static void del_probe(json_t *j) { json_object_del(j, "probe"); }
static void del_bytes(json_t *j) { json_object_del(j, "bytes"); }
static void del_samples(json_t *j) { json_object_del(j, "samples_s"); }
static void del_streams(json_t *j) { json_object_del(j, "streams"); }
static void del_verification(json_t *j) { json_object_del(j, "verification"); }
static void api_int(json_t *j) { json_object_set_new(j, "api", json_integer(3)); }
static void bytes_str(json_t *j) { json_object_set_new(j, "bytes", json_string("lots")); }
static void reps_real(json_t *j) { json_object_set_new(j, "repetitions", json_real(2.5)); }
static void dir_bad(json_t *j) { json_object_set_new(j, "direction", json_string("sideways")); }
static void mode_bad(json_t *j) { json_object_set_new(j, "mode", json_string("SYNC")); }
static void mem_bad(json_t *j) { json_object_set_new(j, "host_mem", json_string("huge")); }
static void conc_bad(json_t *j) { json_object_set_new(j, "concurrency", json_string("triple")); }
static void bytes_neg(json_t *j) { json_object_set_new(j, "bytes", json_integer(-8)); }
static void bytes_zero(json_t *j) { json_object_set_new(j, "bytes", json_integer(0)); }
static void warm_neg(json_t *j) { json_object_set_new(j, "warmup", json_integer(-1)); }

static void sample_str(json_t *j)
{
	json_array_append_new(json_object_get(j, "samples_s"), json_string("fast"));
}

static void stream_sample_str(json_t *j)
{
	json_t *s = json_array_get(json_object_get(j, "streams"), 1);
	json_array_append_new(json_object_get(s, "alone_samples_s"), json_null());
}

static void stream_src_bad(json_t *j)
{
	json_t *s = json_array_get(json_object_get(j, "streams"), 1);
	json_object_set_new(s, "src", json_integer(-2));
}

static void three_streams(json_t *j)
{
	json_t *a = json_object_get(j, "streams");
	json_array_append(a, json_array_get(a, 0));
}

static void overlap_bad(json_t *j)
{
	json_object_del(json_object_get(j, "overlap"), "verdict");
}

static void test_from_json_reject(void **state)
{
	(void)state;
	expect_reject(del_probe, "probe");
	expect_reject(del_bytes, "bytes");
	expect_reject(del_samples, "samples_s");
	expect_reject(del_streams, "streams");
	expect_reject(del_verification, NULL);
	expect_reject(api_int, "api");
	/* A wrongly typed integer field is named in the message. */
	expect_reject(bytes_str, "bytes");
	expect_reject(reps_real, "repetitions");
	expect_reject(dir_bad, "direction");
	expect_reject(mode_bad, "mode");
	expect_reject(mem_bad, "host_mem");
	expect_reject(conc_bad, "concurrency");
	expect_reject(bytes_neg, "bytes");
	expect_reject(bytes_zero, "bytes");
	expect_reject(warm_neg, NULL);
	expect_reject(sample_str, "samples_s");
	expect_reject(stream_sample_str, "alone_samples_s");
	expect_reject(stream_src_bad, "streams[1]");
	expect_reject(three_streams, "streams");
	expect_reject(overlap_bad, "overlap");
}

static void test_from_json_not_object(void **state)
{
	(void)state;
	struct nbw_measurement m;
	char err[128] = "";
	json_t *a = json_array();
	assert_int_equal(nbw_measurement_from_json(a, &m, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	json_decref(a);
	err[0] = '\0';
	assert_int_equal(nbw_measurement_from_json(NULL, &m, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
}

/* ---- files ------------------------------------------------------------------------------ */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = (cap ? cap * 2 : 8192);
			char *nb = realloc(buf, cap);
			assert_non_null(nb);
			buf = nb;
		}
		size_t r = fread(buf + len, 1, cap - len - 1, f);
		len += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Names in a folder (not . and ..), joined by spaces in sorted order. */
static void list_dir(const char *dir, char *out, size_t len)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
			size_t l = strlen(out);
			snprintf(out + l, len - l, "%s%s", l ? " " : "", names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
}

/* Remove a folder of plain files. */
static void rm_tree(const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s", dir, names[i]->d_name);
			unlink(p);
		}
		free(names[i]);
	}
	free(names);
	rmdir(dir);
}

static int make_tmpdir(void **state)
{
	char *dir = strdup("/tmp/nodebw-unit-XXXXXX");
	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	*state = dir;
	return 0;
}

static int remove_tmpdir(void **state)
{
	rm_tree(*state);
	free(*state);
	return 0;
}

/* CSV fields of one line, quotes respected. */
static int csv_count(const char *line)
{
	int n = 1;
	bool q = false;
	for (const char *p = line; *p && *p != '\n'; p++) {
		if (*p == '"')
			q = !q;
		else if (*p == ',' && !q)
			n++;
	}
	return n;
}

static void check_csv(const char *path, unsigned nmeas)
{
	char *text = read_text(path);
	assert_non_null(text);
	char *save = NULL;
	unsigned line = 0;
	int columns = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save), line++) {
		if (line == 0) {
			/* The header first (pandas.read_csv with no options), no comment line. */
			assert_true(strncmp(l, "api,probe,", 10) == 0);
			assert_non_null(strstr(l, "median_gbps"));
			assert_non_null(strstr(l, "theoretical_gbps"));
			columns = csv_count(l);
			assert_true(columns > 10);
		} else {
			assert_true(strncmp(l, "omp,omp-", 8) == 0);
			assert_int_equal(csv_count(l), columns);
		}
	}
	assert_int_equal(line, 1 + nmeas);
	free(text);
}

static void test_doc_write_load(void **state)
{
	const char *dir = *state;
	char *argv[] = { "nodebw", "probe", "--quick", "--sizes", "8,2MiB", NULL };
	struct nbw_doc *d = nbw_doc_new(5, argv);
	assert_non_null(d);
	struct nbw_device dev = { .id = 1, .is_gpu = false };
	snprintf(dev.kind, sizeof(dev.kind), "host-plugin");
	snprintf(dev.name, sizeof(dev.name), "x86_64 host offload device");
	snprintf(dev.memory, sizeof(dev.memory), "host DRAM");
	nbw_doc_add_device(d, "omp", &dev);
	/* Device 0 is listed too (a reader refuses a stream that ends on an unlisted device),
	 * of another kind: a copy between the two is of "mixed" kinds. */
	dev.id = 0;
	snprintf(dev.kind, sizeof(dev.kind), "host-memory");
	nbw_doc_add_device(d, "omp", &dev);
	nbw_doc_add_skip(d, "omp", "omp-p2p", "bidir", "needs two devices; 1 found");

	struct nbw_measurement m[3];
	make_dual(&m[0]);
	make_single_error(&m[1]);
	make_p2p(&m[2]);
	snprintf(m[2].stop, sizeof(m[2].stop), "time cap 0.05 s");
	for (int i = 0; i < 3; i++)
		nbw_measurement_summarize(&m[i]);
	nbw_doc_add_measurement(d, &m[0]);
	nbw_doc_add_measurement(d, &m[1]);

	char err[512] = "";
	if (nbw_doc_write(d, dir, err, sizeof(err)))
		fail_msg("nbw_doc_write: %s", err);
	char names[512];
	list_dir(dir, names, sizeof(names));
	assert_string_equal(names, "results.csv results.json");

	/* The runner writes again after every series: the files are replaced. */
	nbw_doc_add_measurement(d, &m[2]);
	nbw_doc_set(d, "note", json_string("unit test"));
	if (nbw_doc_write(d, dir, err, sizeof(err)))
		fail_msg("nbw_doc_write: %s", err);
	list_dir(dir, names, sizeof(names));
	assert_string_equal(names, "results.csv results.json");

	char path[4096];
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	check_csv(path, 3);
	char *csv = read_text(path);
	assert_non_null(csv);
	/* The quote in the interface text is doubled inside a quoted field. */
	assert_non_null(strstr(csv, "\"omp_target_memcpy_async(..., depobj) + \"\"taskwait\"\", "
				    "nowait\""));
	/* api ... dst, device_kind, bytes, halo_n, size_set, hidden_helpers, hht_sweep */
	if (!strstr(csv, "omp,omp-htod,htod,async,pinned,dual,host+host,0+1,\"mixed\",2097152,512,matrix,4,\"\",n/a,,,3,") ||
	    !strstr(csv, "omp,omp-dtoh,dtoh,sync,pageable,single,0,host,\"host-memory\",8,,,-1,\"\",n/a,,,0,,,,,,,,,,,,\"\",,,,\"\",,not-run,") ||
	    !strstr(csv, "omp,omp-p2p,p2p,nowait,none,single,1,0,\"mixed\",1000000000,,,0,\"\",n/a,,,4,"))
		fail_msg("unexpected CSV rows:\n%s", csv);
	/* The median's interval: ranks 1 and 4 of 4 (coverage 1 - 2/16), 1e9 B in 1 s and
	 * 0.125 s = [1, 8] GB/s, +-166.667 % of the median 0.375 s; the dual one [1, 2] ms of
	 * 2 x 2 MiB, +-33.333 %, 0.75; why they stopped (p2p: the time cap, not converged). */
	if (!strstr(csv, ",4,3,1,8,3.75,0.8255,0.375,1,8,166.667,0.8750,false,\"time cap 0.05 s\",") ||
	    !strstr(csv, ",0.0015,2.09715,4.1943,33.333,0.7500,,\"\","))
		fail_msg("unexpected interval columns:\n%s", csv);
	free(csv);

	snprintf(path, sizeof(path), "%s/results.json", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	struct nbw_doc *l = nbw_doc_load(path, err, sizeof(err));
	if (!l)
		fail_msg("nbw_doc_load: %s", err);
	assert_string_equal(json_string_value(json_object_get(l->root, "schema")), NBW_SCHEMA_NAME);
	assert_int_equal(json_integer_value(json_object_get(l->root, "schema_version")),
			 NBW_SCHEMA_VERSION);
	assert_string_equal(json_string_value(json_object_get(l->root, "note")), "unit test");
	json_t *cmd = json_object_get(l->root, "command");
	assert_int_equal(json_array_size(cmd), 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(json_string_value(json_array_get(cmd, i)), argv[i]);
	assert_true(json_is_object(json_object_get(l->root, "machine")));
	assert_true(json_is_object(json_object_get(l->root, "software")));
	assert_true(json_is_object(json_object_get(l->root, "environment")));
	assert_true(json_equal(l->devices, d->devices));
	assert_true(json_equal(l->skipped, d->skipped));
	json_t *dv = json_array_get(l->devices, 0);
	assert_string_equal(json_string_value(json_object_get(dv, "api")), "omp");
	assert_int_equal(json_integer_value(json_object_get(dv, "id")), 1);
	assert_string_equal(json_string_value(json_object_get(dv, "name")), dev.name);
	assert_true(json_is_false(json_object_get(dv, "is_gpu")));
	json_t *sk = json_array_get(l->skipped, 0);
	assert_string_equal(json_string_value(json_object_get(sk, "reason")),
			    "needs two devices; 1 found");
	assert_int_equal(json_array_size(l->measurements), 3);
	for (size_t i = 0; i < 3; i++) {
		struct nbw_measurement x;
		if (nbw_measurement_from_json(json_array_get(l->measurements, i), &x, err,
					      sizeof(err)))
			fail_msg("measurements[%zu]: %s", i, err);
		/* The document's reals carry 10 significant digits. */
		cmp_measurement(&m[i], &x, 1e-9);
		nbw_measurement_free(&x);
	}
	nbw_doc_free(l);
	nbw_doc_free(d);
	for (int i = 0; i < 3; i++)
		nbw_measurement_free(&m[i]);
}

static void test_doc_write_new_folder(void **state)
{
	const char *dir = *state;
	char sub[4096], err[512] = "";
	snprintf(sub, sizeof(sub), "%s/run1", dir);
	char *argv[] = { "nodebw", NULL };
	struct nbw_doc *d = nbw_doc_new(1, argv);
	assert_non_null(d);
	/* The results folder is created; an empty document is fine. */
	assert_int_equal(nbw_doc_write(d, sub, err, sizeof(err)), 0);
	char names[512];
	list_dir(sub, names, sizeof(names));
	assert_string_equal(names, "results.csv results.json");
	char path[4200];
	snprintf(path, sizeof(path), "%s/results.csv", sub);
	check_csv(path, 0);
	rm_tree(sub);
	/* A folder whose parent is missing cannot be made. */
	snprintf(sub, sizeof(sub), "%s/no/such", dir);
	err[0] = '\0';
	assert_int_equal(nbw_doc_write(d, sub, err, sizeof(err)), -1);
	assert_non_null(strstr(err, sub));
	nbw_doc_free(d);
}

static struct nbw_doc *load_bad(const char *dir, const char *name, const char *text, char *err,
				size_t errlen, char *path, size_t plen)
{
	snprintf(path, plen, "%s/%s", dir, name);
	write_text(path, text);
	err[0] = '\0';
	struct nbw_doc *d = nbw_doc_load(path, err, errlen);
	assert_null(d);
	assert_true(strlen(err) > 0);
	assert_non_null(strstr(err, path));
	return d;
}

static void test_doc_load_malformed(void **state)
{
	const char *dir = *state;
	char err[1024], path[4096];
	load_bad(dir, "trunc.json",
		 "{\n \"schema\": \"nodebw-results\",\n \"schema_version\": 1,\n \"devices\": [",
		 err, sizeof(err), path, sizeof(path));
	/* "<path>:<line>:<column>: <text>" */
	const char *after = strstr(err, path) + strlen(path);
	int line = 0, col = 0, used = 0;
	assert_int_equal(sscanf(after, ":%d:%d:%n", &line, &col, &used), 2);
	assert_true(used > 0);
	assert_true(line >= 1);
	assert_true(col >= 0);

	/* An empty file is malformed too. */
	load_bad(dir, "empty.json", "", err, sizeof(err), path, sizeof(path));
	after = strstr(err, path) + strlen(path);
	assert_int_equal(sscanf(after, ":%d:%d:", &line, &col), 2);
}

static void test_doc_load_schema(void **state)
{
	const char *dir = *state;
	char err[1024], path[4096];
	load_bad(dir, "other.json",
		 "{\"schema\": \"other-tool\", \"schema_version\": 1, \"devices\": [],"
		 " \"skipped\": [], \"measurements\": []}",
		 err, sizeof(err), path, sizeof(path));
	assert_non_null(strstr(err, "schema"));
	assert_non_null(strstr(err, NBW_SCHEMA_NAME));

	load_bad(dir, "noschema.json", "{\"devices\": [], \"skipped\": [], \"measurements\": []}",
		 err, sizeof(err), path, sizeof(path));
	assert_non_null(strstr(err, "schema"));

	load_bad(dir, "v3.json",
		 "{\"schema\": \"nodebw-results\", \"schema_version\": 3, \"devices\": [],"
		 " \"skipped\": [], \"measurements\": []}",
		 err, sizeof(err), path, sizeof(path));
	assert_non_null(strstr(err, "schema_version 3"));

	load_bad(dir, "arr.json", "[1, 2]", err, sizeof(err), path, sizeof(path));

	load_bad(dir, "noarrays.json",
		 "{\"schema\": \"nodebw-results\", \"schema_version\": 1, \"devices\": {},"
		 " \"skipped\": [], \"measurements\": []}",
		 err, sizeof(err), path, sizeof(path));
	assert_non_null(strstr(err, "devices"));

	load_bad(dir, "badmeas.json",
		 "{\"schema\": \"nodebw-results\", \"schema_version\": 1, \"devices\": [],"
		 " \"skipped\": [], \"measurements\": [{\"api\": \"omp\"}]}",
		 err, sizeof(err), path, sizeof(path));
	assert_non_null(strstr(err, "measurements[0]"));

	/* A missing file names the file. */
	snprintf(path, sizeof(path), "%s/absent.json", dir);
	err[0] = '\0';
	assert_null(nbw_doc_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, path));
}

static void test_write_atomic(void **state)
{
	const char *dir = *state;
	char path[4096], err[512] = "";
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	const char *a = "first version\n", *b = "second\n";
	assert_int_equal(nbw_write_atomic(path, a, strlen(a), err, sizeof(err)), 0);
	char *t = read_text(path);
	assert_non_null(t);
	assert_string_equal(t, a);
	free(t);
	assert_int_equal(nbw_write_atomic(path, b, strlen(b), err, sizeof(err)), 0);
	t = read_text(path);
	assert_non_null(t);
	assert_string_equal(t, b);
	free(t);
	/* Zero bytes make an empty file. */
	assert_int_equal(nbw_write_atomic(path, "", 0, err, sizeof(err)), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	char names[512];
	list_dir(dir, names, sizeof(names));
	assert_string_equal(names, "out.txt");
}

static void test_write_atomic_no_folder(void **state)
{
	const char *dir = *state;
	char path[4096], missing[4096], err[512] = "";
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	snprintf(path, sizeof(path), "%s/results.json", missing);
	assert_int_equal(nbw_write_atomic(path, "{}", 2, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	assert_non_null(strstr(err, missing));
	struct stat st;
	assert_int_equal(stat(missing, &st), -1);
	assert_int_equal(errno, ENOENT);
	char names[512];
	list_dir(dir, names, sizeof(names));
	assert_string_equal(names, "");
}

/* Schema 2: peer access, start, device timer and per-stream device samples survive a round
 * trip; a schema-1 measurement without them loads with peer access n/a. */
static void test_roundtrip_native_fields(void **state)
{
	(void)state;
	static const double dev0[] = { 0.0008, 0.0018, 0.0013 };
	struct nbw_measurement m, back;
	char err[256];
	make_dual(&m);
	snprintf(m.api, sizeof(m.api), "cuda");
	m.hidden_helpers = -1;
	m.peer = NBW_PEER_OFF;
	snprintf(m.start, sizeof(m.start), "backend gate: both copies enqueued");
	snprintf(m.device_timer, sizeof(m.device_timer), "cudaEventElapsedTime");
	snprintf(m.sched, sizeof(m.sched), "blocking");
	snprintf(m.sched_note, sizeof(m.sched_note), "left as found");
	m.streams[0].device_samples_s = dup_samples(dev0, 3);
	m.streams[0].n_device = 3;
	nbw_measurement_summarize(&m);
	json_t *j = nbw_measurement_to_json(&m);
	assert_string_equal(json_string_value(json_object_get(j, "peer_access")), "disabled");
	assert_non_null(json_object_get(json_array_get(json_object_get(j, "streams"), 0),
					"device_gbps"));
	assert_null(json_object_get(json_array_get(json_object_get(j, "streams"), 1),
				    "device_samples_s"));
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), 0);
	assert_int_equal(back.peer, NBW_PEER_OFF);
	assert_string_equal(back.start, m.start);
	assert_string_equal(back.device_timer, "cudaEventElapsedTime");
	assert_string_equal(back.sched, "blocking");
	assert_string_equal(back.sched_note, "left as found");
	assert_int_equal(back.streams[0].n_device, 3);
	assert_int_equal(back.streams[1].n_device, 0);
	/* 2 MiB in 1.3 ms (the median) = 1.613 GB/s */
	assert_true(fabs(back.streams[0].device_gbps.median - 2097152 / 0.0013 / 1e9) < 1e-6);
	nbw_measurement_free(&back);

	json_object_del(j, "peer_access");
	json_object_del(j, "start");
	json_object_del(j, "device_timer");
	json_object_del(j, "sched");
	json_object_del(j, "sched_note");
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), 0);
	assert_int_equal(back.peer, NBW_PEER_NA);
	assert_string_equal(back.start, "");
	assert_string_equal(back.device_timer, "");
	assert_string_equal(back.sched, "");
	nbw_measurement_free(&back);

	/* sched comes with its note; a non-string is rejected. */
	json_object_set_new(j, "sched", json_string("spin"));
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "sched_note"));
	json_object_set_new(j, "sched", json_integer(1));
	json_object_set_new(j, "sched_note", json_string("x"));
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "sched"));
	json_object_del(j, "sched");
	json_object_del(j, "sched_note");

	json_object_set_new(j, "peer_access", json_string("sometimes"));
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "peer_access"));
	json_object_set_new(j, "peer_access", json_string("enabled"));
	json_object_set_new(j, "start", json_integer(3));
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "start"));
	json_decref(j);
	nbw_measurement_free(&m);
}


/* The median's interval: in the JSON as results.c writes it, recomputed from the samples on
 * reading, with why the repetitions stopped; absent on an error; a document without it
 * loads and gets it from its samples, without claiming a stop reason. */
static void test_median_ci(void **state)
{
	(void)state;
	struct nbw_measurement m, back;
	char err[256];
	make_p2p(&m); /* 0.25, 0.5, 0.125, 1.0 s of 1e9 B */
	snprintf(m.stop, sizeof(m.stop), "max repetitions 4");
	nbw_measurement_summarize(&m);
	assert_int_equal(m.ci.n, 4);
	assert_false(m.converged);
	json_t *j = nbw_measurement_to_json(&m);
	json_t *ci = json_object_get(j, "median_ci");
	assert_true(json_is_object(ci));
	assert_close(json_number_value(json_object_get(ci, "level")), 0.95, 0.0);
	assert_close(json_number_value(json_object_get(ci, "coverage")), 0.875, 1e-12);
	assert_close(json_number_value(json_object_get(ci, "lo_s")), 0.125, 0.0);
	assert_close(json_number_value(json_object_get(ci, "hi_s")), 1.0, 0.0);
	assert_close(json_number_value(json_object_get(ci, "lo_gbps")), 1.0, 1e-12);
	assert_close(json_number_value(json_object_get(ci, "hi_gbps")), 8.0, 1e-12);
	assert_close(json_number_value(json_object_get(ci, "half_width_pct")),
		     100.0 * 0.625 / 0.375, 1e-12);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(ci, "ranks"), 0)), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(ci, "ranks"), 1)), 4);
	assert_string_equal(json_string_value(json_object_get(ci, "method")),
			    "order statistics (binomial ranks 1,4 of 4)");
	assert_true(json_is_false(json_object_get(j, "converged")));
	assert_string_equal(json_string_value(json_object_get(j, "stop")), "max repetitions 4");
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), 0);
	assert_string_equal(back.stop, "max repetitions 4");
	assert_false(back.converged);
	assert_int_equal(back.ci.j, 1);
	nbw_measurement_free(&back);

	/* Samples within +-1 %: 20 of them, ranks 6 and 15 (95.86 %). */
	double *x = malloc(20 * sizeof(*x));
	assert_non_null(x);
	for (int i = 0; i < 20; i++)
		x[i] = 1.0 + 0.001 * (double)((i * 7) % 20);
	free(m.samples_s);
	free(m.streams[0].samples_s);
	m.samples_s = x;
	m.streams[0].samples_s = dup_samples(x, 20);
	m.n = m.streams[0].n = 20;
	m.reps = 20;
	snprintf(m.stop, sizeof(m.stop), "interval within +-1 %%");
	nbw_measurement_summarize(&m);
	assert_true(m.converged);
	assert_int_equal(m.ci.j, 6);
	assert_int_equal(m.ci.k, 15);
	assert_close(m.ci.lo, 1.005, 1e-12);
	assert_close(m.ci.hi, 1.014, 1e-12);
	json_decref(j);
	j = nbw_measurement_to_json(&m);
	assert_true(json_is_true(json_object_get(j, "converged")));
	roundtrip(&m);

	/* An older document: neither field; the interval comes from the samples, no stop. */
	json_object_del(j, "median_ci");
	json_object_del(j, "converged");
	json_object_del(j, "stop");
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), 0);
	assert_int_equal(back.ci.n, 20);
	assert_close(back.ci.lo, 1.005, 1e-9);
	assert_string_equal(back.stop, "");
	json_t *again = nbw_measurement_to_json(&back);
	assert_true(json_is_object(json_object_get(again, "median_ci")));
	assert_null(json_object_get(again, "converged"));
	assert_null(json_object_get(again, "stop"));
	json_decref(again);
	nbw_measurement_free(&back);

	/* Wrong types are refused, naming the field. */
	json_object_set_new(j, "stop", json_integer(3));
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'stop'"));
	json_object_set_new(j, "stop", json_string("fixed --reps"));
	json_object_set_new(j, "converged", json_string("yes"));
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'converged'"));
	json_object_set_new(j, "converged", json_true());
	json_object_set_new(j, "median_ci", json_integer(1));
	assert_int_equal(nbw_measurement_from_json(j, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'median_ci'"));
	json_decref(j);
	nbw_measurement_free(&m);

	/* An error: no interval, no stop. */
	make_single_error(&m);
	snprintf(m.stop, sizeof(m.stop), "fixed --reps");
	nbw_measurement_summarize(&m);
	j = nbw_measurement_to_json(&m);
	assert_true(json_is_null(json_object_get(j, "median_ci")));
	assert_null(json_object_get(j, "converged"));
	assert_null(json_object_get(j, "stop"));
	json_decref(j);
	nbw_measurement_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_json_fields),
		cmocka_unit_test(test_roundtrip_dual),
		cmocka_unit_test(test_roundtrip_single_error),
		cmocka_unit_test(test_roundtrip_p2p),
		cmocka_unit_test(test_roundtrip_native_fields),
		cmocka_unit_test(test_median_ci),
		cmocka_unit_test(test_from_json_reject),
		cmocka_unit_test(test_from_json_not_object),
		cmocka_unit_test(test_view_dual),
		cmocka_unit_test(test_view_error),
		cmocka_unit_test(test_view_p2p_labels),
		cmocka_unit_test(test_view_missing_keys),
		cmocka_unit_test_setup_teardown(test_doc_write_load, make_tmpdir, remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_doc_write_new_folder, make_tmpdir,
						remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_doc_load_malformed, make_tmpdir, remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_doc_load_schema, make_tmpdir, remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_write_atomic, make_tmpdir, remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_write_atomic_no_folder, make_tmpdir,
						remove_tmpdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
