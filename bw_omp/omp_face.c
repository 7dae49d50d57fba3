/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP backend's face copies (include/nodebw/face.h): the rectangular copy is
 * omp_target_memcpy_rect (3 dimensions: the face's volume, the offsets in both boxes, the
 * boxes' dimensions; slowest first) or omp_target_memcpy_rect_async with one depobj and a
 * taskwait; the pack method's gather and scatter are target regions
 * on the device that owns the box (a GPU: `target teams distribute parallel for ...
 * is_device_ptr`; a host-plugin device: one `target` region looping serially, the solver's
 * form there), moving 8-byte words where the element size allows, else 4-byte words, else bytes.
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
	size_t volume[3] = { r->extent[2], r->extent[1], r->extent[0] };
	size_t doff[3] = { r->dst_at[2], r->dst_at[1], r->dst_at[0] };
	size_t soff[3] = { r->src_at[2], r->src_at[1], r->src_at[0] };
	size_t dims[3] = { r->dims[2], r->dims[1], r->dims[0] };
	if (!async)
		return omp_target_memcpy_rect(dst, src, r->elem, 3, volume, doff, soff, dims, dims,
					      dd, sd);
	int rc = omp_target_memcpy_rect_async(dst, src, r->elem, 3, volume, doff, soff, dims,
					      dims, dd, sd, 1, dep);
#pragma omp taskwait
	return rc;
}

/* One gather or scatter in words of type T: W words per element; a GPU kernel, or on a
 * host-plugin device one target region looping serially. */
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
#define PACK_LOOP(T)                                                                       \
	do {                                                                               \
		T *b = box;                                                                \
		T *l = lin;                                                                \
		size_t W = E / sizeof(T), n = ex * ey * ez * W;                            \
		if (gpu) {                                                                 \
			_Pragma("omp target teams distribute parallel for device(dev) is_device_ptr(b, l)") \
			for (size_t i = 0; i < n; i++)                                     \
				PACK_BODY(i);                                              \
		} else {                                                                   \
			_Pragma("omp target device(dev) is_device_ptr(b, l)")             \
			for (size_t i = 0; i < n; i++)                                     \
				PACK_BODY(i);                                              \
		}                                                                          \
	} while (0)

void omp_face_pack(void *box, const struct nbw_region *r, const size_t at[3], void *lin,
		   bool unpack, int dev, bool gpu)
{
	size_t ex = r->extent[0], ey = r->extent[1], ez = r->extent[2];
	size_t nx = r->dims[0], ny = r->dims[1], E = r->elem;
	size_t ax = at[0], ay = at[1], az = at[2];
	bool a8 = ((uintptr_t)box % 8) == 0 && ((uintptr_t)lin % 8) == 0;
	bool a4 = ((uintptr_t)box % 4) == 0 && ((uintptr_t)lin % 4) == 0;
	if (E % 8 == 0 && a8)
		PACK_LOOP(uint64_t);
	else if (E % 4 == 0 && a4)
		PACK_LOOP(uint32_t);
	else
		PACK_LOOP(unsigned char);
}
