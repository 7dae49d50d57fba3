/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The OpenMP-versus-native gap: for every transfer measured through OpenMP and through
 * a native API on the same devices in one results document, the absolute and relative
 * bandwidth gap and the extra time per transfer, and per mode the mean absolute gap (the
 * annotation of the paper's Figure 4).
 *
 * Devices are matched by PCI bus id; a GPU that OpenMP cannot name a bus id for is matched
 * by its order among the devices of its kind (libomptarget numbers devices in the vendor
 * runtime's order) and the match says so; host-plugin device d is matched with the host
 * backend's memory region d.
 */
#ifndef NODEBW_GAP_H
#define NODEBW_GAP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/** The size bands of the summary: the latency range (per-transfer cost dominates: the gap
 *  is read as extra time) and the bandwidth range (the gap is read in GB/s). */
#define NBW_GAP_LATENCY_MAX_BYTES (64ull << 10)
#define NBW_GAP_BANDWIDTH_MIN_BYTES (1ull << 20)
/** A mean relative gap within +-this is "no clear gap" (the run-to-run spread of medians on
 *  a shared machine is of this order). */
#define NBW_GAP_CLEAR 0.03

/** Match devices across APIs: adds "native": {"api", "id", "by"} to every OpenMP device of
 *  \p devices that has a native counterpart (and the inferred "pci_bus_id"). Returns the
 *  number matched. */
int nbw_gap_match_devices(json_t *devices);

/** Compute the gap object {"definition", "rows": [...], "summary": [...]} from the devices
 *  (already matched) and measurements of a results document. Never NULL. */
json_t *nbw_gap_compute(json_t *devices, json_t *measurements);

/** "OpenMP slower", "OpenMP faster" or "no clear gap" for a signed mean relative gap. */
const char *nbw_gap_verdict(double mean_relative_gap);

/** The verdict of a band whose gap is within the two measurements' confidence intervals of
 *  their medians (they overlap) at more than half of its sizes: instead of a signed figure. A
 *  row says so with "measurable": false. */
#define NBW_GAP_NOT_MEASURABLE "no measurable gap"

/** The verdict of a summary band (latency_band, bandwidth_band): its "verdict", or, in a
 *  document written before bands had one, that of its median_relative_gap. */
const char *nbw_gap_band_verdict(json_t *band);

/** False when the band's verdict is NBW_GAP_NOT_MEASURABLE. */
bool nbw_gap_measurable(json_t *band);

/* Typed views of the gap table's summary rows (analysis/products_view.c): renderers read
 * these fields, not the keys. Strings borrowed ("" when absent), numbers NAN when absent. */
struct nbw_pv_gap_band {
	bool present;              /**< the band has sizes */
	long long edge_bytes;      /**< the small band's largest size, the large band's smallest */
	int sizes, unmeasurable_sizes;
	double median_relative_gap, median_extra_us, median_gap_gbps;
	const char *verdict;       /**< nbw_gap_band_verdict */
	bool measurable;           /**< nbw_gap_measurable */
};
struct nbw_pv_gap {
	const char *native_api, *direction, *omp_mode, *host_mem;
	int devices, sizes;
	double mean_abs_gap_gbps, mean_abs_relative_gap, mean_extra_us;
	struct nbw_pv_gap_band small, large;
	size_t nsign_changes;
	json_t *sign_changes_; /* private */
	json_t *row;           /**< the row itself, to copy whole into a document */
};
/** Row \p i of the summary of the gap table \p gaps (nbw_gap_compute); false past the end. */
bool nbw_pv_gap(json_t *gaps, size_t i, struct nbw_pv_gap *out);
/** The size in bytes of sign change \p i of \p g. */
long long nbw_pv_gap_sign_change(const struct nbw_pv_gap *g, size_t i);

/** Print the summary as a table (decimal GB/s). Returns the number of summary rows. */
size_t nbw_gap_print(FILE *f, json_t *gaps);

#endif
