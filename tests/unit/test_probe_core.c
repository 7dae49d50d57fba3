/* SPDX-License-Identifier: BSD-3-Clause */
/* The probe core (probe/) without a nodebw process: options from the real option parser,
 * series from the planner, run by the executor (probe/exec.c) and recorded (probe/record.c)
 * on an in-test backend whose four "devices" are host buffers that it really copies
 * (memcpy). Its knobs make the copies into one device fail, or corrupt them, take long, or
 * go through fresh pages (as libomptarget stages a host-plugin device-to-device copy):
 * the other series keep their results, a corrupted copy fails its check, and the counts,
 * sizes, stop reasons and the new fields (time_capped, first_rep_s, minor_faults_per_rep)
 * are what the executor did. The backend exists only in this test; nothing it measures
 * reaches a results file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cmocka.h>

#include "../../probe/exec.h"
#include "nodebw/cli.h"
#include "nodebw/plan.h"
#include "nodebw/results.h"
#include "nodebw/session.h"

#define NDEV 4

/* ---- the in-test backend: device memory is host memory ------------------------------- */

static struct {
	int fail_dst;       /* transfers into this device fail (-EIO); -1: none */
	int corrupt_dst;    /* transfers into this device flip their last byte; -1: none */
	long delay_ns;      /* each transfer sleeps this long */
	bool stage;         /* each transfer goes through a fresh mmap'd buffer, as
			     * libomptarget's host plugin stages a device-to-device copy */
} knob = { -1, -1, 0, false };

static const char *mem_interface(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t len)
{
	if (mode != NBW_MODE_SYNC) {
		snprintf(why, len, "the test backend copies synchronously only");
		return NULL;
	}
	return dir == NBW_P2P ? "memcpy (device to device)" : "memcpy";
}

static int mem_alloc(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	b->ptr = malloc(b->bytes ? b->bytes : 1);
	return b->ptr ? 0 : -ENOMEM;
}

static void mem_free(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	free(b->ptr);
	b->ptr = NULL;
}

static int mem_write(struct nbw_backend *be, struct nbw_buf *dst, const void *host, size_t n)
{
	(void)be;
	memcpy(dst->ptr, host, n);
	return 0;
}

static int mem_read(struct nbw_backend *be, void *host, const struct nbw_buf *src, size_t n)
{
	(void)be;
	memcpy(host, src->ptr, n);
	return 0;
}

