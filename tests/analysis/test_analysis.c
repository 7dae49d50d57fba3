/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of analysis/: the P2P matrices, the host<->device tables and the outlier rule,
 * on the hand-made DGX-H100 document, the recorded host-plugin document and small synthetic
 * ones (groups of two, host-plugin devices, same-device copies). */
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

#include "../../analysis/measure.h" /* nbw_an_series_size: the one size rule */
#include "../../report/round_label.h" /* the report's numbering of solver rounds */
#include "nodebw/analysis.h"
#include "nodebw/kernel_cmp.h"
#include "nodebw/results.h"

#ifndef NODEBW_FIXTURES
#error "NODEBW_FIXTURES (the tests/fixtures folder) must be defined by the build"
#endif

static struct nbw_doc *load_fixture(const char *name)
{
	char path[1024], err[1024];
	snprintf(path, sizeof(path), "%s/%s", NODEBW_FIXTURES, name);
	struct nbw_doc *d = nbw_doc_load(path, err, sizeof(err));
	if (!d)
		fail_msg("%s", err);
	return d;
}

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j)
		fail_msg("literal JSON %d:%d: %s", e.line, e.column, e.text);
	return j;
}

/* A verified measurement with the fields the analyses read; theo <= 0: none known. */
static json_t *meas(const char *api, const char *dir, const char *conc, json_int_t bytes,
		    const char *streams, double gbps, double theo, const char *link)
{
	json_t *m = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:{s:f}, s:{s:f}, s:{s:s},"
			      " s:n, s:{s:o, s:s, s:s}}",
			      "api", api, "direction", dir, "mode", "sync", "host_mem",
			      strcmp(dir, "p2p") == 0 ? "none" : "pinned", "concurrency", conc,
			      "peer_access", "n/a", "bytes", bytes, "streams", load(streams), "gbps",
			      "median", gbps, "seconds", "median", (double)bytes / (gbps * 1e9),
			      "verification", "status", "passed", "error", "theoretical", "gbps",
			      theo > 0 ? json_real(theo) : json_null(), "link", link, "basis", "");
	assert_non_null(m);
	return m;
}

#define GPUS(n) gpu_devices(n)
static json_t *gpu_devices(int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:s, s:b}", "api", "cuda", "id", i,
						   "kind", "cuda", "is_gpu", 1));
	return a;
}

static bool has_device(json_t *o, int id)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(o, "devices"), i, v)
		if (json_integer_value(v) == id)
			return true;
	return false;
}

static bool has_rule(json_t *o, const char *rule)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(o, "rules"), i, v)
		if (strcmp(json_string_value(v), rule) == 0)
			return true;
	return false;
}

/* ---- the hand-made DGX-H100 document ------------------------------------------------------ */

static void handmade_flags_exactly_the_planted_faults(void **state)
{
	(void)state;
	struct nbw_doc *d = load_fixture("results-dgx-h100-handmade.json");
	json_t *groups = NULL;
	json_t *out = nbw_analysis_outliers(d->devices, d->measurements, &groups);
	size_t i, pairs = 0, devs = 0;
	json_t *o;
	json_array_foreach(out, i, o) {
		const char *what = json_string_value(json_object_get(o, "what"));
		const char *reason = json_string_value(json_object_get(o, "reason"));
		if (strcmp(what, "pair") == 0) {
			assert_int_equal(json_array_size(json_object_get(o, "devices")), 2);
			assert_true(has_device(o, 3) && has_device(o, 6));
			pairs++;
		} else {
			assert_string_equal(what, "device");
			assert_int_equal(json_array_size(json_object_get(o, "devices")), 1);
			assert_true(has_device(o, 5));
			devs++;
		}
		/* Both rules hold, and the reason names the median and the theoretical figure. */
		assert_true(has_rule(o, "peer-median") && has_rule(o, "theoretical"));
		assert_non_null(strstr(reason, "median"));
		assert_non_null(strstr(reason, "theoretical"));
		assert_true(json_is_number(json_object_get(o, "peer_median_gbps")));
		assert_true(json_number_value(json_object_get(o, "fraction")) < 0.7);
	}
	/* 3->6, 6->3, 3<->6, 6<->3; device 5's HtoD and DtoH. */
	assert_int_equal(pairs, 4);
	assert_int_equal(devs, 2);
	/* Four groups (htod, dtoh, p2p single, p2p bidir at 256 MiB), all with the median rule. */
	assert_int_equal(json_array_size(groups), 4);
	json_array_foreach(groups, i, o)
		assert_true(json_is_true(json_object_get(o, "median_rule")));
	json_decref(out);
	json_decref(groups);
	nbw_doc_free(d);
}

