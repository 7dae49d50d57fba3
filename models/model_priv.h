/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the models' formulas (models/calib_lookup.c, model_paper.c, model_ext.c). */
#ifndef NODEBW_MODELS_MODEL_PRIV_H
#define NODEBW_MODELS_MODEL_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/model.h"

#define BYTES_PER_VALUE 8.0

static inline void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void say(char *buf, size_t len, const char *fmt, ...)
{
	if (!buf || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static inline const struct nbw_xpath *find_path(const struct nbw_calib *c, const char *name)
{
	for (size_t i = 0; i < c->npaths; i++)
		if (strcmp(c->paths[i].name, name) == 0)
			return &c->paths[i];
	return NULL;
}

/* Counts of where the hops' times came from, for the notes. */
struct xsrc_count {
	int n[4];
};

static inline void count_src(struct xsrc_count *k, enum nbw_xsrc s)
{
	k->n[s]++;
}

/* "3 pairs: 2 own sweeps, 1 matrix estimate" */
void nbw_mdl_sources_str(char *buf, size_t len, const char *what_counted,
			 const struct xsrc_count *k);

static inline bool is_version(const char *v, int *num)
{
	if (v && v[0] == 'v' && v[1] >= '1' && v[1] <= '4' && v[2] == '\0') {
		*num = v[1] - '0';
		return true;
	}
	return false;
}

/* One halo plane of the solver: the application model's face message of z-slabs, radius
 * 1, one 8-byte field (nbw_app_face_bytes). */
double nbw_app_face_bytes(double face_elements, int radius, int fields, int element_bytes);
static inline double plane_bytes(int n)
{
	return nbw_app_face_bytes((double)n * (double)n, 1, 1, (int)BYTES_PER_VALUE);
}

/* The mode of the solver's copies: Version 1 blocks, Versions 2-4 are asynchronous. */
static inline const char *version_mode(int v)
{
	return v == 1 ? "sync" : "async";
}

/* k of one-device runs of the slab (n, planes): exact, else the nearest slab (model_ext.c). */
int nbw_mdl_slab_k(const struct nbw_calib *c, int n, int planes, double *k, char *why,
		   size_t whylen);

/* The arguments checked, the busiest slab's planes and its k (model_ext.c). */
int nbw_mdl_ext_start(const struct nbw_calib *c, int n, int g, const char *v, int steps,
		      struct nbw_ext_pred *out, int *vn, int *planes, char *why, size_t whylen);

/* The models built on a measured compute step (compute-calibrated, one-device): the halo
 * copies (copy probe or transfer curves x oversubscription) and the overlap rule on top of
 * \p compute_step, into \p out for \p steps steps (model_ext.c). */
int nbw_mdl_halo_step(const struct nbw_calib *c, int n, int g, int vn, int steps, int planes,
		      double compute_step, struct nbw_ext_pred *out, char *why, size_t whylen);

#endif
