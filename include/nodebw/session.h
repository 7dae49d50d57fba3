/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Process-level helpers shared by the subcommands: the hidden-helper restart and the
 * results folder.
 */
#ifndef NODEBW_SESSION_H
#define NODEBW_SESSION_H

#include <stddef.h>

/** libomp reads LIBOMP_NUM_HIDDEN_HELPER_THREADS once, at start-up: when it differs from
 *  \p count (>= 0), restart this program (/proc/self/exe) with \p argv and the variable set.
 *  Returns only when no restart is needed, or with a warning on stderr when it failed. */
void nbw_reexec_hidden_helpers(int count, char **argv);

/** Create the results folder: \p output when not empty, else nodebw-results/<date-time>.
 *  The folder's path goes to \p dir. 0, or -1 with a one-line message in \p err. */
int nbw_results_dir(const char *output, char *dir, size_t len, char *err, size_t errlen);

/** Run this executable (/proc/self/exe) with \p argv in a child process and wait for it.
 *  Returns its exit status, 128 + signal when it was killed, or -1 when it could not start. */
int nbw_run_child(char **argv);

/** Remove a child's private results folder (results.json, results.csv, the folder). */
void nbw_remove_results_dir(const char *dir);

#endif