static void handmade_matrices(void **state)
{
	(void)state;
	struct nbw_doc *d = load_fixture("results-dgx-h100-handmade.json");
	json_t *mx = nbw_analysis_matrices(d->devices, d->measurements), *m;
	size_t i;
	assert_int_equal(json_array_size(mx), 2); /* single and bidir */
	json_array_foreach(mx, i, m) {
		json_t *cells = json_object_get(m, "cells");
		assert_int_equal(json_array_size(json_object_get(m, "devices")), 8);
		assert_int_equal(json_integer_value(json_object_get(m, "bandwidth_bytes")),
				 256 * 1024 * 1024);
		assert_int_equal(json_integer_value(json_object_get(m, "latency_bytes")), 8);
		for (size_t r = 0; r < 8; r++)
			for (size_t c = 0; c < 8; c++) {
				json_t *cell = json_array_get(json_array_get(cells, r), c);
				if (r == c) {
					assert_true(json_is_null(cell));
					continue;
				}
				assert_true(json_is_object(cell));
				assert_string_equal(json_string_value(json_object_get(cell, "link")),
						    "NV18");
				assert_true(json_is_true(json_object_get(cell, "peer_link")));
				double lat = json_number_value(json_object_get(cell, "latency_us"));
				assert_true(lat > 5.0 && lat < 20.0);
			}
		json_t *bad = json_array_get(json_array_get(cells, 3), 6);
		assert_true(json_number_value(json_object_get(bad, "fraction")) < 0.5);
	}
	json_t *single = json_array_get(mx, 0);
	assert_string_equal(json_string_value(json_object_get(single, "concurrency")), "single");
	json_t *c01 = json_array_get(json_array_get(json_object_get(single, "cells"), 0), 1);
	double g = json_number_value(json_object_get(c01, "gbps"));
	assert_true(g > 360.0 && g < 400.0);
	assert_true(fabs(json_number_value(json_object_get(c01, "theoretical_gbps")) - 450.0) < 1e-9);

	json_t *tables = nbw_analysis_device_tables(d->devices, d->measurements), *t;
	assert_int_equal(json_array_size(tables), 2); /* htod, dtoh */
	json_array_foreach(tables, i, t) {
		json_t *rows = json_object_get(t, "rows");
		assert_int_equal(json_array_size(rows), 8);
		json_t *r5 = json_array_get(rows, 5);
		assert_int_equal(json_integer_value(json_object_get(r5, "device")), 5);
		assert_true(json_number_value(json_object_get(r5, "gbps")) < 30.0);
		assert_string_equal(json_string_value(json_object_get(r5, "link")), "PCIe Gen5 x16");
	}
	json_decref(tables);
	json_decref(mx);
	nbw_doc_free(d);
}

/* ---- small groups, host memory, same device ----------------------------------------------- */

static void group_of_two_gets_only_the_theoretical_rule(void **state)
{
	(void)state;
	json_t *devs = GPUS(4), *ms = json_array(), *groups = NULL;
	/* Pair 0->1 at half of 2->3 (median rule would flag it), both above 70 % of theory. */
	json_array_append_new(ms, meas("cuda", "p2p", "single", 1 << 20,
				       "[{\"src\": 0, \"dst\": 1}]", 200.0, 250.0, "NV4"));
	json_array_append_new(ms, meas("cuda", "p2p", "single", 1 << 20,
				       "[{\"src\": 2, \"dst\": 3}]", 240.0, 250.0, "NV4"));
	json_t *out = nbw_analysis_outliers(devs, ms, &groups);
	assert_int_equal(json_array_size(out), 0);
	assert_int_equal(json_array_size(groups), 1);
	json_t *g = json_array_get(groups, 0);
	assert_false(json_is_true(json_object_get(g, "median_rule")));
	assert_int_equal(json_integer_value(json_object_get(g, "members")), 2);
	assert_non_null(strstr(json_string_value(json_object_get(g, "note")), "median rule not"));
	json_decref(out);
	json_decref(groups);

	/* Now 0->1 falls below 70 % of its theoretical figure: flagged by that rule alone. */
	json_object_set_new(json_object_get(json_array_get(ms, 0), "gbps"), "median",
			    json_real(100.0));
	out = nbw_analysis_outliers(devs, ms, NULL);
	assert_int_equal(json_array_size(out), 1);
	json_t *o = json_array_get(out, 0);
	assert_true(has_rule(o, "theoretical"));
	assert_false(has_rule(o, "peer-median"));
	assert_true(json_is_null(json_object_get(o, "peer_median_gbps")));
	assert_string_equal(json_string_value(json_object_get(o, "where")), "0->1");
	assert_non_null(strstr(json_string_value(json_object_get(o, "reason")), "theoretical"));
	json_decref(out);

	/* A third member of another link kind does not make a group of three. */
	json_array_append_new(ms, meas("cuda", "p2p", "single", 1 << 20,
				       "[{\"src\": 1, \"dst\": 2}]", 50.0, 63.0, "NODE"));
	out = nbw_analysis_outliers(devs, ms, &groups);
	assert_int_equal(json_array_size(out), 1);
	assert_int_equal(json_array_size(groups), 2);
	json_decref(out);
	json_decref(groups);
	json_decref(ms);
	json_decref(devs);
}

static void only_the_largest_size_is_judged(void **state)
{
	(void)state;
	json_t *devs = GPUS(2), *ms = json_array();
	/* 8 B is far below any theoretical figure: latency, not an outlier. */
	json_array_append_new(ms, meas("cuda", "htod", "single", 8,
				       "[{\"src\": \"host\", \"dst\": 0}]", 0.001, 63.0, "PCIe Gen5 x16"));
	json_array_append_new(ms, meas("cuda", "htod", "single", 1 << 28,
				       "[{\"src\": \"host\", \"dst\": 0}]", 55.0, 63.0, "PCIe Gen5 x16"));
	json_t *out = nbw_analysis_outliers(devs, ms, NULL);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
	json_decref(ms);
	json_decref(devs);
}

