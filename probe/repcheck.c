/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which repetitions of a size are checked, and their list as a measurement records it: used
 * by the executor (exec.c), which decides, and by record.c, which writes the list; kept
 * apart so that neither calls into the other both ways.
 */
#include <stdio.h>
#include <string.h>

#include "exec.h"

bool nbw_repcheck_planned(size_t bytes, unsigned r, unsigned reps)
{
	return bytes <= NBW_VERIFY_EVERY_MAX_BYTES || r == 0 || r + 1 == reps;
}

void nbw_repcheck_list(const unsigned char *mask, unsigned reps, char *buf, size_t len)
{
	size_t w = 0;
	if (len)
		buf[0] = '\0';
	for (unsigned r = 0; mask && r < reps; r++) {
		if (!mask[r])
			continue;
		unsigned e = r;
		while (e + 1 < reps && mask[e + 1])
			e++;
		char item[32];
		int n = e > r ? snprintf(item, sizeof(item), "%s%u-%u", w ? "," : "", r + 1, e + 1)
			      : snprintf(item, sizeof(item), "%s%u", w ? "," : "", r + 1);
		if (n < 0 || w + (size_t)n >= len)
			break;
		memcpy(buf + w, item, (size_t)n + 1);
		w += (size_t)n;
		r = e;
	}
}
