/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Halo-shaped copies (`nodebw probe --faces NXxNYxNZ:R:E`): the shape of a box, its
 *  faces, the region each face copy moves, and the byte-by-byte check of a destination box.
 *
 * A box is nx x ny x nz elements of E bytes, x the fastest index, stored densely. A face of
 * depth R is a layer R elements thick across the whole box in the other two axes: the z-face
 * nx*ny*R elements (one contiguous block), the y-face R rows of nx per plane (nz blocks of
 * R*nx, strided), the x-face R elements per row (ny*nz runs of R, strided). A face copy moves
 * the sender's outermost interior layer into the receiver's halo layer: upwards (to the
 * neighbour above along the axis) the layer [n-2R, n-R) into [0, R), downwards [R, 2R) into
 * [n-R, n). Face bytes = the face's elements x E, the only figure a face copy counts.
 */
#ifndef NODEBW_FACE_H
#define NODEBW_FACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nodebw/probe.h"

/** Shapes one --faces list holds. */
#define NBW_MAX_FACE_SHAPES 8
/** The largest box, bytes (each face probe allocates a source and a destination box per
 *  stream, and a check buffer). */
#define NBW_FACE_MAX_BOX_BYTES (1ull << 30)
#define NBW_FACE_MAX_ELEM 64
#define NBW_FACE_MAX_DEPTH 16

struct nbw_face_shape {
	uint32_t n[3];        /**< nx, ny, nz (elements) */
	uint32_t depth;       /**< R: halo depth (elements) */
	uint32_t elem;        /**< E: element bytes */
};

/** Parse one "NXxNYxNZ:R:E" (e.g. "96x96x96:2:8"). 0, or -1 with a one-line message. */
int nbw_face_shape_parse(const char *s, struct nbw_face_shape *out, char *err, size_t errlen);
/** A comma list of shapes, at most \p max. 0, or -1 with a one-line message. */
int nbw_face_shapes_parse(const char *s, struct nbw_face_shape *out, int max, int *n, char *err,
			  size_t errlen);
/** "96x96x96:2:8" */
void nbw_face_shape_label(const struct nbw_face_shape *s, char *buf, size_t len);

/** Decompositions one --faces-decomp list holds. */
#define NBW_MAX_DECOMPS 8
/** The largest factor --faces-decomp takes as text (a factor beyond the devices in use is
 *  planned as a skipped series, with its reason). */
#define NBW_DECOMP_MAX_FACTOR 64

/** Parse one "PXxPYxPZ" (e.g. "2x2x1"): three integers from 0 to NBW_DECOMP_MAX_FACTOR; what
 *  they must be to run (each >= 1, product >= 2, at most the devices in use) the planner
 *  says (nbw_face_decomp_invalid). 0, or -1 with a one-line message. */
int nbw_face_decomp_parse(const char *s, int out[3], char *err, size_t errlen);
/** A comma list of decompositions, at most \p max. 0, or -1 with a one-line message. */
int nbw_face_decomps_parse(const char *s, int (*out)[3], int max, int *n, char *err,
			   size_t errlen);
/** "2x2x1" */
void nbw_face_decomp_label(const int d[3], char *buf, size_t len);
/** The messages of one exchange step of decomposition \p d: each neighbour pair both ways,
 *  2 x sum over the axes of (P_a - 1) x the other two factors. */
unsigned long nbw_face_decomp_messages(const int d[3]);
/** Fields an exchange probe sends per step at most (--faces-fields): each message once per
 *  field, each field's messages chained on their own, as an application with that many
 *  fields exchanges them. */
#define NBW_FACE_MAX_FIELDS 4
/** Why decomposition \p d cannot run on \p ndev devices (a factor below 1, a product
 *  below 2, more devices than \p ndev, more messages than NBW_MAX_STREAMS): true with
 *  \p why; false when it can. */
bool nbw_face_decomp_invalid(const int d[3], int ndev, bool named, char *why, size_t len);

/** Axis of a face: z 2, y 1, x 0. */
int nbw_face_axis(enum nbw_face f);
/** Elements of face \p f of \p s. */
uint64_t nbw_face_elements(const struct nbw_face_shape *s, enum nbw_face f);
/** Bytes of face \p f: its elements x element bytes (how every face copy counts bytes). */
uint64_t nbw_face_bytes(const struct nbw_face_shape *s, enum nbw_face f);
/** Bytes of the whole box. */
uint64_t nbw_face_box_bytes(const struct nbw_face_shape *s);
/** Contiguous runs of the face in the box (1 for z, nz for y, ny*nz for x) and bytes per run. */
uint64_t nbw_face_runs(const struct nbw_face_shape *s, enum nbw_face f, uint64_t *run_bytes);

/** The region of the copy of face \p f sent \p up (or down) with \p method. */
void nbw_face_region(const struct nbw_face_shape *s, enum nbw_face f, bool up,
		     enum nbw_face_method method, struct nbw_region *r);
/** Bytes of a region. */
uint64_t nbw_region_bytes(const struct nbw_region *r);

/** The reference copy on the host: every contiguous row of the region by memcpy. */
void nbw_region_copy_host(void *dst_box, const void *src_box, const struct nbw_region *r);
/** Gather the region at \p at of a host box into \p lin (or scatter \p lin into it). */
void nbw_region_pack_host(void *box, const struct nbw_region *r, const size_t at[3], void *lin,
			  bool unpack);

/** Check a destination box after a copy: the region at dst_at holds the source box's region
 *  at src_at, every other byte is \p poison. Returns the box's bytes when it is so, else the
 *  offset of the first wrong byte in the destination box, with \p what saying which part
 *  ("inside the face" or "outside the face"). */
size_t nbw_region_check(const void *src_box, const void *dst_box, const struct nbw_region *r,
			unsigned char poison, char *what, size_t wlen);

#endif
