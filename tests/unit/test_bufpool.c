/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of probe/bufpool.c with an in-test allocator (malloc/free, counting calls). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/bufpool.h"

/* ---- test double of a backend's allocator ----------------------------------------------- */

struct fake {
	int allocs, frees;
	size_t live_bytes;
	bool fail_next;
};

static struct fake fk;

static int fake_alloc(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	if (fk.fail_next) {
		fk.fail_next = false;
		return -ENOMEM;
	}
	b->ptr = malloc(b->bytes ? b->bytes : 1);
	if (!b->ptr)
		return -ENOMEM;
	fk.allocs++;
	fk.live_bytes += b->bytes;
	return 0;
}

static void fake_free(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	assert_non_null(b->ptr);
	free(b->ptr);
	fk.frees++;
	assert_true(fk.live_bytes >= b->bytes);
	fk.live_bytes -= b->bytes;
}

static const struct nbw_backend_ops fake_ops = {
	.abi = NBW_PROBE_ABI,
	.name = "fake",
	.description = "allocator test double",
	.alloc = fake_alloc,
	.free = fake_free,
};

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* Every test ends with the pool destroyed: nothing may stay allocated. */
	assert_int_equal(fk.allocs, fk.frees);
	assert_int_equal(fk.live_bytes, 0);
	return 0;
}

static struct nbw_buf mk(enum nbw_loc loc, int dev, size_t bytes)
{
	struct nbw_buf b = { .loc = loc, .device = dev, .bytes = bytes, .ptr = NULL };
	return b;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_get_put(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 0);
	struct nbw_buf b = mk(NBW_LOC_HOST_PAGEABLE, 0, 4096);
	assert_int_equal(nbw_bufpool_get(&p, &b), 0);
	assert_non_null(b.ptr);
	assert_int_equal(fk.allocs, 1);
	memset(b.ptr, 0x5a, b.bytes); /* the whole requested size is usable */
	nbw_bufpool_put(&p, &b);
	assert_int_equal(fk.frees, 0); /* kept for later */
	nbw_bufpool_destroy(&p);
	assert_int_equal(fk.frees, 1);
}

static void test_reuse_smaller(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 0);
	struct nbw_buf a = mk(NBW_LOC_DEVICE, 1, 1 << 20);
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	void *first = a.ptr;
	nbw_bufpool_put(&p, &a);

	struct nbw_buf b = mk(NBW_LOC_DEVICE, 1, 1000);
	assert_int_equal(nbw_bufpool_get(&p, &b), 0);
	assert_ptr_equal(b.ptr, first);
	assert_int_equal(fk.allocs, 1);
	nbw_bufpool_put(&p, &b);

	/* Same size again: reused again. */
	struct nbw_buf c = mk(NBW_LOC_DEVICE, 1, 1 << 20);
	assert_int_equal(nbw_bufpool_get(&p, &c), 0);
	assert_ptr_equal(c.ptr, first);
	assert_int_equal(fk.allocs, 1);
	nbw_bufpool_put(&p, &c);
	nbw_bufpool_destroy(&p);
}

static void test_busy_not_shared(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 0);
	struct nbw_buf a = mk(NBW_LOC_HOST_PINNED, 0, 256);
	struct nbw_buf b = mk(NBW_LOC_HOST_PINNED, 0, 256);
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	assert_int_equal(nbw_bufpool_get(&p, &b), 0);
	assert_ptr_not_equal(a.ptr, b.ptr);
	assert_int_equal(fk.allocs, 2);
	nbw_bufpool_put(&p, &a);
	nbw_bufpool_put(&p, &b);
	/* Both idle now: two more gets reuse both, no allocation. */
	struct nbw_buf c = mk(NBW_LOC_HOST_PINNED, 0, 128);
	struct nbw_buf d = mk(NBW_LOC_HOST_PINNED, 0, 128);
	assert_int_equal(nbw_bufpool_get(&p, &c), 0);
	assert_int_equal(nbw_bufpool_get(&p, &d), 0);
	assert_ptr_not_equal(c.ptr, d.ptr);
	assert_true((c.ptr == a.ptr || c.ptr == b.ptr) && (d.ptr == a.ptr || d.ptr == b.ptr));
	assert_int_equal(fk.allocs, 2);
	nbw_bufpool_destroy(&p);
}

