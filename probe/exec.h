/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The executor (private to the probe core): runs one planned series over its sizes with
 * its state in one context struct. exec.c times, gates and verifies; record.c turns a timed
 * point into a measurement (labels, theoretical figure, byte counting from the kind table).
 */
#ifndef NODEBW_EXEC_H
#define NODEBW_EXEC_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "nodebw/bufpool.h"
#include "nodebw/cli.h"
#include "nodebw/plan.h"
#include "nodebw/probe.h"
#include "nodebw/results.h"
#include "nodebw/sink.h"
#include "nodebw/topology.h"
#include "nodebw/workers.h"

/* One series as the executor runs it. */
struct nbw_exec {
	const struct nbw_backend_ops *ops;
	struct nbw_backend *be;
	struct nbw_bufpool *pool;
	const struct nbw_probe_opts *o;
	const struct nbw_topo *topo;        /* NULL: nothing bound, no theoretical figure */
	struct nbw_workers *workers;
	const struct nbw_device *devinfo;   /* the backend's devices, by id */
	const struct nbw_series_plan *plan;
	const volatile sig_atomic_t *stop;  /* set: end the current size after a checked rep */
	bool gated;               /* concurrent async copies started by the backend's gate */
	bool grouped;             /* an exchange step issued by the backend's exchange() */
	int node[NBW_MAX_STREAMS]; /* NUMA node of each stream's host thread and buffers */
	/* Buffers of the largest size from the pool, reused for every size (no page faults or
	 * unmaps inside the sweep); when that allocation fails, each size allocates its own and
	 * a failure is recorded on that size only. */
	struct {
		struct nbw_buf src, dst, scratch;
		bool have;
	} cache[NBW_MAX_STREAMS];
};

struct nbw_stream_state {
	struct nbw_buf src, dst;
	struct nbw_xfer x;
	bool src_ok, dst_ok, prepared;
	bool cached;               /* buffers belong to the series cache */
	void *scratch;
	double warm_s;
	double *samples, *alone, *t0, *t1, *dev;
	char err[NBW_REASON_LEN];
	char verify_status[16];
	char verify_detail[160];   /* what failed, without its repetition until the count is known */
	unsigned verified;         /* repetitions whose destination was checked */
	unsigned bad_rep;          /* first repetition (1-based) that failed its check; 0: none */
	char placement[64];        /* where the host buffer's pages are */
	char huge[160];            /* huge-page host memory: what the kernel gave */
	/* CHASE mode: the chain as the core wrote it (the host source itself, or the check
	 * buffer that was written to a device source) and the final index the backend must
	 * store after x.chase_loads loads (the core's own walk). */
	const uint64_t *chain;
	uint64_t chase_want;
	/* Face series (plan->face.on, exec_face.c): the stream's region, the contiguous
	 * buffers of the pack method (source side, destination side) and their copy, and the
	 * source box as the core wrote it (the check's reference). */
	struct nbw_region region;
	struct nbw_buf lsrc, ldst;
	struct nbw_xfer lx;
	bool lsrc_ok, ldst_ok, lx_prepared;
	unsigned char *expect;
	/* Host-staged exchange messages (plan->face.staged, exec_face_staged.c): the host box
	 * of the series' host memory (the whole box for rect, the packed face for pack), the
	 * region of the first copy (device box -> the same place of the host box), and the
	 * second copy (host -> destination device). */
	struct nbw_buf hbox;
	struct nbw_region hregion;
	struct nbw_xfer hx;
	bool hbox_ok, hx_prepared;
};

/* One size of a series. The repetition count is adaptive unless --reps was given: at least
 * `planned` (from the warm-up, as the profile's minimum time asks), then on until the
 * interval of the median wall time is within +-NBW_CI_TARGET, the size's time cap or
 * --max-reps. Stream 0 decides after every repetition, between barriers, for all streams. */
struct nbw_point {
	struct nbw_exec *s;
	size_t bytes;
	uint64_t seed;
	unsigned reps;            /* timed repetitions: the fixed count, or the final one */
	unsigned planned;         /* the fewest (adaptive), or all of them (fixed) */
	unsigned cap_reps;        /* the most: --max-reps (adaptive), or `planned` (fixed) */
	unsigned room;            /* repetitions the sample arrays hold now (they grow) */
	bool adaptive;
	bool go;                  /* the decision after a repetition: time another one */
	unsigned char *vmask;     /* per repetition: checked (poisoned before, compared after) */
	unsigned extra_checks;    /* checks added where the interval was met on an unchecked one */
	double *sorted;           /* the wall times record.c counts, sorted (stream 0) */
	size_t ci_j;              /* the interval's lower rank for the count so far */
	double t_loop;            /* when the timed repetitions began */
	double t_mark;            /* when the second ended (what the later ones cost from there) */
	bool converged;
	bool time_capped;         /* stopped at the size's time cap, the interval not met */
	char stop[48];            /* why the repetitions stopped */
	long minflt0;             /* the process's minor faults when the repetitions began; -1: unknown */
	double faults_per_rep;    /* minor faults per timed repetition; -1: unknown */
	unsigned alone_reps;      /* repetitions of each stream alone (several streams only) */
	double *t_release;        /* gated starts: when the gate was opened, per repetition */
	bool gated;               /* this point starts on the backend's gate */
	char no_gate[160];        /* why a gated series could not use the gate here */
	pthread_barrier_t bar;
	struct nbw_stream_state st[NBW_MAX_STREAMS];
	/* CHASE mode: the base transfers (NBW_CHASE_BASE_LOADS load), timed after the chain's
	 * repetitions; the latency is the slope between their medians. */
	double *chase_base;       /* their times */
	unsigned chase_base_reps;
	volatile int failed;      /* set by any stream; read after a barrier */
	char error[NBW_REASON_LEN]; /* the point could not run at all */
};

