/* SPDX-License-Identifier: BSD-3-Clause */
/* PCIe and NVLink rate arithmetic, sysfs speed strings, bus id normalisation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "topo_int.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-3)

static void lane_rates(void **state)
{
	(void)state;
	/* per lane per direction after encoding: Gen1 2.5 GT/s 8b/10b ... Gen6 */
	NEAR(nbw_pcie_lane_gbps(1), 0.25);
	NEAR(nbw_pcie_lane_gbps(2), 0.5);
	NEAR(nbw_pcie_lane_gbps(3), 8.0 * 128 / 130 / 8); /* 0.985 */
	NEAR(nbw_pcie_lane_gbps(4), 1.969);
	NEAR(nbw_pcie_lane_gbps(5), 3.938);
	NEAR(nbw_pcie_lane_gbps(6), 7.877);
	assert_true(nbw_pcie_lane_gbps(0) < 0);
	assert_true(nbw_pcie_lane_gbps(7) < 0);
}

static void generations(void **state)
{
	(void)state;
	const double gt[] = { 2.5, 5, 8, 16, 32, 64 };
	for (int g = 0; g < 6; g++)
		assert_int_equal(nbw_pcie_gen(gt[g]), g + 1);
	assert_int_equal(nbw_pcie_gen(0), 0);
	assert_int_equal(nbw_pcie_gen(12), 0);
}

static void link_width(void **state)
{
	(void)state;
	struct nbw_pcie p = { .gt_s = 32, .width = 16 };
	nbw_pcie_fill(&p);
	assert_int_equal(p.gen, 5);
	NEAR(p.gbps, 63.015); /* Gen5 x16: 32 x 128/130 / 8 x 16 */
	p = (struct nbw_pcie){ .gt_s = 16, .width = 8 };
	nbw_pcie_fill(&p);
	NEAR(p.gbps, 15.754);
	p = (struct nbw_pcie){ .gt_s = 2.5, .width = 16 };
	nbw_pcie_fill(&p);
	NEAR(p.gbps, 4.0);
	p = (struct nbw_pcie){ .gt_s = 8, .width = 0 }; /* width unknown */
	nbw_pcie_fill(&p);
	assert_int_equal(p.gen, 3);
	assert_true(p.gbps < 0);
	p = (struct nbw_pcie){ .gt_s = 0, .width = 16 }; /* speed unknown */
	nbw_pcie_fill(&p);
	assert_true(p.gbps < 0);
}

static void speed_strings(void **state)
{
	(void)state;
	NEAR(nbw_pcie_parse_speed("16.0 GT/s PCIe"), 16);
	NEAR(nbw_pcie_parse_speed("8 GT/s"), 8);
	NEAR(nbw_pcie_parse_speed("2.5 GT/s PCIe\n"), 2.5);
	NEAR(nbw_pcie_parse_speed("64.0 GT/s PCIe"), 64);
	assert_true(nbw_pcie_parse_speed("Unknown") == 0);
	assert_true(nbw_pcie_parse_speed("Unknown speed") == 0);
	assert_true(nbw_pcie_parse_speed("") == 0);
	assert_true(nbw_pcie_parse_speed(NULL) == 0);
	assert_true(nbw_pcie_parse_speed("16 MB/s") == 0);
}

static void nvlink(void **state)
{
	(void)state;
	NEAR(topo_nvlink_gbps(1), 20);
	NEAR(topo_nvlink_gbps(2), 25);
	NEAR(topo_nvlink_gbps(3), 25);
	NEAR(topo_nvlink_gbps(4), 25);
	NEAR(topo_nvlink_gbps(5), 50);
	assert_true(topo_nvlink_gbps(0) < 0);
	/* NVML's enum: A100 reports 5 (NVLink 3.1), H100 6 (4.0) */
	assert_int_equal(topo_nvml_version_major(5), 3);
	assert_int_equal(topo_nvml_version_major(6), 4);
	assert_int_equal(topo_nvml_version_major(3), 2);
	assert_int_equal(topo_nvml_version_major(7), 5);
	assert_int_equal(topo_nvml_version_major(99), 0);
}

static void bus_ids(void **state)
{
	(void)state;
	char out[24];
	int tile;
	assert_int_equal(topo_busid_parse("0000:18:00.0", out, &tile), 0);
	assert_string_equal(out, "0000:18:00.0");
	assert_int_equal(tile, -1);
	assert_int_equal(topo_busid_parse("00000000:1A:00.0", out, &tile), 0); /* NVML */
	assert_string_equal(out, "0000:1a:00.0");
	assert_int_equal(topo_busid_parse("0000:3a:00.0/1", out, &tile), 0);
	assert_string_equal(out, "0000:3a:00.0");
	assert_int_equal(tile, 1);
	assert_int_equal(topo_busid_parse("0:5:1.2", out, &tile), 0);
	assert_string_equal(out, "0000:05:01.2");
	assert_int_equal(topo_busid_parse("0000:18:00", out, &tile), -1);
	assert_int_equal(topo_busid_parse("gpu0", out, &tile), -1);
	assert_int_equal(topo_busid_parse("0000:18:00.8", out, &tile), -1);
	assert_int_equal(topo_busid_parse("0000:18:20.0", out, &tile), -1);
	assert_int_equal(topo_busid_parse("0000:18:00.0/x", out, &tile), -1);
	assert_int_equal(topo_busid_parse("0000:18:00.0 ", out, &tile), -1);
	assert_int_equal(topo_busid_parse("", out, &tile), -1);
	assert_int_equal(topo_busid_parse(NULL, out, &tile), -1);
}

static void kinds(void **state)
{
	(void)state;
	enum nbw_link_kind k;
	assert_string_equal(nbw_link_kind_name(NBW_LINK_NVLINK), "nvlink");
	assert_non_null(topo_kind_from_name("XGMI", &k));
	assert_int_equal(k, NBW_LINK_XGMI);
	assert_null(topo_kind_from_name("warp", &k));
	for (int i = 0; i < NBW_LINK_KIND_COUNT; i++)
		assert_true(strlen(nbw_link_kind_legend((enum nbw_link_kind)i)) > 5);
	assert_int_equal(nbw_bind_policy_parse("remote"), NBW_BIND_REMOTE);
	assert_int_equal(nbw_bind_policy_parse("LOCAL"), NBW_BIND_LOCAL);
	assert_int_equal(nbw_bind_policy_parse("none"), NBW_BIND_NONE);
	assert_int_equal(nbw_bind_policy_parse("far"), -1);
	assert_string_equal(nbw_bind_policy_name(NBW_BIND_REMOTE), "remote");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lane_rates),    cmocka_unit_test(generations),
		cmocka_unit_test(link_width),    cmocka_unit_test(speed_strings),
		cmocka_unit_test(nvlink),        cmocka_unit_test(bus_ids),
		cmocka_unit_test(kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
