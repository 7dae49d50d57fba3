/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw fleet`: the command line of the fleet (fleet/, doc/fleet.md). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int seconds(const char *opt, const char *s, double *out)
{
	char err[256];
	if (!s || nbw_cli_parse_decimal(s, 0.001, 7 * 86400.0, out, opt, "seconds", err,
					sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", s ? err : "missing seconds after the option");
		return -1;
	}
	return 0;
}

int nbw_fleet_main(int argc, char **argv)
{
	struct nbw_fleet_opts o = { .transport = "auto", .node_limit_s = NBW_FLEET_NODE_LIMIT_S,
				    .start_timeout_s = NBW_FLEET_START_TIMEOUT_S };
	bool sbatch = false;
	int nodes = 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--") == 0) {
			o.run_argv = argv + i + 1;
			o.run_argc = argc - i - 1;
			break;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--print-sbatch") == 0) {
			sbatch = true;
		} else if (strcmp(a, "--no-compare") == 0) {
			o.no_compare = true;
		} else if ((strcmp(a, "--output") == 0 || strcmp(a, "--local-dir") == 0 ||
			    strcmp(a, "--transport") == 0) && next && *next) {
			if (strcmp(a, "--output") == 0)
				o.output = next;
			else if (strcmp(a, "--local-dir") == 0)
				o.local_dir = next;
			else
				o.transport = next;
			i++;
		} else if (strcmp(a, "--node-time-limit") == 0 || strcmp(a, "--start-timeout") == 0) {
			if (seconds(a, next, strcmp(a, "--start-timeout") == 0 ? &o.start_timeout_s :
						 &o.node_limit_s) != 0)
				return NBW_EXIT_USAGE;
			i++;
		} else if (strcmp(a, "--nodes") == 0) {
			long v;
			char err[256];
			if (!next || nbw_cli_parse_int(next, 1, 100000, &v, "--nodes", err,
						       sizeof(err))) {
				fprintf(stderr, "nodebw: error: %s\n",
					next ? err : "--nodes needs a node count");
				return NBW_EXIT_USAGE;
			}
			nodes = (int)v;
			i++;
		} else {
			fprintf(stderr, "nodebw: error: unknown option or missing value: %s (see "
				"'nodebw fleet --help'; options for the run go after --)\n", a);
			return NBW_EXIT_USAGE;
		}
	}
	if (strcmp(o.transport, "auto") != 0 && strcmp(o.transport, "mpi") != 0 &&
	    strcmp(o.transport, "fs") != 0) {
		fprintf(stderr, "nodebw: error: --transport %s: give auto, mpi or fs\n", o.transport);
		return NBW_EXIT_USAGE;
	}
	/* The run's options are checked as the run would, before any node starts or a script
	 * is printed. */
	char oerr[1024];
	if (nbw_run_check_opts(o.run_argc, o.run_argv, oerr, sizeof(oerr))) {
		fprintf(stderr, "nodebw: error: run option after --: %s\n", oerr);
		return NBW_EXIT_USAGE;
	}
	if (nbw_fleet_check_run_argv(&o, oerr, sizeof(oerr))) {
		fprintf(stderr, "nodebw: error: %s\n", oerr);
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
	nbw_handle_stop_signals();
	char err[1024] = "";
	int rc = nbw_fleet_run(&o, stdout, err, sizeof(err));
	if (err[0])
		fprintf(stderr, "nodebw: error: %s\n", err);
	return rc;
}
