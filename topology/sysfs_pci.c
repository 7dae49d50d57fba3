/* SPDX-License-Identifier: BSD-3-Clause */
/* sysfs PCI source: link speed and width (current and maximum, and the maximum of the port
 * above), NUMA node, class/vendor/device and the bus path of a PCI device, read from
 * ROOT/bus/pci/devices/<bus id>/ where ROOT is /sys or a fixture's sys/ folder; and the
 * sysfs-pci source line (how many PCI devices the root has). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/readfile.h"
#include "topo_int.h"

int topo_sysfs_file(const char *dir, const char *name, char **text)
{
	char *path = NULL, why[64];
	size_t n;
	*text = NULL;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -1;
	int rc = nbw_readfile(path, 64 * 1024, text, &n, why, sizeof(why));
	free(path);
	return rc ? -1 : 0;
}

/* First line of DIR/NAME into buf; 0, or -1 when absent, unreadable or not a regular file. */
static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char *text;
	if (topo_sysfs_file(dir, name, &text))
		return -1;
	text[strcspn(text, "\n")] = '\0';
	snprintf(buf, len, "%s", text);
	free(text);
	return 0;
}

static unsigned read_hex(const char *dir, const char *name)
{
	char buf[64];
	return read_line(dir, name, buf, sizeof(buf)) ? 0 : (unsigned)strtoul(buf, NULL, 16);
}

/* current_ or max_ link speed and width of the device folder \p dir. */
static void read_link(const char *dir, const char *prefix, struct nbw_pcie *p)
{
	char name[48], buf[64];
	memset(p, 0, sizeof(*p));
	p->gbps = -1;
	snprintf(name, sizeof(name), "%s_link_speed", prefix);
	if (read_line(dir, name, buf, sizeof(buf)) == 0)
		p->gt_s = nbw_pcie_parse_speed(buf);
	snprintf(name, sizeof(name), "%s_link_width", prefix);
	if (read_line(dir, name, buf, sizeof(buf)) == 0) {
		int w = atoi(buf);
		p->width = w > 0 && w <= 32 ? w : 0; /* 255 = unknown on some devices */
	}
	nbw_pcie_fill(p);
}

void topo_sysfs_read_link(const char *dir, const char *prefix, struct nbw_pcie *p)
{
	read_link(dir, prefix, p);
}

static bool is_bdf(const char *s)
{
	unsigned d, b, v, f;
	char tail;
	return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &v, &f, &tail) == 4;
}

/* The bus path from the resolved device folder: ".../pci0000:17/0000:17:01.0/.../dev". */
static void parse_path(const char *real, const char *bus_id, struct topo_pci_path *p)
{
	char copy[PATH_MAX];
	snprintf(copy, sizeof(copy), "%s", real);
	memset(p, 0, sizeof(*p));
	char *save = NULL;
	bool in_pci = false;
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strncmp(c, "pci", 3) == 0 && strchr(c, ':')) {
			snprintf(p->root, sizeof(p->root), "%s", c);
			p->n = 0;
			in_pci = true;
		} else if (in_pci && is_bdf(c) && strcmp(c, bus_id) != 0 &&
			   p->n < TOPO_MAX_CHAIN) {
			snprintf(p->bridge[p->n++], sizeof(p->bridge[0]), "%s", c);
		}
	}
	if (in_pci)
		p->origin = 's';
}

void topo_sysfs_path(const char *root, const char *bus_id, struct topo_pci_path *p)
{
	char *dir = NULL, *real;
	memset(p, 0, sizeof(*p));
	if (asprintf(&dir, "%s/bus/pci/devices/%s", root, bus_id) < 0)
		return;
	real = realpath(dir, NULL);
	if (real)
		parse_path(real, bus_id, p);
	free(real);
	free(dir);
}

int topo_sysfs_read(const char *root, const char *bus_id, struct topo_sysfs *out)
{
	char dir[PATH_MAX + 64], real[PATH_MAX], buf[64];
	memset(out, 0, sizeof(*out));
	out->numa_node = -1;
	out->cur.gbps = out->max.gbps = out->port_max.gbps = -1;
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, bus_id);
	if (!realpath(dir, real))
		return -1;
	out->found = true;
	out->cls = read_hex(real, "class");
	out->vendor = read_hex(real, "vendor");
	out->device = read_hex(real, "device");
	if (read_line(real, "numa_node", buf, sizeof(buf)) == 0)
		out->numa_node = atoi(buf) >= 0 ? atoi(buf) : -1;
	read_link(real, "current", &out->cur);
	read_link(real, "max", &out->max);
	parse_path(real, bus_id, &out->path);
	/* The port above (root port or switch downstream port) limits what the link trains to. */
	char *slash = strrchr(real, '/');
	if (slash) {
		*slash = '\0'; /* real is now the parent folder */
		const char *up = strrchr(real, '/');
		if (up && is_bdf(up + 1))
			read_link(real, "max", &out->port_max);
	}
	return 0;
}

/* The "sysfs-pci" source line: how many PCI devices the sysfs root has. */
static void sysfs_discover(struct nbw_topo *t)
{
	char dir[PATH_MAX + 32];
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices", t->sysroot);
	DIR *d = opendir(dir);
	if (!d) {
		topo_source(t, "sysfs-pci", false, "%s: %s", dir, strerror(errno));
		return;
	}
	int n = 0, with_speed = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		struct topo_sysfs s;
		n++;
		if (topo_sysfs_read(t->sysroot, e->d_name, &s) == 0 && s.cur.gt_s > 0)
			with_speed++;
	}
	closedir(d);
	struct nbw_topo_source *s =
		topo_source(t, "sysfs-pci", true, "%s: %d PCI devices, %d with a PCIe link "
			    "speed%s", dir, n, with_speed, with_speed ? "" :
			    " (conventional PCI or a virtual machine)");
	if (s)
		s->devices = n;
}

const struct topo_source_ops topo_source_sysfs_pci = {
	.name = "sysfs-pci",
	.provides = "the PCI devices of the sysfs root and their PCIe links",
	.needs_sysfs = true,
	.discover = sysfs_discover,
};
