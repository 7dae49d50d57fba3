/* SPDX-License-Identifier: BSD-3-Clause */
/* The face probes without a nodebw process: box shapes and faces (common/face.c), their
 * regions and the byte-by-byte check, the planner's face series and exchanges
 * (probe/plan_faces.c), and the executor (probe/exec.c, exec_face.c) on an in-test backend
 * whose devices are host buffers: every face by rect and pack passes its check, a copy that
 * spills a row past the face or leaves one out fails it, and the records carry the shape
 * and count face bytes (common/results_face.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../probe/exec.h"
#include "nodebw/cli.h"
#include "nodebw/face.h"
#include "nodebw/plan.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"

static struct nbw_face_shape shape(const char *s)
{
	struct nbw_face_shape sh;
	char err[256] = "";
	if (nbw_face_shape_parse(s, &sh, err, sizeof(err)))
		fail_msg("%s: %s", s, err);
	return sh;
}

/* ---- shapes, faces, regions ------------------------------------------------------------ */

static void test_shape_parse(void **state)
{
	(void)state;
	struct nbw_face_shape sh = shape("48x40x36:2:8");
	assert_int_equal(sh.n[0], 48);
	assert_int_equal(sh.n[1], 40);
	assert_int_equal(sh.n[2], 36);
	assert_int_equal(sh.depth, 2);
	assert_int_equal(sh.elem, 8);
	struct nbw_face_shape v[NBW_MAX_FACE_SHAPES];
	int n = 0;
	char err[256];
	assert_int_equal(nbw_face_shapes_parse("96x96x96:2:8,64x64x32:4:4", v, NBW_MAX_FACE_SHAPES,
					       &n, err, sizeof(err)),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[1].depth, 4);
	static const char *const bad[] = { "96x96:2:8", "96x96x96:0:8", "96x96x96:2:0",
					   "96x96x96:2:8x", "3x96x96:2:8", "-4x9x9:1:8",
					   "96x96x96:17:8", "4096x4096x4096:1:8", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (nbw_face_shapes_parse(bad[i], v, NBW_MAX_FACE_SHAPES, &n, err, sizeof(err)) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err, "--faces"));
	}
	assert_int_not_equal(nbw_face_shapes_parse("8x8x8:1:8,,8x8x8:1:4", v, NBW_MAX_FACE_SHAPES,
						   &n, err, sizeof(err)),
			     0);
}

static void test_face_bytes(void **state)
{
	(void)state;
	struct nbw_face_shape sh = shape("48x40x36:2:8");
	assert_int_equal(nbw_face_elements(&sh, NBW_FACE_Z), 48 * 40 * 2);
	assert_int_equal(nbw_face_elements(&sh, NBW_FACE_Y), 48 * 2 * 36);
	assert_int_equal(nbw_face_elements(&sh, NBW_FACE_X), 2 * 40 * 36);
	assert_int_equal(nbw_face_bytes(&sh, NBW_FACE_Z), 48 * 40 * 2 * 8);
	assert_int_equal(nbw_face_box_bytes(&sh), 48 * 40 * 36 * 8);
	uint64_t run;
	assert_int_equal(nbw_face_runs(&sh, NBW_FACE_Z, &run), 1);
	assert_int_equal(run, 48 * 40 * 2 * 8);
	assert_int_equal(nbw_face_runs(&sh, NBW_FACE_Y, &run), 36);
	assert_int_equal(run, 48 * 2 * 8);
	assert_int_equal(nbw_face_runs(&sh, NBW_FACE_X, &run), 40 * 36);
	assert_int_equal(run, 2 * 8);
	struct nbw_region r;
	nbw_face_region(&sh, NBW_FACE_Y, true, NBW_FACE_PACK, &r);
	assert_int_equal(r.src_at[1], 40 - 4);
	assert_int_equal(r.dst_at[1], 0);
	assert_int_equal(r.extent[1], 2);
	assert_int_equal(r.extent[0], 48);
	assert_int_equal(r.method, NBW_FACE_PACK);
	assert_int_equal(nbw_region_bytes(&r), nbw_face_bytes(&sh, NBW_FACE_Y));
	nbw_face_region(&sh, NBW_FACE_X, false, NBW_FACE_RECT, &r);
	assert_int_equal(r.src_at[0], 2);
	assert_int_equal(r.dst_at[0], 48 - 2);
}

