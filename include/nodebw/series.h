/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The kinds of series, as data: one table drives `nodebw list`, `--threads` and
 *  `--probe` checking, planning (how many devices and host threads), the labels of every
 *  table and how bytes are counted.
 *
 * A series is (API, direction, mode, host memory, kind, peer access, binding, device set);
 * its kind says how many devices move data at once and from how many host threads. The P2P
 * kinds: single (one ordered pair), bidir (both directions of a pair), ring (device i to
 * i+1) and all-to-all (every ordered pair at once).
 */
#ifndef NODEBW_SERIES_H
#define NODEBW_SERIES_H

#include <stddef.h>

#include "nodebw/probe.h"

/** All-to-all runs n(n-1) streams at once, at most NBW_MAX_STREAMS: on more devices, the
 *  first this many (8 x 7 = 56 streams). */
#define NBW_A2A_MAX_DEVICES 8
#define NBW_A2A_MAX_DEVICES_STR "8"

/** --threads words, in the order of nbw_probe_opts.threads[]. */
enum nbw_threads { NBW_THREADS_1, NBW_THREADS_2, NBW_THREADS_ALL, NBW_THREADS_COUNT };

struct nbw_series_kind {
	enum nbw_dir dir;
	enum nbw_conc conc;
	enum nbw_threads threads;   /**< the --threads word that selects it */
	int min_devices;            /**< fewer devices: skipped, saying so */
	const char *pattern;        /**< short name: "single", "host-to-all", "ring", ... */
	const char *label;          /**< how it runs, for series headers and `nodebw list` */
	/** How the bytes of one measurement are counted (recorded with every measurement). */
	const char *bytes_counting;
};

/** Every kind, in run order (HtoD kinds, DtoH kinds, P2P kinds). */
const struct nbw_series_kind *nbw_series_kinds(size_t *n);
/** The kind of (direction, --threads word), or NULL. */
const struct nbw_series_kind *nbw_series_kind_of(enum nbw_dir dir, enum nbw_threads t);
/** The kind of (direction, concurrency), or NULL. */
const struct nbw_series_kind *nbw_series_kind_find(enum nbw_dir dir, enum nbw_conc conc);

const char *nbw_threads_name(enum nbw_threads t);
/** "1", "2" or "all"; -1 when unknown. */
int nbw_threads_parse(const char *s);

#endif
