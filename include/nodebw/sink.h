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
	/** Something not measured, and why (\p probe "*" = the whole API). */
	void (*skip)(struct nbw_sink *s, const char *api, const char *probe, const char *what,
		     const char *reason);
	/** A series ended: a good moment to save what there is. */
	void (*checkpoint)(struct nbw_sink *s);
};

/** The terminal: a table per series, rows per size; matrix-only sets print nothing per
 *  size (the matrices at the end show them). \p no_offload: the first line says this build
 *  has no OpenMP offload. Free with nbw_sink_terminal_free. */
struct nbw_sink *nbw_sink_terminal(FILE *f, bool no_offload);
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

#endif
