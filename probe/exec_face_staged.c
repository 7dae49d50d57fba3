/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host-staged messages of an exchange (plan->face.staged; exec.h): each message goes
 * from the sender's device box to a host box of the series' host memory (the probe's
 * --host-mem, allocated by the backend: pinned memory is page-locked for the sender), then
 * from the host box into the receiver's halo. rect: two rectangular copies, the face's
 * region kept at its place in a whole host box; pack: gather on the sender -> one contiguous
 * DtoH copy -> one contiguous HtoD copy -> scatter on the receiver. One message, one host
 * thread, both hops timed together; the destination box is checked as every face copy's is.
 */
#include <stdio.h>
#include <string.h>

#include "exec.h"
#include "nodebw/face.h"

static int fail(struct nbw_point *p, struct nbw_stream_state *ss, const char *what)
{
	const char *d = p->s->ops->last_error(p->s->be);
	snprintf(ss->err, sizeof(ss->err), "%s: %s", what, d && *d ? d : "failed");
	p->failed = 1;
	return -1;
}

static int prepare(struct nbw_point *p, struct nbw_stream_state *ss, struct nbw_xfer *x,
		   bool *ok, const char *what)
{
	if (p->s->ops->prepare && p->s->ops->prepare(p->s->be, x))
		return fail(p, ss, what);
	*ok = true;
	return 0;
}

static int alloc(struct nbw_point *p, struct nbw_stream_state *ss, struct nbw_buf *b,
		 bool *ok, const char *what)
{
	if (p->s->ops->alloc(p->s->be, b))
		return fail(p, ss, what);
	*ok = true;
	return 0;
}

int nbw_face_staged_setup(struct nbw_point *p, unsigned me)
{
	struct nbw_exec *s = p->s;
	struct nbw_stream_state *ss = &p->st[me];
	bool pack = s->plan->face.method == NBW_FACE_PACK;
	size_t fb = ss->x.bytes;
	if (pack && !s->ops->pack) {
		snprintf(ss->err, sizeof(ss->err), "the backend has no pack kernel");
		p->failed = 1;
		return -1;
	}
	/* The host box: the whole box (rect keeps the face at its place), or the packed face. */
	ss->hbox = (struct nbw_buf){ .loc = nbw_exec_host_loc(s->plan->mem),
				     .device = ss->src.device, .bytes = pack ? fb : p->bytes };
	if (alloc(p, ss, &ss->hbox, &ss->hbox_ok, "allocation of the host box"))
		return -1;
	enum nbw_mode mode = s->plan->mode;
	if (!pack) {
		ss->hregion = ss->region;
		memcpy(ss->hregion.dst_at, ss->region.src_at, sizeof(ss->hregion.dst_at));
		ss->lx = (struct nbw_xfer){ .dir = NBW_DTOH, .mode = mode, .src = &ss->src,
					    .dst = &ss->hbox, .bytes = fb, .peer = NBW_PEER_NA,
					    .device_s = -1.0, .region = &ss->hregion };
		ss->hx = (struct nbw_xfer){ .dir = NBW_HTOD, .mode = mode, .src = &ss->hbox,
					    .dst = &ss->dst, .bytes = fb, .peer = NBW_PEER_NA,
					    .device_s = -1.0, .region = &ss->region };
	} else {
		ss->lsrc = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = ss->src.device,
					     .bytes = fb };
		ss->ldst = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = ss->dst.device,
					     .bytes = fb };
		if (alloc(p, ss, &ss->lsrc, &ss->lsrc_ok, "allocation of the packed source") ||
		    alloc(p, ss, &ss->ldst, &ss->ldst_ok, "allocation of the packed destination"))
			return -1;
		ss->lx = (struct nbw_xfer){ .dir = NBW_DTOH, .mode = mode, .src = &ss->lsrc,
					    .dst = &ss->hbox, .bytes = fb, .peer = NBW_PEER_NA,
					    .device_s = -1.0 };
		ss->hx = (struct nbw_xfer){ .dir = NBW_HTOD, .mode = mode, .src = &ss->hbox,
					    .dst = &ss->ldst, .bytes = fb, .peer = NBW_PEER_NA,
					    .device_s = -1.0 };
	}
	if (prepare(p, ss, &ss->lx, &ss->lx_prepared, "prepare of the copy to the host box") ||
	    prepare(p, ss, &ss->hx, &ss->hx_prepared, "prepare of the copy from the host box"))
		return -1;
	return 0;
}

int nbw_face_staged_copy(struct nbw_point *p, struct nbw_stream_state *ss)
{
	const struct nbw_backend_ops *ops = p->s->ops;
	struct nbw_backend *be = p->s->be;
	/* Two hops (and a gather and a scatter for pack): no device timer covers them all. */
	ss->x.device_s = ss->lx.device_s = ss->hx.device_s = -1.0;
	if (ss->region.method == NBW_FACE_RECT)
		return ops->copy_rect(be, &ss->lx) || ops->copy_rect(be, &ss->hx) ? -1 : 0;
	if (ops->pack(be, ss->x.src, &ss->region, ss->region.src_at, &ss->lsrc, false) ||
	    ops->transfer(be, &ss->lx) || ops->transfer(be, &ss->hx))
		return -1;
	return ops->pack(be, ss->x.dst, &ss->region, ss->region.dst_at, &ss->ldst, true);
}

void nbw_face_staged_teardown(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	const struct nbw_backend_ops *ops = p->s->ops;
	if (ss->hx_prepared && ops->unprepare)
		ops->unprepare(p->s->be, &ss->hx);
	if (ss->hbox_ok)
		ops->free(p->s->be, &ss->hbox);
	ss->hbox_ok = ss->hx_prepared = false;
}
