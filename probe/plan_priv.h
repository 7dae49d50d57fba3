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

#endif
