/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of the fleet comparison (fleet/compare*.c): loading the nodes (compare_load.c),
 * the comparison itself (compare.c), and its output (compare_out.c).
 */
#ifndef NODEBW_FLEET_COMPARE_PRIV_H
#define NODEBW_FLEET_COMPARE_PRIV_H

#include <jansson.h>
#include <stddef.h>

#include "nodebw/fleet.h"

/** Every node folder of fleet folder \p dir, each reduced as compare_load.c describes, in
 *  folder-name order; NULL with \p err when there is none. */
struct nbw_criteria;
/* Each node's verdicts judge by \p cr (NULL: the theoretical figures only). */
json_t *nbw_fleet_load_nodes(const char *dir, const struct nbw_criteria *cr, char *err,
			     size_t errlen);

#endif
