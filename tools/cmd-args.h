/* SPDX-License-Identifier: BSD-3-Clause */
/* The argument form of the commands that read one results file: [--json] RESULTS.json. */
#ifndef NODEBW_TOOLS_CMD_ARGS_H
#define NODEBW_TOOLS_CMD_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "nodebw/results.h"

/** Parse argv (argv[0] = the command's name, e.g. "gap") and load the file. Returns 0 with
 *  \p *file named and \p *doc loaded, 1 when --help was printed with \p usage, or NBW_EXIT_USAGE after one
 *  line on stderr (bad option, no file or two, a file that cannot be read). */
int nbw_cmd_one_results_file(int argc, char **argv, void (*usage)(FILE *), bool *json,
			     const char **file, struct nbw_doc **doc);

/** A note on stderr when results file \p file (\p root) says "running": whether the nodebw
 *  writing it is still alive, gone (killed, or failed before its last write) or unknown
 *  (include/nodebw/rundir.h, nbw_rundir_writer). */
void nbw_cmd_note_writer(const char *file, json_t *root);

#endif
