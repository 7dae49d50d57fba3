/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the fleet: the child with a time limit (spawn.c), a node folder as bytes
 * (pack.c), and the transport interface the driver (fleet.c) talks to: the shared file
 * system (comm_fs.c) or MPI (comm_mpi.c, a plugin loaded with dlopen, so that nodebw needs
 * no MPI library unless it is used).
 */
#ifndef NODEBW_FLEET_PRIV_H
#define NODEBW_FLEET_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "nodebw/fleet.h"

#define NBW_FLEET_KILL_GRACE_S 20.0
#define NBW_FLEET_TAR_LIMIT_S 300.0
/** A node folder travels as one message: at most this many bytes. */
#define NBW_FLEET_MAX_PACK (1536ull * 1024 * 1024)
/** How often a waiting task looks again (it must not disturb the node it shares). */
#define NBW_FLEET_POLL_S 0.2
/** After its time limit, a node has this long to pack and send its folder. */
#define NBW_FLEET_DELIVER_GRACE_S 120.0

struct nbw_spawn_result {
	int status;        /**< exit status, 128 + signal, -1 not started */
	int signal;
	bool timed_out;    /**< stopped at the limit */
	bool stopped;      /**< stopped because this task was asked to stop */
	double wall_s;
	char why[256];     /**< "" when it exited with 0 */
};

/** Run \p argv (a path, or a name looked up in PATH) with stdout and stderr appended to
 *  \p log_path (NULL: inherited), stopped at \p limit_s (<= 0: none). 0 when it ran
 *  (\p r says how it ended), -1 when it could not start (\p r->why). */
int nbw_fleet_spawn(char *const argv[], const char *log_path, double limit_s,
		    struct nbw_spawn_result *r);

/** Folder \p dir as a tar archive in memory (made through \p tmp_path). 0 or -1. */
int nbw_fleet_pack(const char *dir, const char *tmp_path, void **buf, size_t *len, char *err,
		   size_t errlen);
/** Unpack \p buf into \p nodes_dir/\p folder atomically; refuses an existing folder. */
int nbw_fleet_place(const void *buf, size_t len, const char *nodes_dir, const char *folder,
		    char *err, size_t errlen);

/** Seconds on the monotonic clock (inline: the MPI plugin uses it too). */
static inline double nbw_fleet_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/** Sleep NBW_FLEET_POLL_S. */
static inline void nbw_fleet_nap(void)
{
	struct timespec ts = { 0, (long)(NBW_FLEET_POLL_S * 1e9) };
	nanosleep(&ts, NULL);
}

/* ---- transports ---------------------------------------------------------------------- */

struct nbw_fleet_comm;
#define NBW_FLEET_COMM_ABI 1
struct nbw_fleet_comm_ops {
	int abi;
	const char *name;
	/** Join the launch. \p output is the launch folder (rank 0's; the shared one for
	 *  fs). May correct \p t->size (PMIx). 0, or -1 with \p err. */
	int (*open)(struct nbw_fleet_comm **c, struct nbw_fleet_task *t, const char *output,
		    char *err, size_t errlen);
	/** The start barrier: every rank's node name, in rank order (\p names: t->size
	 *  malloc'd strings in a malloc'd array). Waits at most \p timeout_s. 0 or -1. */
	int (*roster)(struct nbw_fleet_comm *c, const char *node, char ***names,
		      double timeout_s, char *err, size_t errlen);
	/** A leader other than rank 0 hands its packed folder to rank 0, before \p deadline
	 *  (monotonic seconds). 0 or -1. */
	int (*deliver)(struct nbw_fleet_comm *c, const char *folder, const void *buf,
		       size_t len, double deadline, char *err, size_t errlen);
	/** Rank 0: the next folder delivered. 1 with \p folder and (MPI) a malloc'd \p buf
	 *  to place, or (fs) \p buf NULL when it is in place already; 0 at \p deadline; -1. */
	int (*receive)(struct nbw_fleet_comm *c, char *folder, size_t flen, void **buf,
		       size_t *len, double deadline, char *err, size_t errlen);
	/** The end barrier: rank 0 releases the others, who wait for it until \p deadline.
	 *  0, or -1 when it did not come. */
	int (*finish)(struct nbw_fleet_comm *c, double deadline, char *err, size_t errlen);
	/** Leave the launch; \p abort ends every rank (some never answered). */
	void (*close)(struct nbw_fleet_comm *c, bool abort);
};

extern const struct nbw_fleet_comm_ops nbw_fleet_comm_fs;
/** The MPI plugin's table (nodebw-fleet-mpi.so), or NULL with the reason in \p why. */
const struct nbw_fleet_comm_ops *nbw_fleet_comm_mpi_load(char *why, size_t len);

#endif
