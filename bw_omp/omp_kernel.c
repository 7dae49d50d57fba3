/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP backend's kernel mode: a copy loop offloaded as
 * `target teams distribute parallel for ... is_device_ptr(...)`, the device's threads
 * loading the source and storing the destination (beside omp_target_memcpy, the copy path
 * of the other modes). The loop copies 8-byte words where both pointers are 8-byte
 * aligned, and the tail (or everything, when they are not aligned) byte by byte, in the
 * same kernel. The target region is blocking: it returns when the copy is complete.
 *
 * Which device runs it: HtoD the destination device (it loads host memory), DtoH the
 * source device (it stores into host memory), P2P the destination device (it loads the
 * source device's memory). Which memory the device can address is decided in
 * omp_kernel_supports() (bw_omp/omp_kernel.h).
 *
 * Compiled with the offload flags (bw_omp/meson.build), never sanitised.
 */
#include "omp_kernel.h"

#include <stdint.h>
#include <stdio.h>

#include "nodebw/probe.h"

void omp_kernel_copy(void *dst, const void *src, size_t n, int rt_dev)
{
	char *d = dst;
	const char *s = src;
	bool aligned = ((uintptr_t)d % 8) == 0 && ((uintptr_t)s % 8) == 0;
	size_t words = aligned ? n / 8 : 0;
	size_t tail_from = words * 8;
	size_t items = words + (n - tail_from);
	if (items == 0)
		return;
#pragma omp target teams distribute parallel for device(rt_dev) is_device_ptr(d, s)
	for (size_t i = 0; i < items; i++) {
		if (i < words) {
			((uint64_t *)d)[i] = ((const uint64_t *)s)[i];
		} else {
			size_t b = tail_from + (i - words);
			d[b] = s[b];
		}
	}
}

const char *omp_kernel_interface(enum nbw_dir dir)
{
	switch (dir) {
	case NBW_HTOD:
		return "target teams distribute parallel for copy loop (is_device_ptr; 8-byte "
		       "words, bytes for the tail), the destination device reads the host buffer";
	case NBW_DTOH:
		return "target teams distribute parallel for copy loop (is_device_ptr; 8-byte "
		       "words, bytes for the tail), the source device writes the host buffer";
	default:
		return "target teams distribute parallel for copy loop (is_device_ptr; 8-byte "
		       "words, bytes for the tail), the destination device reads the source "
		       "device's buffer";
	}
}

int omp_kernel_supports(const struct omp_kernel_devs *k, enum nbw_dir dir,
			enum nbw_hostmem mem, char *why, size_t whylen)
{
	if (k->ngpu == 0)
		return 0; /* host-plugin devices: every buffer is host memory the device can load */
	if (dir == NBW_P2P) {
		if (k->ndev == 1)
			return 0; /* the same-device copy: the device's own memory */
		snprintf(why, whylen,
			 "a kernel on one GPU loading another GPU's memory needs to know the "
			 "destination device can address it; LLVM 19's omp.h declares "
			 "omp_target_is_accessible but libomptarget 19 does not implement it, and "
			 "OpenMP has no peer-access call, so it is not run");
		return -1;
	}
	if (mem == NBW_HOSTMEM_PINNED)
		return 0; /* llvm_omp_target_alloc_host: device-accessible pinned memory */
	snprintf(why, whylen,
		 "a GPU kernel can address host memory only where the plugin mapped it: "
		 "pinned memory from llvm_omp_target_alloc_host is, %s memory is not (no "
		 "unified shared memory is assumed)",
		 mem == NBW_HOSTMEM_PAGEABLE ? "pageable (posix_memalign)" : "this host");
	return -1;
}
