/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How close do the heat solver's serial reference and its OpenMP 1-device baseline come to
 * the memory-bandwidth roofline on this machine? In one run, with alternating rounds so
 * that the noise of a shared machine hits all alike:
 *   roofline  the host memory bandwidth, measured in this process as `nodebw heat` does:
 *             STREAM triad over 3 x 256 MiB with every OpenMP host thread, best of 10
 *             passes (host-plugin devices are host memory, so this is their roofline too)
 *   serial    the CPU reference (no offload) on one host thread
 *   serial T  the same reference on T host threads (default: every core, as `nodebw heat`
 *             runs it); its solution must equal the one-thread solution bit for bit
 *   baseline  the OpenMP offload baseline on device 0 (a host-plugin device without a GPU)
 * Each prints GB/s (1e9 B/s, 32 bytes per interior point and step) and its fraction of the
 * roofline, median and best of the rounds; then the ratios T threads / 1 thread and
 * baseline / reference. The baseline's solution is checked against the reference.
 * Usage: bench-heat-roofline [N [STEPS [ROUNDS [THREADS]]]]   (default 256 5 3 0 = every core)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat_omp.h"
#include "nodebw/backends.h"
#include "nodebw/heat.h"
#include "nodebw/stats.h"

#define TRIAD_BYTES (256ull << 20)

static int arg(int argc, char **argv, int i, int def)
{
	return argc > i ? atoi(argv[i]) : def;
}

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 256), steps = arg(argc, argv, 2, 5);
	int rounds = arg(argc, argv, 3, 3), threads_arg = arg(argc, argv, 4, 0);
	if (n < 3 || steps < 1 || rounds < 1 || rounds > 100 || threads_arg < 0) {
		fprintf(stderr, "usage: bench-heat-roofline [N >= 3 [STEPS >= 1 [ROUNDS 1-100 "
				"[THREADS >= 0, 0 = every core]]]]\n");
		return 2;
	}
	const int nth = nbw_heat_serial_threads(threads_arg);
	const struct nbw_backend_ops *ops = nbw_backend_find("omp");
	struct nbw_backend *be = NULL;
	char why[256] = "", err[256] = "";
	struct nbw_device dev;
	if (!ops || ops->open(&be, NULL, why, sizeof(why)) || ops->device_count(be) < 1 ||
	    ops->device_info(be, 0, &dev)) {
		printf("1..0 # SKIP no OpenMP offload device (%s)\n", why);
		return 0;
	}
	struct nbw_heat_grid g;
	struct nbw_heat_fields f;
	if (nbw_heat_grid_init(&g, n, n, n, err, sizeof(err)) || nbw_heat_fields_init(&f, &g)) {
		fprintf(stderr, "bench-heat-roofline: %s\n", err[0] ? err : "out of memory");
		return 1;
	}
	size_t pts = nbw_heat_grid_points(&g);
	double *ref = malloc(pts * sizeof(double)), *u = malloc(pts * sizeof(double));
	double *t_ser = calloc((size_t)rounds, sizeof(double));
	double *t_thr = calloc((size_t)rounds, sizeof(double));
	double *t_base = calloc((size_t)rounds, sizeof(double));
	if (!ref || !u || !t_ser || !t_thr || !t_base) {
		fprintf(stderr, "bench-heat-roofline: out of memory\n");
		return 1;
	}
	double roof = 0.0;
	int threads = 0;
	if (nbw_heat_omp_triad(-1, TRIAD_BYTES / sizeof(double), 10, &roof, &threads, err,
			       sizeof(err))) {
		fprintf(stderr, "bench-heat-roofline: %s\n", err);
		return 1;
	}
	printf("heat solver vs the memory roofline: grid %d^3, %d steps, %d alternating rounds\n"
	       "GB/s = 1e9 B/s counting 32 B per interior point and step\n"
	       "roofline: host memory, STREAM triad 3 x %llu MiB, %d OpenMP threads, best of 10: "
	       "%.2f GB/s\n"
	       "reference on %d host threads against 1; baseline device 0: %s (%s)\n\n",
	       n, steps, rounds, TRIAD_BYTES >> 20, threads, roof, nth, dev.kind, dev.name);

	struct nbw_heat_slab slab;
	nbw_heat_split(&g, 1, &slab, err, sizeof(err));
	int devs[1] = { 0 };
	bool gpu[1] = { dev.is_gpu };
	double sample = 0.0;
	struct nbw_heat_omp_request rq = {
		.version = NBW_HEAT_BASELINE, .grid = &g, .fields = &f, .ndev = 1, .devices = devs,
		.gpu = gpu, .slabs = &slab, .steps = steps, .warmup_steps = 1, .reps = 1,
	};
	struct nbw_heat_omp_result res = { .samples_s = &sample };
	bool same = true;
	for (int r = 0; r < rounds; r++) {
		t_ser[r] = nbw_heat_serial(&g, &f, steps, 1, ref);
		t_thr[r] = nbw_heat_serial(&g, &f, steps, nth, u);
		if (t_ser[r] < 0.0 || t_thr[r] < 0.0) {
			fprintf(stderr, "bench-heat-roofline: out of memory\n");
			return 1;
		}
		same &= memcmp(ref, u, pts * sizeof(double)) == 0;
		if (nbw_heat_omp_run(&rq, u, &res, err, sizeof(err))) {
			fprintf(stderr, "bench-heat-roofline: baseline: %s\n", err);
			return 1;
		}
		t_base[r] = sample;
	}
	struct nbw_heat_check c;
	nbw_heat_verify(u, ref, pts, &c);

	double bytes = (double)nbw_heat_interior_points(&g) * steps * NBW_HEAT_BYTES_PER_POINT;
	struct nbw_summary ss, st, sb;
	nbw_summarize(t_ser, (size_t)rounds, &ss);
	nbw_summarize(t_thr, (size_t)rounds, &st);
	nbw_summarize(t_base, (size_t)rounds, &sb);
	printf("%-34s %12s %10s %11s %11s\n", "variant", "median GB/s", "best GB/s",
	       "median roof", "best roof");
	char thr_name[64];
	snprintf(thr_name, sizeof(thr_name), "serial reference (%d thread%s)", nth,
		 nth == 1 ? "" : "s");
	const char *names[3] = { "serial reference (1 thread)", thr_name,
				 "baseline (offload, device 0)" };
	const struct nbw_summary *s[3] = { &ss, &st, &sb };
	for (int i = 0; i < 3; i++) {
		double med = bytes / s[i]->median / 1e9, best = bytes / s[i]->min / 1e9;
		printf("%-34s %12.2f %10.2f %11.3f %11.3f\n", names[i], med, best, med / roof,
		       best / roof);
	}
	printf("\nreference %d threads / 1 thread: %.2fx (medians), %.2fx (best rounds); "
	       "solutions %s\n",
	       nth, ss.median / st.median, ss.min / st.min,
	       same ? "bit-identical" : "DIFFER");
	printf("baseline / serial (1 thread): %.2fx (medians), %.2fx (best rounds)\n",
	       ss.median / sb.median, ss.min / sb.min);
	printf("baseline / serial (%d threads): %.2fx (medians), %.2fx (best rounds)\n", nth,
	       st.median / sb.median, st.min / sb.min);
	printf("baseline vs reference: max |u - u_ref| = %.3g (%s)\n", c.max_abs_diff,
	       c.passed ? "passed" : "FAILED");
	ops->close(be);
	nbw_heat_fields_free(&f);
	free(ref);
	free(u);
	free(t_ser);
	free(t_thr);
	free(t_base);
	return c.passed && same ? 0 : 1;
}
