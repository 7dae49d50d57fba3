/* SPDX-License-Identifier: BSD-3-Clause */
/* Verdicts of copies made at the same time (analysis/verdicts_conc.c) and "bidirectional"
 * defined once (analysis/bidir.c), on small synthetic documents: each pair during
 * all-to-all against its own minimum, the all-to-all and host-to-all aggregates, a
 * bidirectional pair judged by its sum or by each direction, and the thresholds file's new
 * keys refused where they cannot apply. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/bidir.h"
#include "nodebw/verdict.h"

static json_t *devices(int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:s, s:s, s:b}", "api", "cuda", "id",
						   i, "name", "Test GPU X1", "kind", "cuda",
						   "is_gpu", 1));
	return a;
}

/* A verified measurement at 256 MiB with the given streams and aggregate GB/s. */
static json_t *meas(const char *dir, const char *conc, json_t *streams, double gbps, double theo)
{
	json_int_t bytes = 1 << 28;
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:{s:f}, s:{s:f}, s:{s:s}, s:n,"
			 " s:{s:o, s:s, s:s}}",
			 "api", "cuda", "direction", dir, "mode", "async", "host_mem",
			 strcmp(dir, "p2p") == 0 ? "none" : "pinned", "concurrency", conc,
			 "peer_access", "n/a", "bytes", bytes, "streams", streams, "gbps", "median",
			 gbps, "seconds", "median", (double)bytes / (gbps * 1e9), "verification",
			 "status", "passed", "error", "theoretical", "gbps",
			 theo > 0 ? json_real(theo) : json_null(), "link", "NV18", "basis", "");
}

static json_t *stream(int src, int dst, double gbps)
{
	return json_pack("{s:o, s:o, s:{s:f}}", "src", src < 0 ? json_string("host") :
			 json_integer(src), "dst", dst < 0 ? json_string("host") : json_integer(dst),
			 "gbps", "median", gbps);
}

/* 4 devices all-to-all, pair 2->3 slow; host-to-all; one bidirectional pair 0<->1 whose
 * directions are uneven. */
static json_t *document(json_t **devs)
{
	json_t *ms = json_array(), *a2a = json_array(), *h = json_array(), *b = json_array();
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			if (i != j)
				json_array_append_new(a2a, stream(i, j, i == 2 && j == 3 ? 20.0 : 50.0));
	json_array_append_new(ms, meas("p2p", "a2a", a2a, 560.0, 12 * 450.0));
	for (int i = 0; i < 4; i++)
		json_array_append_new(h, stream(-1, i, 50.0));
	json_array_append_new(ms, meas("htod", "all", h, 150.0, 4 * 63.0));
	json_array_append_new(b, stream(0, 1, 400.0));
	json_array_append_new(b, stream(1, 0, 300.0));
	json_array_append_new(ms, meas("p2p", "bidir", b, 680.0, 900.0));
	*devs = devices(4);
	return ms;
}

static struct nbw_criteria *criteria(const char *rules)
{
	char path[] = "/tmp/nodebw-test-vc-XXXXXX", err[600];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "{\"schema\": \"nodebw-thresholds\", \"version\": 1, \"rules\": [%s]}", rules);
	fclose(f);
	struct nbw_criteria *c = nbw_criteria_new();
	int rc = nbw_criteria_add_thresholds(c, path, err, sizeof(err));
	unlink(path);
	if (rc)
		fail_msg("%s", err);
	return c;
}

static int refused(const char *rules, const char *want)
{
	char path[] = "/tmp/nodebw-test-vc-XXXXXX", err[600];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "{\"schema\": \"nodebw-thresholds\", \"version\": 1, \"rules\": [%s]}", rules);
	fclose(f);
	struct nbw_criteria *c = nbw_criteria_new();
	int rc = nbw_criteria_add_thresholds(c, path, err, sizeof(err));
	unlink(path);
	nbw_criteria_free(c);
	if (rc == 0)
		fail_msg("accepted: %s", rules);
	if (!strstr(err, want))
		fail_msg("'%s' not in '%s'", want, err);
	return rc;
}

static json_t *path_of(json_t *v, const char *conc, const char *where)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(v, "paths"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "concurrency")), conc) &&
		    !strcmp(json_string_value(json_object_get(p, "where")), where))
			return p;
	fail_msg("no path %s %s", conc, where);
	return NULL;
}

