/* SPDX-License-Identifier: BSD-3-Clause */
/* hwloc, the host every other source hangs on: packages, NUMA nodes, cores and PUs; the PCI
 * tree (bridges, devices) and the locality of a PCI device. Debian's hwloc has no GPU backends, so GPU facts come from
 * the vendor sources; hwloc gives where each PCI device sits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

static unsigned count(hwloc_topology_t hw, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(hw, type);
	return n > 0 ? (unsigned)n : 0;
}

/* The root element's version attribute (<topology version="3.0">) into \p ver, and its
 * major number; -1 when the first 64 KiB of the text do not say. */
static int xml_version(const char *xml, size_t len, char *ver, size_t verlen)
{
	ver[0] = '\0';
	size_t cap = len < 64 * 1024 ? len : 64 * 1024;
	char *buf = malloc(cap + 1);
	if (!buf)
		return -1;
	memcpy(buf, xml, cap);
	buf[cap] = '\0';
	int major = -1;
	const char *p = strstr(buf, "<topology");
	const char *end = p ? strchr(p, '>') : NULL;
	const char *v = p ? strstr(p, "version=") : NULL;
	if (v && end && v < end && (v[8] == '"' || v[8] == '\'')) {
		major = (int)strtol(v + 9, NULL, 10);
		size_t k = strcspn(v + 9, "\"'>");
		snprintf(ver, verlen, "%.*s", (int)(k < 16 ? k : 16), v + 9);
	}
	free(buf);
	return major;
}

int topo_hwloc_load(struct nbw_topo *t, const char *xml_path, const char *xml, size_t xml_len,
		    char *err, size_t errlen)
{
	if (hwloc_topology_init(&t->hw)) {
		snprintf(err, errlen, "hwloc_topology_init: %s", strerror(errno));
		t->hw = NULL;
		return -1;
	}
	/* PCI devices and bridges that matter (GPUs, NICs, storage, and bridges above them). */
	hwloc_topology_set_io_types_filter(t->hw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	/* hwloc's Linux backend reads the PCI tree from sysfs itself; its "pci" component
	 * would use libpciaccess instead, which keeps memory after the topology is gone. */
	hwloc_topology_set_components(t->hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
	/* the text nbw_readfile read (size counts the NUL, as hwloc's own export does) */
	if (xml_path && (xml_len >= INT_MAX ||
			 hwloc_topology_set_xmlbuffer(t->hw, xml, (int)xml_len + 1))) {
		snprintf(err, errlen, "%s: hwloc cannot read this XML topology "
			 "(hwloc_topology_set_xmlbuffer: %s)", xml_path,
			 xml_len >= INT_MAX ? "too large" : strerror(errno));
		return -1;
	}
	if (hwloc_topology_load(t->hw)) {
		char ver[24];
		int major = xml_path ? xml_version(xml, xml_len, ver, sizeof(ver)) : -1;
		if (major > HWLOC_API_VERSION >> 16)
			snprintf(err, errlen, "%s: an hwloc %d.x XML topology (topology version=\"%s"
				 "\"), a newer format than this nodebw reads: hwloc %u.x XML (built "
				 "with hwloc %s, HWLOC_API_VERSION 0x%08x); export it with an hwloc "
				 "%u.x lstopo (lstopo --of xml)", xml_path, major, ver,
				 (unsigned)(HWLOC_API_VERSION >> 16), HWLOC_VERSION,
				 (unsigned)HWLOC_API_VERSION, (unsigned)(HWLOC_API_VERSION >> 16));
		else if (xml_path)
			snprintf(err, errlen, "%s: not an hwloc XML topology (hwloc_topology_load: "
				 "%s)", xml_path, strerror(errno));
		else
			snprintf(err, errlen, "hwloc_topology_load: %s", strerror(errno));
		return -1;
	}
	unsigned npci = 0;
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(t->hw, o));)
		npci++;
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	topo_source(t, "hwloc", true, "hwloc %s%s%s: %u package%s, %u NUMA node%s, %u cores, "
		    "%u PUs, %u PCI devices kept (GPUs, NICs, storage)", HWLOC_VERSION,
		    xml_path ? " from " : "", xml_path ? xml_path : "", h.packages,
		    h.packages == 1 ? "" : "s", h.numa_nodes, h.numa_nodes == 1 ? "" : "s", h.cores,
		    h.pus, npci);
	return 0;
}

