/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief nodebw's OpenMP device numbering: GPUs first.
 *
 * libomptarget numbers devices in the order the offload images were linked, so a build for
 * x86_64-pc-linux-gnu,sm_90 makes the four host-plugin devices 0-3 and the GPU 4. nodebw
 * numbers the GPUs first (in the runtime's order), then every other device (in the
 * runtime's order), and records the runtime's own number beside its own. Header-only: the
 * offload library (bw_omp) and the tests share it.
 */
#ifndef NODEBW_DEVORDER_H
#define NODEBW_DEVORDER_H

#include <stdbool.h>

/** Fill \p order[k] with the runtime number of nodebw device k, for \p n runtime devices of
 *  which \p is_gpu[r] tells the GPUs. */
static inline void nbw_order_gpus_first(int n, const bool *is_gpu, int *order)
{
	int k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < n; r++)
			if (is_gpu[r] == (pass == 0))
				order[k++] = r;
}

#endif