static const char *verdict(json_t *p)
{
	return json_string_value(json_object_get(p, "verdict"));
}

static void each_pair_against_its_own_minimum(void **state)
{
	(void)state;
	json_t *devs, *ms = document(&devs);
	struct nbw_criteria *c = criteria(
		"{\"gpu\": \"Test GPU\", \"direction\": \"p2p\", \"concurrency\": \"a2a\","
		" \"min_gbps\": 40},"
		"{\"gpu\": \"Test GPU\", \"direction\": \"p2p\", \"concurrency\": \"a2a\","
		" \"aggregate\": true, \"min_gbps\": 500}");
	json_t *v = nbw_verdicts(devs, ms, c);
	size_t a2a = 0, i;
	json_t *p;
	json_array_foreach(json_object_get(v, "paths"), i, p) {
		if (strcmp(json_string_value(json_object_get(p, "concurrency")), "a2a"))
			continue;
		a2a++;
		bool agg = json_is_true(json_object_get(p, "aggregate"));
		const char *w = json_string_value(json_object_get(p, "where"));
		/* every pair and the aggregate judged by its own rule only */
		assert_int_equal(json_array_size(json_object_get(p, "judgements")), 1);
		if (!agg && strcmp(w, "2->3") == 0)
			assert_string_equal(verdict(p), "below threshold");
		else
			assert_string_equal(verdict(p), "pass");
	}
	assert_int_equal(a2a, 12 + 1);
	json_t *slow = path_of(v, "a2a", "2->3");
	assert_non_null(strstr(json_string_value(json_object_get(slow, "reason")),
			       "20.00 GB/s at 256 MiB (async none) < the site threshold 40.00"));
	/* the aggregate: no theoretical judgement (shared links bound nothing) */
	json_t *agg = path_of(v, "a2a", "aggregate");
	assert_non_null(strstr(json_string_value(json_object_get(agg, "reason")),
			       "560.00 GB/s"));
	/* failed: pair 2->3, and host-to-all below 70 % of its links' sum (its own test) */
	assert_int_equal(json_integer_value(json_object_get(v, "failed")), 2);
	json_decref(v);
	nbw_criteria_free(c);
	/* a higher aggregate rule fails the aggregate, not the pairs */
	c = criteria("{\"gpu\": \"*\", \"direction\": \"p2p\", \"concurrency\": \"a2a\","
		     " \"aggregate\": true, \"min_gbps\": 600}");
	v = nbw_verdicts(devs, ms, c);
	assert_string_equal(verdict(path_of(v, "a2a", "aggregate")), "below threshold");
	assert_string_equal(verdict(path_of(v, "a2a", "0->1")), "not judged");
	json_decref(v);
	nbw_criteria_free(c);
	json_decref(ms);
	json_decref(devs);
}

static void host_to_all_against_the_links_sum(void **state)
{
	(void)state;
	json_t *devs, *ms = document(&devs);
	/* no criteria: the theoretical figure alone; 150 < 70 % of 4 x 63 = 176.4 */
	json_t *v = nbw_verdicts(devs, ms, NULL);
	json_t *h = path_of(v, "all", "host->all");
	assert_string_equal(verdict(h), "below reference");
	assert_non_null(strstr(json_string_value(json_object_get(h, "reason")),
			       "of the link's theoretical 252.0 GB/s"));
	json_decref(v);
	struct nbw_criteria *c = criteria("{\"gpu\": \"Test GPU\", \"direction\": \"htod\", "
					  "\"concurrency\": \"all\", \"min_gbps\": 100}");
	nbw_criteria_set_limits(c, 0.1, 0.5); /* 150 >= 50 % of 252 */
	v = nbw_verdicts(devs, ms, c);
	h = path_of(v, "all", "host->all");
	assert_string_equal(verdict(h), "pass");
	assert_int_equal(json_array_size(json_object_get(h, "judgements")), 2);
	json_decref(v);
	nbw_criteria_free(c);
	json_decref(ms);
	json_decref(devs);
}

