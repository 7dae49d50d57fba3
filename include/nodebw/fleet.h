/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief `nodebw fleet`: the node characterisation (`nodebw run`) on every node of an
 * allocation at once, one result folder per node gathered to the launch folder, and the
 * comparison of the nodes (`nodebw compare`, fleet/compare*.c).
 *
 * Every task of the launch (srun --ntasks-per-node=1, mpirun --map-by ppr:1:node) runs
 * `nodebw fleet`. The tasks exchange their node names (this is the start barrier); the
 * lowest rank of each node measures it in a child `nodebw run` with a time limit, the
 * other ranks of that node wait; each node's folder travels to rank 0 through MPI (the
 * optional plugin fleet/comm_mpi.c) or through the shared file system (fleet/comm_fs.c),
 * and rank 0 writes fleet.json and the comparison report. Nothing here exits; the command
 * is in tools/.
 */
#ifndef NODEBW_FLEET_H
#define NODEBW_FLEET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/** The test aid: a task's node name instead of its host name. "%r" becomes the task's rank
 *  in the launch, "%h" the short host name, "%%" a percent sign (doc/fleet.md). */
#define NBW_FLEET_NODE_ENV "NODEBW_FLEET_NODE"

#define NBW_FLEET_NAME_LEN 128

/** One task of a launch, as its environment describes it. */
struct nbw_fleet_task {
	char launcher[16];   /**< "slurm", "openmpi", "pmix", or "none" (started directly) */
	int rank, size;      /**< in the launch; 0 and 1 for "none" */
	char job[96];        /**< the launch's identity ("slurm-123.0", "ompi-2055864321"), "" */
	char host[256];      /**< gethostname() */
	char node[NBW_FLEET_NAME_LEN]; /**< the node name: host name or the test aid's */
	bool node_from_env;  /**< the name came from NBW_FLEET_NODE_ENV */
};

/** How the task reads its environment (getenv, or a table in the tests). */
typedef const char *(*nbw_fleet_getenv)(const char *name);

/** Fill \p t from the environment and \p hostname. 0, or NBW_EXIT_USAGE with one line in
 *  \p err (a rank or size that is not a number, an empty node name). */
int nbw_fleet_task_from_env(struct nbw_fleet_task *t, nbw_fleet_getenv env,
			    const char *hostname, char *err, size_t errlen);

/** \p in as a folder name: [A-Za-z0-9._-], other characters '_'; never "", "." or "..". */
void nbw_fleet_folder_name(const char *in, char *out, size_t len);

/** The nodes of a launch: each distinct node name once, in order of its first rank. */
struct nbw_fleet_member {
	char node[NBW_FLEET_NAME_LEN];
	char folder[NBW_FLEET_NAME_LEN + 16]; /**< unique within the fleet */
	int leader;       /**< the rank that measures it (its lowest) */
	int nranks;       /**< the ranks on it */
};
struct nbw_fleet_plan {
	size_t n;
	struct nbw_fleet_member *m;
	int nranks;
	int *node_of;     /**< per rank: index into m */
};
/** The plan of \p nranks ranks whose node names are \p names. Two names whose folder
 *  names are the same get the leader rank appended ("a_b-r3"). 0 or -1 (memory). */
int nbw_fleet_plan_make(const char *const *names, int nranks, struct nbw_fleet_plan *p);
void nbw_fleet_plan_free(struct nbw_fleet_plan *p);

struct nbw_fleet_opts {
	const char *output;      /**< launch folder; NULL: nodebw-fleet/<job or date-time> */
	const char *local_dir;   /**< where each node measures; NULL: $TMPDIR or /tmp */
	const char *transport;   /**< "auto", "mpi" or "fs" */
	double node_limit_s;     /**< a node's `nodebw run` is stopped after this */
	double start_timeout_s;  /**< the tasks must all have started within this */
	char **run_argv;         /**< options for `nodebw run` (may be NULL) */
	int run_argc;
	bool no_compare;         /**< rank 0 does not write the comparison report */
};

