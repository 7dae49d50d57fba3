/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw predict --app APP.json`: the application model (include/nodebw/app_model.h) per G
 * and decomposition, its terms, the decomposition and method it recommends on this node
 * and why, and what the calibration did not measure with the commands that would.
 */
#include "predict_app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/app_model.h"
#include "nodebw/termtext.h"

#define W NBW_TERM_COLUMNS

/* Every prediction of one G: the app's own method per decomposition, and the best of all
 * decompositions and methods. */
struct g_block {
	int g, n;
	struct nbw_app_pred own[NBW_APP_MAX_DECOMPS];
	struct nbw_app_pred best;
	bool have_best;
};

static const char *onoff(bool b)
{
	return b ? "on" : "off";
}

static void decomp_str(char *buf, size_t len, const int d[3])
{
	snprintf(buf, len, "%dx%dx%d", d[0], d[1], d[2]);
}

/* The G's predictions; 0, or -1 with \p err when none can be made. */
static int predict_g(const struct nbw_calib *c, const struct nbw_app *a, int g,
		     struct g_block *b, char *err, size_t errlen)
{
	int d[NBW_APP_MAX_DECOMPS][3];
	memset(b, 0, sizeof(*b));
	b->g = g;
	int nd = nbw_app_decomps(a, g, d, NBW_APP_MAX_DECOMPS);
	if (nd == 0) {
		if (nbw_app_decomp_open(a))
			snprintf(err, errlen, "G=%d: no decomposition of %d devices splits the grid "
				 "%ldx%ldx%ld with at least %d interior points each", g, g,
				 a->grid[0], a->grid[1], a->grid[2], a->radius);
		else
			snprintf(err, errlen, "G=%d: the app's decomp %dx%dx%d is for %d devices", g,
				 a->decomp[0], a->decomp[1], a->decomp[2],
				 a->decomp[0] * a->decomp[1] * a->decomp[2]);
		return -1;
	}
	for (int i = 0; i < nd; i++) {
		if (nbw_app_predict(c, a, d[i], a->exchange, a->copy, &b->own[b->n], err, errlen))
			return -1;
		b->n++;
		for (int e = 0; e < 2; e++)
			for (int k = 0; k < 2; k++) {
				struct nbw_app_pred p;
				if (nbw_app_predict(c, a, d[i], (enum nbw_app_exchange)e,
						    (enum nbw_app_copy)k, &p, NULL, 0))
					continue;
				if (!b->have_best || p.total_s < b->best.total_s)
					b->best = p;
				b->have_best = true;
			}
	}
	return 0;
}

static json_t *pred_json(const struct nbw_app_pred *p)
{
	json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:s, s:[i,i,i], s:[I,I,I], "
			      "s:i, s:s, s:s, s:s, s:s}",
			      "total_s", p->total_s, "step_s", p->step_s, "compute_s", p->compute_s,
			      "boundary_s", p->boundary_s, "exchange_s", p->exchange_s, "launch_s",
			      p->launch_s, "concurrency", p->concurrency, "overlap", p->overlap,
			      "dominant", p->dominant, "decomp", p->decomp[0], p->decomp[1],
			      p->decomp[2], "local_box", (json_int_t)p->box[0], (json_int_t)p->box[1],
			      (json_int_t)p->box[2], "neighbours", p->neighbours, "exchange",
			      nbw_app_exchange_name(p->exchange), "copy", nbw_app_copy_name(p->copy),
			      "compute_from", p->compute_from, "exchange_from", p->exchange_from);
	json_t *fb = json_array();
	for (int i = 0; i < 3; i++)
		json_array_append_new(fb, json_real(p->face_bytes[i]));
	json_object_set_new(o, "face_bytes", fb);
	if (p->paper_version)
		json_object_set_new(o, "paper_version", json_string(p->version));
	return o;
}

/* The warnings of one prediction: what the calibration did not measure, and the command. */
static int warnings(const struct nbw_app *a, const struct nbw_app_pred *p, const char *app_path,
		    const char *calib_path, char lines[][600], int max)
{
	int n = 0;
	char dec[32], faces[64], xarg[64];
	decomp_str(dec, sizeof(dec), p->decomp);
	nbw_app_faces_arg(a, p, faces, sizeof(faces));
	/* The exchange probe's decomposition, with the app's fields where it has several. */
	snprintf(xarg, sizeof(xarg), "%s", dec);
	if (a->fields > 1)
		snprintf(xarg + strlen(xarg), sizeof(xarg) - strlen(xarg), " --faces-fields %d",
			 a->fields);
	if (p->strided_unmeasured && n < max)
		snprintf(lines[n++], 600, "G=%d %s: the strided faces of the local box %ldx%ldx%ld "
			 "were not measured (the calibration holds no face probe of that shape; the "
			 "contiguous transfer curves stand in); measure them and their exchange: "
			 "nodebw probe --api omp --faces %s --faces-decomp %s", p->g, dec, p->box[0],
			 p->box[1], p->box[2], faces, xarg);
	else if (p->faces_nearest && n < max)
		snprintf(lines[n++], 600, "G=%d %s: the faces of the local box %ldx%ldx%ld were not "
			 "measured at this shape (the nearest measured shape stands in, scaled by "
			 "bytes); measure them and their exchange: nodebw probe --api omp --faces %s "
			 "--faces-decomp %s", p->g, dec, p->box[0], p->box[1], p->box[2], faces, xarg);
	else if (!p->faces_measured && !p->paper_version && n < max)
		snprintf(lines[n++], 600, "G=%d %s: the halo messages (%.0f B) took the contiguous "
			 "transfer curves; measure the faces and their exchange: nodebw probe --api "
			 "omp --faces %s --faces-decomp %s", p->g, dec,
			 fmax(fmax(p->face_bytes[0], p->face_bytes[1]), p->face_bytes[2]), faces, xarg);
	else if (!p->exchange_probed && !p->paper_version && n < max)
		snprintf(lines[n++], 600, "G=%d %s: the exchange of this decomposition was not "
			 "measured (each face's probe alone, with the devices' contention estimated, "
			 "stands in); measure it: nodebw probe --api omp --faces %s --faces-decomp %s",
			 p->g, dec, faces, xarg);
	else if (!p->exchange_fields && !p->paper_version && n < max)
		snprintf(lines[n++], 600, "G=%d %s: the exchange of this decomposition was measured "
			 "with one field (its step x %d fields stands in); measure it with the app's "
			 "fields: nodebw probe --api omp --faces %s --faces-decomp %s", p->g, dec,
			 a->fields, faces, xarg);
	if (a->compute == NBW_APP_COMPUTE_KERNEL && !p->box_measured && n < max)
		snprintf(lines[n++], 600, "G=%d %s: no one-device run of the local box "
			 "%ldx%ldx%ld%s in the calibration (the nearest stands in); measure it: "
			 "nodebw predict --measure --calibration %s --app %s --gpus %d", p->g, dec,
			 p->box[0], p->box[1], p->box[2], a->radius > 1 ? " at this radius" : "",
			 calib_path, app_path, p->g);
	return n;
}

static void block_text(FILE *f, const struct nbw_app *a, const struct g_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct nbw_app_pred *p = &b->own[i];
		char dec[32], box[48];
		decomp_str(dec, sizeof(dec), p->decomp);
		snprintf(box, sizeof(box), "%ldx%ldx%ld", p->box[0], p->box[1], p->box[2]);
		fprintf(f, "%3d %-7s %-13s %10.4g %10.4g %9.3g %9.3g %9.3g %-3s %s\n", p->g, dec,
			box, p->total_s, p->step_s * 1e3, p->compute_s * 1e3, p->exchange_s * 1e3,
			p->launch_s * 1e3, onoff(p->overlap), p->dominant);
		nbw_term_wrapf(f, "      compute: ", "        ", W, "%s", p->compute_from);
		nbw_term_wrapf(f, "      exchange: ", "        ", W, "%d message%s/step (%s, %s); %s%s",
			       p->neighbours, p->neighbours == 1 ? "" : "s",
			       nbw_app_exchange_name(p->exchange), nbw_app_copy_name(p->copy),
			       p->exchange_from,
			       a->overlap && !p->overlap
				       ? "; overlap asked for, but these devices run no "
					 "asynchronous work beside the host thread (host plugin "
					 "without hidden helpers)"
				       : "");
	}
}

/* Why the best is best: its dominating term and against the app's own choice. */
static void recommend_text(FILE *f, const struct g_block *b)
{
	const struct nbw_app_pred *p = &b->best, *own = &b->own[0];
	for (int i = 1; i < b->n; i++)
		if (b->own[i].total_s < own->total_s)
			own = &b->own[i];
	char dec[32], odec[32];
	decomp_str(dec, sizeof(dec), p->decomp);
	decomp_str(odec, sizeof(odec), own->decomp);
	double term = !strcmp(p->dominant, "exchange") ? p->exchange_s
		      : !strcmp(p->dominant, "launch") ? p->launch_s
							: p->compute_s;
	nbw_term_wrapf(f, "  ", "    ", W,
		       "G=%d: %s, %s, %s: %.4g s (%.3g ms/step); %s dominates (%.3g of %.3g "
		       "ms/step)%s; the app's own method at its best decomposition (%s): %.4g s",
		       p->g, dec, nbw_app_exchange_name(p->exchange), nbw_app_copy_name(p->copy),
		       p->total_s, p->step_s * 1e3, p->dominant, term * 1e3, p->step_s * 1e3,
		       !strcmp(p->dominant, "compute")
			       ? ": more devices or a faster kernel help, the method matters little"
			       : !strcmp(p->dominant, "exchange")
					 ? ": fewer or smaller faces and the faster path win"
					 : ": fewer launches per step win",
		       odec, own->total_s);
}

int nbw_predict_app(const struct nbw_calib *c, const struct nbw_app *a, const char *app_path,
		    const char *calib_path, const int *gs, int ng, bool json, FILE *out,
		    char *err, size_t errlen)
{
	struct g_block *b = calloc((size_t)ng, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int j = 0; j < ng; j++)
		if (predict_g(c, a, gs[j], &b[j], err, errlen)) {
			free(b);
			return -1;
		}
	static const int maxw = 48;
	char warn[48][600];
	int nw = 0;
	for (int j = 0; j < ng; j++)
		for (int i = 0; i < b[j].n; i++) {
			char w[3][600];
			int k = warnings(a, &b[j].own[i], app_path, calib_path, w, 3);
			for (int m = 0; m < k && nw < maxw; m++)
				memcpy(warn[nw++], w[m], 600);
		}
	if (json) {
		json_t *rows = json_array();
		for (int j = 0; j < ng; j++)
			for (int i = 0; i < b[j].n; i++) {
				const struct nbw_app_pred *p = &b[j].own[i];
				json_t *r = json_pack("{s:i, s:i, s:s, s:o}", "G", p->g, "steps",
						      (int)a->steps, "app", a->name, "app_model",
						      pred_json(p));
				char dec[32];
				decomp_str(dec, sizeof(dec), p->decomp);
				json_object_set_new(r, "decomp", json_string(dec));
				json_object_set_new(r, "recommended", pred_json(&b[j].best));
				json_t *wa = json_array();
				char w[3][600];
				int k = warnings(a, p, app_path, calib_path, w, 3);
				for (int m = 0; m < k; m++)
					json_array_append_new(wa, json_string(w[m]));
				json_object_set_new(r, "outside_calibration", wa);
				json_array_append_new(rows, r);
			}
		json_dumpf(rows, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
		fprintf(out, "\n");
		json_decref(rows);
		free(b);
		return 0;
	}
	nbw_term_wrapf(out, "", "  ", W,
		       "nodebw predict --app %s%s%s%s: grid %ldx%ldx%ld, radius %d, %d field%s x %d "
		       "B, exchange %s, copy %s, overlap %s, %ld steps; calibration %s",
		       app_path, a->name[0] ? " (" : "", a->name, a->name[0] ? ")" : "",
		       a->grid[0], a->grid[1], a->grid[2], a->radius, a->fields,
		       a->fields == 1 ? "" : "s", a->element_bytes, nbw_app_exchange_name(a->exchange),
		       nbw_app_copy_name(a->copy), onoff(a->overlap), a->steps, calib_path);
	fprintf(out, "Times: total in s, per step in ms, for the busiest device.\n");
	fprintf(out, "%3s %-7s %-13s %10s %10s %9s %9s %9s %-3s %s\n", "G", "decomp", "local box",
		"total_s", "step_ms", "compute", "exchange", "launch", "ovl", "dominant");
	for (int j = 0; j < ng; j++)
		block_text(out, a, &b[j]);
	fprintf(out, "Recommended on this node (every decomposition, host-staged or device, rect "
		     "or pack):\n");
	for (int j = 0; j < ng; j++)
		recommend_text(out, &b[j]);
	for (int i = 0; i < nw; i++)
		nbw_term_wrapf(out, "WARNING: ", "  ", W, "%s", warn[i]);
	free(b);
	return 0;
}
