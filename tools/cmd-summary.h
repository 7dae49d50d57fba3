/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw summary`: the end-of-run summary of a results file. */
#ifndef NODEBW_TOOLS_CMD_SUMMARY_H
#define NODEBW_TOOLS_CMD_SUMMARY_H

/* argv[0] is "summary". Returns the exit status: 0, or 2 for bad options or a bad file. */
int nbw_summary_main(int argc, char **argv);

#endif
