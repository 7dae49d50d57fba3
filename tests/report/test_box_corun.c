/* SPDX-License-Identifier: BSD-3-Clause */
/* The co-runs of application local boxes in the calibration (include/nodebw/model.h struct
 * nbw_boxcorun, nbw_calib_box_corun): taken from solver runs (the fastest round per box,
 * radius, fields, G and form; the paper's slabs stay the co-run probe's), looked up (exact
 * box, per-device form; a paper's slab through the co-run probe), written and read back
 * ("local_box_coruns"; a calibration without it still loads; a bad record is named), and
 * an unstable box co-run named with its radius and fields. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/model.h"

#define REL(a, b) (fabs((a) - (b)) / fabs(b))

/* One verified co-run record as nodebw heat --corun writes it: \p at_once devices for G,
 * \p steps steps, fastest repetition \p fastest_s (the other repetition twice as long). */
static json_t *corun_run(const char *form, int g, int at_once, int nx, int ny, int nz,
			 int radius, int fields, int steps, double fastest_s)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:{s:i, s:i, s:i}, s:i, s:[f, f], s:f, s:s, "
			 "s:{s:s}, s:{s:i, s:i}}",
			 "version", "corun", "corun", form, "corun_slab_of_G", g, "G", at_once,
			 "shape", "nx", nx, "ny", ny, "nz", nz, "steps", steps, "samples_s",
			 2.0 * fastest_s, fastest_s, "seconds", 1.5 * fastest_s, "launch", "nowait",
			 "verification", "status", "passed", "config", "radius", radius, "fields",
			 fields);
}

static json_t *doc_of(json_t *runs)
{
	return json_pack("{s:s, s:o}", "state", "complete", "solver_runs", runs);
}

static void calib_init(struct nbw_calib *c)
{
	memset(c, 0, sizeof(*c));
	c->hidden_helpers = -1;
	c->kbar_given = 5e-6;
	snprintf(c->device_kind, sizeof(c->device_kind), "host-plugin");
}

/* Two rounds (two documents) of an app's box, its radius-2 two-field box, and a paper's
 * slab: 10 steps each. */
static void measured(struct nbw_calib *c)
{
	calib_init(c);
	json_t *docs[2];
	docs[0] = doc_of(json_pack(
		"[o, o, o, o, o]",
		corun_run("per-device", 4, 2, 20, 20, 30, 1, 1, 10, 0.02),
		corun_run("one-thread", 4, 4, 20, 20, 30, 1, 1, 10, 0.03),
		corun_run("per-device", 2, 2, 12, 12, 8, 2, 2, 10, 0.05),
		corun_run("per-device", 2, 2, 14, 14, 8, 1, 1, 10, 0.004),
		/* not verified: left out */
		json_pack("{s:s, s:s, s:i, s:i, s:{s:i, s:i, s:i}, s:i, s:[f], s:f, s:{s:s}}",
			  "version", "corun", "corun", "per-device", "corun_slab_of_G", 8, "G", 2,
			  "shape", "nx", 20, "ny", 20, "nz", 30, "steps", 10, "samples_s", 1e-3,
			  "seconds", 1e-3, "verification", "status", "failed")));
	/* The second round: the per-device box co-run faster on 4 devices at once (another
	 * node's CPUs), the one-thread one slower. */
	docs[1] = doc_of(json_pack("[o, o]",
				   corun_run("per-device", 4, 4, 20, 20, 30, 1, 1, 10, 0.01),
				   corun_run("one-thread", 4, 4, 20, 20, 30, 1, 1, 10, 0.04)));
	assert_int_equal(nbw_calib_add_solver_docs(c, docs, 2), 0);
	json_decref(docs[0]);
	json_decref(docs[1]);
}