#define HOST_PLUGIN_DEVICES                                                                \
	"[{\"api\": \"omp\", \"id\": 0, \"kind\": \"host-plugin\", \"is_gpu\": false},"      \
	" {\"api\": \"omp\", \"id\": 1, \"kind\": \"host-plugin\", \"is_gpu\": false},"      \
	" {\"api\": \"omp\", \"id\": 2, \"kind\": \"host-plugin\", \"is_gpu\": false}]"

static void host_plugin_never_flagged_by_theory(void **state)
{
	(void)state;
	json_t *devs = load(HOST_PLUGIN_DEVICES), *ms = json_array();
	/* Even with a (wrong) theoretical figure in the file, host memory has none. */
	json_array_append_new(ms, meas("omp", "htod", "single", 1 << 20,
				       "[{\"src\": \"host\", \"dst\": 0}]", 1.0, 63.0, "PCIe Gen5 x16"));
	json_array_append_new(ms, meas("omp", "htod", "single", 1 << 20,
				       "[{\"src\": \"host\", \"dst\": 1}]", 1.05, 63.0, "PCIe Gen5 x16"));
	json_array_append_new(ms, meas("omp", "htod", "single", 1 << 20,
				       "[{\"src\": \"host\", \"dst\": 2}]", 1.1, 63.0, "PCIe Gen5 x16"));
	json_t *out = nbw_analysis_outliers(devs, ms, NULL);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
	/* The median rule judges host memory like every kind: a device at half its peers'
	 * median is a slow path of the API (a staging buffer, a helper thread) and is named;
	 * the group says it is host memory. */
	json_object_set_new(json_object_get(json_array_get(ms, 2), "gbps"), "median",
			    json_real(0.5));
	json_t *groups = NULL;
	out = nbw_analysis_outliers(devs, ms, &groups);
	assert_int_equal(json_array_size(out), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(out, 0), "where")), "2");
	assert_int_equal(json_array_size(groups), 1);
	json_t *g = json_array_get(groups, 0);
	assert_true(json_is_true(json_object_get(g, "median_rule")));
	assert_string_equal(json_string_value(json_object_get(g, "link")), NBW_HOST_MEMORY_LABEL);
	assert_non_null(strstr(json_string_value(json_object_get(g, "note")), "host memory"));
	json_decref(groups);
	json_decref(out);

	json_t *tables = nbw_analysis_device_tables(devs, ms);
	json_t *row = json_array_get(json_object_get(json_array_get(tables, 0), "rows"), 0);
	assert_true(json_is_null(json_object_get(row, "theoretical_gbps")));
	assert_true(json_is_true(json_object_get(row, "host_memory")));
	json_decref(tables);
	json_decref(ms);
	json_decref(devs);
}

static void same_device_is_not_a_peer_link(void **state)
{
	(void)state;
	json_t *devs = GPUS(3), *ms = json_array();
	json_array_append_new(ms, meas("cuda", "p2p", "single", 1 << 20,
				       "[{\"src\": 1, \"dst\": 1}]", 1500.0, 450.0, "X"));
	json_array_append_new(ms, meas("cuda", "p2p", "single", 1 << 20,
				       "[{\"src\": 0, \"dst\": 1}]", 380.0, 450.0, "NV18"));
	json_t *mx = nbw_analysis_matrices(devs, ms);
	assert_int_equal(json_array_size(mx), 1);
	json_t *m = json_array_get(mx, 0), *cells = json_object_get(m, "cells");
	assert_int_equal(json_array_size(json_object_get(m, "devices")), 3);
	json_t *diag = json_array_get(json_array_get(cells, 1), 1);
	assert_string_equal(json_string_value(json_object_get(diag, "link")), NBW_SAME_DEVICE_LABEL);
	assert_true(json_is_false(json_object_get(diag, "peer_link")));
	assert_true(json_is_null(json_object_get(diag, "theoretical_gbps")));
	assert_true(json_is_null(json_array_get(json_array_get(cells, 2), 0))); /* not measured */

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	nbw_analysis_print_matrices(f, mx);
	fclose(f);
	assert_non_null(strstr(buf, "GB/s = 1e9 B/s"));
	assert_non_null(strstr(buf, "* " NBW_SAME_DEVICE_LABEL));
	free(buf);

	json_t *out = nbw_analysis_outliers(devs, ms, NULL); /* 1500 vs 380: not compared */
	assert_int_equal(json_array_size(out), 0);
	f = open_memstream(&buf, &len);
	nbw_analysis_print_outliers(f, out, NULL);
	fclose(f);
	assert_non_null(strstr(buf, "no outliers"));
	assert_non_null(strstr(buf, "GB/s = 1e9 B/s"));
	free(buf);
	json_decref(out);
	json_decref(mx);
	json_decref(ms);
	json_decref(devs);
}

