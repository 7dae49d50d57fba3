/* SPDX-License-Identifier: BSD-3-Clause */
/* ROCm SMI source, loaded with dlopen (librocm_smi64) and its few types declared here:
 * GPUs (each GCD of an MI250X is one) with PCI addresses, and per pair the link type
 * (xGMI or PCIe), hop count and, for one-hop xGMI, the maximum bandwidth. ROCm SMI indexes
 * differ from HIP's: everything is matched by PCI address. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "topo_int.h"

typedef int rsmi_status_t;          /* RSMI_STATUS_SUCCESS = 0 */
enum { RSMI_IOLINK_TYPE_PCIEXPRESS = 1, RSMI_IOLINK_TYPE_XGMI = 2 };

struct rsmi {
	void *lib;
	rsmi_status_t (*init)(uint64_t);
	rsmi_status_t (*shut_down)(void);
	rsmi_status_t (*status_string)(rsmi_status_t, const char **);
	rsmi_status_t (*count)(uint32_t *);
	rsmi_status_t (*pci_id)(uint32_t, uint64_t *);
	rsmi_status_t (*name)(uint32_t, char *, size_t);
	rsmi_status_t (*link_type)(uint32_t, uint32_t, uint64_t *, int *);
	rsmi_status_t (*minmax_bw)(uint32_t, uint32_t, uint64_t *, uint64_t *);
	/* link health (optional) */
	rsmi_status_t (*replays)(uint32_t, uint64_t *);
	rsmi_status_t (*xgmi_status)(uint32_t, int *); /* rsmi_xgmi_status_t */
};

static const char *rsmi_err(const struct rsmi *r, rsmi_status_t rc)
{
	const char *s = NULL;
	if (r->status_string && r->status_string(rc, &s) == 0 && s)
		return s;
	return "unknown status";
}

static int load(struct rsmi *r, char *why, size_t len)
{
	static const char *const names[] = { "librocm_smi64.so", "librocm_smi64.so.1",
					     "librocm_smi64.so.7", "librocm_smi64.so.6",
					     "librocm_smi64.so.5" };
	char first[NBW_TOPO_NOTE_LEN] = "";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !r->lib; i++) {
		r->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!r->lib && !first[0])
			snprintf(first, sizeof(first), "%s", dlerror());
	}
	if (!r->lib) {
		snprintf(why, len, "dlopen: %s (also tried .so.1, .so.5-7)", first);
		return -1;
	}
	struct { void **fn; const char *name; } syms[] = {
		{ (void **)&r->init, "rsmi_init" },
		{ (void **)&r->shut_down, "rsmi_shut_down" },
		{ (void **)&r->status_string, "rsmi_status_string" },
		{ (void **)&r->count, "rsmi_num_monitor_devices" },
		{ (void **)&r->pci_id, "rsmi_dev_pci_id_get" },
		{ (void **)&r->name, "rsmi_dev_name_get" },
		{ (void **)&r->link_type, "rsmi_topo_get_link_type" },
		{ (void **)&r->minmax_bw, "rsmi_minmax_bandwidth_get" },
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!(*syms[i].fn = dlsym(r->lib, syms[i].name))) {
			snprintf(why, len, "librocm_smi64 has no %s", syms[i].name);
			return -1;
		}
	*(void **)&r->replays = dlsym(r->lib, "rsmi_dev_pci_replay_counter_get");
	*(void **)&r->xgmi_status = dlsym(r->lib, "rsmi_dev_xgmi_error_status");
	return 0;
}

static void pair(struct nbw_topo *t, const struct rsmi *r, uint32_t i, uint32_t j, int a,
		 int b)
{
	uint64_t hops = 0, lo = 0, hi = 0;
	int type = 0;
	if (r->link_type(i, j, &hops, &type) != 0 || type != RSMI_IOLINK_TYPE_XGMI)
		return; /* PCIe pairs get their label from the PCI tree */
	struct topo_link x = { .a = a, .b = b, .kind = NBW_LINK_XGMI,
			       .hops = hops > 0 ? (int)hops : 1, .api_gbps = -1, .link_gbps = -1 };
	/* One-hop xGMI only. The KFD reports io-link bandwidth in MB/s. */
	if (x.hops == 1 && r->minmax_bw(i, j, &lo, &hi) == 0 && hi > 0)
		x.api_gbps = (double)hi / 1000.0;
	snprintf(x.source, sizeof(x.source), "rocm-smi");
	topo_add_link(t, &x);
}

static void rocm_discover(struct nbw_topo *t)
{
	struct rsmi r;
	char why[NBW_TOPO_NOTE_LEN];
	memset(&r, 0, sizeof(r));
	if (load(&r, why, sizeof(why))) {
		topo_source(t, "rocm-smi", false, "%s", why);
		if (r.lib)
			dlclose(r.lib);
		return;
	}
	rsmi_status_t rc = r.init(0);
	uint32_t n = 0;
	if (rc != 0) {
		topo_source(t, "rocm-smi", false, "rsmi_init: %s (%d)", rsmi_err(&r, rc), rc);
		dlclose(r.lib);
		return;
	}
	rc = r.count(&n);
	if (rc != 0 || n == 0) {
		topo_source(t, "rocm-smi", false, "rsmi_num_monitor_devices: %s",
			    rc ? rsmi_err(&r, rc) : "no device");
		r.shut_down();
		dlclose(r.lib);
		return;
	}
	if (n > 64)
		n = 64;
	int map[64];
	for (uint32_t i = 0; i < n; i++) {
		uint64_t id = 0;
		char name[96] = "", bus[24];
		map[i] = -1;
		if (r.pci_id(i, &id) != 0)
			continue;
		snprintf(bus, sizeof(bus), "%04x:%02x:%02x.%x", (unsigned)(id >> 32) & 0xffff,
			 (unsigned)(id >> 8) & 0xff, (unsigned)(id >> 3) & 0x1f, (unsigned)id & 7);
		r.name(i, name, sizeof(name));
		map[i] = topo_add_gpu(t, bus, -1, "amd", name, "rocm-smi");
		uint64_t replays = 0;
		int xs = 0;
		if (map[i] < 0)
			continue;
		if (r.replays && r.replays(i, &replays) == 0) {
			t->dev[map[i]].health.pcie_replays = (long long)replays;
			snprintf(t->dev[map[i]].health.replay_source, 16, "rocm-smi");
		}
		if (r.xgmi_status && r.xgmi_status(i, &xs) == 0 && xs >= 0)
			t->dev[map[i]].health.xgmi_error_status = xs;
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			if (map[i] >= 0 && map[j] >= 0)
				pair(t, &r, i, j, map[i], map[j]);
	struct nbw_topo_source *s = topo_source(t, "rocm-smi", true, "%u GPU%s", n,
						n == 1 ? "" : "s");
	if (s)
		s->devices = (int)n;
	r.shut_down();
	dlclose(r.lib);
}

const struct topo_source_ops topo_source_rocm = {
	.name = "rocm-smi",
	.provides = "AMD GPUs and their xGMI links (ROCm SMI, loaded at run time)",
	.vendor = true,
	.discover = rocm_discover,
};
