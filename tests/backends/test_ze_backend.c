/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of bw_native/ze_backend.c on the fake Level Zero loader (fake_ze.c):
 * - a copy submitted behind the host-signalled gate and never completed must be drained by
 *   unprepare() (its gate opened if release() never came, the copy waited for) before its
 *   command list and event are destroyed, and the next round must again start behind a
 *   closed gate;
 * - listing devices (open, device_count, device_info) creates no context, event pool,
 *   command list or allocation; the first buffer makes the driver's context, once;
 * - each copy runs on the engines meant for it: host copies on the main copy engine (the
 *   copy-only group of one queue), device-to-device copies on the link copy engines (a
 *   copy-only group of several queues) where the device has them, as on Data Center GPU
 *   Max, and the path and the versions say which group and queue;
 * - kernel mode runs the same append on the compute queue group (queue 0), the other modes on
 *   the copy group, and is refused where the device has no copy-only group (the copies run
 *   on the compute group already) or no compute group; chase is refused with its reason. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calllog.h"
#include "fake_ze.h"
#include "nodebw/face.h"
#include "nodebw/probe.h"

extern const struct nbw_backend_ops nbw_backend_ze;
static const struct nbw_backend_ops *ops = &nbw_backend_ze;

#define N 4096

/* One host-to-device stream per device: pinned source, device destination. */
struct stream {
	struct nbw_buf src, dst;
	struct nbw_xfer x;
};

struct fixture {
	struct nbw_backend *be;
	struct stream s[2];
};

static int setup(void **state)
{
	static struct fixture f;
	char why[NBW_REASON_LEN] = "";
	memset(&f, 0, sizeof(f));
	fake_ze_ndev = 2;
	fake_ze_reset();
	if (ops->open(&f.be, NULL, why, sizeof(why)) != 0)
		fail_msg("open: %s", why);
	for (int i = 0; i < 2; i++) {
		struct stream *s = &f.s[i];
		s->src = (struct nbw_buf){ .loc = NBW_LOC_HOST_PINNED, .device = i, .bytes = N };
		s->dst = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = i, .bytes = N };
		assert_int_equal(ops->alloc(f.be, &s->src), 0);
		assert_int_equal(ops->alloc(f.be, &s->dst), 0);
	}
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	for (int i = 0; i < 2; i++) {
		ops->free(f->be, &f->s[i].src);
		ops->free(f->be, &f->s[i].dst);
	}
	ops->close(f->be);
	return 0;
}

static void prepare(struct fixture *f, int i, unsigned char fill)
{
	struct stream *s = &f->s[i];
	memset(s->src.ptr, fill, N);
	memset(s->dst.ptr, 0, N);
	s->x = (struct nbw_xfer){ .dir = NBW_HTOD, .mode = NBW_MODE_ASYNC, .src = &s->src,
				  .dst = &s->dst, .bytes = N, .peer = NBW_PEER_NA,
				  .device_s = -1 };
	assert_int_equal(ops->prepare(f->be, &s->x), 0);
	assert_null(s->x.no_gate);
}

static bool copied(const struct stream *s)
{
	return memcmp(s->src.ptr, s->dst.ptr, N) == 0;
}

/* No copy waited forever, none was torn down while queued. */
static void assert_clean(void)
{
	assert_int_equal(fake_ze_hangs, 0);
	assert_int_equal(fake_ze_busy_destroys, 0);
	assert_int_equal(fake_ze_pending(), 0);
}

/* A full gated round on stream 0: the copy waits for release(), then completes. */
static void gated_round(struct fixture *f, unsigned char fill)
{
	prepare(f, 0, fill);
	assert_int_equal(ops->submit(f->be, &f->s[0].x), 0);
	assert_false(copied(&f->s[0]));   /* the gate is closed */
	assert_int_equal(ops->release(f->be), 0);
	assert_int_equal(ops->complete(f->be, &f->s[0].x), 0);
	assert_true(copied(&f->s[0]));
	assert_true(f->s[0].x.device_s > 0);
	ops->unprepare(f->be, &f->s[0].x);
	assert_clean();
}

