/* SPDX-License-Identifier: BSD-3-Clause */
/* The probe plan's device sets (probe/plan.c), without any backend: every device for
 * HtoD/DtoH, every ordered pair (single) and unordered pair (bidir) for P2P, all devices at
 * once, the ring and all-to-all (every ordered pair at once), the first set (of each link kind) with the whole sweep and the others at
 * two sizes unless the user named the devices; and the series plan of a made-up backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/plan.h"

#define MAXS 64

static size_t sets(enum nbw_dir dir, enum nbw_threads t, const int *devs, int nd, bool named,
		   struct nbw_plan_set *out, size_t max)
{
	struct nbw_plan_devices d = { .devs = devs, .nd = nd, .named = named };
	return nbw_plan_sets(nbw_series_kind_of(dir, t), &d, out, max);
}

static void test_htod_each_device(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	static struct nbw_plan_set s[MAXS];
	size_t n = sets(NBW_HTOD, NBW_THREADS_1, devs, 4, false, s, MAXS);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].nstreams, 1);
		assert_int_equal(s[i].conc, NBW_CONC_SINGLE);
		assert_int_equal(s[i].src[0], -1);
		assert_int_equal(s[i].dst[0], (int)i);
		assert_int_equal(s[i].matrix_only, i > 0); /* device 0: the whole sweep */
	}
	n = sets(NBW_DTOH, NBW_THREADS_1, devs, 4, false, s, MAXS);
	assert_int_equal(n, 4);
	assert_int_equal(s[2].src[0], 2);
	assert_int_equal(s[2].dst[0], -1);
}

static void test_dual_first_two(void **state)
{
	(void)state;
	const int devs[] = {2, 0, 1};
	static struct nbw_plan_set s[MAXS];
	size_t n = sets(NBW_HTOD, NBW_THREADS_2, devs, 3, true, s, MAXS);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].conc, NBW_CONC_DUAL);
	assert_int_equal(s[0].dst[0], 2);
	assert_int_equal(s[0].dst[1], 0);
	assert_int_equal(sets(NBW_DTOH, NBW_THREADS_2, devs, 1, true, s, MAXS), 0);
}

static void test_p2p_every_ordered_pair(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	static struct nbw_plan_set s[MAXS];
	size_t n = sets(NBW_P2P, NBW_THREADS_1, devs, 4, false, s, MAXS);
	assert_int_equal(n, 12);
	bool seen[4][4] = {{false}};
	for (size_t i = 0; i < n; i++) {
		assert_int_not_equal(s[i].src[0], s[i].dst[0]);
		assert_false(seen[s[i].src[0]][s[i].dst[0]]);
		seen[s[i].src[0]][s[i].dst[0]] = true;
		bool first = (s[i].src[0] == 0 && s[i].dst[0] == 1) ||
			     (s[i].src[0] == 1 && s[i].dst[0] == 0);
		assert_int_equal(s[i].matrix_only, !first);
	}
	assert_int_equal(s[0].src[0], 0); /* the first pair comes first */
	assert_int_equal(s[0].dst[0], 1);
}

static void test_p2p_bidir_unordered(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	static struct nbw_plan_set s[MAXS];
	size_t n = sets(NBW_P2P, NBW_THREADS_2, devs, 4, false, s, MAXS);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].nstreams, 2);
		assert_int_equal(s[i].conc, NBW_CONC_BIDIR);
		assert_int_equal(s[i].src[0], s[i].dst[1]);
		assert_int_equal(s[i].dst[0], s[i].src[1]);
		assert_true(s[i].src[0] < s[i].dst[0]);
	}
}

static void test_named_devices_all_sweep(void **state)
{
	(void)state;
	/* --devices 2,3,1: every pair among them, each with the whole sweep (the old core
	 * measured 2 -> 3 and ignored 1) */
	const int devs[] = {2, 3, 1};
	static struct nbw_plan_set s[MAXS];
	size_t n = sets(NBW_P2P, NBW_THREADS_1, devs, 3, true, s, MAXS);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_false(s[i].matrix_only);
	assert_int_equal(s[0].src[0], 2);
	assert_int_equal(s[0].dst[0], 3);
}

