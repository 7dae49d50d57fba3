/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of analysis/gap.c: device matching across APIs, the OpenMP-versus-native gap rows,
 * the per-group and per-mode summary, the printed table, and a recorded results document. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/gap.h"
#include "nodebw/results.h"

#ifndef NODEBW_FIXTURES
#error "NODEBW_FIXTURES (the tests/fixtures folder) must be defined by the build"
#endif

/* ---- helpers ---------------------------------------------------------------------------- */

/* Stream lists of the measurements: "host" or an API's device id at each end. */
#define HTOD0 "[{\"src\": \"host\", \"dst\": 0}]"
#define HTOD1 "[{\"src\": \"host\", \"dst\": 1}]"
#define HTOD2 "[{\"src\": \"host\", \"dst\": 2}]"
#define DTOH0 "[{\"src\": 0, \"dst\": \"host\"}]"
#define HTOD01 "[{\"src\": \"host\", \"dst\": 0}, {\"src\": \"host\", \"dst\": 1}]"
#define P2P01 "[{\"src\": 0, \"dst\": 1}]"
#define P2P_BIDIR "[{\"src\": 0, \"dst\": 1}, {\"src\": 1, \"dst\": 0}]"

/* Two host-plugin devices and the host backend's two memory regions. */
#define HOST_DEVICES                                                                       \
	"[{\"api\": \"omp\", \"id\": 0, \"kind\": \"host-plugin\", \"pci_bus_id\": null},"   \
	" {\"api\": \"omp\", \"id\": 1, \"kind\": \"host-plugin\", \"pci_bus_id\": null},"   \
	" {\"api\": \"host\", \"id\": 0, \"kind\": \"host-memory\", \"pci_bus_id\": null},"  \
	" {\"api\": \"host\", \"id\": 1, \"kind\": \"host-memory\", \"pci_bus_id\": null}]"

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j)
		fail_msg("literal JSON %d:%d: %s", e.line, e.column, e.text);
	return j;
}

/* A verified measurement without an error, as a results document holds it (only the fields
 * the gap table reads). */
static json_t *meas(const char *api, const char *dir, const char *mode, const char *host_mem,
		    const char *conc, json_int_t bytes, const char *streams, double gbps,
		    double seconds)
{
	json_t *m = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:{s:f}, s:{s:f}, s:{s:s},"
			      " s:n, s:s, s:i}",
			      "api", api, "direction", dir, "mode", mode, "host_mem", host_mem,
			      "concurrency", conc, "bytes", bytes, "streams", load(streams),
			      "gbps", "median", gbps, "seconds", "median", seconds,
			      "verification", "status", "passed", "error", "peer_access", "n/a",
			      "hidden_helpers", strcmp(api, "omp") == 0 ? 8 : -1);
	assert_non_null(m);
	return m;
}

static json_t *add(json_t *ms, json_t *m)
{
	assert_int_equal(json_array_append_new(ms, m), 0);
	return m;
}

static void set_str(json_t *m, const char *key, const char *value)
{
	assert_int_equal(json_object_set_new(m, key, json_string(value)), 0);
}

/* |a - b| within 1e-9 of the larger magnitude (at least 1). */
static void assert_close(double a, double b)
{
	double scale = fmax(1.0, fmax(fabs(a), fabs(b)));
	if (!(fabs(a - b) <= 1e-9 * scale))
		fail_msg("%.17g != %.17g", a, b);
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		fail_msg("'%s' is not a number", key);
	return json_number_value(v);
}

static const char *text(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	if (!s)
		fail_msg("'%s' is not a string", key);
	return s;
}

static json_int_t integer(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		fail_msg("'%s' is not an integer", key);
	return json_integer_value(v);
}

/* The gap object, checked for its shape. */
static json_t *compute(json_t *devices, json_t *ms)
{
	json_t *g = nbw_gap_compute(devices, ms);
	assert_non_null(g);
	assert_true(json_is_object(g));
	assert_true(strlen(text(g, "definition")) > 0);
	assert_true(json_is_array(json_object_get(g, "rows")));
	assert_true(json_is_array(json_object_get(g, "summary")));
	return g;
}

static size_t nrows(json_t *g)
{
	return json_array_size(json_object_get(g, "rows"));
}

/* The only row of this direction, OpenMP mode, host memory, concurrency and size; NULL if
 * none. */
static json_t *find_row(json_t *g, const char *dir, const char *omp_mode, const char *host_mem,
			const char *conc, json_int_t bytes)
{
	json_t *found = NULL, *r;
	size_t i;
	json_array_foreach(json_object_get(g, "rows"), i, r) {
		if (strcmp(text(r, "direction"), dir) || strcmp(text(r, "omp_mode"), omp_mode) ||
		    strcmp(text(r, "host_mem"), host_mem) ||
		    strcmp(text(r, "concurrency"), conc) || integer(r, "bytes") != bytes)
			continue;
		if (found)
			fail_msg("two rows for %s %s %s %s %lld", dir, omp_mode, host_mem, conc,
				 (long long)bytes);
		found = r;
	}
	return found;
}

static json_t *find_summary(json_t *g, const char *api, const char *dir, const char *omp_mode,
			    const char *host_mem, int devices)
{
	json_t *found = NULL, *s;
	size_t i;
	json_array_foreach(json_object_get(g, "summary"), i, s) {
		if (strcmp(text(s, "native_api"), api) || strcmp(text(s, "direction"), dir) ||
		    strcmp(text(s, "omp_mode"), omp_mode) || strcmp(text(s, "host_mem"), host_mem) ||
		    integer(s, "devices") != devices)
			continue;
		if (found)
			fail_msg("two summary rows for %s %s %s %s %d", api, dir, omp_mode, host_mem,
				 devices);
		found = s;
	}
	if (!found)
		fail_msg("no summary row for %s %s %s %s %d", api, dir, omp_mode, host_mem, devices);
	return found;
}

static void check_summary(json_t *g, const char *api, const char *dir, const char *omp_mode,
			  const char *host_mem, int devices, int sizes, double mean_abs_gap,
			  double mean_abs_rel, double mean_extra_us)
{
	json_t *s = find_summary(g, api, dir, omp_mode, host_mem, devices);
	assert_int_equal(integer(s, "sizes"), sizes);
	assert_close(num(s, "mean_abs_gap_gbps"), mean_abs_gap);
	assert_close(num(s, "mean_abs_relative_gap"), mean_abs_rel);
	assert_close(num(s, "mean_extra_us"), mean_extra_us);
}

