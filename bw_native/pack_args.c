/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The face kernels' arguments (pack_args.h): an element of E bytes is E >> shift words, so
 * a row of the region is extent[0] * E >> shift contiguous words and the kernels walk words,
 * never elements.
 */
#include "pack_args.h"

unsigned nbw_pack_shift(size_t elem, const void *box, const void *lin)
{
	uintptr_t addr = (uintptr_t)box | (uintptr_t)lin;
	for (unsigned shift = 4; shift >= 2; shift--) {
		size_t w = (size_t)1 << shift;
		if (elem % w == 0 && addr % w == 0)
			return shift;
	}
	return 0;
}

int nbw_pack_args(const struct nbw_region *r, const size_t at[3], const void *box,
		  const void *lin, struct nbw_pack_args *a)
{
	unsigned shift = nbw_pack_shift(r->elem, box, lin);
	uint64_t wpe = r->elem >> shift; /* words per element */
	uint64_t box_words = (uint64_t)r->dims[0] * r->dims[1] * r->dims[2] * wpe;
	if (!wpe || box_words >= (1ull << 31))
		return -1;
	a->ex = (uint32_t)(r->extent[0] * wpe);
	a->ey = (uint32_t)r->extent[1];
	a->n = (uint32_t)((uint64_t)a->ex * a->ey * r->extent[2]);
	a->nx = (uint32_t)(r->dims[0] * wpe);
	a->ny = (uint32_t)r->dims[1];
	a->ax = (uint32_t)(at[0] * wpe);
	a->ay = (uint32_t)at[1];
	a->az = (uint32_t)at[2];
	a->shift = shift;
	return 0;
}
