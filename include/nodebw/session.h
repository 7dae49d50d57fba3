/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Process-level helpers shared by the subcommands: the hidden-helper restart and the
 * results folder.
 */
#ifndef NODEBW_SESSION_H
#define NODEBW_SESSION_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/** Set from a signal handler (SIGINT, SIGTERM, SIGHUP: nodebw/session.h): the probe runner (nodebw/runner.h) stops
 *  after the current size and keeps results; \p nbw_stop_signal is the signal. */
extern volatile sig_atomic_t nbw_stop_requested;
extern volatile sig_atomic_t nbw_stop_signal;

/** libomp reads LIBOMP_NUM_HIDDEN_HELPER_THREADS once, at start-up: when it differs from
 *  \p count (>= 0), restart this program (/proc/self/exe) with \p argv and the variable set.
 *  Returns only when no restart is needed, or with a warning on stderr when it failed. */
void nbw_reexec_hidden_helpers(int count, char **argv);

/** SIGINT, SIGTERM and SIGHUP set nbw_stop_requested and nbw_stop_signal (the run stops
 *  after the current size and keeps its results); a second one of the same kind ends the
 *  process at once. SIGXFSZ is ignored, so that a file-size limit fails the write (EFBIG)
 *  instead of killing the process. */
void nbw_handle_stop_signals(void);
/** "SIGINT", "SIGTERM", "SIGHUP", "SIGKILL" or "a signal". */
const char *nbw_signal_name(int sig);
/** The exit status of a run stopped by a signal: 128 + its number (130 for SIGINT). */
int nbw_stop_status(void);

/** In a child just forked from \p parent: its own process group, and SIGKILL when the
 *  parent dies (PR_SET_PDEATHSIG; at once if it already has). */
void nbw_child_setup(pid_t parent);

/** Run this executable (/proc/self/exe) with \p argv in a child process and wait for it;
 *  when the parent is asked to stop, the child gets SIGTERM (once) and keeps what it
 *  measured. Returns its exit status, 128 + signal when it was killed, or -1 when it could
 *  not start. */
int nbw_run_child(char **argv);

/** Remove a child's private results folder and everything in it. */
void nbw_remove_results_dir(const char *dir);

#endif