/* The reference copy and pack -> unpack give the same box; the check finds a byte wrong
 * inside the face and a byte written outside it, each at its offset. */
static void test_region_check(void **state)
{
	(void)state;
	struct nbw_face_shape sh = shape("9x7x6:2:4");
	size_t box = (size_t)nbw_face_box_bytes(&sh);
	unsigned char *src = malloc(box), *a = malloc(box), *b = malloc(box), *lin = malloc(box);
	assert_non_null(src);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(lin);
	for (size_t i = 0; i < box; i++)
		src[i] = (unsigned char)(i * 7u + 1u);
	char where[32];
	for (int f = 0; f < NBW_FACE_COUNT; f++)
		for (int up = 0; up < 2; up++) {
			struct nbw_region r;
			nbw_face_region(&sh, (enum nbw_face)f, up, NBW_FACE_RECT, &r);
			memset(a, 0xA5, box);
			memset(b, 0xA5, box);
			nbw_region_copy_host(a, src, &r);
			nbw_region_pack_host(src, &r, r.src_at, lin, false);
			nbw_region_pack_host(b, &r, r.dst_at, lin, true);
			assert_memory_equal(a, b, box);
			assert_int_equal(nbw_region_check(src, a, &r, 0xA5, where, sizeof(where)), box);
			/* The first byte of the face, and the byte after its last row's end. */
			size_t E = r.elem, rowb = r.dims[0] * E;
			size_t first = ((r.dst_at[2] * r.dims[1] + r.dst_at[1]) * r.dims[0] +
					r.dst_at[0]) * E;
			a[first] ^= 0x01;
			assert_int_equal(nbw_region_check(src, a, &r, 0xA5, where, sizeof(where)),
					 first);
			assert_string_equal(where, "inside the face");
			a[first] ^= 0x01;
			size_t zl = r.dst_at[2] + r.extent[2] - 1, yl = r.dst_at[1] + r.extent[1] - 1;
			size_t after = (zl * r.dims[1] + yl) * rowb + (r.dst_at[0] + r.extent[0]) * E;
			if (after >= box) /* the face ends the box: the byte before it */
				after = first - 1;
			a[after] = 0x00;
			assert_int_equal(nbw_region_check(src, a, &r, 0xA5, where, sizeof(where)),
					 after);
			assert_string_equal(where, "outside the face");
		}
	free(src);
	free(a);
	free(b);
	free(lin);
}

/* ---- the planner ----------------------------------------------------------------------- */

static const char *plain_if(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t len)
{
	(void)dir, (void)mode, (void)why, (void)len;
	return "memcpy";
}

/* Rect in both modes; pack in sync only (async says why). */
static const char *face_if(void *ctx, enum nbw_dir dir, enum nbw_face_method m,
			   enum nbw_mode mode, char *why, size_t len)
{
	(void)ctx, (void)dir;
	if (m == NBW_FACE_PACK && mode == NBW_MODE_ASYNC) {
		snprintf(why, len, "no async pack here");
		return NULL;
	}
	return m == NBW_FACE_RECT ? "rect copy" : "pack copy";
}

static void face_opts(struct nbw_probe_opts *o, const char *faces)
{
	memset(o, 0, sizeof(*o));
	o->modes[NBW_MODE_SYNC] = o->modes[NBW_MODE_ASYNC] = o->modes[NBW_MODE_KERNEL] = true;
	o->hostmem[NBW_HOSTMEM_PAGEABLE] = o->hostmem[NBW_HOSTMEM_PINNED] = true;
	o->bind[1] = true;
	char err[256];
	assert_int_equal(nbw_face_shapes_parse(faces, o->faces, NBW_MAX_FACE_SHAPES, &o->nfaces,
					       err, sizeof(err)),
			 0);
}

static size_t count(const struct nbw_plan *p, bool skipped, enum nbw_conc conc)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++)
		n += (p->v[i].skip[0] != '\0') == skipped &&
		     (skipped || p->v[i].set.conc == conc);
	return n;
}

