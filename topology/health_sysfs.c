/* SPDX-License-Identifier: BSD-3-Clause */
/* Link health from sysfs: the PCIe training (current and maximum generation and width) of a
 * device and of every bridge and port above it up to the root port, and the AER counters
 * of each (aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal: "NAME count" lines and a
 * TOTAL_ line), under ROOT/bus/pci/devices/<bus id>/ as sysfs_pci.c reads the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/link_health.h"
#include "nodebw/readfile.h"
#include "topo_int.h"

/* The counter of an AER file: its TOTAL_ line ("TOTAL_ERR_COR 3"), else the sum of its
 * "NAME count" lines (kernels before 5.x wrote no TOTAL_ line); -1 when absent or when no
 * line parses. */
long long topo_aer_parse(const char *text)
{
	long long total = -1, sum = 0;
	bool any = false;
	char *copy = strdup(text ? text : ""), *save = NULL;
	if (!copy)
		return -1;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[64];
		long long v;
		if (sscanf(l, "%63s %lld", name, &v) != 2 || v < 0)
			continue;
		if (strncmp(name, "TOTAL_", 6) == 0)
			total = v;
		else {
			sum += v;
			any = true;
		}
	}
	free(copy);
	return total >= 0 ? total : any ? sum : -1;
}

static long long read_aer(const char *dir, const char *name)
{
	char *text;
	if (topo_sysfs_file(dir, name, &text))
		return -1;
	long long v = topo_aer_parse(text);
	free(text);
	return v;
}

static bool is_bdf(const char *s)
{
	unsigned d, b, v, f;
	char tail;
	return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &v, &f, &tail) == 4;
}

static void read_hop(const char *dir, const char *bus, struct nbw_lh_hop *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->bus_id, sizeof(h->bus_id), "%s", bus);
	topo_sysfs_read_link(dir, "current", &h->cur);
	topo_sysfs_read_link(dir, "max", &h->max);
	h->aer.correctable = read_aer(dir, "aer_dev_correctable");
	h->aer.nonfatal = read_aer(dir, "aer_dev_nonfatal");
	h->aer.fatal = read_aer(dir, "aer_dev_fatal");
}

void topo_health_sysfs(const char *root, const char *bus_id, struct nbw_link_health *h)
{
	char dir[PATH_MAX + 64], real[PATH_MAX];
	h->nhops = 0;
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, bus_id);
	if (!realpath(dir, real))
		return;
	/* the device, then each parent folder named like a PCI function */
	while (h->nhops < NBW_LH_MAX_HOPS) {
		char *slash = strrchr(real, '/');
		if (!slash || !is_bdf(slash + 1))
			break;
		read_hop(real, slash + 1, &h->hop[h->nhops++]);
		*slash = '\0';
	}
}
