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
/* The arrays of omp_target_memcpy_rect (slowest axis first) for a region's volume from
 * src_at in one box to dst_at in another of the region's dims. The async form reads them
 * when its task runs: they must outlive it. */
struct omp_rect_args {
	size_t elem, vol[3], doff[3], soff[3], dims[3];
};
void omp_rect_args_set(struct omp_rect_args *a, const struct nbw_region *r,
		       const size_t dst_at[3], const size_t src_at[3]);
/* omp_target_memcpy_rect of \p a, or with \p dep its async form behind that depobj, not
 * waited for. The runtime's return code. */
int omp_face_rect_args(void *dst, const void *src, struct omp_rect_args *a, int dd, int sd,
		       omp_depend_t *dep);
/* A target region on runtime device \p dev: gather the region at \p at of \p box into
 * \p lin, or scatter \p lin into it; on a GPU (\p gpu) a teams-distribute-parallel-for
 * kernel, on a host-plugin device one target region looping over the rows (the form the
 * solver's kernels take there: its G host threads already occupy the CPUs). Blocking, or
 * with \p tok deferred (nowait, depend(inout: tok[0])). */
void omp_face_pack(void *box, const struct nbw_region *r, const size_t at[3], void *lin,
		   bool unpack, int dev, bool gpu, int *tok);

#endif
