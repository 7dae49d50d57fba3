/* SPDX-License-Identifier: BSD-3-Clause */
/* NVML source, loaded with dlopen("libnvidia-ml.so.1") and with its few types declared here
 * (no nvml.h needed): GPUs and their PCI addresses, active NVLinks (version, remote end:
 * a GPU or an NVSwitch) and the PCIe common ancestor of each pair. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "topo_int.h"

typedef int nvmlReturn_t;           /* NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {                    /* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it */
	char busIdLegacy[16];
	unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvml_pci_info;
enum { NVML_SUCCESS = 0, NVML_ERROR_INVALID_ARGUMENT = 2, NVML_ERROR_NOT_SUPPORTED = 3 };
enum { NVML_FEATURE_ENABLED = 1 };
enum { NVML_NVLINK_DEVICE_TYPE_SWITCH = 2 };
/* nvmlGpuTopologyLevel_t */
enum { TOPO_INTERNAL = 0, TOPO_SINGLE = 10, TOPO_MULTIPLE = 20, TOPO_HOSTBRIDGE = 30,
       TOPO_NODE = 40, TOPO_SYSTEM = 50 };
#define NVML_MAX_LINKS 64 /* the header's limit grew (12, 18, 36): loop until refused */

struct nvml {
	void *lib;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*count)(unsigned *);
	nvmlReturn_t (*handle)(unsigned, nvmlDevice_t *);
	nvmlReturn_t (*pci)(nvmlDevice_t, nvml_pci_info *);
	nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned, int *);
	nvmlReturn_t (*link_version)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*remote_pci)(nvmlDevice_t, unsigned, nvml_pci_info *);
	nvmlReturn_t (*remote_type)(nvmlDevice_t, unsigned, int *); /* optional */
	nvmlReturn_t (*ancestor)(nvmlDevice_t, nvmlDevice_t, int *);
	/* link health (optional) */
	nvmlReturn_t (*replays)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*link_errors)(nvmlDevice_t, unsigned, int, unsigned long long *);
};
/* nvmlNvLinkErrorCounter_t */
enum { NVML_NVLINK_ERROR_DL_REPLAY = 0, NVML_NVLINK_ERROR_DL_RECOVERY = 1,
       NVML_NVLINK_ERROR_DL_CRC_FLIT = 2, NVML_NVLINK_ERROR_DL_CRC_DATA = 3 };

static const char *nvml_err(const struct nvml *n, nvmlReturn_t rc)
{
	const char *s = n->error_string ? n->error_string(rc) : NULL;
	return s ? s : "unknown error";
}

static int load(struct nvml *n, char *why, size_t len)
{
	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		snprintf(why, len, "dlopen: %s", dlerror());
		return -1;
	}
	struct { void **fn; const char *name; bool optional; } syms[] = {
		{ (void **)&n->init, "nvmlInit_v2", false },
		{ (void **)&n->shutdown, "nvmlShutdown", false },
		{ (void **)&n->error_string, "nvmlErrorString", false },
		{ (void **)&n->count, "nvmlDeviceGetCount_v2", false },
		{ (void **)&n->handle, "nvmlDeviceGetHandleByIndex_v2", false },
		{ (void **)&n->pci, "nvmlDeviceGetPciInfo_v3", false },
		{ (void **)&n->name, "nvmlDeviceGetName", false },
		{ (void **)&n->link_state, "nvmlDeviceGetNvLinkState", false },
		{ (void **)&n->link_version, "nvmlDeviceGetNvLinkVersion", false },
		{ (void **)&n->remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2", false },
		{ (void **)&n->remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType", true },
		{ (void **)&n->ancestor, "nvmlDeviceGetTopologyCommonAncestor", false },
		{ (void **)&n->replays, "nvmlDeviceGetPcieReplayCounter", true },
		{ (void **)&n->link_errors, "nvmlDeviceGetNvLinkErrorCounter", true },
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].fn = dlsym(n->lib, syms[i].name);
		if (!*syms[i].fn && !syms[i].optional) {
			snprintf(why, len, "libnvidia-ml.so.1 has no %s (driver too old)",
				 syms[i].name);
			return -1;
		}
	}
	return 0;
}

static enum nbw_link_kind level_kind(int level)
{
	switch (level) {
	case TOPO_INTERNAL: case TOPO_SINGLE: return NBW_LINK_PIX;
	case TOPO_MULTIPLE: return NBW_LINK_PXB;
	case TOPO_HOSTBRIDGE: return NBW_LINK_PHB;
	case TOPO_NODE: return NBW_LINK_NODE;
	default: return NBW_LINK_SYS;
	}
}

/* Link health of one NVLink that answered: present, up or down, its error counters. */
static void link_health(const struct nvml *n, nvmlDevice_t h, unsigned l, bool up,
			struct nbw_link_health *lh)
{
	static const int which[] = { NVML_NVLINK_ERROR_DL_CRC_FLIT, NVML_NVLINK_ERROR_DL_CRC_DATA,
				     NVML_NVLINK_ERROR_DL_REPLAY, NVML_NVLINK_ERROR_DL_RECOVERY };
	long long *sum[] = { &lh->nvl_crc_flit, &lh->nvl_crc_data, &lh->nvl_replay,
			     &lh->nvl_recovery };
	if (lh->nvlink_present < 0)
		lh->nvlink_present = lh->nvlink_up = 0;
	lh->nvlink_present++;
	if (up) {
		lh->nvlink_up++;
	} else {
		size_t k = strlen(lh->nvlink_down);
		snprintf(lh->nvlink_down + k, sizeof(lh->nvlink_down) - k, "%s%u", k ? "," : "", l);
	}
	for (int c = 0; c < 4 && n->link_errors; c++) {
		unsigned long long v = 0;
		if (n->link_errors(h, l, which[c], &v) != NVML_SUCCESS)
			continue;
		*sum[c] = (*sum[c] < 0 ? 0 : *sum[c]) + (long long)v;
	}
}

