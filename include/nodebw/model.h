/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Runtime models of the multi-device heat solver (doc/model.md).
 *
 * The paper's model (Eq. 7-12): t_step = k (N-2)^3; k(N) = T / (n_steps (N-2)^3) from
 * one-device runs; k-bar their mean (over all sizes, or over the three largest as the
 * paper's artifact did); one halo plane = 8 N^2 bytes moved at the bandwidth measured at that
 * size; Eq. 9 (host-staged) T = n_steps [k-bar (N-2)^3 / G + HtoD + DtoH], Eq. 10 (P2P)
 * T = n_steps [k-bar (N-2)^3 / G + P2P], Eq. 11/12 the same with max() for full overlap.
 * The transfers are those the solver crosses: Version 4's planes go between neighbours
 * i <-> i+1, so beta_P2P is that of the slowest neighbour pair; Versions 1-3 stage through
 * each device's own HtoD/DtoH, so beta_HtoD and beta_DtoH are the slowest device's among
 * 0..G-1. Without per-device or per-pair data the path's one curve stands for all.
 *
 * The extended model (ours), per step, for the device with the most work:
 *   compute   k_slab(N, G) x busy(V, G) x (N-2)^2 x P, P = ceil((N-2)/G) planes, k_slab
 *             from one-device runs of exactly that slab shape, busy the slope of the
 *             instrumented runs' per-step time (all but the halo copies, G devices at work
 *             at once) against k_slab (N-2)^2 P over the sizes;
 *   transfer  the planes the busiest host thread really moves (one neighbour at the ends,
 *             two inside; a single host thread moves every interface's planes one after the
 *             other), each at the measured time of one transfer of 8 N^2 bytes between its
 *             own devices on the version's path (alpha-beta behaviour: latency included;
 *             Version 4: the pair g -> neighbour; Versions 1-3: DtoH of g, HtoD of the
 *             neighbour), times the contention factor of
 *             concurrent copies on the bandwidth term (one stream's beta / half the
 *             two-stream aggregate beta, at least 1);
 *   overhead  launch and synchronisation per step: the intercept of that fit;
 *   overlap   Versions 2-4 overlap the interior with the halo transfers (after the boundary
 *             planes) where the runtime has somewhere to run asynchronous work (a GPU
 *             queue, or hidden helper threads): boundary + max(interior, transfer).
 */
#ifndef NODEBW_MODEL_H
#define NODEBW_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define NBW_CALIB_SCHEMA "nodebw-calibration"
#define NBW_CALIB_VERSION 1

enum nbw_kbar_rule { NBW_KBAR_ALL, NBW_KBAR_TOP3 };

/** A configuration whose rounds differ by more than this (slowest / fastest) is unstable:
 *  marked as such and left out of the models' accuracy. */
#define NBW_STABLE_SPREAD 1.2

/** One measured transfer path of the calibration ("p2p/async", "htod/sync/dual", ...). */
#define NBW_CALIB_MAX_PLANES 16

struct nbw_xpath {
	char name[32];
	double alpha_s;        /**< < 0: not given */
	double beta_gbps;      /**< <= 0: not given */
	size_t n;
	double *bytes, *seconds; /**< measured medians, ascending sizes (may be empty) */
	bool ends_known;       /**< src and dst say which devices the curve was measured on */
	int src, dst;          /**< its endpoints (OpenMP device ids, -1 = host memory) */
	/** The plane-size sweep's sizes (calibrations from results only): at each, the point
	 *  is the fastest process's median, and these say over how many processes and what the
	 *  main run's own curve gave there (interpolated when it did not measure the size). */
	size_t nplanes;
	struct nbw_xplane {
		double bytes, fastest_s, slowest_s, main_s;
		int processes;
	} planes[NBW_CALIB_MAX_PLANES];
};

/** Where the time of one device's or pair's transfer came from. */
enum nbw_xsrc {
	NBW_XSRC_GENERIC,   /**< the path's curve stands in: that device or pair was not
			         measured on its own (or the calibration has no such data) */
	NBW_XSRC_REFERENCE, /**< the path's curve, measured on exactly these endpoints */
	NBW_XSRC_OWN,       /**< the device's or pair's own size sweep */
	NBW_XSRC_ESTIMATE,  /**< matrix sizes only: the reference curve x the measured ratio */
};

