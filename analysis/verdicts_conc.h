/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to analysis/: the paths of copies made at the same time, for the verdicts
 * (analysis/verdicts.c). */
#ifndef NODEBW_ANALYSIS_VERDICTS_CONC_H
#define NODEBW_ANALYSIS_VERDICTS_CONC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/results_view.h"

/* One path judged while other copies run: a pair during all-to-all (its own stream's
 * figure) or an aggregate (all-to-all, host-to-all, all-to-host: every stream's bytes over
 * the wall time of the whole). */
struct nbw_vc_path {
	struct nbw_rv_meas x;   /* the path as one measurement (see nbw_vc_paths) */
	bool aggregate;
	int ndevices;           /* devices taking part */
};

/* Every such path of \p measurements (usable ones only: verified, not chase, not a
 * plane-sweep point), into a new array *\p out (free() it); their count. A pair's x is its
 * stream's: src, dst and gbps of the stream, no theoretical figure (the links of an
 * all-to-all are shared: what one pair could have is not known) and no interval. An
 * aggregate's x is the measurement's own (aggregate GB/s; for host-to-all and all-to-host
 * the sum of the devices' host links as its theoretical figure, none for all-to-all), with
 * stream 0's ends for the device names. */
size_t nbw_vc_paths(json_t *devices, json_t *measurements, struct nbw_vc_path **out);

/* "aggregate", "host->all", "all->host" or "0->1" (a pair): the verdict's "where". */
void nbw_vc_where(const struct nbw_vc_path *v, char *buf, size_t len);

#endif
