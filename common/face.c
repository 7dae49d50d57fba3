/* SPDX-License-Identifier: BSD-3-Clause */
/* Box shapes, faces, regions and their check (include/nodebw/face.h). */
#include "nodebw/face.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_u32(const char *s, char **end, uint32_t lo, uint32_t hi, uint32_t *out)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, end, 10);
	if (errno || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int nbw_face_shape_parse(const char *s, struct nbw_face_shape *out, char *err, size_t errlen)
{
	char *e = (char *)s;
	struct nbw_face_shape v;
	const char *form = "expected NXxNYxNZ:R:E (box elements, halo depth, element bytes), "
			   "e.g. 96x96x96:2:8";
	for (int a = 0; a < 3; a++) {
		if (parse_u32(e, &e, 1, 1u << 20, &v.n[a]) || *e != (a < 2 ? 'x' : ':')) {
			snprintf(err, errlen, "--faces '%s': %s", s, form);
			return -1;
		}
		e++;
	}
	if (parse_u32(e, &e, 1, NBW_FACE_MAX_DEPTH, &v.depth) || *e != ':') {
		snprintf(err, errlen, "--faces '%s': %s; R from 1 to %d", s, form,
			 NBW_FACE_MAX_DEPTH);
		return -1;
	}
	e++;
	if (parse_u32(e, &e, 1, NBW_FACE_MAX_ELEM, &v.elem) || *e) {
		snprintf(err, errlen, "--faces '%s': %s; E from 1 to %d bytes", s, form,
			 NBW_FACE_MAX_ELEM);
		return -1;
	}
	for (int a = 0; a < 3; a++)
		if (v.n[a] < 2 * v.depth) {
			snprintf(err, errlen,
				 "--faces '%s': every side needs at least 2R = %u elements (a halo "
				 "layer and the interior layer sent)",
				 s, 2 * v.depth);
			return -1;
		}
	if ((uint64_t)v.n[0] * v.n[1] * v.n[2] * v.elem > NBW_FACE_MAX_BOX_BYTES) {
		snprintf(err, errlen, "--faces '%s': the box is larger than %llu bytes", s,
			 (unsigned long long)NBW_FACE_MAX_BOX_BYTES);
		return -1;
	}
	*out = v;
	return 0;
}

int nbw_face_shapes_parse(const char *s, struct nbw_face_shape *out, int max, int *n, char *err,
			  size_t errlen)
{
	char buf[512];
	if (!s || !*s || strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "--faces needs NXxNYxNZ:R:E[,...] (at most %zu characters)",
			 sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	*n = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n >= max) {
			snprintf(err, errlen, "--faces: at most %d shapes", max);
			return -1;
		}
		if (nbw_face_shape_parse(t, &out[*n], err, errlen))
			return -1;
		(*n)++;
	}
	if (*n == 0 || s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,")) {
		snprintf(err, errlen, "--faces '%s': an empty shape in the list", s);
		return -1;
	}
	return 0;
}

void nbw_face_shape_label(const struct nbw_face_shape *s, char *buf, size_t len)
{
	snprintf(buf, len, "%ux%ux%u:%u:%u", s->n[0], s->n[1], s->n[2], s->depth, s->elem);
}

int nbw_face_axis(enum nbw_face f)
{
	return f == NBW_FACE_Z ? 2 : f == NBW_FACE_Y ? 1 : 0;
}

uint64_t nbw_face_elements(const struct nbw_face_shape *s, enum nbw_face f)
{
	uint64_t e = s->depth;
	for (int a = 0; a < 3; a++)
		if (a != nbw_face_axis(f))
			e *= s->n[a];
	return e;
}

uint64_t nbw_face_bytes(const struct nbw_face_shape *s, enum nbw_face f)
{
	return nbw_face_elements(s, f) * s->elem;
}

uint64_t nbw_face_box_bytes(const struct nbw_face_shape *s)
{
	return (uint64_t)s->n[0] * s->n[1] * s->n[2] * s->elem;
}

