/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the results module's views of solver runs and of a document's head
 * (common/results_view*.c) on a recorded `nodebw run --paired` document of the 2-core VM
 * (tests/fixtures/results-run-paired-2cpu-vm.json, tests/fixtures/README.md); the
 * measurement view is tested against the writer in test_results.c. The counts below were
 * read from the fixture with Python's json module. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/results.h"
#include "nodebw/results_view.h"

#ifndef NODEBW_FIXTURES
#error "NODEBW_FIXTURES (the tests/fixtures folder) must be defined by the build"
#endif

static int load(void **state)
{
	char err[512];
	struct nbw_doc *d =
		nbw_doc_load(NODEBW_FIXTURES "/results-run-paired-2cpu-vm.json", err, sizeof(err));
	if (!d)
		fail_msg("%s", err);
	*state = d;
	return 0;
}

static int unload(void **state)
{
	nbw_doc_free(*state);
	return 0;
}

static void test_doc_head(void **state)
{
	struct nbw_doc *d = *state;
	struct nbw_rv_doc h;
	assert_true(nbw_rv_doc_read(d->root, &h));
	assert_string_equal(h.state, "complete");
	assert_string_equal(h.hostname, "vm");
	assert_string_equal(h.cpu_model, "AMD EPYC");
	assert_int_equal(h.schema_version, 2);
	assert_false(h.interrupted);
	assert_int_equal(json_array_size(h.devices), 8);
	assert_int_equal(json_array_size(h.measurements), 686);
	assert_int_equal(json_array_size(h.solver_runs), 608);
	assert_non_null(h.machine);
	assert_false(nbw_rv_doc_read(NULL, &h));
	assert_string_equal(h.state, "");
	assert_null(h.devices);
}

static void test_devices(void **state)
{
	struct nbw_doc *d = *state;
	struct nbw_rv_device v;
	for (int id = 0; id < 4; id++) {
		assert_true(nbw_rv_device_find(d->devices, "omp", id, &v));
		assert_string_equal(v.kind, "host-plugin");
		assert_true(v.host_memory);
		assert_true(nbw_rv_device_find(d->devices, "host", id, &v));
		assert_true(v.host_memory);
	}
	assert_false(nbw_rv_device_find(d->devices, "omp", 4, &v));
	assert_false(nbw_rv_device_find(d->devices, "cuda", 0, &v));
}

/* Every measurement reads; the usable ones are those verified, without error, with
 * streams and not from the hidden-helper sweep (596); the sweeps are marked. */
static void test_measurements(void **state)
{
	struct nbw_doc *d = *state;
	size_t i, usable = 0, hht = 0, planes = 0;
	json_t *m;
	json_array_foreach(d->measurements, i, m) {
		struct nbw_rv_meas x;
		assert_true(nbw_rv_meas_read(d->devices, m, &x));
		usable += nbw_rv_meas_usable(&x);
		hht += x.hht_sweep[0] != '\0';
		planes += x.plane_sweep;
		if (nbw_rv_meas_usable(&x)) {
			assert_true(x.gbps > 0.0 && x.seconds > 0.0);
			/* Host-plugin devices: every path is host memory, never a link. */
			assert_true(x.host_memory || strcmp(x.api, "host") == 0);
		}
	}
	assert_int_equal(usable, 596);
	assert_int_equal(hht, 90);
	assert_int_equal(planes, 360);
}

/* Numbers no transfer can have are no figure, and "passed" with no byte checked verified
 * nothing (hand-edited copies of a recorded measurement). */
static void test_measurement_impossible(void **state)
{
	struct nbw_doc *d = *state;
	json_t *m = json_deep_copy(json_array_get(d->measurements, 0));
	struct nbw_rv_meas x;
	json_object_set_new(json_object_get(m, "gbps"), "median", json_real(-5.0));
	json_object_set_new(json_object_get(m, "verification"), "checked_bytes",
			    json_integer(0));
	assert_true(nbw_rv_meas_read(d->devices, m, &x));
	assert_true(isnan(x.gbps));
	assert_string_equal(x.verify_status, "not-run");
	assert_false(nbw_rv_meas_verified(&x));
	json_object_set_new(json_object_get(m, "gbps"), "median", json_real(12.5));
	json_object_set_new(json_object_get(m, "verification"), "checked_bytes",
			    json_integer(8));
	assert_true(nbw_rv_meas_read(d->devices, m, &x));
	assert_true(x.gbps == 12.5);
	assert_true(nbw_rv_meas_verified(&x) == !x.error);
	json_decref(m);
}

