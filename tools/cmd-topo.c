/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw topo`: the node's topology (host, devices of every API, host links, the
 * device-to-device matrix), as text or JSON, live or from a fixture folder. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd-topo.h"
#include "nodebw/plugin_images.h"
#include "nodebw/backends.h"
#include "nodebw/cli.h"
#include "nodebw/rundir.h"
#include "nodebw/topology.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw topo [--json] [--fixture DIR|FILE.xml] [--sysfs-root DIR]\n"
		"                   [--export DIR] [--no-vendor]\n"
		"\n"
		"Show the node's topology: packages, NUMA nodes and cores (hwloc); every device\n"
		"seen by any API with its PCI bus id, NUMA node, local CPUs and host link (PCIe\n"
		"generation and width now and at most, from sysfs); and the device-to-device\n"
		"matrix in the style of 'nvidia-smi topo -m' (NV#, XGMI#, XL#, MDF, PIX, PXB, PHB,\n"
		"NODE, SYS). Every bandwidth is theoretical, per direction, in GB/s = 1e9 bytes/s:\n"
		"PCIe GB/s = GT/s x encoding (8b/10b Gen1-2, 128b/130b Gen3+) / 8 x lanes.\n"
		"NVML, ROCm SMI and Level Zero are loaded at run time; each says why it found\n"
		"nothing.\n"
		"\n"
		"Options:\n"
		"  --json             print the topology as JSON (the \"topology\" object of\n"
		"                     results.json)\n"
		"  --fixture DIR      read a recorded or synthetic machine instead of this one:\n"
		"                     DIR/hwloc.xml, DIR/sys/ and DIR/links.json (or one hwloc\n"
		"                     XML file)\n"
		"  --sysfs-root DIR   read the PCI tree from DIR/bus/pci/devices (default /sys)\n"
		"  --export DIR       also write this machine as a fixture folder into DIR\n"
		"  --no-vendor        do not load NVML, ROCm SMI, Level Zero or the backends\n"
		"  -h, --help         this text\n"
		"\n"
		"Examples:\n"
		"  nodebw topo\n"
		"  nodebw topo --json > topo.json\n"
		"  nodebw topo --fixture tests/fixtures/topology/dgx-h100-like\n");
}

/* The devices of every backend (and why a backend has none) join the topology. */
static void add_api_devices(struct nbw_topo *t)
{
	char detail[NBW_TOPO_NOTE_LEN * 2] = "";
	size_t off = 0, n, nm;
	int total = 0;
	const struct nbw_backend_ops *const *all = nbw_backends(&n);
	for (size_t i = 0; i < n && off < sizeof(detail); i++) {
		struct nbw_backend *be = NULL;
		char why[NBW_REASON_LEN] = "";
		int orc = all[i]->open(&be, NULL, why, sizeof(why));
		nbw_unlink_plugin_images();
		if (orc) {
			off += (size_t)snprintf(detail + off, sizeof(detail) - off, "%s%s: %s",
						off ? "; " : "", all[i]->name, why);
			continue;
		}
		int nd = all[i]->device_count(be), added = 0;
		for (int d = 0; d < nd; d++) {
			struct nbw_device dev;
			if (all[i]->device_info(be, d, &dev) == 0 &&
			    nbw_topo_add_api_device(t, all[i]->name, &dev) >= 0)
				added++;
		}
		total += added;
		all[i]->close(be);
		if (off < sizeof(detail))
			off += (size_t)snprintf(detail + off, sizeof(detail) - off, "%s%s: %d device%s",
						off ? "; " : "", all[i]->name, added,
						added == 1 ? "" : "s");
	}
	const struct nbw_backend_missing *m = nbw_backends_missing(&nm);
	for (size_t i = 0; i < nm && off < sizeof(detail); i++)
		off += (size_t)snprintf(detail + off, sizeof(detail) - off, "%s%s: not loaded (%s)",
					off ? "; " : "", m[i].name, m[i].reason);
	nbw_topo_note_source(t, "apis", n > 0, total, n ? detail : "no backend was built");
}

static int need_value(int argc, char **argv, int i)
{
	if (i + 1 >= argc || argv[i + 1][0] == '\0') {
		fprintf(stderr, "nodebw: error: '%s' needs a value (see 'nodebw topo --help')\n",
			argv[i]);
		return -1;
	}
	return 0;
}

int nbw_topo_main(int argc, char **argv)
{
	bool json = false, no_vendor = false;
	const char *fixture = NULL, *sysroot = NULL, *export_dir = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--json") == 0) {
			json = true;
		} else if (strcmp(a, "--no-vendor") == 0) {
			no_vendor = true;
		} else if (strcmp(a, "--fixture") == 0 || strcmp(a, "--sysfs-root") == 0 ||
			   strcmp(a, "--export") == 0) {
			if (need_value(argc, argv, i))
				return NBW_EXIT_USAGE;
			const char **dst = a[2] == 'f' ? &fixture : a[2] == 's' ? &sysroot :
					   &export_dir;
			*dst = argv[++i];
		} else if (a[0] == '-') {
			fprintf(stderr, "nodebw: error: unknown option '%s' (see 'nodebw topo "
					"--help')\n", a);
			return NBW_EXIT_USAGE;
		} else {
			fprintf(stderr, "nodebw: error: 'topo' takes no argument ('%s'; a fixture is "
					"given with --fixture)\n", a);
			return NBW_EXIT_USAGE;
		}
	}
	if (fixture && sysroot) {
		fprintf(stderr, "nodebw: error: --fixture and --sysfs-root exclude each other (a "
				"fixture brings its own sys/)\n");
		return NBW_EXIT_USAGE;
	}
	/* The fixture folder first: a path through a file is bad input, found before anything
	 * is read or written. */
	if (export_dir && nbw_mkdir_p(export_dir) != 0) {
		int e = errno;
		fprintf(stderr, "nodebw: error: --export %s: %s\n", export_dir,
			e == ENOTDIR || e == EEXIST ? "a file is in the way (not a folder)"
						    : strerror(e));
		return e == ENOTDIR || e == EEXIST ? NBW_EXIT_USAGE : 1;
	}
	struct nbw_topo_opts o = { .fixture_dir = fixture, .sysfs_root = sysroot,
				   .no_vendor = no_vendor };
	struct nbw_topo *t;
	char err[1024];
	if (nbw_topo_load(&t, &o, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return fixture || sysroot ? NBW_EXIT_USAGE : 1;
	}
	if (!fixture && !no_vendor)
		add_api_devices(t);
	int rc = 0;
	if (export_dir && nbw_topo_export(t, export_dir, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		rc = 1;
	} else if (json) {
		json_t *j = nbw_topo_to_json(t);
		json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
		printf("\n");
		json_decref(j);
	} else {
		nbw_topo_print(t, stdout);
		if (export_dir)
			printf("\nfixture written to %s\n", export_dir);
	}
	nbw_topo_free(t);
	return rc;
}
