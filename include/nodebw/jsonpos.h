/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Line and column of a value in a JSON text, by its path ("a.b[2].c"): jansson keeps
 * no positions after parsing, so checks of parsed files use this to name where a bad field is.
 */
#ifndef NODEBW_JSONPOS_H
#define NODEBW_JSONPOS_H

#include <stddef.h>

/** 0 with the 1-based \p line and \p col of the value at \p path ("" = the root), or -1. */
int nbw_json_locate(const char *text, size_t len, const char *path, int *line, int *col);
/** The same on a file. */
int nbw_json_locate_file(const char *file, const char *path, int *line, int *col);

#endif