/** The command line of `nodebw fleet`. */
struct nbw_fleet_cli {
	struct nbw_fleet_opts o;
	bool sbatch;             /**< --print-sbatch */
	int nodes;               /**< --nodes: the script's node count */
};

/** Parse `nodebw fleet` options (argv[0] is the command's name; the run's options after
 *  -- are kept, not checked: the caller checks them as the run would). 0, 1 for --help, or
 *  NBW_EXIT_USAGE with one line in \p err. */
int nbw_fleet_parse_opts(int argc, char **argv, struct nbw_fleet_cli *c, char *err,
			 size_t errlen);

#define NBW_FLEET_NODE_LIMIT_S 1800.0
#define NBW_FLEET_START_TIMEOUT_S 120.0

/** Run this task's part of the fleet. Progress lines go to \p progress. The exit status:
 *  0 every node measured and verified; 1 an error that stopped it; 2 bad input; 3 some
 *  node failed, timed out or never answered (fleet.json says which and why). */
int nbw_fleet_run(const struct nbw_fleet_opts *o, FILE *progress, char *err, size_t errlen);

/** What the fleet itself refuses among the run's options (--output: the fleet names each
 *  node's folder): 0, or -1 with one line in \p err. */
int nbw_fleet_check_run_argv(const struct nbw_fleet_opts *o, char *err, size_t errlen);

/** A ready sbatch script for \p nodes nodes running \p exe's fleet into \p output (NULL:
 *  nodebw-fleet/slurm-$SLURM_JOB_ID) with a node time limit of \p node_limit_s. */
void nbw_fleet_print_sbatch(FILE *f, const char *exe, int nodes, double node_limit_s,
			    const char *output, char **run_argv, int run_argc);

/* ---- the comparison (fleet/compare*.c) ------------------------------------------------ */

/** Outlier rule: a node is flagged on a path when its value is worse than the fleet
 *  median of its group by more than this fraction ... */
#define NBW_FLEET_OUTLIER_FRACTION 0.10
/** ... and more than this many robust standard deviations of the group (1.4826 x the
 *  median absolute deviation, at least NBW_FLEET_SIGMA_FLOOR of the median) from it, so
 *  that a path on which the nodes scatter, or fall into two camps, flags none of them. */
#define NBW_FLEET_OUTLIER_SIGMAS 3.5
#define NBW_FLEET_SIGMA_FLOOR 0.02
/** A path is judged in a group of at least this many nodes with the value. */
#define NBW_FLEET_MIN_NODES 3

/** Compare the nodes of fleet folder \p dir (DIR/nodes/<node>/ or DIR/<node>/, each with
 *  results.json): a new summary object (doc/fleet.md), or NULL with one line in \p err
 *  (no node folder at all). Unreadable nodes are in the summary with their reason. */
struct nbw_criteria;
/* (each node also gets "verdicts": nodebw check's on its results, judged by \p cr, NULL:
 * the theoretical figures only) */
json_t *nbw_fleet_compare(const char *dir, const struct nbw_criteria *cr, char *err,
			  size_t errlen);
/** The summary on a terminal: topology differences first, then outliers, then the nodes. */
void nbw_fleet_print(FILE *f, json_t *summary);
/** The comparison as a report folder \p outdir (report.md, report.html, tables/ as CSV,
 *  the nodes x paths heat map) and fleet-summary.json in it. 0; NBW_EXIT_USAGE (2) with
 *  \p err when the folder cannot be made (bad input); -1 with \p err when writing into it
 *  failed (a full disk). */
int nbw_fleet_report(json_t *summary, const char *outdir, char *err, size_t errlen);
/** The nodes of \p summary whose results could be read. */
size_t nbw_fleet_readable_nodes(json_t *summary);
/** The folder a fleet folder's comparison goes to by default: \p dir/report, unless that is
 *  a node's folder (a node named "report" in a folder of node folders): then NULL. */
const char *nbw_fleet_default_report(const char *dir, char *buf, size_t len);

#endif
