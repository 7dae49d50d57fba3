/* SPDX-License-Identifier: BSD-3-Clause */
/* Level Zero source, loaded with dlopen("libze_loader.so.1") (types from the 1.8 headers):
 * devices and their tiles (subdevices) with PCI addresses; Xe Links from the Sysman fabric
 * ports (a port's remote port id matched against the other ports' ids); bandwidth between
 * two devices or tiles from zeDeviceGetP2PProperties with the experimental bandwidth
 * extension. Two tiles of one device are linked by the multi-die fabric (MDF). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/config.h"
#include "topo_int.h"

#if NBW_TOPO_HAVE_ZE_H
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#define ZE_FN(f) __typeof__(f) *f
struct ze {
	void *lib;
	ZE_FN(zeInit);
	ZE_FN(zeDriverGet);
	ZE_FN(zeDeviceGet);
	ZE_FN(zeDeviceGetSubDevices);
	ZE_FN(zeDeviceGetProperties);
	ZE_FN(zeDevicePciGetPropertiesExt);
	ZE_FN(zeDeviceGetP2PProperties);
	ZE_FN(zesDeviceEnumFabricPorts);      /* Sysman: optional */
	ZE_FN(zesFabricPortGetProperties);
	ZE_FN(zesFabricPortGetState);
};

#define MAX_ENTRIES 64
#define MAX_PORTS 512

struct entry {
	ze_device_handle_t h;
	int root;          /* index of the root device */
	int tile;          /* -1 whole device */
	int idx;           /* topology device index */
};

struct port {
	int entry;
	zes_fabric_port_id_t id, remote;
	bool up;
	double tx_gbps;    /* < 0 unknown */
};

static const char *ze_name(ze_result_t r)
{
	switch (r) {
	case ZE_RESULT_ERROR_UNINITIALIZED: return "ZE_RESULT_ERROR_UNINITIALIZED";
	case ZE_RESULT_ERROR_DEVICE_LOST: return "ZE_RESULT_ERROR_DEVICE_LOST";
	case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE: return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
	case ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE:
		return "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE";
	case ZE_RESULT_ERROR_UNKNOWN: return "ZE_RESULT_ERROR_UNKNOWN";
	default: return "error";
	}
}

static int load(struct ze *z, char *why, size_t len)
{
	z->lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!z->lib) {
		snprintf(why, len, "dlopen: %s", dlerror());
		return -1;
	}
	struct { void **fn; const char *name; bool optional; } syms[] = {
		{ (void **)&z->zeInit, "zeInit", false },
		{ (void **)&z->zeDriverGet, "zeDriverGet", false },
		{ (void **)&z->zeDeviceGet, "zeDeviceGet", false },
		{ (void **)&z->zeDeviceGetSubDevices, "zeDeviceGetSubDevices", false },
		{ (void **)&z->zeDeviceGetProperties, "zeDeviceGetProperties", false },
		{ (void **)&z->zeDevicePciGetPropertiesExt, "zeDevicePciGetPropertiesExt", false },
		{ (void **)&z->zeDeviceGetP2PProperties, "zeDeviceGetP2PProperties", false },
		{ (void **)&z->zesDeviceEnumFabricPorts, "zesDeviceEnumFabricPorts", true },
		{ (void **)&z->zesFabricPortGetProperties, "zesFabricPortGetProperties", true },
		{ (void **)&z->zesFabricPortGetState, "zesFabricPortGetState", true },
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!(*syms[i].fn = dlsym(z->lib, syms[i].name)) && !syms[i].optional) {
			snprintf(why, len, "libze_loader.so.1 has no %s", syms[i].name);
			return -1;
		}
	return 0;
}

