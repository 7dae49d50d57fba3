/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CUDA backend's device code (cuda_kernels.c): the copy kernel of the kernel mode, the
 * one-thread pointer chase of the chase mode and the face probes' gather and scatter, PTX embedded in the plugin (cuda_kernels.ptx),
 * loaded and launched through driver entry points the backend takes with
 * cudaGetDriverEntryPointByVersion. Private to bw_native/cuda_backend.c.
 */
#ifndef NODEBW_CUDA_KERNELS_H
#define NODEBW_CUDA_KERNELS_H

#include <cudaTypedefs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nodebw/probe.h"

/* The CUDA versions whose driver entry points are asked for (hard-coded, as NVIDIA advises). */
#define CUK_LOAD_VERSION 2010
#define CUK_FUNCTION_VERSION 2000
#define CUK_LAUNCH_VERSION 4000
#define CUK_UNLOAD_VERSION 2000

/* The driver entry points; all four or the kernel modes are refused (why says which). */
struct cuk_entries {
	PFN_cuModuleLoadDataEx_v2010 load;
	PFN_cuModuleGetFunction_v2000 function;
	PFN_cuLaunchKernel_v4000 launch;
	PFN_cuModuleUnload_v2000 unload;
};

/* The module in one device's primary context and its five kernels. */
struct cuk_module {
	CUmodule mod;
	CUfunction copy16, copy1, chase, pack, unpack;
};

/* Threads per block of the copy kernel; blocks per multiprocessor (2048 threads each, the
 * most an SM since Volta keeps resident, so that enough loads are in flight). */
#define CUK_COPY_THREADS 512
#define CUK_COPY_BLOCKS_PER_SM 4

/* Loads the PTX into the calling thread's current context (the device's primary context,
 * made current by cudaSetDevice) and finds the kernels: CUDA_SUCCESS, or the failing result
 * with *call naming the driver call and \p log the JIT compiler's error log ("" if none). */
CUresult cuk_load(const struct cuk_entries *e, struct cuk_module *m, const char **call,
		  char *log, size_t loglen);
/* Unloads a loaded module (its context current); nothing for one never loaded. */
void cuk_unload(const struct cuk_entries *e, struct cuk_module *m);
/* The copy kernel of n bytes from src to dst (device addresses) on stream s, with a grid of
 * at most \p sms * CUK_COPY_BLOCKS_PER_SM blocks: 16-byte words where both are 16-byte
 * aligned, else bytes. */
CUresult cuk_copy(const struct cuk_entries *e, const struct cuk_module *m, CUstream s,
		  void *dst, const void *src, size_t n, int sms);
/* The chase, one thread on stream s: follows i = chain[i] from 0, \p loads times (stopping at
 * an index >= nelem), and stores the last index as a uint64_t at out. */
CUresult cuk_chase(const struct cuk_entries *e, const struct cuk_module *m, CUstream s,
		   const void *chain, uint64_t nelem, uint64_t loads, void *out);
/* The face probes' gather (\p unpack false: the region r->extent at \p at of \p box into the
 * contiguous \p lin) or scatter (lin into the box), device addresses of one device, on stream
 * s: words of 16, 8 or 4 bytes where the element size and both addresses allow, else bytes
 * (pack_args.h); CUDA_ERROR_INVALID_VALUE for a box of 2^31 words or more. */
CUresult cuk_pack(const struct cuk_entries *e, const struct cuk_module *m, CUstream s,
		  void *box, const struct nbw_region *r, const size_t at[3], void *lin,
		  bool unpack, int sms);
/* The copy grid for n bytes: enough blocks for every word once, at most sms * 4, at least 1. */
unsigned cuk_copy_blocks(size_t n, bool words16, int sms);

#endif