uint64_t nbw_face_runs(const struct nbw_face_shape *s, enum nbw_face f, uint64_t *run_bytes)
{
	switch (f) {
	case NBW_FACE_Z:
		*run_bytes = nbw_face_bytes(s, f);
		return 1;
	case NBW_FACE_Y:
		*run_bytes = (uint64_t)s->n[0] * s->depth * s->elem;
		return s->n[2];
	default:
		*run_bytes = (uint64_t)s->depth * s->elem;
		return (uint64_t)s->n[1] * s->n[2];
	}
}

void nbw_face_region(const struct nbw_face_shape *s, enum nbw_face f, bool up,
		     enum nbw_face_method method, struct nbw_region *r)
{
	memset(r, 0, sizeof(*r));
	int ax = nbw_face_axis(f);
	size_t R = s->depth;
	for (int a = 0; a < 3; a++) {
		r->dims[a] = s->n[a];
		r->extent[a] = a == ax ? R : s->n[a];
	}
	size_t n = s->n[ax];
	r->src_at[ax] = up ? n - 2 * R : R;
	r->dst_at[ax] = up ? 0 : n - R;
	r->elem = s->elem;
	r->method = method;
}

uint64_t nbw_region_bytes(const struct nbw_region *r)
{
	return (uint64_t)r->extent[0] * r->extent[1] * r->extent[2] * r->elem;
}

static size_t offset_of(const struct nbw_region *r, const size_t at[3], size_t y, size_t z)
{
	return (((at[2] + z) * r->dims[1] + (at[1] + y)) * r->dims[0] + at[0]) * r->elem;
}

void nbw_region_copy_host(void *dst_box, const void *src_box, const struct nbw_region *r)
{
	size_t row = r->extent[0] * r->elem;
	for (size_t z = 0; z < r->extent[2]; z++)
		for (size_t y = 0; y < r->extent[1]; y++)
			memcpy((char *)dst_box + offset_of(r, r->dst_at, y, z),
			       (const char *)src_box + offset_of(r, r->src_at, y, z), row);
}

void nbw_region_pack_host(void *box, const struct nbw_region *r, const size_t at[3], void *lin,
			  bool unpack)
{
	size_t row = r->extent[0] * r->elem;
	char *l = lin;
	for (size_t z = 0; z < r->extent[2]; z++)
		for (size_t y = 0; y < r->extent[1]; y++, l += row) {
			char *b = (char *)box + offset_of(r, at, y, z);
			if (unpack)
				memcpy(b, l, row);
			else
				memcpy(l, b, row);
		}
}

static bool inside(const struct nbw_region *r, size_t x, size_t y, size_t z)
{
	size_t c[3] = { x, y, z };
	for (int a = 0; a < 3; a++)
		if (c[a] < r->dst_at[a] || c[a] >= r->dst_at[a] + r->extent[a])
			return false;
	return true;
}

size_t nbw_region_check(const void *src_box, const void *dst_box, const struct nbw_region *r,
			unsigned char poison, char *what, size_t wlen)
{
	const unsigned char *s = src_box, *d = dst_box;
	size_t E = r->elem, rowb = r->dims[0] * E;
	size_t total = rowb * r->dims[1] * r->dims[2];
	for (size_t z = 0; z < r->dims[2]; z++)
		for (size_t y = 0; y < r->dims[1]; y++) {
			size_t base = (z * r->dims[1] + y) * rowb;
			for (size_t x = 0; x < r->dims[0]; x++) {
				const unsigned char *p = d + base + x * E;
				if (inside(r, x, y, z)) {
					size_t sx = x - r->dst_at[0] + r->src_at[0];
					size_t sy = y - r->dst_at[1] + r->src_at[1];
					size_t sz = z - r->dst_at[2] + r->src_at[2];
					const unsigned char *q =
						s + ((sz * r->dims[1] + sy) * r->dims[0] + sx) * E;
					for (size_t b = 0; b < E; b++)
						if (p[b] != q[b]) {
							snprintf(what, wlen, "inside the face");
							return base + x * E + b;
						}
				} else {
					for (size_t b = 0; b < E; b++)
						if (p[b] != poison) {
							snprintf(what, wlen, "outside the face");
							return base + x * E + b;
						}
				}
			}
		}
	return total;
}
