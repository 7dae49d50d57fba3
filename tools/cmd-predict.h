/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw predict`: heat-solver runtimes from a calibration with both models. */
#ifndef NODEBW_TOOLS_CMD_PREDICT_H
#define NODEBW_TOOLS_CMD_PREDICT_H

/* argv[0] is "predict". 0, 1 (out of memory) or 2 (bad options or calibration). */
int nbw_predict_main(int argc, char **argv);

#endif
