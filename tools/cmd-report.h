/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw report`: the report folder of one or more results files. */
#ifndef NODEBW_TOOLS_CMD_REPORT_H
#define NODEBW_TOOLS_CMD_REPORT_H

/* argv[0] is "report"; --fleet hands over to `nodebw compare`. 0, 1 or 2. */
int nbw_report_main(int argc, char **argv);

#endif
