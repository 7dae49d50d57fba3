/* SPDX-License-Identifier: BSD-3-Clause */
/* The device-to-device matrix: one label per pair in the style of `nvidia-smi topo -m`
 * (NV#, PIX, PXB, PHB, NODE, SYS), its AMD (XGMI#) and Intel (XL#, MDF) equivalents, and
 * the theoretical bandwidth per direction of each pair. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "topo_int.h"

static const struct {
	const char *name, *legend;
} kinds[NBW_LINK_KIND_COUNT] = {
	[NBW_LINK_SELF] = { "self", "X    = self" },
	[NBW_LINK_NVLINK] = { "nvlink", "NV#  = a bonded set of # NVLinks (direct, or through "
			      "NVSwitch: the links each GPU has to the switches)" },
	[NBW_LINK_XGMI] = { "xgmi", "XGMI# = # xGMI (AMD Infinity Fabric) links; XGMI alone: "
			    "several hops or link count unknown" },
	[NBW_LINK_XELINK] = { "xelink", "XL#  = # Xe Links (Intel) between the two tiles" },
	[NBW_LINK_MDF] = { "mdf", "MDF  = two tiles of one package (Intel multi-die fabric)" },
	[NBW_LINK_PIX] = { "pix", "PIX  = PCIe through at most a single PCIe switch" },
	[NBW_LINK_PXB] = { "pxb", "PXB  = PCIe through several PCIe bridges, no host bridge" },
	[NBW_LINK_PHB] = { "phb", "PHB  = PCIe through a PCIe host bridge (the CPU's root "
			   "complex)" },
	[NBW_LINK_NODE] = { "node", "NODE = PCIe and the interconnect between host bridges "
			    "within one NUMA node" },
	[NBW_LINK_SYS] = { "sys", "SYS  = PCIe and the SMP interconnect between NUMA nodes "
			   "(UPI, xGMI between sockets)" },
	[NBW_LINK_HOST] = { "host", "HOST = host memory on a side: no link" },
	[NBW_LINK_UNKNOWN] = { "unknown", "?    = not known" },
};

const char *nbw_link_kind_name(enum nbw_link_kind k)
{
	return k < NBW_LINK_KIND_COUNT ? kinds[k].name : "unknown";
}

const char *nbw_link_kind_legend(enum nbw_link_kind k)
{
	return k < NBW_LINK_KIND_COUNT ? kinds[k].legend : "";
}

const char *topo_kind_from_name(const char *s, enum nbw_link_kind *k)
{
	for (int i = 0; i < NBW_LINK_KIND_COUNT; i++)
		if (strcasecmp(s, kinds[i].name) == 0) {
			*k = (enum nbw_link_kind)i;
			return kinds[i].name;
		}
	return NULL;
}

static void set(struct nbw_topo_pair *o, enum nbw_link_kind k, const char *label,
		double gbps, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void set(struct nbw_topo_pair *o, enum nbw_link_kind k, const char *label,
		double gbps, const char *fmt, ...)
{
	o->kind = k;
	snprintf(o->label, sizeof(o->label), "%s", label);
	o->theoretical_gbps = gbps;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->basis, sizeof(o->basis), fmt, ap);
	va_end(ap);
}

/* A link an API reported (NVLink, xGMI, Xe Link, MDF). */
static void direct(const struct topo_link *l, struct nbw_topo_pair *o)
{
	static const char *const prefix[] = { [NBW_LINK_NVLINK] = "NV", [NBW_LINK_XGMI] = "XGMI",
					      [NBW_LINK_XELINK] = "XL", [NBW_LINK_MDF] = "MDF" };
	static const char *const what[] = { [NBW_LINK_NVLINK] = "NVLink",
					    [NBW_LINK_XGMI] = "xGMI",
					    [NBW_LINK_XELINK] = "Xe Link",
					    [NBW_LINK_MDF] = "multi-die fabric" };
	char label[16], ver[16] = "";
	double per = l->link_gbps >= 0 ? l->link_gbps :
		     l->kind == NBW_LINK_NVLINK ? topo_nvlink_gbps(l->version) : -1;
	if (l->kind == NBW_LINK_NVLINK && l->version)
		snprintf(ver, sizeof(ver), " %d", l->version);
	o->links = l->count;
	o->hops = l->hops > 0 ? l->hops : 1;
	if (l->count > 0 && l->kind != NBW_LINK_MDF && o->hops == 1)
		snprintf(label, sizeof(label), "%s%d", prefix[l->kind], l->count);
	else
		snprintf(label, sizeof(label), "%s", prefix[l->kind]);
	if (o->hops > 1)
		set(o, l->kind, label, -1, "%d hops over %s, no direct link: the route's bandwidth "
		    "is not known", o->hops, what[l->kind]);
	else if (l->api_gbps >= 0)
		set(o, l->kind, label, l->api_gbps, "%s as %s reports it%s", what[l->kind],
		    l->source, l->count > 0 || l->kind == NBW_LINK_MDF ? "" :
		    " (link count not reported)");
	else if (l->count > 0 && per >= 0)
		set(o, l->kind, label, l->count * per, "%d %s%s link%s x %g GB/s", l->count,
		    what[l->kind], ver, l->count == 1 ? "" : "s", per);
	else
		set(o, l->kind, label, -1, "%s: %s", what[l->kind],
		    l->count > 0 ? "per-link rate not known" : "link count not reported");
}