/* The omp device \p id of \p devices (NULL if none). */
static json_t *omp_device(json_t *devices, int id)
{
	json_t *d;
	size_t i;
	json_array_foreach(devices, i, d) {
		if (strcmp(text(d, "api"), "omp") == 0 && integer(d, "id") == id)
			return d;
	}
	return NULL;
}

static void check_native(json_t *devices, int omp_id, const char *api, int id, const char *by)
{
	json_t *d = omp_device(devices, omp_id);
	assert_non_null(d);
	json_t *n = json_object_get(d, "native");
	if (!json_is_object(n))
		fail_msg("omp device %d has no native match", omp_id);
	assert_string_equal(text(n, "api"), api);
	assert_int_equal(integer(n, "id"), id);
	if (!strstr(text(n, "by"), by))
		fail_msg("omp device %d matched by \"%s\", expected \"%s\"", omp_id, text(n, "by"),
			 by);
}

static void check_unmatched(json_t *devices, int omp_id)
{
	json_t *d = omp_device(devices, omp_id);
	assert_non_null(d);
	assert_null(json_object_get(d, "native"));
}

/* ---- device matching -------------------------------------------------------------------- */

static void test_match_host_plugin(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES);
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	check_native(devices, 0, "host", 0, "host-plugin");
	check_native(devices, 1, "host", 1, "host-plugin");
	/* Native devices get nothing. */
	assert_null(json_object_get(json_array_get(devices, 2), "native"));
	assert_null(json_object_get(json_array_get(devices, 3), "native"));
	json_decref(devices);

	/* Only one host region: device 1 stays unmatched. */
	devices = load("[{\"api\": \"omp\", \"id\": 0, \"kind\": \"host-plugin\"},"
		       " {\"api\": \"omp\", \"id\": 1, \"kind\": \"host-plugin\"},"
		       " {\"api\": \"host\", \"id\": 0, \"kind\": \"host-memory\"}]");
	assert_int_equal(nbw_gap_match_devices(devices), 1);
	check_native(devices, 0, "host", 0, "host-plugin");
	check_unmatched(devices, 1);
	json_decref(devices);
}

static void test_match_host_plugin_no_host(void **state)
{
	(void)state;
	/* No host backend device (and a CUDA device is no substitute for host memory). */
	json_t *devices = load("[{\"api\": \"omp\", \"id\": 0, \"kind\": \"host-plugin\","
			       "  \"pci_bus_id\": null},"
			       " {\"api\": \"cuda\", \"id\": 0, \"kind\": \"gpu\","
			       "  \"pci_bus_id\": \"0000:01:00.0\"}]");
	assert_int_equal(nbw_gap_match_devices(devices), 0);
	check_unmatched(devices, 0);
	json_decref(devices);

	devices = load("[]");
	assert_int_equal(nbw_gap_match_devices(devices), 0);
	json_decref(devices);
}

static void test_match_pci_bus_id(void **state)
{
	(void)state;
	json_t *devices = load(
		"[{\"api\": \"omp\", \"id\": 0, \"kind\": \"cuda\", \"pci_bus_id\": \"0000:41:00.0\"},"
		" {\"api\": \"omp\", \"id\": 1, \"kind\": \"cuda\", \"pci_bus_id\": \"0000:01:00.0\"},"
		" {\"api\": \"omp\", \"id\": 2, \"kind\": \"cuda\", \"pci_bus_id\": \"0000:99:00.0\"},"
		" {\"api\": \"cuda\", \"id\": 0, \"pci_bus_id\": \"0000:01:00.0\"},"
		" {\"api\": \"cuda\", \"id\": 1, \"pci_bus_id\": \"0000:41:00.0\"}]");
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	/* By bus id, not by order: omp 0 is CUDA device 1 and omp 1 is CUDA device 0. */
	check_native(devices, 0, "cuda", 1, "PCI bus id");
	check_native(devices, 1, "cuda", 0, "PCI bus id");
	/* A bus id no native device has: no match, and no fallback to the order. */
	check_unmatched(devices, 2);
	assert_string_equal(text(omp_device(devices, 2), "pci_bus_id"), "0000:99:00.0");
	json_decref(devices);
}

static void test_match_order_inferred(void **state)
{
	(void)state;
	json_t *devices = load(
		"[{\"api\": \"omp\", \"id\": 0, \"kind\": \"cuda\", \"pci_bus_id\": null},"
		" {\"api\": \"omp\", \"id\": 1, \"kind\": \"cuda\"},"
		" {\"api\": \"omp\", \"id\": 2, \"kind\": \"cuda\", \"pci_bus_id\": null},"
		" {\"api\": \"omp\", \"id\": 3, \"kind\": \"amdgpu\", \"pci_bus_id\": null},"
		" {\"api\": \"omp\", \"id\": 4, \"kind\": \"mystery\", \"pci_bus_id\": null},"
		" {\"api\": \"hip\", \"id\": 0, \"pci_bus_id\": \"0000:c1:00.0\"},"
		" {\"api\": \"cuda\", \"id\": 0, \"pci_bus_id\": \"0000:01:00.0\"},"
		" {\"api\": \"cuda\", \"id\": 1, \"pci_bus_id\": \"0000:41:00.0\"}]");
	assert_int_equal(nbw_gap_match_devices(devices), 3);
	check_native(devices, 0, "cuda", 0, "inferred");
	check_native(devices, 1, "cuda", 1, "inferred");
	/* The inferred match copies the native bus id. */
	assert_string_equal(text(omp_device(devices, 0), "pci_bus_id"), "0000:01:00.0");
	assert_string_equal(text(omp_device(devices, 1), "pci_bus_id"), "0000:41:00.0");
	/* A third CUDA device OpenMP sees but CUDA does not list. */
	check_unmatched(devices, 2);
	assert_true(json_is_null(json_object_get(omp_device(devices, 2), "pci_bus_id")));
	/* amdgpu -> HIP, counted apart from CUDA. */
	check_native(devices, 3, "hip", 0, "inferred");
	assert_string_equal(text(omp_device(devices, 3), "pci_bus_id"), "0000:c1:00.0");
	/* A kind with no native API. */
	check_unmatched(devices, 4);
	json_decref(devices);
}

