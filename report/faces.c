/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transfers page's face probes (`nodebw probe --faces`): one row per face copy and per
 * exchange, the rectangular copy beside pack -> copy -> unpack of the same face, read through
 * the typed view of a face measurement (nbw_rv_face_read).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/report.h"
#include "nodebw/results_view.h"
#include "nodebw/sizes.h"
#include "rdoc_priv.h"

struct face_row {
	struct nbw_rv_meas x;
	struct nbw_rv_face f;
};

static bool same_but_method(const struct face_row *a, const struct face_row *b)
{
	return !strcmp(a->x.api, b->x.api) && !strcmp(a->x.direction, b->x.direction) &&
	       !strcmp(a->x.mode, b->x.mode) && !strcmp(a->x.host_mem, b->x.host_mem) &&
	       !strcmp(a->f.kind, b->f.kind) && !strcmp(a->f.face, b->f.face) &&
	       !memcmp(a->f.box, b->f.box, sizeof(a->f.box)) && a->f.depth == b->f.depth &&
	       a->f.element_bytes == b->f.element_bytes && a->x.src == b->x.src &&
	       a->x.dst == b->x.dst && !memcmp(a->f.decomp, b->f.decomp, sizeof(a->f.decomp)) &&
	       !strcmp(a->f.exchange, b->f.exchange) && strcmp(a->f.method, b->f.method) != 0;
}

static void time_cell(struct nbw_rtable *t, const struct face_row *r)
{
	if (r && isfinite(r->f.seconds))
		nbw_rtable_cellv(t, r->f.seconds * 1e6, "%.3g", r->f.seconds * 1e6);
	else
		nbw_rtable_cell(t, "-");
}

static void rate_cell(struct nbw_rtable *t, const struct face_row *r)
{
	if (r && isfinite(r->f.gbps))
		nbw_rtable_cellv(t, r->f.gbps, "%.2f", r->f.gbps);
	else
		nbw_rtable_cell(t, "-");
}

static void what(const struct face_row *r, char *buf, size_t len)
{
	if (!strcmp(r->f.kind, "face"))
		snprintf(buf, len, "%s-face, %s", r->f.face,
			 !strcmp(r->x.direction, "p2p")
				 ? (r->x.src == r->x.dst ? "same device" : "device to device")
				 : !strcmp(r->x.direction, "htod") ? "host-staged HtoD"
								   : "host-staged DtoH");
	else if (r->f.decomp[0] > 0)
		snprintf(buf, len, "%s %dx%dx%d, %s, %d messages", r->f.kind, r->f.decomp[0],
			 r->f.decomp[1], r->f.decomp[2], r->f.exchange, r->f.messages);
	else
		snprintf(buf, len, "%s, %d messages", r->f.kind, r->f.messages);
}

void nbw_report_faces(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	size_t n = json_array_size(in->measurements), k = 0;
	struct face_row *v = n ? calloc(n, sizeof(*v)) : NULL;
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		struct face_row *e = &v[k];
		if (nbw_rv_meas_read(in->devices, json_array_get(in->measurements, i), &e->x) &&
		    nbw_rv_meas_verified(&e->x) && nbw_rv_face_read(&e->x, &e->f))
			k++;
	}
	if (k == 0) {
		free(v);
		return;
	}
	nbw_rdoc_heading(r, 3, "Halo faces: rectangular copy against pack -> copy -> unpack");
	nbw_rdoc_para(r, "%zu verified face measurements (nodebw probe --faces). A face of depth R "
			 "of a box nx x ny x nz: z-face nx*ny*R elements (contiguous), y-face R "
			 "rows of nx per plane, x-face R elements per row; bytes = the face's "
			 "elements x element bytes, an exchange's = the sum over its messages, "
			 "every message started together. Times are medians in microseconds of "
			 "one copy or one exchange step; GB/s = 1e9 B/s.",
		      k);
	static const char *const head[] = { "API", "box:R:E", "what", "mode", "host memory",
					    "bytes", "rect us", "rect GB/s", "pack us",
					    "pack GB/s" };
	static const char *const csv[] = { "api", "shape", "what", "mode", "host_mem", "bytes",
					   "rect_us", "rect_gbps", "pack_us", "pack_gbps" };
	struct nbw_rtable *t = nbw_rtable_new("faces", 10, head);
	nbw_rtable_csv_names(t, csv);
	bool *done = calloc(k, sizeof(*done));
	for (size_t i = 0; done && i < k; i++) {
		if (done[i])
			continue;
		done[i] = true;
		const struct face_row *rect = !strcmp(v[i].f.method, "rect") ? &v[i] : NULL;
		const struct face_row *pack = rect ? NULL : &v[i];
		for (size_t j = i + 1; j < k; j++)
			if (!done[j] && same_but_method(&v[i], &v[j])) {
				done[j] = true;
				if (rect)
					pack = &v[j];
				else
					rect = &v[j];
				break;
			}
		const struct face_row *e = &v[i];
		char w[96], b[32];
		what(e, w, sizeof(w));
		nbw_size_label((uint64_t)(e->f.step_bytes > 0 ? e->f.step_bytes : 0), b, sizeof(b));
		nbw_rtable_cell(t, "%s", e->x.api);
		nbw_rtable_cell(t, "%ux%ux%u:%u:%u", e->f.box[0], e->f.box[1], e->f.box[2],
				e->f.depth, e->f.element_bytes);
		nbw_rtable_cell(t, "%s", w);
		nbw_rtable_cell(t, "%s", e->x.mode);
		nbw_rtable_cell(t, "%s", strcmp(e->x.direction, "p2p") ||
						 !strcmp(e->f.exchange, "host-staged")
					 ? e->x.host_mem
					 : "-");
		nbw_rtable_cellv(t, (double)e->f.step_bytes, "%s", b);
		time_cell(t, rect);
		rate_cell(t, rect);
		time_cell(t, pack);
		rate_cell(t, pack);
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Face copies and neighbour exchanges: rect against pack");
	free(done);
	free(v);
}
