/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The bundled 3D heat solver (`nodebw heat`): the paper's problem, a serial CPU
 * reference, the OpenMP offload 1-device baseline and Versions 1-4 for any G >= 2 devices,
 * verification against the reference, and the "solver_runs" records of results.json.
 *
 * Problem (doc/heat.md): du/dt = div(kappa grad u) + f on a box of nx x ny x nz grid points
 * with one spacing h = 1/(max(nx, ny, nz) - 1) (the unit cube when nx = ny = nz = N),
 * Dirichlet u = 0 on the boundary, layout u[k][j][i] with i fastest, split along k.
 *
 * The argument parsing, problem set-up, serial reference, verification and records live in
 * a static library that can be sanitised; the offload kernels and variants live in a shared
 * library built with the offload flags (heat/heat_omp.h), never sanitised.
 */
#ifndef NODEBW_HEAT_H
#define NODEBW_HEAT_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nodebw/app.h"

/** Devices one run can use (the host plugin has 4; a GPU node rarely more than 16). */
#define NBW_HEAT_MAX_DEVICES 64
/** Grid sizes (--n) one command can list. */
#define NBW_HEAT_MAX_SIZES 32
/** Effective bytes counted per interior point and step: u, kappa and rhs read, u_new
 *  written, each once (neighbours are reused from cache; write-allocate is not counted). */
#define NBW_HEAT_BYTES_PER_POINT 32
/** The paper's acceptance rule: |u - u_ref| <= ATOL + RTOL |u_ref|, no NaN or Inf. */
#define NBW_HEAT_ATOL 1e-6
#define NBW_HEAT_RTOL 1e-5
/** Stencil radii (--radius): 1 (7 points) to 4 (25 points). */
#define NBW_HEAT_MAX_RADIUS 4
/** Independent fields stepped and exchanged together (--fields). */
#define NBW_HEAT_MAX_FIELDS 4

enum nbw_heat_version {
	NBW_HEAT_SERIAL,    /**< CPU reference: host loops on host threads, no offload */
	NBW_HEAT_BASELINE,  /**< OpenMP offload, one device */
	NBW_HEAT_V1,        /**< one host thread, host-staged, blocking omp_target_memcpy */
	NBW_HEAT_V2,        /**< one host thread, host-staged, omp_target_memcpy_async + depobj */
	NBW_HEAT_V3,        /**< one host thread per device, host-staged, asynchronous */
	NBW_HEAT_V4,        /**< one host thread per device, device-to-device copies */
	NBW_HEAT_GENERAL,   /**< one host thread per device, devices in a PX x PY x PZ grid,
			     *   faces by rectangular copies or pack/unpack, host-staged or
			     *   device to device, with or without overlap (never in "all") */
	NBW_HEAT_VERSION_COUNT
};

/** "serial", "baseline", "v1" ... "v4". */
const char *nbw_heat_version_name(enum nbw_heat_version v);
/** A one-line description ("Version 3: one host thread per device, ..."). */
const char *nbw_heat_version_label(enum nbw_heat_version v);
/** The version of a name ("v2", "2", "baseline", ...), or -1. */
int nbw_heat_version_parse(const char *s);
/** Whether version \p v runs on \p g devices (serial: 0, baseline: 1, v1-v4 and general: 2
 *  or more). */
bool nbw_heat_version_fits(enum nbw_heat_version v, int g);

/** Grid and the discretisation constants derived from it. */
struct nbw_heat_grid {
	int nx, ny, nz;
	double h;       /**< 1 / (max(nx, ny, nz) - 1) */
	double dt;      /**< h^2 / (12 W_R kappa_max), kappa_max = 0.95, W_R = the sum of
			 *   1/d^2 for d = 1..R (1 for the paper's radius 1) */
	double factor;  /**< dt / (2 h^2) */
	int radius;     /**< stencil radius R: the boundary layer and the halo depth */
};