/** One device's (HtoD, DtoH) or ordered pair's (P2P) single-stream measurements of a path:
 *  its own curve, or, when only the matrix sizes (the sweep's smallest and largest) were
 *  measured, the ratio of its times to the reference curve's there. The time at b is then
 *  reference(b) x r(b), r interpolated linearly in log(bytes) between the two sizes and
 *  held constant outside them (an estimate). */
struct nbw_xset {
	char path[32];         /**< "htod/async", "p2p/sync", ... */
	int src, dst;          /**< OpenMP device ids, -1 = host memory */
	bool estimate;         /**< use ratio (else own) */
	size_t nratio;         /**< 1 or 2 */
	double ratio_bytes[2]; /**< ascending */
	double ratio[2];       /**< this set's time / the reference's at ratio_bytes */
	char ratio_to[192];    /**< what the ratio was measured against */
	struct nbw_xpath own;  /**< the measured points (its curve unless estimate) */
};

/** k per interior point and step of one-device runs: cubic (planes = n - 2) or a slab. */
struct nbw_ksample {
	int n;          /**< nx = ny */
	int planes;     /**< interior planes along z */
	double k;       /**< seconds per interior point and step */
};

/** Per (version, G, N) terms from instrumented runs: the per-step time of everything but
 *  the halo copies (y) against the one-device compute time of the largest slab (x). Over
 *  the sizes, y = overhead + busy x (least squares); a hand-written calibration may give
 *  busy and overhead_s directly (x = y = 0). */
struct nbw_vsample {
	char version[8];
	int g, n;
	double x_s, y_s;     /**< per step; 0 when given by hand */
	double busy;         /**< y / x of this sample, or as given */
	double overhead_s;   /**< as given (hand-written), else 0 */
	double measured_s;   /**< the timed runs' time per step (nbw_rounds_time, or
				  nbw_paired_time for paired runs), 0 = none */
	bool paired;         /**< measured_s is speed-matched (nbw_paired_time) */
};

/** The compute-calibrated model's compute term: the time per step of Version 2 (one host thread
 *  drives every device: \p per_device false) or Version 3 (a host thread per device) on G
 *  devices of an N^3 grid without the halo copies (nodebw heat --no-exchange): the kernels,
 *  their launches and synchronisation with G devices at work at once. */
struct nbw_csample {
	bool per_device;
	int g, n;
	double step_s;
	char paired[4];  /**< "v1".."v4": timed repetition by repetition beside that version's
			  *   halo runs on the same buffers (nodebw heat --paired), and the
			  *   compute-calibrated term of that version; "" = a run of its own (the form's) */
};

/** The co-run probe (nodebw heat --corun; "corun" in the calibration): per step, the
 *  fastest round of \p at_once devices computing G's slab of an N^3 grid (N x N x
 *  (ceil((N-2)/G) + 2)) at the same time, each its own copy with the one-device code: how
 *  devices computing at once share the hardware, with no decomposition and no halo code. */
struct nbw_corun {
	bool per_device;   /**< a host thread per device (else one host thread drives all) */
	int g;             /**< the G whose slab it is */
	int at_once;       /**< devices at once: G (one host thread), min(G, CPUs) per device */
	int n;
	double step_s;
};

/** A launch-probe figure (nodebw heat --launch-probe): per step, the fastest round's median
 *  time of 2 G near-empty target regions launched as the solver's form launches its
 *  kernels, with the form's synchronisation. */
struct nbw_lsample {
	char form[12];            /**< "sync", "one-thread" (Versions 1-2), "per-device" (3-4),
				   *   "staged-copy" (per-device with Version 3's halo copies),
				   *   "direct-copy" (with Version 4's) */
	int g;
	int n;                    /**< the copy forms: the grid whose halo plane they move (8 N^2
				   *   bytes); 0 for the others */
	double step_s;
	double ci_lo_s, ci_hi_s;  /**< that round's 95 % interval of the median (0: none) */
	int rounds;               /**< rounds it is the fastest of */
};

/** A one-device run of an application's local box (nodebw heat --radius R --fields F
 *  --nx --ny --nz, the generalised solver's one-device baseline; "local_boxes" in the
 *  calibration): the fastest round's time per step. */
struct nbw_boxrun {
	int radius, fields;
	long box[3];            /**< nx, ny, nz, ghosts included */
	double step_s;
};

