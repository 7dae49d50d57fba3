/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exchange of an application's decomposition (--faces-decomp PXxPYxPZ; the series kind
 * exchange-decomp, include/nodebw/plan.h nbw_plan_decomp): pure data, no backend. Devices are
 * numbered as the solver numbers its subdomains (heat/decomp.c), taken from the probe's
 * device list in order; each neighbour pair exchanges its faces both ways, every message at
 * once, device to device or staged through a host box.
 */
#include <stdio.h>
#include <string.h>

#include "nodebw/face.h"
#include "nodebw/plan.h"
#include "plan_priv.h"

/* enum nbw_face of the faces between neighbours along axis a (x 0, y 1, z 2). */
static const enum nbw_face axis_face[3] = { NBW_FACE_X, NBW_FACE_Y, NBW_FACE_Z };

unsigned nbw_plan_decomp(const int *devs, const int decomp[3], int fields,
			 struct nbw_plan_set *set, struct nbw_face_plan *fp)
{
	memset(set, 0, sizeof(*set));
	set->conc = NBW_CONC_XDECOMP;
	int px = decomp[0], py = decomp[1], pz = decomp[2];
	int g = px * py * pz, stride[3] = { 1, px, px * py };
	fp->fields = fields > 1 ? fields : 1;
	for (int a = 0; a < 3; a++)
		for (int d = 0; d < g; d++) {
			int idx[3] = { d % px, (d / px) % py, d / (px * py) };
			if (idx[a] + 1 >= decomp[a])
				continue;
			/* d is below its neighbour along axis a: its upper interior layer goes up
			 * into the neighbour's lower halo, and the neighbour's lower layer down. */
			int b = d + stride[a];
			for (int dir = 0; dir < 2 && set->nstreams < NBW_MAX_STREAMS; dir++) {
				unsigned i = set->nstreams++;
				set->src[i] = devs[dir == 0 ? d : b];
				set->dst[i] = devs[dir == 0 ? b : d];
				fp->face[i] = (unsigned char)axis_face[a];
				fp->up[i] = dir == 0;
			}
		}
	memcpy(fp->decomp, decomp, sizeof(fp->decomp));
	return set->nstreams;
}

/* "exchange-decomp 2x2x1 host-staged rect async 32x32x62:1:8 pinned" (", 2 fields") */
static void what(const struct nbw_series_kind *k, const int dc[3], int fields, bool staged,
		 const struct nbw_face_shape *sh, enum nbw_face_method m, enum nbw_mode mode,
		 enum nbw_hostmem mem, char *buf, size_t len)
{
	char face[80], dl[16], fl[16] = "";
	nbw_face_decomp_label(dc, dl, sizeof(dl));
	if (fields > 1)
		snprintf(fl, sizeof(fl), " %d fields", fields);
	snprintf(face, sizeof(face), "%s %s%s %s", k->pattern, dl, fl,
		 staged ? "host-staged" : "device");
	nbw_plan_face_label(sh, face, m, mode, mem, buf, len);
}

static int one(const struct nbw_probe_opts *o, const struct nbw_plan_devices *d,
	       const struct nbw_face_shape *sh, enum nbw_mode mode, enum nbw_face_method m,
	       const char *iface, enum nbw_peer peer, enum nbw_hostmem mem, const int dc[3],
	       const char *skip, struct nbw_plan *out)
{
	const struct nbw_series_kind *k = nbw_series_kind_find(NBW_P2P, NBW_CONC_XDECOMP);
	bool staged = mem != NBW_HOSTMEM_NONE;
	char w[96];
	what(k, dc, o->faces_fields, staged, sh, m, mode, mem, w, sizeof(w));
	if (skip)
		return nbw_plan_add_skip(out, k, mode, mem, w, skip);
	struct nbw_series_plan *e = nbw_plan_face_series(out, k, o, mode, mem,
							 staged ? NBW_PEER_NA : peer, iface, sh, m);
	if (!e)
		return -1;
	nbw_plan_decomp(d->devs, dc, o->faces_fields, &e->set, &e->face);
	e->face.staged = staged;
	snprintf(e->what, sizeof(e->what), "%s", w);
	return 0;
}

int nbw_plan_faces_decomp(const struct nbw_probe_opts *o, const struct nbw_plan_caps *caps,
			  const struct nbw_plan_devices *d, const struct nbw_face_shape *sh,
			  enum nbw_mode mode, enum nbw_face_method m, const char *iface,
			  enum nbw_peer peer, struct nbw_plan *out)
{
	for (int i = 0; i < o->ndecomps; i++) {
		const int *dc = o->decomps[i];
		char why[NBW_REASON_LEN] = "";
		bool bad = nbw_face_decomp_invalid(dc, d->nd, d->named, why, sizeof(why));
		if (!bad && o->faces_fields > 1 && !caps->exchange_step) {
			snprintf(why, sizeof(why), "%d fields per step need the backend's own "
				 "exchange step, which this API's backend does not have",
				 o->faces_fields);
			bad = true;
		}
		if (one(o, d, sh, mode, m, iface, peer, NBW_HOSTMEM_NONE, dc, bad ? why : NULL, out))
			return -1;
		/* Host-staged: once per host memory asked, where the backend copies faces both
		 * ways (device -> host, host -> device) in that memory. */
		for (int mem = 0; mem < NBW_HOSTMEM_NONE; mem++) {
			if (!o->hostmem[mem])
				continue;
			char why2[NBW_REASON_LEN] = "";
			const char *siface = NULL;
			if (!bad) {
				siface = caps->face_interface(caps->ctx, NBW_DTOH, m, mode, why2,
							      sizeof(why2));
				if (siface && !caps->face_interface(caps->ctx, NBW_HTOD, m, mode, why2,
								    sizeof(why2)))
					siface = NULL;
				for (int dir = NBW_HTOD; siface && caps->supports && dir <= NBW_DTOH;
				     dir++)
					if (caps->supports(caps->ctx, (enum nbw_dir)dir, mode,
							   (enum nbw_hostmem)mem, why2, sizeof(why2)))
						siface = NULL;
			}
			if (one(o, d, sh, mode, m, siface, peer, (enum nbw_hostmem)mem, dc,
				bad ? why : siface ? NULL : why2, out))
				return -1;
		}
	}
	return 0;
}