static void recorded_host_plugin_document(void **state)
{
	(void)state;
	struct nbw_doc *d = load_fixture("results-omp-host-2cpu-vm.json");
	json_t *mx = nbw_analysis_matrices(d->devices, d->measurements), *m, *groups = NULL;
	size_t i;
	assert_true(json_array_size(mx) > 0);
	json_array_foreach(mx, i, m) {
		json_t *cells = json_object_get(m, "cells");
		size_t n = json_array_size(json_object_get(m, "devices"));
		assert_true(n >= 2);
		json_t *c01 = json_array_get(json_array_get(cells, 0), 1);
		assert_true(json_is_object(c01));
		assert_string_equal(json_string_value(json_object_get(c01, "link")),
				    NBW_HOST_MEMORY_LABEL);
		assert_true(json_is_false(json_object_get(c01, "peer_link")));
		assert_true(json_is_null(json_object_get(c01, "theoretical_gbps")));
		char *s = json_dumps(json_object_get(m, "notes"), 0);
		assert_non_null(strstr(s, "not peer links"));
		free(s);
	}
	json_t *out = nbw_analysis_outliers(d->devices, d->measurements, &groups);
	json_t *o;
	json_array_foreach(out, i, o)
		assert_false(has_rule(o, "theoretical"));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	nbw_analysis_print_matrices(f, mx);
	nbw_analysis_print_outliers(f, out, groups);
	fclose(f);
	assert_non_null(strstr(buf, "HOST"));
	free(buf);
	json_decref(out);
	json_decref(groups);
	json_decref(mx);
	nbw_doc_free(d);
}

static void empty_document(void **state)
{
	(void)state;
	json_t *devs = json_array(), *ms = json_array(), *groups = NULL;
	json_t *mx = nbw_analysis_matrices(devs, ms), *t = nbw_analysis_device_tables(devs, ms);
	json_t *out = nbw_analysis_outliers(devs, ms, &groups);
	assert_int_equal(json_array_size(mx) + json_array_size(t) + json_array_size(out) +
				 json_array_size(groups), 0);
	json_decref(mx);
	json_decref(t);
	json_decref(out);
	json_decref(groups);
	json_decref(ms);
	json_decref(devs);
}

/* A binding axis (--bind local,remote) makes groups of their own: a device measured with
 * remote binding is not a peer of the locally bound devices, nor a second cell. */
static void binding_is_its_own_series(void **state)
{
	(void)state;
	json_t *devs = GPUS(3), *ms = json_array();
	const char *streams[] = { "[{\"src\": \"host\", \"dst\": 0}]",
				  "[{\"src\": \"host\", \"dst\": 1}]",
				  "[{\"src\": \"host\", \"dst\": 2}]" };
	for (int d = 0; d < 3; d++) {
		json_t *m = meas("cuda", "htod", "single", 1 << 28, streams[d], 55.0, 63.0,
				 "PCIe Gen5 x16");
		json_object_set_new(m, "binding", json_pack("{s:s}", "policy", "local"));
		json_array_append_new(ms, m);
	}
	json_t *r = meas("cuda", "htod", "single", 1 << 28, streams[0], 46.0, 63.0,
			 "PCIe Gen5 x16");
	json_object_set_new(r, "binding", json_pack("{s:s}", "policy", "remote"));
	json_array_append_new(ms, r);
	json_t *groups = NULL;
	json_t *out = nbw_analysis_outliers(devs, ms, &groups);
	assert_int_equal(json_array_size(out), 0); /* 46 is above 70 % of 63 */
	assert_int_equal(json_array_size(groups), 2);
	json_t *tables = nbw_analysis_device_tables(devs, ms);
	assert_int_equal(json_array_size(tables), 2);
	json_decref(tables);
	json_decref(groups);
	json_decref(out);
	json_decref(ms);
	json_decref(devs);
}

/* Every device at once: the aggregate against the sum of each stream alone, the links' sum
 * and the host memory measured alone; the ring's slowest stream; neither in the matrices nor
 * judged by the outlier rule. */
