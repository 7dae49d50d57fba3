/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Typed views of a results document (doc/results-schema.md).
 *
 * The results module (common/results.c writes the document, common/results_view*.c read it)
 * is the only code that knows the document's keys. The analyses, the models, the report,
 * the fleet comparison and the commands read a measurement, a device, a solver run or the
 * document's head through these views, never through the keys.
 *
 * A view borrows the document: its strings and its \c j pointer live as long as the JSON it
 * was read from. A field the document lacks reads as "" (strings), NaN (figures), -1
 * (counts and ids) or false, as each field says; reading never fails on a missing key.
 */
#ifndef NODEBW_RESULTS_VIEW_H
#define NODEBW_RESULTS_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodebw/probe.h"

#define NBW_RV_LINK_LEN 96
#define NBW_RV_MAX_STREAMS NBW_MAX_STREAMS

/* ---- devices ----------------------------------------------------------------------- */

/** One element of the document's "devices". */
struct nbw_rv_device {
	json_t *j;
	const char *api, *name, *kind, *pci_bus_id;
	int id;                 /**< nodebw's device number; -1 absent */
	int runtime_id;         /**< the runtime's own number; -1 absent */
	int file;               /**< the results file it came from (merged inputs); -1 */
	int is_gpu;             /**< 1, 0, -1 unknown */
	/** A host-plugin device, a host region or a device marked not a GPU: host memory. */
	bool host_memory;
	const char *memory;     /**< what the backend says of its memory; "" */
	/** The native device the gap table matched an OpenMP device with (analysis/gap.c
	 *  writes it): its API ("" when none) and id (-1). */
	const char *native_api;
	int native_id;
	const char *native_by;  /**< how they were matched; "" */
};

/** Fill \p out from \p d; false when \p d is not an object. */
bool nbw_rv_device_read(json_t *d, struct nbw_rv_device *out);
/** The device's PCI IDs (its "pci_id", read from sysfs when it was measured) as
 *  "vvvv:dddd:ssss:ssss" (vendor, device, subsystem vendor and device; "vvvv:dddd" when the
 *  subsystem is unknown), lower-case hex; false and "" when the document has none (a
 *  host-plugin device, or a file written before nodebw recorded them). */
bool nbw_rv_device_pci_id(const struct nbw_rv_device *d, char *out, size_t len);
/** The device of \p api numbered \p id in \p devices (an array of devices); false when
 *  there is none (\p out then reads as absent). \p out may be NULL. */
bool nbw_rv_device_find(json_t *devices, const char *api, int id, struct nbw_rv_device *out);

/* ---- measurements ------------------------------------------------------------------ */

/** One host thread's copies of a measurement. */
struct nbw_rv_stream {
	int src, dst;           /**< a device id; -1 = host */
	double gbps;            /**< this stream's median GB/s; NaN */
	double alone_gbps;      /**< DUAL/BIDIR: the same copy alone; NaN */
};

/** One element of the document's "measurements". */
struct nbw_rv_meas {
	json_t *j;
	/* The path it measured. */
	const char *api, *probe, *direction, *mode, *host_mem, *concurrency;
	const char *path;       /**< what was between source and destination; "" */
	const char *peer_access; /**< "" when not a P2P measurement */
	const char *bind;       /**< binding.policy: "local", "remote", "none"; "" when absent */
	const char *size_set;   /**< "matrix": a whole-node matrix cell; "sweep" or "" */
	const char *hht_sweep;  /**< non-empty: a point of the hidden-helper sweep */
	bool plane_sweep;       /**< a point of the plane-size sweep (its own processes) */
	int hidden_helpers;     /**< libomp's helper threads; -1: not OpenMP or unknown */
	int file;               /**< the results file it came from (merged inputs); -1 */
	long long bytes;        /**< of one transfer; -1 absent */
	int nstreams;
	struct nbw_rv_stream streams[NBW_RV_MAX_STREAMS];
	int src, dst;           /**< stream 0's ends (a device id, -1 = host; -1 without streams) */
	/* Its outcome. */
	const char *error;      /**< NULL when the measurement succeeded */
	const char *verify_status; /**< "passed", "failed", "not-run"; "" */
	const char *verify_detail;
	const char *stop;       /**< why the repetitions stopped; "" */
	double gbps, seconds;   /**< medians; NaN */
	double gbps_min, gbps_max; /**< NaN */
	double ci_lo_gbps, ci_hi_gbps; /**< the median's confidence interval in GB/s; NaN */
	double ci_half_width_pct; /**< NaN */
	int converged;          /**< 1, 0, -1 unknown */
	bool time_capped;
	int reps, warmup;       /**< -1 */
	double first_rep_s;     /**< NaN when unknown (0 in the document) */
	double minor_faults_per_rep; /**< NaN when unknown */
	double elapsed_s;       /**< NaN */
	double overlap_speedup; /**< concurrent copies: serial estimate / concurrent; NaN */
	const char *overlap_verdict; /**< "" */
	/* Where it ran, from the document's devices and the measurement's topology. */
	double theoretical;     /**< GB/s the link could give; < 0 unknown or no link */
	/** The document's own figure and link, before the host-memory and same-device
	 *  corrections above (NaN and "" when absent). */
	double theoretical_recorded;
	const char *link_recorded;
	const char *bytes_counting; /**< how its bytes are counted; "" */
	bool same_device;       /**< P2P with src = dst: not a peer link */
	bool host_memory;       /**< an end is host memory (host-plugin device, host region) */
	char link[NBW_RV_LINK_LEN]; /**< the link, NBW_SAME_DEVICE_LABEL or NBW_HOST_MEMORY_LABEL */
	/* The chase mode (a latency, not a bandwidth: its GB/s figures mean nothing). */
	bool chase;             /**< mode "chase" */
	double chase_latency_ns; /**< ns per dependent load; NaN */
	double chase_overhead_us; /**< launch and wait of one transfer; NaN */
	long long chase_loads;  /**< loads of the short chain; -1 */
	/** A face probe (`--faces`: a "shape"); nbw_rv_meas_usable is false for every one,
	 *  they are read through nbw_rv_face_read. */
	bool face;
};