static void test_gated_round(void **state)
{
	struct fixture *f = *state;
	gated_round(f, 0x11);
	gated_round(f, 0x22);
	assert_int_equal(calllog_count("zeEventQueryStatus"), 0); /* nothing to drain */
}

/* submit() and then unprepare(), with no release(): the gate is opened for the copy, the
 * copy finishes before its list is destroyed, and the gate is closed again. */
static void test_unprepare_unreleased(void **state)
{
	struct fixture *f = *state;
	prepare(f, 0, 0x33);
	assert_int_equal(ops->submit(f->be, &f->s[0].x), 0);
	assert_int_equal(fake_ze_pending(), 1);
	calllog_reset();
	ops->unprepare(f->be, &f->s[0].x);
	assert_null(f->s[0].x.priv);
	assert_clean();
	assert_true(copied(&f->s[0]));
	assert_true(calllog_before("zeEventHostSignal", "zeEventHostSynchronize"));
	assert_true(calllog_before("zeEventHostSynchronize", "zeEventHostReset"));
	assert_true(calllog_before("zeEventHostReset", "zeCommandListDestroy"));
	/* The next round is gated again. */
	gated_round(f, 0x44);
}

/* Two streams submitted, neither released: both drain. */
static void test_unprepare_two_unreleased(void **state)
{
	struct fixture *f = *state;
	prepare(f, 0, 0x55);
	prepare(f, 1, 0x66);
	assert_int_equal(ops->submit(f->be, &f->s[0].x), 0);
	assert_int_equal(ops->submit(f->be, &f->s[1].x), 0);
	assert_int_equal(fake_ze_pending(), 2);
	ops->unprepare(f->be, &f->s[1].x);
	ops->unprepare(f->be, &f->s[0].x);
	assert_clean();
	assert_true(copied(&f->s[0]));
	assert_true(copied(&f->s[1]));
	gated_round(f, 0x77);
}

/* Released but never completed (complete() was not called): unprepare() waits for the copy
 * and does not signal the gate a second time. */
static void test_unprepare_uncompleted(void **state)
{
	struct fixture *f = *state;
	prepare(f, 0, 0x88);
	assert_int_equal(ops->submit(f->be, &f->s[0].x), 0);
	calllog_reset();
	assert_int_equal(ops->release(f->be), 0);
	ops->unprepare(f->be, &f->s[0].x);
	assert_clean();
	assert_true(copied(&f->s[0]));
	assert_int_equal(calllog_count("zeEventHostSignal"), 1); /* release()'s own */
	assert_true(calllog_before("zeEventHostSynchronize", "zeCommandListDestroy"));
	gated_round(f, 0x99);
}

/* complete() of a copy that was never submitted is refused, not waited for. */
static void test_complete_unsubmitted(void **state)
{
	struct fixture *f = *state;
	prepare(f, 0, 0xaa);
	assert_int_not_equal(ops->complete(f->be, &f->s[0].x), 0);
	ops->unprepare(f->be, &f->s[0].x);
	assert_clean();
}

/* ---- what `nodebw list` costs: open(), device_count(), device_info() --------------------- */

static const char *const device_calls[] = {
	"zeContextCreate", "zeEventPoolCreate", "zeCommandListCreate", "zeMemAlloc",
};

static void test_list_is_cheap(void **state)
{
	(void)state;
	struct nbw_backend *be = NULL;
	char why[NBW_REASON_LEN] = "";
	fake_ze_ndev = 8;
	fake_ze_reset();
	assert_int_equal(ops->open(&be, NULL, why, sizeof(why)), 0);
	assert_int_equal(ops->device_count(be), 8);
	for (int d = 0; d < 8; d++) {
		struct nbw_device dev;
		char name[64];
		assert_int_equal(ops->device_info(be, d, &dev), 0);
		snprintf(name, sizeof(name), "fake Level Zero GPU %d", d);
		assert_string_equal(dev.name, name);
	}
	for (size_t i = 0; i < sizeof(device_calls) / sizeof(device_calls[0]); i++)
		if (calllog_count(device_calls[i]))
			fail_msg("listing 8 devices called %s: %s", device_calls[i], calllog_text());
	/* The first buffer makes the driver's context and gate, the second none. */
	struct nbw_buf b[2] = { { .loc = NBW_LOC_DEVICE, .device = 3, .bytes = N },
				{ .loc = NBW_LOC_HOST_PINNED, .device = 5, .bytes = N } };
	for (int i = 0; i < 2; i++)
		assert_int_equal(ops->alloc(be, &b[i]), 0);
	assert_int_equal(calllog_count("zeContextCreate"), 1);
	assert_int_equal(calllog_count("zeEventPoolCreate(2 events)"), 1);
	for (int i = 0; i < 2; i++)
		ops->free(be, &b[i]);
	ops->close(be);
}

