/* SPDX-License-Identifier: BSD-3-Clause */
/* Record this machine as a fixture folder: hwloc.xml (hwloc's own export), sys/ (the sysfs
 * files nodebw reads, for every PCI device hwloc kept and the bridges above them) and
 * links.json (what the vendor sources answered). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "topo_int.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int mkdirs(char *path)
{
	for (char *s = path + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			int rc = mkdir(path, 0755);
			*s = '/';
			if (rc && errno != EEXIST)
				return -1;
		}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

static void copy_file(const char *from_dir, const char *to_dir, const char *name)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64], buf[256];
	snprintf(from, sizeof(from), "%s/%s", from_dir, name);
	snprintf(to, sizeof(to), "%s/%s", to_dir, name);
	FILE *in = fopen(from, "r");
	if (!in)
		return;
	size_t n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	FILE *out = fopen(to, "w");
	if (out) {
		fwrite(buf, 1, n, out);
		fclose(out);
	}
}

/* Copy the files nodebw reads for one PCI device and the bridges above it. */
static int export_pci(const struct nbw_topo *t, const char *bus, const char *sysdir,
		      const char *root_real)
{
	static const char *const files[] = { "class", "vendor", "device", "numa_node",
					     "current_link_speed", "current_link_width",
					     "max_link_speed", "max_link_width",
					     "aer_dev_correctable", "aer_dev_nonfatal",
					     "aer_dev_fatal" };
	char link[PATH_MAX + 64], real[PATH_MAX];
	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", t->sysroot, bus);
	size_t rl = strlen(root_real);
	if (!realpath(link, real) || strncmp(real, root_real, rl) != 0 || real[rl] != '/')
		return -1;
	const char *rel = real + rl + 1; /* "devices/pci0000:00/0000:00:01.0/..." */
	char prefix[PATH_MAX], from[PATH_MAX + 8], to[PATH_MAX * 2];
	for (const char *s = strchr(rel, '/'); ; s = strchr(s + 1, '/')) {
		size_t n = s ? (size_t)(s - rel) : strlen(rel);
		snprintf(prefix, sizeof(prefix), "%.*s", (int)n, rel);
		const char *last = strrchr(prefix, '/');
		last = last ? last + 1 : prefix;
		if (strlen(last) == 12 && last[4] == ':' && last[10] == '.') { /* a PCI function */
			snprintf(from, sizeof(from), "%s/%s", root_real, prefix);
			snprintf(to, sizeof(to), "%s/%s", sysdir, prefix);
			if (mkdirs(to))
				return -1;
			for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
				copy_file(from, to, files[i]);
		}
		if (!s)
			break;
	}
	snprintf(to, sizeof(to), "%s/bus/pci/devices", sysdir);
	if (mkdirs(to))
		return -1;
	snprintf(to, sizeof(to), "%s/bus/pci/devices/%s", sysdir, bus);
	snprintf(from, sizeof(from), "../../../%s", rel);
	unlink(to);
	return symlink(from, to);
}

int nbw_topo_export(const struct nbw_topo *t, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], root_real[PATH_MAX] = "";
	snprintf(path, sizeof(path), "%s", dir);
	if (mkdirs(path))
		FAIL("cannot create %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/hwloc.xml", dir);
	if (hwloc_topology_export_xml(t->hw, path, 0))
		FAIL("%s: hwloc_topology_export_xml: %s", path, strerror(errno));
	int n = 0, ok = 0;
	snprintf(path, sizeof(path), "%s/sys", dir);
	if (realpath(t->sysroot, root_real))
		for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(t->hw, o)); n++) {
			char bus[24];
			snprintf(bus, sizeof(bus), "%04x:%02x:%02x.%x", o->attr->pcidev.domain,
				 o->attr->pcidev.bus, o->attr->pcidev.dev, o->attr->pcidev.func);
			ok += export_pci(t, bus, path, root_real) == 0;
		}
	/* the GPUs a source knows that hwloc does not (their links' health is read there) */
	for (size_t i = 0; i < t->ndev && root_real[0]; i++)
		if (t->dev[i].pub.pci_bus_id[0] && t->dev[i].pub.tile < 0 &&
		    !topo_hwloc_pcidev(t, t->dev[i].pub.pci_bus_id))
			export_pci(t, t->dev[i].pub.pci_bus_id, path, root_real);
	json_t *links = topo_links_to_json(t);
	snprintf(path, sizeof(path), "%s/links.json", dir);
	int rc = json_dump_file(links, path, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
	json_decref(links);
	if (rc)
		FAIL("%s: cannot write: %s", path, strerror(errno));
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof(stamp), "%Y-%m-%d", gmtime_r(&now, &tm));
	snprintf(path, sizeof(path), "%s/README", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		FAIL("%s: %s", path, strerror(errno));
	fprintf(f, "Exported from a live machine (%s, %u package%s, %u NUMA node%s) by `nodebw topo "
		"--export` on %s: hwloc.xml from hwloc_topology_export_xml, sys/ copied from %s "
		"(%d of %d PCI devices), links.json from the vendor libraries.\n",
		h.hostname[0] ? h.hostname : "unnamed", h.packages, h.packages == 1 ? "" : "s",
		h.numa_nodes, h.numa_nodes == 1 ? "" : "s", stamp, t->sysroot, ok, n);
	fclose(f);
	return 0;
}