/* Root devices and their tiles; returns the number of entries. */
static int devices(struct nbw_topo *t, const struct ze *z, struct entry *e)
{
	ze_driver_handle_t drv[8];
	uint32_t nd = 8;
	int n = 0;
	if (z->zeDriverGet(&nd, drv) != ZE_RESULT_SUCCESS)
		return 0;
	for (uint32_t d = 0; d < nd && d < 8; d++) {
		ze_device_handle_t dev[32];
		uint32_t nv = 32;
		if (z->zeDeviceGet(drv[d], &nv, dev) != ZE_RESULT_SUCCESS)
			continue;
		for (uint32_t v = 0; v < nv && v < 32 && n < MAX_ENTRIES; v++) {
			ze_device_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES };
			ze_pci_ext_properties_t pci = { .stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES };
			char bus[24];
			if (z->zeDeviceGetProperties(dev[v], &p) != ZE_RESULT_SUCCESS ||
			    p.type != ZE_DEVICE_TYPE_GPU ||
			    z->zeDevicePciGetPropertiesExt(dev[v], &pci) != ZE_RESULT_SUCCESS)
				continue;
			snprintf(bus, sizeof(bus), "%04x:%02x:%02x.%x", pci.address.domain & 0xffff,
				 pci.address.bus & 0xff, pci.address.device & 0x1f,
				 pci.address.function & 7);
			ze_device_handle_t sub[16];
			uint32_t ns = 16;
			if (z->zeDeviceGetSubDevices(dev[v], &ns, sub) != ZE_RESULT_SUCCESS)
				ns = 0;
			int root = n;
			e[n++] = (struct entry){ dev[v], root, -1,
						 topo_add_gpu(t, bus, -1, "intel", p.name,
							      "level-zero") };
			for (uint32_t s = 0; s < ns && s < 16 && n < MAX_ENTRIES; s++)
				e[n++] = (struct entry){ sub[s], root, (int)s,
							 topo_add_gpu(t, bus, (int)s, "intel", p.name,
								      "level-zero") };
		}
	}
	return n;
}

/* Every fabric port of every root device, attached to its device or tile entry. */
static int ports(struct nbw_topo *t, const struct ze *z, const struct entry *e, int ne,
		 struct port *p)
{
	int np = 0;
	if (!z->zesDeviceEnumFabricPorts || !z->zesFabricPortGetProperties ||
	    !z->zesFabricPortGetState)
		return 0;
	for (int i = 0; i < ne; i++) {
		zes_fabric_port_handle_t h[64];
		uint32_t n = 64;
		if (e[i].tile >= 0 ||
		    z->zesDeviceEnumFabricPorts((zes_device_handle_t)e[i].h, &n, h) !=
		    ZE_RESULT_SUCCESS)
			continue;
		for (uint32_t k = 0; k < n && k < 64 && np < MAX_PORTS; k++) {
			zes_fabric_port_properties_t pp = {
				.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES };
			zes_fabric_port_state_t st = { .stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE };
			if (z->zesFabricPortGetProperties(h[k], &pp) != ZE_RESULT_SUCCESS ||
			    z->zesFabricPortGetState(h[k], &st) != ZE_RESULT_SUCCESS)
				continue;
			/* Xe Link health: the root device's ports by state */
			struct nbw_link_health *lh = e[i].idx >= 0 ? &t->dev[e[i].idx].health : NULL;
			if (lh) {
				if (lh->xe_ports < 0)
					lh->xe_ports = 0;
				lh->xe_ports++;
				lh->xe_healthy += st.status == ZES_FABRIC_PORT_STATUS_HEALTHY;
				lh->xe_degraded += st.status == ZES_FABRIC_PORT_STATUS_DEGRADED;
				lh->xe_failed += st.status == ZES_FABRIC_PORT_STATUS_FAILED;
				lh->xe_disabled += st.status == ZES_FABRIC_PORT_STATUS_DISABLED;
			}
			int owner = i;
			for (int j = 0; j < ne && pp.onSubdevice; j++)
				if (e[j].root == i && e[j].tile == (int)pp.subdeviceId)
					owner = j;
			p[np++] = (struct port){
				.entry = owner, .id = pp.portId, .remote = st.remotePortId,
				.up = st.status == ZES_FABRIC_PORT_STATUS_HEALTHY ||
				      st.status == ZES_FABRIC_PORT_STATUS_DEGRADED,
				.tx_gbps = pp.maxTxSpeed.bitRate > 0 ?
					   (double)pp.maxTxSpeed.bitRate / 8e9 : -1 };
		}
	}
	return np;
}

static bool same_port(const zes_fabric_port_id_t *a, const zes_fabric_port_id_t *b)
{
	return a->fabricId == b->fabricId && a->attachId == b->attachId &&
	       a->portNumber == b->portNumber;
}

