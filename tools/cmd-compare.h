/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw compare`: the comparison of a fleet folder's nodes, or of two runs (A B). */
#ifndef NODEBW_TOOLS_CMD_COMPARE_H
#define NODEBW_TOOLS_CMD_COMPARE_H

#include <stdbool.h>

/* argv[0] is "compare" (or "report" with --fleet): 0, 1 or 2. */
int nbw_fleet_compare_main(int argc, char **argv);
/* `nodebw compare [--json] A B` (tools/cmd-runcmp.c): 0, 1 or 2. */
int nbw_run_compare_main(int argc, char **argv);
/* A results file, or a folder holding results.json (a run folder). */
bool nbw_run_compare_is_run(const char *path);

#endif