/** Fill the constants of a radius-1 grid. 0, or -1 with \p err when a side is below 3. */
int nbw_heat_grid_init(struct nbw_heat_grid *g, int nx, int ny, int nz, char *err,
		       size_t errlen);
/** The same for a stencil of radius \p radius (1..NBW_HEAT_MAX_RADIUS): every side needs
 *  at least 2 radius + 1 points. */
int nbw_heat_grid_init_r(struct nbw_heat_grid *g, int nx, int ny, int nz, int radius,
			 char *err, size_t errlen);
/** W_R = sum of 1/d^2 for d = 1..R: the weights of the radius-R update (heat/stencil.h). */
double nbw_heat_weight_sum(int radius);
/** nx * ny * nz */
size_t nbw_heat_grid_points(const struct nbw_heat_grid *g);
/** (nx - 2R)(ny - 2R)(nz - 2R): the points updated each step (of each field). */
uint64_t nbw_heat_interior_points(const struct nbw_heat_grid *g);

/** Host arrays of the whole grid: the initial u of every field (field f's grid at
 *  u0 + f * nbw_heat_grid_points), kappa and rhs = dt * f, shared by the fields. */
struct nbw_heat_fields {
	double *u0, *kappa, *rhs;
	int nfields;    /**< fields in u0 (1 unless nbw_heat_fields_init_n) */
};

/** Allocate and initialise one field (sin/cos as in the paper, u = 0 on the boundary layer
 *  of depth g->radius). */
int nbw_heat_fields_init(struct nbw_heat_fields *f, const struct nbw_heat_grid *g);
/** The same with \p nfields fields: field f starts as (1 + f/2) sin sin sin inside (field 0
 *  as nbw_heat_fields_init). */
int nbw_heat_fields_init_n(struct nbw_heat_fields *f, const struct nbw_heat_grid *g,
			   int nfields);
void nbw_heat_fields_free(struct nbw_heat_fields *f);

/** The planes of the split along k that one device updates: global planes
 *  [k_begin, k_end), held with one ghost plane on each side. */
/** Whether nx x ny x nz is G's slab of a cubic N = nx: nx == ny and nz = ceil((N-2)/G)+2
 *  (the busiest device's slab with its two ghost planes). */
bool nbw_heat_is_slab_shape(int nx, int ny, int nz, int g);
/** The same for a stencil of radius R: nz = ceil((N - 2R)/G) + 2R. */
bool nbw_heat_is_slab_shape_r(int nx, int ny, int nz, int g, int radius);

struct nbw_heat_slab {
	int k_begin, k_end;
};

/** Split the nz - 2R interior planes evenly over \p ndev devices (the first
 *  (nz - 2R) % ndev devices get one plane more). 0, or -1 with \p err when a device would get
 *  fewer than R planes (R = g->radius; a neighbour's ghost layer is R planes deep). */
int nbw_heat_split(const struct nbw_heat_grid *g, int ndev, struct nbw_heat_slab *out,
		   char *err, size_t errlen);

/** One device's box of a decomposition into PX x PY x PZ devices (device number
 *  ix + PX (iy + PY iz), x fastest, so 1 x 1 x G is the z-slabs in order). */
struct nbw_heat_sub {
	int idx[3];      /**< position in the device grid */
	int begin[3];    /**< global index of its first updated point along x, y, z */
	int count[3];    /**< updated points along each axis; the local box is count + 2R */
};

/** Decompose the grid's interior (n - 2R points per axis) over decomp[0] x decomp[1] x
 *  decomp[2] devices: per axis evenly, the first (n - 2R) mod p devices one more point
 *  (the rule of nbw_app_local_box). 0, or -1 with \p err when a device would get fewer than
 *  R points along a split axis. */
int nbw_heat_decompose(const struct nbw_heat_grid *g, const int decomp[3],
		       struct nbw_heat_sub *out, char *err, size_t errlen);
/** The z-slabs as boxes: slab d is the box at index [0, 0, d], the whole interior along x
 *  and y. */