/* ---- rows ------------------------------------------------------------------------------- */

static void test_row_basic(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = json_array();
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	/* 1 MiB: OpenMP 5 GB/s (209.7152 us), native 10 GB/s (104.8576 us). */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 1048576, HTOD0, 5.0,
		     2.097152e-4));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 1048576, HTOD0, 10.0,
		     1.048576e-4));
	json_t *g = compute(devices, ms);
	assert_int_equal(nrows(g), 1);
	json_t *r = find_row(g, "htod", "sync", "pageable", "single", 1048576);
	assert_non_null(r);
	assert_string_equal(text(r, "native_api"), "host");
	assert_string_equal(text(r, "native_mode"), "sync");
	assert_int_equal(integer(r, "devices"), 1);
	assert_close(num(r, "omp_gbps"), 5.0);
	assert_close(num(r, "native_gbps"), 10.0);
	assert_close(num(r, "gap_gbps"), 5.0);
	assert_close(num(r, "relative_gap"), 0.5);
	assert_close(num(r, "omp_s"), 2.097152e-4);
	assert_close(num(r, "native_s"), 1.048576e-4);
	assert_close(num(r, "extra_us"), 104.8576);
	assert_int_equal(integer(r, "hidden_helpers"), 8);
	assert_string_equal(text(r, "native_peer_access"), "n/a");
	/* One group and its "all"/"all" row, each over one size. */
	assert_int_equal(json_array_size(json_object_get(g, "summary")), 2);
	check_summary(g, "host", "htod", "sync", "pageable", 1, 1, 5.0, 0.5, 104.8576);
	check_summary(g, "host", "all", "sync", "all", 1, 1, 5.0, 0.5, 104.8576);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

static void test_row_nowait_pairs_async(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = json_array();
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	add(ms, meas("host", "htod", "sync", "pageable", "single", 64, HTOD0, 3.0, 3e-6));
	add(ms, meas("host", "htod", "async", "pageable", "single", 64, HTOD0, 8.0, 1e-6));
	add(ms, meas("omp", "htod", "nowait", "pageable", "single", 64, HTOD0, 2.0, 4e-6));
	add(ms, meas("omp", "htod", "async", "pageable", "single", 64, HTOD0, 4.0, 2e-6));
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 64, HTOD0, 1.0, 5e-6));
	/* 128 B: the native side only has the synchronous copy, so nowait has no partner. */
	add(ms, meas("host", "htod", "sync", "pageable", "single", 128, HTOD0, 3.0, 3e-6));
	add(ms, meas("omp", "htod", "nowait", "pageable", "single", 128, HTOD0, 2.0, 4e-6));
	json_t *g = compute(devices, ms);
	assert_int_equal(nrows(g), 3);

	json_t *r = find_row(g, "htod", "nowait", "pageable", "single", 64);
	assert_non_null(r);
	assert_string_equal(text(r, "native_mode"), "async");
	assert_close(num(r, "native_gbps"), 8.0);
	assert_close(num(r, "gap_gbps"), 6.0);
	assert_close(num(r, "relative_gap"), 0.75);
	assert_close(num(r, "extra_us"), 3.0);

	r = find_row(g, "htod", "async", "pageable", "single", 64);
	assert_non_null(r);
	assert_string_equal(text(r, "native_mode"), "async");
	assert_close(num(r, "gap_gbps"), 4.0);

	r = find_row(g, "htod", "sync", "pageable", "single", 64);
	assert_non_null(r);
	assert_string_equal(text(r, "native_mode"), "sync");
	assert_close(num(r, "native_gbps"), 3.0);
	assert_close(num(r, "gap_gbps"), 2.0);
	assert_close(num(r, "extra_us"), 2.0);

	assert_null(find_row(g, "htod", "nowait", "pageable", "single", 128));
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