/** A co-run of an application's local box (nodebw heat --corun --radius R --fields F --nx
 *  --ny --nz --gpus 1,G; "local_box_coruns" in the calibration): per step, the fastest
 *  round of \p at_once devices each computing the whole box at the same time with the
 *  one-device code (no decomposition, no exchange). Boxes that are the paper's slab (radius
 *  1, one field, N x N x (ceil((N-2)/G) + 2)) are the co-run probe's (struct nbw_corun). */
struct nbw_boxcorun {
	int radius, fields;
	long box[3];            /**< nx, ny, nz, ghosts included */
	int g;                  /**< the application's device count it was co-run for */
	int at_once;            /**< devices at once: G (one host thread), min(G, CPUs) per
				 *   device */
	bool per_device;        /**< a host thread per device (else one host thread drives all) */
	double step_s;
};

/** A face probe of the OpenMP API (nodebw probe --faces; "faces" in the calibration): one
 *  face of a box copied once on one path and mode (kind "face"), or one step of the
 *  neighbour exchange of a decomposition (kind "exchange", --faces-decomp: every message at
 *  once); the fastest record's median time. */
struct nbw_facerun {
	char kind[12];          /**< "face" or "exchange" */
	long box[3];            /**< nx, ny, nz (elements, ghosts included) */
	int depth;              /**< R */
	int elem;               /**< E: element bytes */
	char face[2];           /**< "z", "y", "x" (kind "face"; "" for an exchange) */
	char method[8];         /**< "rect", "pack" */
	/** face: "htod", "dtoh" (host-staged), "p2p" (device to device); exchange: "device"
	 *  or "host-staged" */
	char path[16];
	char mode[8];           /**< "sync", "async" */
	int decomp[3];          /**< exchange: PX, PY, PZ; face: 0 */
	int fields;             /**< exchange: each face sent once per field (>= 1); face: 1 */
	double seconds;         /**< one copy of the face, or one exchange step */
};

struct nbw_calib {
	char source[512];
	char device_kind[32];     /**< of the solver's devices ("host-plugin", "cuda", ...) */
	int hidden_helpers;       /**< of the solver runs; -1 unknown */
	int host_cpus;            /**< CPUs online where the solver ran (machine.cpus_online);
				       0 unknown */
	int steps;                /**< default n_steps for predictions (0: none) */
	double kbar_given;        /**< > 0 when the file gives k-bar directly */
	struct nbw_ksample *k;    /**< cubic one-device runs (the paper's k(N)) */
	size_t nk;
	struct nbw_ksample *slab; /**< slab-shaped one-device runs */
	size_t nslab;
	struct nbw_xpath *paths;
	size_t npaths;
	struct nbw_vsample *vs;
	size_t nvs;
	struct nbw_xset *sets;    /**< per device and per ordered pair (may be none) */
	size_t nsets;
	struct nbw_csample *cs;   /**< compute-calibrated compute runs (may be none) */
	size_t ncs;
	struct nbw_lsample *launch; /**< the launch probe (may be none) */
	size_t nlaunch;
	struct nbw_corun *corun;  /**< the co-run probe (may be none) */
	size_t ncorun;
	struct nbw_boxrun *boxes; /**< one-device runs of local boxes (may be none) */
	size_t nboxes;
	struct nbw_boxcorun *boxcoruns; /**< co-runs of local boxes (may be none) */
	size_t nboxcoruns;
	struct nbw_facerun *faces; /**< face probes (may be none) */
	size_t nfaces;
	/** What the run validated: each model's MAPE against the measured solver runtimes
	 *  (include/nodebw/advice.h); NULL when the file does not say. */
	struct nbw_validation *valid;
};

void nbw_calib_free(struct nbw_calib *c);

/** The co-run of application local box \p box (radius \p radius, \p fields fields) for \p g
 *  devices in the per-device form (a host thread per device): its time per step into
 *  \p step_s, the devices that ran at once into \p at_once, and where it comes from into
 *  \p how (may be NULL). A paper's slab (radius 1, one field, N x N x (ceil((N-2)/g) + 2))
 *  is found among the co-run probe's records. 0, or -1 when the calibration has no co-run
 *  of that exact box for \p g (models/calib_boxcorun.c). */
int nbw_calib_box_corun(const struct nbw_calib *c, int radius, int fields, const long box[3],
			int g, double *step_s, int *at_once, char *how, size_t howlen);

/** k-bar by \p rule (or the given one). 0, or -1 with \p why (no samples). */
int nbw_calib_kbar(const struct nbw_calib *c, enum nbw_kbar_rule rule, double *kbar,
		   char *why, size_t whylen);

