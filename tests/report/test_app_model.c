/* SPDX-License-Identifier: BSD-3-Clause */
/* The application model's terms against hand-computed cases (include/nodebw/app_model.h):
 * compute of the local box, face messages, pack, overlap, the decompositions of G, the
 * one-device runs of local boxes, the face probes (exact shape, nearest, round trip), and
 * the paper's Versions as the one-device model. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/app_model.h"

#define REL(a, b) (fabs((a) - (b)) / fabs(b))

static struct nbw_xpath path(const char *name, double beta)
{
	struct nbw_xpath p;
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "%s", name);
	p.alpha_s = -1.0;
	p.beta_gbps = beta;
	return p;
}

/* A GPU node: P2P 10 GB/s, DtoH 5, HtoD 4, k-bar 5e-6 s per point; no co-run, no launch
 * probe (the devices compute side by side, launches 0). */
static struct nbw_xpath paths[3];
static struct nbw_calib gpu(void)
{
	paths[0] = path("p2p", 10.0);
	paths[1] = path("dtoh", 5.0);
	paths[2] = path("htod", 4.0);
	struct nbw_calib c = {.kbar_given = 5e-6, .paths = paths, .npaths = 3};
	snprintf(c.device_kind, sizeof(c.device_kind), "cuda");
	c.hidden_helpers = -1;
	return c;
}

/* 22^3 points, radius 1: 20 interior per axis; 2x2x1 gives 10 x 10 x 20 interior, the
 * local box 12 x 12 x 22 (2000 points). 3 fields of 4 bytes, 10 steps, 0.01 s per step of
 * that box measured by the user. */
static struct nbw_app app_2x2x1(void)
{
	struct nbw_app a;
	memset(&a, 0, sizeof(a));
	a.grid[0] = a.grid[1] = a.grid[2] = 22;
	a.decomp[0] = 2;
	a.decomp[1] = 2;
	a.decomp[2] = 1;
	a.radius = 1;
	a.fields = 3;
	a.element_bytes = 4;
	a.exchange = NBW_APP_DEVICE;
	a.copy = NBW_APP_RECT;
	a.steps = 10;
	a.compute = NBW_APP_COMPUTE_SUBDOMAIN;
	a.compute_seconds = 0.01;
	a.compute_box[0] = a.compute_box[1] = 12;
	a.compute_box[2] = 22;
	return a;
}

static void test_helpers(void **state)
{
	(void)state;
	assert_true(REL(nbw_app_face_bytes(100.0, 4, 3, 4), 4800.0) < 1e-12);
	/* The solver's halo plane: N^2 elements, radius 1, one 8-byte field. */
	assert_true(REL(nbw_app_face_bytes(130.0 * 130.0, 1, 1, 8), 135200.0) < 1e-12);
	const long box[3] = {12, 12, 22};
	assert_true(REL(nbw_app_box_points(box, 1), 2000.0) < 1e-12);
	assert_true(REL(nbw_app_box_compute_s(5e-6, box, 1), 0.01) < 1e-12);
	assert_true(REL(nbw_app_step_s(false, 1.0, 0.2, 0.5, 0.1), 1.6) < 1e-12);
	/* Overlap: boundary + max(interior, exchange) + launch. */
	assert_true(REL(nbw_app_step_s(true, 1.0, 0.2, 0.5, 0.1), 1.1) < 1e-12);
	assert_true(REL(nbw_app_step_s(true, 1.0, 0.2, 3.0, 0.1), 3.3) < 1e-12);
}

/* Faces: x-face 12 x 22 = 264 elements x 1 x 3 x 4 = 3168 B, the y-face the same; one
 * neighbour on each split axis: 2 x 3168 B / 10 GB/s = 6.336e-7 s per step. Compute
 * 0.01 s (the user's box is the local box). Step 0.0100006336 s, 10 steps. */
