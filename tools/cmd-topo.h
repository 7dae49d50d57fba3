/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw topo`: the node's topology as text or JSON, live or from a fixture. */
#ifndef NODEBW_TOOLS_CMD_TOPO_H
#define NODEBW_TOOLS_CMD_TOPO_H

/* `nodebw topo [--json] [--fixture DIR] [--sysfs-root DIR] [--export DIR]`; argv[0] is
 * "topo". Returns the exit status (2 for bad input). */
int nbw_topo_main(int argc, char **argv);

#endif
