/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The chase mode's chain (include/nodebw/chase.h): built by the core into the source of a
 * chase point, walked by the core to know the index the backend must store, untimed.
 */
#include "nodebw/chase.h"

#include <stdio.h>
#include <string.h>

#define WORDS (NBW_CHASE_STRIDE / sizeof(uint64_t))

uint64_t nbw_chase_slots(uint64_t bytes)
{
	return bytes / NBW_CHASE_STRIDE;
}

uint64_t nbw_chase_working_set(uint64_t bytes)
{
	if (bytes < NBW_CHASE_GRAIN)
		return NBW_CHASE_GRAIN;
	return (bytes + NBW_CHASE_GRAIN - 1) / NBW_CHASE_GRAIN * NBW_CHASE_GRAIN;
}

/* splitmix64: a seeded sequence, the same on every machine. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias. */
static uint64_t below(uint64_t *s, uint64_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, r;
	do
		r = next_rand(s);
	while (r >= lim);
	return r % n;
}

int nbw_chase_build(uint64_t *chain, uint64_t bytes, uint64_t seed)
{
	uint64_t n = nbw_chase_slots(bytes);
	if (!chain || n < 2 || bytes % NBW_CHASE_STRIDE)
		return -1;
	memset(chain, 0, bytes);
	/* The slots' first words hold a permutation of slot numbers, identity first. */
	for (uint64_t k = 0; k < n; k++)
		chain[k * WORDS] = k;
	/* Sattolo: swapping each i with a j < i leaves one cycle through every slot. */
	uint64_t s = seed;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = below(&s, i), t = chain[i * WORDS];
		chain[i * WORDS] = chain[j * WORDS];
		chain[j * WORDS] = t;
	}
	/* Slot numbers to element indices. */
	for (uint64_t k = 0; k < n; k++)
		chain[k * WORDS] *= WORDS;
	return 0;
}

uint64_t nbw_chase_walk(const uint64_t *chain, uint64_t bytes, uint64_t loads)
{
	uint64_t words = bytes / sizeof(uint64_t), i = 0;
	for (uint64_t l = 0; l < loads; l++) {
		if (i >= words)
			return UINT64_MAX;
		i = chain[i];
	}
	return i < words ? i : UINT64_MAX;
}

bool nbw_chase_is_single_cycle(const uint64_t *chain, uint64_t bytes)
{
	uint64_t n = nbw_chase_slots(bytes), words = bytes / sizeof(uint64_t), i = 0;
	if (!chain || n < 2)
		return false;
	/* A cycle through index 0 that returns after exactly n steps, each at a slot's first
	 * word, visits n distinct slots: every slot once. */
	for (uint64_t step = 1; step <= n; step++) {
		i = chain[i];
		if (i >= words || i % WORDS)
			return false;
		if (i == 0)
			return step == n;
	}
	return false;
}

bool nbw_chase_check(uint64_t got, uint64_t want, char *why, size_t len)
{
	if (got == want)
		return true;
	if (len)
		snprintf(why, len, "final index %llu, the core's walk of the chain gives %llu",
			 (unsigned long long)got, (unsigned long long)want);
	return false;
}

uint64_t nbw_chase_next_loads(uint64_t loads, double secs, uint64_t slots)
{
	if (loads >= NBW_CHASE_MAX_LOADS)
		return NBW_CHASE_MAX_LOADS;
	if (secs < NBW_CHASE_TARGET_S)
		return loads * 2;
	if (loads < slots && secs / (double)loads * (double)slots <= NBW_CHASE_CYCLE_MAX_S)
		return slots < NBW_CHASE_MAX_LOADS ? slots : NBW_CHASE_MAX_LOADS;
	return loads;
}
