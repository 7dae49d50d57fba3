/* SPDX-License-Identifier: BSD-3-Clause */
/* The clock, the verification pattern and libomp's hidden-helper count (nodebw/runner.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "nodebw/runner.h"

double nbw_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define GOLDEN 0x9E3779B97F4A7C15ull

void nbw_pattern_fill(void *buf, size_t n, uint64_t seed)
{
	unsigned char *p = buf;
	size_t words = n / 8;
	for (size_t i = 0; i < words; i++) {
		uint64_t w = seed ^ ((uint64_t)(i + 1) * GOLDEN);
		memcpy(p + 8 * i, &w, 8);
	}
	uint64_t w = seed ^ ((uint64_t)(words + 1) * GOLDEN);
	memcpy(p + 8 * words, &w, n - 8 * words);
}

size_t nbw_pattern_check(const void *buf, size_t n, uint64_t seed)
{
	const unsigned char *p = buf;
	size_t words = n / 8;
	for (size_t i = 0; i < words; i++) {
		uint64_t w = seed ^ ((uint64_t)(i + 1) * GOLDEN), got;
		memcpy(&got, p + 8 * i, 8);
		if (got != w) {
			for (size_t b = 0; b < 8; b++)
				if (p[8 * i + b] != ((unsigned char *)&w)[b])
					return 8 * i + b;
		}
	}
	uint64_t w = seed ^ ((uint64_t)(words + 1) * GOLDEN);
	for (size_t b = 0; b < n - 8 * words; b++)
		if (p[8 * words + b] != ((unsigned char *)&w)[b])
			return 8 * words + b;
	return n;
}

int nbw_effective_hidden_helpers(void)
{
	/* LIBOMP_USE_HIDDEN_HELPER_TASK=0 turns the helpers off whatever the count says. */
	const char *use = getenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
	if (use && (strcmp(use, "0") == 0 || strcasecmp(use, "false") == 0))
		return 0;
	const char *v = getenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS");
	if (v && *v) {
		int n = atoi(v);
		return n < 0 ? 0 : n > 16 ? 16 : n;
	}
	return 8;
}

