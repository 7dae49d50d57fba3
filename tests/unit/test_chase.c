/* SPDX-License-Identifier: BSD-3-Clause */
/* The chase mode's chain (probe/chase.c): one random cycle through every slot from slot 0,
 * the core's walk, the final-index check and the loads per transfer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/chase.h"
#include "nodebw/plan.h"

#define WORDS (NBW_CHASE_STRIDE / sizeof(uint64_t))

static uint64_t *chain_of(uint64_t bytes, uint64_t seed)
{
	uint64_t *c = malloc(bytes);
	assert_non_null(c);
	assert_int_equal(nbw_chase_build(c, bytes, seed), 0);
	return c;
}

/* Every slot once, start 0, back to 0 after exactly slots steps; indices at slot starts. */
static void single_cycle(void **state)
{
	(void)state;
	uint64_t sizes[] = { 128, 4096, 64 * 1000, 1 << 20 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint64_t bytes = sizes[k], n = nbw_chase_slots(bytes);
		uint64_t *c = chain_of(bytes, 7 + k);
		unsigned char *seen = calloc(n, 1);
		assert_non_null(seen);
		uint64_t i = 0;
		for (uint64_t step = 0; step < n; step++) {
			assert_int_equal(i % WORDS, 0);
			assert_true(i / WORDS < n);
			assert_false(seen[i / WORDS]);
			seen[i / WORDS] = 1;
			i = c[i];
		}
		assert_int_equal(i, 0); /* back at the start after every slot */
		for (uint64_t s = 0; s < n; s++)
			assert_true(seen[s]);
		assert_true(nbw_chase_is_single_cycle(c, bytes));
		assert_int_equal(nbw_chase_walk(c, bytes, n), 0);
		assert_int_equal(nbw_chase_walk(c, bytes, 0), 0);
		free(seen);
		free(c);
	}
}

/* Random: different seeds give different orders, the same seed the same one, and the
 * order is not the slots' own (what a prefetcher would follow). */
static void random_order(void **state)
{
	(void)state;
	uint64_t bytes = 4096 * 16;
	uint64_t *a = chain_of(bytes, 1), *b = chain_of(bytes, 2), *a2 = chain_of(bytes, 1);
	assert_memory_equal(a, a2, bytes);
	assert_memory_not_equal(a, b, bytes);
	uint64_t sequential = 0, n = nbw_chase_slots(bytes);
	for (uint64_t s = 0; s < n; s++)
		sequential += a[s * WORDS] == ((s + 1) % n) * WORDS;
	assert_true(sequential < n / 8);
	free(a);
	free(b);
	free(a2);
}

/* A damaged chain is no single cycle; the builder refuses a set of fewer than two slots. */
static void damaged_and_refused(void **state)
{
	(void)state;
	uint64_t bytes = 4096;
	uint64_t *c = chain_of(bytes, 3);
	uint64_t first = c[0];
	c[first] = 0; /* a two-slot cycle 0 -> first -> 0 */
	assert_false(nbw_chase_is_single_cycle(c, bytes));
	c[first] = bytes; /* leaves the buffer */
	assert_int_equal(nbw_chase_walk(c, bytes, 2), UINT64_MAX);
	free(c);
	uint64_t small[8];
	assert_int_equal(nbw_chase_build(small, 64, 1), -1);
	assert_int_equal(nbw_chase_build(small, 100, 1), -1);
}

/* The final-index check: the walk's index passes, any other fails with what differs. */
static void final_index_check(void **state)
{
	(void)state;
	uint64_t bytes = 8192;
	uint64_t *c = chain_of(bytes, 5);
	uint64_t want = nbw_chase_walk(c, bytes, 1000);
	char why[120] = "";
	assert_true(nbw_chase_check(want, want, why, sizeof(why)));
	/* One load short, one too many, the poison: all fail. */
	uint64_t wrong[] = { nbw_chase_walk(c, bytes, 999), nbw_chase_walk(c, bytes, 1001),
			     0xA5A5A5A5A5A5A5A5ull };
	for (size_t k = 0; k < 3; k++) {
		assert_false(nbw_chase_check(wrong[k], want, why, sizeof(why)));
		assert_non_null(strstr(why, "the core's walk"));
	}
	free(c);
}

static void loads_per_transfer(void **state)
{
	(void)state;
	/* Too short: doubled. */
	assert_int_equal(nbw_chase_next_loads(1024, 1e-6, 1 << 20), 2048);
	/* Long enough, the whole cycle affordable: one cycle. */
	assert_int_equal(nbw_chase_next_loads(1 << 16, 2e-3, 1 << 17), 1 << 17);
	/* Long enough, the cycle too slow: stays (a prefix). */
	assert_int_equal(nbw_chase_next_loads(1024, 1e-3, 1 << 20), 1024);
	/* Long enough and past the cycle: stays. */
	assert_int_equal(nbw_chase_next_loads(4096, 2e-3, 64), 4096);
	assert_int_equal(nbw_chase_next_loads(NBW_CHASE_MAX_LOADS, 1e-9, 2), NBW_CHASE_MAX_LOADS);
	/* Working sets: whole 4 KiB grains. */
	assert_int_equal(nbw_chase_working_set(1), 4096);
	assert_int_equal(nbw_chase_working_set(4097), 8192);
	assert_int_equal(nbw_chase_working_set(8u << 20), 8u << 20);
}

static const char *any_call(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t len)
{
	(void)dir;
	(void)mode;
	(void)why;
	(void)len;
	return "x";
}

/* The planner: a chase runs on one path at a time (single), two working sets on every
 * set; the concurrent kinds are skips with the reason. */
static void planned_single_two_sizes(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	memset(&o, 0, sizeof(o));
	o.modes[NBW_MODE_CHASE] = true;
	o.hostmem[NBW_HOSTMEM_PAGEABLE] = true;
	o.threads[0] = o.threads[1] = o.threads[2] = true;
	o.bind[NBW_BIND_LOCAL] = true;
	const int devs[] = { 0, 1, 2, 3 };
	struct nbw_plan_devices d = { .devs = devs, .nd = 4 };
	struct nbw_plan_caps caps = { .interface = any_call };
	for (int dir = 0; dir < NBW_DIR_COUNT; dir++) {
		struct nbw_plan p = { 0 };
		assert_int_equal(nbw_plan_series(&o, (enum nbw_dir)dir, &caps, &d, &p), 0);
		size_t run = 0, skipped = 0;
		for (size_t i = 0; i < p.n; i++) {
			if (p.v[i].skip[0]) {
				skipped++;
				assert_non_null(strstr(p.v[i].skip, "one thread"));
				continue;
			}
			run++;
			assert_int_equal(p.v[i].set.conc, NBW_CONC_SINGLE);
			assert_true(p.v[i].set.matrix_only);
		}
		assert_int_equal(run, dir == NBW_P2P ? 12 : 4);
		assert_true(skipped >= 2);
		assert_int_equal(nbw_plan_measurements(&p, 10), 2 * run);
		nbw_plan_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(single_cycle),
		cmocka_unit_test(random_order),
		cmocka_unit_test(damaged_and_refused),
		cmocka_unit_test(final_index_check),
		cmocka_unit_test(loads_per_transfer),
		cmocka_unit_test(planned_single_two_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
