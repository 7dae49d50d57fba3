/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of bw_native/ze_backend.c on the fake Level Zero loader (fake_ze.c):
 * - a copy submitted behind the host-signalled gate and never completed must be drained by
 *   unprepare() (its gate opened if release() never came, the copy waited for) before its
 *   command list and event are destroyed, and the next round must again start behind a
 *   closed gate;
 * - listing devices (open, device_count, device_info) creates no context, event pool,
 *   command list or allocation; the first buffer makes the driver's context, once. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gated_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unprepare_unreleased, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unprepare_two_unreleased, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unprepare_uncompleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_complete_unsubmitted, setup, teardown),
		cmocka_unit_test(test_list_is_cheap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
