/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Accepting a node: a verdict for every measured path of a results document against
 * a site's thresholds, the shipped table of published figures and the link's theoretical
 * figure (`nodebw check`, `nodebw probe|run --check`, the report, `nodebw compare`).
 *
 * A path is one device's host link in one direction (HtoD or DtoH, one copy at a time) or
 * one ordered device pair (P2P, one direction at a time or both at once), of one API. It
 * is judged at the run's comparison size (nbw_analysis_comparison_bytes), on the best of its measurements that a
 * criterion selects (mode, host memory, copy engine or kernel): a site's threshold, like
 * the health checks sites write, is met when some way of driving the path reaches it.
 *
 * Verdicts: "pass", "warning" (from a published minimum up to 1.05 x it), "below
 * threshold" (a site threshold is not met), "below reference" (a published figure or the
 * theoretical figure is not met), "not judged" (no criterion applies, or the path was not
 * measured at the size a criterion needs), always with the reason; and the node's outcome,
 * NOT JUDGED when nothing, or a site rule, judged nothing. Files: doc/check.md (thresholds schema), data/references.json
 * (doc/references.md).
 */
#ifndef NODEBW_VERDICT_H
#define NODEBW_VERDICT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define NBW_THRESHOLDS_SCHEMA "nodebw-thresholds"
#define NBW_REFERENCES_SCHEMA "nodebw-references"
/** A measured figure passes a published one at >= (1 - this) x its low end. */
#define NBW_REF_TOLERANCE_DEFAULT 0.10
/** A measured figure passes the link's theoretical (or a spec-only row) at >= this x. */
#define NBW_THEORETICAL_FRACTION_DEFAULT 0.70
/** A published minimum's warning band: a figure from the minimum up to (not including) this
 *  x the minimum passes with the verdict "warning" (Azure's health checks' band). */
#define NBW_WARN_BAND 1.05
#define NBW_VERDICT_WARNING "warning"
/* The outcome of the whole node (nbw_pv_verdicts.outcome). */
#define NBW_OUTCOME_PASS "pass"
#define NBW_OUTCOME_WARNING "warning"
#define NBW_OUTCOME_FAIL "fail"
#define NBW_OUTCOME_NOT_JUDGED "not judged"

struct nbw_criteria;

/** An empty set of criteria; NULL when out of memory. */
struct nbw_criteria *nbw_criteria_new(void);
void nbw_criteria_free(struct nbw_criteria *c);
/** Add a site's thresholds file (schema "nodebw-thresholds"); 0, or -1 with one line in
 *  \p err naming the file, the line and column, and what is wrong. */
int nbw_criteria_add_thresholds(struct nbw_criteria *c, const char *path, char *err,
				size_t errlen);
/** Add a table of published figures (schema "nodebw-references"). */
int nbw_criteria_add_references(struct nbw_criteria *c, const char *path, char *err,
				size_t errlen);
/** The tolerance under a published figure's low end (0 <= t < 1) and the fraction of the
 *  theoretical figure (0 < f <= 1) a path must reach; the defaults above otherwise. */
void nbw_criteria_set_limits(struct nbw_criteria *c, double ref_tolerance,
			     double theoretical_fraction);

/** The verdicts of every path of \p devices and \p measurements (a results document's):
 *  {"units", "rule", "thresholds_file", "references_file", "counts": {"pass", "warning",
 *  "below threshold", "below reference", "not judged"}, "failed", "outcome" ("pass",
 *  "warning", "fail", "not judged"), "outcome_reason", "paths": [...],
 *  "unmatched_thresholds", "rules_not_judged": [{"name", "paths", "reason"}]}; each path
 *  {"api", "direction", "concurrency", "src", "dst", "where", "device", "link", "bytes",
 *  "verdict", "reason", "judgements": [{"against": "threshold" | "published" |
 *  "theoretical", "what", "source", "limit_gbps", "gbps", "mode", "host_mem", "verdict",
 *  "reason", "matched_by"[, published: "reference_gbps", "reference_source",
 *  "fraction_of_reference", "minimum_source"]}]}. Devices are matched by their PCI IDs
 *  first, their names second (analysis/crit_match.c). \p c may be NULL (the theoretical
 *  figures only). New reference, never NULL unless out of memory. */
json_t *nbw_verdicts(json_t *devices, json_t *measurements, const struct nbw_criteria *c);
/** Paths below a threshold or a reference. */
int nbw_verdicts_failed(json_t *v);

/* Typed views of the verdicts (analysis/products_view.c): renderers read these fields, not
 * the keys. Strings borrowed ("" when absent), numbers NAN when absent. */
struct nbw_pv_verdicts {
	const char *rule, *thresholds_file, *references_file;
	/** "pass", "warning", "fail", "not judged" (nothing judged, or a site rule judged no
	 *  path and nothing failed); "" when absent. */
	const char *outcome, *outcome_reason;
	int pass, warning, below_threshold, below_reference, not_judged;
	size_t nrules_not_judged;
	size_t npaths;
	json_t *paths_; /* private */
};
struct nbw_pv_vpath {
	const char *api, *direction, *concurrency, *where, *device, *link, *verdict, *reason;
	long long bytes;
	bool aggregate;          /**< all streams of copies at the same time together */
	/** Bidirectional paths: the sum and each direction's own figure (include/nodebw/
	 *  bidir.h); NaN and -1 otherwise. */
	double bidir_sum_gbps, bidir_dir_gbps[2];
	int bidir_src[2], bidir_dst[2];
	size_t njudgements;
	json_t *judgements_; /* private */
};
struct nbw_pv_judgement {
	const char *against, *what, *source, *mode, *host_mem, *verdict, *reason;
	double gbps, limit_gbps;
	long long bytes;
};
bool nbw_pv_verdicts(json_t *v, struct nbw_pv_verdicts *out);
bool nbw_pv_vpath(const struct nbw_pv_verdicts *v, size_t i, struct nbw_pv_vpath *out);
bool nbw_pv_judgement(const struct nbw_pv_vpath *p, size_t i, struct nbw_pv_judgement *out);
/** The verdicts as text: the counts, every path that did not pass (all of them with
 *  \p all), each with its reason; the units line first. */
void nbw_verdicts_print(FILE *f, json_t *v, bool all);

#endif