static void all_at_once_bounds(void **state)
{
	(void)state;
	json_t *devs = GPUS(4), *ms = json_array();
	/* host-to-all: 4 x PCIe Gen5 x16 = 252 GB/s of links, 100 GB/s reached */
	json_t *all = meas("cuda", "htod", "all", 1 << 28,
			   "[{\"src\": \"host\", \"dst\": 0, \"gbps\": {\"median\": 26.0},"
			   "  \"alone_gbps\": {\"median\": 55.0}},"
			   " {\"src\": \"host\", \"dst\": 1, \"gbps\": {\"median\": 25.0},"
			   "  \"alone_gbps\": {\"median\": 55.0}},"
			   " {\"src\": \"host\", \"dst\": 2, \"gbps\": {\"median\": 24.0},"
			   "  \"alone_gbps\": {\"median\": 54.0}},"
			   " {\"src\": \"host\", \"dst\": 3, \"gbps\": {\"median\": 25.5},"
			   "  \"alone_gbps\": {\"median\": 56.0}}]",
			   100.0, 252.0, "PCIe Gen5 x16");
	json_array_append_new(ms, all);
	/* the host's memory: one copy over every core, 120 GB/s at its largest size (a smaller
	 * size is faster, and must not be taken) */
	json_array_append_new(ms, meas("host", "htod", "single", 1 << 20,
				       "[{\"src\": \"host\", \"dst\": 0}]", 150.0, -1, "host"));
	json_t *hp = meas("host", "htod", "single", 1 << 28, "[{\"src\": \"host\", \"dst\": 0}]",
			  120.0, -1, "host");
	json_object_set_new(hp, "mode", json_string("parallel"));
	json_object_set_new(json_array_get(ms, 1), "mode", json_string("parallel"));
	json_array_append_new(ms, hp);
	/* the ring 0->1->2->3->0 over NVLink, 2->3 slow */
	json_array_append_new(ms, meas("cuda", "p2p", "ring", 1 << 28,
				       "[{\"src\": 0, \"dst\": 1, \"gbps\": {\"median\": 300.0}},"
				       " {\"src\": 1, \"dst\": 2, \"gbps\": {\"median\": 310.0}},"
				       " {\"src\": 2, \"dst\": 3, \"gbps\": {\"median\": 150.0}},"
				       " {\"src\": 3, \"dst\": 0, \"gbps\": {\"median\": 305.0}}]",
				       600.0, 1800.0, "NV18"));
	json_t *rows = nbw_analysis_concurrent(devs, ms);
	assert_int_equal(json_array_size(rows), 2);
	json_t *h = json_array_get(rows, 0), *r = json_array_get(rows, 1);
	assert_string_equal(json_string_value(json_object_get(h, "pattern")), "host-to-all");
	assert_int_equal(json_array_size(json_object_get(h, "devices")), 4);
	assert_float_equal(json_number_value(json_object_get(h, "alone_sum_gbps")), 220.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(h, "scaling")), 100.0 / 220.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(h, "fraction_of_links")),
			   100.0 / 252.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(h, "host_memory_limit_gbps")),
			   120.0, 1e-9);
	assert_string_equal(json_string_value(json_object_get(h, "bound")), "host memory");
	assert_non_null(strstr(json_string_value(json_object_get(h, "verdict")),
			       "83.3 % of the host-memory reference measured alone"));
	json_t *sl = json_object_get(h, "slowest");
	assert_int_equal(json_integer_value(json_object_get(sl, "dst")), 2);
	/* a GPU ring does not cross host memory: the links bound it */
	assert_string_equal(json_string_value(json_object_get(r, "pattern")), "ring");
	assert_true(json_is_null(json_object_get(r, "host_memory_limit_gbps")));
	assert_string_equal(json_string_value(json_object_get(r, "bound")), "links");
	sl = json_object_get(r, "slowest");
	assert_int_equal(json_integer_value(json_object_get(sl, "src")), 2);
	assert_int_equal(json_integer_value(json_object_get(sl, "dst")), 3);
	json_decref(rows);
	/* neither is a matrix cell or judged as one device among its peers */
	json_t *mx = nbw_analysis_matrices(devs, ms);
	assert_int_equal(json_array_size(mx), 0);
	json_t *out = nbw_analysis_outliers(devs, ms, NULL);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
	json_decref(mx);
	json_decref(ms);
	json_decref(devs);
}

/* A sweep longer than the matrix cells (--full: device 0 to 1 GiB, the others to 256 MiB):
 * the matrix, the tables and the outlier rule read every device at 256 MiB. */
static void read_at_the_size_every_set_has(void **state)
{
	(void)state;
	json_t *devs = GPUS(4), *ms = json_array();
	const char *ends[] = { "[{\"src\": \"host\", \"dst\": 0}]", "[{\"src\": \"host\", \"dst\": 1}]",
			       "[{\"src\": \"host\", \"dst\": 2}]", "[{\"src\": \"host\", \"dst\": 3}]" };
	for (int d = 0; d < 4; d++) {
		json_array_append_new(ms, meas("cuda", "htod", "single", 8, ends[d], 0.001, 63.0,
					       "PCIe Gen5 x16"));
		json_array_append_new(ms, meas("cuda", "htod", "single", 1 << 28, ends[d],
					       d == 3 ? 30.0 : 55.0, 63.0, "PCIe Gen5 x16"));
	}
	json_array_append_new(ms, meas("cuda", "htod", "single", 1 << 30, ends[0], 55.5, 63.0,
				       "PCIe Gen5 x16"));
	json_t *out = nbw_analysis_outliers(devs, ms, NULL);
	assert_int_equal(json_array_size(out), 1);
	assert_true(has_device(json_array_get(out, 0), 3));
	json_t *tables = nbw_analysis_device_tables(devs, ms);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(tables, 0), "bytes")),
			 1 << 28);
	assert_int_equal(json_array_size(json_object_get(json_array_get(tables, 0), "rows")), 4);
	json_decref(tables);
	json_decref(out);
	json_decref(ms);
	json_decref(devs);
}

/* The one size rule (nbw_an_series_size) that the matrices, the device tables and the
 * outlier rule share: the largest size measured on every device set, a set counted once
 * however often it was measured at a size. */
