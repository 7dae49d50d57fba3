/* SPDX-License-Identifier: BSD-3-Clause */
/* Peer access is set on both directions of a pair (nbw_peer_access_pair). A small backend
 * table that only records the calls stands in for CUDA/HIP here: what is tested is the
 * core's sequence of calls, which needs no device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/backends.h"

struct nbw_backend {
	int calls;
	int src[8], dst[8];
	bool enable[8];
	int fail_at;        /* call index that fails, -1 for none */
	/* peer state of a 3-device machine: state[a][b] = a may access b */
	bool state[3][3];
};

static int rec_peer_access(struct nbw_backend *be, int src, int dst, bool enable, char *why,
			   size_t whylen)
{
	int k = be->calls++;
	if (k < 8) {
		be->src[k] = src;
		be->dst[k] = dst;
		be->enable[k] = enable;
	}
	if (k == be->fail_at) {
		snprintf(why, whylen, "refused %d->%d", src, dst);
		return -1;
	}
	be->state[src][dst] = enable;
	return 0;
}

static const struct nbw_backend_ops rec_ops = {
	.abi = NBW_PROBE_ABI, .name = "rec", .peer_access = rec_peer_access,
};

static void test_both_directions(void **state)
{
	(void)state;
	struct nbw_backend be = {.fail_at = -1};
	char why[64] = "";
	assert_int_equal(nbw_peer_access_pair(&rec_ops, &be, 0, 2, true, why, sizeof(why)), 0);
	assert_int_equal(be.calls, 2);
	assert_int_equal(be.src[0], 0);
	assert_int_equal(be.dst[0], 2);
	assert_int_equal(be.src[1], 2);
	assert_int_equal(be.dst[1], 0);
	assert_true(be.state[0][2] && be.state[2][0]);
}

/* The sequence of the bug: a bidirectional "on" series, then a unidirectional "off" series
 * of the same pair must leave neither direction enabled. */
static void test_on_then_off_leaves_nothing_enabled(void **state)
{
	(void)state;
	struct nbw_backend be = {.fail_at = -1};
	char why[64];
	assert_int_equal(nbw_peer_access_pair(&rec_ops, &be, 0, 1, true, why, sizeof(why)), 0);
	assert_int_equal(nbw_peer_access_pair(&rec_ops, &be, 1, 0, true, why, sizeof(why)), 0);
	assert_true(be.state[0][1] && be.state[1][0]);
	assert_int_equal(nbw_peer_access_pair(&rec_ops, &be, 0, 1, false, why, sizeof(why)), 0);
	assert_false(be.state[0][1]);
	assert_false(be.state[1][0]);
}

static void test_failure_and_trivial_cases(void **state)
{
	(void)state;
	struct nbw_backend be = {.fail_at = 1};
	char why[64] = "";
	assert_int_equal(nbw_peer_access_pair(&rec_ops, &be, 1, 2, true, why, sizeof(why)), -1);
	assert_string_equal(why, "refused 2->1");
	/* same device: no call */
	struct nbw_backend be2 = {.fail_at = -1};
	assert_int_equal(nbw_peer_access_pair(&rec_ops, &be2, 1, 1, true, why, sizeof(why)), 0);
	assert_int_equal(be2.calls, 0);
	/* an API without peer control: nothing to do */
	const struct nbw_backend_ops none = {.abi = NBW_PROBE_ABI, .name = "none"};
	assert_int_equal(nbw_peer_access_pair(&none, &be2, 0, 1, false, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_directions),
		cmocka_unit_test(test_on_then_off_leaves_nothing_enabled),
		cmocka_unit_test(test_failure_and_trivial_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
