/* SPDX-License-Identifier: BSD-3-Clause */
/* The solver stage of `nodebw run` inside: its plan, its rounds and its child processes
 * (tools/run_solver.c, run_rounds.c, run_child.c). */
#ifndef NODEBW_TOOLS_RUN_SOLVER_H
#define NODEBW_TOOLS_RUN_SOLVER_H

#include <stdbool.h>
#include <stddef.h>

#include "run.h"

/* Extra rounds for the configurations whose rounds disagree (within the stage's budget). */
#define NBW_RUN_EXTRA_ROUNDS 4
/* What the run keeps for the calibration and the report after the solver (the report of a
 * quick run on the 2-core VM took 1-3 s, its plots 5-8 s). */
#define NBW_RUN_REPORT_RESERVE 15.0
/* Processes of the plane-size sweep before the solver; one more starts each solver round.
 * Five back to back reached the floor of six to ten processes in most trials on the
 * 2-vCPU VM, but the floor itself moved with the machine's speed from run to run (4-5 %
 * in the fourth repeatability triple, doc/model.md): spread over the rounds they meet it at
 * as many moments as the solver does. */
#define NBW_RUN_PLANE_BEFORE 2
/* The cubic baseline's blocktime on host-plugin devices (ms): long enough that its team
 * spins from one step to the next. With 0, N = 40 took 8.2-10.7 ms for 120 steps in twelve
 * processes on the 2-vCPU VM, modal per process; spinning, 5.9-6.0 ms. */
#define NBW_RUN_BASELINE_BLOCKTIME_MS 10
/* Timed repetitions of a solver child: NBW_RUN_REPS in the first NBW_ROUNDS_CORE rounds
 * (with the instrumented runs) and in extra rounds; NBW_RUN_LATE_REPS in the cubic part of
 * the later rounds, which leave the instrumented runs out (about the same time). */
#define NBW_RUN_REPS 3
#define NBW_RUN_LATE_REPS 5

#define NBW_ARGBUF_MAX 64

/** A child's argument vector being built (strings owned). */
struct nbw_argbuf {
	char *v[NBW_ARGBUF_MAX];
	int n;
};

/** Append one printf-formatted argument. */
void nbw_arg(struct nbw_argbuf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** What the solver runs, fixed before its first round. */
struct nbw_solver_plan {
	char kind[32];          /**< the OpenMP devices' kind ("host-plugin", "gpu", ...) */
	int ndev;               /**< OpenMP devices */
	bool host;              /**< host-plugin devices */
	int n[NBW_RUN_MAX_N], nn;
	int steps, rounds;
	int hh;                 /**< hidden helpers of the children; -1: the runtime's own */
	int gs[2], ng;          /**< the G > 1 of Versions 1-4 */
	char nlist[256], glist[32], shapes[2048];
	bool spin_baseline;     /**< the cubic baseline runs with --baseline-blocktime */
};

/** The solver stage while it runs. */
struct nbw_solver_run {
	const struct nbw_run_opts *ro;
	const struct nbw_probe_opts *o;
	struct nbw_doc *doc;
	const char *dir;
	struct nbw_run_solver_status *st;
	struct nbw_solver_plan p;
	json_t *info;           /**< results.json "solver" */
	json_t *children;       /**< its "children" */
	double roof;            /**< roofline GB/s once a child measured it */
	double t_solver;        /**< when the rounds began */
	double last_round_s;    /**< how long the last planned round took */
	double limit, deadline; /**< the run's limit (0: none) and the solver's end by it */
	bool limited;
	char *err;
	size_t errlen;
};

/** The OpenMP devices of \p devices and the first one's kind into \p kind. */
int nbw_solver_omp_devices(json_t *devices, char *kind, size_t kindlen);
/** The solver's grid sizes N into \p n (NBW_RUN_MAX_N), their count returned. */
int nbw_solver_grids(const struct nbw_run_opts *ro, bool host, int *n);
/** The solver's rounds (--solver-rounds, else by device kind and profile). */
int nbw_solver_rounds(const struct nbw_run_opts *ro, bool host);
/** Seconds since the run started (nbw_run_clock_start). */
double nbw_run_elapsed(void);

/** Processes first .. first + count - 1 of the plane-size sweep; nothing without an OpenMP
 *  device. */
int nbw_run_plane_processes(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
			    struct nbw_doc *doc, const char *dir, int first, int count,
			    char *err, size_t errlen);

/** Run one `nodebw heat` child (\p a: its arguments so far; freed) and merge its records
 *  with \p round and \p purpose; writes the document. 0, or -1 with s->err. */
int nbw_solver_heat_child(struct nbw_solver_run *s, struct nbw_argbuf *a, int round,
			  const char *purpose);
/** The same with --steps, --reps and the roofline once known. */
int nbw_solver_child(struct nbw_solver_run *s, struct nbw_argbuf *a, int steps, int reps,
		     int round, const char *purpose);

/** Run one `nodebw probe` child (\p a: its arguments so far; freed), merge its measurements
 *  tagged \p field = \p tag, record it among the children with \p purpose; writes the
 *  document. 0, or -1 with s->err. */
int nbw_solver_probe_child(struct nbw_solver_run *s, struct nbw_argbuf *a, const char *field,
			   const char *tag, const char *purpose);

/** The planned rounds (tools/run_rounds.c); 0 or -1. */
int nbw_solver_planned_rounds(struct nbw_solver_run *s);
/** The extra rounds of the unstable configurations (tools/run_rounds.c); 0 or -1. */
int nbw_solver_extra_rounds(struct nbw_solver_run *s);

#endif
