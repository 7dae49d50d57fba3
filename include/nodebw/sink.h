/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Output sinks of the probe core: everything a run says goes through them (the
 *  terminal tables, results.json and results.csv); the core itself prints nothing.
 *
 * A sink implements the events it needs; a NULL member ignores that event.
 */
#ifndef NODEBW_SINK_H
#define NODEBW_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nodebw/plan.h"
#include "nodebw/probe.h"
#include "nodebw/results.h"

/** What a sink sees of a series as it starts. */
struct nbw_series_info {
	const char *api;
	const struct nbw_series_plan *plan;  /**< kind, mode, memory, peer, binding, devices */
	char sched[64];                      /**< backend's sched() word, "" when none */
	char sched_note[320];
	unsigned index, total;               /**< this series is index of total (1-based) of the
						  API's series that run */
};

struct nbw_sink {
	/** Before anything else: the timer's resolution. */
	void (*begin)(struct nbw_sink *s, double timer_resolution_s);
	/** A backend opened, with its devices. */
	void (*backend)(struct nbw_sink *s, const char *api, int ndev,
			const struct nbw_device *devs);
	void (*series)(struct nbw_sink *s, const struct nbw_series_info *si);
	void (*measurement)(struct nbw_sink *s, const struct nbw_series_info *si,
			    const struct nbw_measurement *m);
	/** The series' last size was measured (or it stopped). */
	void (*series_end)(struct nbw_sink *s, const struct nbw_series_info *si);
	/** Something not measured, and why (\p probe "*" = the whole API); \p by_design: the
	 *  plan leaves it out on purpose (a mode the API does not have, a pointer chase of
	 *  several streams), else it went wrong or is missing here (a backend, memory). */
	void (*skip)(struct nbw_sink *s, const char *api, const char *probe, const char *what,
		     const char *reason, bool by_design);
	/** A series ended: a good moment to save what there is. */
	void (*checkpoint)(struct nbw_sink *s);
};

/** How the terminal sink writes. */
struct nbw_term_opts {
	bool no_offload;   /**< the first line says this build has no OpenMP offload */
	bool verbose;      /**< a table per series, a row per size (else one line a series) */
	/** Where "[elapsed, time left] API i/n" goes: NULL = at the start of each series
	 *  line (stdout is a terminal), else on its own line there (stderr), at most one
	 *  every two seconds. */
	FILE *progress;
	double t0;         /**< nbw_now() at the start of the run, for the elapsed time */
	const char *label; /**< of the progress lines: "nodebw run" */
	/** The comparison size (the plan's matrix cells' large size; 0: none): a series
	 *  swept beyond it shows its figure there first, the sweep's end after it. */
	uint64_t cmp_bytes;
};

/** The terminal: one line per series (sizes, verified, the smallest size's time, the
 *  largest size's and the best bandwidth, the overlap where the timing supports a
 *  verdict), or with \p verbose a table per series; matrix-only sets print nothing (the
 *  matrices at the end show them). Free with nbw_sink_terminal_free. */
struct nbw_sink *nbw_sink_terminal(FILE *f, const struct nbw_term_opts *opts);
void nbw_sink_terminal_free(struct nbw_sink *s);

/** The results document: devices, skips and measurements go into \p doc (results.csv rows
 *  are appended from each measurement as it comes), and each checkpoint writes
 *  \p outdir/results.json and results.csv atomically (\p outdir NULL: nothing is written).
 *  Failed writes are counted, the first reason kept (nbw_sink_doc_errors). */
struct nbw_doc;
struct nbw_sink *nbw_sink_doc(struct nbw_doc *doc, const char *outdir);
/** Failed checkpoint writes so far; \p why gets the first reason. */
unsigned nbw_sink_doc_errors(const struct nbw_sink *s, char *why, size_t len);
void nbw_sink_doc_free(struct nbw_sink *s);

/** The terminal's one line of a face series' measurement (probe/sink_face.c), after
 *  \p pre (the progress prefix, or ""). */
void nbw_sink_face_line(FILE *f, const char *pre, const struct nbw_series_info *si,
			const struct nbw_measurement *m);

#endif
