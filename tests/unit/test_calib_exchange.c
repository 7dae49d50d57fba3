/* SPDX-License-Identifier: BSD-3-Clause */
/* The calibration's exchange steps (models/calib_faces.c, calib_read.c): exchange-decomp
 * records of a results document join "faces" as kind "exchange" with their decomposition and
 * path, are written and read back (older calibrations without "kind" still read), and
 * nbw_calib_exchange_s finds the exact shape, decomposition, method and path, the asked mode
 * first; face lookups never take an exchange. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../models/calib_priv.h"
#include "nodebw/model.h"

static struct nbw_facerun xrun(const char *method, const char *path, const char *mode,
			       int px, int py, int pz, double seconds)
{
	struct nbw_facerun f = { .box = { 32, 32, 62 }, .depth = 1, .elem = 8,
				 .decomp = { px, py, pz }, .seconds = seconds };
	snprintf(f.kind, sizeof(f.kind), "exchange");
	snprintf(f.method, sizeof(f.method), "%s", method);
	snprintf(f.path, sizeof(f.path), "%s", path);
	snprintf(f.mode, sizeof(f.mode), "%s", mode);
	return f;
}

static struct nbw_facerun frun(const char *face, const char *path, double seconds)
{
	struct nbw_facerun f = { .box = { 32, 32, 62 }, .depth = 1, .elem = 8,
				 .seconds = seconds };
	snprintf(f.face, sizeof(f.face), "%s", face);
	snprintf(f.method, sizeof(f.method), "rect");
	snprintf(f.path, sizeof(f.path), "%s", path);
	snprintf(f.mode, sizeof(f.mode), "async");
	return f;
}

static struct nbw_calib built(void)
{
	struct nbw_calib c = { .kbar_given = 1e-9, .hidden_helpers = -1 };
	struct nbw_facerun v[] = {
		xrun("rect", "device", "async", 2, 2, 1, 3e-3),
		xrun("rect", "device", "async", 2, 2, 1, 2e-3), /* the faster of the same: kept */
		xrun("rect", "host-staged", "async", 2, 2, 1, 7e-3),
		xrun("pack", "device", "sync", 2, 2, 1, 5e-3),
		xrun("rect", "device", "async", 1, 1, 2, 1e-3),
		frun("x", "p2p", 4e-4), /* kind "" is a face */
		xrun("pack", "device", "async", 2, 1, 2, 3e-4), /* two fields: below */
	};
	v[6].fields = 2;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(nbw_calib_add_face(&c, &v[i]), 0);
	return c;
}

