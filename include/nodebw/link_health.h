/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Link health beside bandwidth: what the links of each GPU report about themselves
 * (PCIe training of the device and of every port above it, AER counters, the PCIe replay
 * counter, NVLinks up and their error counters, xGMI error status, Xe Link fabric port
 * states), recorded by topology/ in the "topology" block of results.json (per device,
 * key "link_health"), read back with nbw_rv_topo_health() and judged as `link_health`
 * verdicts (analysis/link_health.c; doc/check.md, "Link health").
 *
 * Counters are cumulative since the driver (or the kernel) loaded them; -1 = not known
 * (null in JSON), never 0.
 */
#ifndef NODEBW_LINK_HEALTH_H
#define NODEBW_LINK_HEALTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "nodebw/topology.h"

#define NBW_LH_MAX_HOPS 8

/** AER counters of one PCI function: the TOTAL_ lines of sysfs aer_dev_correctable,
 *  aer_dev_nonfatal, aer_dev_fatal. -1 when the file is absent. */
struct nbw_lh_aer {
	long long correctable, nonfatal, fatal;
};

/** One PCI function on the way from a GPU to its root port. hop[0] is the device itself
 *  (its link to the port above), hop[1...] the bridges and ports above it, the last one the
 *  root port. */
struct nbw_lh_hop {
	char bus_id[24];
	struct nbw_pcie cur, max; /**< current_link_*, max_link_* (gen 0 / width 0 unknown) */
	struct nbw_lh_aer aer;
};

/** Everything a device's links report about their health. */
struct nbw_link_health {
	int nhops;                      /**< 0: not a PCI device, or sysfs had nothing */
	struct nbw_lh_hop hop[NBW_LH_MAX_HOPS];
	long long pcie_replays;         /**< NVML or ROCm SMI replay counter; -1 */
	char replay_source[16];         /**< "nvml", "rocm-smi", "" */
	int nvlink_present, nvlink_up;  /**< NVML links that answered / that are active; -1 */
	char nvlink_down[96];           /**< indices of the links present but down: "3,7" */
	long long nvl_crc_flit, nvl_crc_data, nvl_replay, nvl_recovery; /**< sums; -1 */
	long long xgmi_error_status;    /**< rsmi_xgmi_status_t: 0 none, 1 one, 2 several; -1 */
	int xe_ports;                   /**< Level Zero fabric ports; -1 unknown */
	int xe_healthy, xe_degraded, xe_failed, xe_disabled;
};

/** An empty record: every figure unknown. */
static inline void nbw_link_health_init(struct nbw_link_health *h)
{
	*h = (struct nbw_link_health){ .pcie_replays = -1, .nvlink_present = -1,
				       .nvlink_up = -1, .nvl_crc_flit = -1, .nvl_crc_data = -1,
				       .nvl_replay = -1, .nvl_recovery = -1,
				       .xgmi_error_status = -1, .xe_ports = -1 };
}

/** The link health of topology device \p i (the live machine: sysfs read anew, vendor
 *  answers from the load; a fixture: its sys/ tree and links.json). 0, or -1 out of range. */
int nbw_topo_link_health(const struct nbw_topo *t, size_t i, struct nbw_link_health *out);

/** Typed view of the results document's topology block: device \p i's recorded link
 *  health and its id (borrowed). false when there is no device \p i or it recorded none. */
bool nbw_rv_topo_health(json_t *topo, size_t i, const char **id, const char **name,
			struct nbw_link_health *out);

/* ---- judging (analysis/link_health*.c) ------------------------------------------------ */

/** The limits of the thresholds file's "link_health" object; defaults cited in
 *  doc/check.md ("Link health"). A limit < 0 is "no limit": a non-zero count is a warning. */
struct nbw_lh_limits {
	int downtrained;                /**< verdict of a link below its maximum: 2 fail, 1
					     warning, 0 not judged (default 2, DCGM) */
	long long pcie_replays_max;     /**< 80 (DCGM max_pcie_replays) */
	long long aer_correctable_max;  /**< 480 (DCGM aer_threshold) */
	long long aer_nonfatal_max;     /**< 0 */
	long long aer_fatal_max;        /**< 0 */
	long long nvlink_down_max;      /**< 0 (Azure check_nvlink_status, DCGM) */
	long long nvlink_crc_max;       /**< -1: DCGM's limit is a rate, not a count */
	long long nvlink_replay_max;    /**< -1 */
	long long nvlink_recovery_max;  /**< 0 (DCGM max_nvlink_recovery_errors) */
	bool xgmi_error_fails;          /**< true (Azure check_gpu_xgmi) */
	char file[512];                 /**< the thresholds file that set them, "" defaults */
};
void nbw_lh_limits_default(struct nbw_lh_limits *l);
struct nbw_criteria;
/** The link-health limits of a set of criteria (include/nodebw/verdict.h); NULL for NULL. */
const struct nbw_lh_limits *nbw_criteria_link_health(const struct nbw_criteria *c);
/** Read the thresholds file's "link_health" object \p o over the defaults: 0, or -1 with
 *  "link_health.KEY: what is wrong" in \p err. */
int nbw_lh_limits_parse(json_t *o, struct nbw_lh_limits *l, char *err, size_t errlen);

/** The link-health verdicts of a results document's topology block: an array, one entry per
 *  device and link and aspect: {"device", "name", "link", "aspect", "figures": {...},
 *  "rule", "source", "verdict": "pass" | "fail" | "warning" | "not judged", "reason"}.
 *  \p l NULL: the defaults. New reference (an empty array without a topology). */
json_t *nbw_link_health_judge(json_t *topology, const struct nbw_lh_limits *l);

/** Attach the link-health verdicts to a verdicts object of nbw_verdicts(): key
 *  "link_health" (the array), "link_health_counts" and "link_health_failed"; the reason of
 *  every failing bandwidth path whose own link is not healthy gains ": its link ..." (its
 *  device's PCIe link for HtoD/DtoH, the fabric of either end for P2P). \p devices: the
 *  document's devices (api id -> PCI bus id). 0, or -1 out of memory. */
int nbw_link_health_apply(json_t *verdicts, json_t *topology, json_t *devices,
			  const struct nbw_lh_limits *l);
/** Link-health failures attached to \p verdicts (0 when none were attached). */
int nbw_link_health_failed(json_t *verdicts);
/** The link-health lines of `nodebw check`: counts, then every entry that did not pass
 *  (every entry with \p all). Nothing when none were attached. */
void nbw_link_health_print(FILE *f, json_t *verdicts, bool all);

#endif