/* NVLinks of GPU \p i: direct links to other GPUs become links, links to an NVSwitch (or
 * to anything that is not a GPU here) count as switch links. */
static void nvlinks(struct nbw_topo *t, const struct nvml *n, nvmlDevice_t h, int idx,
		    int *map, unsigned ngpu, char (*bus)[24])
{
	int direct[64] = { 0 }, version = 0;
	for (unsigned l = 0; l < NVML_MAX_LINKS; l++) {
		int state = 0, rtype = -1;
		unsigned ver = 0;
		nvml_pci_info rp;
		nvmlReturn_t rc = n->link_state(h, l, &state);
		if (rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED)
			break; /* no such link */
		if (rc == NVML_SUCCESS)
			link_health(n, h, l, state == NVML_FEATURE_ENABLED, &t->dev[idx].health);
		if (rc != NVML_SUCCESS || state != NVML_FEATURE_ENABLED)
			continue;
		if (n->link_version(h, l, &ver) == NVML_SUCCESS && !version)
			version = topo_nvml_version_major(ver);
		memset(&rp, 0, sizeof(rp));
		if (n->remote_pci(h, l, &rp) != NVML_SUCCESS)
			continue;
		if (n->remote_type)
			n->remote_type(h, l, &rtype);
		char rbus[24];
		int tile, peer = -1;
		if (rtype != NVML_NVLINK_DEVICE_TYPE_SWITCH &&
		    topo_busid_parse(rp.busId, rbus, &tile) == 0)
			for (unsigned j = 0; j < ngpu && j < 64; j++)
				if (strcmp(bus[j], rbus) == 0)
					peer = (int)j;
		if (peer >= 0)
			direct[peer]++;
		else
			t->dev[idx].switch_links++;
	}
	t->dev[idx].nvlink_version = version;
	for (unsigned j = 0; j < ngpu && j < 64; j++) {
		/* each pair is listed once (the peer's own pass finds it already there) */
		if (!direct[j] || map[j] < 0 || map[j] == idx)
			continue;
		struct topo_link x = { .a = idx, .b = map[j], .kind = NBW_LINK_NVLINK,
				       .count = direct[j], .hops = 1, .version = version,
				       .api_gbps = -1, .link_gbps = -1 };
		snprintf(x.source, sizeof(x.source), "nvml");
		if (!topo_find_link(t, idx, map[j], false))
			topo_add_link(t, &x);
	}
}

static void nvml_discover(struct nbw_topo *t)
{
	struct nvml n;
	char why[NBW_TOPO_NOTE_LEN];
	memset(&n, 0, sizeof(n));
	if (load(&n, why, sizeof(why))) {
		topo_source(t, "nvml", false, "%s", why);
		if (n.lib)
			dlclose(n.lib);
		return;
	}
	nvmlReturn_t rc = n.init();
	unsigned count = 0;
	if (rc != NVML_SUCCESS) {
		topo_source(t, "nvml", false, "nvmlInit_v2: %s (%d)", nvml_err(&n, rc), rc);
		dlclose(n.lib);
		return;
	}
	rc = n.count(&count);
	if (rc != NVML_SUCCESS || count == 0) {
		topo_source(t, "nvml", false, "nvmlDeviceGetCount_v2: %s", rc != NVML_SUCCESS ?
			    nvml_err(&n, rc) : "no device");
		n.shutdown();
		dlclose(n.lib);
		return;
	}
	if (count > 64)
		count = 64;
	nvmlDevice_t h[64];
	int map[64];
	char bus[64][24];
	for (unsigned i = 0; i < count; i++) {
		nvml_pci_info pi;
		char name[96] = "", b[24];
		int tile;
		map[i] = -1;
		bus[i][0] = '\0';
		if (n.handle(i, &h[i]) != NVML_SUCCESS || n.pci(h[i], &pi) != NVML_SUCCESS ||
		    topo_busid_parse(pi.busId, b, &tile))
			continue;
		n.name(h[i], name, sizeof(name));
		map[i] = topo_add_gpu(t, b, -1, "nvidia", name, "nvml");
		snprintf(bus[i], sizeof(bus[i]), "%s", b);
	}
	for (unsigned i = 0; i < count; i++) {
		unsigned replays = 0;
		if (map[i] < 0)
			continue;
		nvlinks(t, &n, h[i], map[i], map, count, bus);
		if (n.replays && n.replays(h[i], &replays) == NVML_SUCCESS) {
			t->dev[map[i]].health.pcie_replays = replays;
			snprintf(t->dev[map[i]].health.replay_source, 16, "nvml");
		}
	}
	for (unsigned i = 0; i < count; i++)
		for (unsigned j = i + 1; j < count; j++) {
			int level;
			if (map[i] < 0 || map[j] < 0 || n.ancestor(h[i], h[j], &level) != NVML_SUCCESS)
				continue;
			struct topo_link x = { .a = map[i], .b = map[j], .kind = level_kind(level),
					       .hops = 1, .api_gbps = -1, .link_gbps = -1 };
			snprintf(x.source, sizeof(x.source), "nvml");
			topo_add_link(t, &x);
		}
	struct nbw_topo_source *s = topo_source(t, "nvml", true, "%u GPU%s", count,
						count == 1 ? "" : "s");
	if (s)
		s->devices = (int)count;
	n.shutdown();
	dlclose(n.lib);
}

const struct topo_source_ops topo_source_nvml = {
	.name = "nvml",
	.provides = "NVIDIA GPUs and their NVLinks (NVML, loaded at run time)",
	.vendor = true,
	.discover = nvml_discover,
};