static void test_row_p2p_peer_access(void **state)
{
	(void)state;
	json_t *devices = load(
		"[{\"api\": \"omp\", \"id\": 0, \"kind\": \"cuda\", \"pci_bus_id\": \"0000:01:00.0\"},"
		" {\"api\": \"omp\", \"id\": 1, \"kind\": \"cuda\", \"pci_bus_id\": \"0000:41:00.0\"},"
		" {\"api\": \"cuda\", \"id\": 0, \"pci_bus_id\": \"0000:01:00.0\"},"
		" {\"api\": \"cuda\", \"id\": 1, \"pci_bus_id\": \"0000:41:00.0\"}]");
	json_t *ms = json_array();
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	/* 4 KiB: disabled, enabled, disabled: the enabled series wins wherever it is. */
	add(ms, meas("omp", "p2p", "sync", "none", "single", 4096, P2P01, 20.0, 2e-7));
	set_str(add(ms, meas("cuda", "p2p", "sync", "none", "single", 4096, P2P01, 15.0, 3e-7)),
		"peer_access", "disabled");
	set_str(add(ms, meas("cuda", "p2p", "sync", "none", "single", 4096, P2P01, 40.0, 1e-7)),
		"peer_access", "enabled");
	set_str(add(ms, meas("cuda", "p2p", "sync", "none", "single", 4096, P2P01, 12.0, 4e-7)),
		"peer_access", "disabled");
	/* 8 KiB: enabled first, disabled after. */
	add(ms, meas("omp", "p2p", "sync", "none", "single", 8192, P2P01, 10.0, 8e-7));
	set_str(add(ms, meas("cuda", "p2p", "sync", "none", "single", 8192, P2P01, 30.0, 3e-7)),
		"peer_access", "enabled");
	set_str(add(ms, meas("cuda", "p2p", "sync", "none", "single", 8192, P2P01, 25.0, 4e-7)),
		"peer_access", "disabled");
	/* 16 KiB: only a disabled series: that is the partner. */
	add(ms, meas("omp", "p2p", "sync", "none", "single", 16384, P2P01, 20.0, 8e-7));
	set_str(add(ms, meas("cuda", "p2p", "sync", "none", "single", 16384, P2P01, 25.0, 6e-7)),
		"peer_access", "disabled");
	/* Bidirectional: two streams, two devices. */
	add(ms, meas("omp", "p2p", "sync", "none", "bidir", 4096, P2P_BIDIR, 30.0, 3e-7));
	set_str(add(ms, meas("cuda", "p2p", "sync", "none", "bidir", 4096, P2P_BIDIR, 60.0,
			     1.5e-7)),
		"peer_access", "enabled");
	json_t *g = compute(devices, ms);
	assert_int_equal(nrows(g), 4);

	json_t *r = find_row(g, "p2p", "sync", "none", "single", 4096);
	assert_non_null(r);
	assert_string_equal(text(r, "native_api"), "cuda");
	assert_string_equal(text(r, "native_peer_access"), "enabled");
	assert_close(num(r, "native_gbps"), 40.0);
	assert_close(num(r, "gap_gbps"), 20.0);
	assert_close(num(r, "relative_gap"), 0.5);
	assert_close(num(r, "extra_us"), 0.1);
	assert_int_equal(integer(r, "devices"), 1);

	r = find_row(g, "p2p", "sync", "none", "single", 8192);
	assert_non_null(r);
	assert_string_equal(text(r, "native_peer_access"), "enabled");
	assert_close(num(r, "native_gbps"), 30.0);

	r = find_row(g, "p2p", "sync", "none", "single", 16384);
	assert_non_null(r);
	assert_string_equal(text(r, "native_peer_access"), "disabled");
	assert_close(num(r, "native_gbps"), 25.0);
	assert_close(num(r, "gap_gbps"), 5.0);
	assert_close(num(r, "relative_gap"), 0.2);

	r = find_row(g, "p2p", "sync", "none", "bidir", 4096);
	assert_non_null(r);
	assert_int_equal(integer(r, "devices"), 2);
	assert_close(num(r, "gap_gbps"), 30.0);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

static void test_row_unusable_ignored(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = json_array();
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	/* 1 KiB: four native series that must not be the partner, then the one that is. */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 1024, HTOD0, 5.0, 2e-7));
	set_str(add(ms, meas("host", "htod", "sync", "pageable", "single", 1024, HTOD0, 100.0,
			     1e-8)),
		"error", "memcpy failed");
	json_t *m = add(ms, meas("host", "htod", "sync", "pageable", "single", 1024, HTOD0, 200.0,
				 5e-9));
	set_str(json_object_get(m, "verification"), "status", "failed");
	m = add(ms, meas("host", "htod", "sync", "pageable", "single", 1024, HTOD0, 300.0, 3e-9));
	set_str(json_object_get(m, "verification"), "status", "not-run");
	set_str(add(ms, meas("host", "htod", "sync", "pageable", "single", 1024, HTOD0, 400.0,
			     2e-9)),
		"hht_sweep", "LIBOMPTARGET_NUM_HIDDEN_HELPER_THREADS=2");
	add(ms, meas("host", "htod", "sync", "pageable", "single", 1024, HTOD0, 10.0, 1e-7));

	/* 2, 4 and 8 KiB: the native partner is fine but the OpenMP side is not usable. */
	set_str(add(ms, meas("omp", "htod", "sync", "pageable", "single", 2048, HTOD0, 5.0, 4e-7)),
		"error", "omp_target_memcpy returned 1");
	m = add(ms, meas("omp", "htod", "sync", "pageable", "single", 4096, HTOD0, 5.0, 8e-7));
	set_str(json_object_get(m, "verification"), "status", "failed");
	set_str(add(ms, meas("omp", "htod", "sync", "pageable", "single", 8192, HTOD0, 5.0,
			     1.6e-6)),
		"hht_sweep", "LIBOMPTARGET_NUM_HIDDEN_HELPER_THREADS=2");
	for (json_int_t b = 2048; b <= 8192; b *= 2)
		add(ms, meas("host", "htod", "sync", "pageable", "single", b, HTOD0, 10.0,
			     (double)b / 1e10));

	json_t *g = compute(devices, ms);
	assert_int_equal(nrows(g), 1);
	json_t *r = find_row(g, "htod", "sync", "pageable", "single", 1024);
	assert_non_null(r);
	assert_close(num(r, "native_gbps"), 10.0);
	assert_close(num(r, "gap_gbps"), 5.0);
	assert_close(num(r, "extra_us"), 0.1);
	check_summary(g, "host", "all", "sync", "all", 1, 1, 5.0, 0.5, 0.1);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

static void test_row_no_partner(void **state)
{
	(void)state;
	/* omp device 2 exists but the host backend has only regions 0 and 1. */
	json_t *devices = load(
		"[{\"api\": \"omp\", \"id\": 0, \"kind\": \"host-plugin\", \"pci_bus_id\": null},"
		" {\"api\": \"omp\", \"id\": 1, \"kind\": \"host-plugin\", \"pci_bus_id\": null},"
		" {\"api\": \"omp\", \"id\": 2, \"kind\": \"host-plugin\", \"pci_bus_id\": null},"
		" {\"api\": \"host\", \"id\": 0, \"kind\": \"host-memory\", \"pci_bus_id\": null},"
		" {\"api\": \"host\", \"id\": 1, \"kind\": \"host-memory\", \"pci_bus_id\": null}]");
	json_t *ms = json_array();
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	/* 8 B: measured only through OpenMP. */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 8, HTOD0, 1.0, 8e-9));
	/* 16 B: OpenMP device 0 is host region 0, the native copy went to region 1. */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 16, HTOD0, 1.0, 1.6e-8));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 16, HTOD1, 2.0, 8e-9));
	/* 32 B: different host memory. */
	add(ms, meas("omp", "htod", "sync", "pinned", "single", 32, HTOD0, 1.0, 3.2e-8));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 32, HTOD0, 2.0, 1.6e-8));
	/* 64 B: two streams against one. */
	add(ms, meas("omp", "htod", "sync", "pageable", "dual", 64, HTOD01, 1.0, 6.4e-8));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 64, HTOD0, 2.0, 3.2e-8));
	/* 128 B: the OpenMP device has no native counterpart. */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 128, HTOD2, 1.0, 1.28e-7));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 128, HTOD2, 2.0, 6.4e-8));
	/* 256 B: other direction. */
	add(ms, meas("omp", "dtoh", "sync", "pageable", "single", 256, DTOH0, 1.0, 2.56e-7));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 256, HTOD0, 2.0, 1.28e-7));
	/* 512 B: a native median of 0 GB/s gives no relative gap. */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 512, HTOD0, 1.0, 5.12e-7));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 512, HTOD0, 0.0, 1.0));
	/* 1 KiB: the control, which does pair. */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 1024, HTOD0, 1.0, 1.024e-6));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 1024, HTOD0, 2.0, 5.12e-7));
	json_t *g = compute(devices, ms);
	assert_int_equal(nrows(g), 1);
	json_t *r = find_row(g, "htod", "sync", "pageable", "single", 1024);
	assert_non_null(r);
	assert_close(num(r, "gap_gbps"), 1.0);
	assert_close(num(r, "extra_us"), 0.512);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

