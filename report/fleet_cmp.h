/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of the fleet comparison (report/fleet_*.c): loading the nodes (fleet_load.c),
 * the comparison itself (fleet_compare.c), and its output (fleet_out.c).
 */
#ifndef NODEBW_REPORT_FLEET_CMP_H
#define NODEBW_REPORT_FLEET_CMP_H

#include <jansson.h>
#include <stddef.h>

#include "nodebw/fleet.h"

/** Every node folder of fleet folder \p dir, each reduced as fleet_load.c describes, in
 *  folder-name order; NULL with \p err when there is none. */
json_t *nbw_fleet_load_nodes(const char *dir, char *err, size_t errlen);

#endif
