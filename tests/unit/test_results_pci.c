/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/results_pci.c: a device's PCI IDs read from a recorded sysfs tree, and
 * their typed view. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/results.h"
#include "nodebw/results_view.h"

/* A sysfs-like tree under a fresh folder: DIR/bus/pci/devices/BUS/{files}. */
static void put(const char *root, const char *bus, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/bus", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/bus/pci", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/bus/pci/devices", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", root, bus);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", root, bus, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void reads_sysfs(void **state)
{
	(void)state;
	char root[] = "/tmp/nodebw-pci-XXXXXX";
	assert_non_null(mkdtemp(root));
	/* An H100 SXM5 as the kernel writes its IDs, upper-case hex in one. */
	put(root, "0000:18:00.0", "vendor", "0x10de\n");
	put(root, "0000:18:00.0", "device", "0x2330\n");
	put(root, "0000:18:00.0", "subsystem_vendor", "0x10DE\n");
	put(root, "0000:18:00.0", "subsystem_device", "0x16c1\n");
	/* No subsystem files: vendor and device only. */
	put(root, "0000:41:00.0", "vendor", "0x1002\n");
	put(root, "0000:41:00.0", "device", "0x74a1\n");
	/* A file that is not an ID. */
	put(root, "0000:42:00.0", "vendor", "nvidia\n");
	put(root, "0000:42:00.0", "device", "0x2330\n");

	json_t *dev = json_pack("{s:s, s:s, s:s}", "api", "cuda", "kind", "cuda", "pci_bus_id",
				"0000:18:00.0");
	nbw_results_device_set_pci_id(dev, root);
	struct nbw_rv_device d;
	char id[32];
	assert_true(nbw_rv_device_read(dev, &d));
	assert_true(nbw_rv_device_pci_id(&d, id, sizeof(id)));
	assert_string_equal(id, "10de:2330:10de:16c1");
	json_decref(dev);

	json_t *two = nbw_results_pci_id(root, "0000:41:00.0");
	assert_non_null(two);
	dev = json_pack("{s:o}", "pci_id", two);
	assert_true(nbw_rv_device_read(dev, &d));
	assert_true(nbw_rv_device_pci_id(&d, id, sizeof(id)));
	assert_string_equal(id, "1002:74a1");
	json_decref(dev);

	assert_null(nbw_results_pci_id(root, "0000:42:00.0"));  /* not an ID */
	assert_null(nbw_results_pci_id(root, "0000:99:00.0"));  /* no such device */
	assert_null(nbw_results_pci_id(root, ""));              /* a host-plugin device */
	assert_null(nbw_results_pci_id(root, "../../etc"));     /* not a bus id */

	/* A host-plugin device: no bus id, no "pci_id"; the view says none. */
	dev = json_pack("{s:s, s:s, s:n}", "api", "omp", "kind", "host-plugin", "pci_bus_id");
	nbw_results_device_set_pci_id(dev, root);
	assert_null(json_object_get(dev, "pci_id"));
	assert_true(nbw_rv_device_read(dev, &d));
	assert_false(nbw_rv_device_pci_id(&d, id, sizeof(id)));
	assert_string_equal(id, "");
	json_decref(dev);

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(reads_sysfs) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