static void series_size_rule(void **state)
{
	(void)state;
	struct nbw_an_point p[64];
	size_t n = 0;
	/* nodebw run: 12 ordered pairs at 8 B and 64 MiB; pair 0-1 also at 32768 B, once per
	 * plane-sweep process (8 processes, both directions: 16 measurements). */
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			if (a != b) {
				p[n++] = (struct nbw_an_point){ 8, a, b };
				p[n++] = (struct nbw_an_point){ 64 << 20, a, b };
			}
	for (int k = 0; k < 8; k++) {
		p[n++] = (struct nbw_an_point){ 32768, 0, 1 };
		p[n++] = (struct nbw_an_point){ 32768, 1, 0 };
	}
	assert_int_equal(nbw_an_series_size(p, n, -1), 64 << 20);
	/* --full: device 0 alone goes on to 1 GiB; every device has 256 MiB. */
	n = 0;
	for (int d = 0; d < 4; d++)
		p[n++] = (struct nbw_an_point){ 256 << 20, -1, d };
	p[n++] = (struct nbw_an_point){ 1 << 30, -1, 0 };
	p[n++] = (struct nbw_an_point){ 512 << 20, -1, 0 };
	assert_int_equal(nbw_an_series_size(p, n, -1), 256 << 20);
	/* No size covers every device: the one that covers the most (a tie to the larger). */
	n = 0;
	p[n++] = (struct nbw_an_point){ 8, -1, 0 };
	p[n++] = (struct nbw_an_point){ 8, -1, 1 };
	p[n++] = (struct nbw_an_point){ 8, -1, 2 };
	p[n++] = (struct nbw_an_point){ 4096, -1, 0 };
	p[n++] = (struct nbw_an_point){ 4096, -1, 0 };
	p[n++] = (struct nbw_an_point){ 4096, -1, 0 };
	p[n++] = (struct nbw_an_point){ 4096, -1, 0 };
	p[n++] = (struct nbw_an_point){ 1 << 20, -1, 1 };
	p[n++] = (struct nbw_an_point){ 1 << 20, -1, 2 };
	assert_int_equal(nbw_an_series_size(p, n, -1), 8);
	p[n++] = (struct nbw_an_point){ 1 << 20, -1, 0 };
	assert_int_equal(nbw_an_series_size(p, n, -1), 1 << 20);
	assert_int_equal(nbw_an_series_size(p, 0, 77), 77);
}

/* The plane-size sweep of nodebw run measures pair 0-1 and devices 0 and 1 at a halo size
 * once per process: the matrix, the device table and the outlier groups still read every
 * pair and device at the size all of them have, with every cell filled. */
static void plane_sweep_repeats_keep_the_size(void **state)
{
	(void)state;
	json_t *devs = GPUS(4), *ms = json_array();
	char st[96];
	for (int a = 0; a < 4; a++) {
		snprintf(st, sizeof(st), "[{\"src\": \"host\", \"dst\": %d}]", a);
		json_array_append_new(ms, meas("cuda", "htod", "single", 1 << 26, st, 50.0 + a,
					       63.0, "PCIe Gen5 x16"));
		for (int b = 0; b < 4; b++) {
			if (a == b)
				continue;
			snprintf(st, sizeof(st), "[{\"src\": %d, \"dst\": %d}]", a, b);
			json_array_append_new(ms, meas("cuda", "p2p", "single", 1 << 26, st,
						       100.0 + 10 * a + b, 450.0, "NV18"));
		}
	}
	for (int k = 0; k < 8; k++)
		for (int a = 0; a < 2; a++) {
			snprintf(st, sizeof(st), "[{\"src\": %d, \"dst\": %d}]", a, 1 - a);
			json_array_append_new(ms, meas("cuda", "p2p", "single", 32768, st, 20.0,
						       450.0, "NV18"));
			snprintf(st, sizeof(st), "[{\"src\": \"host\", \"dst\": %d}]", a);
			json_array_append_new(ms, meas("cuda", "htod", "single", 32768, st, 10.0,
						       63.0, "PCIe Gen5 x16"));
		}
	json_t *mx = nbw_analysis_matrices(devs, ms);
	assert_int_equal(json_array_size(mx), 1);
	json_t *m = json_array_get(mx, 0);
	assert_int_equal(json_integer_value(json_object_get(m, "bandwidth_bytes")), 1 << 26);
	json_t *cells = json_object_get(m, "cells");
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++) {
			json_t *c = json_array_get(json_array_get(cells, (size_t)a), (size_t)b);
			if (a == b) {
				assert_true(json_is_null(c));
				continue;
			}
			assert_float_equal(json_number_value(json_object_get(c, "gbps")),
					   100.0 + 10 * a + b, 1e-9);
		}
	json_t *tables = nbw_analysis_device_tables(devs, ms);
	json_t *t = json_array_get(tables, 0);
	assert_int_equal(json_integer_value(json_object_get(t, "bytes")), 1 << 26);
	assert_int_equal(json_array_size(json_object_get(t, "rows")), 4);
	json_t *groups = NULL, *out = nbw_analysis_outliers(devs, ms, &groups), *g;
	size_t i;
	json_array_foreach(groups, i, g)
		assert_int_equal(json_integer_value(json_object_get(g, "bytes")), 1 << 26);
	assert_true(json_array_size(groups) > 0);
	json_decref(out);
	json_decref(groups);
	json_decref(tables);
	json_decref(mx);
	json_decref(ms);
	json_decref(devs);
}

/* A reference the aggregate exceeds is no bound: four host-plugin copies at once moved 28.86
 * GB/s where the host backend's one copy over every core, measured alone, moved 21.77. */
