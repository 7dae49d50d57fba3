/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw fleet --print-sbatch`: a batch script that runs the fleet on every node of a Slurm
 * allocation, one task per node, each with the whole node (--exclusive). */
#include <stdio.h>
#include <string.h>

#include "nodebw/fleet.h"

/* \p s as one word for sh: in single quotes, a quote as '\'' */
static void sh_word(FILE *f, const char *s)
{
	bool plain = *s != '\0';
	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=,:+@%",
			    *p))
			plain = false;
	if (plain) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

void nbw_fleet_print_sbatch(FILE *f, const char *exe, int nodes, double node_limit_s,
			    const char *output, char **run_argv, int run_argc)
{
	/* the job's limit: every node's run, the hand-over and the report */
	long minutes = (long)((node_limit_s + 600.0) / 60.0 + 0.999);
	fprintf(f,
		"#!/bin/bash\n"
		"# nodebw fleet: the node characterisation on every node of the allocation, one\n"
		"# task per node, results gathered into the launch folder (doc/fleet.md).\n"
		"# Submit with: sbatch THIS_FILE   (edit --nodes, --partition, --account)\n"
		"#SBATCH --job-name=nodebw-fleet\n"
		"#SBATCH --nodes=%d\n"
		"#SBATCH --ntasks-per-node=1\n"
		"#SBATCH --exclusive\n"
		"#SBATCH --time=%ld:%02ld:00\n"
		"#SBATCH --output=nodebw-fleet-%%j.log\n"
		"set -eu\n"
		"# One task per node; each measures its node in a child 'nodebw run' stopped after\n"
		"# --node-time-limit seconds. Without an MPI build the launch folder must be on a\n"
		"# file system every node shares (the submission folder usually is).\n"
		"srun --nodes=\"$SLURM_JOB_NUM_NODES\" --ntasks-per-node=1 --kill-on-bad-exit=0 \\\n"
		"  ", nodes > 0 ? nodes : 2, minutes / 60, minutes % 60);
	sh_word(f, exe);
	fputs(" fleet --output ", f);
	if (output && *output)
		sh_word(f, output);
	else
		fputs("\"nodebw-fleet/slurm-$SLURM_JOB_ID\"", f);
	fprintf(f, " --node-time-limit %.0f", node_limit_s);
	if (run_argc > 0) {
		fputs(" --", f);
		for (int i = 0; i < run_argc; i++) {
			fputc(' ', f);
			sh_word(f, run_argv[i]);
		}
	}
	fputs("\n", f);
}