static void test_row_dual(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = json_array();
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	add(ms, meas("omp", "htod", "sync", "pageable", "dual", 1048576, HTOD01, 6.0, 3.5e-4));
	add(ms, meas("host", "htod", "sync", "pageable", "dual", 1048576, HTOD01, 12.0, 1.75e-4));
	json_t *g = compute(devices, ms);
	assert_int_equal(nrows(g), 1);
	json_t *r = find_row(g, "htod", "sync", "pageable", "dual", 1048576);
	assert_non_null(r);
	assert_int_equal(integer(r, "devices"), 2);
	assert_close(num(r, "gap_gbps"), 6.0);
	assert_close(num(r, "relative_gap"), 0.5);
	assert_close(num(r, "extra_us"), 175.0);
	check_summary(g, "host", "htod", "sync", "pageable", 2, 1, 6.0, 0.5, 175.0);
	check_summary(g, "host", "all", "sync", "all", 2, 1, 6.0, 0.5, 175.0);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

/* ---- summary and printing --------------------------------------------------------------- */

/* Six pairs on host-plugin devices; the expected summary is worked out in test_summary. */
static json_t *summary_measurements(void)
{
	json_t *ms = json_array();
	/* A: htod pageable sync 8 B: gap 1, rel 0.5, extra 2 us. */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 8, HTOD0, 1.0, 3e-6));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 8, HTOD0, 2.0, 1e-6));
	/* B: htod pageable sync 1 MiB: gap 4, rel 0.4, extra 4 us. */
	add(ms, meas("omp", "htod", "sync", "pageable", "single", 1048576, HTOD0, 6.0, 5e-6));
	add(ms, meas("host", "htod", "sync", "pageable", "single", 1048576, HTOD0, 10.0, 1e-6));
	/* C: dtoh pinned sync 8 B, OpenMP faster: gap -1, rel -0.5, extra -2 us. */
	add(ms, meas("omp", "dtoh", "sync", "pinned", "single", 8, DTOH0, 3.0, 1e-6));
	add(ms, meas("host", "dtoh", "sync", "pinned", "single", 8, DTOH0, 2.0, 3e-6));
	/* D: htod pageable async 8 B: gap 4, rel 0.5, extra 1 us. */
	add(ms, meas("omp", "htod", "async", "pageable", "single", 8, HTOD0, 4.0, 2e-6));
	add(ms, meas("host", "htod", "async", "pageable", "single", 8, HTOD0, 8.0, 1e-6));
	/* E: htod pageable nowait 8 B against D's native async: gap 6, rel 0.75, extra 3 us. */
	add(ms, meas("omp", "htod", "nowait", "pageable", "single", 8, HTOD0, 2.0, 4e-6));
	/* F: htod pageable sync dual 8 B: gap 6, rel 2/3, extra 2 us. */
	add(ms, meas("omp", "htod", "sync", "pageable", "dual", 8, HTOD01, 3.0, 3e-6));
	add(ms, meas("host", "htod", "sync", "pageable", "dual", 8, HTOD01, 9.0, 1e-6));
	return ms;
}

