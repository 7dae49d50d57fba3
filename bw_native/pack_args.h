/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The arguments of the face probes' gather and scatter kernels (CUDA's nbw_pack / nbw_unpack
 * in cuda_kernels.ptx, HIP's in hip_kernels.c), computed once for both backends: the region
 * in words of 1 << shift bytes (x and the box's row counted in words), 32-bit indices.
 */
#ifndef NODEBW_PACK_ARGS_H
#define NODEBW_PACK_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "nodebw/probe.h"

/* The kernels' parameters after the box and lin addresses, in their order. */
struct nbw_pack_args {
	uint32_t n;            /* words of the region */
	uint32_t ex, ey;       /* the region's width (words) and height (rows) */
	uint32_t nx, ny;       /* the box's width (words) and height (rows) */
	uint32_t ax, ay, az;   /* the region's corner: word, row, plane */
	uint32_t shift;        /* log2 of the word's bytes: 4, 3, 2 or 0 */
};

/* The word of a gather or scatter, log2 of its bytes (4, 3, 2 or 0): the largest of 16, 8
 * and 4 bytes that divides the element and aligns both addresses, else 1 byte. */
unsigned nbw_pack_shift(size_t elem, const void *box, const void *lin);
/* The arguments for the region r->extent at \p at of \p box gathered into (or scattered from)
 * \p lin: 0, or -1 for a box of 2^31 words or more (the kernels index in 32 bits). */
int nbw_pack_args(const struct nbw_region *r, const size_t at[3], const void *box,
		  const void *lin, struct nbw_pack_args *a);

#endif
