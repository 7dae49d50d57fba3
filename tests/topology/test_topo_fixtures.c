/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixtures: parsing (host, devices, sources), matching by bus id, host links, and the
 * matrix (label and theoretical GB/s per pair) of the DGX-H100-like, MI250X-like, PVC-like
 * and VM fixtures, and the multi-tier switch fabrics (DGX-2, two tiers). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/topology.h"

#ifndef NODEBW_TOPO_FIXTURES
#error "NODEBW_TOPO_FIXTURES (tests/fixtures/topology) must be defined by the build"
#endif

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 0.01)

static struct nbw_topo *load(const char *name)
{
	char dir[1024], err[1024] = "";
	struct nbw_topo *t = NULL;
	snprintf(dir, sizeof(dir), "%s/%s", NODEBW_TOPO_FIXTURES, name);
	struct nbw_topo_opts o = { .fixture_dir = dir };
	if (nbw_topo_load(&t, &o, err, sizeof(err)))
		fail_msg("%s: %s", name, err);
	assert_true(nbw_topo_is_fixture(t));
	return t;
}

static const struct nbw_topo_source *source(const struct nbw_topo *t, const char *name)
{
	for (size_t i = 0; i < nbw_topo_source_count(t); i++)
		if (strcmp(nbw_topo_source(t, i)->name, name) == 0)
			return nbw_topo_source(t, i);
	fail_msg("no source %s", name);
	return NULL;
}

static void pair(const struct nbw_topo *t, const char *a, const char *b, const char *label,
		 double gbps)
{
	struct nbw_topo_pair p;
	assert_int_equal(nbw_topo_pair(t, a, b, &p), 0);
	if (strcmp(p.label, label) != 0)
		fail_msg("%s-%s: %s, expected %s (%s)", a, b, p.label, label, p.basis);
	if (gbps < 0)
		assert_true(p.theoretical_gbps < 0);
	else if (fabs(p.theoretical_gbps - gbps) > 0.01)
		fail_msg("%s-%s: %g GB/s, expected %g (%s)", a, b, p.theoretical_gbps, gbps, p.basis);
	/* symmetric */
	struct nbw_topo_pair q;
	assert_int_equal(nbw_topo_pair(t, b, a, &q), 0);
	assert_string_equal(q.label, p.label);
}

static void pcie(const struct nbw_topo *t, const char *a, const char *b, const char *label,
		 double gbps)
{
	struct nbw_topo_pair p;
	assert_int_equal(nbw_topo_pcie_pair(t, a, b, &p), 0);
	if (strcmp(p.label, label) != 0)
		fail_msg("PCIe %s-%s: %s, expected %s (%s)", a, b, p.label, label, p.basis);
	NEAR(p.theoretical_gbps, gbps);
}