static void exceeded_reference_is_no_bound(void **state)
{
	(void)state;
	json_t *devs = json_array(), *ms = json_array();
	for (int i = 0; i < 4; i++)
		json_array_append_new(devs, json_pack("{s:s, s:i, s:s, s:b}", "api", "omp", "id", i,
						      "kind", "host-plugin", "is_gpu", 0));
	json_array_append_new(ms, meas("omp", "htod", "all", 1 << 26,
				       "[{\"src\": \"host\", \"dst\": 0, \"gbps\": {\"median\": 7.0}},"
				       " {\"src\": \"host\", \"dst\": 1, \"gbps\": {\"median\": 7.2}},"
				       " {\"src\": \"host\", \"dst\": 2, \"gbps\": {\"median\": 7.3}},"
				       " {\"src\": \"host\", \"dst\": 3, \"gbps\": {\"median\": 7.4}}]",
				       28.86, -1, "host"));
	json_t *hp = meas("host", "htod", "single", 1 << 26, "[{\"src\": \"host\", \"dst\": 0}]",
			  21.77, -1, "host");
	json_object_set_new(hp, "mode", json_string("parallel"));
	json_array_append_new(ms, hp);
	json_t *rows = nbw_analysis_concurrent(devs, ms);
	assert_int_equal(json_array_size(rows), 1);
	json_t *h = json_array_get(rows, 0);
	assert_float_equal(json_number_value(json_object_get(h, "fraction_of_host_limit")),
			   28.86 / 21.77, 1e-9);
	assert_true(json_is_null(json_object_get(h, "bound")));
	assert_string_equal(json_string_value(json_object_get(h, "verdict")),
			    "above the host-memory reference measured alone (132.6 %)");
	/* printed: no bound, the percentage said */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	nbw_analysis_print_concurrent(f, rows);
	fclose(f);
	assert_null(strstr(buf, "  host memory "));
	assert_non_null(strstr(buf, "above the host-memory reference measured alone (132.6 %)"));
	free(buf);
	json_decref(rows);
	json_decref(ms);
	json_decref(devs);
}

/* nodebw run planned 9 solver rounds, its time limit stopped them after 6, and 4 extra
 * rounds followed, recorded as 10-13: the report says "extra round 4" where the terminal
 * said "extra round 4 of at most 5", not "round 13"; a document that numbers them on from
 * the rounds run (7-10) reads the same. */
static void extra_rounds_numbered_as_the_terminal(void **state)
{
	(void)state;
	const int recorded[2][4] = { { 10, 11, 12, 13 }, { 7, 8, 9, 10 } };
	for (int v = 0; v < 2; v++) {
		json_t *doc = load("{\"solver\": {\"rounds\": 9, \"rounds_run\": 6},"
				   " \"solver_runs\": [], \"disturbance\": {\"speed_reference\": []}}");
		json_t *runs = json_object_get(doc, "solver_runs");
		json_t *refs = json_object_get(json_object_get(doc, "disturbance"),
					       "speed_reference");
		for (int r = 1; r <= 6; r++)
			json_array_append_new(runs, json_pack("{s:i}", "round", r));
		for (int k = 0; k < 4; k++) {
			char at[32];
			snprintf(at, sizeof(at), "solver round %d", recorded[v][k]);
			json_array_append_new(refs, json_pack("{s:s}", "at", at));
			if (k != 2) /* an extra round may leave no run of its own behind */
				json_array_append_new(runs, json_pack("{s:i}", "round",
								      recorded[v][k]));
		}
		char lbl[32];
		nbw_round_label(doc, 6, lbl, sizeof(lbl));
		assert_string_equal(lbl, "6");
		for (int k = 0; k < 4; k++) {
			nbw_round_label(doc, recorded[v][k], lbl, sizeof(lbl));
			char want[32];
			snprintf(want, sizeof(want), "extra round %d", k + 1);
			assert_string_equal(lbl, want);
		}
		json_decref(doc);
	}
	/* an older document without "rounds_run": the recorded numbers */
	json_t *old = load("{\"solver_runs\": [{\"round\": 3}]}");
	char lbl[32];
	nbw_round_label(old, 3, lbl, sizeof(lbl));
	assert_string_equal(lbl, "3");
	assert_int_equal(nbw_round_of_at("solver round 12"), 12);
	assert_int_equal(nbw_round_of_at("after probes"), 0);
	json_decref(old);
}

/* A measurement of \p mode (meas() with its mode replaced). */
static json_t *moded(const char *mode, const char *dir, const char *conc, json_int_t bytes,
		     const char *streams, double gbps)
{
	json_t *m = meas("omp", dir, conc, bytes, streams, gbps, 0, "host memory");
	json_object_set_new(m, "mode", json_string(mode));
	return m;
}

static json_t *kc_row(json_t *kc, const char *dir, const char *conc, json_int_t bytes)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(kc, "rows"), i, r)
		if (strcmp(json_string_value(json_object_get(r, "direction")), dir) == 0 &&
		    strcmp(json_string_value(json_object_get(r, "concurrency")), conc) == 0 &&
		    json_integer_value(json_object_get(r, "size_bytes")) == bytes)
			return r;
	return NULL;
}

/* Kernel copies beside the same API's sync copies: paired on path, devices and size only;
 * an unverified kernel copy, one without a sync twin and one on other devices pair with
 * nothing; the bands' medians and verdicts. */