static void test_one_device_and_bounds(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	static struct nbw_plan_set s[MAXS];
	/* one device: P2P is the same-device copy, never a pair; no bidir */
	size_t n = sets(NBW_P2P, NBW_THREADS_1, devs, 1, false, s, MAXS);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].src[0], 0);
	assert_int_equal(s[0].dst[0], 0);
	assert_int_equal(sets(NBW_P2P, NBW_THREADS_2, devs, 1, false, s, MAXS), 0);
	assert_int_equal(sets(NBW_HTOD, NBW_THREADS_1, devs, 0, false, s, MAXS), 0);
	/* never more than the room given */
	assert_int_equal(sets(NBW_P2P, NBW_THREADS_1, devs, 4, false, s, 5), 5);
}


static void test_all_at_once(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	static struct nbw_plan_set s[MAXS];
	/* host-to-all: one set, a stream per device, at the two matrix sizes */
	size_t n = sets(NBW_HTOD, NBW_THREADS_ALL, devs, 4, false, s, MAXS);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].conc, NBW_CONC_ALL);
	assert_int_equal(s[0].nstreams, 4);
	assert_true(s[0].matrix_only);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(s[0].src[i], -1);
		assert_int_equal(s[0].dst[i], i);
	}
	n = sets(NBW_DTOH, NBW_THREADS_ALL, devs, 4, true, s, MAXS);
	assert_int_equal(n, 1);
	assert_false(s[0].matrix_only); /* named devices: the whole sweep */
	assert_int_equal(s[0].src[3], 3);
	assert_int_equal(s[0].dst[3], -1);
	/* one device: nothing at once */
	assert_int_equal(sets(NBW_HTOD, NBW_THREADS_ALL, devs, 1, false, s, MAXS), 0);
}

static void test_ring(void **state)
{
	(void)state;
	const int devs[] = {3, 1, 2, 0};
	static struct nbw_plan_set s[MAXS];
	size_t n = sets(NBW_P2P, NBW_THREADS_ALL, devs, 4, true, s, MAXS);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].conc, NBW_CONC_RING);
	assert_int_equal(s[0].nstreams, 4);
	/* in the user's order, each to the next, the last back to the first */
	const int want_src[] = {3, 1, 2, 0}, want_dst[] = {1, 2, 0, 3};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(s[0].src[i], want_src[i]);
		assert_int_equal(s[0].dst[i], want_dst[i]);
	}
	/* two devices: the ring would repeat bidir */
	assert_int_equal(sets(NBW_P2P, NBW_THREADS_ALL, devs, 2, false, s, MAXS), 0);
}

static void test_all_to_all(void **state)
{
	(void)state;
	const int devs[] = {3, 1, 2, 0, 4, 5, 6, 7, 8, 9};
	static struct nbw_plan_set s[MAXS];
	const struct nbw_series_kind *k = nbw_series_kind_find(NBW_P2P, NBW_CONC_A2A);
	assert_non_null(k);
	assert_string_equal(k->pattern, "all-to-all");
	assert_int_equal(k->threads, NBW_THREADS_ALL); /* --threads all selects it, like the ring */
	assert_non_null(strstr(k->bytes_counting, "n(n-1) x size"));
	struct nbw_plan_devices d = { .devs = devs, .nd = 4 };
	size_t n = nbw_plan_sets(k, &d, s, MAXS);
	/* one set: 4 x 3 = 12 streams, each ordered pair once, at the two matrix sizes */
	assert_int_equal(n, 1);
	assert_int_equal(s[0].conc, NBW_CONC_A2A);
	assert_int_equal(s[0].nstreams, 12);
	assert_true(s[0].matrix_only);
	bool seen[10][10] = { { false } };
	for (unsigned i = 0; i < s[0].nstreams; i++) {
		int a = s[0].src[i], b = s[0].dst[i];
		assert_true(a != b && a >= 0 && a < 4 && b >= 0 && b < 4);
		assert_false(seen[a][b]);
		seen[a][b] = true;
	}
	/* in the user's order: the first device to each other first */
	assert_int_equal(s[0].src[0], 3);
	assert_int_equal(s[0].dst[0], 1);
	assert_int_equal(s[0].dst[2], 0);
	/* named devices: the whole sweep; two devices: both directions at once */
	d.named = true;
	d.nd = 2;
	assert_int_equal(nbw_plan_sets(k, &d, s, MAXS), 1);
	assert_false(s[0].matrix_only);
	assert_int_equal(s[0].nstreams, 2);
	assert_int_equal(s[0].src[1], 1);
	assert_int_equal(s[0].dst[1], 3);
	/* one device: no pair */
	d.nd = 1;
	assert_int_equal(nbw_plan_sets(k, &d, s, MAXS), 0);
	/* ten devices: the first NBW_A2A_MAX_DEVICES (8 x 7 = 56 streams, within the limit) */
	d.nd = 10;
	assert_int_equal(nbw_plan_sets(k, &d, s, MAXS), 1);
	assert_int_equal(s[0].nstreams, NBW_A2A_MAX_DEVICES * (NBW_A2A_MAX_DEVICES - 1));
	assert_true(s[0].nstreams <= NBW_MAX_STREAMS);
	for (unsigned i = 0; i < s[0].nstreams; i++)
		assert_true(s[0].src[i] != 8 && s[0].src[i] != 9 && s[0].dst[i] != 8 &&
			    s[0].dst[i] != 9);
}

