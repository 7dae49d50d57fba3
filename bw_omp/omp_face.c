/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP backend's face copies (include/nodebw/face.h): the rectangular copy is
 * omp_target_memcpy_rect (3 dimensions: the face's volume, the offsets in both boxes, the
 * boxes' dimensions; slowest first) or omp_target_memcpy_rect_async with one depobj and a
 * taskwait; the pack method's gather and scatter are target regions
 * on the device that owns the box (a GPU: `target teams distribute parallel for ...
 * is_device_ptr`; a host-plugin device: one `target` region looping serially over the
 * face's rows, the solver's form there), moving 8-byte words where the element size allows,
 * else 4-byte words, else bytes; blocking, or deferred (`nowait depend`) for the exchange
 * step (omp_exchange.c).
 *
 * Compiled with the offload flags (bw_omp/meson.build), never sanitised.
 */
#include "omp_face.h"

#include <stdint.h>
#include <stdio.h>

const char *omp_face_interface(enum nbw_face_method method, enum nbw_mode mode, char *why,
			       size_t whylen)
{
	if (mode != NBW_MODE_SYNC && mode != NBW_MODE_ASYNC) {
		snprintf(why, whylen, "face copies run in the sync and async modes");
		return NULL;
	}
	if (method == NBW_FACE_RECT)
		return mode == NBW_MODE_SYNC
			       ? "omp_target_memcpy_rect (3-D: the face's volume, offsets in both "
				 "boxes, the boxes' dimensions)"
			       : "omp_target_memcpy_rect_async (3-D, 1 depobj inout) + taskwait";
	return mode == NBW_MODE_SYNC
		       ? "pack: target teams distribute parallel for gather (host-plugin device: "
			 "a serial target region; host box: a host loop) -> omp_target_memcpy -> "
			 "scatter of the same form"
		       : "pack: target teams distribute parallel for gather (host-plugin device: "
			 "a serial target region; host box: a host loop) -> "
			 "omp_target_memcpy_async (1 depobj inout) + taskwait -> scatter of the "
			 "same form";
}

int omp_face_rect(void *dst, const void *src, const struct nbw_region *r, int dd, int sd,
		  bool async, omp_depend_t *dep)
{
	struct omp_rect_args a;
	omp_rect_args_set(&a, r, r->dst_at, r->src_at);
	int rc = omp_face_rect_args(dst, src, &a, dd, sd, async ? dep : NULL);
	if (async) {
#pragma omp taskwait
	}
	return rc;
}

void omp_rect_args_set(struct omp_rect_args *a, const struct nbw_region *r,
		       const size_t dst_at[3], const size_t src_at[3])
{
	a->elem = r->elem;
	for (int i = 0; i < 3; i++) {
		a->vol[i] = r->extent[2 - i];
		a->doff[i] = dst_at[2 - i];
		a->soff[i] = src_at[2 - i];
		a->dims[i] = r->dims[2 - i];
	}
}

int omp_face_rect_args(void *dst, const void *src, struct omp_rect_args *a, int dd, int sd,
		       omp_depend_t *dep)
{
	if (!dep)
		return omp_target_memcpy_rect(dst, src, a->elem, 3, a->vol, a->doff, a->soff,
					      a->dims, a->dims, dd, sd);
	return omp_target_memcpy_rect_async(dst, src, a->elem, 3, a->vol, a->doff, a->soff,
					    a->dims, a->dims, dd, sd, 1, dep);
}

#define OMP_PRAGMA(x) _Pragma(#x)
#define OMP(...) OMP_PRAGMA(omp __VA_ARGS__)

/* A GPU kernel: one element's words per iteration, every element at once. */
#define PACK_BODY(i)                                                                       \
	do {                                                                               \
		size_t e = (i) / W, k = (i) % W;                                           \
		size_t x = e % ex, y = (e / ex) % ey, z = e / (ex * ey);                   \
		size_t o = (((az + z) * ny + (ay + y)) * nx + (ax + x)) * W + k;           \
		if (unpack)                                                                \
			b[o] = l[i];                                                       \
		else                                                                       \
			l[i] = b[o];                                                       \
	} while (0)
/* A host-plugin device: one region looping serially, row by row (x is contiguous). */
#define PACK_ROWS(T)                                                                       \
	do {                                                                               \
		size_t row = ex * W;                                                       \
		for (size_t z = 0; z < ez; z++)                                            \
			for (size_t y = 0; y < ey; y++) {                                  \
				T *br = b + (((az + z) * ny + (ay + y)) * nx + ax) * W;    \
				T *lr = l + (z * ey + y) * row;                            \
				for (size_t i = 0; i < row; i++) {                         \
					if (unpack)                                        \
						br[i] = lr[i];                             \
					else                                               \
						lr[i] = br[i];                             \
				}                                                          \
			}                                                                  \
	} while (0)

/* One gather or scatter in words of type T (W per element); blocking, or (\p tok set)
 * deferred behind the earlier work on tok[0]. */
#define DEFINE_PACK(T, name)                                                               \
	static void name(void *box, void *lin, size_t E, size_t ex, size_t ey, size_t ez,  \
			 size_t nx, size_t ny, size_t ax, size_t ay, size_t az, bool unpack, \
			 int dev, bool gpu, int *tok)                                      \
	{                                                                                  \
		T *b = box;                                                                \
		T *l = lin;                                                                \
		size_t W = E / sizeof(T), n = ex * ey * ez * W;                            \
		if (gpu && tok) {                                                          \
			OMP(target teams distribute parallel for device(dev)               \
				    is_device_ptr(b, l) nowait depend(inout : tok[0]))     \
			for (size_t i = 0; i < n; i++)                                     \
				PACK_BODY(i);                                              \
		} else if (gpu) {                                                          \
			OMP(target teams distribute parallel for device(dev)               \
				    is_device_ptr(b, l))                                   \
			for (size_t i = 0; i < n; i++)                                     \
				PACK_BODY(i);                                              \
		} else if (tok) {                                                          \
			OMP(target device(dev) is_device_ptr(b, l) nowait                  \
				    depend(inout : tok[0]))                                \
			PACK_ROWS(T);                                                       \
		} else {                                                                   \
			OMP(target device(dev) is_device_ptr(b, l))                        \
			PACK_ROWS(T);                                                       \
		}                                                                          \
	}

DEFINE_PACK(uint64_t, pack8)
DEFINE_PACK(uint32_t, pack4)
DEFINE_PACK(unsigned char, pack1)

void omp_face_pack(void *box, const struct nbw_region *r, const size_t at[3], void *lin,
		   bool unpack, int dev, bool gpu, int *tok)
{
	size_t ex = r->extent[0], ey = r->extent[1], ez = r->extent[2];
	size_t nx = r->dims[0], ny = r->dims[1], E = r->elem;
	bool a8 = ((uintptr_t)box % 8) == 0 && ((uintptr_t)lin % 8) == 0;
	bool a4 = ((uintptr_t)box % 4) == 0 && ((uintptr_t)lin % 4) == 0;
	void (*fn)(void *, void *, size_t, size_t, size_t, size_t, size_t, size_t, size_t,
		   size_t, size_t, bool, int, bool, int *) = E % 8 == 0 && a8   ? pack8
							     : E % 4 == 0 && a4 ? pack4
										: pack1;
	fn(box, lin, E, ex, ey, ez, nx, ny, at[0], at[1], at[2], unpack, dev, gpu, tok);
}