static void pcie_gbps(const struct topo_dev *a, const struct topo_dev *b,
		      struct nbw_topo_pair *o, const char *via)
{
	double ga = a->pub.link.theoretical_gbps, gb = b->pub.link.theoretical_gbps;
	char label[16];
	snprintf(label, sizeof(label), "%s", o->label);
	if (ga < 0 || gb < 0) {
		set(o, o->kind, label, -1, "PCIe peer-to-peer: a host link's rate is not known");
		return;
	}
	char sa[16], sb[16];
	topo_fmt_gbps(sa, sizeof(sa), ga);
	topo_fmt_gbps(sb, sizeof(sb), gb);
	set(o, o->kind, label, ga < gb ? ga : gb,
	    "PCIe peer-to-peer: the slower of the two host links (%s and %s GB/s)%s", sa, sb, via);
}

/* PIX/PXB/PHB/NODE/SYS from the two PCI paths (or NVML's answer when they are unknown). */
static void pcie_pair(const struct nbw_topo *t, int i, int j, struct nbw_topo_pair *o)
{
	const struct topo_dev *a = &t->dev[i], *b = &t->dev[j];
	struct topo_pci_path pa, pb;
	enum nbw_link_kind k = NBW_LINK_UNKNOWN;
	const char *via = "";
	pa = a->path;
	pb = b->path;
	if (pa.origin != pb.origin && a->sys_path.origin && b->sys_path.origin) {
		/* one is known to hwloc only: compare the two sysfs bus paths instead */
		pa = a->sys_path;
		pb = b->sys_path;
	}
	const struct topo_link *hint = topo_find_link(t, i, j, true);
	if (pa.origin && pa.origin == pb.origin && strcmp(pa.root, pb.root) == 0) {
		int c = 0;
		while (c < pa.n && c < pb.n && strcmp(pa.bridge[c], pb.bridge[c]) == 0)
			c++;
		if (c == 0)
			k = NBW_LINK_PHB;
		else
			k = pa.n - c <= 1 && pb.n - c <= 1 ? NBW_LINK_PIX : NBW_LINK_PXB;
	} else if (pa.origin && pa.origin == pb.origin) {
		int na = a->pub.link.numa_node, nb = b->pub.link.numa_node;
		if (na >= 0 && nb >= 0)
			k = na == nb ? NBW_LINK_NODE : NBW_LINK_SYS;
		else if (a->pub.link.cpuset[0] &&
			 strcmp(a->pub.link.cpuset, b->pub.link.cpuset) == 0)
			k = NBW_LINK_NODE;
		else
			k = NBW_LINK_SYS; /* worst case */
	} else if (hint) {
		k = hint->kind;
	}
	if (k == NBW_LINK_SYS)
		via = "; the SMP interconnect's share is not counted";
	else if (k == NBW_LINK_NODE || k == NBW_LINK_PHB)
		via = "; through the root complex";
	o->kind = k;
	o->hops = 1;
	snprintf(o->label, sizeof(o->label), "%s",
		 k == NBW_LINK_UNKNOWN ? "?" : k == NBW_LINK_PIX ? "PIX" : k == NBW_LINK_PXB ?
		 "PXB" : k == NBW_LINK_PHB ? "PHB" : k == NBW_LINK_NODE ? "NODE" : "SYS");
	if (k == NBW_LINK_UNKNOWN)
		set(o, k, "?", -1, "PCI path of %s or %s not known", a->pub.id, b->pub.id);
	else
		pcie_gbps(a, b, o, via);
}