void nbw_topo_host(const struct nbw_topo *t, struct nbw_topo_host *out)
{
	memset(out, 0, sizeof(*out));
	if (!t || !t->hw)
		return;
	out->packages = count(t->hw, HWLOC_OBJ_PACKAGE);
	out->numa_nodes = count(t->hw, HWLOC_OBJ_NUMANODE);
	out->cores = count(t->hw, HWLOC_OBJ_CORE);
	out->pus = count(t->hw, HWLOC_OBJ_PU);
	const char *host = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t->hw), "HostName");
	snprintf(out->hostname, sizeof(out->hostname), "%s", host ? host : "");
	hwloc_obj_t pkg = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_PACKAGE, 0);
	const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	snprintf(out->cpu_model, sizeof(out->cpu_model), "%s", model ? model : "");
}

int nbw_topo_numa(const struct nbw_topo *t, unsigned i, struct nbw_topo_numa *out)
{
	memset(out, 0, sizeof(*out));
	hwloc_obj_t n = t && t->hw ? hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, i) : NULL;
	if (!n)
		return -1;
	out->os_index = (int)n->os_index;
	out->memory_bytes = n->attr ? n->attr->numanode.local_memory : 0;
	if (n->cpuset && !hwloc_bitmap_iszero(n->cpuset))
		hwloc_bitmap_list_snprintf(out->cpuset, sizeof(out->cpuset), n->cpuset);
	out->package = -1;
	hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t->hw, HWLOC_OBJ_PACKAGE, n);
	if (pkg)
		out->package = (int)pkg->os_index;
	return 0;
}

hwloc_obj_t topo_hwloc_pcidev(const struct nbw_topo *t, const char *bus_id)
{
	unsigned d, b, v, f;
	if (!t->hw || sscanf(bus_id, "%x:%x:%x.%x", &d, &b, &v, &f) != 4)
		return NULL;
	return hwloc_get_pcidev_by_busid(t->hw, d, b, v, f);
}

void topo_hwloc_path(hwloc_obj_t o, struct topo_pci_path *p)
{
	char chain[TOPO_MAX_CHAIN][16];
	int n = 0;
	memset(p, 0, sizeof(*p));
	p->origin = 'h';
	for (hwloc_obj_t up = o->parent; up; up = up->parent) {
		if (up->type != HWLOC_OBJ_BRIDGE) {
			/* reached the CPU side without a host bridge */
			snprintf(p->root, sizeof(p->root), "hwloc-obj-%llu",
				 (unsigned long long)up->gp_index);
			break;
		}
		if (up->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
			snprintf(p->root, sizeof(p->root), "hwloc-hostbridge-%llu",
				 (unsigned long long)up->gp_index);
			break;
		}
		if (n < TOPO_MAX_CHAIN) {
			const struct hwloc_pcidev_attr_s *pa = &up->attr->bridge.upstream.pci;
			snprintf(chain[n++], sizeof(chain[0]), "%04x:%02x:%02x.%x",
				 (unsigned)pa->domain, (unsigned)pa->bus, (unsigned)pa->dev,
				 (unsigned)pa->func);
		}
	}
	/* chain runs upwards; the path runs from the root port down */
	for (int i = 0; i < n; i++)
		memcpy(p->bridge[i], chain[n - 1 - i], sizeof(p->bridge[0]));
	p->n = n;
}

void topo_hwloc_locality(const struct nbw_topo *t, hwloc_obj_t o, int *numa, char *cpus,
			 size_t len)
{
	*numa = -1;
	cpus[0] = '\0';
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t->hw, o);
	if (!anc)
		return;
	if (anc->nodeset && hwloc_bitmap_weight(anc->nodeset) == 1)
		*numa = hwloc_bitmap_first(anc->nodeset);
	if (anc->cpuset)
		hwloc_bitmap_list_snprintf(cpus, len, anc->cpuset);
}

int topo_hwloc_numa_cpus(const struct nbw_topo *t, int node, char *cpus, size_t len)
{
	cpus[0] = '\0';
	hwloc_obj_t n = t->hw && node >= 0 ?
		hwloc_get_numanode_obj_by_os_index(t->hw, (unsigned)node) : NULL;
	if (!n || !n->cpuset)
		return -1;
	hwloc_bitmap_list_snprintf(cpus, len, n->cpuset);
	return 0;
}