void nbw_heat_subs_of_slabs(const struct nbw_heat_grid *g, int ndev,
			    const struct nbw_heat_slab *slabs, struct nbw_heat_sub *out);
/** Bytes one step's face copies move between devices, every field's, each face once. */
uint64_t nbw_heat_halo_bytes(const struct nbw_heat_grid *g, const int decomp[3],
			     const struct nbw_heat_sub *subs, int nfields);

/** Every field's reference: nbw_heat_serial of each field of \p f into \p u + field x
 *  nbw_heat_grid_points. The seconds of all, or -1 when out of memory. */
double nbw_heat_serial_fields(const struct nbw_heat_grid *g, const struct nbw_heat_fields *f,
			      int steps, int threads, double *u);
/** The CPU reference ("serial": plain host loops, no offload): \p steps steps from f->u0
 *  into \p u (nx*ny*nz doubles), the rows of each step shared by \p threads host OpenMP
 *  threads (0 or less: nbw_heat_serial_threads(0)). Bit-identical for every thread count.
 *  Returns the seconds of the time-step loop alone, or -1 when out of memory. */
double nbw_heat_serial(const struct nbw_heat_grid *g, const struct nbw_heat_fields *f,
		       int steps, int threads, double *u);
/** The reference of a run without the halo exchange (--no-exchange): u0 everywhere, then
 *  each slab's planes from a serial run of that slab alone, its ghost planes held at the
 *  start values. 0, or -1 out of memory. */
int nbw_heat_slab_reference(const struct nbw_heat_grid *g, const struct nbw_heat_fields *f,
			    const struct nbw_heat_slab *slabs, int ndev, int steps, int threads,
			    double *ref);
/** The host threads nbw_heat_serial uses for \p threads: \p threads when above 0, else
 *  omp_get_max_threads() (every core unless OMP_NUM_THREADS says otherwise). */
int nbw_heat_serial_threads(int threads);

/** Outcome of comparing a solution with the reference (the paper's rule). */
struct nbw_heat_check {
	bool passed;
	double max_abs_diff;      /**< over all points; +inf when a value is NaN or Inf */
	size_t bad;               /**< points that break the rule */
	size_t first_bad;         /**< index of the first, when bad > 0 */
	size_t nonfinite;         /**< NaN or Inf values in \p u */
};

void nbw_heat_verify(const double *u, const double *ref, size_t n,
		     struct nbw_heat_check *out);

/** Mirror and transpose checks of a solution on the unit cube (nx = ny = nz): the problem
 *  is invariant under swapping two axes and under reflecting two axes at once. Returns the
 *  largest difference between u and its images, or -1 for a grid that is not cubic. */
double nbw_heat_symmetry_error(const struct nbw_heat_grid *g, const double *u);

/* ---- command line ------------------------------------------------------------------- */

