/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading fields with defaults: the getters of the typed views and readers (the results
 * module's, the products', the report summary's, the fleet's documents', a calibration's).
 * Everything else reads those views, never a key (tests/lint/check-results-keys.py). */
#ifndef NODEBW_JGET_H
#define NODEBW_JGET_H

#include <jansson.h>
#include <math.h>

/** The string at \p key, or "". */
static inline const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/** The number at \p key, or NaN. */
static inline double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/** The integer at \p key, or \p dflt (also for one outside int's range). */
static inline int jint(json_t *o, const char *key, int dflt)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		return dflt;
	json_int_t x = json_integer_value(v);
	return x >= -2147483647LL && x <= 2147483647LL ? (int)x : dflt;
}

#endif
