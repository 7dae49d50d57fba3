/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Does the probe harness add overhead of its own? On the host plugin a host-to-device copy
 * is a memcpy inside libomptarget, so plain memcpy on the same buffers is the ceiling.
 * In one run, alternating rounds so that the noise of a shared machine hits all three alike:
 *   memcpy    memcpy(device buffer, pinned host buffer, n)
 *   API       omp_target_memcpy through the backend (no harness)
 *   harness   the full probe core: nodebw probe --probe htod --mode sync --host-mem pinned
 * and prints harness/memcpy (the target, >= 0.9), API/memcpy (libomptarget's own cost) and
 * harness/API (what the harness itself adds).
 * Both the median of the rounds' medians and the best repetition (STREAM's rule, the one
 * that noise from other tenants disturbs least) are compared.
 * Usage: bench-htod-memcpy [SIZE [ROUNDS [REPS]]]   (default 256MiB 7 7)
 */
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

static void plain_memcpy(struct nbw_xfer *x)
{
	memcpy(x->dst->ptr, x->src->ptr, x->bytes);
}

/* Two warm-ups (as the harness does), then \p reps timed copies: plain memcpy when \p copy
 * is set, the backend's transfer otherwise. Returns the median GB/s; updates \p best. */
static double round_gbps(void (*copy)(struct nbw_xfer *), struct nbw_xfer *x,
			 const struct nbw_backend_ops *ops, struct nbw_backend *be, int reps,
			 double *t, double *best)
{
	for (int i = 0; i < reps + 2; i++) {
		double a = nbw_now();
		if (copy)
			copy(x);
		else
			ops->transfer(be, x);
		double b = nbw_now();
		if (i < 2)
			continue;
		t[i - 2] = (double)x->bytes / (b - a) / 1e9;
		if (t[i - 2] > *best)
			*best = t[i - 2];
	}
	return median(t, (size_t)reps);
}

static double harness_gbps(const char *size, const char *reps, double *best)
{
	char dir[] = "/tmp/nodebw-bench-XXXXXX";
	if (!mkdtemp(dir))
		return -1;
	char *argv[] = { "probe", "--api", "omp", "--probe", "htod", "--mode", "sync",
			 "--threads", "1", "--host-mem", "pinned", "--sizes", (char *)size,
			 "--warmup", "2", "--reps", (char *)reps, "--max-reps", (char *)reps,
			 "--quiet", "--output", dir, NULL };
	struct nbw_probe_opts o;
	char err[512];
	double gbps = -1;
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;
	if (nbw_cli_parse_probe(argc, argv, &o, err, sizeof(err)) == 0) {
		struct nbw_doc *doc = nbw_doc_new(argc, argv);
		struct nbw_run_status st;
		if (doc && nbw_probe_run(probe_ctx(), &o, doc, NULL, &st, err, sizeof(err)) == 0) {
			struct nbw_measurement m;
			json_t *j = json_array_get(doc->measurements, 0);
			if (j && nbw_measurement_from_json(j, &m, err, sizeof(err)) == 0) {
				if (strcmp(m.verify_status, "passed") == 0) {
					gbps = m.gbps.median;
					*best = m.gbps.max > *best ? m.gbps.max : *best;
				}
				nbw_measurement_free(&m);
			}
		}
		nbw_doc_free(doc);
	}
	else
		fprintf(stderr, "bench: %s\n", err);
	nbw_cli_opts_free(&o);
	rmdir(dir);
	return gbps;
}

int main(int argc, char **argv)
{
	const char *size_s = argc > 1 ? argv[1] : "256MiB";
	int rounds = argc > 2 ? atoi(argv[2]) : 7, reps = argc > 3 ? atoi(argv[3]) : 7;
	char reps_s[16], err[256];
	uint64_t n;
	if (nbw_size_parse(size_s, &n, err, sizeof(err)) || rounds < 1 || reps < 1) {
		fprintf(stderr, "usage: bench-htod-memcpy [SIZE [ROUNDS [REPS]]]\n");
		return 2;
	}
	snprintf(reps_s, sizeof(reps_s), "%d", reps);
	const struct nbw_backend_ops *ops = nbw_backend_find("omp");
	struct nbw_backend *be = NULL;
	char why[256];
	if (!ops || ops->open(&be, NULL, why, sizeof(why))) {
		printf("SKIP: no OpenMP backend (%s)\n", ops ? why : "not built");
		return 77;
	}
	struct nbw_device dev;
	ops->device_info(be, 0, &dev);
	if (strcmp(dev.kind, "host-plugin") != 0) {
		printf("SKIP: device 0 is %s; this bench compares against memcpy, which needs "
		       "host-plugin devices\n", dev.kind);
		return 77;
	}
	struct nbw_buf h = { .loc = NBW_LOC_HOST_PINNED, .device = 0, .bytes = n };
	struct nbw_buf d = { .loc = NBW_LOC_DEVICE, .device = 0, .bytes = n };
	if (ops->alloc(be, &h) || ops->alloc(be, &d)) {
		fprintf(stderr, "bench: cannot allocate 2 x %s\n", size_s);
		return 1;
	}
	memset(h.ptr, 0x5a, n);
	memset(d.ptr, 0, n);
	/* The sync mode needs no prepare(). */
	struct nbw_xfer x = { .dir = NBW_HTOD, .mode = NBW_MODE_SYNC, .src = &h, .dst = &d,
			      .bytes = n };
	double *mc = calloc((size_t)rounds, sizeof(double)),
	       *api = calloc((size_t)rounds, sizeof(double)),
	       *har = calloc((size_t)rounds, sizeof(double)),
	       *t = calloc((size_t)reps, sizeof(double));
	printf("bench-htod-memcpy: %s per copy, %d rounds of %d repetitions; GB/s = 1e9 B/s\n",
	       size_s, rounds, reps);
	printf("%6s %12s %12s %12s\n", "round", "memcpy GB/s", "API GB/s", "harness GB/s");
	double best_mc = 0, best_api = 0, best_har = 0;
	for (int r = 0; r < rounds; r++) {
		mc[r] = round_gbps(plain_memcpy, &x, ops, be, reps, t, &best_mc);
		api[r] = round_gbps(NULL, &x, ops, be, reps, t, &best_api);
		har[r] = harness_gbps(size_s, reps_s, &best_har);
		printf("%6d %12.3f %12.3f %12.3f\n", r + 1, mc[r], api[r], har[r]);
	}
	double M = median(mc, (size_t)rounds), A = median(api, (size_t)rounds),
	       H = median(har, (size_t)rounds);
	printf("median of rounds: memcpy %.3f GB/s, API %.3f GB/s, harness %.3f GB/s\n", M, A, H);
	printf("best repetition:  memcpy %.3f GB/s, API %.3f GB/s, harness %.3f GB/s\n", best_mc,
	       best_api, best_har);
	printf("ratio harness/memcpy = %.3f median, %.3f best (target >= 0.9)\n", H / M,
	       best_har / best_mc);
	printf("ratio API/memcpy     = %.3f median, %.3f best (libomptarget's own cost)\n", A / M,
	       best_api / best_mc);
	printf("ratio harness/API    = %.3f median, %.3f best (what the probe core adds)\n", H / A,
	       best_har / best_api);
	ops->free(be, &h);
	ops->free(be, &d);
	ops->close(be);
	free(mc);
	free(api);
	free(har);
	free(t);
	return H > 0 ? 0 : 1;
}