/* ---- which engines a copy runs on --------------------------------------------------------- */

static struct nbw_backend *open_layout(enum fake_ze_layout layout, int ndev)
{
	struct nbw_backend *be = NULL;
	char why[NBW_REASON_LEN] = "";
	fake_ze_reset();
	fake_ze_layout = layout;
	fake_ze_ndev = ndev;
	if (ops->open(&be, NULL, why, sizeof(why)) != 0)
		fail_msg("open: %s", why);
	return be;
}

/* A sync copy from (ls, ds) to (ld, dd): its command list is made on the queue \p want
 * names ("dev D, ordinal O, index I"), and the copy arrives. */
static void expect_queue(struct nbw_backend *be, enum nbw_dir dir, enum nbw_loc ls, int ds,
			 enum nbw_loc ld, int dd, const char *want)
{
	struct nbw_buf a = { .loc = ls, .device = ds, .bytes = N };
	struct nbw_buf b = { .loc = ld, .device = dd, .bytes = N };
	char call[96];
	assert_int_equal(ops->alloc(be, &a), 0);
	assert_int_equal(ops->alloc(be, &b), 0);
	memset(a.ptr, 0x5a, N);
	memset(b.ptr, 0, N);
	struct nbw_xfer x = { .dir = dir, .mode = NBW_MODE_SYNC, .src = &a, .dst = &b,
			      .bytes = N, .peer = NBW_PEER_NA, .device_s = -1 };
	calllog_reset();
	assert_int_equal(ops->prepare(be, &x), 0);
	snprintf(call, sizeof(call), "zeCommandListCreateImmediate(%s)", want);
	if (calllog_count(call) != 1)
		fail_msg("expected %s, got: %s", call, calllog_text());
	assert_int_equal(ops->transfer(be, &x), 0);
	assert_memory_equal(a.ptr, b.ptr, N);
	ops->unprepare(be, &x);
	ops->free(be, &a);
	ops->free(be, &b);
}

static void expect_text(const char *text, const char *has)
{
	if (!strstr(text, has))
		fail_msg("'%s' does not say '%s'", text, has);
}

static void test_engines_pvc(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_PVC, 3);
	const enum nbw_loc H = NBW_LOC_HOST_PINNED, D = NBW_LOC_DEVICE;
	/* host copies: the main copy engine (group 1, one queue) */
	expect_queue(be, NBW_HTOD, H, 0, D, 0, "dev 0, ordinal 1, index 0");
	expect_queue(be, NBW_DTOH, D, 2, H, 2, "dev 2, ordinal 1, index 0");
	expect_queue(be, NBW_HTOD, NBW_LOC_HOST_PAGEABLE, -1, D, 1, "dev 1, ordinal 1, index 0");
	/* device to device: the source's link copy engines (group 2, 7 queues), queue = dst */
	expect_queue(be, NBW_P2P, D, 0, D, 1, "dev 0, ordinal 2, index 1");
	expect_queue(be, NBW_P2P, D, 0, D, 2, "dev 0, ordinal 2, index 2");
	expect_queue(be, NBW_P2P, D, 2, D, 0, "dev 2, ordinal 2, index 0");
	expect_queue(be, NBW_P2P, D, 1, D, 1, "dev 1, ordinal 2, index 1");
	/* write()/read() stay on the main copy engine */
	struct nbw_buf b = { .loc = D, .device = 2, .bytes = N };
	unsigned char host[N] = { 0 };
	assert_int_equal(ops->alloc(be, &b), 0);
	calllog_reset();
	assert_int_equal(ops->write(be, &b, host, N), 0);
	assert_int_equal(calllog_count("zeCommandListCreateImmediate(dev 2, ordinal 1, index 0)"),
			 1);
	ops->free(be, &b);
	/* recorded: per pair in the path, per device in the versions, the rule in interface */
	expect_text(ops->p2p_path(be, 0, 1),
		    "on device 0's link copy engines: queue group ordinal 2 (7 "
		    "queues), queue 1");
	expect_text(ops->p2p_path(be, 1, 1), "same-GPU copy in device memory, not a peer link "
					     "(on device 1's link copy engines: queue group "
					     "ordinal 2 (7 queues), queue 1)");
	char v[4096] = "", why[NBW_REASON_LEN];
	ops->versions(be, v, sizeof(v));
	expect_text(v, "device0_queue_group=ordinal 1 (1 queue), copy-only: main copy engine, "
		       "queue 0\n");
	expect_text(v, "device2_p2p_queue_group=ordinal 2 (7 queues), copy-only: link copy "
		       "engines, queue = destination mod 7\n");
	expect_text(ops->interface(NBW_P2P, NBW_MODE_SYNC, why, sizeof(why)), "link copy engines");
	expect_text(ops->interface(NBW_HTOD, NBW_MODE_ASYNC, why, sizeof(why)),
		    "main copy engine");
	ops->close(be);
}

