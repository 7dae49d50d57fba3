/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw predict --measure`: the one-device runs a prediction lacks, measured on this node
 * before it predicts (tools/predict_measure.c). */
#ifndef NODEBW_TOOLS_PREDICT_MEASURE_H
#define NODEBW_TOOLS_PREDICT_MEASURE_H

#include <stdbool.h>
#include <stdio.h>

#include "nodebw/model.h"

/* Rounds of the measuring children (each a process of its own; a configuration takes its
 * fastest round, as nodebw run's solver stage) and repetitions in each. */
#define NBW_MEASURE_ROUNDS 3
/* More rounds, up to this many, while a configuration's rounds differ by more than
 * NBW_STABLE_SPREAD (a load burst on a shared machine): the fastest round is the floor
 * only when several rounds reach it. */
#define NBW_MEASURE_MAX_ROUNDS 6
#define NBW_MEASURE_REPS 3

/** What to measure: the slabs of every (N, G) asked for with the versions' co-runs, and
 *  extra shapes (the local boxes of an application; may be none). */
struct nbw_measure_box {
	int radius, fields;
	long box[3];
	int g;                    /**< the device count whose local box it is: G >= 2 co-runs
				   *   it too (G devices at once), 1 only its one-device run */
};

struct nbw_measure_req {
	const char *calib_path;   /**< the calibration read (the new file goes beside it) */
	const struct nbw_measure_box *boxes; /**< local boxes of an application (may be none) */
	int nboxes;
	/** The face shapes of an application the calibration lacks, each with the
	 *  decomposition whose exchange to measure: "NXxNYxNZ:R:E@PXxPYxPZ,..." for `nodebw
	 *  probe --faces NXxNYxNZ:R:E --faces-decomp PXxPYxPZ` (NULL or "": none). */
	const char *faces;
	const char *out_path;     /**< the new calibration's path; NULL: beside calib_path */
	const int *ns, *gs;
	int nn, ng;
	bool vers[5];
	int steps;                /**< of the solver runs (the calibration's) */
	FILE *log;                /**< progress lines (stderr), NULL: none */
};

/** Measure the one-device slab runs, co-runs, copy probes, local boxes' one-device runs and
 *  co-runs \p c lacks for \p r, add them to
 *  \p c and write it to the new calibration file (atomically); its path into \p written.
 *  0 (also when nothing was missing: \p written is then ""), or -1 with \p err. */
int nbw_predict_measure(struct nbw_calib *c, const struct nbw_measure_req *r, char *written,
			size_t writtenlen, char *err, size_t errlen);

#endif
