/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw compare`: the comparison of a fleet folder's nodes. */
#ifndef NODEBW_TOOLS_CMD_COMPARE_H
#define NODEBW_TOOLS_CMD_COMPARE_H

/* argv[0] is "compare" (or "report" with --fleet): 0, 1 or 2. */
int nbw_fleet_compare_main(int argc, char **argv);

#endif