/* NVLink generation of a GPU model name, from NVIDIA's published specifications; 0 when
 * the name does not say. Used only when no vendor API reported the version. */
static int nvlink_version_of_model(const char *name)
{
	static const struct { const char *part; int version; } models[] = {
		{ "GB200", 5 }, { "B200", 5 }, { "B100", 5 }, { "GH200", 4 }, { "H200", 4 },
		{ "H100", 4 }, { "H800", 4 }, { "A100", 3 }, { "A800", 3 }, { "V100", 2 },
		{ "P100", 1 },
	};
	for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++)
		if (strstr(name, models[k].part))
			return models[k].version;
	return 0;
}

/* How hwloc's figure was reached: the direct entry, and the paths through switches. */
static void hwloc_via(const struct topo_hwfig *h, char *via, size_t len)
{
	char hop[48];
	via[0] = '\0';
	if (!h->nswitch)
		return;
	if (h->narrowest_gbps < h->widest_gbps * 0.999)
		snprintf(hop, sizeof(hop), "narrowest hops %.0f-%.0f", h->narrowest_gbps * 1e3,
			 h->widest_gbps * 1e3);
	else
		snprintf(hop, sizeof(hop), "narrowest hop %.0f", h->narrowest_gbps * 1e3);
	if (h->tiers <= 1)
		snprintf(via, len, " (%.0f direct + via %d switch%s: per switch the lower "
			 "GPU-switch figure, summed)", h->direct_gbps * 1e3, h->nswitch,
			 h->nswitch == 1 ? "" : "es");
	else
		snprintf(via, len, " = max flow: %d path%s GPU-switch-...-GPU, up to %d "
			 "switches in series (%d in all); per path its %s MB/s, summed",
			 h->paths, h->paths == 1 ? "" : "s", h->tiers, h->nswitch, hop);
}

/* A pair known only from hwloc's GPU distance matrix. A route through several switches
 * in series gets "-<k>SW" after its label (NV6-2SW). */
static void hwloc_pair(const struct nbw_topo *t, const struct topo_hwfig *h, int i, int j,
		       struct nbw_topo_pair *o)
{
	const struct topo_dev *a = &t->dev[i], *b = &t->dev[j];
	char via[160], label[16], what[48] = "", tier[8] = "";
	hwloc_via(h, via, sizeof(via));
	if (h->tiers > 1)
		snprintf(tier, sizeof(tier), "-%dSW", h->tiers > 9 ? 9 : h->tiers);
	topo_hwfig_source(t, h, o->source, sizeof(o->source));
	o->hops = 1;
	if (h->kind == NBW_LINK_NVLINK) {
		int va = a->nvlink_version ? a->nvlink_version : nvlink_version_of_model(a->pub.name);
		int vb = b->nvlink_version ? b->nvlink_version : nvlink_version_of_model(b->pub.name);
		int v = va && vb ? (va < vb ? va : vb) : 0;
		double per = v ? topo_nvlink_gbps(v) : -1;
		double n = per > 0 ? h->gbps / per : 0;
		if (per > 0 && n >= 1 && fabs(n - round(n)) < 0.01) {
			o->links = (int)round(n);
			snprintf(label, sizeof(label), "NV%d%s", o->links, tier);
			snprintf(what, sizeof(what), " = %d x %g GB/s NVLink %d%s", o->links, per, v,
				 a->nvlink_version && b->nvlink_version ? "" :
				 " (version from GPUModel)");
		} else {
			snprintf(label, sizeof(label), "NVLink%s", tier);
		}
	} else {
		snprintf(label, sizeof(label), "%s%s", h->kind == NBW_LINK_XGMI ? "XGMI" : "XL",
			 tier);
	}
	set(o, h->kind, label, h->gbps, "%s %.0f MB/s%s%s", h->matrix, h->gbps * 1e3, via,
	    what);
}