static void test_plan_faces(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	face_opts(&o, "16x12x10:2:8");
	const int devs[] = { 0, 1, 2, 3 };
	struct nbw_plan_caps caps = { .interface = plain_if, .face_interface = face_if };
	struct nbw_plan_devices d = { .devs = devs, .nd = 4 };
	struct nbw_plan p = { 0 };
	/* HtoD: (sync rect, sync pack, async rect) x 2 memories x 3 faces; async pack skipped. */
	assert_int_equal(nbw_plan_series(&o, NBW_HTOD, &caps, &d, &p), 0);
	assert_int_equal(count(&p, false, NBW_CONC_FACE), 3 * 2 * 3);
	assert_int_equal(count(&p, true, 0), 1);
	assert_int_equal(nbw_plan_measurements(&p, 30), 3 * 2 * 3); /* one box per series */
	for (size_t i = 0; i < p.n; i++) {
		const struct nbw_series_plan *e = &p.v[i];
		if (e->skip[0]) {
			assert_string_equal(e->skip, "no async pack here");
			continue;
		}
		assert_true(e->face.on);
		assert_int_equal(e->set.nstreams, 1);
		assert_int_equal(e->set.src[0], -1);
		assert_int_equal(e->set.dst[0], 0);
		assert_true(e->mode == NBW_MODE_SYNC || e->mode == NBW_MODE_ASYNC);
		assert_int_equal(nbw_plan_points(e, &o), 1);
		assert_int_equal(e->kind->conc, NBW_CONC_FACE);
	}
	nbw_plan_free(&p);
	/* P2P on four devices: 3 faces of the first pair, the line and the grid. */
	assert_int_equal(nbw_plan_series(&o, NBW_P2P, &caps, &d, &p), 0);
	assert_int_equal(count(&p, false, NBW_CONC_FACE), 3 * 3);
	assert_int_equal(count(&p, false, NBW_CONC_XLINE), 3);
	assert_int_equal(count(&p, false, NBW_CONC_XGRID), 3);
	nbw_plan_free(&p);
	/* Two devices: no grid, said so; one device: the same-device copy, no exchange. */
	d.nd = 2;
	assert_int_equal(nbw_plan_series(&o, NBW_P2P, &caps, &d, &p), 0);
	assert_int_equal(count(&p, false, NBW_CONC_XGRID), 0);
	bool said = false;
	for (size_t i = 0; i < p.n; i++)
		said = said || (p.v[i].kind->conc == NBW_CONC_XGRID &&
				strstr(p.v[i].skip, "needs 4 devices"));
	assert_true(said);
	nbw_plan_free(&p);
	d.nd = 1;
	assert_int_equal(nbw_plan_series(&o, NBW_P2P, &caps, &d, &p), 0);
	for (size_t i = 0; i < p.n; i++)
		if (!p.v[i].skip[0])
			assert_int_equal(p.v[i].set.src[0], p.v[i].set.dst[0]);
	assert_int_equal(count(&p, false, NBW_CONC_XLINE), 0);
	nbw_plan_free(&p);
	/* A backend without face copies: every combination skipped with the reason. */
	caps.face_interface = NULL;
	d.nd = 4;
	assert_int_equal(nbw_plan_series(&o, NBW_DTOH, &caps, &d, &p), 0);
	assert_true(p.n > 0);
	for (size_t i = 0; i < p.n; i++)
		assert_string_equal(p.v[i].skip, "the backend has no face copies");
	nbw_plan_free(&p);
}

static void test_exchange_sets(void **state)
{
	(void)state;
	const int devs[] = { 3, 1, 0, 2, 4 };
	struct nbw_plan_set s;
	struct nbw_face_plan fp;
	memset(&fp, 0, sizeof(fp));
	/* A line of 4: 0<->1<->2<->3 (in the given order), both directions of each link. */
	assert_int_equal(nbw_plan_exchange(devs, 4, false, &s, &fp), 6);
	assert_int_equal(s.conc, NBW_CONC_XLINE);
	assert_int_equal(s.src[0], 3);
	assert_int_equal(s.dst[0], 1);
	assert_int_equal(s.src[1], 1);
	assert_int_equal(s.dst[1], 3);
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(fp.face[i], NBW_FACE_Z);
		assert_int_equal(fp.up[i], i % 2 == 0);
	}
	/* A grid of 5 devices: 2 x 2 (the fifth left out); z along the rows, y between them. */
	assert_int_equal(nbw_plan_exchange(devs, 5, true, &s, &fp), 8);
	assert_int_equal(s.conc, NBW_CONC_XGRID);
	static const int src[8] = { 3, 1, 0, 2, 3, 0, 1, 2 }, dst[8] = { 1, 3, 2, 0, 0, 3, 2, 1 };
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(s.src[i], src[i]);
		assert_int_equal(s.dst[i], dst[i]);
		assert_int_equal(fp.face[i], i < 4 ? NBW_FACE_Z : NBW_FACE_Y);
		assert_true(s.src[i] != 4 && s.dst[i] != 4);
	}
}

