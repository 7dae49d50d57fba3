/* SPDX-License-Identifier: BSD-3-Clause */
/* The live machine: loading, vendor sources that find nothing say why, the sysfs root
 * option, and binding and page placement (on a one-node VM: local works, remote says there
 * is no remote node; on a machine with more nodes remote picks another one). */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <hwloc.h>

#include "nodebw/topology.h"

#ifndef NODEBW_TOPO_FIXTURES
#error "NODEBW_TOPO_FIXTURES (tests/fixtures/topology) must be defined by the build"
#endif

static struct nbw_topo *live(bool vendor)
{
	char err[1024] = "";
	struct nbw_topo *t = NULL;
	struct nbw_topo_opts o = { .no_vendor = !vendor };
	if (nbw_topo_load(&t, &o, err, sizeof(err)))
		fail_msg("live: %s", err);
	assert_false(nbw_topo_is_fixture(t));
	return t;
}

static const struct nbw_topo_source *find_source(const struct nbw_topo *t, const char *name)
{
	for (size_t i = 0; i < nbw_topo_source_count(t); i++)
		if (strcmp(nbw_topo_source(t, i)->name, name) == 0)
			return nbw_topo_source(t, i);
	return NULL;
}

static void sources(void **state)
{
	(void)state;
	struct nbw_topo *t = live(true);
	const char *names[] = { "hwloc", "sysfs-pci", "nvml", "rocm-smi", "level-zero" };
	for (int i = 0; i < 5; i++) {
		const struct nbw_topo_source *s = find_source(t, names[i]);
		if (!s)
			fail_msg("no source %s", names[i]);
		/* one that found nothing says why */
		assert_true(s->ok || strlen(s->detail) > 10);
		print_message("  %-10s %s: %s\n", s->name, s->ok ? "ok" : "nothing", s->detail);
	}
	assert_true(find_source(t, "hwloc")->ok);
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	assert_true(h.numa_nodes >= 1 && h.pus >= 1 && h.cores >= 1);
	nbw_topo_free(t);

	t = live(false);
	assert_null(find_source(t, "nvml"));
	nbw_topo_free(t);
}

static void sysfs_root(void **state)
{
	(void)state;
	char root[1024], err[1024] = "";
	struct nbw_topo *t = NULL;
	snprintf(root, sizeof(root), "%s/dgx-h100-like/sys", NODEBW_TOPO_FIXTURES);
	struct nbw_topo_opts o = { .sysfs_root = root, .no_vendor = true };
	if (nbw_topo_load(&t, &o, err, sizeof(err)))
		fail_msg("%s", err);
	/* this machine's hwloc, the fixture's PCI tree: any address of that tree answers */
	struct nbw_host_link l;
	assert_int_equal(nbw_topo_host_link(t, "0000:18:00.0", &l), 0);
	assert_true(l.found);
	assert_int_equal(l.max.gen, 5);
	assert_true(l.theoretical_gbps > 63 && l.theoretical_gbps < 63.1);
	nbw_topo_free(t);
}

static int nodes_with_cpus(const struct nbw_topo *t)
{
	struct nbw_topo_numa n;
	int k = 0;
	for (unsigned i = 0; nbw_topo_numa(t, i, &n) == 0; i++)
		k += n.cpuset[0] != '\0';
	return k;
}

/* The calling thread's CPU affinity as an hwloc list ("0-1"). */
static void affinity(char *buf, size_t len)
{
	cpu_set_t set;
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			hwloc_bitmap_set(b, (unsigned)c);
	hwloc_bitmap_list_snprintf(buf, len, b);
	hwloc_bitmap_free(b);
}