static void dgx(void **state)
{
	(void)state;
	struct nbw_topo *t = load("dgx-h100-like");
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	assert_int_equal(h.packages, 2);
	assert_int_equal(h.numa_nodes, 2);
	assert_int_equal(h.cores, 112);
	assert_int_equal(h.pus, 224);
	struct nbw_topo_numa n;
	assert_int_equal(nbw_topo_numa(t, 1, &n), 0);
	assert_int_equal(n.os_index, 1);
	assert_string_equal(n.cpuset, "56-111,168-223");
	assert_int_equal(n.package, 1);
	assert_int_equal(nbw_topo_numa(t, 2, &n), -1);

	assert_int_equal(nbw_topo_device_count(t), 8);
	const struct nbw_topo_device *d = nbw_topo_device(t, 0);
	assert_string_equal(d->id, "0000:18:00.0");
	assert_string_equal(d->vendor, "nvidia");
	assert_string_equal(d->name, "NVIDIA H100 80GB HBM3");
	assert_non_null(strstr(d->seen_by, "nvml"));
	assert_int_equal(d->link.max.gen, 5);
	assert_int_equal(d->link.max.width, 16);
	NEAR(d->link.theoretical_gbps, 63.015);
	assert_int_equal(d->link.numa_node, 0);
	assert_string_equal(d->link.cpuset, "0-55,112-167");
	assert_null(nbw_topo_device(t, 8));

	/* GPU 3 idles at Gen1: the theoretical figure is what it can train to */
	struct nbw_host_link l;
	assert_int_equal(nbw_topo_host_link(t, "0000:5d:00.0", &l), 0);
	assert_int_equal(l.current.gen, 1);
	NEAR(l.current.gbps, 4.0);
	NEAR(l.theoretical_gbps, 63.015);
	assert_non_null(strstr(l.note, "below"));
	/* matched by bus id in any spelling */
	assert_int_equal(nbw_topo_host_link(t, "00000000:5D:00.0", &l), 0);
	assert_int_equal(l.numa_node, 0);
	assert_int_equal(nbw_topo_host_link(t, "0000:9a:00.0", &l), 0);
	assert_int_equal(l.numa_node, 1);
	assert_string_equal(l.cpuset, "56-111,168-223");
	/* a bridge is a PCI device too */
	assert_int_equal(nbw_topo_host_link(t, "0000:15:01.0", &l), 0);
	assert_true(l.found);
	assert_int_equal(nbw_topo_host_link(t, "0000:77:00.0", &l), -1);
	assert_non_null(strstr(l.note, "no PCI device 0000:77:00.0"));
	assert_int_equal(nbw_topo_host_link(t, "gpu0", &l), -1);
	assert_non_null(strstr(l.note, "not a PCI address"));
	/* host memory */
	assert_int_equal(nbw_topo_host_link(t, "", &l), 0);
	assert_true(l.host_memory);
	assert_true(l.theoretical_gbps < 0);
	assert_string_equal(l.note, "host memory, no link");
	assert_int_equal(nbw_topo_host_link(t, NULL, &l), 0);
	assert_true(l.host_memory);

	/* every pair NV18 through NVSwitch: 18 x 25 GB/s */
	const char *ids[] = { "0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
			      "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0" };
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			pair(t, ids[i], ids[j], i == j ? "X" : "NV18", i == j ? -1 : 450);
	struct nbw_topo_pair p;
	nbw_topo_pair(t, ids[0], ids[7], &p);
	assert_int_equal(p.kind, NBW_LINK_NVLINK);
	assert_int_equal(p.links, 18);
	assert_non_null(strstr(p.basis, "NVSwitch"));
	/* the PCIe path beside NVLink: other root complex on the same socket, or the other
	 * socket; the slower link counts (GPU 3 can train to Gen5 too) */
	pcie(t, ids[0], ids[1], "NODE", 63.015);
	pcie(t, ids[0], ids[4], "SYS", 63.015);
	pcie(t, ids[3], ids[7], "SYS", 63.015);
	/* host memory and unknown devices */
	pair(t, "", ids[0], "HOST", -1);
	assert_int_equal(nbw_topo_pair(t, ids[0], "0000:77:00.0", &p), -1);
	assert_string_equal(p.label, "?");

	const struct nbw_topo_source *s = source(t, "nvml");
	assert_true(s->ok);
	s = source(t, "rocm-smi");
	assert_false(s->ok);
	assert_non_null(strstr(s->detail, "librocm_smi64"));
	assert_true(source(t, "hwloc")->ok);
	assert_true(source(t, "sysfs-pci")->ok);
	assert_non_null(strstr(source(t, "fixture")->detail, "Synthetic DGX-H100-like"));
	nbw_topo_free(t);
}

static void mi250x(void **state)
{
	(void)state;
	struct nbw_topo *t = load("mi250x-like");
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	assert_int_equal(h.packages, 1);
	assert_int_equal(h.numa_nodes, 4);
	assert_int_equal(nbw_topo_device_count(t), 8);
	const struct nbw_topo_device *d = nbw_topo_device(t, 2);
	assert_string_equal(d->id, "0000:53:00.0");
	assert_int_equal(d->link.numa_node, 1);
	assert_string_equal(d->link.cpuset, "16-31,80-95");
	assert_int_equal(d->link.max.gen, 4);
	NEAR(d->link.theoretical_gbps, 31.508);
	/* in-package GCDs: 4 xGMI links; others 2 or 1 at 50 GB/s; one pair two hops apart */
	pair(t, "0000:23:00.0", "0000:24:00.0", "XGMI4", 200);
	pair(t, "0000:23:00.0", "0000:53:00.0", "XGMI2", 100);
	pair(t, "0000:23:00.0", "0000:54:00.0", "XGMI1", 50);
	pair(t, "0000:24:00.0", "0000:b4:00.0", "XGMI2", 100);
	pair(t, "0000:23:00.0", "0000:b4:00.0", "XGMI", -1);
	struct nbw_topo_pair p;
	nbw_topo_pair(t, "0000:b4:00.0", "0000:23:00.0", &p);
	assert_int_equal(p.hops, 2);
	assert_non_null(strstr(p.basis, "2 hops"));
	/* both GCDs of a package sit below one PCIe switch */
	pcie(t, "0000:23:00.0", "0000:24:00.0", "PIX", 31.508);
	pcie(t, "0000:23:00.0", "0000:53:00.0", "SYS", 31.508);
	assert_false(source(t, "nvml")->ok);
	assert_true(source(t, "rocm-smi")->ok);
	assert_int_equal(source(t, "rocm-smi")->devices, 8);
	nbw_topo_free(t);
}