/* Devices 0-1 and 2-3 on one kind of link (class 1), the cross pairs on another (2). */
static int two_islands(void *ctx, int a, int b)
{
	(void)ctx;
	return (a < 2) == (b < 2) ? 1 : 2;
}

static void test_sweep_per_link_kind(void **state)
{
	(void)state;
	const int devs[] = {0, 1, 2, 3};
	static struct nbw_plan_set s[MAXS];
	struct nbw_plan_devices d = { .devs = devs, .nd = 4, .pair_class = two_islands };
	size_t n = nbw_plan_sets(nbw_series_kind_of(NBW_P2P, NBW_THREADS_1), &d, s, MAXS);
	assert_int_equal(n, 12);
	size_t sweeps = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i].matrix_only)
			continue;
		sweeps++;
		/* the first pair of each kind: (0,1) and (0,2) in plan order */
		int a = s[i].src[0] < s[i].dst[0] ? s[i].src[0] : s[i].dst[0];
		int b = s[i].src[0] < s[i].dst[0] ? s[i].dst[0] : s[i].src[0];
		assert_int_equal(a, 0);
		assert_true(b == 1 || b == 2);
	}
	assert_int_equal(sweeps, 4); /* both directions of both pairs */
}

static void test_matrix_sizes(void **state)
{
	(void)state;
	struct nbw_size v[] = { { .bytes = 8 }, { .bytes = 1 << 20 }, { .bytes = 64u << 20 },
				{ .bytes = 512u << 20 }, { .bytes = 1u << 30 } };
	struct nbw_sizes sz = { .v = v, .n = 5 };
	size_t lo, hi;
	nbw_plan_matrix_sizes(&sz, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 2); /* 64 MiB, not 1 GiB */
	sz.n = 2;                /* 8 B and 1 MiB: the largest */
	nbw_plan_matrix_sizes(&sz, &lo, &hi);
	assert_int_equal(hi, 1);
	struct nbw_size big[] = { { .bytes = 8 }, { .bytes = 1u << 30 } };
	sz = (struct nbw_sizes){ .v = big, .n = 2 }; /* nothing in between: still two sizes */
	nbw_plan_matrix_sizes(&sz, &lo, &hi);
	assert_int_equal(hi, 1);
}

/* ---- the series plan with a made-up backend ---------------------------------------- */

static const char *iface(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t len)
{
	if (mode == NBW_MODE_NOWAIT) {
		snprintf(why, len, "no nowait here");
		return NULL;
	}
	return mode == NBW_MODE_SYNC ? "copy()" : "copy_async()";
}

static int no_registered(void *ctx, enum nbw_dir dir, enum nbw_mode mode, enum nbw_hostmem mem,
			 char *why, size_t len)
{
	(void)ctx;
	if (mem == NBW_HOSTMEM_REGISTERED) {
		snprintf(why, len, "cannot register");
		return -1;
	}
	return 0;
}