/** Time of one transfer of \p bytes on path \p name ("p2p/async"); the mode-less name
 *  ("p2p") is the fallback. \p how says where it came from. 0, or -1 with \p how saying
 *  what is missing. */
int nbw_calib_xfer_s(const struct nbw_calib *c, const char *name, double bytes, double *t,
		     char *how, size_t howlen);

/** The same between the endpoints \p src and \p dst (-1 = host memory): the device's or
 *  pair's own curve, its matrix estimate, or the path's curve when that device or pair has
 *  no data of its own; \p from (may be NULL) says which. 0, or -1 with \p how. */
int nbw_calib_xfer_ends_s(const struct nbw_calib *c, const char *name, int src, int dst,
			  double bytes, double *t, enum nbw_xsrc *from, char *how, size_t howlen);

/** The time of one copy of face \p face ("z", "y", "x") of box \p box (depth, element bytes)
 *  by \p method on \p path ("htod", "dtoh", "p2p"), from the face probes: the same shape in
 *  mode \p mode, else in the other mode (\p exact true), else the nearest measured shape of
 *  that face, method and path by face bytes, its time scaled by bytes (\p exact false).
 *  \p how says which (models/calib_faces.c). 0, or -1 when no probe of that face, method and
 *  path. */
int nbw_calib_face_s(const struct nbw_calib *c, const long box[3], int depth, int elem,
		     const char *face, const char *method, const char *path, const char *mode,
		     double *t, bool *exact, char *how, size_t howlen);
/** The step time of the neighbour exchange of decomposition \p decomp (PX, PY, PZ) of box
 *  \p box (depth, element bytes) by \p method ("rect", "pack") on \p path ("device",
 *  "host-staged"), as `nodebw probe --faces-decomp` measured it: the exact shape and
 *  decomposition only (no scaling), the asked \p mode ("sync", "async") first, else the
 *  other mode; \p how says which ("exchange 2x2x1 rect host-staged/async", "... /sync in
 *  place of async"). 0, or -1 when the calibration has none. */
int nbw_calib_exchange_s(const struct nbw_calib *c, const long box[3], int depth, int elem,
			 const int decomp[3], const char *method, const char *path,
			 const char *mode, double *t, char *how, size_t howlen);
/** The same for an exchange of \p fields fields (each face sent once per field, `nodebw
 *  probe --faces-fields`): that field count exactly. */
int nbw_calib_exchange_fields_s(const struct nbw_calib *c, const long box[3], int depth,
				int elem, const int decomp[3], int fields, const char *method,
				const char *path, const char *mode, double *t, char *how,
				size_t howlen);
/** Bytes of one copy of \p f's face (its elements x depth x element bytes, nbw_face_bytes). */
double nbw_facerun_bytes(const struct nbw_facerun *f);

/** Whether the calibration has per-device or per-pair data for path \p name. */
bool nbw_calib_has_sets(const struct nbw_calib *c, const char *name);

/** "own sweep", "matrix estimate", ... */
const char *nbw_xsrc_name(enum nbw_xsrc s);

/* ---- predictions -------------------------------------------------------------------- */

struct nbw_paper_pred {
	const char *equation;     /**< "Eq. 9" or "Eq. 10" */
	double kbar;
	double compute_s;         /**< n_steps k-bar (N-2)^3 / G */
	double transfer_s;        /**< n_steps (HtoD + DtoH) or n_steps P2P */
	double beta_gbps[2];      /**< HtoD, DtoH or P2P (second 0) at the plane size */
	double total_s;           /**< Eq. 9/10 */
	double overlap_s;         /**< Eq. 11/12 */
	int bound_src, bound_dst; /**< the bounding pair (Eq. 10) or device (Eq. 9: src = dst) */
	enum nbw_xsrc bound_from; /**< where its times came from */
	char bound[320];          /**< "slowest neighbour pair 1->2 of 0<->1, 1<->2 (...)" */
};

