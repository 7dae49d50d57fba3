/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Which model to trust for a prediction, and where a prediction leaves what was
 * calibrated (doc/model.md, "Which model to trust" and "Outside the calibration").
 *
 * The validation is the run's own: the MAPE of each model against the measured solver
 * runtimes per (G, version), as the report's accuracy table computes it (report/
 * model_report.c, nbw_model_summary). `nodebw run` stores it in calibration.json under
 * "validation" (models/calib_valid.c); `nodebw predict --results` takes it from a results
 * file through the same function. Nothing here computes a MAPE.
 */
#ifndef NODEBW_ADVICE_H
#define NODEBW_ADVICE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct nbw_calib;

/** The models `nodebw predict` prints, in the order of its table. */
enum nbw_model_id {
	NBW_MODEL_PAPER,
	NBW_MODEL_ONEDEV,
	NBW_MODEL_COMPCAL,
	NBW_MODEL_FITTED,
	NBW_MODEL_COUNT
};

/** "paper", "one-device", "compute-calibrated", "fitted" (the calibration's "models" keys). */
const char *nbw_model_name(enum nbw_model_id m);

#define NBW_VALID_MAX_N 32

/** One (G, version) of the validation: each model's MAPE over the stable grid sizes. */
struct nbw_valid_entry {
	int g;
	char version[4];         /**< "v1".."v4" */
	char measure[24];        /**< "speed-matched" or "fastest round" */
	int n[NBW_VALID_MAX_N];  /**< the grid sizes the MAPE is over, ascending */
	int nn;
	int unstable;            /**< grid sizes left out (their rounds disagreed) */
	double mape[NBW_MODEL_COUNT]; /**< fractions; NAN: that model did not predict them */
	double conly_mape;       /**< the compute-only baseline's (NAN: none) */
};

/** What the run validated (absent: the calibration says nothing about it). */
struct nbw_validation {
	struct nbw_valid_entry *e;
	size_t n;
	char why[256];           /**< no entries: why (from the run), "" when it did not say */
};

void nbw_validation_free(struct nbw_validation *v);
/** "validation" of a calibration file into \p out (zeroed first); \p j NULL: nothing. 0, or
 *  -1 with \p err as "validation...: what". */
int nbw_validation_read(json_t *j, struct nbw_validation *out, char *err, size_t errlen);
/** The same as calibration.json stores it. */
json_t *nbw_validation_json(const struct nbw_validation *v);

/** The model to trust for version \p v on \p g devices. */
struct nbw_advice {
	enum nbw_model_id model;
	bool validated;          /**< chosen by the run's validation (else the default rule) */
	bool at_g;               /**< validated at this very G (else at the nearest G) */
	double mape;             /**< its MAPE there (NAN when not validated) */
	const struct nbw_valid_entry *on; /**< the validation it was chosen on, or NULL */
	char why[700];
};

/** The recommendation among the models that predicted (\p can[m] true), by \p val (may be
 *  NULL: none): the lowest MAPE of (\p g, \p v), else of the nearest validated G of \p v,
 *  else the default (the available model that takes the most of this node's
 *  measurements: fitted, compute-calibrated, one-device, paper). \p val_from names where
 *  the validation came from. 0, or -1 when no model predicted. */
int nbw_recommend(const struct nbw_validation *val, const char *val_from, int g,
		  const char *v, const bool can[NBW_MODEL_COUNT], struct nbw_advice *out);

/** One way a prediction lies outside what the calibration measured. */
struct nbw_range_warning {
	char what[16];           /**< "N", "G", "halo plane" */
	double factor;           /**< value / the nearest calibrated bound (NAN: none) */
	char text[600];          /**< "N=512 is 6.7x the largest calibrated N=76 ..." */
	char run[400];           /**< the command that would cover it ("" when none) */
};

#define NBW_RANGE_MAX_WARNINGS 4

/** The warnings of the prediction (\p n, \p g, \p v) on \p c into \p out: none inside
 *  the calibrated grid sizes, device counts and halo-plane sizes. Returns their count. */
size_t nbw_range_check(const struct nbw_calib *c, int n, int g, const char *v,
		       struct nbw_range_warning *out);

#endif