static void pvc(void **state)
{
	(void)state;
	struct nbw_topo *t = load("pvc-like");
	assert_int_equal(nbw_topo_device_count(t), 8);
	const struct nbw_topo_device *d = nbw_topo_device(t, 1);
	assert_string_equal(d->id, "0000:29:00.0/1");
	assert_string_equal(d->pci_bus_id, "0000:29:00.0");
	assert_int_equal(d->tile, 1);
	assert_string_equal(d->kind, "gpu-tile");
	NEAR(d->link.theoretical_gbps, 63.015);
	/* tiles of one card: multi-die fabric; same-position tiles of two cards: Xe Link;
	 * otherwise PCIe through the root complex (same socket) or across sockets */
	pair(t, "0000:29:00.0/0", "0000:29:00.0/1", "MDF", 200);
	pair(t, "0000:29:00.0/0", "0000:3a:00.0/0", "XL2", 50);
	pair(t, "0000:29:00.0/1", "0000:ca:00.0/1", "XL2", 50);
	pair(t, "0000:29:00.0/0", "0000:3a:00.0/1", "NODE", 63.015);
	pair(t, "0000:29:00.0/0", "0000:9a:00.0/1", "SYS", 63.015);
	/* whole cards: the best of their tile pairs, fabric first */
	struct nbw_topo_pair p;
	assert_int_equal(nbw_topo_pair(t, "0000:29:00.0", "0000:3a:00.0", &p), 0);
	assert_string_equal(p.label, "XL2");
	assert_non_null(strstr(p.basis, "best of 4 tile pairs"));
	pair(t, "0000:29:00.0", "0000:29:00.0", "X", -1);
	/* a tile's host link is its card's */
	struct nbw_host_link l;
	assert_int_equal(nbw_topo_host_link(t, "0000:9a:00.0/1", &l), 0);
	assert_int_equal(l.numa_node, 1);
	assert_int_equal(nbw_topo_host_link(t, "0000:9a:00.0", &l), 0);
	NEAR(l.theoretical_gbps, 63.015);
	assert_true(source(t, "level-zero")->ok);
	nbw_topo_free(t);
}

static void vm(void **state)
{
	(void)state;
	struct nbw_topo *t = load("vm-2cpu");
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	assert_int_equal(h.packages, 1);
	assert_int_equal(h.numa_nodes, 1);
	assert_int_equal(h.pus, 2);
	assert_int_equal(nbw_topo_device_count(t), 0);
	/* virtio devices: PCI, but no PCIe link in sysfs */
	struct nbw_host_link l;
	assert_int_equal(nbw_topo_host_link(t, "0000:00:03.0", &l), 0);
	assert_true(l.found);
	assert_true(l.theoretical_gbps < 0);
	assert_non_null(strstr(l.note, "no PCIe link speed"));
	const struct nbw_topo_source *s = source(t, "nvml");
	assert_false(s->ok);
	assert_non_null(strstr(s->detail, "libnvidia-ml.so.1"));
	nbw_topo_free(t);
}

static void api_devices(void **state)
{
	(void)state;
	struct nbw_topo *t = load("dgx-h100-like");
	struct nbw_device cuda = { .id = 3, .kind = "cuda", .name = "NVIDIA H100 80GB HBM3",
				   .is_gpu = true, .pci_bus_id = "0000:5d:00.0" };
	struct nbw_device plug = { .id = 0, .kind = "host-plugin", .name = "host plugin 0" };
	int i = nbw_topo_add_api_device(t, "cuda", &cuda);
	assert_int_equal(i, 3);
	assert_string_equal(nbw_topo_device(t, 3)->seen_by, "pci,nvml,cuda");
	/* An empty source names nothing (it used to loop for ever: a fuzzing finding). */
	assert_int_equal(nbw_topo_add_api_device(t, "", &cuda), 3);
	assert_string_equal(nbw_topo_device(t, 3)->seen_by, "pci,nvml,cuda");
	i = nbw_topo_add_api_device(t, "omp", &plug);
	assert_int_equal(i, 8);
	const struct nbw_topo_device *d = nbw_topo_device(t, 8);
	assert_string_equal(d->id, "omp:0");
	assert_string_equal(d->kind, "host-plugin");
	assert_true(d->link.host_memory);
	pair(t, "omp:0", "0000:18:00.0", "HOST", -1);
	struct nbw_host_link l;
	assert_int_equal(nbw_topo_host_link(t, "omp:0", &l), 0);
	assert_true(l.host_memory);
	/* a GPU an API sees but no topology source listed (bus id of a bridge here) */
	struct nbw_device other = { .id = 1, .kind = "cuda", .name = "x", .is_gpu = true,
				    .pci_bus_id = "0000:17:00.0" };
	i = nbw_topo_add_api_device(t, "cuda", &other);
	assert_int_equal(i, 9);
	NEAR(nbw_topo_device(t, 9)->link.theoretical_gbps, 63.015);
	assert_int_equal(nbw_topo_note_source(t, "apis", true, 2, "cuda: 2 devices"), 0);
	assert_int_equal(source(t, "apis")->devices, 2);
	nbw_topo_free(t);
}