static void test_summary(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = summary_measurements();
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	json_t *g = compute(devices, ms);
	assert_int_equal(nrows(g), 6);
	json_t *r = find_row(g, "dtoh", "sync", "pinned", "single", 8);
	assert_non_null(r);
	assert_close(num(r, "gap_gbps"), -1.0);
	assert_close(num(r, "relative_gap"), -0.5);
	assert_close(num(r, "extra_us"), -2.0);

	/* Five groups and four per-mode rows. */
	assert_int_equal(json_array_size(json_object_get(g, "summary")), 9);
	/* A and B: mean |gap| (1 + 4) / 2, mean |rel| (0.5 + 0.4) / 2, extra (2 + 4) / 2. */
	check_summary(g, "host", "htod", "sync", "pageable", 1, 2, 2.5, 0.45, 3.0);
	/* C: absolute values, but the extra time keeps its sign. */
	check_summary(g, "host", "dtoh", "sync", "pinned", 1, 1, 1.0, 0.5, -2.0);
	check_summary(g, "host", "htod", "async", "pageable", 1, 1, 4.0, 0.5, 1.0);
	check_summary(g, "host", "htod", "nowait", "pageable", 1, 1, 6.0, 0.75, 3.0);
	check_summary(g, "host", "htod", "sync", "pageable", 2, 1, 6.0, 2.0 / 3.0, 2.0);
	/* sync, one device, over directions and memory kinds (A, B, C): |gap| (1 + 4 + 1) / 3,
	 * |rel| (0.5 + 0.4 + 0.5) / 3, extra (2 + 4 - 2) / 3. */
	check_summary(g, "host", "all", "sync", "all", 1, 3, 2.0, 1.4 / 3.0, 4.0 / 3.0);
	/* async and nowait stay apart although they share a native series. */
	check_summary(g, "host", "all", "async", "all", 1, 1, 4.0, 0.5, 1.0);
	check_summary(g, "host", "all", "nowait", "all", 1, 1, 6.0, 0.75, 3.0);
	/* Two devices are their own row. */
	check_summary(g, "host", "all", "sync", "all", 2, 1, 6.0, 2.0 / 3.0, 2.0);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

/* The size bands: OpenMP slower at the small sizes (8 B: rel 0.5; 4 KiB: rel 0.75; 64 KiB:
 * rel 0.02, within the 3 % of no clear gap), faster at the large ones (1 MiB: rel -0.25;
 * 16 MiB: rel -0.1), 256 KiB between the bands. Medians per band, verdicts spelled out, the
 * sign changes at 1 MiB (64 KiB and 256 KiB take no side: within 3 %). */
static void test_bands(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = json_array();
	static const struct {
		long long bytes;
		double omp, native; /* GB/s */
	} pts[] = { { 8, 1.0, 2.0 }, { 4096, 1.0, 4.0 }, { 65536, 9.8, 10.0 },
		    { 262144, 10.0, 10.1 }, { 1048576, 12.5, 10.0 }, { 16777216, 11.0, 10.0 } };
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		double b = (double)pts[i].bytes;
		add(ms, meas("omp", "htod", "sync", "pinned", "single", pts[i].bytes, HTOD0,
			     pts[i].omp, b / (pts[i].omp * 1e9)));
		add(ms, meas("host", "htod", "sync", "pinned", "single", pts[i].bytes, HTOD0,
			     pts[i].native, b / (pts[i].native * 1e9)));
	}
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	json_t *g = compute(devices, ms);
	json_t *s = find_summary(g, "host", "htod", "sync", "pinned", 1);
	json_t *lat = json_object_get(s, "latency_band"), *bw = json_object_get(s, "bandwidth_band");
	assert_int_equal(integer(lat, "sizes"), 3);
	assert_close(num(lat, "median_relative_gap"), 0.5);
	assert_string_equal(text(lat, "verdict"), "OpenMP slower");
	assert_int_equal(integer(bw, "sizes"), 2);
	/* rel -0.25 and -0.1: median -0.175; gap -2.5 and -1: median -1.75 GB/s. */
	assert_close(num(bw, "median_relative_gap"), -0.175);
	assert_close(num(bw, "median_gap_gbps"), -1.75);
	assert_string_equal(text(bw, "verdict"), "OpenMP faster");
	json_t *ch = json_object_get(s, "sign_changes_at_bytes");
	assert_int_equal(json_array_size(ch), 1);
	assert_int_equal(json_integer_value(json_array_get(ch, 0)), 1048576);
	/* The printed table spells both out and says where the sign changes. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	nbw_gap_print(f, g);
	fclose(f);
	assert_non_null(strstr(buf, "OpenMP slower"));
	assert_non_null(strstr(buf, "OpenMP faster"));
	assert_non_null(strstr(buf, "at 1 MiB"));
	free(buf);
	assert_string_equal(nbw_gap_verdict(0.029), "no clear gap");
	assert_string_equal(nbw_gap_verdict(-0.031), "OpenMP faster");
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

static char *print_to_string(json_t *g, size_t *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	*ret = nbw_gap_print(f, g);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static void test_print_empty(void **state)
{
	(void)state;
	json_t *devices = json_array(), *ms = json_array();
	json_t *g = compute(devices, ms);
	assert_int_equal(nrows(g), 0);
	assert_int_equal(json_array_size(json_object_get(g, "summary")), 0);
	size_t n = 99;
	char *out = print_to_string(g, &n);
	assert_int_equal(n, 0);
	assert_non_null(strstr(out, "no size was measured"));
	assert_null(strstr(out, "mean |gap|"));
	free(out);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

static void test_print_summary(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = summary_measurements();
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	json_t *g = compute(devices, ms);
	size_t n = 0;
	char *out = print_to_string(g, &n);
	assert_int_equal(n, 9);
	assert_null(strstr(out, "no size was measured"));
	assert_non_null(strstr(out, "mean |gap|"));
	/* One table line per summary row. */
	size_t lines = 0;
	for (const char *p = out; (p = strstr(p, "\n  host ")) != NULL; p++)
		lines++;
	assert_int_equal(lines, 9);
	free(out);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

/* ---- a recorded document ---------------------------------------------------------------- */

static bool verified(json_t *m)
{
	json_t *err = json_object_get(m, "error");
	json_t *status = json_object_get(json_object_get(m, "verification"), "status");
	return json_is_null(err) && json_is_string(status) &&
	       strcmp(json_string_value(status), "passed") == 0 &&
	       json_object_get(m, "hht_sweep") == NULL;
}

static bool same_str(json_t *a, json_t *b, const char *key)
{
	const char *x = json_string_value(json_object_get(a, key));
	const char *y = json_string_value(json_object_get(b, key));
	return x && y && strcmp(x, y) == 0;
}

/* Does the stream end \p oe of an OpenMP measurement correspond to \p ne of a measurement
 * through \p api? Host ends are "host"; device ends are mapped through the matches. */
static bool same_end(json_t *devices, json_t *oe, json_t *ne, const char *api)
{
	if (json_is_string(oe) || json_is_string(ne))
		return json_is_string(oe) && json_is_string(ne) &&
		       strcmp(json_string_value(oe), "host") == 0 &&
		       strcmp(json_string_value(ne), "host") == 0;
	if (!json_is_integer(oe) || !json_is_integer(ne))
		return false;
	json_t *d = omp_device(devices, (int)json_integer_value(oe));
	json_t *n = d ? json_object_get(d, "native") : NULL;
	if (!n)
		return false;
	return strcmp(json_string_value(json_object_get(n, "api")), api) == 0 &&
	       json_integer_value(json_object_get(n, "id")) == json_integer_value(ne);
}

static bool is_partner(json_t *devices, json_t *m, json_t *n)
{
	const char *api = json_string_value(json_object_get(n, "api"));
	const char *mode = json_string_value(json_object_get(m, "mode"));
	const char *nmode = json_string_value(json_object_get(n, "mode"));
	if (!api || strcmp(api, "omp") == 0 || !verified(n) || !mode || !nmode)
		return false;
	if (strcmp(nmode, strcmp(mode, "nowait") == 0 ? "async" : mode) != 0)
		return false;
	if (!same_str(m, n, "direction") || !same_str(m, n, "host_mem") ||
	    !same_str(m, n, "concurrency") ||
	    !json_equal(json_object_get(m, "bytes"), json_object_get(n, "bytes")))
		return false;
	json_t *ms = json_object_get(m, "streams"), *ns = json_object_get(n, "streams");
	if (json_array_size(ms) == 0 || json_array_size(ms) != json_array_size(ns))
		return false;
	for (size_t i = 0; i < json_array_size(ms); i++) {
		json_t *a = json_array_get(ms, i), *b = json_array_get(ns, i);
		if (!same_end(devices, json_object_get(a, "src"), json_object_get(b, "src"), api) ||
		    !same_end(devices, json_object_get(a, "dst"), json_object_get(b, "dst"), api))
			return false;
	}
	json_t *med = json_object_get(json_object_get(n, "gbps"), "median");
	return json_is_number(med) && json_number_value(med) > 0.0;
}

static void test_fixture_host_2cpu_vm(void **state)
{
	(void)state;
	char err[1024] = "";
	struct nbw_doc *doc =
		nbw_doc_load(NODEBW_FIXTURES "/results-omp-host-2cpu-vm.json", err, sizeof(err));
	if (!doc)
		fail_msg("nbw_doc_load: %s", err);

	/* Forget the matches the run recorded, then match again. */
	size_t i;
	json_t *d, *m, *r;
	int host_plugin = 0;
	json_array_foreach(doc->devices, i, d) {
		json_object_del(d, "native");
		if (strcmp(text(d, "api"), "omp") == 0 &&
		    strcmp(text(d, "kind"), "host-plugin") == 0)
			host_plugin++;
	}
	assert_true(host_plugin > 0);
	assert_int_equal(nbw_gap_match_devices(doc->devices), host_plugin);
	json_array_foreach(doc->devices, i, d) {
		if (strcmp(text(d, "api"), "omp") == 0 &&
		    strcmp(text(d, "kind"), "host-plugin") == 0)
			check_native(doc->devices, (int)integer(d, "id"), "host",
				     (int)integer(d, "id"), "host-plugin");
	}

	json_t *g = compute(doc->devices, doc->measurements);
	json_array_foreach(json_object_get(g, "rows"), i, r) {
		double gap = num(r, "gap_gbps"), want = num(r, "native_gbps") - num(r, "omp_gbps");
		if (gap != want)
			fail_msg("row %zu: gap_gbps %.17g != native - omp %.17g", i, gap, want);
		assert_close(num(r, "relative_gap"), gap / num(r, "native_gbps"));
		assert_string_equal(text(r, "native_api"), "host");
	}

	/* The expected row count: verified OpenMP measurements with a native partner. */
	size_t omp_verified = 0, partnered = 0, j;
	json_t *n;
	json_array_foreach(doc->measurements, i, m) {
		assert_null(json_object_get(m, "hht_sweep"));
		if (strcmp(text(m, "api"), "omp") != 0 || !verified(m))
			continue;
		omp_verified++;
		json_array_foreach(doc->measurements, j, n) {
			if (is_partner(doc->devices, m, n)) {
				partnered++;
				break;
			}
		}
	}
	assert_true(partnered > 0);
	assert_int_equal(nrows(g), partnered);
	/* The host backend covers every mode, memory kind and concurrency OpenMP ran here. */
	assert_int_equal(partnered, omp_verified);

	size_t printed = 0;
	char *out = print_to_string(g, &printed);
	assert_int_equal(printed, json_array_size(json_object_get(g, "summary")));
	assert_true(printed > 0);
	free(out);
	json_decref(g);
	nbw_doc_free(doc);
}


/* Give a measurement its median's interval in GB/s (median_ci, as results.c writes it). */
static json_t *with_ci(json_t *m, double lo_gbps, double hi_gbps)
{
	assert_int_equal(json_object_set_new(m, "median_ci",
					     json_pack("{s:f, s:f, s:f}", "level", 0.95, "lo_gbps",
						       lo_gbps, "hi_gbps", hi_gbps)),
			 0);
	return m;
}

/* A gap no larger than the two intervals together (they overlap) is no measurable gap: the
 * row says so, a band where most rows do says "no measurable gap" instead of a signed
 * figure, and such sizes take no side in the sign changes. Sizes:
 *   8 B:     OpenMP 1.00 [0.98, 1.02], native 1.03 [1.01, 1.05]: overlap, rel +2.9 %
 *   4 KiB:   OpenMP 1.00 [0.99, 1.01], native 1.50 [1.49, 1.51]: measurable, +33 %
 *   64 KiB:  OpenMP 10.0 [9.0, 11.0], native 10.5 [10.4, 10.6]: overlap (inside), +4.8 %
 *   1 MiB:   OpenMP 12.0 [11.9, 12.1], native 10.0 [9.9, 10.1]: measurable, -20 %
 *   16 MiB:  OpenMP 9.0 [8.0, 10.0], native 10.0 [10.0, 10.2]: touching ends overlap, +10 %
 *   64 MiB:  OpenMP 9.5 [9.0, 10.5], native 10.0 [9.8, 10.2]: overlap, +5 % */
static void test_measurable(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = json_array();
	static const struct {
		long long bytes;
		double omp, olo, ohi, nat, nlo, nhi;
	} pts[] = { { 8, 1.0, 0.98, 1.02, 1.03, 1.01, 1.05 },
		    { 4096, 1.0, 0.99, 1.01, 1.5, 1.49, 1.51 },
		    { 65536, 10.0, 9.0, 11.0, 10.5, 10.4, 10.6 },
		    { 1048576, 12.0, 11.9, 12.1, 10.0, 9.9, 10.1 },
		    { 16777216, 9.0, 8.0, 10.0, 10.0, 10.0, 10.2 },
		    { 67108864, 9.5, 9.0, 10.5, 10.0, 9.8, 10.2 } };
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		double b = (double)pts[i].bytes;
		add(ms, with_ci(meas("omp", "htod", "sync", "pinned", "single", pts[i].bytes, HTOD0,
				     pts[i].omp, b / (pts[i].omp * 1e9)),
				pts[i].olo, pts[i].ohi));
		add(ms, with_ci(meas("host", "htod", "sync", "pinned", "single", pts[i].bytes, HTOD0,
				     pts[i].nat, b / (pts[i].nat * 1e9)),
				pts[i].nlo, pts[i].nhi));
	}
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	json_t *g = compute(devices, ms);
	static const struct {
		long long bytes;
		bool measurable;
	} want[] = { { 8, false },	   { 4096, true },	 { 65536, false },
		     { 1048576, true }, { 16777216, false }, { 67108864, false } };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		json_t *r = find_row(g, "htod", "sync", "pinned", "single", want[i].bytes);
		assert_non_null(r);
		assert_true(json_is_boolean(json_object_get(r, "measurable")));
		if (json_is_true(json_object_get(r, "measurable")) != want[i].measurable)
			fail_msg("%lld B: measurable should be %d", want[i].bytes,
				 want[i].measurable);
		/* The signed figures stay in the row (the output shape is kept). */
		assert_close(num(r, "gap_gbps"), pts[i].nat - pts[i].omp);
		json_t *oc = json_object_get(r, "omp_ci_gbps");
		assert_close(json_number_value(json_array_get(oc, 0)), pts[i].olo);
		assert_close(json_number_value(json_array_get(json_object_get(r, "native_ci_gbps"),
							      1)),
			     pts[i].nhi);
	}
	json_t *s = find_summary(g, "host", "htod", "sync", "pinned", 1);
	json_t *lat = json_object_get(s, "latency_band"), *bw = json_object_get(s, "bandwidth_band");
	/* Small sizes: 2 of 3 within the intervals: no measurable gap (the median +4.8 %
	 * would have said OpenMP slower). */
	assert_int_equal(integer(lat, "sizes"), 3);
	assert_int_equal(integer(lat, "unmeasurable_sizes"), 2);
	assert_string_equal(text(lat, "verdict"), NBW_GAP_NOT_MEASURABLE);
	assert_string_equal(nbw_gap_band_verdict(lat), NBW_GAP_NOT_MEASURABLE);
	assert_false(nbw_gap_measurable(lat));
	assert_close(num(lat, "median_relative_gap"), 0.5 / 10.5);
	/* Large sizes: 2 of 3 again (16 MiB touches, 64 MiB overlaps). */
	assert_int_equal(integer(bw, "unmeasurable_sizes"), 2);
	assert_string_equal(text(bw, "verdict"), NBW_GAP_NOT_MEASURABLE);
	/* Only 4 KiB (+) and 1 MiB (-) take a side: one sign change, at 1 MiB. */
	json_t *ch = json_object_get(s, "sign_changes_at_bytes");
	assert_int_equal(json_array_size(ch), 1);
	assert_int_equal(json_integer_value(json_array_get(ch, 0)), 1048576);
	/* The printed table says so instead of the signed percentages. */
	size_t n = 0;
	char *out = print_to_string(g, &n);
	assert_int_equal(n, 2);
	const char *line = strstr(out, "\n  host   htod  sync    pinned");
	assert_non_null(line);
	const char *end = strchr(line + 1, '\n');
	assert_non_null(end);
	char row[512];
	snprintf(row, sizeof(row), "%.*s", (int)(end - line), line);
	assert_non_null(strstr(row, "no measurable gap"));
	assert_null(strstr(row, "%"));
	assert_null(strstr(row, "OpenMP slower"));
	free(out);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