static void test_rect_device(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	struct nbw_app_pred p;
	char why[300];
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, why,
					 sizeof(why)), 0);
	assert_int_equal(p.g, 4);
	assert_int_equal(p.box[0], 12);
	assert_int_equal(p.box[2], 22);
	assert_int_equal(p.neighbours, 2);
	assert_true(REL(p.face_bytes[0], 3168.0) < 1e-12);
	assert_true(REL(p.face_bytes[1], 3168.0) < 1e-12);
	assert_true(p.face_bytes[2] == 0.0);
	assert_true(REL(p.compute_s, 0.01) < 1e-12);
	assert_true(REL(p.exchange_s, 6.336e-7) < 1e-9);
	assert_true(p.launch_s == 0.0);
	assert_true(REL(p.total_s, 10 * (0.01 + 6.336e-7)) < 1e-12);
	assert_string_equal(p.dominant, "compute");
	assert_true(p.strided_unmeasured);
	assert_true(p.box_measured);
	/* A blocking P2P curve with a latency: the rectangular copy is one copy per contiguous
	 * run: the x-face 3 fields x 12 x 22 rows of 4 B, the y-face 3 x 22 runs of 48 B:
	 * 792 x (1e-6 + 4e-10) + 66 x (1e-6 + 4.8e-9) = 8.586336e-4 s. */
	struct nbw_xpath more[4] = {paths[0], paths[1], paths[2], path("p2p/sync", 10.0)};
	more[3].alpha_s = 1e-6;
	c.paths = more;
	c.npaths = 4;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, why,
					 sizeof(why)), 0);
	assert_true(REL(p.exchange_s, 8.586336e-4) < 1e-9);
	c.paths = paths;
	c.npaths = 3;
	/* Host-staged: DtoH + HtoD per message: 3168 / 5e9 + 3168 / 4e9 = 1.4256e-6 s. */
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, NBW_APP_HOST_STAGED, a.copy, &p, why,
					 sizeof(why)), 0);
	assert_true(REL(p.exchange_s, 2 * 1.4256e-6) < 1e-9);
}

/* Pack: each message adds a pack and an unpack kernel, each one point's time per element
 * (k = 0.01 / 2000 = 5e-6 s; 264 elements x 1 x 3 fields): 2 x 7.92e-3 s, no launch probe. */
static void test_pack(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	struct nbw_app_pred p;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, NBW_APP_DEVICE, NBW_APP_PACK, &p, NULL,
					 0), 0);
	assert_true(REL(p.exchange_s, 2 * (3.168e-7 + 7.92e-3)) < 1e-9);
	assert_string_equal(p.dominant, "exchange");
}

/* Overlap on a GPU: the boundary (points within the radius of a shared face: 2000 - 9 x 9
 * x 20 = 380 of 2000) first, then max(interior, exchange). */
static void test_overlap(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	a.overlap = true;
	struct nbw_app_pred p;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, NULL, 0), 0);
	assert_true(p.overlap);
	assert_true(REL(p.boundary_s, 0.01 * 380.0 / 2000.0) < 1e-12);
	assert_true(REL(p.step_s, 0.01) < 1e-12);
	/* On host-plugin devices without hidden helpers nothing runs beside the host thread;
	 * the 4 host threads' row copies of the strided faces take turns: x 4. */
	snprintf(c.device_kind, sizeof(c.device_kind), "host-plugin");
	c.hidden_helpers = 0;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, NULL, 0), 0);
	assert_false(p.overlap);
	assert_true(REL(p.step_s, 0.01 + 4 * 6.336e-7) < 1e-9);
	assert_non_null(strstr(p.exchange_from, "row copies take turns (x G)"));
	/* Packed messages share the CPUs instead (none here: 0 host CPUs known, x 1):
	 * 2 x (3.168e-7 + 7.92e-3). */
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, NBW_APP_PACK, &p, NULL, 0),
			 0);
	assert_true(REL(p.exchange_s, 2 * (3.168e-7 + 7.92e-3)) < 1e-9);
}

/* The decompositions of G = 4 of a 22^3 grid: all six; z first. A 4-point axis (radius 1,
 * two interior points) takes at most 2 devices (4x1x1 is left out). A fixed decomposition: itself, for its G. */
static void test_decomps(void **state)
{
	(void)state;
	struct nbw_app a = app_2x2x1();
	int d[NBW_APP_MAX_DECOMPS][3];
	assert_int_equal(nbw_app_decomps(&a, 4, d, NBW_APP_MAX_DECOMPS), 1);
	assert_int_equal(nbw_app_decomps(&a, 2, d, NBW_APP_MAX_DECOMPS), 0);
	a.decomp[0] = a.decomp[1] = a.decomp[2] = 0;
	assert_int_equal(nbw_app_decomps(&a, 4, d, NBW_APP_MAX_DECOMPS), 6);
	assert_int_equal(d[0][0], 1);
	assert_int_equal(d[0][1], 1);
	assert_int_equal(d[0][2], 4);
	a.grid[0] = 4;
	assert_int_equal(nbw_app_decomps(&a, 4, d, NBW_APP_MAX_DECOMPS), 5);
	for (int i = 0; i < 5; i++)
		assert_true(d[i][0] <= 2);
}