struct nbw_heat_opts {
	int sizes[NBW_HEAT_MAX_SIZES];   /**< cubic N values (--n) */
	int nsizes;
	int nx, ny, nz;                  /**< --nx/--ny/--nz (all three or none); 0 = unset */
	int shapes[NBW_HEAT_MAX_SIZES][3]; /**< every grid to run, nx, ny, nz (from --n,
					    *   --nx/--ny/--nz or --shapes), filled by the parser */
	int nshapes;
	int steps;
	bool versions[NBW_HEAT_VERSION_COUNT];
	bool versions_all;               /**< "all": skip the versions a G does not fit */
	int devices[NBW_HEAT_MAX_DEVICES];
	int ndevices;                    /**< 0 = every device */
	int gpus[NBW_HEAT_MAX_DEVICES];  /**< device counts G (--gpus) */
	int ngpus;                       /**< 0 = 1 and the whole device list */
	int reps;
	int hidden_helpers;              /**< -1 = leave the runtime's setting alone */
	int ref_threads;                 /**< host threads of the reference (--ref-threads);
					  *   0 = nbw_heat_serial_threads(0), every core */
	bool instrument;
	bool baseline_nowait;            /**< --baseline-launch nowait */
	int baseline_blocktime_ms;       /**< --baseline-blocktime: libomp's blocktime for the
					  *   baseline runs; -1 = the process's setting */
	bool no_exchange;                /**< --no-exchange: v1-v4 without the halo copies */
	bool paired;                     /**< --paired: v1-v4 timed with and without the halo
					  *   copies, repetition by repetition */
	bool launch_probe;               /**< --launch-probe: the launch-latency probe only */
	bool corun;                      /**< --corun: the co-run probe on the shapes that are
					  *   a G of --gpus's slab of a cubic N, or on the box of
					  *   --nx/--ny/--nz for every G >= 2 */
	int radius;                      /**< --radius: stencil radius 1-4 (default 1) */
	int fields;                      /**< --fields: fields stepped and exchanged, 1-4 */
	int decomp[3];                   /**< --decomp PXxPYxPZ for general; 0 = 1 x 1 x G */
	enum nbw_app_copy copy;          /**< --copy rect|pack (general) */
	enum nbw_app_exchange exchange;  /**< --exchange host|device (general) */
	bool overlap;                    /**< --overlap on|off (general; default on) */
	bool general_opts;               /**< one of --decomp/--copy/--exchange/--overlap given */
	char app[PATH_MAX];              /**< --app: the application description, "" = none */
	int app_element_bytes;           /**< the app's element_bytes (0 without --app) */
	char app_name[64];               /**< the app's name */
	double roofline_gbs;             /**< 0 = measure */
	char output[PATH_MAX];
	bool replace;                    /**< --replace: results already in --output go */
	bool quiet;
};

/** Parse the options of "heat" (argv[0] is "heat"). 0, 1 for --help, or -1 with a
 *  one-line message in \p err (usage error: exit status 2). Checks that need no device:
 *  sizes >= 3, steps > 0, duplicate ids, unknown versions, slabs thinner than a plane. */
int nbw_heat_parse(int argc, char **argv, struct nbw_heat_opts *o, char *err, size_t errlen);
void nbw_heat_usage(FILE *f);

/** Check the options against the \p ndev devices that exist; completes the device list and
 *  the G list. 0, or -1 with \p err. */
int nbw_heat_resolve_devices(struct nbw_heat_opts *o, int ndev, char *err, size_t errlen);

/* ---- records ------------------------------------------------------------------------ */

/** Per-phase seconds of the instrumented run, summed over its steps (mean over host
 *  threads for Versions 3 and 4). */
struct nbw_heat_phases {
	double interior_s, boundary_s, halo_s, sync_s, total_s;
};

/** Where the roofline bandwidth came from. */
struct nbw_heat_roofline {
	double gbs;               /**< GB/s (1e9 B/s) for the whole run */
	char source[16];          /**< "measured" or "given" */
	char method[320];
};