static int mem_transfer(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	if (knob.delay_ns) {
		struct timespec ts = { 0, knob.delay_ns };
		nanosleep(&ts, NULL);
	}
	if (x->dst->loc == NBW_LOC_DEVICE && x->dst->device == knob.fail_dst)
		return -EIO;
	if (knob.stage) {
		void *b = mmap(NULL, x->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (b == MAP_FAILED)
			return -ENOMEM;
		memcpy(b, x->src->ptr, x->bytes);
		memcpy(x->dst->ptr, b, x->bytes);
		munmap(b, x->bytes);
	} else {
		memcpy(x->dst->ptr, x->src->ptr, x->bytes);
	}
	if (x->dst->loc == NBW_LOC_DEVICE && x->dst->device == knob.corrupt_dst && x->bytes)
		((unsigned char *)x->dst->ptr)[x->bytes - 1] ^= 0xff;
	return 0;
}

static const char *mem_note(struct nbw_backend *be, enum nbw_hostmem mem, int dev)
{
	(void)be, (void)mem, (void)dev;
	return "malloc (test backend)";
}

static const char *mem_path(struct nbw_backend *be, int src, int dst)
{
	(void)be, (void)src, (void)dst;
	return "memcpy in host memory (test backend)";
}

static const char *mem_last_error(struct nbw_backend *be)
{
	(void)be;
	return "test backend: transfer refused (EIO)";
}

static const struct nbw_backend_ops mem_ops = {
	.abi = NBW_PROBE_ABI,
	.name = "memtest",
	.description = "host buffers copied with memcpy (probe core unit test)",
	.interface = mem_interface,
	.hostmem_note = mem_note,
	.p2p_path = mem_path,
	.alloc = mem_alloc,
	.free = mem_free,
	.write = mem_write,
	.read = mem_read,
	.transfer = mem_transfer,
	.last_error = mem_last_error,
};

/* ---- running a direction through planner, executor and record ------------------------- */

struct collected {
	json_t *all;        /* the measurements as JSON (what a results file gets) */
};

static void collect(void *ctx, const struct nbw_measurement *m)
{
	struct collected *c = ctx;
	json_array_append_new(c->all, nbw_measurement_to_json(m));
}

static void parse_opts(struct nbw_probe_opts *o, const char *extra)
{
	char line[256], *argv[32];
	int argc = 0;
	/* Decimal units: 4K is 4000 bytes, 256K 256000. */
	snprintf(line, sizeof(line),
		 "probe --quick --mode sync --host-mem pageable --sizes 8,4K,256K %s", extra);
	for (char *t = strtok(line, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	char err[256] = "";
	assert_int_equal(nbw_cli_parse_probe(argc, argv, o, err, sizeof(err)), 0);
}

/* Every series of \p dir that the planner plans for four devices, run; the measurements in
 * \p out (a new array); the number of planned, running series returned. */
static size_t run_direction(const struct nbw_probe_opts *o, enum nbw_dir dir, json_t **out,
			    size_t *expected)
{
	static struct nbw_device devinfo[NDEV];
	for (int d = 0; d < NDEV; d++)
		devinfo[d] = (struct nbw_device){ .id = d, .kind = "test", .runtime_id = d };
	const int all[NDEV] = { 0, 1, 2, 3 };
	struct nbw_plan_caps caps = { .interface = mem_interface };
	/* --devices as the runner takes it: named devices run the whole sweep. */
	struct nbw_plan_devices pd = { .devs = o->ndevices ? o->devices : all,
				       .nd = o->ndevices ? o->ndevices : NDEV,
				       .named = o->ndevices > 0 };
	struct nbw_plan plan = { 0 };
	assert_int_equal(nbw_plan_series(o, dir, &caps, &pd, &plan), 0);
	struct nbw_workers *w = nbw_workers_new();
	assert_non_null(w);
	struct nbw_bufpool pool;
	nbw_bufpool_init(&pool, &mem_ops, NULL, 0);
	static volatile sig_atomic_t no_stop;
	struct collected c = { json_array() };
	size_t series = 0;
	for (size_t i = 0; i < plan.n; i++) {
		if (plan.v[i].skip[0])
			continue;
		struct nbw_exec x = { .ops = &mem_ops, .pool = &pool, .o = o, .workers = w,
				      .devinfo = devinfo, .plan = &plan.v[i], .stop = &no_stop };
		for (unsigned s = 0; s < NBW_MAX_STREAMS; s++)
			x.node[s] = -1;
		nbw_exec_series(&x, collect, &c);
		series++;
	}
	*expected = nbw_plan_measurements(&plan, o->sizes.n);
	nbw_bufpool_destroy(&pool);
	nbw_workers_free(w);
	nbw_plan_free(&plan);
	*out = c.all;
	return series;
}

static void load(json_t *j, struct nbw_measurement *m)
{
	char err[256] = "";
	int rc = nbw_measurement_from_json(j, m, err, sizeof(err));
	if (rc)
		fprintf(stderr, "measurement does not read back: %s\n", err);
	assert_int_equal(rc, 0);
}

static bool into(const struct nbw_measurement *m, int dev)
{
	for (unsigned i = 0; i < m->nstreams; i++)
		if (m->streams[i].dst_device == dev)
			return true;
	return false;
}

/* ---- tests ----------------------------------------------------------------------------- */

/* Every planned P2P series runs: the first pair sweeps every size, the other pairs their two
 * matrix sizes; every copy is checked and every count recorded as it ran. */
static void test_p2p_series_run_and_verify(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	parse_opts(&o, "--threads 1");
	json_t *all;
	size_t expected, series = run_direction(&o, NBW_P2P, &all, &expected);
	assert_int_equal(series, NDEV * (NDEV - 1)); /* every ordered pair */
	assert_int_equal(json_array_size(all), expected);
	size_t sweep = 0, i;
	json_t *j;
	json_array_foreach(all, i, j) {
		struct nbw_measurement m;
		load(j, &m);
		assert_string_equal(m.error, "");
		assert_string_equal(m.verify_status, "passed");
		assert_true(m.verify_bytes == m.bytes);
		if (!(m.bytes == 8 || m.bytes == 4000 || m.bytes == 256000))
			fail_msg("size %llu not asked for", (unsigned long long)m.bytes);
		assert_true(m.reps >= 1);
		assert_int_equal(m.n, m.reps);
		assert_true(m.stop[0] != '\0');
		assert_true(m.first_rep_s > 0.0);
		assert_true(m.first_rep_s == m.samples_s[0]);
		assert_true(m.minor_faults_per_rep >= 0.0);
		assert_int_equal(m.time_capped, strncmp(m.stop, "time cap", 8) == 0);
		assert_true(json_is_boolean(json_object_get(j, "time_capped")));
		assert_true(json_is_number(json_object_get(j, "minor_faults_per_rep")));
		if (strcmp(m.size_set, "sweep") == 0) {
			sweep++;
			assert_true((m.streams[0].src_device == 0 && m.streams[0].dst_device == 1) ||
				    (m.streams[0].src_device == 1 && m.streams[0].dst_device == 0));
		} else {
			assert_true(m.bytes != 4000); /* matrix cells: smallest and largest only */
		}
		nbw_measurement_free(&m);
	}
	assert_int_equal(sweep, 2 * 3);
	json_decref(all);
	nbw_cli_opts_free(&o);
}

/* One failing device and one corrupting device: their measurements say so, every other one
 * keeps its verified result. */
static void test_failure_keeps_other_results(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	parse_opts(&o, "--threads 1");
	knob.fail_dst = 2;
	knob.corrupt_dst = 3;
	json_t *all;
	size_t expected;
	run_direction(&o, NBW_P2P, &all, &expected);
	knob.fail_dst = knob.corrupt_dst = -1;
	assert_int_equal(json_array_size(all), expected);
	size_t failed = 0, corrupt = 0, good = 0, i;
	json_t *j;
	json_array_foreach(all, i, j) {
		struct nbw_measurement m;
		load(j, &m);
		if (into(&m, 2)) {
			assert_string_not_equal(m.error, "");
			assert_string_not_equal(m.verify_status, "passed");
			failed++;
		} else if (into(&m, 3)) {
			assert_string_equal(m.error, "");
			assert_string_equal(m.verify_status, "failed");
			assert_non_null(strstr(m.verify_detail, "repetition 1"));
			corrupt++;
		} else {
			assert_string_equal(m.error, "");
			assert_string_equal(m.verify_status, "passed");
			assert_true(m.reps >= 1);
			good++;
		}
		nbw_measurement_free(&m);
	}
	/* Into 2 and into 3: three sources each (0->1 and 1->0 sweep, the others two sizes). */
	assert_int_equal(failed, 3 * 2);
	assert_int_equal(corrupt, 3 * 2);
	assert_int_equal(good, expected - failed - corrupt);
	assert_true(good > 0);
	json_decref(all);
	nbw_cli_opts_free(&o);
}

/* --reps N: exactly N timed repetitions, labelled so, however fast the copies are. */
static void test_fixed_reps_honoured(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	parse_opts(&o, "--threads 1 --reps 2");
	json_t *all;
	size_t expected;
	run_direction(&o, NBW_HTOD, &all, &expected);
	assert_true(expected > 0);
	size_t i;
	json_t *j;
	json_array_foreach(all, i, j) {
		struct nbw_measurement m;
		load(j, &m);
		assert_int_equal(m.reps, 2);
		assert_int_equal(m.n, 2);
		assert_string_equal(m.stop, "fixed --reps");
		assert_false(m.time_capped);
		nbw_measurement_free(&m);
	}
	json_decref(all);
	nbw_cli_opts_free(&o);
}

/* Copies slower than the size's cap: the count stops at the cap and says so. */
static void test_time_cap_recorded(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	parse_opts(&o, "--threads 1 --devices 0 --max-time 0.002");
	knob.delay_ns = 2000000; /* 2 ms a copy */
	json_t *all;
	size_t expected;
	run_direction(&o, NBW_HTOD, &all, &expected);
	knob.delay_ns = 0;
	assert_int_equal(json_array_size(all), 3);
	size_t i;
	json_t *j;
	json_array_foreach(all, i, j) {
		struct nbw_measurement m;
		load(j, &m);
		assert_true(m.time_capped);
		assert_true(json_is_true(json_object_get(j, "time_capped")));
		assert_int_equal(strncmp(m.stop, "time cap", 8), 0);
		assert_int_equal(m.reps, 3); /* the fewest a cap leaves */
		assert_string_equal(m.verify_status, "passed");
		assert_true(m.first_rep_s >= 0.002);
		nbw_measurement_free(&m);
	}
	json_decref(all);
	nbw_cli_opts_free(&o);
}

/* A copy staged through fresh pages faults them in every repetition, and the measurement
 * counts it: 256000 bytes are 63 pages of 4 KiB. */
static void test_minor_faults_counted(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	parse_opts(&o, "--threads 1 --devices 0 --sizes 256K --reps 4");
	knob.stage = true;
	json_t *all;
	size_t expected;
	run_direction(&o, NBW_HTOD, &all, &expected);
	knob.stage = false;
	assert_int_equal(json_array_size(all), 1);
	struct nbw_measurement m;
	load(json_array_get(all, 0), &m);
	assert_string_equal(m.verify_status, "passed");
	assert_int_equal(m.reps, 4);
	if (m.minor_faults_per_rep < 62.0)
		fail_msg("%g minor faults per repetition, a staged 256000-byte copy faults 63 pages",
			 m.minor_faults_per_rep);
	nbw_measurement_free(&m);
	json_decref(all);
	nbw_cli_opts_free(&o);
}

/* Older documents without the new keys: unknown faults, the cap read from the stop reason. */
static void test_old_document_fields(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	parse_opts(&o, "--threads 1 --devices 0 --sizes 8");
	json_t *all;
	size_t expected;
	run_direction(&o, NBW_HTOD, &all, &expected);
	json_t *j = json_array_get(all, 0);
	assert_non_null(j);
	json_object_del(j, "minor_faults_per_rep");
	json_object_del(j, "first_rep_s");
	json_object_del(j, "time_capped");
	json_object_set_new(j, "stop", json_string("time cap 0.05 s"));
	struct nbw_measurement m;
	load(j, &m);
	assert_true(m.minor_faults_per_rep < 0.0);
	assert_true(m.first_rep_s == 0.0);
	assert_true(m.time_capped);
	nbw_measurement_free(&m);
	json_object_set_new(j, "minor_faults_per_rep", json_string("many"));
	char err[256];
	assert_int_equal(nbw_measurement_from_json(j, &m, err, sizeof(err)), -1);
	json_decref(all);
	nbw_cli_opts_free(&o);
}

/* The quick profile's matrix size: 8 MiB, and not when sizes are named or in other profiles. */
static void test_quick_matrix_size(void **state)
{
	(void)state;
	char *quick[] = { "probe", "--quick", NULL }, *named[] = { "probe", "--quick", "--sizes",
								   "8,64M", NULL };
	char *deflt[] = { "probe", NULL };
	struct nbw_probe_opts o;
	char err[256];
	assert_int_equal(nbw_cli_parse_probe(2, quick, &o, err, sizeof(err)), 0);
	assert_true(nbw_plan_matrix_max_bytes(&o) == NBW_QUICK_MATRIX_MAX_BYTES);
	size_t lo, hi;
	nbw_plan_matrix_sizes_upto(&o.sizes, nbw_plan_matrix_max_bytes(&o), &lo, &hi);
	assert_true(o.sizes.v[hi].bytes <= NBW_QUICK_MATRIX_MAX_BYTES);
	assert_true(hi + 1 < o.sizes.n);
	assert_true(o.sizes.v[o.sizes.n - 1].bytes == 64ull << 20); /* the sweep still ends there */
	nbw_cli_opts_free(&o);
	assert_int_equal(nbw_cli_parse_probe(4, named, &o, err, sizeof(err)), 0);
	assert_true(nbw_plan_matrix_max_bytes(&o) == NBW_MATRIX_MAX_BYTES);
	nbw_cli_opts_free(&o);
	assert_int_equal(nbw_cli_parse_probe(1, deflt, &o, err, sizeof(err)), 0);
	assert_true(nbw_plan_matrix_max_bytes(&o) == NBW_MATRIX_MAX_BYTES);
	nbw_cli_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p2p_series_run_and_verify),
		cmocka_unit_test(test_failure_keeps_other_results),
		cmocka_unit_test(test_fixed_reps_honoured),
		cmocka_unit_test(test_time_cap_recorded),
		cmocka_unit_test(test_minor_faults_counted),
		cmocka_unit_test(test_old_document_fields),
		cmocka_unit_test(test_quick_matrix_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
