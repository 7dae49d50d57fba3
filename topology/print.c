/* SPDX-License-Identifier: BSD-3-Clause */
/* The `nodebw topo` text: host, sources, devices with their host links, and the matrix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

static void pcie_text(char *buf, size_t len, const struct nbw_pcie *p)
{
	if (p->gen && p->width)
		snprintf(buf, len, "Gen%d x%d", p->gen, p->width);
	else if (p->gt_s > 0 || p->width > 0)
		snprintf(buf, len, "%.1fGT/s x%d", p->gt_s, p->width);
	else
		snprintf(buf, len, "-");
}

static void print_host(const struct nbw_topo *t, FILE *f)
{
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	fprintf(f, "Host: %u package%s, %u NUMA node%s, %u cores, %u PUs%s%s\n", h.packages,
		h.packages == 1 ? "" : "s", h.numa_nodes, h.numa_nodes == 1 ? "" : "s", h.cores,
		h.pus, h.cpu_model[0] ? "; " : "", h.cpu_model);
	struct nbw_topo_numa n;
	for (unsigned i = 0; nbw_topo_numa(t, i, &n) == 0; i++) {
		char pkg[32] = "";
		if (n.package >= 0)
			snprintf(pkg, sizeof(pkg), " (package %d)", n.package);
		fprintf(f, "  NUMA node %d: %.1f GiB, CPUs %s%s\n", n.os_index,
			(double)n.memory_bytes / (1024.0 * 1024 * 1024),
			n.cpuset[0] ? n.cpuset : "none (memory only)", pkg);
	}
}

static void print_sources(const struct nbw_topo *t, FILE *f)
{
	fprintf(f, "\nSources:\n");
	for (size_t i = 0; i < t->nsrc; i++)
		fprintf(f, "  %-11s %-7s %s\n", t->src[i].name,
			t->src[i].ok ? "ok" : "nothing", t->src[i].detail);
}

/* "GPU3" for devices with a PCI address (in matrix order), "GPU1/0" for tile 0 of the second
 * one, else the device id. */
/* k of each device's "GPU<k>": how many distinct bus ids come before it (devices are sorted
 * by bus id), counted once for the whole table instead of once per cell. */
static int *gpu_numbers(const struct nbw_topo *t)
{
	int *num = malloc((t->ndev ? t->ndev : 1) * sizeof(int));
	int k = 0;
	for (size_t j = 0; num && j < t->ndev; j++) {
		num[j] = k;
		k += t->dev[j].pub.pci_bus_id[0] != '\0' &&
		     (j == 0 || strcmp(t->dev[j].pub.pci_bus_id, t->dev[j - 1].pub.pci_bus_id) != 0);
	}
	return num;
}

static void short_name(const struct nbw_topo *t, const int *num, size_t i, char *buf,
		       size_t len)
{
	const struct nbw_topo_device *d = &t->dev[i].pub;
	int k = 0;
	if (num)
		k = num[i];
	else
		for (size_t j = 0; j < i; j++)
			k += t->dev[j].pub.pci_bus_id[0] != '\0' &&
			     (j == 0 || strcmp(t->dev[j].pub.pci_bus_id,
					       t->dev[j - 1].pub.pci_bus_id) != 0);
	if (d->pci_bus_id[0] && d->tile >= 0)
		snprintf(buf, len, "GPU%d/%d", k - (i > 0 && strcmp(d->pci_bus_id,
			 t->dev[i - 1].pub.pci_bus_id) == 0), d->tile);
	else if (d->pci_bus_id[0])
		snprintf(buf, len, "GPU%d", k);
	else
		snprintf(buf, len, "%s", d->id);
}

static void print_devices(const struct nbw_topo *t, FILE *f)
{
	fprintf(f, "\nDevices (host link: now / can train to; GB/s theoretical per direction):\n");
	if (!t->ndev) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-6s %-15s %-11s %-4s %-14s %-21s %6s  %s\n", "", "id", "kind", "NUMA",
		"CPUs", "host link", "GB/s", "name [seen by]");
	int *num = gpu_numbers(t);
	for (size_t i = 0; i < t->ndev; i++) {
		const struct nbw_topo_device *d = &t->dev[i].pub;
		const struct nbw_host_link *l = &d->link;
		char sn[NBW_TOPO_ID_LEN], numa[8] = "-", now[24], max[24], link[48], gb[16];
		short_name(t, num, i, sn, sizeof(sn));
		if (l->numa_node >= 0)
			snprintf(numa, sizeof(numa), "%d", l->numa_node);
		pcie_text(now, sizeof(now), &l->current);
		pcie_text(max, sizeof(max), &l->max);
		if (l->host_memory)
			snprintf(link, sizeof(link), "host memory");
		else
			snprintf(link, sizeof(link), "%s / %s", now, max);
		topo_fmt_gbps(gb, sizeof(gb), l->theoretical_gbps);
		fprintf(f, "  %-6s %-15s %-11s %-4s %-14s %-21s %6s  %s [%s]\n",
			d->pci_bus_id[0] ? sn : "", d->id, d->kind, numa,
			l->cpuset[0] ? l->cpuset : "-", link, gb, d->name, d->seen_by);
		if (l->note[0] && !l->host_memory)
			fprintf(f, "  %-6s note: %s\n", "", l->note);
	}
	size_t host = 0;
	for (size_t i = 0; i < t->ndev; i++)
		host += t->dev[i].pub.pci_bus_id[0] == '\0';
	if (host)
		fprintf(f, "  %zu device%s without a PCI address: host memory, no link (a copy "
			"between them is a copy in host memory)\n", host, host == 1 ? "" : "s");
	free(num);
}

