/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine speed reference (nodebw/speedref.h). */
#include "nodebw/speedref.h"
#include "nodebw/results_view.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/runner.h"

/* NBW_SPEEDREF_CORE_CHAINS independent 64-bit linear congruential chains (Knuth's MMIX
 * constants): a multiply and an add per chain and step, no memory traffic. The result goes
 * to the caller so that the compiler cannot drop the loop. */
static uint64_t core_kernel(uint64_t seed)
{
	uint64_t a = seed, b = seed ^ 1u, c = seed ^ 2u, d = seed ^ 3u;
	const uint64_t m = 6364136223846793005ull, k = 1442695040888963407ull;
	for (unsigned i = 0; i < NBW_SPEEDREF_CORE_STEPS; i++) {
		a = a * m + k;
		b = b * m + k;
		c = c * m + k;
		d = d * m + k;
		__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
	}
	return a ^ b ^ c ^ d;
}

/* The fastest of NBW_SPEEDREF_REPS copies of \p n bytes, each repeated \p inner times. */
static double copy_best(unsigned char *dst, const unsigned char *src, size_t n, unsigned inner)
{
	double best = 0.0;
	for (unsigned r = 0; r < NBW_SPEEDREF_REPS; r++) {
		double t0 = nbw_now();
		for (unsigned i = 0; i < inner; i++) {
			memcpy(dst, src, n);
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		double t = (nbw_now() - t0) / inner;
		if (r == 0 || t < best)
			best = t;
	}
	return best;
}

static void fill(unsigned char *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t w = seed ^ (i * 0x9E3779B97F4A7C15ull);
		memcpy(p + i, &w, 8);
	}
}

int nbw_speedref_measure(struct nbw_speedref *out, char *err, size_t errlen)
{
	double t_all = nbw_now();
	memset(out, 0, sizeof(*out));
	size_t n = NBW_SPEEDREF_MEMORY_BYTES;
	unsigned char *src = malloc(n), *dst = malloc(n);
	if (!src || !dst) {
		free(src);
		free(dst);
		snprintf(err, errlen, "speed reference: out of memory for two buffers of %zu bytes",
			 n);
		return -1;
	}
	/* First touch outside the timed copies. */
	fill(src, n, 0x5eed);
	memset(dst, 0, n);

	uint64_t sink = 0;
	double core = 0.0;
	for (unsigned r = 0; r < NBW_SPEEDREF_REPS; r++) {
		double t0 = nbw_now();
		sink += core_kernel(r + 1);
		double t = nbw_now() - t0;
		if (r == 0 || t < core)
			core = t;
	}
	out->core_ns = core / NBW_SPEEDREF_CORE_STEPS * 1e9;

	size_t c = NBW_SPEEDREF_CACHE_BYTES;
	/* One untimed copy brings the cache copy's buffers in. */
	memcpy(dst, src, c);
	double tc = copy_best(dst, src, c, 64);
	double tm = copy_best(dst, src, n, 1);
	int rc = 0;
	if (memcmp(dst, src, n) != 0) {
		snprintf(err, errlen, "speed reference: the memory copy did not reproduce its source");
		rc = -1;
	}
	out->cache_gbps = tc > 0.0 ? (double)c / tc / 1e9 : 0.0;
	out->memory_gbps = tm > 0.0 ? (double)n / tm / 1e9 : 0.0;
	/* The chains' value decides nothing, but it must be used. */
	volatile uint64_t keep = sink;
	(void)keep;
	free(src);
	free(dst);
	out->seconds = nbw_now() - t_all;
	return rc;
}

json_t *nbw_speedref_json(const struct nbw_speedref *s)
{
	return json_pack("{s:f, s:f, s:f, s:f}", "core_ns_per_step", s->core_ns, "cache_gbps",
			 s->cache_gbps, "memory_gbps", s->memory_gbps, "seconds", s->seconds);
}

const char *nbw_speedref_method(void)
{
	return "fixed host work, fastest of 5 repetitions each: core = ns per step of 4 "
	       "independent 64-bit multiply-add chains (2^21 steps, no memory traffic); cache = "
	       "memcpy of 192 KiB, 64 times per repetition; memory = memcpy of 32 MiB (64 MiB of source and destination); bytes "
	       "counted once (the size of the copy), GB/s = 1e9 B/s; the copies are checked "
	       "against their source after timing";
}

/* A record's figures (results view), each positive or NAN. */
static void figures(json_t *p, double *core, double *cache, double *memory)
{
	struct nbw_rv_speedpoint v;
	nbw_rv_speedpoint_read(p, &v);
	*core = v.core_ns_per_step > 0.0 ? v.core_ns_per_step : NAN;
	*cache = v.cache_gbps > 0.0 ? v.cache_gbps : NAN;
	*memory = v.memory_gbps > 0.0 ? v.memory_gbps : NAN;
}

void nbw_speedref_best(json_t *list, struct nbw_speedref *best)
{
	*best = (struct nbw_speedref){.core_ns = NAN, .cache_gbps = NAN, .memory_gbps = NAN};
	size_t i;
	json_t *p;
	json_array_foreach(list, i, p) {
		double c, k, m;
		figures(p, &c, &k, &m);
		/* fmin/fmax take the number where the other is NAN */
		best->core_ns = fmin(best->core_ns, c);
		best->cache_gbps = fmax(best->cache_gbps, k);
		best->memory_gbps = fmax(best->memory_gbps, m);
	}
}

void nbw_speedref_slower(json_t *p, const struct nbw_speedref *best, double slower[3])
{
	double c, k, m;
	figures(p, &c, &k, &m);
	slower[0] = c / best->core_ns;
	slower[1] = best->cache_gbps / k;
	slower[2] = best->memory_gbps / m;
}