static void test_from_runs(void **state)
{
	(void)state;
	struct nbw_calib c;
	measured(&c);
	/* 20x20x30 per-device and one-thread for G = 4, the radius-2 12x12x8 for G = 2. */
	assert_int_equal(c.nboxcoruns, 3);
	int seen = 0;
	for (size_t i = 0; i < c.nboxcoruns; i++) {
		const struct nbw_boxcorun *b = &c.boxcoruns[i];
		if (b->radius == 1 && b->per_device) {
			assert_int_equal(b->g, 4);
			assert_int_equal(b->at_once, 4); /* the fastest round's */
			assert_true(REL(b->step_s, 0.001) < 1e-12);
			seen |= 1;
		} else if (b->radius == 1) {
			assert_int_equal(b->at_once, 4);
			assert_true(REL(b->step_s, 0.003) < 1e-12);
			seen |= 2;
		} else {
			assert_int_equal(b->radius, 2);
			assert_int_equal(b->fields, 2);
			assert_int_equal(b->g, 2);
			assert_int_equal(b->box[2], 8);
			assert_true(REL(b->step_s, 0.005) < 1e-12);
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
	/* The paper's slab is the co-run probe's, and only it. */
	assert_int_equal(c.ncorun, 1);
	assert_int_equal(c.corun[0].n, 14);
	assert_int_equal(c.corun[0].g, 2);
	assert_true(REL(c.corun[0].step_s, 0.0004) < 1e-12);
	nbw_calib_free(&c);
}

static void test_lookup(void **state)
{
	(void)state;
	struct nbw_calib c;
	measured(&c);
	double s = 0.0;
	int at = 0;
	char how[256] = "";
	const long box[3] = {20, 20, 30};
	assert_int_equal(nbw_calib_box_corun(&c, 1, 1, box, 4, &s, &at, how, sizeof(how)), 0);
	assert_true(REL(s, 0.001) < 1e-12);
	assert_int_equal(at, 4);
	assert_non_null(strstr(how, "co-run of the box 20x20x30 (radius 1, 1 field) for G = 4"));
	/* Another G, radius, field count or box: not co-run. */
	assert_int_equal(nbw_calib_box_corun(&c, 1, 1, box, 2, &s, &at, how, sizeof(how)), -1);
	assert_int_equal(nbw_calib_box_corun(&c, 2, 1, box, 4, &s, &at, how, sizeof(how)), -1);
	assert_int_equal(nbw_calib_box_corun(&c, 1, 2, box, 4, &s, &at, how, sizeof(how)), -1);
	const long other[3] = {20, 20, 31};
	assert_int_equal(nbw_calib_box_corun(&c, 1, 1, other, 4, &s, &at, NULL, 0), -1);
	const long r2[3] = {12, 12, 8};
	assert_int_equal(nbw_calib_box_corun(&c, 2, 2, r2, 2, &s, &at, NULL, 0), 0);
	assert_true(REL(s, 0.005) < 1e-12);
	/* The one-thread form alone is no per-device co-run. */
	for (size_t i = 0; i < c.nboxcoruns; i++)
		if (c.boxcoruns[i].radius == 1)
			c.boxcoruns[i].per_device = false;
	assert_int_equal(nbw_calib_box_corun(&c, 1, 1, box, 4, &s, &at, how, sizeof(how)), -1);
	/* The paper's slab 14x14x8 of G = 2 from the co-run probe. */
	const long slab[3] = {14, 14, 8};
	assert_int_equal(nbw_calib_box_corun(&c, 1, 1, slab, 2, &s, &at, how, sizeof(how)), 0);
	assert_true(REL(s, 0.0004) < 1e-12);
	assert_int_equal(at, 2);
	assert_non_null(strstr(how, "slab 14x14x8 of N = 14"));
	assert_int_equal(nbw_calib_box_corun(&c, 2, 1, slab, 2, &s, &at, how, sizeof(how)), -1);
	nbw_calib_free(&c);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct nbw_calib c;
	measured(&c);
	json_t *j = nbw_calib_to_json(&c);
	assert_int_equal(json_array_size(json_object_get(j, "local_box_coruns")), 3);
	char *text = json_dumps(j, JSON_REAL_PRECISION(17));
	json_decref(j);
	assert_non_null(text);
	struct nbw_calib back;
	char err[400];
	assert_int_equal(nbw_calib_load_buffer("mem.json", text, strlen(text), &back, err,
					       sizeof(err)),
			 0);
	free(text);
	assert_int_equal(back.nboxcoruns, c.nboxcoruns);
	for (size_t i = 0; i < c.nboxcoruns; i++) {
		const struct nbw_boxcorun *a = &c.boxcoruns[i], *b = &back.boxcoruns[i];
		assert_int_equal(a->radius, b->radius);
		assert_int_equal(a->fields, b->fields);
		assert_memory_equal(a->box, b->box, sizeof(a->box));
		assert_int_equal(a->g, b->g);
		assert_int_equal(a->at_once, b->at_once);
		assert_int_equal(a->per_device, b->per_device);
		assert_true(a->step_s == b->step_s);
	}
	nbw_calib_free(&back);
	nbw_calib_free(&c);
	/* A calibration from before the box co-runs loads, with none. */
	const char *old = "{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, "
			  "\"k\": {\"kbar\": 1e-9}}";
	assert_int_equal(nbw_calib_load_buffer("old.json", old, strlen(old), &back, err,
					       sizeof(err)),
			 0);
	assert_int_equal(back.nboxcoruns, 0);
	double s;
	int at;
	const long box[3] = {20, 20, 30};
	assert_int_equal(nbw_calib_box_corun(&back, 1, 1, box, 4, &s, &at, NULL, 0), -1);
	nbw_calib_free(&back);
	/* A bad record is named. */
	const char *bad[][2] = {
		{"{\"form\": \"two\", \"radius\": 1, \"fields\": 1, \"box\": [8, 8, 8], \"G\": 2, "
		 "\"at_once\": 2, \"step_s\": 1e-3}",
		 "\"form\" must be"},
		{"{\"form\": \"per-device\", \"radius\": 1, \"fields\": 1, \"box\": [8, 8, 8], "
		 "\"G\": 2, \"at_once\": 3, \"step_s\": 1e-3}",
		 "\"at_once\" must be"},
		{"{\"form\": \"per-device\", \"radius\": 2, \"fields\": 1, \"box\": [8, 4, 8], "
		 "\"G\": 2, \"at_once\": 2, \"step_s\": 1e-3}",
		 "\"box\" sides"},
		{"{\"form\": \"per-device\", \"radius\": 1, \"fields\": 1, \"box\": [8, 8, 8], "
		 "\"G\": 2, \"at_once\": 2, \"step_s\": -1}",
		 "\"step_s\" must be"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char doc[600];
		snprintf(doc, sizeof(doc),
			 "{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, \"k\": "
			 "{\"kbar\": 1e-9}, \"local_box_coruns\": [%s]}",
			 bad[i][0]);
		assert_int_equal(nbw_calib_load_buffer("bad.json", doc, strlen(doc), &back, err,
						       sizeof(err)),
				 -1);
		assert_non_null(strstr(err, "local_box_coruns[0]"));
		assert_non_null(strstr(err, bad[i][1]));
	}
}

/* A box co-run whose rounds disagree is unstable, with its box, G, radius and fields (for
 * nodebw run to co-run the box again as a box of that radius and field count). */
static void test_unstable(void **state)
{
	(void)state;
	json_t *runs = json_pack("[o, o]",
				 corun_run("per-device", 4, 2, 20, 20, 30, 2, 3, 10, 0.01),
				 corun_run("per-device", 4, 2, 20, 20, 30, 2, 3, 10, 0.05));
	struct nbw_unstable *u = NULL;
	assert_int_equal(nbw_solver_unstable(runs, &u), 1);
	assert_non_null(u);
	assert_string_equal(u[0].version, "corun");
	assert_int_equal(u[0].slab_g, 4);
	assert_int_equal(u[0].g, 2);
	assert_int_equal(u[0].nz, 30);
	assert_int_equal(u[0].radius, 2);
	assert_int_equal(u[0].fields, 3);
	assert_true(REL(u[0].spread, 5.0) < 1e-12);
	free(u);
	json_decref(runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_runs),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_unstable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