static void check_run(const struct nbw_rv_solver_run *r, size_t *paired, size_t *partners)
{
	assert_true(nbw_rv_solver_ok(r));
	assert_true(r->g == 1 || r->g == 2 || r->g == 4);
	assert_true(r->nx > 0 && r->ny > 0 && r->nz > 0 && r->steps > 0);
	assert_true(r->cubic_n == 0 || (r->cubic_n == r->nx && r->nx == r->nz));
	assert_true(r->fastest_s > 0.0 && r->fastest_s <= r->seconds);
	assert_true(r->round >= 1);
	assert_true(r->instrumented ? isfinite(r->phases.total) : isnan(r->phases.total));
	*paired += r->paired;
	if (r->paired && strcmp(r->partner, "none") == 0) {
		double *a, *b;
		size_t na = nbw_rv_solver_samples(r, false, &a);
		size_t nb = nbw_rv_solver_samples(r, true, &b);
		assert_true(na > 0);
		assert_int_equal(na, nb); /* repetition i of the run and of its partner */
		free(a);
		free(b);
		(*partners)++;
	}
}

static void test_solver_runs(void **state)
{
	struct nbw_doc *d = *state;
	struct nbw_rv_doc h;
	nbw_rv_doc_read(d->root, &h);
	size_t i, paired = 0, partners = 0, no_exchange = 0, calibration = 0;
	json_t *j;
	json_array_foreach(h.solver_runs, i, j) {
		struct nbw_rv_solver_run r;
		assert_true(nbw_rv_solver_read(j, &r));
		check_run(&r, &paired, &partners);
		no_exchange += r.no_exchange;
		calibration += strcmp(r.purpose, "calibration") == 0;
	}
	assert_int_equal(paired, 512);
	assert_int_equal(partners, 256);
	assert_int_equal(no_exchange, 256);
	assert_int_equal(calibration, 64);
}

/* A run that failed, or lacks its time, is not for the models; keys of the wrong type
 * read as absent. */
static void test_solver_run_not_ok(void **state)
{
	(void)state;
	struct nbw_rv_solver_run r;
	json_t *j = json_loads("{\"version\": \"v2\", \"G\": \"2\", \"shape\": [1], \"seconds\":"
			       " 0.5, \"verification\": {\"status\": \"failed\"}, \"error\": null,"
			       " \"samples_s\": [0.4, \"x\", 0.6]}", 0, NULL);
	assert_true(nbw_rv_solver_read(j, &r));
	assert_false(nbw_rv_solver_ok(&r));
	assert_int_equal(r.g, 0);
	assert_int_equal(r.nx, 0);
	assert_true(fabs(r.fastest_s - 0.4) < 1e-12);
	double *s;
	assert_int_equal(nbw_rv_solver_samples(&r, false, &s), 3);
	assert_true(isnan(s[1]));
	free(s);
	assert_int_equal(nbw_rv_solver_samples(&r, true, &s), 0);
	assert_null(s);
	json_object_set_new(j, "verification", json_pack("{s:s}", "status", "passed"));
	json_object_set_new(j, "error", json_string("device lost"));
	nbw_rv_solver_read(j, &r);
	assert_false(nbw_rv_solver_ok(&r));
	assert_string_equal(r.error, "device lost");
	json_decref(j);
	assert_false(nbw_rv_solver_read(NULL, &r));
	assert_false(nbw_rv_solver_ok(&r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_doc_head, load, unload),
		cmocka_unit_test_setup_teardown(test_devices, load, unload),
		cmocka_unit_test_setup_teardown(test_measurements, load, unload),
		cmocka_unit_test_setup_teardown(test_measurement_impossible, load, unload),
		cmocka_unit_test_setup_teardown(test_solver_runs, load, unload),
		cmocka_unit_test(test_solver_run_not_ok),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
