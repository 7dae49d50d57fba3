/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP-vs-native gap in words whose signs agree (gap_words.c). */
#ifndef NODEBW_REPORT_GAP_WORDS_H
#define NODEBW_REPORT_GAP_WORDS_H

#include <stdbool.h>
#include <stddef.h>

/** Whether OpenMP's extra time per transfer \p extra_us has the sign of the relative gap
 *  \p rel (gap = native - OpenMP, + = OpenMP slower): both positive, both negative, or one
 *  of them zero. Medians taken separately, or means over groups, can disagree. */
bool nbw_gap_extra_agrees(double rel, double extra_us);

/** "small sizes +43 % (OpenMP slower, +0.20 us per transfer)"; the extra time is left out
 *  where its sign would contradict the verdict ("small sizes +43 % (OpenMP slower)"). */
void nbw_gap_small_words(double rel, double extra_us, char *out, size_t len);

#endif
