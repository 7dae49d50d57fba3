/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP backend's pointer chase (NBW_MODE_CHASE; omp_chase.c): one thread follows
 * the chain of struct nbw_xfer.chase_loads and stores the final index at the start of dst. */
#ifndef NODEBW_OMP_CHASE_H
#define NODEBW_OMP_CHASE_H

#include <stdint.h>

/** One thread of a target region on runtime device \p dev follows \p loads steps of the
 *  chain at \p chain (an address the device can load from) and stores the final index at
 *  \p out (device memory of \p dev). 0. */
int nbw_omp_chase_device(int dev, const uint64_t *chain, uint64_t loads, uint64_t *out);
/** The same on the calling host thread (\p chain and \p out host-addressable). */
void nbw_omp_chase_host(const uint64_t *chain, uint64_t loads, uint64_t *out);

#endif
