/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the results module (common/results*.c): reading one field with a default. */
#ifndef NODEBW_COMMON_RESULTS_PRIV_H
#define NODEBW_COMMON_RESULTS_PRIV_H

#include <jansson.h>
#include <math.h>

#include "nodebw/jget.h"

/* The median of the summary object at key, or NaN (also for a summary of no samples, which
 * the writer fills with zeros). */
static inline double rv_median(json_t *o, const char *key)
{
	json_t *s = json_object_get(o, key);
	json_t *n = json_object_get(s, "n");
	return json_is_integer(n) && json_integer_value(n) == 0 ? NAN : jnum(s, "median");
}

#endif
