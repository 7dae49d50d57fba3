/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Text for a terminal: every line nodebw prints there fits NBW_TERM_COLUMNS columns,
 *  long ones wrapped at word boundaries with an indent (one function for all of them).
 */
#ifndef NODEBW_TERMTEXT_H
#define NODEBW_TERMTEXT_H

#include <stdio.h>

/** The widest line nodebw prints on a terminal (and in what a person reads of a run). */
#define NBW_TERM_COLUMNS 100

/** Write \p text to \p f wrapped at word boundaries so that no line passes \p width
 *  columns: the first line after \p first, every further one after \p rest (the indent);
 *  a '\n' in \p text starts a new line (after \p rest). A word longer than a line is cut.
 *  Returns the lines it takes; with \p f NULL only counts them. \p width <= the leads'
 *  length: NBW_TERM_COLUMNS. */
int nbw_term_wrap(FILE *f, const char *first, const char *rest, const char *text, int width);

/** The same for a printf format. */
int nbw_term_wrapf(FILE *f, const char *first, const char *rest, int width, const char *fmt,
		   ...) __attribute__((format(printf, 5, 6)));

/** The columns of the terminal on \p fd (ioctl TIOCGWINSZ), never more than
 *  NBW_TERM_COLUMNS; NBW_TERM_COLUMNS when it is not a terminal or does not say. */
int nbw_term_columns(int fd);

/** Printed columns of \p s (UTF-8: continuation bytes take none). */
int nbw_term_text_columns(const char *s, size_t len);

#endif