static void test_series_plan(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	memset(&o, 0, sizeof(o));
	o.modes[NBW_MODE_SYNC] = o.modes[NBW_MODE_ASYNC] = o.modes[NBW_MODE_NOWAIT] = true;
	o.hostmem[NBW_HOSTMEM_PINNED] = o.hostmem[NBW_HOSTMEM_REGISTERED] = true;
	o.threads[NBW_THREADS_1] = o.threads[NBW_THREADS_2] = o.threads[NBW_THREADS_ALL] = true;
	o.peer[0] = o.peer[1] = true;
	o.bind[NBW_BIND_LOCAL] = true;
	const int devs[] = {0, 1, 2};
	struct nbw_plan_devices d = { .devs = devs, .nd = 3 };
	struct nbw_plan_caps caps = { .interface = iface, .supports = no_registered,
				      .peer_control = true };
	struct nbw_plan p = { 0 };
	assert_int_equal(nbw_plan_series(&o, NBW_HTOD, &caps, &d, &p), 0);
	/* sync and async: pinned (3 single + 1 dual + 1 all) and registered (3 skips: one per
	 * kind); nowait: one skip */
	size_t run = 0, skipped = 0;
	for (size_t i = 0; i < p.n; i++) {
		if (p.v[i].skip[0]) {
			skipped++;
			assert_null(p.v[i].interface);
		} else {
			run++;
			assert_int_equal(p.v[i].mem, NBW_HOSTMEM_PINNED);
			assert_int_equal(p.v[i].peer, NBW_PEER_NA);
		}
	}
	assert_int_equal(run, 2 * 5);
	assert_int_equal(skipped, 2 * 3 + 1);
	assert_string_equal(p.v[p.n - 1].skip, "no nowait here");
	/* measurements: 6 sizes; device 0 and the dual set full, the rest two sizes */
	assert_int_equal(nbw_plan_measurements(&p, 6), 2 * (6 + 2 + 2 + 6 + 2));
	nbw_plan_free(&p);

	/* P2P: 6 ordered pairs + 3 bidir + 1 ring + 1 all-to-all, each with peer access on
	 * and off */
	assert_int_equal(nbw_plan_series(&o, NBW_P2P, &caps, &d, &p), 0);
	run = 0;
	size_t off = 0;
	for (size_t i = 0; i < p.n; i++)
		if (!p.v[i].skip[0]) {
			run++;
			off += p.v[i].peer == NBW_PEER_OFF;
			assert_int_equal(p.v[i].mem, NBW_HOSTMEM_NONE);
		}
	assert_int_equal(run, 2 * 2 * (6 + 3 + 1 + 1));
	assert_int_equal(off, run / 2);
	nbw_plan_free(&p);

	/* --threads 1 only, one device: no two-device kinds planned at all */
	o.threads[NBW_THREADS_2] = o.threads[NBW_THREADS_ALL] = false;
	d.nd = 1;
	assert_int_equal(nbw_plan_series(&o, NBW_P2P, &caps, &d, &p), 0);
	run = 0;
	for (size_t i = 0; i < p.n; i++)
		run += !p.v[i].skip[0];
	assert_int_equal(run, 2); /* the same-device copy, sync and async, no peer axis */
	for (size_t i = 0; i < p.n; i++)
		if (!p.v[i].skip[0])
			assert_int_equal(p.v[i].peer, NBW_PEER_NA);
	nbw_plan_free(&p);
}

/* What `nodebw run` (quick profile: 10 sizes, pageable and pinned memory, threads 1, 2 and
 * all) plans on a node of 8 GPUs whose pairs share one kind of link (NVSwitch): the counts
 * doc/architecture.md quotes. */
static const char *omp_like(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t len)
{
	if (mode == NBW_MODE_PARALLEL || mode == NBW_MODE_CHASE ||
	    (dir == NBW_P2P && mode == NBW_MODE_NOWAIT)) {
		snprintf(why, len, "no");
		return NULL;
	}
	return "x";
}