/* A vendor figure and hwloc's for the same pair: keep the vendor one, record both. */
static void cross_check(const struct nbw_topo *t, const struct topo_hwfig *h,
			struct nbw_topo_pair *o)
{
	if (!h || h->gbps <= 0)
		return;
	o->hwloc_gbps = h->gbps;
	topo_hwfig_source(t, h, o->hwloc_source, sizeof(o->hwloc_source));
	o->disagree = o->theoretical_gbps < 0 ||
		      fabs(o->theoretical_gbps - h->gbps) > 0.10 * h->gbps;
}

void topo_pair_idx(const struct nbw_topo *t, int i, int j, struct nbw_topo_pair *o)
{
	const struct topo_dev *a = &t->dev[i], *b = &t->dev[j];
	memset(o, 0, sizeof(*o));
	o->hops = 1;
	o->hwloc_gbps = -1;
	if (i == j) {
		set(o, NBW_LINK_SELF, "X", -1, "the same device");
		return;
	}
	if (!a->pub.pci_bus_id[0] || !b->pub.pci_bus_id[0]) {
		set(o, NBW_LINK_HOST, "HOST", -1, "host memory, no link");
		return;
	}
	const struct topo_link *l = topo_find_link(t, i, j, false);
	const struct topo_hwfig *h = topo_find_hwfig(t, i, j);
	if (l) {
		direct(l, o);
		snprintf(o->source, sizeof(o->source), "%s", l->source);
		cross_check(t, h, o);
		return;
	}
	if (strcmp(a->pub.pci_bus_id, b->pub.pci_bus_id) == 0) {
		set(o, NBW_LINK_MDF, "MDF", -1, "two tiles of one device; no bandwidth reported");
		return;
	}
	if (a->switch_links > 0 && b->switch_links > 0) {
		int n = a->switch_links < b->switch_links ? a->switch_links : b->switch_links;
		int v = a->nvlink_version < b->nvlink_version ? a->nvlink_version :
			b->nvlink_version;
		double per = topo_nvlink_gbps(v);
		char label[16];
		snprintf(label, sizeof(label), "NV%d", n);
		o->links = n;
		if (per >= 0)
			set(o, NBW_LINK_NVLINK, label, n * per, "%d NVLink %d links x %g GB/s "
			    "through NVSwitch", n, v, per);
		else
			set(o, NBW_LINK_NVLINK, label, -1, "%d NVLinks through NVSwitch, version "
			    "%d: per-link rate not known", n, v);
		char first[32];
		snprintf(first, sizeof(first), "%s", a->pub.seen_by);
		char *w = first;
		for (char *s = NULL, *x = strtok_r(first, ",", &s); x; x = strtok_r(NULL, ",", &s))
			if (strcmp(x, "pci") != 0 && strcmp(x, "hwloc") != 0) {
				w = x;
				break;
			}
		snprintf(o->source, sizeof(o->source), "%s (NVLinks to NVSwitch)", w);
		cross_check(t, h, o);
		return;
	}
	if (h && h->gbps > 0) {
		hwloc_pair(t, h, i, j, o);
		return;
	}
	pcie_pair(t, i, j, o);
	snprintf(o->source, sizeof(o->source), "PCIe host links");
	if (h && h->unjoined) {
		size_t len = strlen(o->basis);
		snprintf(o->basis + len, sizeof(o->basis) - len, "; hwloc's %s links both GPUs "
			 "to switches but no switch-switch entry joins them, so no NVLink route "
			 "is known", h->matrix);
	}
}

