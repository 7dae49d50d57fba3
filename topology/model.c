/* SPDX-License-Identifier: BSD-3-Clause */
/* The topology model the sources fill: devices (by bus id and tile), links, the host link
 * of each device (hwloc and sysfs), and the numbering once every source has run. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

bool nbw_topo_is_fixture(const struct nbw_topo *t)
{
	return t && t->fixture;
}

int topo_busid_parse(const char *in, char out[24], int *tile)
{
	unsigned d, b, v, f;
	int used = 0;
	char tail[16] = "";
	*tile = -1;
	out[0] = '\0';
	if (!in)
		return -1;
	/* domain:bus:device.function in hex, the domain 4 or 8 digits (NVML) */
	if (sscanf(in, "%8x:%2x:%2x.%1x%n", &d, &b, &v, &f, &used) != 4 || used < 7)
		return -1;
	if (v > 0x1f || f > 7 || strchr(in, ' '))
		return -1;
	snprintf(tail, sizeof(tail), "%s", in + used);
	if (tail[0] == '/') {
		char *end;
		long t = strtol(tail + 1, &end, 10);
		if (end == tail + 1 || *end || t < 0 || t > 255)
			return -1;
		*tile = (int)t;
	} else if (tail[0]) {
		return -1;
	}
	snprintf(out, 24, "%04x:%02x:%02x.%x", d & 0xffff, b, v, f);
	return d > 0xffff ? -1 : 0;
}

int topo_find(const struct nbw_topo *t, const char *id)
{
	char bus[24], norm[NBW_TOPO_ID_LEN];
	int tile;
	if (!id || !*id)
		return -1;
	if (topo_busid_parse(id, bus, &tile) == 0) {
		if (tile >= 0)
			snprintf(norm, sizeof(norm), "%s/%d", bus, tile);
		else
			snprintf(norm, sizeof(norm), "%s", bus);
		id = norm;
	}
	return topo_id_lookup(t, id);
}