/* Why an adaptive count stopped when the interval met the target (NBW_CI_TARGET). */
#define NBW_STOP_INTERVAL "interval within +-1 %"
/** Why a size ended early when the run was asked to stop (SIGINT, SIGTERM). */
#define NBW_STOP_INTERRUPTED "interrupted: the run was asked to stop"

/* Every repetition of a size up to this is verified (poison before, check after, both
 * untimed); above it the first and the last only. */
#define NBW_VERIFY_EVERY_MAX_BYTES (1024u * 1024u)

/* repcheck.c */
/* Whether repetition \p r (0-based) of a fixed count of \p reps at \p bytes is verified
 * (an adaptive count checks these and the one after the decision to stop, see exec.c). */
bool nbw_repcheck_planned(size_t bytes, unsigned r, unsigned reps);
/* The repetitions \p mask marks (of \p reps), 1-based ranges: "1-3", "1,50", "1,7-8,12";
 * "" when none. On a buffer too short the list ends at the last range that fits. */
void nbw_repcheck_list(const unsigned char *mask, unsigned reps, char *buf, size_t len);

/* exec_chase.c: the chase mode's parts of a point (one stream; untimed unless said). */
/* Every repetition of the point is checked (small sizes, and every chase: 8 bytes). */
bool nbw_point_checks_every(const struct nbw_point *p);
/* Write the chain into the stream's source (untimed) and set the chain's first
 * length. 0, or -1 with the stream's error set. */
int nbw_chase_setup(struct nbw_point *p, unsigned me);
/* Lengthen the chain until one transfer takes long enough (timed transfers, before
 * the warm-up), then the index the backend must reach. */
void nbw_chase_calibrate(struct nbw_point *p, unsigned me);
/* Poison the destination's final-index word (untimed). 0, or -1. */
int nbw_chase_poison(struct nbw_point *p, unsigned me);
/* Check the final index after repetition \p r (0-based). */
void nbw_chase_verify(struct nbw_point *p, unsigned me, unsigned r);
/* After the chain's repetitions: time the base transfers, each one checked. */
void nbw_chase_base(struct nbw_point *p, unsigned me);
/* After the timed repetitions: the chase's verification status and its words. */
void nbw_chase_summary(struct nbw_point *p, unsigned me);
/* The measurement's chase figures from the point (record.c; \p p NULL: a size that could
 * not run, only the byte counting). */
void nbw_chase_record(const struct nbw_exec *s, const struct nbw_point *p,
		      struct nbw_measurement *m);

/* exec_face.c: the face series' parts of a point (plan->face.on). */
/* The stream's region, its pack buffers and their copy, the reference box (untimed). 0, or
 * -1 with the stream's error set. */
int nbw_face_setup(struct nbw_point *p, unsigned me);
/* One face copy: the rectangular copy, or pack -> contiguous copy -> unpack (timed). */
int nbw_face_copy(struct nbw_point *p, struct nbw_stream_state *ss);
/* Stream \p me's message of an exchange step, for the backend's exchange(). */
void nbw_face_msg(struct nbw_point *p, unsigned me, struct nbw_exchange_msg *m);
/* Check the destination box after a repetition (untimed): 0, or -1 with \p what and the
 * offset of the first wrong byte in \p at. */
int nbw_face_check(struct nbw_point *p, unsigned me, char *what, size_t wlen, size_t *at);
/* What the face series leaves behind. */
void nbw_face_teardown(struct nbw_point *p, unsigned me);

/* exec_face_staged.c: a host-staged message (plan->face.staged): device box -> host box ->
 * destination box, by two rectangular copies (rect) or pack -> DtoH -> HtoD -> unpack
 * (pack). Setup and teardown untimed; the copy is the timed message. */
int nbw_face_staged_setup(struct nbw_point *p, unsigned me);
int nbw_face_staged_copy(struct nbw_point *p, struct nbw_stream_state *ss);
void nbw_face_staged_teardown(struct nbw_point *p, unsigned me);
/* exec.c: where host buffers of host memory \p m live. */
enum nbw_loc nbw_exec_host_loc(enum nbw_hostmem m);

/* Called with each measurement as it is recorded. */
typedef void (*nbw_emit_fn)(void *ctx, const struct nbw_measurement *m);

/* Run the series \p x->plan over the sizes of \p x->o (the matrix sizes only for a
 * matrix-only set), handing every measurement to \p emit. */
void nbw_exec_series(struct nbw_exec *x, nbw_emit_fn emit, void *ctx);

/* record.c */
/* The measurement of one timed point (takes the point's sample arrays). */
void nbw_record_point(const struct nbw_exec *x, struct nbw_point *p, const struct nbw_size *sz,
		      struct nbw_measurement *m);
/* The measurement of a size that could not run (e.g. not enough host memory). */
void nbw_record_error(const struct nbw_exec *x, const struct nbw_size *sz, const char *why,
		      struct nbw_measurement *m);
/* How host threads wait for the devices that issue the series' copies. */
void nbw_record_sched(const struct nbw_exec *x, char *word, size_t wlen, char *note,
		      size_t nlen);

#endif