/* ---- the executor on an in-test backend ------------------------------------------------ */

static int spill; /* copy_rect writes one element past the face's first row */
static int skip_row; /* copy_rect leaves the face's last row out */

static int t_alloc(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	b->ptr = malloc(b->bytes ? b->bytes : 1);
	return b->ptr ? 0 : -ENOMEM;
}

static void t_free(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	free(b->ptr);
	b->ptr = NULL;
}

static int t_write(struct nbw_backend *be, struct nbw_buf *dst, const void *host, size_t n)
{
	(void)be;
	memcpy(dst->ptr, host, n);
	return 0;
}

static int t_read(struct nbw_backend *be, void *host, const struct nbw_buf *src, size_t n)
{
	(void)be;
	memcpy(host, src->ptr, n);
	return 0;
}

static int t_transfer(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	memcpy(x->dst->ptr, x->src->ptr, x->bytes);
	return 0;
}

static int t_rect(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	struct nbw_region r = *x->region;
	if (skip_row)
		r.extent[2] == 1 ? r.extent[1]-- : r.extent[2]--;
	nbw_region_copy_host(x->dst->ptr, x->src->ptr, &r);
	if (spill) {
		/* One element just beyond the face along its axis (before it where the face
		 * ends the box). */
		const struct nbw_region *q = x->region;
		size_t c[3] = { q->dst_at[0], q->dst_at[1], q->dst_at[2] };
		for (int a = 0; a < 3; a++)
			if (q->extent[a] < q->dims[a])
				c[a] = q->dst_at[a] + q->extent[a] < q->dims[a]
					       ? q->dst_at[a] + q->extent[a]
					       : q->dst_at[a] - 1;
		size_t at = ((c[2] * q->dims[1] + c[1]) * q->dims[0] + c[0]) * q->elem;
		((unsigned char *)x->dst->ptr)[at] ^= 0xff;
	}
	return 0;
}

static int t_pack(struct nbw_backend *be, const struct nbw_buf *box, const struct nbw_region *r,
		  const size_t at[3], struct nbw_buf *lin, bool unpack)
{
	(void)be;
	nbw_region_pack_host(box->ptr, r, at, lin->ptr, unpack);
	return 0;
}

static const char *t_face_if(struct nbw_backend *be, enum nbw_dir dir, enum nbw_face_method m,
			     enum nbw_mode mode, char *why, size_t len)
{
	(void)be, (void)dir;
	if (mode != NBW_MODE_SYNC) {
		snprintf(why, len, "sync only");
		return NULL;
	}
	return m == NBW_FACE_RECT ? "rows by memcpy" : "pack, memcpy, unpack";
}

static const char *t_note(struct nbw_backend *be, enum nbw_hostmem mem, int dev)
{
	(void)be, (void)mem, (void)dev;
	return "malloc (test backend)";
}

static const char *t_path(struct nbw_backend *be, int src, int dst)
{
	(void)be, (void)src, (void)dst;
	return "memcpy in host memory (test backend)";
}

static const char *t_err(struct nbw_backend *be)
{
	(void)be;
	return "test backend";
}

static const struct nbw_backend_ops t_ops = {
	.abi = NBW_PROBE_ABI, .name = "facetest", .description = "face test backend",
	.interface = plain_if, .hostmem_note = t_note, .p2p_path = t_path, .alloc = t_alloc,
	.free = t_free, .write = t_write, .read = t_read, .transfer = t_transfer,
	.last_error = t_err, .face_interface = t_face_if, .copy_rect = t_rect, .pack = t_pack,
};

static void collect(void *ctx, const struct nbw_measurement *m)
{
	json_array_append_new(ctx, nbw_measurement_to_json(m));
}

static const char *caps_face_if(void *ctx, enum nbw_dir dir, enum nbw_face_method m,
				enum nbw_mode mode, char *why, size_t len)
{
	return t_face_if(ctx, dir, m, mode, why, len);
}

/* Every face series of \p dir on four devices under the options \p args, run; the
 * measurements as JSON. */
