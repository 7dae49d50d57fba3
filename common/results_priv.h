/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the results module (common/results*.c): reading one field with a default. */
#ifndef NODEBW_COMMON_RESULTS_PRIV_H
#define NODEBW_COMMON_RESULTS_PRIV_H

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "nodebw/jget.h"

/* The median of the summary object at key, or NaN (also for a summary of no samples, which
 * the writer fills with zeros). */
static inline double rv_median(json_t *o, const char *key)
{
	json_t *s = json_object_get(o, key);
	json_t *n = json_object_get(s, "n");
	return json_is_integer(n) && json_integer_value(n) == 0 ? NAN : jnum(s, "median");
}

struct nbw_doc;
struct nbw_measurement;

/* results_face.c: a face probe's "shape" (and each stream's "face") into a measurement's
 * JSON \p j, and back (absent: not a face probe). */
void nbw_face_rec_to_json(const struct nbw_measurement *m, json_t *j);
int nbw_face_rec_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen);

/* results_check.c: what a loaded file states beside its samples (doc/results-schema.md,
 * "What a reader checks"). A stored figure may differ from the one its samples give by this
 * much, relative (the writer keeps 10 significant digits). */
#define NBW_STORED_REL_TOL 1e-6
/* A theoretical link figure, GB/s: from a slow serial link to far beyond any fabric. */
#define NBW_THEORY_MIN_GBPS 1e-3
#define NBW_THEORY_MAX_GBPS 1e6
bool nbw_theory_gbps_ok(double gbps);
/* 0, or -1 with \p path the JSON path of the bad value below the measurement (or the root)
 * and \p e "PATH: what is wrong". */
int nbw_results_check_measurement(json_t *devices, json_t *m, const struct nbw_measurement *x,
				  char *path, size_t plen, char *e, size_t elen);
int nbw_results_check_topology(json_t *topo, char *path, size_t plen, char *e, size_t elen);

/* results.csv (results_csv.c): its rows made from the JSON once (a loaded document); one row
 * per measurement as it is added, from the struct or from its JSON. */
int nbw_doc_csv_ensure(struct nbw_doc *d);
void nbw_doc_csv_row(FILE *f, json_t *devices, const struct nbw_measurement *x,
		     const char *hht_label, int plane_process);
void nbw_doc_csv_row_json(FILE *f, json_t *devices, json_t *m);

#endif
