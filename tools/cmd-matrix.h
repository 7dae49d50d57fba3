/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw matrix`: the P2P matrices, host<->device tables and outliers of a results file. */
#ifndef NODEBW_TOOLS_CMD_MATRIX_H
#define NODEBW_TOOLS_CMD_MATRIX_H

/* argv[0] is "matrix". Returns the exit status: 0, or 2 for bad options or a bad file. */
int nbw_matrix_main(int argc, char **argv);

#endif