struct nbw_ext_pred {
	double k_slab, busy;
	int planes;               /**< planes of the largest slab */
	double compute_s;         /**< whole run */
	int xfers;                /**< transfers per step of the busiest host thread */
	double xfer_one_s;        /**< one plane on the path(s), summed over the hops */
	double contention;        /**< factor >= 1 (1 when not concurrent or unknown) */
	double transfer_s;        /**< whole run */
	double overhead_s;        /**< whole run */
	bool overlap;
	double total_s;
	int busiest;              /**< device of the busiest host thread (-1: one thread) */
	double interaction;       /**< fitted: f of measured step = f x compute-calibrated step +
				       interaction_step_s, f = (1 + the other sizes' median
				       measured / compute-calibrated step) / 2 (0: fitted from the
				       instrumented phases instead) */
	double interaction_step_s; /**< fitted: half the other sizes' median measured -
				       compute-calibrated step, seconds per step */
	int interaction_sizes;    /**< the sizes the interaction was fitted on */
	double oversub;           /**< compute-calibrated: the busiest thread's copies share a core with
				       oversub - 1 other host threads (host plugin, Versions 3-4
				       with G > host_cpus: G / host_cpus; else 1) */
	bool copy_probe;          /**< compute-calibrated: the transfer term is the launch probe's copy
				       form's step less its per-device step (Versions 3-4), not
				       the transfer curves x oversub */
	double launch_s;          /**< compute-calibrated, whole run: the launch probe's steps where the
				       compute was carried over from other sizes (0: the
				       compute-only run of this N, or no launch probe) */
	char bound[320];          /**< whose transfers these are, and where they came from */
	char compute_from[160];   /**< one-device model: where its compute came from */
};

/** The paper's model for version \p v ("v1".."v4") on \p g devices, grid N, \p steps. */
int nbw_predict_paper(const struct nbw_calib *c, enum nbw_kbar_rule rule, int n, int g,
		      const char *v, int steps, struct nbw_paper_pred *out, char *why,
		      size_t whylen);

/** The fitted model; the samples of size \p exclude_n are left out of the multi-device
 *  terms (leave-one-out validation), 0 = use all. With the compute-calibrated model available: the
 *  mean of two one-term interactions fitted on the other sizes' timed runs, the compute-calibrated
 *  step x their median measured / compute-calibrated ratio r and the compute-calibrated step + their median
 *  difference d, written as step = f x compute-calibrated step + o (\p out->interaction =
 *  f = (1 + r) / 2, \p out->interaction_step_s = o = d / 2); \p out->overhead_s holds the
 *  difference from the compute-calibrated prediction, negative when the runs were faster. Otherwise k_slab x busy + overhead, the least-squares
 *  line through the instrumented runs' per-step time without the halo copies. */
int nbw_predict_ext(const struct nbw_calib *c, int n, int g, const char *v, int steps,
		    int exclude_n, struct nbw_ext_pred *out, char *why, size_t whylen);

/** The compute-calibrated model: the extended model's transfer, contention and overlap terms with
 *  the compute of G devices at once measured without the halo copies (compute_only: v2 for
 *  Versions 1-2, v3 for Versions 3-4) instead of busy and overhead fitted on instrumented
 *  runs of the versions. \p out->busy is the measured compute over the one-device slab's;
 *  overhead_s is 0 (the compute-only runs hold the launches and synchronisation). */
int nbw_predict_compcal(const struct nbw_calib *c, int n, int g, const char *v, int steps,
			struct nbw_ext_pred *out, char *why, size_t whylen);
/** The one-device model (doc/model.md): the compute-calibrated model's transfer, contention
 *  and overlap terms, with the compute of G devices built from one-device measurements
 *  only: the one-device slab run, the co-run probe (G one-device runs at once; without it,
 *  the device kind's sharing rule) and the launch probe. No run of Versions 1-4 enters it.
 *  \p out->busy is its compute over the one-device slab's, \p out->compute_from says
 *  what the compute came from, \p out->launch_s the launch probe's part. */
int nbw_predict_onedev(const struct nbw_calib *c, int n, int g, const char *v, int steps,
		       struct nbw_ext_pred *out, char *why, size_t whylen);

/** The compute-only baseline: the step is the measured compute-only run of exactly this
 *  version's form (its own paired half where measured), G and N, x \p steps. 0, or -1
 *  when the calibration has no such run. */
int nbw_predict_compute_only(const struct nbw_calib *c, int n, int g, const char *v, int steps,
			     double *total_s);

/** The launch probe's step of the form a version launches with ("one-thread" for the v2
 *  form, "per-device" for the v3 form) on \p g devices; 0 when not measured. */
double nbw_calib_launch_step(const struct nbw_calib *c, bool per_device, int g);

/* ---- calibration files -------------------------------------------------------------- */

/** Build a calibration from merged results (transfer curves of the OpenMP API and solver
 *  runs). \p transfers_api: "omp". 0, or -1 with \p err. */