/* nodebw-heat as the compute: the calibration's one-device run of the local box of that
 * radius and field count (step 0.004 s), else the nearest box scaled by points. */
static void test_local_boxes(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	a.compute = NBW_APP_COMPUTE_KERNEL;
	a.fields = 3;
	struct nbw_boxrun b[2] = {{.radius = 1, .fields = 3, .box = {12, 12, 22}, .step_s = 0.004},
				  {.radius = 2, .fields = 3, .box = {14, 14, 22}, .step_s = 1.0}};
	c.boxes = b;
	c.nboxes = 2;
	struct nbw_app_pred p;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, NULL, 0), 0);
	assert_true(p.box_measured);
	assert_true(REL(p.compute_s, 0.004) < 1e-12);
	/* 1x1x4: box 22 x 22 x 7 (5 interior planes, 2000 points) from the 12x12x22 run's k. */
	int d[3] = {1, 1, 4};
	assert_int_equal(nbw_app_predict(&c, &a, d, a.exchange, a.copy, &p, NULL, 0), 0);
	assert_false(p.box_measured);
	assert_true(REL(p.compute_s, 0.004 * 2000.0 / 2000.0) < 1e-12);
	/* No run of that field count: the radius-1 k-bar stands in, named. */
	a.fields = 2;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, NULL, 0), 0);
	assert_false(p.box_measured);
	assert_true(REL(p.compute_s, 5e-6 * 2000.0) < 1e-12);
	assert_non_null(strstr(p.compute_from, "not measured"));
}

/* The paper's case (1x1xG, radius 1, one 8-byte field, a cubic grid): the one-device model
 * of the version of that exchange and overlap, to the last bit. */
static void test_paper_case(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a;
	memset(&a, 0, sizeof(a));
	a.grid[0] = a.grid[1] = a.grid[2] = 34;
	a.decomp[0] = a.decomp[1] = 1;
	a.decomp[2] = 2;
	a.radius = 1;
	a.fields = 1;
	a.element_bytes = 8;
	a.exchange = NBW_APP_HOST_STAGED;
	a.steps = 20;
	a.compute = NBW_APP_COMPUTE_KERNEL;
	const struct {
		enum nbw_app_exchange e;
		bool overlap;
		const char *v;
	} cases[] = {{NBW_APP_HOST_STAGED, false, "v1"},
		     {NBW_APP_HOST_STAGED, true, "v3"},
		     {NBW_APP_DEVICE, true, "v4"}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		a.exchange = cases[i].e;
		a.overlap = cases[i].overlap;
		struct nbw_app_pred p;
		struct nbw_ext_pred e;
		char why[300];
		assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, NBW_APP_RECT, &p,
						 why, sizeof(why)), 0);
		assert_int_equal(nbw_predict_onedev(&c, 34, 2, cases[i].v, 20, &e, why,
						    sizeof(why)), 0);
		assert_true(p.paper_version);
		assert_string_equal(p.version, cases[i].v);
		assert_true(p.total_s == e.total_s);
		assert_true(REL(p.face_bytes[2], 8.0 * 34 * 34) < 1e-12);
	}
}

static struct nbw_facerun facerun(long nx, long ny, long nz, const char *face,
				   const char *method, const char *path, const char *mode,
				   double seconds)
{
	struct nbw_facerun f = {.box = {nx, ny, nz}, .depth = 1, .elem = 4, .seconds = seconds};
	snprintf(f.face, sizeof(f.face), "%s", face);
	snprintf(f.method, sizeof(f.method), "%s", method);
	snprintf(f.path, sizeof(f.path), "%s", path);
	snprintf(f.mode, sizeof(f.mode), "%s", mode);
	return f;
}

/* The face probes: a face of the local box 12x12x22 (radius 1, 4 bytes) measured on the
 * exchange's path is its message's time, x fields: x 2e-5 s (async), y 3e-5 s (sync only,
 * the other mode of the same shape): (2e-5 + 3e-5) x 3 fields = 1.5e-4 s; no warning. */
