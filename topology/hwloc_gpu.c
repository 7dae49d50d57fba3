/* SPDX-License-Identifier: BSD-3-Clause */
/* hwloc's GPU facts, when the topology (live, or an XML a site exported with
 * `lstopo --of xml`) comes from an hwloc built with its NVML, RSMI or Level Zero component:
 * GPU OS devices with GPUVendor / GPUModel infos (the model becomes the device name), and
 * the NVLinkBandwidth, XGMIBandwidth and XeLinkBandwidth distance matrices (MB/s per
 * direction, between GPU OS devices and, heterogeneously, NVSwitch PCI devices or CPU-side
 * objects). Each GPU pair's figure (the maximum flow through the switches, one tier or
 * several: fabric.c) is kept by bus id; matrix.c uses it when no vendor API
 * gave the pair one, and cross-checks it against the vendor figure otherwise.
 * Debian's hwloc has no GPU components: on the live machine this finds nothing there.
 * Two sources (hwloc-gpu for the above; hwloc-pci for the PCI GPUs and accelerators any
 * hwloc sees, named from the PCI database). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

static const struct {
	const char *matrix;
	enum nbw_link_kind kind;
} matrices[] = {
	{ "NVLinkBandwidth", NBW_LINK_NVLINK },
	{ "XGMIBandwidth", NBW_LINK_XGMI },
	{ "XeLinkBandwidth", NBW_LINK_XELINK },
};

/* The PCI device an object is or hangs below (an OS device's parent), or NULL. */
static hwloc_obj_t pci_of(hwloc_obj_t o)
{
	for (; o; o = o->parent) {
		if (o->type == HWLOC_OBJ_PCI_DEVICE)
			return o;
		if (o->type != HWLOC_OBJ_OS_DEVICE)
			return NULL;
	}
	return NULL;
}

static void busid(hwloc_obj_t pci, char out[24])
{
	const struct hwloc_pcidev_attr_s *pa = &pci->attr->pcidev;
	snprintf(out, 24, "%04x:%02x:%02x.%x", (unsigned)pa->domain, (unsigned)pa->bus,
		 (unsigned)pa->dev, (unsigned)pa->func);
}

static bool is_gpu(hwloc_obj_t o)
{
	if (o->type == HWLOC_OBJ_OS_DEVICE)
		return (o->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU ||
			o->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC) && pci_of(o);
	if (o->type == HWLOC_OBJ_PCI_DEVICE) {
		unsigned base = o->attr->pcidev.class_id >> 8;
		return base == 0x03 || base == 0x12;
	}
	return false;
}

/* A switch in the matrix: hwloc's NVML backend marks an NVSwitch PCI device (class 0680,
 * NVIDIA) with subtype "NVSwitch". CPU-side objects (POWER's NVLink to the CPU) are not. */
static bool is_switch(hwloc_obj_t o)
{
	if (o->type != HWLOC_OBJ_PCI_DEVICE)
		return false;
	if (o->subtype && strcmp(o->subtype, "NVSwitch") == 0)
		return true;
	return o->attr->pcidev.vendor_id == 0x10de && o->attr->pcidev.class_id == 0x0680;
}

static int add_fig(struct nbw_topo *t, const struct topo_hwfig *h)
{
	if (t->nhwfig == t->caphwfig) {
		size_t cap = t->caphwfig ? t->caphwfig * 2 : 32;
		struct topo_hwfig *n = realloc(t->hwfig, cap * sizeof(*n));
		if (!n)
			return -1;
		t->hwfig = n;
		t->caphwfig = cap;
	}
	t->hwfig[t->nhwfig++] = *h;
	return 0;
}

/* Whether object i has a link to a switch in the matrix. */
static bool reaches_switch(const double *cap, unsigned n, const bool *sw, unsigned i)
{
	for (unsigned s = 0; s < n; s++)
		if (sw[s] && s != i && cap[(size_t)i * n + s] > 0)
			return true;
	return false;
}