/** Everything one solver run reports (one element of "solver_runs"). */
struct nbw_heat_record {
	enum nbw_heat_version version;
	struct nbw_heat_grid grid;
	int ndev;
	int devices[NBW_HEAT_MAX_DEVICES];
	struct nbw_heat_slab slabs[NBW_HEAT_MAX_DEVICES];
	struct nbw_heat_sub subs[NBW_HEAT_MAX_DEVICES]; /**< every device's box (z-slabs:
							 *   the slabs as boxes) */
	int fields;               /**< fields stepped and exchanged */
	int decomp[3];            /**< the device grid ([1, 1, G] for z-slabs) */
	const char *exchange_how; /**< "host-staged", "device" or "none" */
	const char *copy_how;     /**< "rect", "pack" or "none" */
	bool overlap;             /**< interior computed while the faces travel */
	int app_element_bytes;    /**< --app: the element bytes the app asked for (0: none) */
	const char *app_name;     /**< --app: the app's name (may be "") */
	char device_kind[32];     /**< "host-plugin", "cuda", ...; "host-cpu" for serial */
	int steps;
	int warmup_steps;
	int reps;
	double *samples_s;        /**< per repetition: seconds of the time-step loop */
	double seconds;           /**< median of samples_s */
	bool no_exchange;         /**< v1-v4 ran without the halo copies (--no-exchange) */
	const char *corun;        /**< the co-run probe's form ("one-thread", "per-device"):
				   *   the baseline on G devices at once, each with the whole
				   *   grid; NULL = not a co-run */
	int corun_slab_g;         /**< co-run: the G whose slab the grid is, or the G a box
				   *   of --nx/--ny/--nz is co-run for (the devices at once may
				   *   be fewer: as many as the host has CPUs) */
	const double *partner_s;  /**< --paired: the other half's samples, reps entries (the
				   *   compute-only ones in the halo record and the reverse);
				   *   NULL = not paired */
	bool instrumented;
	struct nbw_heat_phases phases;
	int host_threads;         /**< host threads driving the devices (serial: computing) */
	int hidden_helpers;       /**< as libomp uses it; -1 for serial */
	int blocktime_ms;         /**< libomp's blocktime the run's threads waited with
				   *   (KMP_BLOCKTIME, ms; kmp_get_blocktime); -1 for serial */
	char cuda_sched[16];      /**< how CUDA host threads waited (the primary contexts'
				   *   scheduling: auto, spin, yield, blocking, mixed, unknown);
				   *   "" when no device is a CUDA device */
	char cuda_sched_note[256]; /**< per device: its flags and context state as read */
	char halo_path[200];
	char kernels[200];
	const char *launch;       /**< "sync" (blocking target region), "nowait" (target nowait
				   *   + taskwait), "none" (serial) */
	struct nbw_heat_roofline roofline;
	struct nbw_heat_check check;
	char verify_status[16];   /**< "passed", "failed", "reference" */
	char error[256];          /**< empty on success */
};

/** Derived figures of a record. */
double nbw_heat_points_per_s(const struct nbw_heat_record *r);
double nbw_heat_bytes_per_s(const struct nbw_heat_record *r);
double nbw_heat_roofline_fraction(const struct nbw_heat_record *r);
/** Bytes the run's halo copies move per step, every field's: Versions 1-4 copy whole
 *  planes (2 (G - 1) R planes of 8 nx ny bytes per field), general the faces' interior
 *  points (nbw_heat_halo_bytes); 0 for one device, the co-run probe and --no-exchange. */
uint64_t nbw_heat_record_halo_bytes(const struct nbw_heat_record *r);

/** The JSON object of one record (schema: doc/solver-run.schema.json). */
json_t *nbw_heat_record_to_json(const struct nbw_heat_record *r);

/** The launch-latency probe (--launch-probe, heat/launch.c): for every G of \p o->gpus
 *  (the first G of \p o->devices) and every launch form, \p o->reps timed passes of
 *  \p o->steps steps; appends one record per (form, G) to \p records and, when \p table
 *  is not NULL, a line to it. \p stop (may be NULL) ends it early when it returns true.
 *  \p failed counts the records with an error or a failed counter check. 0, or -1 when
 *  memory runs out. */
int nbw_heat_launch_probe(const struct nbw_heat_opts *o, const char *kind, json_t *records,
			  FILE *table, bool (*stop)(void), unsigned *failed);

/* ---- the command -------------------------------------------------------------------- */

/** `nodebw heat ...` (argv[0] is "heat"): exit status 0, 1 (a run failed verification or
 *  could not run), 2 (usage) or 130 (interrupted). */
int nbw_heat_main(int argc, char **argv);

struct nbw_device;
/** How the CUDA host threads of a run on info[0..n) waited: the scheduling flags of each CUDA
 *  device's primary context as the process's driver reports them (heat/cuda_sched.c). word
 *  is "" when no device is a CUDA device. */
void nbw_heat_cuda_sched(const struct nbw_device *info, int n, char *word, size_t wlen,
			 char *note, size_t nlen);

#endif
