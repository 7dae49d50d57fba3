/* SPDX-License-Identifier: BSD-3-Clause */
/* The options of `nodebw heat` beyond the paper's variants (heat/cli_general.c): radius,
 * fields, the general version's decomposition and exchange, and --app. */
#ifndef NODEBW_HEAT_CLI_GENERAL_H
#define NODEBW_HEAT_CLI_GENERAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nodebw/heat.h"

/** --decomp, --copy, --exchange or --overlap (\p name) with its value. 0 or -1 with err. */
int heat_parse_general_option(const char *name, const char *arg, struct nbw_heat_opts *o,
			      char *err, size_t errlen);
/** After the versions are known: the general options need the general version, it does not
 *  go with --no-exchange or --paired, and --decomp gives the device count when --gpus
 *  does not. 0 or -1 with err. */
int heat_resolve_general(struct nbw_heat_opts *o, char *err, size_t errlen);
/** Every grid fits the radius (2R + 1 points a side) and, for the general version, its
 *  decomposition for each device count it runs on. 0 or -1 with err. */
int heat_check_general(const struct nbw_heat_opts *o, char *err, size_t errlen);
/** Whether version \p v runs on \p g devices under these options (nbw_heat_version_fits,
 *  and for general with --decomp: g is its product). */
bool heat_opts_fit(const struct nbw_heat_opts *o, enum nbw_heat_version v, int g);
/** The decomposition general runs with on \p g devices: --decomp, else 1 x 1 x g. */
void heat_decomp_for(const struct nbw_heat_opts *o, int g, int decomp[3]);
/** --app: read the description and set the grid, decomposition, radius, fields, exchange,
 *  copy, overlap, steps (when \p set_steps) and versions (serial and general when
 *  \p set_versions). 0 or -1 with err (the file's error, or what the solver cannot run). */
int heat_apply_app(struct nbw_heat_opts *o, bool set_versions, bool set_steps, char *err,
		   size_t errlen);

/** The general version's lines of `nodebw heat --help`. */
void heat_usage_general(FILE *f);

#endif