static void test_faces_exact(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	struct nbw_app_pred p;
	char why[300];
	struct nbw_facerun f[3] = {facerun(12, 12, 22, "x", "rect", "p2p", "async", 2e-5),
				   facerun(12, 12, 22, "y", "rect", "p2p", "sync", 3e-5),
				   facerun(12, 12, 22, "x", "rect", "p2p", "sync", 9e-5)};
	c.faces = f;
	c.nfaces = 3;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, why,
					 sizeof(why)), 0);
	assert_true(REL(p.exchange_s, 1.5e-4) < 1e-12);
	assert_true(p.faces_measured);
	assert_false(p.faces_nearest);
	assert_false(p.strided_unmeasured);
	assert_non_null(strstr(p.exchange_from, "the face probes (y rect p2p/sync; x rect "
						"p2p/async), x fields"));
	/* Pack measured: the probe's gather, copy and scatter, no kernel estimate added. */
	struct nbw_facerun g[2] = {facerun(12, 12, 22, "x", "pack", "p2p", "async", 1e-5),
				   facerun(12, 12, 22, "y", "pack", "p2p", "async", 1e-5)};
	c.faces = g;
	c.nfaces = 2;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, NBW_APP_DEVICE, NBW_APP_PACK, &p,
					 why, sizeof(why)), 0);
	assert_true(REL(p.exchange_s, 6e-5) < 1e-12);
	/* The rect copy of the same calibration has no face probe: the curves, as before. */
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, NBW_APP_DEVICE, NBW_APP_RECT, &p,
					 why, sizeof(why)), 0);
	assert_true(REL(p.exchange_s, 6.336e-7) < 1e-9);
	assert_true(p.strided_unmeasured);
	assert_false(p.faces_measured);
}

/* The exchange probe of the decomposition: one with the app's 3 fields is the exchange
 * itself (2e-4 s); without it the one-field step x 3 (3 x 1e-4 s), said so and flagged. */
static void test_exchange_fields(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	struct nbw_app_pred p;
	char why[300];
	struct nbw_facerun f[2] = {facerun(12, 12, 22, "", "rect", "device", "async", 1e-4),
				   facerun(12, 12, 22, "", "rect", "device", "async", 2e-4)};
	for (int i = 0; i < 2; i++) {
		snprintf(f[i].kind, sizeof(f[i].kind), "exchange");
		f[i].decomp[0] = f[i].decomp[1] = 2;
		f[i].decomp[2] = 1;
		f[i].fields = i == 0 ? 1 : 3;
	}
	c.faces = f;
	c.nfaces = 2;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, why,
					 sizeof(why)), 0);
	assert_true(REL(p.exchange_s, 2e-4) < 1e-12);
	assert_true(p.exchange_probed && p.exchange_fields);
	assert_non_null(strstr(p.exchange_from, "with the app's 3 fields (exchange 2x2x1 3 fields "
						"rect device/async)"));
	c.nfaces = 1;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, why,
					 sizeof(why)), 0);
	assert_true(REL(p.exchange_s, 3e-4) < 1e-12);
	assert_true(p.exchange_probed);
	assert_false(p.exchange_fields);
	assert_non_null(strstr(p.exchange_from, "x fields (a message per field)"));
}

/* Host-staged: DtoH + HtoD of the face; a face with one hop measured only takes the
 * curves (y), the other the probes (x: 1e-5 + 2e-5, x 3 fields = 9e-5 s; y 1.4256e-6 s). */
static void test_faces_staged(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	struct nbw_app_pred p;
	char why[300];
	struct nbw_facerun f[3] = {facerun(12, 12, 22, "x", "rect", "dtoh", "async", 1e-5),
				   facerun(12, 12, 22, "x", "rect", "htod", "async", 2e-5),
				   facerun(12, 12, 22, "y", "rect", "dtoh", "async", 5e-5)};
	c.faces = f;
	c.nfaces = 3;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, NBW_APP_HOST_STAGED, NBW_APP_RECT,
					 &p, why, sizeof(why)), 0);
	assert_true(REL(p.exchange_s, 9e-5 + 1.4256e-6) < 1e-9);
	assert_true(p.strided_unmeasured);
	assert_false(p.faces_measured);
	assert_non_null(strstr(p.exchange_from, "the face probes for the others"));
}