static void test_kind_matters(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 0);
	struct nbw_buf a = mk(NBW_LOC_DEVICE, 0, 4096);
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	nbw_bufpool_put(&p, &a);

	/* Another device: new buffer, the idle one of device 0 stays. */
	struct nbw_buf b = mk(NBW_LOC_DEVICE, 1, 1024);
	assert_int_equal(nbw_bufpool_get(&p, &b), 0);
	assert_ptr_not_equal(b.ptr, a.ptr);
	assert_int_equal(fk.allocs, 2);
	assert_int_equal(fk.frees, 0);

	/* Another location on the same device: new buffer. */
	struct nbw_buf c = mk(NBW_LOC_HOST_PINNED, 0, 1024);
	assert_int_equal(nbw_bufpool_get(&p, &c), 0);
	assert_ptr_not_equal(c.ptr, a.ptr);
	struct nbw_buf d = mk(NBW_LOC_HOST_PAGEABLE, 0, 1024);
	assert_int_equal(nbw_bufpool_get(&p, &d), 0);
	assert_ptr_not_equal(d.ptr, a.ptr);
	assert_int_equal(fk.allocs, 4);
	assert_int_equal(fk.frees, 0);

	/* The device 0 buffer is still there for its own kind. */
	struct nbw_buf e = mk(NBW_LOC_DEVICE, 0, 2048);
	assert_int_equal(nbw_bufpool_get(&p, &e), 0);
	assert_ptr_equal(e.ptr, a.ptr);
	assert_int_equal(fk.allocs, 4);

	nbw_bufpool_put(&p, &b);
	nbw_bufpool_put(&p, &c);
	nbw_bufpool_put(&p, &d);
	nbw_bufpool_put(&p, &e);
	nbw_bufpool_destroy(&p);
	assert_int_equal(fk.frees, 4);
}

static void test_grow_replaces_small(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 0);
	struct nbw_buf a = mk(NBW_LOC_DEVICE, 0, 1024);
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	nbw_bufpool_put(&p, &a);
	/* A larger request of the same kind drops the idle small buffer. */
	struct nbw_buf b = mk(NBW_LOC_DEVICE, 0, 8192);
	assert_int_equal(nbw_bufpool_get(&p, &b), 0);
	assert_int_equal(fk.allocs, 2);
	assert_int_equal(fk.frees, 1);
	assert_int_equal(fk.live_bytes, 8192);
	nbw_bufpool_put(&p, &b);
	nbw_bufpool_destroy(&p);
}

static void test_budget_on_get(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 3000);
	struct nbw_buf a = mk(NBW_LOC_HOST_PAGEABLE, 0, 2048);
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	nbw_bufpool_put(&p, &a);
	assert_int_equal(fk.frees, 0); /* 2048 <= 3000: kept */
	/* Another kind: 2048 + 2048 > 3000, so the idle buffer goes first. */
	struct nbw_buf b = mk(NBW_LOC_DEVICE, 0, 2048);
	assert_int_equal(nbw_bufpool_get(&p, &b), 0);
	assert_int_equal(fk.allocs, 2);
	assert_int_equal(fk.frees, 1);
	assert_int_equal(fk.live_bytes, 2048);
	nbw_bufpool_put(&p, &b);
	nbw_bufpool_destroy(&p);
}

