/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The probe core: plans the series of every selected backend (nodebw/plan.h), runs
 * each over its sizes with warm-up, repetitions, concurrency, verification and statistics
 * (probe/exec.c), and says everything through sinks (nodebw/sink.h).
 */
#ifndef NODEBW_RUNNER_H
#define NODEBW_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "nodebw/cli.h"
#include "nodebw/probe.h"
#include "nodebw/results.h"
#include "nodebw/session.h"

struct nbw_run_status {
	unsigned measurements;
	unsigned verify_failed;
	unsigned errors;          /**< measurements that recorded an error */
	unsigned skipped;
	int interrupted;
	/** APIs named with --api that could not run (not built, no driver or device), and
	 *  APIs present but unusable (e.g. a CUDA driver older than the CUDA runtime) whether
	 *  named or not: both make the command fail. \p unavailable_why is the first reason,
	 *  "api: reason". */
	unsigned unavailable;
	unsigned backend_errors;
	char unavailable_why[NBW_REASON_LEN + 32];
	/** Checkpoint writes of the results that failed, and the first reason. */
	unsigned checkpoint_errors;
	char checkpoint_why[NBW_REASON_LEN];
};

struct nbw_sink;
/** What lives across runs: the stream threads (see nodebw/workers.h) and the caller's
 *  sinks. One per program. */
struct nbw_probe_ctx;
struct nbw_probe_ctx *nbw_probe_ctx_new(void);
void nbw_probe_ctx_free(struct nbw_probe_ctx *c);
/** Add an output sink (at most 4; the caller keeps it alive). 0 or -1. */
int nbw_probe_ctx_add_sink(struct nbw_probe_ctx *c, struct nbw_sink *s);

/* nbw_stop_requested and nbw_stop_signal (set by the signal handlers): nodebw/session.h. */

/** Run every selected probe, adding devices, skips and measurements to \p doc and writing
 *  \p outdir after each series (NULL: nothing written), besides the sinks of \p ctx.
 *  Returns 0, NBW_EXIT_USAGE for bad user input (with \p err), or -1 when the results
 *  cannot be written. The OpenMP-vs-native gap table is the caller's (nodebw/gap.h). */
int nbw_probe_run(struct nbw_probe_ctx *ctx, const struct nbw_probe_opts *o,
		  struct nbw_doc *doc, const char *outdir, struct nbw_run_status *st, char *err,
		  size_t errlen);

/** What a run of the probes will do, known before it starts (the plan's count). */
struct nbw_probe_count {
	size_t series;            /**< series that run (not the skipped ones) */
	size_t measurements;      /**< measurements they record, each to its end */
	int omp_devices;          /**< devices of the OpenMP backend (0: none or not selected) */
	char omp_kind[32];        /**< their kind ("host-plugin", "gpu", ...), "" when none */
};

/** Count what nbw_probe_run would measure under \p o: every selected backend is opened for
 *  its devices, planned as the run plans it, and closed; nothing is measured. 0, or -1
 *  (bad sizes for the memory there: the run says why). */
int nbw_probe_plan_count(const struct nbw_probe_opts *o, struct nbw_probe_count *c);

/** The measurements a child process `nodebw probe` with options \p c records, counted
 *  from the options as the child parses them from its command line (nbw_cli_probe_argv). */
size_t nbw_probe_child_count(const struct nbw_probe_opts *c);

/** The measurements nbw_hht_sweep will merge under \p o on a node with \p omp_devices
 *  OpenMP devices (its children's plans, counted with nbw_probe_plan_count). */
size_t nbw_hht_sweep_count(const struct nbw_probe_opts *o, int omp_devices);

/** The measurements one process of nbw_plane_sweep records at the \p nsizes plane sizes
 *  \p sizes on a node with \p omp_devices OpenMP devices. */
size_t nbw_plane_sweep_count(const struct nbw_probe_opts *o, const size_t *sizes,
			     size_t nsizes, int omp_devices);

/** The hidden-helper sweep: re-runs the async modes in child processes with
 *  LIBOMP_NUM_HIDDEN_HELPER_THREADS = 0, one per device, and 8, merging their measurements;
 *  a line per child on \p progress (NULL: none). */
int nbw_hht_sweep(const struct nbw_probe_opts *o, struct nbw_doc *doc, const char *outdir,
		  FILE *progress, struct nbw_run_status *st, char *err, size_t errlen);

/** The plane-size sweep of `nodebw run`: the OpenMP paths the models read (pinned host
 *  memory, sync and async, one stream and two; device 0 and the pair 0-1) measured again at
 *  the solver's halo-plane sizes \p sizes in child processes, each with \p hidden_helpers
 *  (-1: the runtime's own), merged with "plane_sweep": {"process": k, "processes": K}. This
 *  call runs processes \p first .. \p first + \p count - 1 of the \p processes planned
 *  (first = 1 starts the document's "plane_sweep"; later calls add to its children). A
 *  copy's time at these sizes moves more from one process to the next than within one; the
 *  calibration takes the fastest process (models/curves.c). */
int nbw_plane_sweep(const struct nbw_probe_opts *o, const size_t *sizes, size_t nsizes,
		    int hidden_helpers, int first, int count, int processes, struct nbw_doc *doc,
		    const char *outdir, FILE *progress, struct nbw_run_status *st, char *err,
		    size_t errlen);

/** Merge the measurements of the child run in \p dir into \p doc, each tagged
 *  \p field = \p tag (reference taken); a child without results is a skip named \p what.
 *  0, or -1 when the child left no readable results. */
int nbw_merge_child(struct nbw_doc *doc, const char *dir, const char *field, json_t *tag,
		    const char *what, struct nbw_run_status *st);

/** LIBOMP_NUM_HIDDEN_HELPER_THREADS as libomp will use it (default 8, at most 16). */
int nbw_effective_hidden_helpers(void);

/** Monotonic time in seconds. */
double nbw_now(void);

/** Verification pattern: fill \p n bytes from \p seed; check returns the first bad offset
 *  or n when all bytes match. */
void nbw_pattern_fill(void *buf, size_t n, uint64_t seed);
size_t nbw_pattern_check(const void *buf, size_t n, uint64_t seed);

#endif
