/* SPDX-License-Identifier: BSD-3-Clause */
/* The picture that stands beside the summary's sentences (summary_fig.c). */
#ifndef NODEBW_REPORT_SUMMARY_FIG_H
#define NODEBW_REPORT_SUMMARY_FIG_H

#include <jansson.h>

#include "nodebw/report.h"

/** Every path of summary \p sum (its "paths") as one row of a dot plot: the median GB/s at
 *  the largest size and the best median at any size, log scale; placed beside the text
 *  that follows. Nothing when no path has a bandwidth. 0, or -1 when there is no image. */
int nbw_report_summary_figure(struct nbw_rdoc *r, json_t *sum);

#endif
