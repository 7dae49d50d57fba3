/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw fleet`: the command line of the fleet (fleet/, doc/fleet.md). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet.h"
#include "nodebw/cli.h"
#include "nodebw/fleet.h"
#include "nodebw/session.h"
#include "run.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw fleet [OPTIONS] [-- RUN-OPTIONS]\n"
		"       nodebw fleet --print-sbatch [--nodes N] [OPTIONS] [-- RUN-OPTIONS]\n"
		"\n"
		"Characterise every node of an allocation at once: run this under the launcher,\n"
		"one task per node,\n"
		"  srun --ntasks-per-node=1 nodebw fleet --output DIR      (inside sbatch/salloc)\n"
		"  mpirun --map-by ppr:1:node nodebw fleet --output DIR    (Open MPI)\n"
		"The tasks agree on the start; the first task of each node runs 'nodebw run'\n"
		"(with RUN-OPTIONS, quick profile by default) in a child stopped at the node time\n"
		"limit, the node's other tasks wait; each node's folder goes to rank 0 through MPI\n"
		"(a build with -Dmpi=enabled, launched by mpirun) or through the shared file\n"
		"system, into DIR/nodes/<node>/ beside fleet.json (every node's status and\n"
		"reason); rank 0 then compares the nodes (DIR/report/, 'nodebw compare --help').\n"
		"Started without a launcher it is a fleet of one node.\n"
		"\n"
		"Options:\n"
		"  --output DIR           launch folder (default nodebw-fleet/<job id>, e.g.\n"
		"                         nodebw-fleet/slurm-1234.0; a folder with a fleet.json\n"
		"                         is refused)\n"
		"  --local-dir DIR        where each node measures before its folder is sent\n"
		"                         (default $TMPDIR or /tmp)\n"
		"  --node-time-limit S    stop a node's run after S seconds and record it as\n"
		"                         timed out (default %.0f)\n"
		"  --start-timeout S      every task must have started within S seconds\n"
		"                         (default %.0f)\n"
		"  --transport T          auto (MPI under mpirun when built with it, else the\n"
		"                         shared file system), mpi, or fs\n"
		"  --no-compare           rank 0 writes no comparison report\n"
		"  --print-sbatch         print a ready sbatch script running this fleet and stop\n"
		"  --nodes N              the script's node count (default 2)\n"
		"  -h, --help             this text\n"
		"\n"
		"Test aid: %s=NAME makes a task act as node NAME (%%r: its rank, %%h: the\n"
		"host name), so that one machine can stand in for several nodes:\n"
		"  %s='node-%%r' mpirun --oversubscribe -np 3 -x %s nodebw fleet\n"
		"\n"
		"Exit status: 0 every node ok; 1 error; 2 bad input; 3 some node failed, timed\n"
		"out or never answered. Bandwidth in GB/s = 1e9 bytes per second.\n",
		NBW_FLEET_NODE_LIMIT_S, NBW_FLEET_START_TIMEOUT_S, NBW_FLEET_NODE_ENV,
		NBW_FLEET_NODE_ENV, NBW_FLEET_NODE_ENV);
}

int nbw_fleet_main(int argc, char **argv)
{
	struct nbw_fleet_cli c;
	char perr[1024];
	int prc = nbw_fleet_parse_opts(argc, argv, &c, perr, sizeof(perr));
	if (prc == 1) {
		usage(stdout);
		return 0;
	}
	if (prc) {
		fprintf(stderr, "nodebw: error: %s\n", perr);
		return NBW_EXIT_USAGE;
	}
	struct nbw_fleet_opts o = c.o;
	bool sbatch = c.sbatch;
	int nodes = c.nodes;
	/* The run's options are checked as the run would, before any node starts or a script
	 * is printed. */
	char oerr[1024];
	if (nbw_run_check_opts(o.run_argc, o.run_argv, oerr, sizeof(oerr))) {
		fprintf(stderr, "nodebw: error: run option after --: %s\n", oerr);
		return NBW_EXIT_USAGE;
	}
	if (sbatch) {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		nbw_fleet_print_sbatch(stdout, n > 0 ? exe : "nodebw", nodes, o.node_limit_s,
				       o.output, o.run_argv, o.run_argc);
		return 0;
	}
	/* Each node measures into --local-dir: one that is not a writable folder here fails
	 * every node, so it is bad input now, not a node that never answers. */
	struct stat st;
	const char *bad = NULL;
	if (o.local_dir && stat(o.local_dir, &st) != 0)
		bad = strerror(errno);
	else if (o.local_dir && !S_ISDIR(st.st_mode))
		bad = "not a folder";
	else if (o.local_dir && access(o.local_dir, W_OK | X_OK) != 0)
		bad = strerror(errno);
	if (bad) {
		fprintf(stderr, "nodebw: error: --local-dir %s: %s\n", o.local_dir, bad);
		return NBW_EXIT_USAGE;
	}
	nbw_handle_stop_signals();
	char err[1024] = "";
	int rc = nbw_fleet_run(&o, stdout, err, sizeof(err));
	if (err[0])
		fprintf(stderr, "nodebw: error: %s\n", err);
	return rc;
}
