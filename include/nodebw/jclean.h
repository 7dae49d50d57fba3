/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Text read from a file, made safe to show: every JSON document nodebw reads (results,
 *  fleet node files, calibrations, thresholds and references, topology fixtures) is parsed by
 *  nbw_json_loadb, which cleans every string (values and keys) of control characters before
 *  any reader sees it. What a results file from another node holds can then never move the
 *  cursor, retitle or recolour a terminal, nor hide text in Markdown, HTML or CSV.
 */
#ifndef NODEBW_JCLEAN_H
#define NODEBW_JCLEAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/** Clean \p s (UTF-8, NUL-terminated) in place: ESC sequences (CSI, OSC, DCS, SOS, PM, APC and
 *  two-byte ones) and their C1 forms (U+0080 to U+009F) are removed whole, every other C0
 *  control and DEL is removed, except that TAB, LF and CR become a space. Returns true when
 *  anything changed. The result is never longer than \p s. */
bool nbw_text_clean(char *s);

/** True when \p s holds a byte that nbw_text_clean would change. */
bool nbw_text_dirty(const char *s);

/** json_loadb, and then every string in the document (values and object keys) cleaned by
 *  nbw_text_clean. The one parser of documents nodebw reads. */
json_t *nbw_json_loadb(const char *text, size_t len, size_t flags, json_error_t *je);

/** Clean every string of \p j in place (values and keys); 0, or -1 when out of memory. */
int nbw_json_clean(json_t *j);

#endif