static void bidirectional_sum_and_each_direction(void **state)
{
	(void)state;
	json_t *devs, *ms = document(&devs);
	struct nbw_criteria *sum = criteria("{\"gpu\": \"Test GPU\", \"direction\": \"p2p\", "
					    "\"concurrency\": \"bidir\", \"min_gbps\": 650}");
	struct nbw_criteria *dir = criteria("{\"gpu\": \"Test GPU\", \"direction\": \"p2p\", "
					    "\"concurrency\": \"bidir\", \"bidir_figure\": "
					    "\"per_direction\", \"min_gbps\": 325}");
	json_t *v = nbw_verdicts(devs, ms, sum);
	json_t *p = path_of(v, "bidir", "0<->1");
	assert_string_equal(verdict(p), "pass"); /* the sum, 680 */
	json_t *b = json_object_get(p, "bidir");
	assert_float_equal(json_number_value(json_object_get(b, "sum_gbps")), 680.0, 1e-9);
	json_t *d = json_object_get(b, "directions");
	assert_float_equal(json_number_value(json_object_get(json_array_get(d, 0), "gbps")), 400.0,
			   1e-9);
	assert_float_equal(json_number_value(json_object_get(json_array_get(d, 1), "gbps")), 300.0,
			   1e-9);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(d, 1), "src")), 1);
	json_decref(v);
	v = nbw_verdicts(devs, ms, dir);
	p = path_of(v, "bidir", "0<->1");
	assert_string_equal(verdict(p), "below threshold"); /* 1->0 at 300 < 325 */
	assert_non_null(strstr(json_string_value(json_object_get(p, "reason")),
			       "300.00 GB/s (the slower direction)"));
	json_decref(v);
	nbw_criteria_free(sum);
	nbw_criteria_free(dir);
	json_decref(ms);
	json_decref(devs);
}

static void bidir_figures_defined_once(void **state)
{
	(void)state;
	json_t *devs, *ms = document(&devs);
	struct nbw_rv_meas x;
	struct nbw_bidir b;
	assert_true(nbw_rv_meas_read(devs, json_array_get(ms, 2), &x));
	assert_true(nbw_bidir_figures(&x, &b));
	assert_float_equal(b.sum_gbps, 680.0, 1e-9);
	assert_float_equal(nbw_bidir_slower(&b), 300.0, 1e-9);
	assert_true(nbw_rv_meas_read(devs, json_array_get(ms, 0), &x));
	assert_false(nbw_bidir_figures(&x, &b)); /* all-to-all is not bidirectional */
	assert_true(isnan(b.sum_gbps));
	json_decref(ms);
	json_decref(devs);
}

static void new_keys_refused_where_they_cannot_apply(void **state)
{
	(void)state;
	refused("{\"gpu\": \"*\", \"direction\": \"htod\", \"concurrency\": \"a2a\", "
		"\"min_gbps\": 1}", "a2a (every ordered pair at once) is a P2P concurrency");
	refused("{\"gpu\": \"*\", \"direction\": \"p2p\", \"concurrency\": \"all\", "
		"\"min_gbps\": 1}", "P2P has a2a");
	refused("{\"gpu\": \"*\", \"direction\": \"p2p\", \"aggregate\": true, \"min_gbps\": 1}",
		"only copies at the same time (a2a, all) have an aggregate");
	refused("{\"gpu\": \"*\", \"direction\": \"dtoh\", \"concurrency\": \"all\", "
		"\"aggregate\": false, \"min_gbps\": 1}", "judged as its aggregate");
	refused("{\"gpu\": \"*\", \"direction\": \"p2p\", \"bidir_figure\": \"sum\", "
		"\"min_gbps\": 1}", "only a bidirectional (bidir) rule");
	refused("{\"gpu\": \"*\", \"direction\": \"p2p\", \"concurrency\": \"bidir\", "
		"\"bidir_figure\": \"both\", \"min_gbps\": 1}", "'both' is not one of sum, "
								  "per_direction");
	refused("{\"gpu\": \"*\", \"direction\": \"p2p\", \"concurrency\": \"a2a\", "
		"\"aggregate\": \"yes\", \"min_gbps\": 1}", "must be true or false");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_pair_against_its_own_minimum),
		cmocka_unit_test(host_to_all_against_the_links_sum),
		cmocka_unit_test(bidirectional_sum_and_each_direction),
		cmocka_unit_test(bidir_figures_defined_once),
		cmocka_unit_test(new_keys_refused_where_they_cannot_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
