/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief A results folder owned by one process at a time.
 *
 * A command that writes results (probe, run, heat) opens its folder through here: the
 * folder is made as `mkdir -p` would (a path naming anything but a folder is refused), and
 * a lock file `.nodebw.lock` holding the owner's pid, host and start time is taken with
 * flock(2). A second writer stops at once and is told who holds the folder. The kernel drops
 * the lock when its owner dies in any way; a later nodebw that finds the lock file without
 * an owner knows the run was killed and recovers the folder (nbw_rundir_recover): it removes
 * temporary files and children's folders, marks a results.json still "running" as
 * "killed", and writes results.csv again from results.json so that the two agree.
 */
#ifndef NODEBW_RUNDIR_H
#define NODEBW_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#define NBW_LOCK_NAME ".nodebw.lock"

struct nbw_rundir {
	char *path;      /**< the folder (malloc'd) */
	int lock_fd;     /**< -1 when not held */
	/** What a recovery of this folder did ("" when it needed none). */
	char recovered[256];
};

/** Open \p output (NULL or "" = nodebw-results/<date-time>) for writing, lock it and recover
 *  what a killed run left in it and in its sibling folders. A folder that holds results
 *  already (a results.json, nodebw's or not) is refused unless \p replace, which removes
 *  them (results.json, results.csv, calibration.json, run.log, report/) first. 0;
 *  NBW_EXIT_USAGE (2) when the path is not a folder, holds results or another process holds
 *  it; -1 when it cannot be created. One line in \p err either way. */
int nbw_rundir_open(const char *output, bool replace, struct nbw_rundir *rd, char *err,
		    size_t errlen);

/** What nbw_rundir_open would refuse, found without creating or changing anything (e.g.
 *  `run --list-stages`): a path naming a file, a file where a folder above it should be,
 *  results already there without \p replace. 0, or NBW_EXIT_USAGE (2) with one line in
 *  \p err as nbw_rundir_open words it. */
int nbw_rundir_check(const char *output, bool replace, char *err, size_t errlen);

/** Remove the lock and free the path. The folder and its results stay; with
 *  \p remove_if_empty a folder nothing was written into goes too (a usage error). */
void nbw_rundir_close(struct nbw_rundir *rd, bool remove_if_empty);

/** Recover a folder whose owner died (its lock file is there, nobody holds it): see the
 *  file comment. Returns how many things it changed; \p what says which (may be NULL). */
int nbw_rundir_recover(const char *dir, char *what, size_t len);

/** Who writes results folder \p dir, from its lock file ("pid N on HOST since T"): 1 when
 *  that process is alive on this host, 0 when it is gone (killed, or failed before its last
 *  write), -1 when the folder has no lock file or its owner is on another host (unknown).
 *  \p owner gets the lock file's line ("" when none). */
int nbw_rundir_writer(const char *dir, char *owner, size_t len);

/** mkdir -p \p path (0755): 0, or -1 with errno (ENOTDIR when a component, or \p path
 *  itself, exists and is not a folder). */
int nbw_mkdir_p(const char *path);

/** Remove a folder and everything in it (no symlink is followed). 0 or -1. */
int nbw_remove_tree(const char *dir);

#endif
