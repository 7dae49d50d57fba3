/* SPDX-License-Identifier: BSD-3-Clause */
/* What the calibration's files (models/calib_*.c) share beyond include/nodebw/model.h. */
#ifndef NODEBW_MODELS_CALIB_PRIV_H
#define NODEBW_MODELS_CALIB_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/curves.h"
#include "nodebw/model.h"

/** The transfer paths of \p c (alpha-beta per path, refined by the plane-size sweep) from
 *  the OpenMP curves of \p cs at c->hidden_helpers, with the per-device and per-pair sets
 *  of \p measurements (calib_paths.c). 0, or -1 out of memory. */
int nbw_calib_paths_from_curves(struct nbw_calib *c, const struct nbw_curves *cs,
				json_t *measurements);

/** A device or "host" end of a JSON record: the device's number, -1 for the host, -2 when
 *  neither (calib_paths.c). */
int nbw_calib_end_of(json_t *v);
/** "0->1", "host->2": the ends' name of a per-device or per-pair set (calib_paths.c). */
void nbw_calib_ends_name(char *buf, size_t len, int src, int dst);
/** Append k sample (N, planes, k) to \p arr of \p n (calib_solver.c). 0, or -1 out of memory. */
int nbw_calib_add_k(struct nbw_ksample **arr, size_t *n, int nx, int planes, double k);
/** Whether \p form is one of the launch probe's forms (sync, one-thread, per-device,
 *  staged-copy, direct-copy), and whether it is one of the copy forms (calib_solver.c). */
bool nbw_calib_launch_form_known(const char *form);
bool nbw_calib_launch_form_copies(const char *form);
/** "local_boxes": read (0, or -1 with \p err naming the element), written, and added from
 *  the generalised solver's one-device runs of results \p runs (0, or -1 out of memory)
 *  (calib_boxes.c). */
int nbw_calib_boxes_read(struct nbw_calib *c, json_t *a, char *err, size_t errlen);
json_t *nbw_calib_boxes_json(const struct nbw_calib *c);
/** Whether solver run \p r is a run of the generalised solver or of another radius or
 *  field count (the paper's k and k_slab leave it out). */
bool nbw_calib_is_app_run(json_t *r);
/** One local box's fastest step (\p sec: the rounds' fastest repetitions). */
int nbw_calib_add_box(struct nbw_calib *c, int radius, int fields, const long box[3],
		      double step_s);
/** "local_box_coruns": read (0, or -1 with \p err naming the element; absent: none;
 *  calib_read.c), written, and one co-run added (the fastest of one radius, field count,
 *  box, G and form: 0, or -1 out of memory) (calib_boxcorun.c). */
int nbw_calib_box_coruns_read(struct nbw_calib *c, json_t *a, char *err, size_t errlen);
json_t *nbw_calib_box_coruns_json(const struct nbw_calib *c);
int nbw_calib_add_box_corun(struct nbw_calib *c, const struct nbw_boxcorun *k);
/** Whether \p box of \p radius and \p fields is the paper's slab of G = \p g (radius 1, one
 *  field, N x N x (ceil((N-2)/g) + 2)): the co-run probe's "corun" records, not a local
 *  box's. */
bool nbw_calib_is_paper_slab(int radius, int fields, const long box[3], int g);
/** "faces": the face probes, read (0, or -1 with \p err naming the element), written, added
 *  (the fastest of one shape, face, method, path and mode) and taken from the OpenMP face
 *  measurements of results (0, or -1 out of memory) (calib_faces.c; read in calib_read.c). */
int nbw_calib_faces_read(struct nbw_calib *c, json_t *a, char *err, size_t errlen);
json_t *nbw_calib_faces_json(const struct nbw_calib *c);
int nbw_calib_add_face(struct nbw_calib *c, const struct nbw_facerun *f);
int nbw_calib_faces_from_results(struct nbw_calib *c, json_t *measurements);
/** The models' names in a calibration's "validation", by enum nbw_model_id
 *  (include/nodebw/advice.h; calib_valid.c). */
extern const char *const nbw_model_names[];

#endif
