/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The pointer chase of the chase mode (NBW_MODE_CHASE, struct nbw_xfer.chase_loads):
 *  the chain the core writes into a series' source, the core's own walk of it (the
 *  reference the backend's final index is checked against) and how many loads a transfer
 *  makes. Untimed; no backend calls these.
 *
 * The chain: the working set (the series' size) is cut into slots of NBW_CHASE_STRIDE bytes;
 * the first uint64_t of each slot holds the element index (uint64_t units) of the next
 * slot's first word, and the slots form one random cycle through every slot that starts
 * and ends at slot 0 (Sattolo's algorithm: a uniformly random cyclic permutation, so that
 * hardware prefetchers cannot guess the next address). The other words of a slot are 0.
 */
#ifndef NODEBW_CHASE_H
#define NODEBW_CHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Bytes between two loads of the chain: one cache line (and a GPU's 64 B sector pair). */
#define NBW_CHASE_STRIDE 64u
/** A chase working set is a whole number of these (the sweep's smallest size rounded up). */
#define NBW_CHASE_GRAIN 4096u
/** The loads of the base transfers, whose median is the launch and wait of a transfer. */
#define NBW_CHASE_BASE_LOADS 1ull
/** The fewest loads one transfer makes, and the most. */
#define NBW_CHASE_MIN_LOADS 1024ull
#define NBW_CHASE_MAX_LOADS (1ull << 26)
/** The loads of the chain are doubled until one transfer takes at least this long
 *  (the fastest of two): far above the clock's and the machine's noise; a path at ~1 us per
 *  load (a GPU reading host memory) stays at NBW_CHASE_MIN_LOADS, about 1 ms. */
#define NBW_CHASE_TARGET_S 1e-3
/** The chain is lengthened to one whole cycle (every slot once) when that transfer is
 *  expected to take at most this long; otherwise it walks a prefix of the cycle. */
#define NBW_CHASE_CYCLE_MAX_S 25e-3

/** Slots of a working set of \p bytes (bytes / NBW_CHASE_STRIDE). */
uint64_t nbw_chase_slots(uint64_t bytes);
/** \p bytes rounded up to NBW_CHASE_GRAIN (the working set of a chase point). */
uint64_t nbw_chase_working_set(uint64_t bytes);

/** Write the chain over \p bytes at \p chain (8-byte aligned), random by \p seed. 0, or -1
 *  when \p bytes holds fewer than two slots or is not a multiple of NBW_CHASE_STRIDE. */
int nbw_chase_build(uint64_t *chain, uint64_t bytes, uint64_t seed);

/** The index reached from index 0 after \p loads steps i = chain[i] of the chain over
 *  \p bytes; UINT64_MAX when an index leaves the buffer (a damaged chain). */
uint64_t nbw_chase_walk(const uint64_t *chain, uint64_t bytes, uint64_t loads);

/** Whether the chain over \p bytes is one cycle through every slot, from slot 0 back to
 *  it, with every index at a slot's first word (the builder's own check, and the tests'). */
bool nbw_chase_is_single_cycle(const uint64_t *chain, uint64_t bytes);

/** The backend's final index \p got against the core's walk \p want: true when equal;
 *  otherwise false with what differs in \p why. */
bool nbw_chase_check(uint64_t got, uint64_t want, char *why, size_t len);

/** The loads of the chain from one timed transfer of \p loads loads that took
 *  \p secs: doubled until it reaches NBW_CHASE_TARGET_S, then lengthened to the whole cycle
 *  of \p slots slots when that stays under NBW_CHASE_CYCLE_MAX_S. Returns \p loads when the
 *  transfer was long enough (and the cycle is covered or too slow to cover). */
uint64_t nbw_chase_next_loads(uint64_t loads, double secs, uint64_t slots);

#endif
