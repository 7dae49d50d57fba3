/* SPDX-License-Identifier: BSD-3-Clause */
/* The face series (include/nodebw/plan.h, nbw_plan_faces): pure data, no backend. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/plan.h"
#include "plan_priv.h"

static void link(struct nbw_plan_set *set, struct nbw_face_plan *fp, int a, int b,
		 enum nbw_face f)
{
	for (int dir = 0; dir < 2 && set->nstreams + 1 < NBW_MAX_STREAMS; dir++) {
		unsigned i = set->nstreams++;
		set->src[i] = dir == 0 ? a : b;
		set->dst[i] = dir == 0 ? b : a;
		fp->face[i] = (unsigned char)f;
		fp->up[i] = dir == 0; /* a is below b along the face's axis */
	}
}

unsigned nbw_plan_exchange(const int *devs, int nd, bool grid, struct nbw_plan_set *set,
			   struct nbw_face_plan *fp)
{
	memset(set, 0, sizeof(*set));
	if (!grid) {
		set->conc = NBW_CONC_XLINE;
		for (int i = 0; i + 1 < nd; i++)
			link(set, fp, devs[i], devs[i + 1], NBW_FACE_Z);
		return set->nstreams;
	}
	set->conc = NBW_CONC_XGRID;
	int cols = nd / 2;
	/* Device (row r, column c) = devs[r * cols + c]: z-faces along each row first (the
	 * first message is a z-face), then y-faces between the two rows. */
	for (int r = 0; r < 2; r++)
		for (int c = 0; c + 1 < cols; c++)
			link(set, fp, devs[r * cols + c], devs[r * cols + c + 1], NBW_FACE_Z);
	for (int c = 0; c < cols; c++)
		link(set, fp, devs[c], devs[cols + c], NBW_FACE_Y);
	return set->nstreams;
}

void nbw_plan_face_label(const struct nbw_face_shape *s, const char *face,
			 enum nbw_face_method m, enum nbw_mode mode, enum nbw_hostmem mem,
			 char *buf, size_t len)
{
	char sh[48];
	nbw_face_shape_label(s, sh, sizeof(sh));
	snprintf(buf, len, "%s %s %s %s%s%s", face, nbw_face_method_name(m), nbw_mode_name(mode),
		 sh, mem == NBW_HOSTMEM_NONE ? "" : " ", mem == NBW_HOSTMEM_NONE ? "" :
		 nbw_hostmem_name(mem));
}

struct nbw_series_plan *nbw_plan_face_series(struct nbw_plan *out, const struct nbw_series_kind *k,
					     const struct nbw_probe_opts *o, enum nbw_mode mode,
					     enum nbw_hostmem mem, enum nbw_peer peer,
					     const char *iface, const struct nbw_face_shape *sh,
					     enum nbw_face_method m)
{
	struct nbw_series_plan *e = nbw_plan_add(out);
	if (!e)
		return NULL;
	e->kind = k;
	e->mode = mode;
	e->mem = mem;
	e->peer = peer;
	int bp = 0;
	while (bp < 2 && !o->bind[bp])
		bp++;
	e->bind = (enum nbw_bind_policy)bp;
	e->interface = iface;
	e->face.on = true;
	e->face.shape = *sh;
	e->face.method = m;
	return e;
}