/* The link group listed before the main one: picked by their queues, not their order. */
static void test_engines_pvc_link_first(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_PVC_LINK_FIRST, 2);
	const enum nbw_loc H = NBW_LOC_HOST_PINNED, D = NBW_LOC_DEVICE;
	expect_queue(be, NBW_HTOD, H, 1, D, 1, "dev 1, ordinal 2, index 0");
	expect_queue(be, NBW_P2P, D, 1, D, 0, "dev 1, ordinal 1, index 0");
	expect_queue(be, NBW_P2P, D, 0, D, 1, "dev 0, ordinal 1, index 1");
	ops->close(be);
}

/* One copy-only group: every copy on it, queue 0; the path says there are no link engines. */
static void test_engines_one_copy_group(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_ONE_COPY_GROUP, 2);
	const enum nbw_loc H = NBW_LOC_HOST_PINNED, D = NBW_LOC_DEVICE;
	expect_queue(be, NBW_DTOH, D, 1, H, 1, "dev 1, ordinal 0, index 0");
	expect_queue(be, NBW_P2P, D, 0, D, 1, "dev 0, ordinal 0, index 0");
	expect_text(ops->p2p_path(be, 0, 1),
		    "on device 0's main copy engine: queue group ordinal 0 (1 queue), "
		    "queue 0; the device has no link copy engines");
	char v[4096] = "";
	ops->versions(be, v, sizeof(v));
	expect_text(v, "device1_p2p_queue_group=ordinal 0, queue 0 (no link copy engines)\n");
	ops->close(be);
}

/* No copy-only group at all: the first compute group, queue 0, said in the path. */
static void test_engines_compute_only(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_COMPUTE_ONLY, 2);
	const enum nbw_loc H = NBW_LOC_HOST_PINNED, D = NBW_LOC_DEVICE;
	expect_queue(be, NBW_HTOD, H, 0, D, 0, "dev 0, ordinal 0, index 0");
	expect_queue(be, NBW_P2P, D, 1, D, 0, "dev 1, ordinal 0, index 0");
	expect_text(ops->p2p_path(be, 1, 0), "on device 1's compute engine (no "
					     "copy-only queue group): queue group ordinal 0 (2 "
					     "queues), queue 0");
	ops->close(be);
}

/* A copy of mode \p mode from (ls, ds) to (ld, dd): its bytes arrive, its command list is on
 * ordinal \p ord, and the copy itself was appended to a list of that ordinal. */
