/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The small-size band of the OpenMP-vs-native gap in words. Its relative gap and OpenMP's
 * extra time per transfer are two medians (and, over several groups, two weighted means):
 * one can be positive while the other is negative. The verdict follows the relative gap, so
 * an extra time of the other sign is left out rather than printed beside words it
 * contradicts ("OpenMP slower, -0.04 us per transfer").
 */
#include <math.h>
#include <stdio.h>

#include "gap_words.h"
#include "nodebw/gap.h"

bool nbw_gap_extra_agrees(double rel, double extra_us)
{
	return isfinite(rel) && isfinite(extra_us) && !(rel > 0 && extra_us < 0) &&
	       !(rel < 0 && extra_us > 0);
}

void nbw_gap_small_words(double rel, double extra_us, char *out, size_t len)
{
	if (nbw_gap_extra_agrees(rel, extra_us))
		snprintf(out, len, "small sizes %+.0f %% (%s, %+.*f us per transfer)", 100.0 * rel,
			 nbw_gap_verdict(rel), fabs(extra_us) < 10 ? 2 : 0, extra_us);
	else
		snprintf(out, len, "small sizes %+.0f %% (%s)", 100.0 * rel, nbw_gap_verdict(rel));
}
