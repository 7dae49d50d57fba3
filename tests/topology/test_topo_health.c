/* SPDX-License-Identifier: BSD-3-Clause */
/* Link health as topology/ reads it (include/nodebw/link_health.h): the AER file format,
 * the PCIe chain and the vendor answers of the hand-made link-faults fixture, the export
 * that records them, and the typed view of the results document reading them back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/link_health.h"
#include "nodebw/topology.h"
#include "topo_int.h"

#ifndef NODEBW_TOPO_FIXTURES
#error "NODEBW_TOPO_FIXTURES (tests/fixtures/topology) must be defined by the build"
#endif

static struct nbw_topo *load_dir(const char *dir)
{
	char err[1024] = "";
	struct nbw_topo *t = NULL;
	struct nbw_topo_opts o = { .fixture_dir = dir };
	if (nbw_topo_load(&t, &o, err, sizeof(err)))
		fail_msg("%s: %s", dir, err);
	return t;
}

static struct nbw_topo *load(const char *name)
{
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/%s", NODEBW_TOPO_FIXTURES, name);
	return load_dir(dir);
}

static size_t find(const struct nbw_topo *t, const char *id)
{
	for (size_t i = 0; i < nbw_topo_device_count(t); i++)
		if (strcmp(nbw_topo_device(t, i)->id, id) == 0)
			return i;
	fail_msg("no device %s", id);
	return 0;
}

static void aer_format(void **state)
{
	(void)state;
	/* kernels >= 5.x: NAME count lines and a TOTAL_ line, which wins */
	assert_int_equal(topo_aer_parse("RxErr 2\nBadTLP 0\nBadDLLP 1\nTOTAL_ERR_COR 3\n"), 3);
	assert_int_equal(topo_aer_parse("Undefined 0\nSDES 1\nTOTAL_ERR_FATAL 1\n"), 1);
	/* older kernels: no TOTAL_ line, the sum */
	assert_int_equal(topo_aer_parse("RxErr 1\nBadTLP 1\n"), 2);
	assert_int_equal(topo_aer_parse("RxErr 0\n"), 0);
	/* nothing that parses: unknown, never 0 */
	assert_int_equal(topo_aer_parse(""), -1);
	assert_int_equal(topo_aer_parse("garbage\n"), -1);
	assert_int_equal(topo_aer_parse("RxErr -4\n"), -1);
}

static void check_faults(const struct nbw_topo *t)
{
	struct nbw_link_health h;
	assert_int_equal(nbw_topo_link_health(t, find(t, "0000:41:00.0"), &h), 0);
	assert_int_equal(h.nhops, 2);
	assert_string_equal(h.hop[0].bus_id, "0000:41:00.0");
	assert_string_equal(h.hop[1].bus_id, "0000:40:01.1");
	assert_int_equal(h.hop[0].cur.gen, 5);
	assert_int_equal(h.hop[0].cur.width, 8);
	assert_int_equal(h.hop[0].max.width, 16);
	assert_int_equal(h.hop[0].aer.correctable, 3);
	assert_int_equal(h.hop[0].aer.nonfatal, 0);
	assert_int_equal(h.hop[0].aer.fatal, 1);
	assert_int_equal(h.hop[1].aer.fatal, 0);
	assert_int_equal(h.pcie_replays, 120);
	assert_string_equal(h.replay_source, "nvml");
	assert_int_equal(h.nvlink_present, 18);
	assert_int_equal(h.nvlink_up, 16);
	assert_string_equal(h.nvlink_down, "4,5");
	assert_int_equal(h.nvl_crc_flit, 7);
	assert_int_equal(h.nvl_recovery, 2);
	assert_int_equal(h.xgmi_error_status, -1);
	assert_int_equal(h.xe_ports, -1);

	assert_int_equal(nbw_topo_link_health(t, find(t, "0000:42:00.0"), &h), 0);
	assert_int_equal(h.hop[0].aer.correctable, 2); /* no TOTAL_ line */
	assert_int_equal(h.nvlink_up, 18);
	assert_string_equal(h.nvlink_down, "");

	assert_int_equal(nbw_topo_link_health(t, find(t, "0000:43:00.0"), &h), 0);
	assert_int_equal(h.xgmi_error_status, 1);
	assert_int_equal(h.pcie_replays, 0);
	assert_string_equal(h.replay_source, "rocm-smi");
	assert_int_equal(h.nvlink_present, -1);

	assert_int_equal(nbw_topo_link_health(t, find(t, "0000:44:00.0"), &h), 0);
	assert_int_equal(h.xe_ports, 8);
	assert_int_equal(h.xe_healthy, 6);
	assert_int_equal(h.xe_degraded, 1);
	assert_int_equal(h.xe_failed, 1);
	assert_int_equal(h.pcie_replays, -1);
	assert_int_equal(nbw_topo_link_health(t, 99, &h), -1);
}

static void fixture(void **state)
{
	(void)state;
	struct nbw_topo *t = load("link-faults-handmade");
	check_faults(t);
	nbw_topo_free(t);
}

/* A recording of the machine keeps what its links reported: the AER files and the vendor
 * answers go into the exported folder, and loading it gives the same figures. */
static void export_keeps_it(void **state)
{
	(void)state;
	char dir[] = "/tmp/nodebw-health-XXXXXX", err[512] = "";
	assert_non_null(mkdtemp(dir));
	struct nbw_topo *t = load("link-faults-handmade");
	if (nbw_topo_export(t, dir, err, sizeof(err)))
		fail_msg("export: %s", err);
	nbw_topo_free(t);
	t = load_dir(dir);
	check_faults(t);
	nbw_topo_free(t);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* What results.json records is what the typed view reads back. */
static void typed_view(void **state)
{
	(void)state;
	struct nbw_topo *t = load("link-faults-handmade");
	json_t *j = nbw_topo_to_json(t);
	size_t i = find(t, "0000:41:00.0");
	const char *id, *name;
	struct nbw_link_health h;
	assert_true(nbw_rv_topo_health(j, i, &id, &name, &h));
	assert_string_equal(id, "0000:41:00.0");
	assert_string_equal(name, "NVIDIA H100 80GB HBM3");
	assert_int_equal(h.nhops, 2);
	assert_int_equal(h.hop[0].cur.width, 8); /* from host_link: one reading */
	assert_int_equal(h.hop[0].max.width, 16);
	assert_int_equal(h.hop[1].cur.width, 8);
	assert_int_equal(h.hop[0].aer.fatal, 1);
	assert_int_equal(h.pcie_replays, 120);
	assert_int_equal(h.nvlink_present, 18);
	assert_int_equal(h.nvlink_up, 16);
	assert_string_equal(h.nvlink_down, "4,5");
	assert_int_equal(h.nvl_crc_data, 0);
	assert_int_equal(h.nvl_recovery, 2);
	assert_true(nbw_rv_topo_health(j, find(t, "0000:44:00.0"), &id, &name, &h));
	assert_int_equal(h.xe_failed, 1);
	assert_false(nbw_rv_topo_health(j, 99, &id, &name, &h));
	json_decref(j);
	nbw_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aer_format),
		cmocka_unit_test(fixture),
		cmocka_unit_test(export_keeps_it),
		cmocka_unit_test(typed_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