void topo_seen_by(struct topo_dev *d, const char *who)
{
	char *s = d->pub.seen_by;
	size_t n = strlen(who);
	if (n == 0)
		return; /* an empty source names nothing (and strstr would find it everywhere) */
	for (const char *p = s; (p = strstr(p, who)); p += n)
		if ((p == s || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return;
	size_t len = strlen(s);
	snprintf(s + len, sizeof(d->pub.seen_by) - len, "%s%s", len ? "," : "", who);
}

static struct topo_dev *new_dev(struct nbw_topo *t)
{
	if (t->ndev == t->capdev) {
		size_t cap = t->capdev ? t->capdev * 2 : 16;
		struct topo_dev *n = realloc(t->dev, cap * sizeof(*n));
		if (!n)
			return NULL;
		t->dev = n;
		t->capdev = cap;
	}
	struct topo_dev *d = &t->dev[t->ndev++];
	memset(d, 0, sizeof(*d));
	d->pub.tile = -1;
	d->pub.link.numa_node = -1;
	d->pub.link.theoretical_gbps = -1;
	nbw_link_health_init(&d->health);
	return d;
}

int topo_add_gpu(struct nbw_topo *t, const char *bus_id, int tile, const char *vendor,
		 const char *name, const char *seen_by)
{
	char bus[24], id[NBW_TOPO_ID_LEN];
	int t2;
	if (topo_busid_parse(bus_id, bus, &t2))
		return -1;
	if (tile < 0)
		tile = t2;
	if (tile >= 0)
		snprintf(id, sizeof(id), "%s/%d", bus, tile);
	else
		snprintf(id, sizeof(id), "%s", bus);
	int i = topo_find(t, id);
	struct topo_dev *d = i >= 0 ? &t->dev[i] : new_dev(t);
	if (!d)
		return -1;
	if (i < 0) {
		snprintf(d->pub.id, sizeof(d->pub.id), "%s", id);
		snprintf(d->pub.pci_bus_id, sizeof(d->pub.pci_bus_id), "%s", bus);
		d->pub.tile = tile;
		snprintf(d->pub.kind, sizeof(d->pub.kind), "%s", tile >= 0 ? "gpu-tile" : "gpu");
		i = (int)(d - t->dev);
		topo_id_insert(t, i);
		topo_pci_path(t, bus, &d->path);
		topo_sysfs_path(t->sysroot, bus, &d->sys_path);
	}
	/* a vendor API's name is better than the PCI database's */
	if (name && *name && (!d->pub.name[0] || strcmp(seen_by, "pci") != 0)) {
		snprintf(d->pub.name, sizeof(d->pub.name), "%s", name);
		snprintf(d->name_source, sizeof(d->name_source), "%s", seen_by);
	}
	if (vendor && *vendor)
		snprintf(d->pub.vendor, sizeof(d->pub.vendor), "%s", vendor);
	topo_seen_by(d, seen_by);
	return i;
}

int topo_add_link(struct nbw_topo *t, const struct topo_link *l)
{
	if (t->nlink == t->caplink) {
		size_t cap = t->caplink ? t->caplink * 2 : 32;
		struct topo_link *n = realloc(t->link, cap * sizeof(*n));
		if (!n)
			return -1;
		t->link = n;
		t->caplink = cap;
	}
	t->link[t->nlink++] = *l;
	t->linkidx_valid = false;
	return 0;
}

size_t nbw_topo_device_count(const struct nbw_topo *t)
{
	return t ? t->ndev : 0;
}

const struct nbw_topo_device *nbw_topo_device(const struct nbw_topo *t, size_t i)
{
	return t && i < t->ndev ? &t->dev[i].pub : NULL;
}

void topo_fmt_gbps(char *buf, size_t len, double gbps)
{
	if (gbps < 0)
		snprintf(buf, len, "-");
	else if (gbps >= 100)
		snprintf(buf, len, "%.0f", gbps);
	else
		snprintf(buf, len, "%.1f", gbps);
}

void topo_pci_path(const struct nbw_topo *t, const char *bus_id, struct topo_pci_path *p)
{
	hwloc_obj_t o = topo_hwloc_pcidev(t, bus_id);
	if (o) {
		topo_hwloc_path(o, p);
		return;
	}
	struct topo_sysfs s;
	if (topo_sysfs_read(t->sysroot, bus_id, &s) == 0)
		*p = s.path;
	else
		memset(p, 0, sizeof(*p));
}

static void link_text(char *buf, size_t len, const struct nbw_pcie *p)
{
	if (p->gen)
		snprintf(buf, len, "Gen%d x%d", p->gen, p->width);
	else
		snprintf(buf, len, "%.1f GT/s x%d", p->gt_s, p->width);
}

/* What the link can train to: the lower of the device's and the port's maximum. */
static void capable(const struct nbw_host_link *o, struct nbw_pcie *cap)
{
	*cap = o->max;
	if (o->port_max.gt_s > 0 && (cap->gt_s <= 0 || o->port_max.gt_s < cap->gt_s))
		cap->gt_s = o->port_max.gt_s;
	if (o->port_max.width > 0 && (cap->width <= 0 || o->port_max.width < cap->width))
		cap->width = o->port_max.width;
	nbw_pcie_fill(cap);
}

int topo_resolve_link(const struct nbw_topo *t, const char *bus_id, struct nbw_host_link *o)
{
	char bus[24];
	int tile;
	memset(o, 0, sizeof(*o));
	o->numa_node = -1;
	o->theoretical_gbps = o->current.gbps = o->max.gbps = o->port_max.gbps = -1;
	if (!bus_id || !*bus_id) {
		o->host_memory = true;
		snprintf(o->note, sizeof(o->note), "host memory, no link");
		return 0;
	}
	if (topo_busid_parse(bus_id, bus, &tile)) {
		snprintf(o->note, sizeof(o->note), "not a PCI address: '%.64s' (dddd:bb:dd.f)",
			 bus_id);
		return -1;
	}
	hwloc_obj_t h = topo_hwloc_pcidev(t, bus);
	bool from_hwloc = false;
	struct topo_sysfs s;
	topo_sysfs_read(t->sysroot, bus, &s);
	if (!h && !s.found) {
		snprintf(o->note, sizeof(o->note), "no PCI device %s in hwloc or in %s/bus/pci",
			 bus, t->sysroot);
		return -1;
	}
	o->found = true;
	if (s.found) {
		o->current = s.cur;
		o->max = s.max;
		o->port_max = s.port_max;
		o->numa_node = s.numa_node;
	}
	if (h) {
		int numa;
		topo_hwloc_locality(t, h, &numa, o->cpuset, sizeof(o->cpuset));
		if (o->numa_node < 0)
			o->numa_node = numa;
		if (!s.found && h->attr->pcidev.linkspeed > 0) {
			o->current.gbps = h->attr->pcidev.linkspeed; /* hwloc's figure */
			from_hwloc = true;
		}
	}
	if (o->numa_node >= 0 &&
	    (!o->cpuset[0] || (!h && t->hw)))
		topo_hwloc_numa_cpus(t, o->numa_node, o->cpuset, sizeof(o->cpuset));

	struct nbw_pcie cap;
	capable(o, &cap);
	char now[32], can[32];
	link_text(now, sizeof(now), &o->current);
	link_text(can, sizeof(can), &cap);
	if (cap.gbps >= 0) {
		o->theoretical_gbps = cap.gbps;
		if (o->current.gbps >= 0 && o->current.gbps < cap.gbps * 0.999)
			snprintf(o->note, sizeof(o->note), "link now %s, below the %s it can train "
				 "to (GPUs slow the link down when idle: read it again under load)",
				 now, can);
		else if (o->port_max.gbps >= 0 && o->max.gbps > o->port_max.gbps)
			snprintf(o->note, sizeof(o->note), "the port above limits the device to %s",
				 can);
	} else if (o->current.gbps >= 0 && from_hwloc) {
		o->theoretical_gbps = o->current.gbps;
		snprintf(o->note, sizeof(o->note), "hwloc's recorded PCIe link speed (linkspeed, "
			 "GB/s); no sysfs: generation, width and what it can train to not known");
	} else if (o->current.gbps >= 0) {
		o->theoretical_gbps = o->current.gbps;
		snprintf(o->note, sizeof(o->note), "only the current link is known");
	} else if (h && !s.found && t->fixture) {
		snprintf(o->note, sizeof(o->note), "PCIe link speed unknown: the fixture's hwloc XML "
			 "records none for %s (no linkspeed) and its sys/ tree has no entry for it",
			 bus);
	} else {
		snprintf(o->note, sizeof(o->note), "no PCIe link speed for %s in sysfs "
			 "(conventional PCI or a virtual machine)", bus);
	}
	return 0;
}

int nbw_topo_host_link(const struct nbw_topo *t, const char *bus_id, struct nbw_host_link *out)
{
	if (!t) {
		memset(out, 0, sizeof(*out));
		out->numa_node = -1;
		out->theoretical_gbps = -1;
		snprintf(out->note, sizeof(out->note), "no topology");
		return -1;
	}
	int i = bus_id && *bus_id ? topo_find(t, bus_id) : -1;
	if (i >= 0 && t->dev[i].pub.pci_bus_id[0] == '\0') {
		*out = t->dev[i].pub.link; /* "api:N": host memory */
		return 0;
	}
	if (t->fixture && i >= 0) {
		*out = t->dev[i].pub.link;
		return 0;
	}
	return topo_resolve_link(t, bus_id, out);
}

int nbw_topo_add_api_device(struct nbw_topo *t, const char *api, const struct nbw_device *d)
{
	if (!t || !api || !d)
		return -1;
	if (d->pci_bus_id[0]) {
		int i = topo_add_gpu(t, d->pci_bus_id, -1, "", d->name, api);
		if (i >= 0 && !t->dev[i].pub.link.found && !t->dev[i].pub.link.host_memory)
			topo_resolve_link(t, t->dev[i].pub.pci_bus_id, &t->dev[i].pub.link);
		if (i >= 0 && !d->is_gpu)
			snprintf(t->dev[i].pub.kind, sizeof(t->dev[i].pub.kind), "%s", d->kind);
		return i;
	}
	int n = 0;
	for (size_t i = 0; i < t->ndev; i++)
		if (strncmp(t->dev[i].pub.id, api, strlen(api)) == 0 &&
		    t->dev[i].pub.id[strlen(api)] == ':')
			n++;
	struct topo_dev *x = new_dev(t);
	if (!x)
		return -1;
	snprintf(x->pub.id, sizeof(x->pub.id), "%.15s:%d", api, d->id >= 0 ? d->id : n);
	snprintf(x->pub.kind, sizeof(x->pub.kind), "%s", d->kind);
	snprintf(x->pub.name, sizeof(x->pub.name), "%s", d->name);
	snprintf(x->pub.seen_by, sizeof(x->pub.seen_by), "%s", api);
	topo_resolve_link(t, "", &x->pub.link);
	topo_id_insert(t, (int)(x - t->dev));
	return (int)(x - t->dev);
}

static int dev_cmp(const void *pa, const void *pb)
{
	const struct topo_dev *a = pa, *b = pb;
	bool ha = a->pub.pci_bus_id[0] == '\0', hb = b->pub.pci_bus_id[0] == '\0';
	if (ha != hb)
		return ha ? 1 : -1;
	int c = strcmp(a->pub.pci_bus_id, b->pub.pci_bus_id);
	if (c)
		return c;
	return a->pub.tile - b->pub.tile;
}

void topo_finalize(struct nbw_topo *t)
{
	/* A device whose tiles are listed is represented by its tiles. */
	bool any_tile = false;
	for (size_t i = 0; i < t->ndev; i++)
		any_tile |= t->dev[i].pub.tile >= 0;
	for (size_t i = 0; i < t->ndev && any_tile; i++) {
		struct topo_dev *d = &t->dev[i];
		if (d->pub.tile >= 0 || !d->pub.pci_bus_id[0])
			continue;
		bool tiles = false;
		for (size_t j = 0; j < t->ndev; j++) {
			struct topo_dev *x = &t->dev[j];
			if (x->pub.tile >= 0 && strcmp(x->pub.pci_bus_id, d->pub.pci_bus_id) == 0) {
				tiles = true;
				char copy[sizeof(d->pub.seen_by)];
				snprintf(copy, sizeof(copy), "%s", d->pub.seen_by);
				for (char *s = NULL, *w = strtok_r(copy, ",", &s); w;
				     w = strtok_r(NULL, ",", &s))
					topo_seen_by(x, w);
			}
		}
		if (tiles) {
			/* links refer to indexes: drop only unreferenced entries */
			bool used = false;
			for (size_t k = 0; k < t->nlink; k++)
				used |= t->link[k].a == (int)i || t->link[k].b == (int)i;
			if (!used)
				d->pub.id[0] = '\0'; /* removed below */
		}
	}
	/* Sort by bus id and tile; remap link indexes. */
	size_t n = t->ndev;
	int *old = calloc(n ? n : 1, sizeof(int));
	struct topo_dev *copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!old || !copy) {
		free(old);
		free(copy);
		return;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (t->dev[i].pub.id[0]) {
			copy[m] = t->dev[i];
			copy[m].orig = (int)i;
			m++;
		}
	qsort(copy, m, sizeof(*copy), dev_cmp);
	for (size_t i = 0; i < n; i++)
		old[i] = -1;
	for (size_t i = 0; i < m; i++)
		old[copy[i].orig] = (int)i;
	if (m)
		memcpy(t->dev, copy, m * sizeof(*copy));
	t->ndev = m;
	size_t k = 0;
	for (size_t i = 0; i < t->nlink; i++) {
		struct topo_link l = t->link[i];
		l.a = old[l.a];
		l.b = old[l.b];
		if (l.a >= 0 && l.b >= 0)
			t->link[k++] = l;
	}
	t->nlink = k;
	free(old);
	free(copy);
	topo_id_rebuild(t);
	topo_pairs_rebuild(t);
	for (size_t i = 0; i < t->ndev; i++)
		topo_resolve_link(t, t->dev[i].pub.pci_bus_id, &t->dev[i].pub.link);
}