static void test_lookup(void **state)
{
	(void)state;
	struct nbw_calib c = built();
	assert_int_equal(c.nfaces, 6);
	const long box[3] = { 32, 32, 62 };
	const int d221[3] = { 2, 2, 1 }, d112[3] = { 1, 1, 2 }, d212[3] = { 2, 1, 2 };
	double t = 0.0;
	char how[160];
	assert_int_equal(nbw_calib_exchange_s(&c, box, 1, 8, d221, "rect", "device", "async", &t,
					      how, sizeof(how)), 0);
	assert_true(t == 2e-3);
	assert_string_equal(how, "exchange 2x2x1 rect device/async");
	assert_int_equal(nbw_calib_exchange_s(&c, box, 1, 8, d221, "rect", "host-staged", "async",
					      &t, how, sizeof(how)), 0);
	assert_true(t == 7e-3);
	/* Only sync measured for pack: taken, and said so. */
	assert_int_equal(nbw_calib_exchange_s(&c, box, 1, 8, d221, "pack", "device", "async", &t,
					      how, sizeof(how)), 0);
	assert_true(t == 5e-3);
	assert_string_equal(how, "exchange 2x2x1 pack device/sync in place of async");
	assert_int_equal(nbw_calib_exchange_s(&c, box, 1, 8, d112, "rect", "device", "sync", &t,
					      how, sizeof(how)), 0);
	assert_true(t == 1e-3);
	/* No other decomposition, shape, path or method stands in: -1. */
	t = -1.0;
	assert_int_equal(nbw_calib_exchange_s(&c, box, 1, 8, d212, "rect", "device", "async", &t,
					      how, sizeof(how)), -1);
	const long other[3] = { 32, 32, 64 };
	assert_int_equal(nbw_calib_exchange_s(&c, other, 1, 8, d221, "rect", "device", "async",
					      &t, how, sizeof(how)), -1);
	assert_int_equal(nbw_calib_exchange_s(&c, box, 2, 8, d221, "rect", "device", "async", &t,
					      how, sizeof(how)), -1);
	assert_int_equal(nbw_calib_exchange_s(&c, box, 1, 8, d112, "pack", "host-staged", "async",
					      &t, how, sizeof(how)), -1);
	assert_true(t == -1.0);
	/* A face lookup takes the face, never an exchange. */
	bool exact = false;
	assert_int_equal(nbw_calib_face_s(&c, box, 1, 8, "x", "rect", "p2p", "async", &t, &exact,
					  how, sizeof(how)), 0);
	assert_true(exact && t == 4e-4);
	/* Fields: the exact field count only; one field's lookup never takes the two-field
	 * step, nor the two-field lookup a one-field step. */
	assert_int_equal(nbw_calib_exchange_fields_s(&c, box, 1, 8, d212, 2, "pack", "device",
						     "async", &t, how, sizeof(how)), 0);
	assert_true(t == 3e-4);
	assert_string_equal(how, "exchange 2x1x2 2 fields pack device/async");
	assert_int_equal(nbw_calib_exchange_s(&c, box, 1, 8, d212, "pack", "device", "async", &t,
					      how, sizeof(how)), -1);
	assert_int_equal(nbw_calib_exchange_fields_s(&c, box, 1, 8, d221, 2, "rect", "device",
						     "async", &t, how, sizeof(how)), -1);
	assert_int_equal(nbw_calib_exchange_fields_s(&c, box, 1, 8, d221, 1, "rect", "device",
						     "async", &t, how, sizeof(how)), 0);
	assert_true(t == 2e-3);
	free(c.faces);
}

/* Written and read back: the same records; an old calibration's face without "kind" reads;
 * bad exchange entries are named. */