/** A face probe's shape (`nodebw probe --faces`; doc/results-schema.md "shape"). */
struct nbw_rv_face {
	unsigned box[3];        /**< nx, ny, nz */
	unsigned depth;         /**< R */
	unsigned element_bytes; /**< E */
	const char *face;       /**< "z", "y", "x": the (first) message's face */
	const char *method;     /**< "rect", "pack" */
	const char *kind;       /**< "face", "exchange-line", "exchange-grid",
				     "exchange-decomp" (concurrency) */
	/** "host-staged" or "device": the shape's "path" where it has one (exchange-decomp),
	 *  else from the direction (HtoD, DtoH host-staged; P2P device) */
	const char *exchange;
	int decomp[3];          /**< exchange-decomp: PX, PY, PZ ("decomp"); else 0 */
	long long face_bytes;   /**< one message: the face's elements x E */
	long long step_bytes;   /**< every message of the measurement */
	int messages;           /**< streams: 1, or the exchange's messages */
	int fields;             /**< exchange-decomp: each face sent once per field; else 1 */
	double seconds;         /**< median time of one copy or one exchange step; NaN */
	double gbps;            /**< step_bytes / seconds / 1e9, the median; NaN */
};
/** The shape of \p x when it is a face probe (false otherwise, \p out zeroed). */
bool nbw_rv_face_read(const struct nbw_rv_meas *x, struct nbw_rv_face *out);

/** Fill \p out from \p m, with \p devices (the document's "devices", may be NULL) telling
 *  which ends are host memory; false when \p m is not an object. */
bool nbw_rv_meas_read(json_t *devices, json_t *m, struct nbw_rv_meas *out);
/** Verified (status "passed"), no error: its figures can be used. */
bool nbw_rv_meas_verified(const struct nbw_rv_meas *x);
/** What analyses and curves take: verified, one stream at least, a size, not a point of the
 *  hidden-helper sweep (that sweep is reported on its own), not a chase (a latency). */
bool nbw_rv_meas_usable(const struct nbw_rv_meas *x);
/** A chase measurement with its latency: verified, one stream at least, a size, not a
 *  point of the hidden-helper sweep. (nbw_rv_meas_usable is false for every chase: the
 *  bandwidth readers never see one.) */
bool nbw_rv_meas_chase_usable(const struct nbw_rv_meas *x);
/** The interval of the median GB/s (\p lo, \p hi): the document's median_ci, or for a
 *  document written before measurements kept one, the same order statistics of its samples
 *  (samples_s) at NBW_CI_LEVEL; false, both NaN, when there is neither. */
bool nbw_rv_meas_ci_gbps(const struct nbw_rv_meas *x, double *lo, double *hi);
/** Stream \p i's ends as "0->1", "h->2" (host = h) joined by commas into \p buf. */
void nbw_rv_meas_ends(const struct nbw_rv_meas *x, char *buf, size_t len);

/* ---- solver runs ------------------------------------------------------------------- */

/** The time phases of an instrumented solver run (seconds); all NaN when not instrumented. */
struct nbw_rv_phases {
	double interior, boundary, halo, sync, total;
};

