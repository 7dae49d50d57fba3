/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Which devices a series of each direction and thread count measures: every device,
 *  every pair, described as data before anything runs.
 *
 * HtoD/DtoH with one host thread: each device alone. With two host threads: the first two
 * devices at once. P2P with one host thread: every ordered pair (a -> b, a != b), or the
 * same-device copy when there is one device. P2P with two host threads: every unordered pair,
 * both directions at once. The first set of each kind (device 0, the first pair) runs the
 * whole size sweep, as does every set when the user named the devices; the others run at the
 * sweep's smallest and largest size only (latency and bandwidth matrices), so the time grows
 * linearly with the number of devices and pairs at two sizes.
 */
#ifndef NODEBW_PLAN_H
#define NODEBW_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/probe.h"

/** One device set of a series: its streams' endpoints (-1 = host memory). */
struct nbw_plan_set {
	unsigned nstreams;        /**< 1 or 2 */
	int src[2], dst[2];
	enum nbw_conc conc;
	bool matrix_only;         /**< smallest and largest size only */
};

/** Fill \p out (room for \p max) with the sets of direction \p dir for \p threads host
 *  threads (1 or 2) over the devices \p devs (\p nd of them, in the user's order);
 *  \p named: the user listed the devices (every set then runs the whole sweep). Returns the
 *  count (0 when \p threads is 2 and there is one device). */
size_t nbw_plan_sets(enum nbw_dir dir, int threads, const int *devs, int nd, bool named,
		     struct nbw_plan_set *out, size_t max);

#endif
