/* SPDX-License-Identifier: BSD-3-Clause */
/* Why a path is slower at its largest size than at its best, from its measurements only
 * (drop_cause.c). */
#ifndef NODEBW_REPORT_DROP_CAUSE_H
#define NODEBW_REPORT_DROP_CAUSE_H

#include <stddef.h>

#include "nodebw/report.h"

/** Page size the fault counts are held against (Linux x86-64 and aarch64 default). */
#define NBW_DROP_PAGE_BYTES 4096.0
/** A copy that faults in at least this fraction of the pages it moves touches fresh pages. */
#define NBW_DROP_FRESH_PAGES 0.5

/** The cause of the drop of the path made of curves \p g[0..n) from its best size
 *  \p best_bytes to its largest size \p large_bytes, in words, into \p out; "" (no cause)
 *  unless the measurements recorded one. Today the one recorded cause is the minor page
 *  faults per repetition (results.json `minor_faults_per_rep`): at the largest size, at least
 *  NBW_DROP_FRESH_PAGES of the pages one repetition moves (median over the path's curves),
 *  and at the best size (when recorded) less than half as many per page. */
void nbw_report_drop_cause(const struct nbw_curve *const *g, size_t n, double large_bytes,
			   double best_bytes, char *out, size_t len);

#endif
