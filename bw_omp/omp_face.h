/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP backend's face copies (bw_omp/omp_face.c); private to bw_omp/. */
#ifndef NODEBW_OMP_FACE_H
#define NODEBW_OMP_FACE_H

#include <omp.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/probe.h"

/* The API calls of a face copy (include/nodebw/probe.h, face_interface). */
const char *omp_face_interface(enum nbw_face_method method, enum nbw_mode mode, char *why,
			       size_t whylen);
/* Region \p r of the box \p src (runtime device \p sd) into the box \p dst (\p dd) with
 * omp_target_memcpy_rect, or with its async form on \p dep and a taskwait. The runtime's
 * return code. */
int omp_face_rect(void *dst, const void *src, const struct nbw_region *r, int dd, int sd,
		  bool async, omp_depend_t *dep);
/* A target region on runtime device \p dev: gather the region at \p at of \p box into
 * \p lin, or scatter \p lin into it; on a GPU (\p gpu) a teams-distribute-parallel-for
 * kernel, on a host-plugin device one target region with a serial loop (the form the
 * solver's kernels take there: its G host threads already occupy the CPUs). */
void omp_face_pack(void *box, const struct nbw_region *r, const size_t at[3], void *lin,
		   bool unpack, int dev, bool gpu);

#endif
