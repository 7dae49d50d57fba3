/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HIP backend's device code (hip_kernels.c): a copy kernel, a pointer-chase kernel and
 * the face probes' gather and scatter kernels,
 * compiled at run time with hipRTC for each device's gcnArchName and loaded as a module on
 * the device, all outside the timed region.
 */
#ifndef NODEBW_HIP_KERNELS_H
#define NODEBW_HIP_KERNELS_H

#include <stddef.h>

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include "nodebw/probe.h"

struct hipk;    /* per backend: code objects per device, modules and functions */

struct hipk *hipk_new(int ndev);
void hipk_free(struct hipk *k);
/* Compile the kernels for every device (once; devices of one gcnArchName share the code
 * object). 0, or -1 with the reason (the hipRTC error and the first line of its log). */
int hipk_compile_all(struct hipk *k, char *why, size_t whylen);
/* The copy ("nbw_copy") and chase ("nbw_chase") functions on device \p dev, its module
 * loaded once (hipModuleLoadData with \p dev selected in the calling thread). */
int hipk_functions(struct hipk *k, int dev, hipFunction_t *copy, hipFunction_t *chase,
		   char *why, size_t whylen);
/* The face kernels ("nbw_pack", "nbw_unpack") on device \p dev and that device's stream for
 * them (non-blocking, made once), the module loaded as hipk_functions() does. 0, or -1 with
 * the reason. */
int hipk_face(struct hipk *k, int dev, hipFunction_t *pack, hipFunction_t *unpack,
	      hipStream_t *stream, char *why, size_t whylen);
/* Launch a face kernel \p f (pack or unpack) on \p s for the region r->extent at \p at of
 * \p box and the contiguous \p lin (device addresses of one device with \p cus compute
 * units); hipErrorInvalidValue for a box of 2^31 words or more (pack_args.h). */
hipError_t hipk_launch_face(hipFunction_t f, hipStream_t s, void *box, const struct nbw_region *r,
			    const size_t at[3], void *lin, int cus);
/* Launch a copy of \p n bytes from \p src to \p dst (device addresses) on \p s, on a device
 * with \p cus compute units. */
hipError_t hipk_launch_copy(hipFunction_t f, hipStream_t s, const void *src, void *dst,
			    size_t n, int cus);
/* Launch the chase: one thread follows i = chain[i] \p loads times from 0, stores i at out. */
hipError_t hipk_launch_chase(hipFunction_t f, hipStream_t s, const void *chain, void *out,
			     unsigned long long loads);

#endif
