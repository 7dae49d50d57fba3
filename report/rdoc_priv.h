/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rdoc.c offers the other report files beyond include/nodebw/report.h: unique file
 * names under plots/ and tables/, placing a figure, and text helpers shared by the sections.
 */
#ifndef NODEBW_REPORT_RDOC_PRIV_H
#define NODEBW_REPORT_RDOC_PRIV_H

#include <stddef.h>
#include <stdio.h>

#include "nodebw/report.h"

/** A file stem made of [A-Za-z0-9._-] from \p want (other characters become '-'), unique
 *  within the document for \p kind ("plot" or "table"): "x", then "x-2", "x-3", ... */
void nbw_rdoc_claim_name(struct nbw_rdoc *r, const char *kind, const char *want, char *out,
			 size_t outlen);

/** Place figure plots/<stem>.svg (linked to the PNG) with \p caption; when \p no_image is
 *  non-NULL there is no image, and a paragraph says why (and, with \p have_script, where the
 *  data and script are). */
void nbw_rdoc_figure(struct nbw_rdoc *r, const char *stem, const char *caption,
		     const char *no_image, bool have_script);

/** The next figure placed stands beside the text that follows it (HTML: figure.aside,
 *  floated right on a wide window, above the text on a narrow one). */
void nbw_rdoc_figure_aside(struct nbw_rdoc *r);

/** gnuplot's time for the whole report: every figure's images within this many seconds
 *  (NODEBW_PLOT_TIME_LIMIT overrides it), each at most GNUPLOT_TIMEOUT_S (report/plot.c). */
#define NBW_REPORT_PLOT_LIMIT_S 600.0
/** Seconds left of it (<= 0: spent). */
double nbw_rdoc_plot_time_left(const struct nbw_rdoc *r);

/** The stem of the first figure placed (with its image or without) whose stem starts with
 *  \p prefix and ends with \p suffix (NULL: any end); NULL when none. Borrowed. */
const char *nbw_rdoc_find_figure(const struct nbw_rdoc *r, const char *prefix,
				 const char *suffix);
/** Place figure \p stem (placed before) once more, on the current page, with its caption
 *  (or, without an image, the same note of why): the same picture where a question is asked
 *  and where its detail is. */
bool nbw_rdoc_figure_again(struct nbw_rdoc *r, const char *stem);

/** How many figures have no image; \p why gets the first reason. */
int nbw_rdoc_plot_failures(const struct nbw_rdoc *r, char *why, size_t whylen);

/** The size of the SVG drawn for a phone (<stem>.phone.svg): a 390 CSS px wide screen shows
 *  it at about 370 px, so its 12 px labels stay above 10 px. */
#define NBW_PHONE_SVG_SIZE "440,340"

/** \p s as a gnuplot single-quoted string (a quote doubled, line breaks as spaces). */
void nbw_gp_quote(FILE *f, const char *s);

/** The head of every plot script: a comment naming the plot and \p data_layout of
 *  <stem>.dat, the variables fmt and out, the PNG/SVG terminal, output and noenhanced. */
void nbw_gp_preamble(FILE *f, const char *stem, const char *title, const char *data_layout);

/** Write plots/<stem>.dat and plots/<stem>.gp (\p stem already claimed), run gnuplot for
 *  the PNG and the SVG, and place the figure (or say why there is no image). NULL \p data
 *  or \p script means out of memory. 0, or -1 when there is no image. */
int nbw_rdoc_plot_files(struct nbw_rdoc *r, const char *stem, const char *data, size_t dlen,
			const char *script, size_t slen, const char *caption);

/** \p bytes in decimal units for people: "8 B", "1.05 MB", "4.29 GB". */
void nbw_human_bytes(double bytes, char *out, size_t outlen);

/** The OpenMP-vs-native gap object of file \p f of \p in, derived from its devices and
 *  measurements once per process and kept in in->gaps (a table the run stored may come
 *  from an older nodebw). Borrowed; NULL when out of memory. */
json_t *nbw_report_doc_gaps(const struct nbw_rinput *in, size_t f);

#endif