static json_t *run_faces_args(enum nbw_dir dir, const char *args)
{
	struct nbw_probe_opts o;
	char line[256];
	snprintf(line, sizeof(line), "%s", args);
	char *argv[16];
	int argc = 0;
	for (char *t = strtok(line, " "); t; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	char err[256] = "";
	assert_int_equal(nbw_cli_parse_probe(argc, argv, &o, err, sizeof(err)), 0);
	static struct nbw_device devinfo[4];
	for (int d = 0; d < 4; d++)
		devinfo[d] = (struct nbw_device){ .id = d, .kind = "test", .runtime_id = d };
	const int devs[4] = { 0, 1, 2, 3 };
	struct nbw_plan_caps caps = { .interface = plain_if, .face_interface = caps_face_if };
	struct nbw_plan_devices pd = { .devs = devs, .nd = 4 };
	struct nbw_plan plan = { 0 };
	assert_int_equal(nbw_plan_series(&o, dir, &caps, &pd, &plan), 0);
	struct nbw_workers *w = nbw_workers_new();
	assert_non_null(w);
	struct nbw_bufpool pool;
	nbw_bufpool_init(&pool, &t_ops, NULL, 0);
	static volatile sig_atomic_t no_stop;
	json_t *all = json_array();
	for (size_t i = 0; i < plan.n; i++) {
		if (plan.v[i].skip[0])
			continue;
		struct nbw_exec x = { .ops = &t_ops, .pool = &pool, .o = &o, .workers = w,
				      .devinfo = devinfo, .plan = &plan.v[i], .stop = &no_stop };
		for (unsigned s = 0; s < NBW_MAX_STREAMS; s++)
			x.node[s] = -1;
		nbw_exec_series(&x, collect, all);
	}
	nbw_bufpool_destroy(&pool);
	nbw_workers_free(w);
	nbw_plan_free(&plan);
	nbw_cli_opts_free(&o);
	return all;
}

static json_t *run_faces(enum nbw_dir dir)
{
	return run_faces_args(dir, "probe --quick --mode sync --host-mem pinned --reps 3 "
				   "--faces 10x8x6:2:8");
}

static void test_exec_faces(void **state)
{
	(void)state;
	spill = skip_row = 0;
	json_t *all = run_faces(NBW_P2P);
	/* 3 faces x 2 methods + line and grid x 2 methods. */
	assert_int_equal(json_array_size(all), 3 * 2 + 2 * 2);
	struct nbw_face_shape sh = shape("10x8x6:2:8");
	size_t i;
	json_t *j;
	unsigned rect = 0, pack = 0;
	json_array_foreach(all, i, j) {
		struct nbw_measurement m;
		char err[256] = "";
		if (nbw_measurement_from_json(j, &m, err, sizeof(err)))
			fail_msg("does not read back: %s", err);
		assert_string_equal(m.error, "");
		if (strcmp(m.verify_status, "passed"))
			fail_msg("%s", m.verify_detail);
		assert_true(m.face.has);
		rect += m.face.method == NBW_FACE_RECT;
		pack += m.face.method == NBW_FACE_PACK;
		assert_int_equal(m.bytes, nbw_face_bytes(&sh, (enum nbw_face)m.face.faces[0]));
		uint64_t step = nbw_face_rec_step_bytes(&m.face, m.nstreams);
		assert_true(m.gbps.median > 0.0);
		/* GB/s counts the face bytes of every message, never the boxes (3 repetitions:
		 * the median rate is the rate of the median time). */
		assert_int_equal(m.n, 3);
		double want = (double)step / m.seconds.median / 1e9;
		assert_true(want > 0.999999 * m.gbps.median && want < 1.000001 * m.gbps.median);
		struct nbw_rv_meas x;
		struct nbw_rv_face f;
		assert_true(nbw_rv_meas_read(NULL, j, &x));
		assert_false(nbw_rv_meas_usable(&x)); /* the bandwidth curves never see a face */
		assert_true(nbw_rv_face_read(&x, &f));
		assert_int_equal(f.box[0], 10);
		assert_int_equal(f.depth, 2);
		assert_int_equal(f.element_bytes, 8);
		assert_int_equal(f.step_bytes, (long long)step);
		assert_int_equal(f.messages, (int)m.nstreams);
		assert_string_equal(f.exchange, "device");
		if (m.conc == NBW_CONC_XGRID) {
			assert_int_equal(m.nstreams, 8);
			assert_int_equal(step, 4 * nbw_face_bytes(&sh, NBW_FACE_Z) +
						       4 * nbw_face_bytes(&sh, NBW_FACE_Y));
			assert_string_equal(json_string_value(json_object_get(
						    json_array_get(json_object_get(j, "streams"), 7),
						    "face")),
					    "y");
		}
		nbw_measurement_free(&m);
	}
	assert_int_equal(rect, 5);
	assert_int_equal(pack, 5);
	json_decref(all);
	/* Host-staged: the host box is packed by the core. */
	all = run_faces(NBW_DTOH);
	assert_int_equal(json_array_size(all), 3 * 2);
	json_array_foreach(all, i, j)
		assert_string_equal(json_string_value(json_object_get(
					    json_object_get(j, "verification"), "status")),
				    "passed");
	json_decref(all);
}

/* A copy that writes past the face, or leaves a row out, fails its check (rect only: the
 * pack method does not call copy_rect). */
static void test_exec_faces_wrong(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		spill = k == 0;
		skip_row = k == 1;
		json_t *all = run_faces(NBW_HTOD);
		size_t i;
		json_t *j;
		unsigned failed = 0, passed = 0;
		json_array_foreach(all, i, j) {
			json_t *v = json_object_get(j, "verification");
			const char *st = json_string_value(json_object_get(v, "status"));
			const char *method =
				json_string_value(json_object_get(json_object_get(j, "shape"), "method"));
			if (strcmp(method, "rect") == 0) {
				assert_string_equal(st, "failed");
				const char *d = json_string_value(json_object_get(v, "detail"));
				assert_non_null(strstr(d, spill ? "outside the face" : "inside the face"));
				failed++;
			} else {
				assert_string_equal(st, "passed");
				passed++;
			}
		}
		assert_int_equal(failed, 3);
		assert_int_equal(passed, 3);
		json_decref(all);
	}
	spill = skip_row = 0;
}

