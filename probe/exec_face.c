/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The face series' parts of a point (exec.h; include/nodebw/face.h): each stream copies one
 * face of its source box into the halo of its destination box, by the backend's rectangular
 * copy or by pack -> one contiguous copy -> unpack (device buffers packed by the backend's
 * kernel, host buffers by the core's loop). The check compares the whole destination box:
 * the face holds the source box's face, every other byte is still the poison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "nodebw/face.h"
#include "nodebw/runner.h"

#define POISON 0xA5 /* what exec.c's buf_set poisons with */

static int fail(struct nbw_point *p, struct nbw_stream_state *ss, const char *what)
{
	const char *d = p->s->ops->last_error(p->s->be);
	snprintf(ss->err, sizeof(ss->err), "%s: %s", what, d && *d ? d : "failed");
	p->failed = 1;
	return -1;
}

int nbw_face_setup(struct nbw_point *p, unsigned me)
{
	struct nbw_exec *s = p->s;
	struct nbw_stream_state *ss = &p->st[me];
	const struct nbw_face_plan *fp = &s->plan->face;
	nbw_face_region(&fp->shape, (enum nbw_face)fp->face[me], fp->up[me], fp->method,
			&ss->region);
	size_t fb = (size_t)nbw_region_bytes(&ss->region);
	ss->x.region = &ss->region;
	ss->x.bytes = fb;
	/* The source box as written (exec.c fills it with the pattern of seed + stream). */
	ss->expect = malloc(p->bytes);
	if (!ss->expect) {
		snprintf(ss->err, sizeof(ss->err), "out of memory for the reference box");
		p->failed = 1;
		return -1;
	}
	nbw_pattern_fill(ss->expect, p->bytes, p->seed + me);
	if (fp->staged)
		return nbw_face_staged_setup(p, me);
	if (fp->method != NBW_FACE_PACK)
		return 0;
	if (!s->ops->pack && (ss->src.loc == NBW_LOC_DEVICE || ss->dst.loc == NBW_LOC_DEVICE)) {
		snprintf(ss->err, sizeof(ss->err), "the backend has no pack kernel");
		p->failed = 1;
		return -1;
	}
	ss->lsrc = (struct nbw_buf){ .loc = ss->src.loc, .device = ss->src.device, .bytes = fb };
	ss->ldst = (struct nbw_buf){ .loc = ss->dst.loc, .device = ss->dst.device, .bytes = fb };
	if (s->ops->alloc(s->be, &ss->lsrc))
		return fail(p, ss, "allocation of the packed source");
	ss->lsrc_ok = true;
	if (s->ops->alloc(s->be, &ss->ldst))
		return fail(p, ss, "allocation of the packed destination");
	ss->ldst_ok = true;
	ss->lx = (struct nbw_xfer){ .dir = ss->x.dir, .mode = ss->x.mode, .src = &ss->lsrc,
				    .dst = &ss->ldst, .bytes = fb, .peer = ss->x.peer,
				    .device_s = -1.0 };
	if (s->ops->prepare && s->ops->prepare(s->be, &ss->lx))
		return fail(p, ss, "prepare of the contiguous copy");
	ss->lx_prepared = true;
	return 0;
}

/* Gather from (or scatter into) one box: the backend's kernel on a device, a loop on the
 * host. */
static int side(struct nbw_point *p, struct nbw_stream_state *ss, struct nbw_buf *box,
		const size_t at[3], struct nbw_buf *lin, bool unpack)
{
	if (box->loc == NBW_LOC_DEVICE)
		return p->s->ops->pack(p->s->be, box, &ss->region, at, lin, unpack);
	nbw_region_pack_host(box->ptr, &ss->region, at, lin->ptr, unpack);
	return 0;
}

int nbw_face_copy(struct nbw_point *p, struct nbw_stream_state *ss)
{
	const struct nbw_backend_ops *ops = p->s->ops;
	if (p->s->plan->face.staged)
		return nbw_face_staged_copy(p, ss);
	if (ss->region.method == NBW_FACE_RECT)
		return ops->copy_rect(p->s->be, &ss->x);
	if (side(p, ss, ss->x.src, ss->region.src_at, &ss->lsrc, false))
		return -1;
	ss->lx.device_s = -1.0;
	if (ops->transfer(p->s->be, &ss->lx))
		return -1;
	/* The whole pack -> copy -> unpack is the measurement: no device timer covers it. */
	ss->x.device_s = -1.0;
	return side(p, ss, ss->x.dst, ss->region.dst_at, &ss->ldst, true);
}

void nbw_face_msg(struct nbw_point *p, unsigned me, struct nbw_exchange_msg *m)
{
	struct nbw_stream_state *ss = &p->st[me];
	bool pack = ss->region.method == NBW_FACE_PACK, staged = p->s->plan->face.staged;
	*m = (struct nbw_exchange_msg){ .src = ss->x.src, .dst = ss->x.dst,
					.region = &ss->region,
					.lsrc = pack ? &ss->lsrc : NULL,
					.ldst = pack ? &ss->ldst : NULL,
					.hbox = staged ? &ss->hbox : NULL,
					.hregion = staged ? &ss->hregion : NULL,
					.bytes = ss->x.bytes };
}

int nbw_face_check(struct nbw_point *p, unsigned me, char *what, size_t wlen, size_t *at)
{
	struct nbw_stream_state *ss = &p->st[me];
	const void *data = ss->dst.ptr;
	what[0] = '\0';
	*at = 0;
	if (ss->dst.loc == NBW_LOC_DEVICE) {
		if (p->s->ops->read(p->s->be, ss->scratch, &ss->dst, p->bytes))
			return -1;
		data = ss->scratch;
	}
	char where[32];
	size_t bad = nbw_region_check(ss->expect, data, &ss->region, POISON, where, sizeof(where));
	if (bad == p->bytes)
		return 0;
	snprintf(what, wlen, "destination box wrong %s", where);
	*at = bad;
	return -1;
}

void nbw_face_teardown(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	const struct nbw_backend_ops *ops = p->s->ops;
	nbw_face_staged_teardown(p, me);
	if (ss->lx_prepared && ops->unprepare)
		ops->unprepare(p->s->be, &ss->lx);
	if (ss->lsrc_ok)
		ops->free(p->s->be, &ss->lsrc);
	if (ss->ldst_ok)
		ops->free(p->s->be, &ss->ldst);
	free(ss->expect);
	ss->expect = NULL;
	ss->lsrc_ok = ss->ldst_ok = ss->lx_prepared = false;
}
