/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Line and column of a value in a JSON text, by its path ("a.b[2].c"): jansson keeps
 * no positions after parsing, so checks of parsed files use this to name where a bad field is.
 */
#ifndef NODEBW_JSONPOS_H
#define NODEBW_JSONPOS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/** 0 with the 1-based \p line and \p col of the value at \p path ("" = the root), or -1. */
int nbw_json_locate(const char *text, size_t len, const char *path, int *line, int *col);
/** The same on a file. */
int nbw_json_locate_file(const char *file, const char *path, int *line, int *col);

/** The one-line error of a check of a parsed file: \p what is "JSON.PATH: what is wrong";
 *  \p err gets "FILE:LINE:COL: what" where the value at that path is found in \p text,
 *  else "FILE: what". */
void nbw_json_check_error(const char *path, const char *text, size_t len, const char *what,
			  char *err, size_t errlen);

/** The one-line reason of a failed json_loadb of \p len bytes from \p path: "FILE:LINE:COL:
 *  what jansson said", or "out of memory parsing FILE (N bytes)" when jansson ran out of
 *  memory (its own text is then empty). */
static inline void nbw_json_parse_error(const char *path, const json_error_t *je, size_t len,
					char *err, size_t errlen)
{
	if (json_error_code(je) == json_error_out_of_memory || !je->text[0])
		snprintf(err, errlen, "out of memory parsing %s (%zu bytes of JSON)", path, len);
	else if (je->line > 0)
		snprintf(err, errlen, "%s:%d:%d: %s", path, je->line, je->column, je->text);
	else
		snprintf(err, errlen, "%s: %s", path, je->text);
}

#endif