static void bind_local_remote(void **state)
{
	(void)state;
	struct nbw_topo *t = live(false);
	char why[256];
	int node = -2;
	assert_int_equal(nbw_topo_bind_node(t, "", NBW_BIND_NONE, &node, why, sizeof(why)), 0);
	assert_int_equal(node, -1);
	assert_int_equal(nbw_topo_bind_node(t, "", NBW_BIND_LOCAL, &node, why, sizeof(why)), 0);
	assert_true(node >= 0);
	assert_non_null(strstr(why, "host memory")); /* says how "local" was chosen */
	int local = node;

	int rc = nbw_topo_bind_node(t, "", NBW_BIND_REMOTE, &node, why, sizeof(why));
	if (nodes_with_cpus(t) == 1) {
		assert_int_equal(rc, -1);
		assert_int_equal(node, -1);
		assert_non_null(strstr(why, "no remote NUMA node"));
		print_message("  remote: %s\n", why);
	} else {
		assert_int_equal(rc, 0);
		assert_true(node >= 0 && node != local);
	}

	/* the thread runs on the local node's CPUs, then everywhere again */
	char before[256], now[256];
	affinity(before, sizeof(before));
	assert_int_equal(nbw_topo_bind_thread(t, local, why, sizeof(why)), 0);
	affinity(now, sizeof(now));
	struct nbw_topo_numa n;
	for (unsigned i = 0; nbw_topo_numa(t, i, &n) == 0; i++)
		if (n.os_index == local)
			assert_string_equal(now, n.cpuset);
	assert_int_equal(nbw_topo_bind_thread(t, -1, why, sizeof(why)), 0);
	affinity(now, sizeof(now));
	assert_string_equal(now, before);
	assert_int_equal(nbw_topo_bind_thread(t, 999, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no NUMA node 999"));
	nbw_topo_free(t);
}

static void placement(void **state)
{
	(void)state;
	struct nbw_topo *t = live(false);
	char why[256], text[256];
	int node;
	assert_int_equal(nbw_topo_bind_node(t, NULL, NBW_BIND_LOCAL, &node, why, sizeof(why)), 0);
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), len = 256 * ps;

	/* allocated bound, then touched: every page on the node */
	char *p = nbw_topo_alloc_membind(t, len, node, why, sizeof(why));
	if (!p)
		fail_msg("alloc_membind: %s", why);
	struct nbw_page_placement pl;
	assert_int_equal(nbw_page_placement(p, len, &pl, why, sizeof(why)), 0);
	assert_int_equal(pl.pages, 256);
	assert_int_equal(pl.not_present, 256); /* not touched yet */
	memset(p, 1, len);
	assert_int_equal(nbw_page_placement(p, len, &pl, why, sizeof(why)), 0);
	assert_int_equal(pl.on_node[node], 256);
	assert_int_equal(pl.max_node, node);
	nbw_page_placement_format(&pl, text, sizeof(text));
	print_message("  placement: %s\n", text);
	assert_non_null(strstr(text, "100.0% (256 pages)"));
	nbw_topo_free_membind(t, p, len);

	/* an ordinary mapping bound before the first touch */
	char *q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(q != MAP_FAILED);
	if (nbw_topo_bind_area(t, q, len, node, why, sizeof(why)))
		fail_msg("bind_area: %s", why);
	memset(q, 2, len / 2);
	assert_int_equal(nbw_page_placement(q + 1, len - 1, &pl, why, sizeof(why)), 0);
	assert_int_equal(pl.pages, 256);
	assert_int_equal(pl.on_node[node], 128);
	assert_int_equal(pl.not_present, 128);
	munmap(q, len);
	assert_int_equal(nbw_topo_bind_area(t, q, len, 999, why, sizeof(why)), -1);
	assert_int_equal(nbw_page_placement(NULL, 0, &pl, why, sizeof(why)), -1);
	nbw_topo_free(t);
}

static void fixture_refuses(void **state)
{
	(void)state;
	char dir[1024], err[1024], why[256];
	struct nbw_topo *t = NULL;
	snprintf(dir, sizeof(dir), "%s/dgx-h100-like", NODEBW_TOPO_FIXTURES);
	struct nbw_topo_opts o = { .fixture_dir = dir };
	assert_int_equal(nbw_topo_load(&t, &o, err, sizeof(err)), 0);
	int node;
	/* choosing a node works on a fixture (GPU 4 is on node 1, remote is node 0) ... */
	assert_int_equal(nbw_topo_bind_node(t, "0000:9a:00.0", NBW_BIND_LOCAL, &node, why,
					    sizeof(why)), 0);
	assert_int_equal(node, 1);
	assert_int_equal(nbw_topo_bind_node(t, "0000:9a:00.0", NBW_BIND_REMOTE, &node, why,
					    sizeof(why)), 0);
	assert_int_equal(node, 0);
	/* ... binding does not: it is not this machine */
	assert_int_equal(nbw_topo_bind_thread(t, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "fixture"));
	assert_null(nbw_topo_alloc_membind(t, 4096, 0, why, sizeof(why)));
	nbw_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sources),          cmocka_unit_test(sysfs_root),
		cmocka_unit_test(bind_local_remote), cmocka_unit_test(placement),
		cmocka_unit_test(fixture_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
