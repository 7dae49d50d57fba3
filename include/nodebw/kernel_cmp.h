/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Kernel copy versus API copy (analysis/kernel_cmp.c): every verified measurement of
 * mode "kernel" (device threads load and store) paired with the same API's blocking copy
 * call (mode "sync": omp_target_memcpy, cudaMemcpy, ...) on the same direction, host
 * memory, concurrency, peer access, binding, devices and size. Rows hold both medians and
 * the ratio kernel / API copy; the summary gives per API, direction and host memory (one
 * stream) the median ratio of the small (<= 64 KiB) and the large (>= 1 MiB) sizes with a
 * verdict beyond +-3 %. Computed from a results document (never inside the probe core).
 */
#ifndef NODEBW_KERNEL_CMP_H
#define NODEBW_KERNEL_CMP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/** The mode a kernel copy is compared with: the API's blocking copy call. */
#define NBW_KCMP_COPY_MODE "sync"

/** {"definition", "rows": [...], "summary": [...]} from a document's devices and
 *  measurements; never NULL (empty arrays when nothing pairs). */
json_t *nbw_kernel_compare(json_t *devices, json_t *measurements);

/** "kernel faster", "kernel slower" or "no clear difference" (within +-3 %) for a ratio
 *  kernel / API copy. */
const char *nbw_kernel_compare_verdict(double ratio);

/** Print the rows (when \p rows) and the summary as tables (decimal GB/s). Returns the
 *  number of summary entries; prints nothing when there are none. */
size_t nbw_kernel_compare_print(FILE *f, json_t *cmp, bool rows);

#endif
