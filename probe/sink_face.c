/* SPDX-License-Identifier: BSD-3-Clause */
/* The terminal's line of a face series (include/nodebw/sink.h, nbw_sink_face_line). */
#include <stdio.h>
#include <string.h>

#include "nodebw/face.h"
#include "nodebw/plan.h"
#include "nodebw/sink.h"
#include "nodebw/sizes.h"

static const char *ends(const struct nbw_series_plan *p, char *buf, size_t len)
{
	int s = p->set.src[0], d = p->set.dst[0];
	if (p->kind->dir == NBW_HTOD)
		snprintf(buf, len, "host->%d, host-staged", d);
	else if (p->kind->dir == NBW_DTOH)
		snprintf(buf, len, "%d->host, host-staged", s);
	else if (s == d)
		snprintf(buf, len, "%d->%d, same device, no peer link", s, d);
	else
		snprintf(buf, len, "%d->%d, device to device", s, d);
	return buf;
}

/* "x- and y-faces": the faces of an exchange's messages, x first. */
static void faces_words(const struct nbw_series_plan *p, char *buf, size_t len)
{
	static const enum nbw_face order[] = { NBW_FACE_X, NBW_FACE_Y, NBW_FACE_Z };
	const char *have[3];
	int n = 0;
	for (int k = 0; k < 3; k++)
		for (unsigned i = 0; i < p->set.nstreams; i++)
			if (p->face.face[i] == order[k]) {
				have[n++] = nbw_face_name(order[k]);
				break;
			}
	if (n == 1)
		snprintf(buf, len, "%s-faces", have[0]);
	else if (n == 2)
		snprintf(buf, len, "%s- and %s-faces", have[0], have[1]);
	else if (n == 3)
		snprintf(buf, len, "%s-, %s- and %s-faces", have[0], have[1], have[2]);
	else
		snprintf(buf, len, "faces");
}

void nbw_sink_face_line(FILE *f, const char *pre, const struct nbw_series_info *si,
			const struct nbw_measurement *m)
{
	const struct nbw_series_plan *p = si->plan;
	char sh[48], who[128], fb[32], sb[32];
	nbw_face_shape_label(&p->face.shape, sh, sizeof(sh));
	bool xchg = p->set.conc != NBW_CONC_FACE;
	bool staged = p->face.staged;
	if (p->set.conc == NBW_CONC_XDECOMP) {
		char fw[32], dl[16];
		faces_words(p, fw, sizeof(fw));
		nbw_face_decomp_label(p->face.decomp, dl, sizeof(dl));
		char fl[24] = "";
		if (p->face.fields > 1)
			snprintf(fl, sizeof(fl), " x %d fields", p->face.fields);
		snprintf(who, sizeof(who), "%u messages%s of %s at once, %s devices, %s",
			 p->set.nstreams, fl, fw, dl, staged ? "host-staged" : "device to device");
	} else if (xchg)
		snprintf(who, sizeof(who), "%u messages of %s at once, device to device",
			 p->set.nstreams,
			 p->set.conc == NBW_CONC_XGRID ? "z- and y-faces" : "z-faces");
	else
		ends(p, who, sizeof(who));
	char head[256];
	snprintf(head, sizeof(head), "%s%s-%s %s%s %s %s %s%s%s (%s)", pre, si->api,
		 nbw_dir_name(p->kind->dir), xchg ? p->kind->pattern : nbw_face_name(m->face.faces[0]),
		 xchg ? "" : "-face", nbw_face_method_name(p->face.method), nbw_mode_name(p->mode),
		 p->kind->dir == NBW_P2P && !staged ? "" : nbw_hostmem_name(p->mem),
		 p->kind->dir == NBW_P2P && !staged ? "" : " ", sh, who);
	if (m->error[0]) {
		fprintf(f, "%s: failed: %s\n", head, m->error);
		return;
	}
	uint64_t step = nbw_face_rec_step_bytes(&m->face, m->nstreams);
	nbw_size_label(m->bytes, fb, sizeof(fb));
	nbw_size_label(step, sb, sizeof(sb));
	if (xchg)
		fprintf(f, "%s: %s per step in %.3g us, %.2f GB/s", head, sb,
			m->seconds.median * 1e6, m->gbps.median);
	else
		fprintf(f, "%s: face %s in %.3g us, %.2f GB/s", head, fb, m->seconds.median * 1e6,
			m->gbps.median);
	fprintf(f, "; %s%s", strcmp(m->verify_status, "passed") == 0 ? "verified" : "NOT verified",
		m->stop[0] && !m->converged ? "; not converged" : "");
	if (m->has_overlap)
		fprintf(f, "; overlap %.2fx %s", m->overlap_speedup, m->overlap_verdict);
	fprintf(f, "\n");
	fflush(f);
}