static void test_budget_keeps_busy(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 3000);
	struct nbw_buf a = mk(NBW_LOC_HOST_PAGEABLE, 0, 2048);
	struct nbw_buf b = mk(NBW_LOC_DEVICE, 0, 2048);
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	/* Over budget, but a busy buffer is never taken away. */
	assert_int_equal(nbw_bufpool_get(&p, &b), 0);
	assert_int_equal(fk.allocs, 2);
	assert_int_equal(fk.frees, 0);
	memset(a.ptr, 1, a.bytes);
	memset(b.ptr, 2, b.bytes);
	/* Giving one back while over budget frees it at once. */
	nbw_bufpool_put(&p, &a);
	assert_int_equal(fk.frees, 1);
	nbw_bufpool_put(&p, &b);
	assert_int_equal(fk.frees, 1); /* 2048 <= 3000 now */
	nbw_bufpool_destroy(&p);
}

static void test_budget_on_put(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 1000);
	struct nbw_buf a = mk(NBW_LOC_DEVICE, 0, 4096);
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	nbw_bufpool_put(&p, &a);
	/* Larger than the whole budget: not kept. */
	assert_int_equal(fk.frees, 1);
	nbw_bufpool_destroy(&p);
	assert_int_equal(fk.frees, 1);
}

static void test_pool_full(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 0);
	struct nbw_buf b[NBW_POOL_SLOTS + 2];
	for (int i = 0; i < NBW_POOL_SLOTS + 2; i++) {
		b[i] = mk(NBW_LOC_HOST_PAGEABLE, i, 64);
		assert_int_equal(nbw_bufpool_get(&p, &b[i]), 0);
		assert_non_null(b[i].ptr);
	}
	assert_int_equal(fk.allocs, NBW_POOL_SLOTS + 2);
	/* The ones beyond the slots are freed when given back. */
	nbw_bufpool_put(&p, &b[NBW_POOL_SLOTS + 1]);
	nbw_bufpool_put(&p, &b[NBW_POOL_SLOTS]);
	assert_int_equal(fk.frees, 2);
	for (int i = 0; i < NBW_POOL_SLOTS; i++)
		nbw_bufpool_put(&p, &b[i]);
	assert_int_equal(fk.frees, 2);
	nbw_bufpool_destroy(&p);
	assert_int_equal(fk.frees, NBW_POOL_SLOTS + 2);
}

static void test_alloc_failure(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 0);
	struct nbw_buf a = mk(NBW_LOC_DEVICE, 0, 512);
	fk.fail_next = true;
	assert_int_equal(nbw_bufpool_get(&p, &a), -ENOMEM);
	assert_null(a.ptr);
	assert_int_equal(fk.allocs, 0);
	/* The pool is still usable afterwards. */
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	assert_non_null(a.ptr);
	nbw_bufpool_put(&p, &a);
	nbw_bufpool_destroy(&p);
}

static void test_destroy_busy(void **state)
{
	(void)state;
	struct nbw_bufpool p;
	nbw_bufpool_init(&p, &fake_ops, NULL, 0);
	struct nbw_buf a = mk(NBW_LOC_DEVICE, 0, 100);
	struct nbw_buf b = mk(NBW_LOC_DEVICE, 1, 200);
	struct nbw_buf c = mk(NBW_LOC_HOST_PINNED, 0, 300);
	assert_int_equal(nbw_bufpool_get(&p, &a), 0);
	assert_int_equal(nbw_bufpool_get(&p, &b), 0);
	assert_int_equal(nbw_bufpool_get(&p, &c), 0);
	nbw_bufpool_put(&p, &b);
	/* Destroy frees idle and busy buffers alike. */
	nbw_bufpool_destroy(&p);
	assert_int_equal(fk.allocs, 3);
	assert_int_equal(fk.frees, 3);
	/* A destroyed pool is empty; destroying again frees nothing twice. */
	nbw_bufpool_destroy(&p);
	assert_int_equal(fk.frees, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_put, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse_smaller, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_not_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kind_matters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grow_replaces_small, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_on_get, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_keeps_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_on_put, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_busy, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