static void print_matrix(const struct nbw_topo *t, FILE *f)
{
	bool seen[NBW_LINK_KIND_COUNT] = { false }, tiers = false;
	size_t n = 0;
	for (size_t i = 0; i < t->ndev; i++)
		n += t->dev[i].pub.pci_bus_id[0] != '\0';
	fprintf(f, "\nDevice-to-device (label / theoretical GB/s per direction):\n");
	if (n == 0) {
		fprintf(f, "  no device with a PCI address: no matrix\n");
		return;
	}
	int *num = gpu_numbers(t);
	fprintf(f, "  %-6s", "");
	for (size_t j = 0; j < t->ndev; j++) {
		char sn[NBW_TOPO_ID_LEN];
		if (!t->dev[j].pub.pci_bus_id[0])
			continue;
		short_name(t, num, j, sn, sizeof(sn));
		fprintf(f, " %-12s", sn);
	}
	fprintf(f, " %-14s %s\n", "CPU affinity", "NUMA");
	for (size_t i = 0; i < t->ndev; i++) {
		char sn[NBW_TOPO_ID_LEN];
		const struct nbw_host_link *l = &t->dev[i].pub.link;
		if (!t->dev[i].pub.pci_bus_id[0])
			continue;
		short_name(t, num, i, sn, sizeof(sn));
		fprintf(f, "  %-6s", sn);
		for (size_t j = 0; j < t->ndev; j++) {
			struct nbw_topo_pair p;
			char cell[32], gb[16];
			if (!t->dev[j].pub.pci_bus_id[0])
				continue;
			topo_pair_idx(t, (int)i, (int)j, &p);
			seen[p.kind] = true;
			topo_fmt_gbps(gb, sizeof(gb), p.theoretical_gbps);
			if (p.kind == NBW_LINK_SELF)
				snprintf(cell, sizeof(cell), "X");
			else
				snprintf(cell, sizeof(cell), "%s/%s", p.label, gb);
			fprintf(f, " %-12s", cell);
			tiers |= strstr(p.label, "SW") != NULL;
		}
		char numa[8] = "-";
		if (l->numa_node >= 0)
			snprintf(numa, sizeof(numa), "%d", l->numa_node);
		fprintf(f, " %-14s %s\n", l->cpuset[0] ? l->cpuset : "-", numa);
	}
	fprintf(f, "\nLegend (theoretical per direction; '-' = not known):\n");
	for (int k = 0; k < NBW_LINK_KIND_COUNT; k++)
		if (seen[k])
			fprintf(f, "  %s\n", nbw_link_kind_legend((enum nbw_link_kind)k));
	if (tiers)
		fprintf(f, "  NV#-kSW = through k switches in series (a multi-tier switch fabric): "
			"each path's narrowest hop, parallel paths summed (maximum flow)\n");
	fprintf(f, "  PCIe: GB/s = GT/s x encoding (8b/10b Gen1-2, 128b/130b Gen3+) / 8 x lanes; "
		"a PCIe pair gets the slower of its two host links\n");
	/* where the fabric figures come from, and the vendor-versus-hwloc cross-check */
	int from_hwloc = 0, checked = 0, disagree = 0;
	char src[64] = "";
	for (size_t i = 0; i < t->ndev; i++)
		for (size_t j = i + 1; j < t->ndev; j++) {
			struct nbw_topo_pair p;
			if (!t->dev[i].pub.pci_bus_id[0] || !t->dev[j].pub.pci_bus_id[0])
				continue;
			topo_pair_idx(t, (int)i, (int)j, &p);
			if (strncmp(p.source, "hwloc", 5) == 0) {
				from_hwloc++;
				snprintf(src, sizeof(src), "%s", p.source);
			}
			if (p.hwloc_gbps < 0)
				continue;
			checked++;
			if (p.disagree) {
				char a[NBW_TOPO_ID_LEN], b[NBW_TOPO_ID_LEN];
				short_name(t, num, i, a, sizeof(a));
				short_name(t, num, j, b, sizeof(b));
				if (++disagree <= 8)
					fprintf(f, "  cross-check %s-%s: %s says %.1f GB/s, %s %.1f GB/s "
						"(more than 10 %% apart; %s's figure is used)\n", a, b,
						p.source, p.theoretical_gbps, p.hwloc_source,
						p.hwloc_gbps, p.source);
			}
		}
	if (from_hwloc)
		fprintf(f, "  %d pair%s from %s (no vendor API figure)\n", from_hwloc,
			from_hwloc == 1 ? "" : "s", src);
	if (checked)
		fprintf(f, "  cross-check with hwloc's GPU matrices: %d pair%s, %d more than 10 %% "
			"apart\n", checked, checked == 1 ? "" : "s", disagree);
	free(num);
}

void nbw_topo_print(const struct nbw_topo *t, FILE *f)
{
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	if (t->fixture)
		fprintf(f, "nodebw topo: fixture %s (not this machine)\n", t->fixture_dir);
	else
		fprintf(f, "nodebw topo: this machine%s%s (sysfs %s)\n", h.hostname[0] ? ", " : "",
			h.hostname, t->sysroot);
	fprintf(f, "Bandwidth is theoretical, per direction, GB/s = 1e9 bytes/s; nothing here "
		"is measured.\n\n");
	print_host(t, f);
	print_sources(t, f);
	print_devices(t, f);
	print_matrix(t, f);
}
