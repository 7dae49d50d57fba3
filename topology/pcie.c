/* SPDX-License-Identifier: BSD-3-Clause */
/* PCIe and NVLink rate arithmetic: theoretical bandwidth per direction, GB/s = 1e9 B/s. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

/* Per-lane transfer rate of each generation (GT/s) and its line-code efficiency. Gen6
 * uses the 128b/130b factor too, as the table does (its flit mode differs; see
 * doc/topology.md). */
static const struct {
	double gt_s, num, den;
} gens[] = {
	{ 2.5, 8, 10 }, { 5.0, 8, 10 }, { 8.0, 128, 130 }, { 16.0, 128, 130 },
	{ 32.0, 128, 130 }, { 64.0, 128, 130 },
};
#define NGENS ((int)(sizeof(gens) / sizeof(gens[0])))

int nbw_pcie_gen(double gt_s)
{
	for (int g = 0; g < NGENS; g++)
		if (fabs(gt_s - gens[g].gt_s) < 0.05)
			return g + 1;
	return 0;
}

double nbw_pcie_lane_gbps(int gen)
{
	if (gen < 1 || gen > NGENS)
		return -1;
	/* GT/s x efficiency = Gbit/s of payload per lane; / 8 = GB/s. */
	return gens[gen - 1].gt_s * gens[gen - 1].num / gens[gen - 1].den / 8.0;
}

void nbw_pcie_fill(struct nbw_pcie *p)
{
	p->gen = nbw_pcie_gen(p->gt_s);
	double lane = nbw_pcie_lane_gbps(p->gen);
	p->gbps = lane > 0 && p->width > 0 ? lane * p->width : -1;
}

double nbw_pcie_parse_speed(const char *s)
{
	char *end;
	if (!s)
		return 0;
	while (*s == ' ' || *s == '\t')
		s++;
	double v = strtod(s, &end);
	if (end == s || v <= 0 || !isfinite(v))
		return 0;
	while (*end == ' ')
		end++;
	/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s"; anything else ("Unknown") has no rate. */
	return strncmp(end, "GT/s", 4) == 0 ? v : 0;
}

/* NVLink: per link per direction. 1.0: 20 GB/s; 2.x, 3.x, 4.0: 25 GB/s (the lane count
 * per link fell as the lane rate rose); 5.0: 50 GB/s (1.8 TB/s both directions over 18
 * links). */
double topo_nvlink_gbps(int version)
{
	switch (version) {
	case 1: return 20.0;
	case 2: case 3: case 4: return 25.0;
	case 5: return 50.0;
	default: return -1;
	}
}

/* nvmlDeviceGetNvLinkVersion returns the enum nvmlNvlinkVersion_t, not the marketing
 * number: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0. */
int topo_nvml_version_major(unsigned e)
{
	static const int major[] = { 0, 1, 2, 2, 3, 3, 4, 5 };
	return e < sizeof(major) / sizeof(major[0]) ? major[e] : 0;
}