/* One GPU pair's figure: the maximum flow through the switches (fabric.c). */
static void pair_flow(const struct hwloc_distances_s *d, const double *cap, const bool *sw,
		      unsigned i, unsigned j, struct topo_hwfig *h)
{
	unsigned n = d->nbobjs;
	struct topo_flow f;
	h->direct_gbps = cap[(size_t)i * n + j] / 1e3;
	if (topo_fabric_flow(cap, n, sw, i, j, &f))
		return;
	h->gbps = f.mbps / 1e3; /* MB/s -> GB/s, both decimal */
	h->nswitch = f.switches;
	h->paths = f.paths;
	h->tiers = f.tiers;
	h->narrowest_gbps = f.narrowest_mbps / 1e3;
	h->widest_gbps = f.widest_mbps / 1e3;
	h->unjoined = h->gbps <= 0 && reaches_switch(cap, n, sw, i) &&
		      reaches_switch(cap, n, sw, j);
}

/* One matrix: every pair of GPUs gets what can flow between them over the direct entry
 * and through the switches, one tier or several (GPU-switch and switch-switch entries).
 * Returns the GPU pairs with a figure; *unjoined counts the pairs whose GPUs both reach
 * switches that no switch path joins (kept with figure 0, for the matrix to say so). */
static int read_matrix(struct nbw_topo *t, const struct hwloc_distances_s *d,
		       enum nbw_link_kind kind, const char *name, unsigned *ngpu, unsigned *nsw,
		       int *unjoined)
{
	unsigned n = d->nbobjs;
	int pairs = 0;
	*ngpu = *nsw = 0;
	*unjoined = 0;
	double *cap = malloc((size_t)n * n * sizeof(*cap));
	bool *sw = malloc(n * sizeof(*sw));
	if (!cap || !sw) {
		free(cap), free(sw);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		*ngpu += is_gpu(d->objs[i]);
		sw[i] = is_switch(d->objs[i]);
		*nsw += sw[i];
	}
	for (size_t k = 0; k < (size_t)n * n; k++)
		cap[k] = (double)d->values[k];
	for (unsigned i = 0; i < n; i++) {
		if (!is_gpu(d->objs[i]))
			continue;
		for (unsigned j = i + 1; j < n; j++) {
			if (!is_gpu(d->objs[j]))
				continue;
			struct topo_hwfig h = { .kind = kind };
			busid(pci_of(d->objs[i]), h.a);
			busid(pci_of(d->objs[j]), h.b);
			if (strcmp(h.a, h.b) == 0)
				continue;
			snprintf(h.matrix, sizeof(h.matrix), "%s", name);
			pair_flow(d, cap, sw, i, j, &h);
			if ((h.gbps > 0 || h.unjoined) && add_fig(t, &h) == 0) {
				pairs += h.gbps > 0;
				*unjoined += h.unjoined;
			}
		}
	}
	free(cap), free(sw);
	return pairs;
}

static const char *vendor_of(unsigned id)
{
	return id == 0x10de ? "nvidia" : id == 0x1002 ? "amd" : id == 0x8086 ? "intel" : "";
}

/* GPU OS devices with a GPUModel info name their PCI device. */
static int read_names(struct nbw_topo *t, char *backends, size_t len)
{
	int named = 0;
	backends[0] = '\0';
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(t->hw, o));) {
		hwloc_obj_t pci = pci_of(o);
		const char *model = hwloc_obj_get_info_by_name(o, "GPUModel");
		if (!pci || !model || !*model || !is_gpu(o))
			continue;
		const char *be = hwloc_obj_get_info_by_name(o, "Backend");
		char bus[24], src[48];
		busid(pci, bus);
		int k = topo_find(t, bus);
		/* another hwloc backend (CUDA and NVML both add one) named it already */
		if (k >= 0 && strncmp(t->dev[k].name_source, "hwloc", 5) == 0)
			continue;
		k = topo_add_gpu(t, bus, -1, vendor_of(pci->attr->pcidev.vendor_id), model,
				 "hwloc");
		if (k < 0)
			continue;
		snprintf(src, sizeof(src), "hwloc GPUModel (%s)", be ? be : "?");
		snprintf(t->dev[k].name_source, sizeof(t->dev[k].name_source), "%s", src);
		named++;
		if (be && !strstr(backends, be)) {
			size_t l = strlen(backends);
			snprintf(backends + l, len - l, "%s%s", l ? ", " : "", be);
		}
	}
	return named;
}

