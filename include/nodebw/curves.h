/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief What the models and the report read (models/): the results files merged for one
 * report or calibration, the measured transfer curves of each path, and their alpha-beta fits.
 *
 * - rinput.c: loading and merging results files;
 * - curves.c: the measured transfer series of each path (api, direction, mode, host memory,
 *   concurrency, peer access) over sizes, and the bandwidth at any size by interpolation;
 * - fit.c: t(n) = alpha + n / beta per path (GSL weighted least squares), n_1/2.
 */
#ifndef NODEBW_CURVES_H
#define NODEBW_CURVES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
/* ---- transfer curves ---------------------------------------------------------------- */

/** What identifies one measured path; strings as in results.json. */
struct nbw_curve_key {
	char api[16];        /**< "omp", "cuda", "host", ... */
	char dir[8];         /**< "htod", "dtoh", "p2p" */
	char mode[12];       /**< "sync", "async", "nowait", "parallel" */
	char host_mem[16];   /**< "pageable", "pinned", "registered", "none" */
	char conc[8];        /**< "single", "dual", "bidir" */
	char peer[12];       /**< "n/a", "enabled", "disabled" */
	char bind[8];        /**< "local", "remote", "none", "" when not recorded */
	int hidden_helpers;  /**< as measured; -1 for native APIs */
	char sweep[24];      /**< the hidden-helper sweep's label ("hht-0"), "planes" for the
				  plane-size sweep (every process), "" for the main run */
	char devices[24];    /**< the streams' endpoints, e.g. "h->0", "0->1", "0->1,1->0" */
};

struct nbw_curve_point {
	double bytes;              /**< bytes of one transfer (per stream) */
	double seconds;            /**< median wall time of one repetition (all streams) */
	double gbps;               /**< median aggregate GB/s (1e9 B/s) */
	double gbps_min, gbps_max; /**< over the repetitions */
	double overlap_speedup;    /**< two streams: serial estimate / concurrent; 0 if none */
	/** The 95 % confidence interval of the median GB/s (median_ci) and its relative
	 *  half-width in percent; NaN in a document written before it. */
	double ci_lo_gbps, ci_hi_gbps, ci_half_width_pct;
	int converged;             /**< the repetitions met the interval's target: 1, 0, -1 unknown */
	char stop[48];             /**< why the repetitions stopped; "" when unknown */
	/** The plane-size sweep (sweep "planes"): the processes that measured this size; the
	 *  point is the fastest process's median, proc_slowest_s the slowest's. 0 elsewhere. */
	int processes;
	double proc_slowest_s;
	/** Minor page faults of one repetition (results.json `minor_faults_per_rep`, getrusage
	 *  over the repetitions); NaN when not recorded. */
	double minor_faults_per_rep;
};

struct nbw_curve {
	struct nbw_curve_key key;
	int streams;                /**< 1, or 2 for dual and bidir */
	char link[64];              /**< topology label ("PCIe Gen5 x16", "host memory, no link") */
	double theoretical_gbps;    /**< < 0: unknown */
	size_t n;                   /**< points, sorted by bytes */
	struct nbw_curve_point *pt;
	int file;                   /**< index of the results file it came from */
};

struct nbw_curves {
	struct nbw_curve *c;
	size_t n;
};

/** Group the verified, error-free measurements of \p measurements (array of a results
 *  document) into curves; several files can be added with their index. 0 or -1 (memory). */
int nbw_curves_add(struct nbw_curves *cs, json_t *measurements, int file);
/** The same with the matrix cells of a whole-node run too (every device and pair at the
 *  matrix sizes, each its own curve): what the fleet comparison compares. */
int nbw_curves_add_cells(struct nbw_curves *cs, json_t *measurements, int file);
void nbw_curves_free(struct nbw_curves *cs);

/** The first curve matching the non-NULL fields (NULL or "" = any; hidden_helpers < -1 = any). */
const struct nbw_curve *nbw_curves_find(const struct nbw_curves *cs, const char *api,
					const char *dir, const char *mode, const char *host_mem,
					const char *conc);

/** Median seconds of one repetition at \p bytes: linear interpolation of t(n) between the
 *  two measured sizes around \p bytes; outside the measured range the nearest point scaled
 *  with the fitted alpha-beta line when there is one. Negative when the curve is empty.
 *  \p how (may be NULL) says "measured", "interpolated 1.0 MB..2.1 MB" or "extrapolated". */
double nbw_curve_seconds_at(const struct nbw_curve *c, double bytes, char *how, size_t howlen);