static void expect_mode_ordinal(struct nbw_backend *be, enum nbw_mode mode, enum nbw_dir dir,
				enum nbw_loc ls, int ds, enum nbw_loc ld, int dd, unsigned ord)
{
	struct nbw_buf a = { .loc = ls, .device = ds, .bytes = N };
	struct nbw_buf b = { .loc = ld, .device = dd, .bytes = N };
	char call[96];
	assert_int_equal(ops->alloc(be, &a), 0);
	assert_int_equal(ops->alloc(be, &b), 0);
	for (size_t i = 0; i < N; i++)
		((unsigned char *)a.ptr)[i] = (unsigned char)(i * 13 + mode);
	memset(b.ptr, 0, N);
	struct nbw_xfer x = { .dir = dir, .mode = mode, .src = &a, .dst = &b, .bytes = N,
			      .peer = NBW_PEER_NA, .device_s = -1 };
	calllog_reset();
	assert_int_equal(ops->prepare(be, &x), 0);
	assert_int_equal(ops->transfer(be, &x), 0);
	snprintf(call, sizeof(call), "ordinal %u, index ", ord);
	if (calllog_count("zeCommandListCreateImmediate(") != 1 || calllog_count(call) != 1)
		fail_msg("expected one list on %s: %s", call, calllog_text());
	snprintf(call, sizeof(call), "zeCommandListAppendMemoryCopy(dev %d, wait 0, ordinal %u)",
		 dir == NBW_HTOD ? dd : ds, ord);
	if (calllog_count(call) != 1)
		fail_msg("expected %s: %s", call, calllog_text());
	assert_memory_equal(a.ptr, b.ptr, N);
	if (mode != NBW_MODE_SYNC)
		assert_true(x.device_s >= 0);
	ops->unprepare(be, &x);
	ops->free(be, &a);
	ops->free(be, &b);
}

/* Kernel mode on the compute group (ordinal 1), sync and async on the copy group (ordinal 0),
 * every direction; the interface, versions and supports() say so. */
static void test_kernel_mode_compute_group(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_COPY_AND_COMPUTE, 2);
	const enum nbw_loc H = NBW_LOC_HOST_PINNED, D = NBW_LOC_DEVICE;
	char why[NBW_REASON_LEN] = "";
	for (int m = 0; m < 3; m++) {
		enum nbw_mode mode = m == 0 ? NBW_MODE_SYNC : m == 1 ? NBW_MODE_ASYNC : NBW_MODE_KERNEL;
		unsigned ord = mode == NBW_MODE_KERNEL ? 1 : 0;
		expect_mode_ordinal(be, mode, NBW_HTOD, H, 0, D, 0, ord);
		expect_mode_ordinal(be, mode, NBW_DTOH, D, 1, H, 1, ord);
		expect_mode_ordinal(be, mode, NBW_HTOD, NBW_LOC_HOST_PAGEABLE, -1, D, 1, ord);
		expect_mode_ordinal(be, mode, NBW_P2P, D, 0, D, 1, ord);
		expect_mode_ordinal(be, mode, NBW_P2P, D, 1, D, 1, ord);
	}
	for (int d = 0; d < NBW_DIR_COUNT; d++) {
		const char *t = ops->interface((enum nbw_dir)d, NBW_MODE_KERNEL, why, sizeof(why));
		assert_non_null(t);
		expect_text(t, "on the compute queue group (ordinal 1), queue 0, beside the "
			       "copy-engine group of the other modes");
		assert_true(strlen(t) < 160);
		assert_int_equal(ops->supports(be, (enum nbw_dir)d, NBW_MODE_KERNEL,
					       d == NBW_P2P ? NBW_HOSTMEM_NONE : NBW_HOSTMEM_PINNED,
					       why, sizeof(why)), 0);
	}
	char v[4096] = "";
	ops->versions(be, v, sizeof(v));
	expect_text(v, "kernel_queue_group=ordinal 1, queue 0 on every device\n");
	expect_text(v, "device1_queue_group=ordinal 0 (1 queue), copy-only");
	ops->close(be);
}

/* Kernel mode where it would measure the copies again or has no compute group: refused by
 * supports() with the reason, and by prepare() without making a command list. */
