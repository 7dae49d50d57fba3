// SPDX-License-Identifier: BSD-3-Clause
/** \file
 * \brief Range checks of every integer a file gives, by the key that holds it.
 *
 * jansson keeps integers as long long; the readers then store many in an int, where a value
 * such as 4294967298 would wrap to 2. Files are therefore checked once, when loaded, against
 * a table of keys and what they mean (a device id, G, a grid side, steps, ...): an integer
 * held by a listed key, directly or as an element of an array under it, must lie in the
 * key's range. Keys not listed are only read as long long or printed.
 */
#ifndef NODEBW_JINTS_H
#define NODEBW_JINTS_H

#include <jansson.h>
#include <stddef.h>

struct nbw_int_rule {
	const char *key;
	long long lo, hi;
	const char *means; /**< for the message: "a device id", "G, devices of a run", ... */
};

/** Check \p root against \p rules (\p n of them). 0, or -1 with \p path set to the JSON path
 *  of the first bad value ("solver_runs[3].shape.nx", for nbw_json_locate) and \p err to
 *  "\"nx\" = 4294967360 is out of range (3 to 100000: a grid side)". */
int nbw_json_check_ints(json_t *root, const struct nbw_int_rule *rules, size_t n, char *path,
			size_t pathlen, char *err, size_t errlen);

/** The rules of a results document (results.json, schema 1 and 2). */
const struct nbw_int_rule *nbw_results_int_rules(size_t *n);

#endif
