/* SPDX-License-Identifier: BSD-3-Clause */
/* The options of `nodebw fleet` (include/nodebw/fleet.h, nbw_fleet_parse_opts). */
#include <stdio.h>
#include <string.h>

#include "nodebw/cli.h"
#include "nodebw/fleet.h"

static int seconds(const char *opt, const char *s, double *out, char *err, size_t errlen)
{
	if (!s) {
		snprintf(err, errlen, "%s needs seconds", opt);
		return -1;
	}
	return nbw_cli_parse_decimal(s, 0.001, 7 * 86400.0, out, opt, "seconds", err, errlen);
}

/* Option \p argv[*i] and its value; 0, or -1 with \p err. */
static int one_option(int argc, char **argv, int *i, struct nbw_fleet_cli *c, char *err,
		      size_t errlen)
{
	const char *a = argv[*i], *next = *i + 1 < argc ? argv[*i + 1] : NULL;
	struct nbw_fleet_opts *o = &c->o;
	if (strcmp(a, "--print-sbatch") == 0) {
		c->sbatch = true;
	} else if (strcmp(a, "--no-compare") == 0) {
		o->no_compare = true;
	} else if ((strcmp(a, "--output") == 0 || strcmp(a, "--local-dir") == 0 ||
		    strcmp(a, "--transport") == 0) && next && *next) {
		if (strcmp(a, "--output") == 0)
			o->output = next;
		else if (strcmp(a, "--local-dir") == 0)
			o->local_dir = next;
		else
			o->transport = next;
		(*i)++;
	} else if (strcmp(a, "--node-time-limit") == 0 || strcmp(a, "--start-timeout") == 0) {
		if (seconds(a, next, strcmp(a, "--start-timeout") == 0 ? &o->start_timeout_s
								       : &o->node_limit_s,
			    err, errlen))
			return -1;
		(*i)++;
	} else if (strcmp(a, "--nodes") == 0) {
		long v;
		if (!next) {
			snprintf(err, errlen, "--nodes needs a node count");
			return -1;
		}
		if (nbw_cli_parse_int(next, 1, 100000, &v, "--nodes", err, errlen))
			return -1;
		c->nodes = (int)v;
		(*i)++;
	} else {
		snprintf(err, errlen, "unknown option or missing value: %.200s (see 'nodebw fleet "
				      "--help'; options for the run go after --)", a);
		return -1;
	}
	return 0;
}

int nbw_fleet_parse_opts(int argc, char **argv, struct nbw_fleet_cli *c, char *err,
			 size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->o.transport = "auto";
	c->o.node_limit_s = NBW_FLEET_NODE_LIMIT_S;
	c->o.start_timeout_s = NBW_FLEET_START_TIMEOUT_S;
	c->nodes = 2;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			c->o.run_argv = argv + i + 1;
			c->o.run_argc = argc - i - 1;
			break;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
		if (one_option(argc, argv, &i, c, err, errlen))
			return NBW_EXIT_USAGE;
	}
	if (strcmp(c->o.transport, "auto") != 0 && strcmp(c->o.transport, "mpi") != 0 &&
	    strcmp(c->o.transport, "fs") != 0) {
		snprintf(err, errlen, "--transport %.100s: give auto, mpi or fs", c->o.transport);
		return NBW_EXIT_USAGE;
	}
	return nbw_fleet_check_run_argv(&c->o, err, errlen) ? NBW_EXIT_USAGE : 0;
}