static void kernel_vs_copy(void **state)
{
	(void)state;
	json_t *devs = load(HOST_PLUGIN_DEVICES), *ms = json_array();
	const char *h0 = "[{\"src\": -1, \"dst\": 0}]", *h1 = "[{\"src\": -1, \"dst\": 1}]";
	const char *p01 = "[{\"src\": 0, \"dst\": 1}]", *p10 = "[{\"src\": 1, \"dst\": 0}]";
	json_array_append_new(ms, moded("sync", "htod", "single", 8, h0, 0.016));
	json_array_append_new(ms, moded("kernel", "htod", "single", 8, h0, 0.0008));
	json_array_append_new(ms, moded("sync", "htod", "single", 16000000, h0, 20.0));
	json_array_append_new(ms, moded("kernel", "htod", "single", 16000000, h0, 19.0));
	json_array_append_new(ms, moded("kernel", "htod", "single", 4000000, h0, 19.0));
	json_array_append_new(ms, moded("sync", "htod", "single", 64000, h1, 40.0));
	json_array_append_new(ms, moded("kernel", "htod", "single", 64000, h0, 5.0));
	json_array_append_new(ms, moded("sync", "p2p", "single", 16000000, p01, 8.0));
	json_array_append_new(ms, moded("kernel", "p2p", "single", 16000000, p01, 40.0));
	json_array_append_new(ms, moded("sync", "p2p", "single", 16000000, p10, 8.0));
	json_t *bad = moded("kernel", "p2p", "single", 16000000, p10, 40.0);
	json_object_set_new(json_object_get(bad, "verification"), "status", json_string("failed"));
	json_array_append_new(ms, bad);
	json_t *kc = nbw_kernel_compare(devs, ms);
	assert_int_equal(json_array_size(json_object_get(kc, "rows")), 3);
	json_t *r = kc_row(kc, "htod", "single", 8);
	assert_non_null(r);
	assert_float_equal(json_number_value(json_object_get(r, "ratio")), 0.05, 1e-9);
	assert_string_equal(json_string_value(json_object_get(r, "copy_mode")), "sync");
	assert_string_equal(json_string_value(json_object_get(r, "devices")), "h->0");
	r = kc_row(kc, "p2p", "single", 16000000);
	assert_non_null(r);
	assert_float_equal(json_number_value(json_object_get(r, "ratio")), 5.0, 1e-9);
	assert_string_equal(json_string_value(json_object_get(r, "devices")), "0->1");
	assert_null(kc_row(kc, "htod", "single", 4000000));
	assert_null(kc_row(kc, "htod", "single", 64000));
	json_t *sum = json_object_get(kc, "summary");
	assert_int_equal(json_array_size(sum), 2);
	json_t *hs = json_array_get(sum, 0);
	assert_string_equal(json_string_value(json_object_get(hs, "direction")), "htod");
	json_t *small = json_object_get(hs, "small_band"), *large = json_object_get(hs, "large_band");
	assert_float_equal(json_number_value(json_object_get(small, "median_ratio")), 0.05, 1e-9);
	assert_string_equal(json_string_value(json_object_get(small, "verdict")), "kernel slower");
	assert_float_equal(json_number_value(json_object_get(large, "median_ratio")), 0.95, 1e-9);
	assert_string_equal(json_string_value(json_object_get(large, "verdict")), "kernel slower");
	json_t *ps = json_array_get(sum, 1);
	assert_true(json_is_null(json_object_get(json_object_get(ps, "small_band"), "median_ratio")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(ps, "large_band"),
							       "verdict")), "kernel faster");
	assert_string_equal(nbw_kernel_compare_verdict(1.02), "no clear difference");
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(nbw_kernel_compare_print(f, kc, true), 2);
	fclose(f);
	assert_non_null(strstr(out, "Kernel copy vs API copy"));
	assert_non_null(strstr(out, "5.00x"));
	assert_non_null(strstr(out, "0.95x kernel slower"));
	free(out);
	json_decref(kc);
	/* Nothing to pair: empty arrays, nothing printed. */
	json_t *none = json_array();
	json_array_append_new(none, moded("sync", "htod", "single", 8, h0, 0.016));
	kc = nbw_kernel_compare(devs, none);
	assert_int_equal(json_array_size(json_object_get(kc, "rows")), 0);
	assert_int_equal(nbw_kernel_compare_print(stdout, kc, true), 0);
	json_decref(kc);
	json_decref(none);
	json_decref(ms);
	json_decref(devs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(handmade_flags_exactly_the_planted_faults),
		cmocka_unit_test(handmade_matrices),
		cmocka_unit_test(group_of_two_gets_only_the_theoretical_rule),
		cmocka_unit_test(only_the_largest_size_is_judged),
		cmocka_unit_test(host_plugin_never_flagged_by_theory),
		cmocka_unit_test(same_device_is_not_a_peer_link),
		cmocka_unit_test(recorded_host_plugin_document),
		cmocka_unit_test(empty_document),
		cmocka_unit_test(binding_is_its_own_series),
		cmocka_unit_test(all_at_once_bounds),
		cmocka_unit_test(exceeded_reference_is_no_bound),
		cmocka_unit_test(extra_rounds_numbered_as_the_terminal),
		cmocka_unit_test(read_at_the_size_every_set_has),
		cmocka_unit_test(series_size_rule),
		cmocka_unit_test(plane_sweep_repeats_keep_the_size),
		cmocka_unit_test(kernel_vs_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