/* The OpenMP backend's kernel mode on GPUs: pinned host memory only, no kernel reading
 * another GPU's memory (bw_omp/omp_kernel.c). */
static int omp_gpu_supports(void *ctx, enum nbw_dir dir, enum nbw_mode mode,
			    enum nbw_hostmem mem, char *why, size_t len)
{
	(void)ctx;
	if (mode == NBW_MODE_KERNEL && (dir == NBW_P2P || mem != NBW_HOSTMEM_PINNED)) {
		snprintf(why, len, "not addressable");
		return -1;
	}
	return 0;
}

static const char *cuda_like(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t len)
{
	if (mode != NBW_MODE_SYNC && mode != NBW_MODE_ASYNC) {
		snprintf(why, len, "no");
		return NULL;
	}
	return "x";
}

static void count(const struct nbw_plan_caps *caps, size_t *sweep, size_t *matrix, size_t *meas)
{
	struct nbw_probe_opts o;
	memset(&o, 0, sizeof(o));
	for (int m = 0; m < NBW_MODE_COUNT; m++)
		o.modes[m] = true;
	o.hostmem[NBW_HOSTMEM_PAGEABLE] = o.hostmem[NBW_HOSTMEM_PINNED] = true;
	o.threads[0] = o.threads[1] = o.threads[2] = true;
	o.peer[0] = o.peer[1] = true;
	o.bind[NBW_BIND_LOCAL] = true;
	const int devs[] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct nbw_plan_devices d = { .devs = devs, .nd = 8 };
	*sweep = *matrix = *meas = 0;
	for (int dir = 0; dir < NBW_DIR_COUNT; dir++) {
		struct nbw_plan p = { 0 };
		assert_int_equal(nbw_plan_series(&o, (enum nbw_dir)dir, caps, &d, &p), 0);
		for (size_t i = 0; i < p.n; i++)
			if (!p.v[i].skip[0]) {
				*sweep += !p.v[i].set.matrix_only;
				*matrix += p.v[i].set.matrix_only;
			}
		*meas += nbw_plan_measurements(&p, 10);
		nbw_plan_free(&p);
	}
}

static void test_eight_gpus(void **state)
{
	(void)state;
	size_t sweep, matrix, meas;
	/* sync, async, nowait as before (30 + 260); kernel: HtoD and DtoH with pinned memory
	 * only, 2 sweep sets (device 0, dual) and 8 two-size sets (7 devices, all) each;
	 * all-to-all: one two-size set in sync and in async. */
	struct nbw_plan_caps omp = { .interface = omp_like, .supports = omp_gpu_supports };
	count(&omp, &sweep, &matrix, &meas);
	print_message("OpenMP, 8 GPUs: %zu sweep sets, %zu two-size sets, %zu measurements\n",
		      sweep, matrix, meas);
	assert_int_equal(sweep, 30 + 4);
	assert_int_equal(matrix, 260 + 16 + 2);
	assert_int_equal(meas, 34 * 10 + 278 * 2);
	struct nbw_plan_caps cuda = { .interface = cuda_like, .peer_control = true };
	count(&cuda, &sweep, &matrix, &meas);
	print_message("CUDA, 8 GPUs: %zu sweep sets, %zu two-size sets, %zu measurements\n",
		      sweep, matrix, meas);
	assert_int_equal(sweep, 28);
	assert_int_equal(matrix, 392 + 4); /* all-to-all: sync, async x peer access on, off */
	assert_int_equal(meas, 28 * 10 + 396 * 2);
}

/* The kernel mode plans the same device sets and sizes as sync (its cost is sync's), and a
 * backend's refusal of a kernel path is a skip with its reason. */
static const char *with_kernel(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t len)
{
	(void)dir;
	if (mode == NBW_MODE_KERNEL)
		return "copy loop";
	if (mode == NBW_MODE_SYNC)
		return "copy()";
	snprintf(why, len, "no");
	return NULL;
}

static int no_kernel_pageable(void *ctx, enum nbw_dir dir, enum nbw_mode mode,
			      enum nbw_hostmem mem, char *why, size_t len)
{
	(void)ctx;
	(void)dir;
	if (mode == NBW_MODE_KERNEL && mem == NBW_HOSTMEM_PAGEABLE) {
		snprintf(why, len, "pageable memory is not addressable by the device");
		return -1;
	}
	return 0;
}