/* The nearest shape of that face, method and path, by bytes: the y-face of 24x12x22 (22 x
 * 24 elements, twice the local box's 22 x 12) at 4e-5 s stands in at 2e-5 s. */
static void test_faces_nearest(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	struct nbw_app_pred p;
	char why[300];
	struct nbw_facerun f[4] = {facerun(12, 12, 22, "x", "rect", "p2p", "async", 2e-5),
				   facerun(24, 12, 22, "y", "rect", "p2p", "async", 4e-5),
				   facerun(96, 12, 22, "y", "rect", "p2p", "async", 1.0),
				   facerun(12, 12, 22, "y", "pack", "p2p", "async", 1.0)};
	c.faces = f;
	c.nfaces = 4;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, why,
					 sizeof(why)), 0);
	assert_true(REL(p.exchange_s, (2e-5 + 2e-5) * 3) < 1e-12);
	assert_false(p.faces_measured);
	assert_true(p.faces_nearest);
	assert_false(p.strided_unmeasured);
	assert_non_null(strstr(p.exchange_from, "nearest shape"));
	assert_non_null(strstr(p.exchange_from, "y rect p2p/async of 24x12x22:1:4 scaled by bytes"));
}

/* "faces" written and read back: the same records; a bad one named. */
static void test_faces_round_trip(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_facerun f[2] = {facerun(12, 12, 22, "x", "rect", "p2p", "async", 2e-5),
				   facerun(40, 12, 22, "z", "pack", "htod", "sync", 3.25e-6)};
	c.faces = f;
	c.nfaces = 2;
	json_t *j = nbw_calib_to_json(&c);
	char *text = json_dumps(j, JSON_REAL_PRECISION(17));
	json_decref(j);
	assert_non_null(text);
	struct nbw_calib back;
	char err[400];
	assert_int_equal(nbw_calib_load_buffer("mem.json", text, strlen(text), &back, err,
					       sizeof(err)), 0);
	free(text);
	assert_int_equal(back.nfaces, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_memory_equal(back.faces[i].box, f[i].box, sizeof(f[i].box));
		assert_int_equal(back.faces[i].depth, 1);
		assert_int_equal(back.faces[i].elem, 4);
		assert_string_equal(back.faces[i].face, f[i].face);
		assert_string_equal(back.faces[i].method, f[i].method);
		assert_string_equal(back.faces[i].path, f[i].path);
		assert_string_equal(back.faces[i].mode, f[i].mode);
		assert_true(back.faces[i].seconds == f[i].seconds);
	}
	nbw_calib_free(&back);
	const char *bad = "{\"schema\": \"nodebw-calibration\", \"schema_version\": 1, "
			  "\"k\": {\"kbar\": 1e-9}, \"faces\": [{\"box\": [8, 8, 8], \"depth\": 1, "
			  "\"element_bytes\": 8, \"face\": \"w\", \"method\": \"rect\", \"path\": "
			  "\"p2p\", \"mode\": \"sync\", \"seconds\": 1e-5}]}";
	assert_int_equal(nbw_calib_load_buffer("bad.json", bad, strlen(bad), &back, err,
					       sizeof(err)), -1);
	assert_non_null(strstr(err, "faces[0]"));
	assert_non_null(strstr(err, "\"face\" must be"));
}

static void test_refused(void **state)
{
	(void)state;
	struct nbw_calib c = gpu();
	struct nbw_app a = app_2x2x1();
	struct nbw_app_pred p;
	char why[300] = "";
	int d[3] = {1, 1, 30};
	assert_int_equal(nbw_app_predict(&c, &a, d, a.exchange, a.copy, &p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "does not split"));
	/* Without the path the exchange takes: named. */
	c.npaths = 0;
	assert_int_equal(nbw_app_predict(&c, &a, a.decomp, a.exchange, a.copy, &p, why,
					 sizeof(why)), -1);
	assert_non_null(strstr(why, "p2p/sync"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helpers),	   cmocka_unit_test(test_rect_device),
		cmocka_unit_test(test_pack),	   cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_decomps),	   cmocka_unit_test(test_local_boxes),
		cmocka_unit_test(test_paper_case), cmocka_unit_test(test_refused),
		cmocka_unit_test(test_faces_exact), cmocka_unit_test(test_faces_staged),
		cmocka_unit_test(test_faces_nearest), cmocka_unit_test(test_faces_round_trip),
		cmocka_unit_test(test_exchange_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
