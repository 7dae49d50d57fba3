/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interface of libnodebw-heat-omp.so, the offload half of the heat solver (kernels, the
 * 1-device baseline, Versions 1-4, the memory-bandwidth kernel). It is built with the
 * offload flags and never sanitised; heat/main.c (sanitisable) calls it.
 */
#ifndef NODEBW_HEAT_OMP_H
#define NODEBW_HEAT_OMP_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/heat.h"

/** The halo path of a run without the halo copies. */
#define NBW_HEAT_NO_EXCHANGE_PATH                                                            \
	"none: halo copies left out (--no-exchange, or the compute-only half of --paired); " \
	"each slab's ghost planes keep their start values"

/** The co-run probe's forms (nodebw heat --corun): the one-device baseline (nowait form)
 *  on G devices at once, each device computing its own copy of the whole grid. */
enum nbw_heat_corun {
	NBW_CORUN_NONE,
	NBW_CORUN_ONE_THREAD,   /**< one host thread launches every device's kernel, then one
				 *   taskwait per step (as Versions 1-2 drive their devices) */
	NBW_CORUN_PER_DEVICE,   /**< a host thread per device: its kernel, a taskwait and the
				 *   team's barrier per step (as Versions 3-4) */
};

struct nbw_heat_omp_request {
	enum nbw_heat_version version;      /**< NBW_HEAT_BASELINE .. NBW_HEAT_GENERAL */
	enum nbw_heat_corun corun;          /**< baseline on ndev >= 2 devices at once, each
					     *   with the whole grid (slabs: the whole grid) */
	const struct nbw_heat_grid *grid;
	const struct nbw_heat_fields *fields;
	int ndev;
	const int *devices;                 /**< OpenMP device numbers, one per slab */
	const bool *gpu;                    /**< per device: GPU kernel forms (else host plugin) */
	const struct nbw_heat_slab *slabs;
	int steps;
	int warmup_steps;                   /**< untimed steps first, then the data is reset */
	int reps;                           /**< timed repetitions, each from the initial state */
	bool no_exchange;                   /**< v1-v4: kernels and synchronisation only,
					      no halo copies (compute-calibrated calibration) */
	bool paired;                        /**< v1-v4: each timed repetition follows the same
					     *   repetition without the halo copies on the same
					     *   buffers (result's paired_samples_s) */
	bool instrument;                    /**< one more run, timed phase by phase */
	int baseline_blocktime_ms;          /**< baseline: libomp's blocktime (ms) for the
					     *   run; -1 = leave the process's setting */
	bool baseline_nowait;               /**< baseline: launch each step's kernel as
					     *   Versions 1-4 do (target nowait + taskwait) */
	/* general only (the grid's radius and the fields' count apply to every version): */
	int decomp[3];                      /**< the device grid, product ndev */
	const struct nbw_heat_sub *subs;    /**< every device's box (nbw_heat_decompose) */
	enum nbw_app_copy copy;             /**< faces by rectangular copies or pack/unpack */
	enum nbw_app_exchange exchange;     /**< host-staged or device to device */
	bool overlap;                       /**< interior computed while the faces travel */
};

struct nbw_heat_omp_result {
	double *samples_s;                  /**< caller's array of reps entries */
	double *paired_samples_s;           /**< paired: caller's array of reps entries, the
					     *   compute-only halves */
	double *paired_u;                   /**< paired (may be NULL): the compute-only
					     *   solution (one more untimed pass), whole grid */
	struct nbw_heat_phases phases;      /**< when instrumented */
	int host_threads;
	int blocktime_ms;                   /**< kmp_get_blocktime() while the run was timed */
	char halo_path[200];
	char kernels[200];
};

/** Run one variant; the solution after the last repetition goes to \p u_out (the whole
 *  grid of every field, boundary included: field q at u_out + q x points). 0, or -1 with
 *  \p err. */
int nbw_heat_omp_run(const struct nbw_heat_omp_request *rq, double *u_out,
		     struct nbw_heat_omp_result *res, char *err, size_t errlen);

/** STREAM triad a = b + s c over three arrays of \p n doubles, \p passes times; the best
 *  pass in GB/s (24 bytes per element). \p device < 0: the host, with every OpenMP thread;
 *  else on that device. 0, or -1 with \p err. */
int nbw_heat_omp_triad(int device, size_t n, int passes, double *gbps, int *threads,
		       char *err, size_t errlen);

/* ---- the launch-latency probe (heat/omp_launch.c) ---------------------------------------- */

/** How the probe's near-empty target regions are launched, as the solver launches its
 *  kernels: two per device and step. */
enum nbw_launch_form {
	NBW_LAUNCH_SYNC,        /**< one host thread, blocking target regions, devices in turn */
	NBW_LAUNCH_ONE_THREAD,  /**< one host thread, target nowait, a taskwait per step
				 *   (Versions 1-2) */
	NBW_LAUNCH_PER_DEVICE,  /**< a host thread per device, target nowait, taskwait and
				 *   barrier per step (Versions 3-4) */
	NBW_LAUNCH_STAGED_COPY, /**< as per-device, plus each halo plane to each neighbour
				 *   device -> host -> device, two omp_target_memcpy_async chained
				 *   on the launch slot's depobj (Version 3's copies) */
	NBW_LAUNCH_DIRECT_COPY, /**< as per-device, plus each halo plane device -> device, one
				 *   omp_target_memcpy_async (Version 4's copies) */
	NBW_LAUNCH_FORM_COUNT
};

struct nbw_heat_launch_request {
	enum nbw_launch_form form;
	int ndev;
	const int *devices;     /**< OpenMP device numbers */
	int steps;              /**< steps per timed pass */
	int warmup;             /**< untimed passes first */
	int reps;               /**< timed passes */
	size_t plane_bytes;     /**< the copy forms: bytes of one halo plane */
	bool fault_plane;       /**< test hook: one ghost plane is spoilt before the check */
};

/** Whether \p form moves halo planes (and so needs plane_bytes and G >= 2). */
static inline bool nbw_launch_form_copies(int form)
{
	return form == NBW_LAUNCH_STAGED_COPY || form == NBW_LAUNCH_DIRECT_COPY;
}

/** Time \p reps passes of \p steps steps into \p samples_s; \p counts (2 per device) get
 *  the device counters afterwards: each must be (warmup + reps) x steps. The copy forms:
 *  \p bad_plane gets -1 when every ghost plane read back holds its neighbour's halo plane
 *  byte for byte, else the device of the first that does not (else -1 always). 0, or -1
 *  with \p err. */
int nbw_heat_omp_launch(const struct nbw_heat_launch_request *rq, double *samples_s,
			long *counts, int *bad_plane, char *err, size_t errlen);

/** The three entry points above as the heat command reaches them: from the offload library
 *  opened on first use (heat/omp_load.c), or linked in. NULL with one line in \p why when
 *  the library cannot be found or loaded. */
struct nbw_heat_omp_fns {
	__typeof__(nbw_heat_omp_run) *run;
	__typeof__(nbw_heat_omp_triad) *triad;
	__typeof__(nbw_heat_omp_launch) *launch;
};
const struct nbw_heat_omp_fns *nbw_heat_omp_fns(char *why, size_t whylen);

#endif
