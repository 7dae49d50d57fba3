/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Staging folders of a report: OUT.tmpXXXXXX beside OUT, marked with their writer.
 *
 * A report (nodebw report, the fleet comparison of nodebw compare) is written into a
 * staging folder beside its output and put in place when complete. The folder holds
 * NBW_STAGING_MARKER, "pid N on HOST", so that a command's signal handler removes its own
 * staging folder (nbw_staging_sweep with its pid) and a later start removes those whose
 * writer is gone (pid not alive on this host); a folder without the marker, or another
 * host's, is left alone.
 */
#ifndef NODEBW_STAGING_H
#define NODEBW_STAGING_H

#include <stdbool.h>
#include <stddef.h>

#define NBW_STAGING_MARKER ".nodebw-staging"

/** Write the marker of this process into the staging folder \p stage. 0, or -1 with
 *  \p err. */
int nbw_staging_mark(const char *stage, char *err, size_t errlen);

/** Remove the staging folders of output \p out (its siblings named BASENAME.tmpXXXXXX that
 *  hold a marker of this host): with \p only_pid > 0 those of that process, with 0 those
 *  whose writer is no longer alive. Async-signal-safe (system calls only, no allocation),
 *  so a signal handler may call it. Returns how many it removed. */
int nbw_staging_sweep(const char *out, long only_pid);

#endif
