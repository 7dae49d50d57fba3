/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host reference backend against plain copy loops, and libomptarget's overhead over
 * the host-native copy, in one run with alternating rounds (noise hits every variant alike).
 *
 * Part A, SIZE (default 256 MiB), pageable host memory:
 *   loop-1     memcpy in a plain loop on one thread
 *   host-sync  nodebw probe --api host --mode sync (the full probe core)
 *   loop-all   memcpy of equal chunks on one thread per online core (plain pthreads)
 *   host-par   nodebw probe --api host --mode parallel
 *   ratios host-sync/loop-1 and host-par/loop-all (target >= 0.95)
 * Part B, 64 MiB and 8 B, pinned host memory, sync, one host thread:
 *   omp-htod over host-htod as a ratio of GB/s, and the extra microseconds per transfer
 *   (libomptarget's cost on the host plugin, where both copies are a memcpy in the end).
 * Median of the rounds' medians, and the best repetition (the one noise disturbs least).
 * Usage: bench-host-native [SIZE [ROUNDS [REPS]]]   (default 256MiB 5 7)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/backends.h"
#include "nodebw/cli.h"
#include "nodebw/results.h"
#include "nodebw/runner.h"
#include "nodebw/stats.h"

/* The probe context of the program: its stream threads live as long as the process, as
 * libomp requires when the harness runs many times (nodebw/workers.h). */
static struct nbw_probe_ctx *probe_ctx(void)
{
	static struct nbw_probe_ctx *ctx;
	if (!ctx)
		ctx = nbw_probe_ctx_new();
	return ctx;
}

static double median(double *v, size_t n)
{
	struct nbw_summary s;
	nbw_summarize(v, n, &s);
	return s.median;
}

struct result {
	double gbps, seconds, best; /* medians over repetitions; best repetition GB/s */
};

/* One measurement through the whole probe core; gbps < 0 when it failed. */
static struct result harness(const char *api, const char *mode, const char *mem,
			     const char *size, const char *reps)
{
	struct result r = { -1, 0, 0 };
	char *argv[] = { "probe", "--api", (char *)api, "--probe", "htod", "--mode", (char *)mode,
			 "--threads", "1", "--host-mem", (char *)mem, "--sizes", (char *)size,
			 "--warmup", "2", "--reps", (char *)reps, "--max-reps", (char *)reps,
			 "--quiet", NULL };
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;
	struct nbw_probe_opts o;
	char err[512];
	if (nbw_cli_parse_probe(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "bench: %s\n", err);
		return r;
	}
	struct nbw_doc *doc = nbw_doc_new(argc, argv);
	struct nbw_run_status st;
	if (doc && nbw_probe_run(probe_ctx(), &o, doc, NULL, &st, err, sizeof(err)) == 0) {
		struct nbw_measurement m;
		json_t *j = json_array_get(doc->measurements, 0);
		if (j && nbw_measurement_from_json(j, &m, err, sizeof(err)) == 0) {
			if (strcmp(m.verify_status, "passed") == 0)
				r = (struct result){ m.gbps.median, m.seconds.median, m.gbps.max };
			nbw_measurement_free(&m);
		}
	}
	nbw_doc_free(doc);
	nbw_cli_opts_free(&o);
	return r;
}

struct chunk {
	char *dst;
	const char *src;
	size_t n;
};

static void *copy_chunk(void *arg)
{
	struct chunk *c = arg;
	memcpy(c->dst, c->src, c->n);
	return NULL;
}

/* Plain loops: \p threads == 1 is a memcpy on this thread, else equal chunks on threads. */
static struct result loop(char *dst, const char *src, size_t n, int threads, int reps)
{
	double *g = calloc((size_t)reps, sizeof(double));
	struct chunk c[256];
	pthread_t t[256];
	struct result r = { 0, 0, 0 };
	if (!g)
		return r;
	size_t per = (n / (size_t)threads + 4095) / 4096 * 4096;
	for (int i = 0; i < reps + 2; i++) {
		double a = nbw_now();
		if (threads == 1) {
			memcpy(dst, src, n);
		} else {
			int k = 0;
			for (size_t lo = 0; lo < n && k < threads; lo += per, k++) {
				c[k] = (struct chunk){ dst + lo, src + lo, n - lo < per ? n - lo : per };
				if (k > 0)
					pthread_create(&t[k], NULL, copy_chunk, &c[k]);
			}
			copy_chunk(&c[0]);
			for (int q = 1; q < k; q++)
				pthread_join(t[q], NULL);
		}
		double b = nbw_now();
		if (i < 2)
			continue;
		g[i - 2] = (double)n / (b - a) / 1e9;
		r.best = g[i - 2] > r.best ? g[i - 2] : r.best;
	}
	r.gbps = median(g, (size_t)reps);
	r.seconds = (double)n / r.gbps / 1e9;
	free(g);
	return r;
}

#define VARIANTS 4

int main(int argc, char **argv)
{
	const char *size_s = argc > 1 ? argv[1] : "256MiB";
	int rounds = argc > 2 ? atoi(argv[2]) : 5, reps = argc > 3 ? atoi(argv[3]) : 7;
	char reps_s[16], err[256];
	uint64_t n;
	if (nbw_size_parse(size_s, &n, err, sizeof(err)) || rounds < 1 || reps < 1) {
		fprintf(stderr, "usage: bench-host-native [SIZE [ROUNDS [REPS]]]\n");
		return 2;
	}
	snprintf(reps_s, sizeof(reps_s), "%d", reps);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = cores < 1 ? 1 : cores > 256 ? 256 : (int)cores;
	char *src = NULL, *dst = NULL;
	if (posix_memalign((void **)&src, 4096, n) || posix_memalign((void **)&dst, 4096, n)) {
		fprintf(stderr, "bench: cannot allocate 2 x %s\n", size_s);
		return 1;
	}
	memset(src, 0x5a, n);
	memset(dst, 0, n);

	static const char *names[VARIANTS] = { "loop-1", "host-sync", "loop-all", "host-par" };
	double med[VARIANTS][64] = { { 0 } }, best[VARIANTS] = { 0 };
	if (rounds > 64)
		rounds = 64;
	printf("bench-host-native part A: %s per copy, pageable memory, %d rounds of %d "
	       "repetitions, %d cores; GB/s = 1e9 B/s\n", size_s, rounds, reps, threads);
	printf("%6s %12s %12s %12s %12s\n", "round", names[0], names[1], names[2], names[3]);
	for (int r = 0; r < rounds; r++) {
		struct result v[VARIANTS] = {
			loop(dst, src, n, 1, reps),
			harness("host", "sync", "pageable", size_s, reps_s),
			loop(dst, src, n, threads, reps),
			harness("host", "parallel", "pageable", size_s, reps_s),
		};
		printf("%6d", r + 1);
		for (int k = 0; k < VARIANTS; k++) {
			med[k][r] = v[k].gbps;
			best[k] = v[k].best > best[k] ? v[k].best : best[k];
			printf(" %12.3f", v[k].gbps);
		}
		printf("\n");
	}
	double M[VARIANTS];
	for (int k = 0; k < VARIANTS; k++)
		M[k] = median(med[k], (size_t)rounds);
	printf("median of rounds: loop-1 %.3f, host-sync %.3f, loop-all %.3f, host-par %.3f GB/s\n",
	       M[0], M[1], M[2], M[3]);
	printf("ratio host-sync/loop-1   = %.3f median, %.3f best (target >= 0.95)\n", M[1] / M[0],
	       best[1] / best[0]);
	printf("ratio host-par/loop-all  = %.3f median, %.3f best (target >= 0.95)\n", M[3] / M[2],
	       best[3] / best[2]);
	free(src);
	free(dst);

	int ok = M[1] > 0 && M[3] > 0;
	const char *sizes[] = { "64MiB", "8" };
	printf("\nbench-host-native part B: omp-htod over host-htod, sync, pinned, one thread\n");
	for (int s = 0; s < 2; s++) {
		double og[64], hg[64], os[64], hs[64];
		for (int r = 0; r < rounds; r++) {
			struct result o = harness("omp", "sync", "pinned", sizes[s], reps_s);
			struct result h = harness("host", "sync", "pinned", sizes[s], reps_s);
			og[r] = o.gbps;
			hg[r] = h.gbps;
			os[r] = o.seconds;
			hs[r] = h.seconds;
			ok = ok && o.gbps > 0 && h.gbps > 0;
		}
		double O = median(og, (size_t)rounds), H = median(hg, (size_t)rounds);
		double Os = median(os, (size_t)rounds), Hs = median(hs, (size_t)rounds);
		printf("  %6s: omp %.4f GB/s (%.3f us), host %.4f GB/s (%.3f us): ratio omp/host = "
		       "%.3f, libomptarget adds %.3f us per transfer\n",
		       sizes[s], O, Os * 1e6, H, Hs * 1e6, O / H, (Os - Hs) * 1e6);
	}
	return ok ? 0 : 1;
}