struct nbw_rinput;
int nbw_calib_from_results(const struct nbw_rinput *in, struct nbw_calib *c, char *err,
			   size_t errlen);
json_t *nbw_calib_to_json(const struct nbw_calib *c);
/** A solver run's runtime for the models: its fastest repetition (background load only
 *  slows a repetition down; configurations take their fastest round). */
double nbw_solver_run_seconds(json_t *run);
/** A configuration's time over the rounds of nodebw run (\p sec: each round's run time,
 *  sorted in place): the fastest round, since background load only ever adds time (the
 *  minimum is the estimate that repeats; doc/model.md); \p spread (may be NULL) = the
 *  slowest of the NBW_ROUNDS_CORE fastest rounds (all when fewer) / the fastest, which
 *  says whether the fastest is a floor the rounds keep reaching or a lone value. */
#define NBW_ROUNDS_CORE 3
double nbw_rounds_time(double *sec, size_t n, double *spread);
/** The halo runs timed beside their compute-only halves (nodebw heat --paired), pooled
 *  over the rounds of one configuration: each repetition's ratio halo / compute-only (the
 *  two ran back to back on the same buffers, so at nearly the same machine speed) and the
 *  fastest compute-only repetition of all rounds. Zeroed = empty. */
struct nbw_paired {
	double *ratio;
	size_t n;
	double compute_s;       /**< fastest compute-only repetition (n > 0) */
};
/** Add run \p run (a results record) when it is a paired halo run; 0, or -1 out of memory. */
int nbw_paired_add(struct nbw_paired *p, json_t *run);
/** The speed-matched time: the fastest compute-only repetition x the median ratio, that is
 *  the halo run at the machine speed of the compute-only floor (doc/model.md); \p spread
 *  (may be NULL) = hi / lo of the median ratio's distribution-free NBW_CI_LEVEL interval
 *  (nbw_median_ci), its stability as NBW_STABLE_SPREAD judges it. NAN when \p p has no
 *  pairs. Sorts the ratios. */
double nbw_paired_time(struct nbw_paired *p, double *spread);
void nbw_paired_free(struct nbw_paired *p);
/** One solver configuration whose rounds differ by more than NBW_STABLE_SPREAD. */
struct nbw_unstable {
	char version[12];       /**< "v1".."v4", "baseline", "corun" */
	char launch[8];         /**< the baseline's launch: "nowait" for the slab runs */
	int g, nx, ny, nz, steps, rounds;
	int slab_g;             /**< the co-run probe's slab G (or the G a box was co-run
				 *   for); 0: not the co-run probe */
	int radius, fields;     /**< the solver's (1, 1: the paper's stencil) */
	bool no_exchange;       /**< the compute-only half */
	double spread;
};
/** The unstable configurations of \p runs (nodebw run's solver_runs), for nodebw run to
 *  measure again: how many, into \p out (malloc'ed, NULL when none); -1 when out of
 *  memory. */
long nbw_solver_unstable(json_t *runs, struct nbw_unstable **out);
/** Add the one-device runs, co-run probes and launch probes of results documents \p docs
 *  (`nodebw heat`'s results.json, one per round) to \p c as nbw_calib_from_results reads
 *  them (a configuration: its fastest round); the calibration's device kind, hidden helpers
 *  and steps stay. 0, or -1 out of memory (nodebw predict --measure). */
int nbw_calib_add_solver_docs(struct nbw_calib *c, json_t *const *docs, size_t ndocs);
/** Add the OpenMP face probes of results document \p doc (`nodebw probe --faces`) to \p c's
 *  "faces" (models/calib_faces.c). 0, or -1 out of memory. */
int nbw_calib_add_face_doc(struct nbw_calib *c, json_t *doc);
/** The run's application-model validation (results \p doc's "app_validation") copied into
 *  calibration document \p j's "validation" as "applications" (nothing when none). */
void nbw_calib_app_validation_json(json_t *j, json_t *doc);
/** Read a calibration file: file:line:col for malformed JSON, file: key for bad fields. */
int nbw_calib_load(const char *path, struct nbw_calib *c, char *err, size_t errlen);
/** The same on a calibration already in memory (\p len bytes; \p path names it in errors):
 * what nbw_calib_load runs once nbw_readfile has read the file, and what the fuzz target
 * feeds. */
int nbw_calib_load_buffer(const char *path, const char *text, size_t len, struct nbw_calib *c,
			  char *err, size_t errlen);

#endif
