/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the planner's files (plan.c, plan_faces.c): a plan grows by one series, planned
 * or skipped with its reason. */
#ifndef NODEBW_PLAN_PRIV_H
#define NODEBW_PLAN_PRIV_H

#include "nodebw/plan.h"

/** A new zeroed series at the end of \p p; NULL when out of memory. */
struct nbw_series_plan *nbw_plan_add(struct nbw_plan *p);
/** A skipped series of kind \p k with what it would have measured and why not (an empty
 *  \p why reads "not possible"); 0, or -1 when out of memory. */
int nbw_plan_add_skip(struct nbw_plan *p, const struct nbw_series_kind *k, enum nbw_mode mode,
		      enum nbw_hostmem mem, const char *what, const char *why);

/* plan_faces.c: a face series of \p sh by method \p m (its set still empty), and the label
 * "<face> <method> <mode> <shape>[ <memory>]" of one. */
struct nbw_series_plan *nbw_plan_face_series(struct nbw_plan *out, const struct nbw_series_kind *k,
					     const struct nbw_probe_opts *o, enum nbw_mode mode,
					     enum nbw_hostmem mem, enum nbw_peer peer,
					     const char *iface, const struct nbw_face_shape *sh,
					     enum nbw_face_method m);
void nbw_plan_face_label(const struct nbw_face_shape *s, const char *face,
			 enum nbw_face_method m, enum nbw_mode mode, enum nbw_hostmem mem,
			 char *buf, size_t len);
/* plan_xdecomp.c: the exchange-decomp series of shape \p sh, mode and method for each of
 * o->decomps, device to device (interface \p iface, peer access \p peer) and host-staged
 * (each host memory of o). 0, or -1 when out of memory. */
int nbw_plan_faces_decomp(const struct nbw_probe_opts *o, const struct nbw_plan_caps *caps,
			  const struct nbw_plan_devices *d, const struct nbw_face_shape *sh,
			  enum nbw_mode mode, enum nbw_face_method m, const char *iface,
			  enum nbw_peer peer, struct nbw_plan *out);

#endif
