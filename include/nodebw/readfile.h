// SPDX-License-Identifier: BSD-3-Clause
/** \file
 * \brief The one way nodebw reads an input file a user can name (results.json, a
 * calibration, a topology fixture's hwloc.xml, links.json and sys/ files): opened without
 * blocking (a FIFO does not hang the command), refused unless it is a regular file, refused
 * above a size limit, read whole into memory. Parsers then work on the bytes (json_loadb,
 * hwloc_topology_set_xmlbuffer), so the fuzz targets (tests/fuzz/) feed the same code.
 */
#ifndef NODEBW_READFILE_H
#define NODEBW_READFILE_H

#include <stddef.h>

/** The default limit on an input file: 1 GiB (a `--full` results.json is about 140 MB). */
#define NBW_READFILE_MAX_BYTES ((size_t)1 << 30)
/** Environment variable that replaces the default limit (bytes, a positive integer). */
#define NBW_READFILE_MAX_ENV "NODEBW_MAX_INPUT_BYTES"

/** The limit in force: $NODEBW_MAX_INPUT_BYTES when it is a positive integer, else the
 * default. 0 with \p out set, or -1 with a reason when the variable is set but not valid. */
int nbw_readfile_limit(size_t *out, char *err, size_t errlen);

/** Read \p path whole into a NUL-terminated malloc'd buffer (\p *len excludes the NUL).
 * \p limit 0 means nbw_readfile_limit(). 0, or -1 with a one-line reason naming the file:
 * "FILE: not a regular file (fifo)", "FILE: 2147483648 bytes, over the limit of ...",
 * "out of memory reading FILE (N bytes)", or the system's error. */
int nbw_readfile(const char *path, size_t limit, char **buf, size_t *len, char *err,
		 size_t errlen);

/** The last non-empty line of \p path (a child's log), trimmed, into \p out; lines equal
 *  to \p skip (NULL: none) do not count. "" when there is none or no file. */
void nbw_last_line(const char *path, const char *skip, char *out, size_t outlen);

#endif