/* hwloc's own DGX-2 recording: one NVLink per GPU to each of its baseboard's 6 switches;
 * no switch-switch entry, so cross-board pairs keep their PCIe path and say why. */
static void dgx2_recorded(void **state)
{
	(void)state;
	struct nbw_topo *t = load("dgx2-hwloc");
	assert_int_equal(nbw_topo_device_count(t), 16);
	pair(t, "0000:34:00.0", "0000:5e:00.0", "NV6", 150);
	struct nbw_topo_pair p;
	assert_int_equal(nbw_topo_pair(t, "0000:34:00.0", "0000:b7:00.0", &p), 0);
	assert_string_equal(p.label, "SYS");
	assert_non_null(strstr(p.basis, "no switch-switch entry joins them"));
	assert_non_null(strstr(source(t, "hwloc-gpu")->detail, "64 more reach switches"));
	nbw_topo_free(t);
}

/* The same recording with the baseboards' trunks written in (8 links = 200 GB/s between
 * counterpart switches): every cross-board pair is 6 paths through 2 switches in series,
 * each limited by its GPU-switch link (25 GB/s): 150 GB/s, NV6-2SW, never SYS. */
static void dgx2_trunked(void **state)
{
	(void)state;
	struct nbw_topo *t = load("dgx2-trunked");
	assert_int_equal(nbw_topo_device_count(t), 16);
	int cross = 0;
	for (size_t i = 0; i < 16; i++)
		for (size_t j = i + 1; j < 16; j++) {
			const struct nbw_topo_device *a = nbw_topo_device(t, i), *b = nbw_topo_device(t, j);
			struct nbw_topo_pair p;
			assert_int_equal(nbw_topo_pair(t, a->id, b->id, &p), 0);
			bool x = a->link.numa_node != b->link.numa_node;
			if (strcmp(p.label, x ? "NV6-2SW" : "NV6") != 0 ||
			    fabs(p.theoretical_gbps - 150) > 0.01)
				fail_msg("%s-%s: %s %g (%s)", a->id, b->id, p.label,
					 p.theoretical_gbps, p.basis);
			assert_int_equal(p.kind, NBW_LINK_NVLINK);
			cross += x;
			if (x)
				assert_non_null(strstr(p.basis, "2 switches in series"));
		}
	assert_int_equal(cross, 64);
	nbw_topo_free(t);
}

/* Two tiers: GPU -> leaf (50) -> spine (25) -> leaf (25) -> GPU (50): the narrowest hop,
 * the trunk, is the pair's figure. Host links from hwloc's recorded linkspeed; absent:
 * unknown, and the PCIe figure of its pairs too. */
static void two_tier(void **state)
{
	(void)state;
	struct nbw_topo *t = load("two-tier-switch");
	pair(t, "0000:11:00.0", "0000:12:00.0", "NV2", 50);
	pair(t, "0000:21:00.0", "0000:22:00.0", "NV2", 50);
	pair(t, "0000:11:00.0", "0000:21:00.0", "NV1-3SW", 25);
	pair(t, "0000:12:00.0", "0000:22:00.0", "NV1-3SW", 25);
	struct nbw_topo_pair p;
	nbw_topo_pair(t, "0000:11:00.0", "0000:22:00.0", &p);
	assert_non_null(strstr(p.basis, "narrowest hop 25000 MB/s"));
	struct nbw_host_link l;
	assert_int_equal(nbw_topo_host_link(t, "0000:11:00.0", &l), 0);
	NEAR(l.theoretical_gbps, 31.507692);
	assert_non_null(strstr(l.note, "linkspeed"));
	assert_int_equal(nbw_topo_host_link(t, "0000:12:00.0", &l), 0);
	NEAR(l.theoretical_gbps, 63.015385);
	assert_int_equal(nbw_topo_host_link(t, "0000:22:00.0", &l), 0);
	NEAR(l.theoretical_gbps, 15.753846);
	assert_int_equal(nbw_topo_host_link(t, "0000:21:00.0", &l), 0);
	assert_true(l.theoretical_gbps < 0);
	assert_non_null(strstr(l.note, "unknown"));
	assert_int_equal(nbw_topo_pcie_pair(t, "0000:11:00.0", "0000:21:00.0", &p), 0);
	assert_true(p.theoretical_gbps < 0);
	pcie(t, "0000:11:00.0", "0000:12:00.0", "PHB", 31.507692);
	nbw_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dgx), cmocka_unit_test(mi250x), cmocka_unit_test(pvc),
		cmocka_unit_test(vm),  cmocka_unit_test(api_devices),
		cmocka_unit_test(dgx2_recorded), cmocka_unit_test(dgx2_trunked),
		cmocka_unit_test(two_tier),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