/* ---- alpha-beta fit ----------------------------------------------------------------- */

struct nbw_abfit {
	bool ok;
	double alpha_s;          /**< latency: t(0) */
	double beta_gbps;        /**< asymptotic bandwidth, GB/s (1e9 B/s) */
	double n_half_bytes;     /**< alpha * beta: size that reaches half of beta */
	double max_rel_resid;    /**< largest |t_fit - t| / t over the points */
	size_t n;                /**< points used */
	char why[96];            /**< when !ok */
	/* Set by nbw_abfit_range (nbw_abfit: the whole set). */
	double lo_bytes, hi_bytes;  /**< the smallest and largest size of the points used */
	size_t n_all;               /**< points given */
	double max_rel_resid_all;   /**< largest relative residual over every point given */
	double peak_gbps;           /**< highest measured bandwidth, bytes / seconds */
	double peak_bytes;          /**< its size */
	bool describes;             /**< max_rel_resid <= NBW_ABFIT_HOLDS over the points used */
	bool beta_above_peak;       /**< beta more than 5 % above every measured size */
};

/** A line describes a path when every point it was fitted on is within this relative
 *  residual. */
#define NBW_ABFIT_HOLDS 0.20

/** Fit t = alpha + n / beta to \p n points (bytes, seconds) by least squares on relative
 *  residuals (weights 1/t^2, GSL); alpha is held at 0 when the free fit makes it negative.
 *  Needs two distinct sizes. Returns 0 or -1 (out->why says why). */
int nbw_abfit(const double *bytes, const double *seconds, size_t n, struct nbw_abfit *out);
/** The fit over the sizes where the model holds: beta is what large transfers get, so the
 *  fit runs from the smallest size at which every point up to the largest size stays
 *  within NBW_ABFIT_HOLDS of its line (at least three sizes, or all when fewer; on host
 *  memory the small sizes that live in the caches fall outside); when no such run exists,
 *  the fit over all points with \p describes false. Also reports the peak measured
 *  bandwidth and whether beta lies above it. */
int nbw_abfit_range(const double *bytes, const double *seconds, size_t n,
		    struct nbw_abfit *out);
/** nbw_abfit_range on a curve's points. */
int nbw_abfit_curve_range(const struct nbw_curve *c, struct nbw_abfit *out);
/** The same on a curve's points. */
int nbw_abfit_curve(const struct nbw_curve *c, struct nbw_abfit *out);

/* ---- results files ------------------------------------------------------------------ */

struct nbw_calib;

/** Results files merged for one report. */
struct nbw_criteria;

struct nbw_products;

struct nbw_rinput {
	size_t nfiles;
	const char **paths;
	json_t **docs;          /**< the loaded documents */
	json_t *devices;        /**< all files' devices (each with "file": index) */
	json_t *measurements;   /**< all files' measurements (each with "file": index) */
	json_t *solver_runs;    /**< all files' solver runs (each with "file": index) */
	struct nbw_curves curves;
	/** The calibration of these results (include/nodebw/model.h), derived once when they
	 *  are loaded, for calibration.json, the report and the summary alike; NULL when it
	 *  cannot be derived, with the reason in calib_err. */
	struct nbw_calib *calib;
	char calib_err[400];
	/** The criteria the report's verdicts judge by (include/nodebw/verdict.h), set by the
	 *  command; NULL: the theoretical figures only. Not owned. */
	const struct nbw_criteria *criteria;
	/** Each file's derived products (include/nodebw/products.h), derived from its
	 *  measurements the first time they are asked for (nbw_rinput_products), never taken
	 *  from a copy an older run stored; nfiles entries, owned. */
	struct nbw_products **products;
};

/** The derived products of file \p f of \p in, derived once (the first call) and kept;
 *  NULL when out of memory. */
const struct nbw_products *nbw_rinput_products(const struct nbw_rinput *in, size_t f);

/** Load and merge results files and derive their calibration (nbw_rinput_calibrate); on
 *  error \p err names the file, line and column. */
int nbw_rinput_load(struct nbw_rinput *in, const char *const *paths, size_t n, char *err,
		    size_t errlen);
/** Derive \p in's calibration into in->calib (or in->calib_err), dropping one it had: for
 *  a subset of loaded results (one file's solver runs). 0, or -1 when out of memory. */
int nbw_rinput_calibrate(struct nbw_rinput *in);
/** Free in->calib. */
void nbw_rinput_uncalibrate(struct nbw_rinput *in);
void nbw_rinput_free(struct nbw_rinput *in);

#endif