static void expect_kernel_refused(enum fake_ze_layout layout, const char *reason_has)
{
	struct nbw_backend *be = open_layout(layout, 2);
	char why[NBW_REASON_LEN] = "";
	assert_int_equal(ops->supports(be, NBW_HTOD, NBW_MODE_KERNEL, NBW_HOSTMEM_PINNED, why,
				       sizeof(why)), -1);
	expect_text(why, reason_has);
	struct nbw_buf a = { .loc = NBW_LOC_HOST_PINNED, .device = 0, .bytes = N };
	struct nbw_buf b = { .loc = NBW_LOC_DEVICE, .device = 0, .bytes = N };
	assert_int_equal(ops->alloc(be, &a), 0);
	assert_int_equal(ops->alloc(be, &b), 0);
	struct nbw_xfer x = { .dir = NBW_HTOD, .mode = NBW_MODE_KERNEL, .src = &a, .dst = &b,
			      .bytes = N, .peer = NBW_PEER_NA, .device_s = -1 };
	calllog_reset();
	assert_int_not_equal(ops->prepare(be, &x), 0);
	assert_null(x.priv);
	expect_text(ops->last_error(be), reason_has);
	assert_int_equal(calllog_count("zeCommandListCreateImmediate"), 0);
	char v[4096] = "";
	ops->versions(be, v, sizeof(v));
	expect_text(v, "kernel_queue_group=none: kernel mode: device 0");
	ops->free(be, &a);
	ops->free(be, &b);
	ops->close(be);
}

static void test_kernel_mode_refused(void **state)
{
	(void)state;
	expect_kernel_refused(FAKE_ZE_COMPUTE_ONLY,
			      "has no copy-only queue group, so its sync and async copies run on "
			      "the compute queue group (ordinal 0) already");
	expect_kernel_refused(FAKE_ZE_ONE_COPY_GROUP, "has no compute queue group");
}

/* PVC: the compute group is ordinal 0, the copies stay on the copy engines. */
static void test_kernel_mode_pvc(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_PVC, 2);
	const enum nbw_loc H = NBW_LOC_HOST_PINNED, D = NBW_LOC_DEVICE;
	expect_mode_ordinal(be, NBW_MODE_KERNEL, NBW_HTOD, H, 1, D, 1, 0);
	expect_mode_ordinal(be, NBW_MODE_KERNEL, NBW_P2P, D, 0, D, 1, 0);
	expect_mode_ordinal(be, NBW_MODE_ASYNC, NBW_P2P, D, 0, D, 1, 2);
	ops->close(be);
}

/* Chase: no SPIR-V kernel, refused with that reason for every direction. */
static void test_chase_refused(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_PVC, 2);
	char why[NBW_REASON_LEN] = "";
	for (int d = 0; d < NBW_DIR_COUNT; d++) {
		why[0] = 0;
		assert_null(ops->interface((enum nbw_dir)d, NBW_MODE_CHASE, why, sizeof(why)));
		expect_text(why, "SPIR-V");
		why[0] = 0;
		assert_int_equal(ops->supports(be, (enum nbw_dir)d, NBW_MODE_CHASE,
					       NBW_HOSTMEM_PINNED, why, sizeof(why)), -1);
		expect_text(why, "which nodebw does not ship");
	}
	ops->close(be);
}

/* The core keeps interface()'s pointer for every planned series: each (direction, mode) has
 * its own lasting text, short enough for the 160 bytes a measurement keeps. */
static void test_interface_texts_last(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_PVC, 2);
	const char *t[NBW_DIR_COUNT][2];
	char copy[NBW_DIR_COUNT][2][256], why[NBW_REASON_LEN];
	for (int d = 0; d < NBW_DIR_COUNT; d++)
		for (int m = 0; m < 2; m++) {
			t[d][m] = ops->interface((enum nbw_dir)d, (enum nbw_mode)m, why, sizeof(why));
			assert_non_null(t[d][m]);
			assert_true(strlen(t[d][m]) < 160);
			snprintf(copy[d][m], sizeof(copy[d][m]), "%s", t[d][m]);
		}
	for (int d = 0; d < NBW_DIR_COUNT; d++)
		for (int m = 0; m < 2; m++)
			assert_string_equal(t[d][m], copy[d][m]);
	/* (an earlier test's device without a copy group adds "else a compute group") */
	expect_text(t[NBW_HTOD][1], "(main copy engine");
	expect_text(t[NBW_P2P][0], "(source's link copy engines, else main");
	ops->close(be);
}