/** One element of the document's "solver_runs" (doc/solver-run.schema.json). */
struct nbw_rv_solver_run {
	json_t *j;
	const char *version;    /**< "serial", "v1".."v8" names as heat writes them; "" */
	const char *launch, *device_kind, *halo_path, *kernels;
	const char *purpose;    /**< why run launched it ("calibration", "validation",
				 *   "compute-only"; files' older "a-priori" reads as
				 *   "compute-only"); "" */
	const char *corun;      /**< version "corun": "one-thread" or "per-device"; "" */
	int corun_slab_g;       /**< version "corun": the G whose slab it ran; 0 */
	int g;                  /**< devices; 0 absent */
	int nx, ny, nz;         /**< the grid; 0 absent */
	int cubic_n;            /**< N of an N^3 grid; 0 when not cubic */
	int steps, warmup_steps; /**< 0 absent */
	int hidden_helpers, host_threads; /**< -1 */
	int round;              /**< run's solver round; -1 */
	int file;               /**< the results file (merged inputs); -1 */
	bool no_exchange;       /**< "exchange": "none", the compute-only twin */
	bool paired;            /**< ran interleaved with a partner (speed-matched rounds) */
	const char *partner;    /**< the partner's exchange ("none", "halo"); "" */
	bool instrumented;
	double seconds, seconds_per_step; /**< NaN */
	/** Its fastest repetition (samples_s), or seconds without samples: background load
	 *  only ever slows a repetition, so the fastest is the undisturbed time. NaN. */
	double fastest_s;
	double roofline_gbs;    /**< the memory bandwidth its roofline used; NaN */
	struct nbw_rv_phases phases;
	const char *error;      /**< NULL when it ran */
	const char *verify_status; /**< "passed", "failed", "reference", ...; "" */
	const char *verify_detail;
};

bool nbw_rv_solver_read(json_t *r, struct nbw_rv_solver_run *out);
/** Ran, verified (or the serial reference) and timed (seconds > 0): models and
 *  comparisons may use it. */
bool nbw_rv_solver_ok(const struct nbw_rv_solver_run *r);
/** Its repetitions' seconds ("samples_s", or \p partner's "paired.partner_samples_s") into a
 *  malloc'd \p out (NULL when none); returns how many. A non-number reads as NaN, so
 *  that repetition i of a run and of its partner stay side by side. */
size_t nbw_rv_solver_samples(const struct nbw_rv_solver_run *r, bool partner, double **out);

/** A solver run's configuration ("config"; common/results_view_solver_config.c). */
struct nbw_rv_solver_config {
	int radius, fields;     /**< stencil radius and fields; 1 in older files */
	int decomp[3];          /**< the devices' grid; [1, 1, G] in older files */
	const char *exchange;   /**< "host-staged", "device", "none"; "" in older files */
	const char *copy;       /**< "rect", "pack", "none"; "" in older files */
	bool overlap;
	long long halo_bytes_per_step; /**< every field's face copies per step; -1 absent */
	int app_element_bytes;  /**< nodebw heat --app: the app's element bytes; 0 */
};
/** Fill \p out; false when the record has no "config" (an older file: the defaults). */
bool nbw_rv_solver_config(const struct nbw_rv_solver_run *r, struct nbw_rv_solver_config *out);

/** One device's box of a solver run ("subdomains"; the slabs of older files). */
struct nbw_rv_subdomain {
	int device, index[3], begin[3], interior[3], local_shape[3];
};
/** Up to \p max subdomains into \p out; how many. */
size_t nbw_rv_solver_subdomains(const struct nbw_rv_solver_run *r, struct nbw_rv_subdomain *out,
				size_t max);

/* ---- the document's head ----------------------------------------------------------- */

/** What a results document says about itself and the node. */
struct nbw_rv_doc {
	json_t *j;
	const char *state;      /**< "complete", "running", "killed", "failed"; "" */
	const char *state_detail;
	const char *created;    /**< UTC, ISO 8601; "" */
	const char *tool_version, *hostname, *cpu_model;
	const char *tool_revision; /**< the git revision of the nodebw that wrote it; "" */
	int schema_version;     /**< -1 */
	/* The machine (its "machine" object). */
	const char *kernel, *arch;
	double memory_total_bytes; /**< NaN */
	int cpus_online, cpus_allowed; /**< -1 */
	bool solver_runs_malformed; /**< "solver_runs" is there but not an array */
	int rounds_run;         /**< run's solver rounds (solver.rounds_run); -1 */
	json_t *devices, *measurements, *solver_runs, *skipped; /**< arrays or NULL */
	bool interrupted;
	bool plane_sweep;       /**< the run made a plane-size sweep */
	json_t *command;        /**< argv as an array, or NULL */
	json_t *launch_probe;   /**< run's launch-probe records (an array), or NULL */
	json_t *solver;         /**< run's solver stage (an object), or NULL */
	json_t *solver_children; /**< its child processes (nbw_rv_child_read), or NULL */
	json_t *topology, *machine, *disturbance; /**< objects or NULL */
	json_t *software;       /**< the software object (compiler, backends), or NULL */
	json_t *gaps;           /**< the gap table the run stored (analysis/gap.c's), or NULL */
	/* The disturbance record (common/disturb.c, tools/run.c). */
	json_t *environment;    /**< nbw_rv_env_read, or NULL */
	json_t *stages;         /**< nbw_rv_stage_read each, or NULL */
	json_t *speed_reference; /**< the speed reference's points (common/speedref.c), or NULL */
	const char *speed_reference_method; /**< "" */
};