void topo_pcie_idx(const struct nbw_topo *t, int i, int j, struct nbw_topo_pair *o)
{
	memset(o, 0, sizeof(*o));
	o->hops = 1;
	if (i == j)
		set(o, NBW_LINK_SELF, "X", -1, "the same device");
	else if (!t->dev[i].pub.pci_bus_id[0] || !t->dev[j].pub.pci_bus_id[0])
		set(o, NBW_LINK_HOST, "HOST", -1, "host memory, no link");
	else if (strcmp(t->dev[i].pub.pci_bus_id, t->dev[j].pub.pci_bus_id) == 0)
		set(o, NBW_LINK_MDF, "MDF", -1, "two tiles of one device: no PCIe between them");
	else
		pcie_pair(t, i, j, o);
	o->hwloc_gbps = -1;
	if (o->kind >= NBW_LINK_PIX && o->kind <= NBW_LINK_SYS)
		snprintf(o->source, sizeof(o->source), "PCIe host links");
}

/* The device indexes an id stands for: itself, or every tile of a whole device. */
static int expand(const struct nbw_topo *t, const char *id, int *idx, int max)
{
	int i = topo_find(t, id);
	if (i >= 0) {
		idx[0] = i;
		return 1;
	}
	char bus[24];
	int tile, n = 0;
	if (topo_busid_parse(id, bus, &tile) || tile >= 0)
		return 0;
	for (size_t k = 0; k < t->ndev && n < max; k++)
		if (strcmp(t->dev[k].pub.pci_bus_id, bus) == 0)
			idx[n++] = (int)k;
	return n;
}

static int rank(enum nbw_link_kind k)
{
	return k == NBW_LINK_SELF ? 0 : k <= NBW_LINK_MDF ? 1 : (int)k;
}

static int pair_of(const struct nbw_topo *t, const char *a, const char *b,
		   struct nbw_topo_pair *out, bool pcie_only)
{
	int ia[16], ib[16], na, nb;
	memset(out, 0, sizeof(*out));
	out->theoretical_gbps = -1;
	out->hwloc_gbps = -1;
	if (!t)
		return -1;
	bool ha = !a || !*a, hb = !b || !*b;
	if (ha || hb) {
		set(out, NBW_LINK_HOST, "HOST", -1, "host memory, no link");
		out->hops = 1;
		return 0;
	}
	na = expand(t, a, ia, 16);
	nb = expand(t, b, ib, 16);
	if (!na || !nb) {
		set(out, NBW_LINK_UNKNOWN, "?", -1, "no device %.64s known to the topology",
		    !na ? a : b);
		return -1;
	}
	if (na == nb && memcmp(ia, ib, (size_t)na * sizeof(int)) == 0) {
		topo_pair_idx(t, ia[0], ia[0], out); /* a device and itself, tiles or not */
		return 0;
	}
	int best = -1;
	struct nbw_topo_pair p;
	/* fabric links first (what a copy between the devices uses), then the PCIe kinds
	 * from near to far; within a kind the higher bandwidth */
	for (int x = 0; x < na; x++)
		for (int y = 0; y < nb; y++) {
			if (pcie_only)
				topo_pcie_idx(t, ia[x], ib[y], &p);
			else
				topo_pair_idx(t, ia[x], ib[y], &p);
			if (best < 0 || rank(p.kind) < rank(out->kind) ||
			    (rank(p.kind) == rank(out->kind) &&
			     p.theoretical_gbps > out->theoretical_gbps)) {
				*out = p;
				best = x * nb + y;
			}
		}
	if (na * nb > 1 && out->kind != NBW_LINK_SELF) {
		size_t len = strlen(out->basis);
		snprintf(out->basis + len, sizeof(out->basis) - len, " (best of %d tile pairs: %s "
			 "and %s)", na * nb, t->dev[ia[best / nb]].pub.id,
			 t->dev[ib[best % nb]].pub.id);
	}
	return 0;
}

int nbw_topo_pair(const struct nbw_topo *t, const char *a, const char *b,
		  struct nbw_topo_pair *out)
{
	return pair_of(t, a, b, out, false);
}

int nbw_topo_pcie_pair(const struct nbw_topo *t, const char *a, const char *b,
		       struct nbw_topo_pair *out)
{
	return pair_of(t, a, b, out, true);
}
