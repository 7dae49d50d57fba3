/* SPDX-License-Identifier: BSD-3-Clause */
/* The end of 'nodebw probe' and 'nodebw run': the whole-node analyses of the finished
 * document (matrices, outliers) stored in it, and the one summary (doc/run.md). */
#ifndef NODEBW_TOOLS_SUMMARY_H
#define NODEBW_TOOLS_SUMMARY_H

#include <stdio.h>

#include "nodebw/results.h"

struct nbw_products;

/** Store the derived products \p p of the document's measurements in it ("outliers",
 *  "outlier_groups", "all_at_once", "matrices", "device_tables"), for readers of the file. */
void nbw_summary_analyse(struct nbw_doc *doc, const struct nbw_products *p);

/** The one summary at the end of probe and run: the items of nbw_summary_items (those of
 *  the report's summary \p report when given, which its summary section prints too), the
 *  P2P matrices with links, the solver's table, and where the results file (\p results,
 *  NULL: not named) and the report beside it are; the run time \p seconds (< 0: not
 *  known). */
void nbw_summary_print(FILE *f, const struct nbw_doc *doc, const struct nbw_products *p,
		       json_t *report, const char *results, double seconds);

/** The measurements and solver runs that failed or were not verified, with their reasons
 *  (at most 20 lines); nothing when there are none. */
void nbw_print_failures(FILE *f, const struct nbw_doc *doc);

#endif