bool nbw_rv_doc_read(json_t *root, struct nbw_rv_doc *out);

/** One element of the document's "skipped": what was not measured, and why. */
struct nbw_rv_skip {
	const char *api, *probe, *what, *reason;
};
bool nbw_rv_skip_read(json_t *s, struct nbw_rv_skip *out);

/** What the machine was like as the run started (the disturbance record's environment). */
struct nbw_rv_env {
	int cpus_online, kdamond_threads; /**< 0 when absent */
	const char *thp_enabled, *thp_defrag, *cpufreq_governors;
};
bool nbw_rv_env_read(json_t *e, struct nbw_rv_env *out);

/** What else used the machine during one stage (NaN: the counter was unavailable). */
struct nbw_rv_stage {
	const char *stage;
	double seconds, load_avg_start, load_avg_end;
	double other_cpu_share, steal_share, kdamond_share; /**< fractions of the CPUs */
	double reclaim_scanned, reclaim_direct_scanned, compact_stalls, thp_faults; /**< pages */
	bool disturbed;
	json_t *reasons;        /**< an array of strings, or NULL */
};
bool nbw_rv_stage_read(json_t *s, struct nbw_rv_stage *out);

/** One point of the machine speed reference. */
struct nbw_rv_speedpoint {
	const char *at;         /**< when it was taken ("start", "after probe", "solver round 3") */
	const char *error;      /**< NULL when it was measured */
	double elapsed_s, core_ns_per_step, cache_gbps, memory_gbps; /**< NaN */
};
bool nbw_rv_speedpoint_read(json_t *p, struct nbw_rv_speedpoint *out);

/** One record of run's launch probe (nbw_rv_doc.launch_probe). */
struct nbw_rv_launch {
	const char *form;       /**< the launch form measured */
	int g, n;               /**< devices; N of a copy form (0) */
	double step_s, ci_lo_s, ci_hi_s; /**< the median step and its interval; NaN */
	bool ok;                /**< no error, verification passed, a step time */
};
bool nbw_rv_launch_read(json_t *r, struct nbw_rv_launch *out);

/** One child process of run's solver stage (nbw_rv_doc.solver_children). */
struct nbw_rv_child {
	int round;              /**< -1 */
	const char *purpose;
	int exit_status;        /**< 0 when absent */
};
bool nbw_rv_child_read(json_t *c, struct nbw_rv_child *out);

/* The document's topology block (topology/json.c writes it) and software block, as fields
 * (common/results_view_topo.c). Strings borrowed ("" when absent), numbers NAN or -1. */
struct nbw_rv_topo_host {
	const char *hostname, *origin, *cpu_model;
	long long packages, numa_nodes, cores, pus;
};
struct nbw_rv_topo_source {
	const char *name, *detail;
	bool ok;
};
struct nbw_rv_topo_device {
	const char *id, *kind, *name, *link_type, *link_note;
	double link_gbps;      /**< the host link's theoretical GB/s */
	int numa_node;         /**< -1: not known */
	bool link_has_current; /**< the host link records its trained width and speed */
	char link_current[32], link_max[32]; /**< "Gen5 x16", or "none" */
};
struct nbw_rv_topo_pair {
	const char *a, *b, *label, *kind, *basis;
	double gbps;
};
void nbw_rv_topo_host(json_t *topo, struct nbw_rv_topo_host *out);
bool nbw_rv_topo_source(json_t *topo, size_t i, struct nbw_rv_topo_source *out);
bool nbw_rv_topo_device(json_t *topo, size_t i, struct nbw_rv_topo_device *out);
bool nbw_rv_topo_pair(json_t *topo, size_t i, struct nbw_rv_topo_pair *out);

struct nbw_rv_software {
	const char *compiler, *build, *offload_targets;
};
void nbw_rv_software(json_t *sw, struct nbw_rv_software *out);
/** Backend \p i of the software block: its API and the version it reports ("" if none). */
bool nbw_rv_software_backend(json_t *sw, size_t i, const char **api, const char **version);

#endif