/* The core keeps 4 KiB of a backend's versions: 8 PVC-like devices take under half of it, so
 * 16 (8 GPUs of two tiles each) fit too. */
static void test_versions_fit(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_PVC, 8);
	char v[8192] = "";
	ops->versions(be, v, sizeof(v));
	expect_text(v, "device7_timer=");
	printf("versions %zu\n", strlen(v));
	assert_true(2 * strlen(v) < 4096);
	ops->close(be);
}

/* Face copies through zeCommandListAppendMemoryCopyRegion, sync and async, every face, HtoD
 * and device to device: the destination holds the face, the rest untouched. */
static void test_face_region(void **state)
{
	(void)state;
	struct nbw_backend *be = open_layout(FAKE_ZE_PVC, 2);
	char why[NBW_REASON_LEN] = "", where[32];
	struct nbw_face_shape sh;
	assert_int_equal(nbw_face_shape_parse("10x7x6:1:8", &sh, why, sizeof(why)), 0);
	size_t box = (size_t)nbw_face_box_bytes(&sh);
	unsigned char *want = malloc(box);
	assert_non_null(want);
	for (size_t i = 0; i < box; i++)
		want[i] = (unsigned char)(i * 13u + 5u);
	for (int p2p = 0; p2p < 2; p2p++)
		for (int mode = 0; mode < 2; mode++)
			for (int face = 0; face < NBW_FACE_COUNT; face++) {
				struct nbw_region r;
				nbw_face_region(&sh, (enum nbw_face)face, true, NBW_FACE_RECT, &r);
				struct nbw_buf a = { .loc = p2p ? NBW_LOC_DEVICE : NBW_LOC_HOST_PINNED,
						     .device = 0, .bytes = box };
				struct nbw_buf b = { .loc = NBW_LOC_DEVICE, .device = p2p, .bytes = box };
				assert_int_equal(ops->alloc(be, &a), 0);
				assert_int_equal(ops->alloc(be, &b), 0);
				memcpy(a.ptr, want, box); /* the fake's device memory is host memory */
				memset(b.ptr, 0xA5, box);
				struct nbw_xfer x = { .dir = p2p ? NBW_P2P : NBW_HTOD,
						      .mode = mode ? NBW_MODE_ASYNC : NBW_MODE_SYNC,
						      .src = &a, .dst = &b,
						      .bytes = (size_t)nbw_region_bytes(&r),
						      .peer = NBW_PEER_NA, .device_s = -1,
						      .region = &r };
				assert_int_equal(ops->prepare(be, &x), 0);
				calllog_reset();
				assert_int_equal(ops->copy_rect(be, &x), 0);
				assert_int_equal(calllog_count("zeCommandListAppendMemoryCopyRegion"), 1);
				assert_int_equal(nbw_region_check(want, b.ptr, &r, 0xA5, where,
								  sizeof(where)),
						 box);
				ops->unprepare(be, &x);
				ops->free(be, &a);
				ops->free(be, &b);
			}
	free(want);
	assert_null(ops->face_interface(be, NBW_P2P, NBW_FACE_PACK, NBW_MODE_SYNC, why,
					sizeof(why)));
	assert_non_null(strstr(why, "SPIR-V or native modules (zeModuleCreate), of which "
				    "nodebw ships none"));
	ops->close(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gated_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unprepare_unreleased, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unprepare_two_unreleased, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unprepare_uncompleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_complete_unsubmitted, setup, teardown),
		cmocka_unit_test(test_list_is_cheap),
		cmocka_unit_test(test_face_region),
		cmocka_unit_test(test_engines_pvc),
		cmocka_unit_test(test_engines_pvc_link_first),
		cmocka_unit_test(test_engines_one_copy_group),
		cmocka_unit_test(test_engines_compute_only),
		cmocka_unit_test(test_kernel_mode_compute_group),
		cmocka_unit_test(test_kernel_mode_refused),
		cmocka_unit_test(test_kernel_mode_pvc),
		cmocka_unit_test(test_chase_refused),
		cmocka_unit_test(test_interface_texts_last),
		cmocka_unit_test(test_versions_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
