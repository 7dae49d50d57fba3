/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the results module (common/results*.c): reading one field with a default. */
#ifndef NODEBW_COMMON_RESULTS_PRIV_H
#define NODEBW_COMMON_RESULTS_PRIV_H

#include <jansson.h>
#include <math.h>

/* The string at key, or "". */
static inline const char *rv_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* The number at key, or NaN. */
static inline double rv_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The integer at key, or dflt (also for integers outside int's range). */
static inline int rv_int(json_t *o, const char *key, int dflt)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		return dflt;
	json_int_t x = json_integer_value(v);
	return x >= -2147483647LL && x <= 2147483647LL ? (int)x : dflt;
}

/* The median of the summary object at key, or NaN (also for a summary of no samples, which
 * the writer fills with zeros). */
static inline double rv_median(json_t *o, const char *key)
{
	json_t *s = json_object_get(o, key);
	json_t *n = json_object_get(s, "n");
	return json_is_integer(n) && json_integer_value(n) == 0 ? NAN : rv_num(s, "median");
}

#endif