static void hwloc_gpu_discover(struct nbw_topo *t)
{
	if (!t->hw)
		return;
	char detail[sizeof(((struct nbw_topo_source *)0)->detail)], backends[64];
	int named = read_names(t, backends, sizeof(backends));
	size_t len = 0;
	detail[0] = '\0';
	if (named)
		len += (size_t)snprintf(detail, sizeof(detail), "GPUModel for %d GPU%s (%s)", named,
					named == 1 ? "" : "s", backends);
	for (size_t m = 0; m < sizeof(matrices) / sizeof(matrices[0]); m++) {
		unsigned nr = 1;
		struct hwloc_distances_s *d = NULL;
		if (hwloc_distances_get_by_name(t->hw, matrices[m].matrix, &nr, &d, 0) || !nr)
			continue;
		unsigned ngpu, nsw;
		int unjoined;
		int pairs = read_matrix(t, d, matrices[m].kind, matrices[m].matrix, &ngpu, &nsw,
					&unjoined);
		hwloc_distances_release(t->hw, d);
		if (len < sizeof(detail))
			len += (size_t)snprintf(detail + len, sizeof(detail) - len,
						"%s%s (MB/s): %u GPUs, %u switch%s, %d GPU pairs",
						len ? "; " : "", matrices[m].matrix, ngpu, nsw,
						nsw == 1 ? "" : "es", pairs);
		if (unjoined && len < sizeof(detail))
			len += (size_t)snprintf(detail + len, sizeof(detail) - len,
						" (%d more reach switches that no switch-switch "
						"entry joins)", unjoined);
	}
	if (detail[0])
		topo_source(t, "hwloc-gpu", true, "%s", detail);
	else
		topo_source(t, "hwloc-gpu", false, "no GPU OS device with GPUModel and no "
			    "NVLinkBandwidth, XGMIBandwidth or XeLinkBandwidth matrix (an hwloc "
			    "without its NVML, RSMI or Level Zero component)");
}

void topo_hwfig_source(const struct nbw_topo *t, const struct topo_hwfig *h, char *buf,
		       size_t len)
{
	snprintf(buf, len, "hwloc%s %s (MB/s)", t->fixture ? " XML" : "", h->matrix);
}

static const char *vendor_name(unsigned id)
{
	switch (id) {
	case 0x10de: return "nvidia";
	case 0x1002: return "amd";
	case 0x8086: return "intel";
	default: return NULL;
	}
}

/* The PCI GPUs and accelerators hwloc sees (class 03xx, 12xx), named from the PCI
 * database (seen by "pci"). */
static void hwloc_pci_discover(struct nbw_topo *t)
{
	if (!t->hw)
		return;
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(t->hw, o));) {
		const struct hwloc_pcidev_attr_s *pa = &o->attr->pcidev;
		unsigned base = pa->class_id >> 8;
		const char *vendor = vendor_name(pa->vendor_id);
		/* display controllers and processing accelerators of the GPU vendors (not the
		 * BMC's VGA chip) */
		if ((base != 0x03 && base != 0x12) || !vendor)
			continue;
		char bus[24], name[NBW_NAME_LEN];
		snprintf(bus, sizeof(bus), "%04x:%02x:%02x.%x", (unsigned)pa->domain,
			 (unsigned)pa->bus, (unsigned)pa->dev, (unsigned)pa->func);
		const char *model = hwloc_obj_get_info_by_name(o, "PCIDevice");
		if (model)
			snprintf(name, sizeof(name), "%s", model);
		else
			snprintf(name, sizeof(name), "PCI %04x:%04x (class %04x)", pa->vendor_id,
				 pa->device_id, pa->class_id);
		topo_add_gpu(t, bus, -1, vendor, name, "pci");
	}
}

const struct topo_source_ops topo_source_hwloc_pci = {
	.name = "hwloc-pci",
	.provides = "the PCI GPUs and accelerators of NVIDIA, AMD and Intel hwloc sees",
	.discover = hwloc_pci_discover,
};

const struct topo_source_ops topo_source_hwloc_gpu = {
	.name = "hwloc-gpu",
	.provides = "GPU names (GPUModel) and hwloc's NVLink, XGMI and Xe Link bandwidth matrices",
	.discover = hwloc_gpu_discover,
};