/* The bandwidth extension's figure in GB/s (1 byte/ns = 1 GB/s), or -1. */
static double p2p_gbps(const struct ze *z, const struct entry *a, const struct entry *b)
{
	ze_device_p2p_bandwidth_exp_properties_t bw = {
		.stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_BANDWIDTH_EXP_PROPERTIES };
	ze_device_p2p_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES,
					 .pNext = &bw };
	if (z->zeDeviceGetP2PProperties(a->h, b->h, &p) != ZE_RESULT_SUCCESS ||
	    bw.bandwidthUnit != ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC || bw.physicalBandwidth == 0)
		return -1;
	return (double)bw.physicalBandwidth;
}

static void links(struct nbw_topo *t, const struct ze *z, const struct entry *e, int ne,
		  const struct port *p, int np)
{
	for (int a = 0; a < ne; a++)
		for (int b = a + 1; b < ne; b++) {
			if (e[a].idx < 0 || e[b].idx < 0 || (e[a].tile < 0) != (e[b].tile < 0))
				continue; /* tiles with tiles, whole devices with whole devices */
			struct topo_link x = { .a = e[a].idx, .b = e[b].idx, .hops = 1,
					       .api_gbps = -1, .link_gbps = -1 };
			double fabric = 0;
			snprintf(x.source, sizeof(x.source), "level-zero");
			for (int i = 0; i < np; i++)
				for (int j = i + 1; j < np; j++)
					if (p[i].up && ((p[i].entry == a && p[j].entry == b) ||
							(p[i].entry == b && p[j].entry == a)) &&
					    same_port(&p[i].remote, &p[j].id)) {
						x.count++;
						fabric = fabric >= 0 && p[i].tx_gbps >= 0 ?
							 fabric + p[i].tx_gbps : -1;
					}
			if (e[a].root == e[b].root)
				x.kind = NBW_LINK_MDF;
			else if (x.count > 0)
				x.kind = NBW_LINK_XELINK;
			else
				continue; /* PCIe: from the PCI tree */
			x.api_gbps = p2p_gbps(z, &e[a], &e[b]);
			if (x.api_gbps < 0 && x.kind == NBW_LINK_XELINK && fabric > 0)
				x.api_gbps = fabric;
			topo_add_link(t, &x);
		}
}

static void ze_discover(struct nbw_topo *t)
{
	struct ze z;
	char why[NBW_TOPO_NOTE_LEN];
	memset(&z, 0, sizeof(z));
	if (load(&z, why, sizeof(why))) {
		topo_source(t, "level-zero", false, "%s", why);
		if (z.lib)
			dlclose(z.lib);
		return;
	}
	/* Sysman (fabric ports) answers only when enabled before zeInit. */
	setenv("ZES_ENABLE_SYSMAN", "1", 0);
	ze_result_t rc = z.zeInit(ZE_INIT_FLAG_GPU_ONLY);
	if (rc != ZE_RESULT_SUCCESS) {
		topo_source(t, "level-zero", false, "zeInit: %s (0x%x)", ze_name(rc), (unsigned)rc);
		return; /* the loader stays: unloading it after zeInit is not safe */
	}
	struct entry *e = calloc(MAX_ENTRIES, sizeof(*e));
	struct port *p = calloc(MAX_PORTS, sizeof(*p));
	int ne = e && p ? devices(t, &z, e) : 0;
	if (ne == 0) {
		topo_source(t, "level-zero", false, "zeDeviceGet: no GPU device");
	} else {
		int np = ports(t, &z, e, ne, p), roots = 0;
		links(t, &z, e, ne, p, np);
		for (int i = 0; i < ne; i++)
			roots += e[i].tile < 0;
		struct nbw_topo_source *s = topo_source(t, "level-zero", true, "%d device%s, %d "
			"tile%s, %d fabric port%s%s", roots, roots == 1 ? "" : "s", ne - roots,
			ne - roots == 1 ? "" : "s", np, np == 1 ? "" : "s",
			z.zesDeviceEnumFabricPorts ? "" : " (no Sysman in this loader)");
		if (s)
			s->devices = ne;
	}
	free(e);
	free(p);
}

#else /* no Level Zero headers at build time */

static void ze_discover(struct nbw_topo *t)
{
	topo_source(t, "level-zero", false, "built without the Level Zero headers "
		    "(level_zero/ze_api.h, Debian libze-dev)");
}

#endif

const struct topo_source_ops topo_source_ze = {
	.name = "level-zero",
	.provides = "Intel GPUs, their tiles and Xe Links (Level Zero sysman, loaded at run time)",
	.vendor = true,
	.discover = ze_discover,
};
