/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw heat --launch-probe`: the OpenMP launch-latency probe (heat/omp_launch.c) for
 * every device count G of --gpus and every launch form (the copy forms for G >= 2 and
 * each N of --n), with the median step time, its
 * confidence interval (order statistics, common/stats.c) and the counters' check. The
 * records are the array "launch_probe" of results.json (doc/model.md, "The launch probe").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat_omp.h"
#include "nodebw/heat.h"
#include "nodebw/runner.h"
#include "nodebw/stats.h"

/* Untimed passes before the timed ones (the first launch on a device loads its image). */
#define LAUNCH_WARMUP 2

static const char *nbw_launch_form_name(int form)
{
	static const char *const names[] = {"sync", "one-thread", "per-device", "staged-copy",
					    "direct-copy"};
	return form >= 0 && form < NBW_LAUNCH_FORM_COUNT ? names[form] : "?";
}

static const char *form_text(int form)
{
	switch (form) {
	case NBW_LAUNCH_SYNC:
		return "one host thread, two blocking target regions per device and step, the "
		       "devices in turn";
	case NBW_LAUNCH_ONE_THREAD:
		return "one host thread, two target nowait depend(out) regions per device and a "
		       "taskwait per step (the launches of Versions 1-2)";
	case NBW_LAUNCH_PER_DEVICE:
		return "a host thread per device, two target nowait depend(out) regions, a "
		       "taskwait and the barrier per step (the launches of Versions 3-4)";
	case NBW_LAUNCH_STAGED_COPY:
		return "per-device, and after each region the halo plane to the neighbour on its "
		       "side device -> host -> device, two omp_target_memcpy_async chained on the "
		       "region's token (the launches and copies of Version 3)";
	default:
		return "per-device, and after each region the halo plane to the neighbour on its "
		       "side device -> device, one omp_target_memcpy_async chained on the "
		       "region's token (the launches and copies of Version 4)";
	}
}

/* Copies the busiest host thread issues per step: one or two neighbours, one (direct) or
 * two (staged) omp_target_memcpy_async per plane. */
static int copies_per_thread(int form, int g)
{
	if (!nbw_launch_form_copies(form))
		return 0;
	return (g > 2 ? 2 : 1) * (form == NBW_LAUNCH_STAGED_COPY ? 2 : 1);
}

/* One (form, G[, N]) measurement as a JSON record; NULL when out of memory. \p n: the grid
 * whose plane the copy forms move (0 for the others). */
static json_t *measure(const struct nbw_heat_opts *o, const char *kind, int form, int g, int n,
		       unsigned *failed, FILE *table)
{
	struct nbw_heat_launch_request rq = {
		.form = (enum nbw_launch_form)form, .ndev = g, .devices = o->devices,
		.steps = o->steps, .warmup = LAUNCH_WARMUP, .reps = o->reps,
		.plane_bytes = (size_t)n * (size_t)n * sizeof(double),
	};
	/* Test hook: NODEBW_HEAT_FAULT=copy-plane spoils a ghost plane before its check. */
	const char *fault = getenv("NODEBW_HEAT_FAULT");
	rq.fault_plane = fault && strcmp(fault, "copy-plane") == 0;
	double *samples = calloc((size_t)o->reps, sizeof(double));
	long *counts = calloc(2 * (size_t)g, sizeof(long));
	json_t *j = json_object(), *devs = json_array(), *sj = json_array();
	char err[256] = "";
	if (!samples || !counts || !j || !devs || !sj) {
		free(samples);
		free(counts);
		json_decref(j);
		json_decref(devs);
		json_decref(sj);
		return NULL;
	}
	for (int i = 0; i < g; i++)
		json_array_append_new(devs, json_integer(o->devices[i]));
	int launches = form >= NBW_LAUNCH_PER_DEVICE ? 2 : 2 * g;
	int bad_plane = -1;
	json_object_set_new(j, "form", json_string(nbw_launch_form_name(form)));
	json_object_set_new(j, "launch", json_string(form_text(form)));
	json_object_set_new(j, "G", json_integer(g));
	json_object_set_new(j, "devices", devs);
	json_object_set_new(j, "device_kind", json_string(kind));
	json_object_set_new(j, "hidden_helpers", json_integer(nbw_effective_hidden_helpers()));
	json_object_set_new(j, "steps", json_integer(o->steps));
	json_object_set_new(j, "warmup_passes", json_integer(LAUNCH_WARMUP));
	json_object_set_new(j, "reps", json_integer(o->reps));
	json_object_set_new(j, "launches_per_step", json_integer(2 * g));
	json_object_set_new(j, "launches_per_thread_and_step", json_integer(launches));
	json_object_set_new(j, "region", json_string("target device(d) is_device_ptr(c): "
						     "c[slot] += 1, one counter per device and "
						     "launch slot, in device memory"));
	if (nbw_launch_form_copies(form)) {
		json_object_set_new(j, "N", json_integer(n));
		json_object_set_new(j, "plane_bytes", json_integer((json_int_t)rq.plane_bytes));
		json_object_set_new(j, "copies_per_thread_and_step",
				    json_integer(copies_per_thread(form, g)));
	}
	const struct nbw_heat_omp_fns *omp = nbw_heat_omp_fns(err, sizeof(err));
	int rc = omp ? omp->launch(&rq, samples, counts, &bad_plane, err, sizeof(err)) : -1;
	if (rc) {
		json_object_set_new(j, "error", json_string(err));
		(*failed)++;
		if (table) {
			char nn[16] = "-";
			if (n)
				snprintf(nn, sizeof(nn), "%d", n);
			fprintf(table, "%-11s %2d %4s  error: %s\n", nbw_launch_form_name(form), g, nn,
				err);
		}
		goto out;
	}
	for (int r = 0; r < o->reps; r++) {
		samples[r] /= o->steps;
		json_array_append_new(sj, json_real(samples[r]));
	}
	struct nbw_median_ci ci = {0};
	if (nbw_median_ci_of(samples, (size_t)o->reps, NBW_CI_LEVEL, &ci) == 0) {
		json_object_set_new(j, "step_s",
				    json_pack("{s:f, s:f, s:f, s:f, s:f, s:b}", "median", ci.median,
					      "ci_lo", ci.lo, "ci_hi", ci.hi, "ci_coverage",
					      ci.coverage, "ci_half_width",
					      ci.n > 1 ? ci.half_width : 0.0, "converged",
					      nbw_ci_converged(ci.coverage, ci.half_width)));
		json_object_set_new(j, "per_launch_s", json_real(ci.median / launches));
	}
	/* Every region ran once per pass and step. */
	long want = (long)(LAUNCH_WARMUP + o->reps) * o->steps;
	int bad = -1;
	for (int i = 0; i < 2 * g && bad < 0; i++)
		if (counts[i] != want)
			bad = i;
	json_t *ver = bad < 0 ? json_pack("{s:s, s:I}", "status", "passed", "count", want)
			      : json_pack("{s:s, s:I, s:I, s:i}", "status", "failed", "count", want,
					  "got", counts[bad], "device", o->devices[bad / 2]);
	if (nbw_launch_form_copies(form)) {
		/* Every ghost plane read back must be its neighbour's halo plane, byte for byte. */
		json_object_set_new(ver, "planes", json_string(bad_plane < 0 ? "passed" : "failed"));
		if (bad_plane >= 0) {
			json_object_set_new(ver, "status", json_string("failed"));
			json_object_set_new(ver, "plane_device", json_integer(bad_plane));
		}
	}
	json_object_set_new(j, "verification", ver);
	bool ok = bad < 0 && bad_plane < 0;
	if (!ok)
		(*failed)++;
	if (table) {
		char nn[16] = "-";
		if (n)
			snprintf(nn, sizeof(nn), "%d", n);
		fprintf(table, "%-11s %2d %4s %10.2f %10.2f  [%.2f, %.2f]  %s\n",
			nbw_launch_form_name(form), g, nn, ci.median * 1e6,
			ci.median / launches * 1e6, ci.lo * 1e6, ci.hi * 1e6,
			ok ? "passed" : "FAILED");
	}
out:
	json_object_set_new(j, "samples_step_s", sj);
	free(samples);
	free(counts);
	return j;
}

int nbw_heat_launch_probe(const struct nbw_heat_opts *o, const char *kind, json_t *records,
			  FILE *table, bool (*stop)(void), unsigned *failed)
{
	if (table)
		fprintf(table,
			"Launch-latency probe (%s devices, %d hidden helper threads): %d steps "
			"per pass, %d passes, 2 launches per device and step; the copy forms "
			"move N's halo plane (8 N^2 bytes) to each neighbour\n"
			"%-11s %2s %4s %10s %10s  %s\n",
			kind, nbw_effective_hidden_helpers(), o->steps, o->reps, "form", "G", "N",
			"step us", "launch us", "95 % CI of the step's median, us   check");
	for (int k = 0; k < o->ngpus; k++)
		for (int form = 0; form < NBW_LAUNCH_FORM_COUNT; form++) {
			bool copies = nbw_launch_form_copies(form);
			if (copies && o->gpus[k] < 2)
				continue;
			for (int s = 0; s < (copies ? o->nsizes : 1); s++) {
				if (stop && stop())
					return 0;
				json_t *j = measure(o, kind, form, o->gpus[k],
						    copies ? o->sizes[s] : 0, failed, table);
				if (!j)
					return -1;
				json_array_append_new(records, j);
			}
		}
	return 0;
}
