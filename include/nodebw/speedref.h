/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The machine's own speed, measured by three fixed pieces of host work that owe
 * nothing to nodebw's measured paths: integer arithmetic on one core, a copy that stays in
 * the core's caches, and a copy through main memory. nodebw run times them between its
 * stages and at the start of every solver round, so that a run measured on a machine that
 * was slower throughout (a virtual machine sharing its host with other guests, a node
 * whose clock or memory is throttled) says so in figures: no counter of /proc sees it.
 * No process-wide state; doc/analysis.md, "The machine speed reference", says what each
 * figure means.
 */
#ifndef NODEBW_SPEEDREF_H
#define NODEBW_SPEEDREF_H

#include <jansson.h>
#include <stddef.h>

/** The cache copy's size: inside the L2 cache of every x86 and Arm server core since 2012. */
#define NBW_SPEEDREF_CACHE_BYTES (192u << 10)
/** The memory copy's size: source and destination together (64 MiB) exceed the last-level
 *  cache one core sees on most current servers (32 MiB on an EPYC CCD); small enough that
 *  a measurement takes about 0.2 s, page faults included (128 MiB took 0.9 s). */
#define NBW_SPEEDREF_MEMORY_BYTES (32u << 20)
/** Independent multiply-add chains of the core kernel, and their length. */
#define NBW_SPEEDREF_CORE_CHAINS 4
#define NBW_SPEEDREF_CORE_STEPS (1u << 21)
/** Timed repetitions of each kernel; the figure is the fastest (the least disturbed). */
#define NBW_SPEEDREF_REPS 5

struct nbw_speedref {
	double core_ns;      /**< ns per step of the core kernel (NBW_SPEEDREF_CORE_CHAINS
			      *   multiply-adds), fastest repetition */
	double cache_gbps;   /**< GB/s (1e9 B/s) of the cache copy, bytes counted once */
	double memory_gbps;  /**< GB/s of the memory copy, bytes counted once */
	double seconds;      /**< wall time of the whole measurement, allocation included */
};

/** Measure once (about 0.2 s on a 2-core VM). 0, or -1 with \p err (out of memory for the
 *  memory copy's two buffers, or a copy that did not reproduce its source). */
int nbw_speedref_measure(struct nbw_speedref *out, char *err, size_t errlen);

/** {"core_ns_per_step", "cache_gbps", "memory_gbps", "seconds"}; NULL on no memory. */
json_t *nbw_speedref_json(const struct nbw_speedref *s);

/** A reference at most this much slower than the run's best in every kernel is at the best
 *  (the drift table's rule for a round at its floor); the report's verdict and summary. */
#define NBW_SPEEDREF_AT_BEST 1.10

/** The best (fastest) figure of each kernel over the records of a results document's
 *  "disturbance.speed_reference" (\p list): the least core_ns, the largest cache and memory
 *  GB/s; NAN where no record has the figure (records with "error" have none). */
void nbw_speedref_best(json_t *list, struct nbw_speedref *best);

/** How much slower record \p p is than \p best, per kernel (core, cache, memory: >= 1, 1 =
 *  the best); NAN where \p p lacks the figure. */
void nbw_speedref_slower(json_t *p, const struct nbw_speedref *best, double slower[3]);

/** What the three kernels are and how their bytes are counted (for the results document). */
const char *nbw_speedref_method(void);

#endif