static int plan_one(const struct nbw_probe_opts *o, enum nbw_dir dir,
		    const struct nbw_plan_caps *caps, const struct nbw_plan_devices *d,
		    const struct nbw_face_shape *sh, enum nbw_mode mode, enum nbw_face_method m,
		    struct nbw_plan *out)
{
	char why[NBW_REASON_LEN] = "", what[96];
	const struct nbw_series_kind *kf = nbw_series_kind_find(dir, NBW_CONC_FACE);
	const char *iface = caps->face_interface
				    ? caps->face_interface(caps->ctx, dir, m, mode, why, sizeof(why))
				    : NULL;
	if (!caps->face_interface)
		snprintf(why, sizeof(why), "the backend has no face copies");
	if (!iface) {
		nbw_plan_face_label(sh, "faces", m, mode, NBW_HOSTMEM_NONE, what, sizeof(what));
		return nbw_plan_add_skip(out, kf, mode, NBW_HOSTMEM_NONE, what, why);
	}
	if (d->nd < 1) {
		nbw_plan_face_label(sh, "faces", m, mode, NBW_HOSTMEM_NONE, what, sizeof(what));
		return nbw_plan_add_skip(out, kf, mode, NBW_HOSTMEM_NONE, what, "no device");
	}
	if (dir != NBW_P2P) {
		for (int mem = 0; mem < NBW_HOSTMEM_NONE; mem++) {
			if (!o->hostmem[mem])
				continue;
			if (caps->supports &&
			    caps->supports(caps->ctx, dir, mode, (enum nbw_hostmem)mem, why,
					   sizeof(why))) {
				nbw_plan_face_label(sh, "faces", m, mode, (enum nbw_hostmem)mem, what, sizeof(what));
				if (nbw_plan_add_skip(out, kf, mode, (enum nbw_hostmem)mem, what, why))
					return -1;
				continue;
			}
			for (int f = 0; f < NBW_FACE_COUNT; f++) {
				struct nbw_series_plan *e = nbw_plan_face_series(out, kf, o, mode,
								   (enum nbw_hostmem)mem, NBW_PEER_NA,
								   iface, sh, m);
				if (!e)
					return -1;
				e->set.nstreams = 1;
				e->set.conc = NBW_CONC_FACE;
				e->set.src[0] = dir == NBW_HTOD ? -1 : d->devs[0];
				e->set.dst[0] = dir == NBW_HTOD ? d->devs[0] : -1;
				e->face.face[0] = (unsigned char)f;
				e->face.up[0] = 1;
				nbw_plan_face_label(sh, nbw_face_name((enum nbw_face)f), m, mode,
				      (enum nbw_hostmem)mem, e->what, sizeof(e->what));
			}
		}
		return 0;
	}
	/* Device to device: the first pair, or the same-device copy (labelled so). */
	enum nbw_peer peer = caps->peer_control && d->nd > 1 ? NBW_PEER_ON : NBW_PEER_NA;
	for (int f = 0; f < NBW_FACE_COUNT; f++) {
		struct nbw_series_plan *e =
			nbw_plan_face_series(out, kf, o, mode, NBW_HOSTMEM_NONE, peer, iface, sh, m);
		if (!e)
			return -1;
		e->set.nstreams = 1;
		e->set.conc = NBW_CONC_FACE;
		e->set.src[0] = d->devs[0];
		e->set.dst[0] = d->devs[d->nd > 1 ? 1 : 0];
		e->face.face[0] = (unsigned char)f;
		e->face.up[0] = 1;
		nbw_plan_face_label(sh, nbw_face_name((enum nbw_face)f), m, mode, NBW_HOSTMEM_NONE, e->what,
		      sizeof(e->what));
	}
	for (int g = 0; g < 2; g++) {
		const struct nbw_series_kind *kx =
			nbw_series_kind_find(NBW_P2P, g ? NBW_CONC_XGRID : NBW_CONC_XLINE);
		nbw_plan_face_label(sh, kx->pattern, m, mode, NBW_HOSTMEM_NONE, what, sizeof(what));
		if (d->nd < kx->min_devices) {
			snprintf(why, sizeof(why), "needs %d devices; %s %d", kx->min_devices,
				 d->named ? "--devices lists" : "the API has", d->nd);
			if (nbw_plan_add_skip(out, kx, mode, NBW_HOSTMEM_NONE, what, why))
				return -1;
			continue;
		}
		struct nbw_series_plan *e =
			nbw_plan_face_series(out, kx, o, mode, NBW_HOSTMEM_NONE, peer, iface, sh, m);
		if (!e)
			return -1;
		nbw_plan_exchange(d->devs, d->nd > NBW_MAX_STREAMS / 2 ? NBW_MAX_STREAMS / 2 : d->nd,
				  g == 1, &e->set, &e->face);
		snprintf(e->what, sizeof(e->what), "%s", what);
	}
	return nbw_plan_faces_decomp(o, caps, d, sh, mode, m, iface, peer, out);
}

int nbw_plan_faces(const struct nbw_probe_opts *o, enum nbw_dir dir,
		   const struct nbw_plan_caps *caps, const struct nbw_plan_devices *d,
		   struct nbw_plan *out)
{
	static const enum nbw_mode modes[] = { NBW_MODE_SYNC, NBW_MODE_ASYNC };
	bool any = false;
	for (int s = 0; s < o->nfaces; s++)
		for (size_t mi = 0; mi < 2; mi++) {
			if (!o->modes[modes[mi]])
				continue;
			any = true;
			for (int m = 0; m < NBW_FACE_METHOD_COUNT; m++)
				if (plan_one(o, dir, caps, d, &o->faces[s], modes[mi],
					     (enum nbw_face_method)m, out))
					return -1;
		}
	if (!any && o->nfaces)
		return nbw_plan_add_skip(out, nbw_series_kind_find(dir, NBW_CONC_FACE), NBW_MODE_SYNC,
			    NBW_HOSTMEM_NONE, "faces",
			    "the face probes run in the sync and async modes; --mode names neither");
	return 0;
}
