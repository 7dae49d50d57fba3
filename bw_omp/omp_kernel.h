/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP backend's kernel mode (bw_omp/omp_kernel.c); private to bw_omp/. */
#ifndef NODEBW_OMP_KERNEL_H
#define NODEBW_OMP_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/probe.h"

/** What the kernel mode needs to know of the backend's devices. */
struct omp_kernel_devs {
	int ndev;
	int ngpu;                 /**< devices that are GPUs (not the host plugin) */
};

/** Copy \p n bytes from \p src to \p dst with a copy loop on runtime device \p rt_dev (both
 *  pointers addressable by that device); returns when the copy is complete. */
void omp_kernel_copy(void *dst, const void *src, size_t n, int rt_dev);

/** The construct of the kernel mode for \p dir (a static string). */
const char *omp_kernel_interface(enum nbw_dir dir);

/** 0 when a copy kernel can run for (\p dir, \p mem) on these devices, else -1 with the
 *  reason: host-plugin devices always can (their memory is host memory); on GPUs HtoD and
 *  DtoH only with pinned host memory, P2P only as the same-device copy. */
int omp_kernel_supports(const struct omp_kernel_devs *k, enum nbw_dir dir,
			enum nbw_hostmem mem, char *why, size_t whylen);

#endif