static void test_round_trip(void **state)
{
	(void)state;
	struct nbw_calib c = built();
	json_t *j = nbw_calib_to_json(&c);
	char *text = json_dumps(j, JSON_REAL_PRECISION(17));
	json_decref(j);
	assert_non_null(text);
	struct nbw_calib back;
	char err[400] = "";
	if (nbw_calib_load_buffer("mem.json", text, strlen(text), &back, err, sizeof(err)))
		fail_msg("%s", err);
	free(text);
	assert_int_equal(back.nfaces, c.nfaces);
	for (size_t i = 0; i < c.nfaces; i++) {
		const struct nbw_facerun *a = &c.faces[i], *b = &back.faces[i];
		assert_string_equal(b->kind, a->kind);
		assert_memory_equal(b->box, a->box, sizeof(a->box));
		assert_memory_equal(b->decomp, a->decomp, sizeof(a->decomp));
		assert_string_equal(b->face, a->face);
		assert_string_equal(b->method, a->method);
		assert_string_equal(b->path, a->path);
		assert_string_equal(b->mode, a->mode);
		assert_int_equal(b->fields, a->fields);
		assert_true(b->seconds == a->seconds);
	}
	nbw_calib_free(&back);
	free(c.faces);
	const char *head = "{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, "
			   "\"k\": {\"kbar\": 1e-9}, \"faces\": [{\"box\": [8, 8, 8], "
			   "\"depth\": 1, \"element_bytes\": 8, \"method\": \"rect\", ";
	static const struct {
		const char *rest, *err;
	} cases[] = {
		{ "\"face\": \"z\", \"path\": \"p2p\", \"mode\": \"sync\", \"seconds\": 1e-5}]}",
		  NULL },
		{ "\"kind\": \"exchange\", \"decomp\": [2, 2, 1], \"path\": \"host-staged\", "
		  "\"mode\": \"sync\", \"seconds\": 1e-5}]}",
		  NULL },
		{ "\"kind\": \"exchange\", \"decomp\": [1, 1, 1], \"path\": \"device\", "
		  "\"mode\": \"sync\", \"seconds\": 1e-5}]}",
		  "\"decomp\" must be" },
		{ "\"kind\": \"exchange\", \"path\": \"device\", \"mode\": \"sync\", "
		  "\"seconds\": 1e-5}]}",
		  "\"decomp\" must be" },
		{ "\"kind\": \"exchange\", \"decomp\": [2, 2, 1], \"path\": \"p2p\", "
		  "\"mode\": \"sync\", \"seconds\": 1e-5}]}",
		  "\"path\" of an exchange must be" },
		{ "\"kind\": \"halo\", \"face\": \"z\", \"path\": \"p2p\", \"mode\": \"sync\", "
		  "\"seconds\": 1e-5}]}",
		  "\"kind\" must be" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char doc[1024];
		snprintf(doc, sizeof(doc), "%s%s", head, cases[i].rest);
		err[0] = '\0';
		int rc = nbw_calib_load_buffer("t.json", doc, strlen(doc), &back, err, sizeof(err));
		if (!cases[i].err) {
			if (rc)
				fail_msg("case %zu: %s", i, err);
			assert_int_equal(back.nfaces, 1);
			assert_string_equal(back.faces[0].kind, i == 0 ? "face" : "exchange");
			nbw_calib_free(&back);
			continue;
		}
		assert_int_equal(rc, -1);
		assert_non_null(strstr(err, "faces[0]"));
		if (!strstr(err, cases[i].err))
			fail_msg("case %zu: %s", i, err);
	}
}

/* A recorded probe (--faces 32x32x62:1:8 --faces-decomp 2x2x1, async, pinned host memory,
 * four host-plugin devices): its exchange-decomp records join as exchanges, its face as a
 * face; each exchange's step time is its record's median. */
static void test_from_results(void **state)
{
	(void)state;
	json_error_t je;
	json_t *doc = json_load_file(NODEBW_FIXTURES "/results-xdecomp-omp-host-2cpu-vm.json", 0,
				     &je);
	if (!doc)
		fail_msg("fixture: %s", je.text);
	struct nbw_calib c = { .kbar_given = 1e-9, .hidden_helpers = -1 };
	assert_int_equal(nbw_calib_add_face_doc(&c, doc), 0);
	unsigned xchg = 0, faces = 0;
	for (size_t i = 0; i < c.nfaces; i++) {
		const struct nbw_facerun *f = &c.faces[i];
		if (strcmp(f->kind, "exchange") == 0) {
			xchg++;
			assert_int_equal(f->decomp[0], 2);
			assert_int_equal(f->decomp[1], 2);
			assert_int_equal(f->decomp[2], 1);
			assert_string_equal(f->face, "");
			assert_true(!strcmp(f->path, "device") || !strcmp(f->path, "host-staged"));
		} else {
			faces++;
			assert_string_equal(f->kind, "face");
			assert_string_equal(f->path, "p2p");
		}
	}
	assert_int_equal(xchg, 4); /* rect and pack, device and host-staged */
	assert_int_equal(faces, 1);
	/* The lookup answers each with the recorded median. */
	size_t i;
	json_t *m;
	unsigned seen = 0;
	json_array_foreach(json_object_get(doc, "measurements"), i, m) {
		json_t *sh = json_object_get(m, "shape");
		if (!json_object_get(sh, "decomp"))
			continue;
		const long box[3] = { 32, 32, 62 };
		const int d[3] = { 2, 2, 1 };
		double t = 0.0;
		char how[160];
		assert_int_equal(nbw_calib_exchange_s(
					 &c, box, 1, 8, d,
					 json_string_value(json_object_get(sh, "method")),
					 json_string_value(json_object_get(sh, "path")), "async", &t,
					 how, sizeof(how)),
				 0);
		double med = json_real_value(json_object_get(json_object_get(m, "seconds"),
							      "median"));
		assert_true(t == med);
		seen++;
	}
	assert_int_equal(seen, 4);
	free(c.faces);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_from_results),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