/* The exchange of a decomposition, numbered as the solver numbers it (x fastest): each
 * neighbour pair both ways, x-faces first, then y, then z. */
static void test_decomp_sets(void **state)
{
	(void)state;
	const int devs[] = { 7, 5, 6, 4 };
	struct nbw_plan_set s;
	struct nbw_face_plan fp;
	memset(&fp, 0, sizeof(fp));
	/* 2x2x1: devices (x, y) 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1): x-pairs 0-1, 2-3; y-pairs
	 * 0-2, 1-3. */
	const int d221[3] = { 2, 2, 1 };
	assert_int_equal(nbw_plan_decomp(devs, d221, 1, &s, &fp), 8);
	assert_int_equal(nbw_face_decomp_messages(d221), 8);
	assert_int_equal(s.conc, NBW_CONC_XDECOMP);
	static const int src[8] = { 7, 5, 6, 4, 7, 6, 5, 4 }, dst[8] = { 5, 7, 4, 6, 6, 7, 4, 5 };
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(s.src[i], src[i]);
		assert_int_equal(s.dst[i], dst[i]);
		assert_int_equal(fp.face[i], i < 4 ? NBW_FACE_X : NBW_FACE_Y);
		assert_int_equal(fp.up[i], i % 2 == 0);
	}
	assert_memory_equal(fp.decomp, d221, sizeof(d221));
	/* 1x1x2: one pair along z, both ways. */
	const int d112[3] = { 1, 1, 2 };
	assert_int_equal(nbw_plan_decomp(devs, d112, 1, &s, &fp), 2);
	assert_int_equal(fp.face[0], NBW_FACE_Z);
	assert_int_equal(fp.face[1], NBW_FACE_Z);
	assert_int_equal(s.src[0], 7);
	assert_int_equal(s.dst[0], 5);
	assert_int_equal(s.src[1], 5);
	assert_int_equal(s.dst[1], 7);
	/* 2x1x2: devices (x, z) 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1): 4 x-face, 4 z-face
	 * messages; the z-pairs are 0-2 and 1-3 (stride PX PY = 2). */
	const int d212[3] = { 2, 1, 2 };
	assert_int_equal(nbw_plan_decomp(devs, d212, 1, &s, &fp), 8);
	assert_int_equal(nbw_face_decomp_messages(d212), 8);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(fp.face[i], i < 4 ? NBW_FACE_X : NBW_FACE_Z);
	assert_int_equal(s.src[4], 7);
	assert_int_equal(s.dst[4], 6);
	assert_int_equal(s.src[6], 5);
	assert_int_equal(s.dst[6], 4);
	/* 4x4x4 on 64 devices: 2 x 3 x 3 x 16 = 288 messages, more than run at once. */
	const int d444[3] = { 4, 4, 4 };
	char why[256];
	assert_int_equal(nbw_face_decomp_messages(d444), 288);
	assert_true(nbw_face_decomp_invalid(d444, 64, false, why, sizeof(why)));
	assert_non_null(strstr(why, "288 messages"));
	/* Fields: the same messages (one stream each), sent once per field by the backend. */
	assert_int_equal(nbw_plan_decomp(devs, d212, 3, &s, &fp), 8);
	assert_int_equal(fp.fields, 3);
	assert_int_equal(nbw_plan_decomp(devs, d212, 0, &s, &fp), 8);
	assert_int_equal(fp.fields, 1);
}

