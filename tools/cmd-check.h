/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef NODEBW_TOOLS_CMD_CHECK_H
#define NODEBW_TOOLS_CMD_CHECK_H

#include "check.h"

/** `nodebw check`: argv[0] = "check". */
int nbw_check_main(int argc, char **argv);
/** `nodebw probe` or `run` (argv[0]) with the verdicts \p co asks for at the end (NULL: the
 *  options' own --check), printed as JSON when \p verdict_json (nodebw.c). */
int nbw_cmd_probe(int argc, char **argv, char **full_argv, int full_argc,
		  const struct nbw_check_opts *co, bool verdict_json);

#endif
