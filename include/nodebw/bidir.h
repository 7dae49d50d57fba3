/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief "Bidirectional", defined once: both directions of a pair copying at the same time
 *  (concurrency "bidir"), given as two figures, always together.
 *
 *  - the sum: 2 x size / the wall time from the earliest start to the latest end of the
 *    two copies (the measurement's own GB/s, as the kind table counts its bytes);
 *  - each direction's own figure: size / that direction's own time (its stream's GB/s).
 *
 *  Peers publish one or the other: nvbandwidth's copy-engine bidirectional tests give the
 *  measured direction's figure while the reverse copy runs (per direction), its SM-kernel
 *  tests, TransferBench's health check, nvloom and p2pBandwidthLatencyTest the sum. The
 *  verdicts, the P2P matrices and the references read both from here.
 */
#ifndef NODEBW_BIDIR_H
#define NODEBW_BIDIR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/results_view.h"

/** The definition in words, for every output that shows a bidirectional figure. */
#define NBW_BIDIR_DEFINITION                                                                 \
	"bidirectional = both directions of a pair at once: sum = 2 x size / wall time from "  \
	"the earliest start to the latest end of the two copies; each direction = size / that " \
	"direction's own time"

struct nbw_bidir {
	double sum_gbps;        /**< both directions together; NaN when unknown */
	int src[2], dst[2];     /**< each direction's ends (stream order) */
	double dir_gbps[2];     /**< each direction's own figure; NaN when unknown */
};

/** The figures of a bidirectional measurement (concurrency "bidir", two streams); false
 *  (and \p out NaN) for any other. */
bool nbw_bidir_figures(const struct nbw_rv_meas *x, struct nbw_bidir *out);
/** The slower direction's figure (NaN when either is unknown). */
double nbw_bidir_slower(const struct nbw_bidir *b);
/** Of a bidirectional measurement, sets "bidir" in \p o: {"definition", "sum_gbps",
 *  "directions": [{"src", "dst", "gbps"}, {...}]}; nothing for any other. */
void nbw_bidir_json(json_t *o, const struct nbw_rv_meas *x);
/** "sum 12.34 GB/s; 0->1 6.20, 1->0 6.14 GB/s" from a "bidir" object as nbw_bidir_json
 *  wrote it; "" when \p bidir is not one. */
void nbw_bidir_words(json_t *bidir, char *buf, size_t len);

#endif