/* One measurable row of three in a band: the band keeps its signed verdict; a band of one
 * measurable and one unmeasurable row is not "most within" either. */
static void test_measurable_minority(void **state)
{
	(void)state;
	json_t *devices = load(HOST_DEVICES), *ms = json_array();
	/* 1 MiB measurable (-20 %), 16 MiB overlapping (+1 %). */
	add(ms, with_ci(meas("omp", "htod", "sync", "pinned", "single", 1048576, HTOD0, 12.0,
			     1048576 / 12e9),
			11.9, 12.1));
	add(ms, with_ci(meas("host", "htod", "sync", "pinned", "single", 1048576, HTOD0, 10.0,
			     1048576 / 10e9),
			9.9, 10.1));
	add(ms, with_ci(meas("omp", "htod", "sync", "pinned", "single", 16777216, HTOD0, 9.9,
			     16777216 / 9.9e9),
			9.5, 10.5));
	add(ms, with_ci(meas("host", "htod", "sync", "pinned", "single", 16777216, HTOD0, 10.0,
			     16777216 / 10e9),
			9.8, 10.2));
	/* A pair without intervals (an older document) counts as measurable. */
	add(ms, meas("omp", "htod", "sync", "pinned", "single", 8, HTOD0, 1.0, 8e-9));
	add(ms, meas("host", "htod", "sync", "pinned", "single", 8, HTOD0, 2.0, 4e-9));
	assert_int_equal(nbw_gap_match_devices(devices), 2);
	json_t *g = compute(devices, ms);
	json_t *r8 = find_row(g, "htod", "sync", "pinned", "single", 8);
	assert_null(json_object_get(r8, "measurable"));
	assert_null(json_object_get(r8, "omp_ci_gbps"));
	json_t *s = find_summary(g, "host", "htod", "sync", "pinned", 1);
	json_t *bw = json_object_get(s, "bandwidth_band"), *lat = json_object_get(s, "latency_band");
	assert_int_equal(integer(bw, "unmeasurable_sizes"), 1);
	/* median of -0.2 and +0.01 = -0.095: OpenMP faster */
	assert_string_equal(text(bw, "verdict"), "OpenMP faster");
	assert_true(nbw_gap_measurable(bw));
	assert_int_equal(integer(lat, "unmeasurable_sizes"), 0);
	assert_string_equal(text(lat, "verdict"), "OpenMP slower");
	/* A band of a document without verdicts: the verdict of its number. */
	json_t *old = json_pack("{s:f}", "median_relative_gap", -0.5);
	assert_string_equal(nbw_gap_band_verdict(old), "OpenMP faster");
	assert_true(nbw_gap_measurable(old));
	json_decref(old);
	json_decref(g);
	json_decref(ms);
	json_decref(devices);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_host_plugin),
		cmocka_unit_test(test_match_host_plugin_no_host),
		cmocka_unit_test(test_match_pci_bus_id),
		cmocka_unit_test(test_match_order_inferred),
		cmocka_unit_test(test_row_basic),
		cmocka_unit_test(test_row_nowait_pairs_async),
		cmocka_unit_test(test_row_p2p_peer_access),
		cmocka_unit_test(test_row_unusable_ignored),
		cmocka_unit_test(test_row_no_partner),
		cmocka_unit_test(test_row_dual),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_bands),
		cmocka_unit_test(test_print_empty),
		cmocka_unit_test(test_print_summary),
		cmocka_unit_test(test_measurable),
		cmocka_unit_test(test_measurable_minority),
		cmocka_unit_test(test_fixture_host_2cpu_vm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