static void plan_mode(enum nbw_dir dir, enum nbw_mode mode, const struct nbw_plan_caps *caps,
		      struct nbw_plan *p)
{
	struct nbw_probe_opts o;
	memset(&o, 0, sizeof(o));
	o.modes[mode] = true;
	o.hostmem[NBW_HOSTMEM_PAGEABLE] = o.hostmem[NBW_HOSTMEM_PINNED] = true;
	o.threads[0] = o.threads[1] = o.threads[2] = true;
	o.peer[0] = o.peer[1] = true;
	o.bind[NBW_BIND_LOCAL] = true;
	const int devs[] = {0, 1, 2, 3};
	struct nbw_plan_devices d = { .devs = devs, .nd = 4 };
	assert_int_equal(nbw_plan_series(&o, dir, caps, &d, p), 0);
}

static void test_kernel_like_sync(void **state)
{
	(void)state;
	struct nbw_plan_caps caps = { .interface = with_kernel };
	for (int dir = 0; dir < NBW_DIR_COUNT; dir++) {
		struct nbw_plan ps = { 0 }, pk = { 0 };
		plan_mode((enum nbw_dir)dir, NBW_MODE_SYNC, &caps, &ps);
		plan_mode((enum nbw_dir)dir, NBW_MODE_KERNEL, &caps, &pk);
		assert_true(ps.n > 0);
		assert_int_equal(pk.n, ps.n);
		for (size_t i = 0; i < ps.n; i++) {
			assert_int_equal(pk.v[i].mode, NBW_MODE_KERNEL);
			assert_string_equal(pk.v[i].interface, "copy loop");
			assert_int_equal(pk.v[i].mem, ps.v[i].mem);
			assert_int_equal(pk.v[i].set.nstreams, ps.v[i].set.nstreams);
			assert_int_equal(pk.v[i].set.matrix_only, ps.v[i].set.matrix_only);
			assert_memory_equal(pk.v[i].set.src, ps.v[i].set.src, sizeof(ps.v[i].set.src));
			assert_memory_equal(pk.v[i].set.dst, ps.v[i].set.dst, sizeof(ps.v[i].set.dst));
		}
		assert_int_equal(nbw_plan_measurements(&pk, 10), nbw_plan_measurements(&ps, 10));
		nbw_plan_free(&ps);
		nbw_plan_free(&pk);
	}
	/* Refused pageable kernels are skips with the backend's reason; pinned ones run. */
	caps.supports = no_kernel_pageable;
	struct nbw_plan p = { 0 };
	plan_mode(NBW_HTOD, NBW_MODE_KERNEL, &caps, &p);
	size_t skips = 0, pinned = 0;
	for (size_t i = 0; i < p.n; i++) {
		if (p.v[i].skip[0]) {
			assert_int_equal(p.v[i].mem, NBW_HOSTMEM_PAGEABLE);
			assert_string_equal(p.v[i].skip,
					    "pageable memory is not addressable by the device");
			skips++;
		} else {
			assert_int_equal(p.v[i].mem, NBW_HOSTMEM_PINNED);
			pinned++;
		}
	}
	assert_int_equal(skips, 3); /* single, dual, all */
	assert_int_equal(pinned, 4 + 1 + 1);
	nbw_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_htod_each_device),
		cmocka_unit_test(test_dual_first_two),
		cmocka_unit_test(test_p2p_every_ordered_pair),
		cmocka_unit_test(test_p2p_bidir_unordered),
		cmocka_unit_test(test_named_devices_all_sweep),
		cmocka_unit_test(test_one_device_and_bounds),
		cmocka_unit_test(test_all_at_once),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_all_to_all),
		cmocka_unit_test(test_sweep_per_link_kind),
		cmocka_unit_test(test_series_plan),
		cmocka_unit_test(test_matrix_sizes),
		cmocka_unit_test(test_eight_gpus),
		cmocka_unit_test(test_kernel_like_sync),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