/* --faces-decomp: parsed (malformed text refused), planned device to device and host-staged
 * per host memory, each method and mode; what cannot run is a skipped series with its
 * reason. */
static void test_plan_decomp(void **state)
{
	(void)state;
	int dc[NBW_MAX_DECOMPS][3], n = 0;
	char err[256];
	const char *bad[] = { "2x2", "2x2x1x1", "2x2x", "ax2x1", "2x2x1,", ",2x2x1", "-1x2x1",
			      "2x2x99999999999", "2x2x65", "2 x2x1", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(nbw_face_decomps_parse(bad[i], dc, NBW_MAX_DECOMPS, &n, err,
							sizeof(err)), -1);
		assert_non_null(strstr(err, "--faces-decomp"));
		assert_null(strchr(err, '\n'));
	}
	assert_int_equal(nbw_face_decomps_parse("2x2x1,1x1x2,2x2x2,1x1x1,0x2x1", dc,
						NBW_MAX_DECOMPS, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 5);
	struct nbw_probe_opts o;
	face_opts(&o, "16x12x10:2:8");
	memcpy(o.decomps, dc, sizeof(dc));
	o.ndecomps = n;
	const int devs[] = { 0, 1, 2, 3 };
	struct nbw_plan_caps caps = { .interface = plain_if, .face_interface = face_if };
	struct nbw_plan_devices d = { .devs = devs, .nd = 4 };
	struct nbw_plan p = { 0 };
	assert_int_equal(nbw_plan_series(&o, NBW_P2P, &caps, &d, &p), 0);
	/* (sync rect, sync pack, async rect) x 2 decompositions that run x (device + 2 host
	 * memories); async pack skipped by the backend. */
	assert_int_equal(count(&p, false, NBW_CONC_XDECOMP), 3 * 2 * 3);
	unsigned staged = 0, needs8 = 0, factor = 0, alone = 0;
	for (size_t i = 0; i < p.n; i++) {
		const struct nbw_series_plan *e = &p.v[i];
		if (e->kind->conc != NBW_CONC_XDECOMP)
			continue;
		needs8 += strstr(e->skip, "2x2x2 needs 8 devices; the API has 4") != NULL;
		factor += strstr(e->skip, "every factor must be at least 1") != NULL;
		alone += strstr(e->skip, "no neighbour") != NULL;
		if (e->skip[0])
			continue;
		assert_true(e->face.on);
		assert_int_equal(e->kind->dir, NBW_P2P);
		assert_int_equal(nbw_plan_points(e, &o), 1);
		assert_int_equal(e->set.nstreams, e->face.decomp[2] == 2 ? 2 : 8);
		assert_true(e->face.staged == (e->mem != NBW_HOSTMEM_NONE));
		staged += e->face.staged;
		assert_non_null(strstr(e->what, e->face.staged ? "host-staged" : "device"));
	}
	assert_int_equal(staged, 3 * 2 * 2);
	/* Each bad decomposition: 3 method-modes x 3 paths (the async pack, which the backend
	 * cannot copy, is one skipped series of its own). */
	assert_int_equal(needs8, 3 * 3);
	assert_int_equal(factor, 3 * 3);
	assert_int_equal(alone, 3 * 3);
	nbw_plan_free(&p);
	/* --devices naming three: 2x2x1 does not fit, said so. */
	d.nd = 3;
	d.named = true;
	o.ndecomps = 1;
	assert_int_equal(nbw_plan_series(&o, NBW_P2P, &caps, &d, &p), 0);
	assert_int_equal(count(&p, false, NBW_CONC_XDECOMP), 0);
	bool said = false;
	for (size_t i = 0; i < p.n; i++)
		said = said || strstr(p.v[i].skip, "2x2x1 needs 4 devices; --devices lists 3");
	assert_true(said);
	nbw_plan_free(&p);
}

/* The decomposition's exchanges run: every message checked byte by byte, device to device
 * and host-staged; the record carries the decomposition and the path and reads back. */
static void test_exec_decomp(void **state)
{
	(void)state;
	spill = skip_row = 0;
	json_t *all = run_faces_args(NBW_P2P, "probe --quick --mode sync --host-mem pinned "
					      "--reps 3 --faces 10x8x6:2:8 --faces-decomp "
					      "2x2x1,1x1x2,2x1x2");
	struct nbw_face_shape sh = shape("10x8x6:2:8");
	size_t i;
	json_t *j;
	unsigned n = 0, staged = 0;
	json_array_foreach(all, i, j) {
		struct nbw_measurement m;
		char err[256] = "";
		if (nbw_measurement_from_json(j, &m, err, sizeof(err)))
			fail_msg("does not read back: %s", err);
		if (m.conc != NBW_CONC_XDECOMP) {
			nbw_measurement_free(&m);
			continue;
		}
		n++;
		if (strcmp(m.verify_status, "passed"))
			fail_msg("%s", m.verify_detail);
		staged += m.face.staged;
		assert_true(m.face.decomp[0] >= 1);
		uint64_t x = nbw_face_bytes(&sh, NBW_FACE_X), y = nbw_face_bytes(&sh, NBW_FACE_Y),
			 z = nbw_face_bytes(&sh, NBW_FACE_Z);
		uint64_t want = m.face.decomp[2] == 1 ? 4 * x + 4 * y
				: m.face.decomp[0] == 1 ? 2 * z : 4 * x + 4 * z;
		assert_int_equal(nbw_face_rec_step_bytes(&m.face, m.nstreams), want);
		struct nbw_rv_meas rv;
		struct nbw_rv_face f;
		assert_true(nbw_rv_meas_read(NULL, j, &rv));
		assert_true(nbw_rv_face_read(&rv, &f));
		assert_string_equal(f.kind, "exchange-decomp");
		assert_string_equal(f.exchange, m.face.staged ? "host-staged" : "device");
		assert_memory_equal(f.decomp, m.face.decomp, sizeof(f.decomp));
		assert_int_equal(f.step_bytes, (long long)want);
		/* Written again from what was read: the same shape. */
		json_t *again = nbw_measurement_to_json(&m);
		assert_true(json_equal(json_object_get(again, "shape"), json_object_get(j, "shape")));
		json_decref(again);
		nbw_measurement_free(&m);
	}
	/* 3 decompositions x 2 methods x (device, host-staged pinned). */
	assert_int_equal(n, 12);
	assert_int_equal(staged, 6);
	json_decref(all);
	/* A host-staged rect hop that leaves a row out fails the destination's check. */
	skip_row = 1;
	all = run_faces_args(NBW_P2P, "probe --quick --mode sync --host-mem pinned --reps 3 "
				      "--faces 10x8x6:2:8 --faces-decomp 1x1x2");
	unsigned failed = 0;
	json_array_foreach(all, i, j) {
		json_t *sh2 = json_object_get(j, "shape");
		if (!json_object_get(sh2, "decomp") ||
		    strcmp(json_string_value(json_object_get(sh2, "method")), "rect"))
			continue;
		const char *st = json_string_value(
			json_object_get(json_object_get(j, "verification"), "status"));
		assert_string_equal(st, "failed");
		failed++;
	}
	assert_int_equal(failed, 2);
	json_decref(all);
	skip_row = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_parse),
		cmocka_unit_test(test_face_bytes),
		cmocka_unit_test(test_region_check),
		cmocka_unit_test(test_plan_faces),
		cmocka_unit_test(test_exchange_sets),
		cmocka_unit_test(test_exec_faces),
		cmocka_unit_test(test_exec_faces_wrong),
		cmocka_unit_test(test_decomp_sets),
		cmocka_unit_test(test_plan_decomp),
		cmocka_unit_test(test_exec_decomp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
