/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw fleet` (tools/fleet.c). */
#ifndef NODEBW_TOOLS_FLEET_H
#define NODEBW_TOOLS_FLEET_H

/** argv[0] is "fleet". 0, 1, 2 or 3. */
int nbw_fleet_main(int argc, char **argv);

#endif
