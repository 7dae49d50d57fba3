// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target: bytes -> an argument vector (split at NUL and newline bytes) -> the
 * options of `nodebw fleet` (nbw_fleet_parse_opts) and, after --, the run's options as the
 * probe parser reads them (nbw_cli_parse_probe). A refusal must say why on one line; what
 * is accepted must be in range. Built with -Dfuzz=true (doc/fuzzing.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/cli.h"
#include "nodebw/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

static void one_line(const char *err)
{
	if (!err[0] || strchr(err, '\n'))
		abort(); /* every refusal says why, on one line */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	argv[argc++] = "fleet";
	for (char *p = text, *end = text + size; p <= end && argc < MAX_ARGS;) {
		size_t n = strcspn(p, "\n");
		p[n] = '\0';
		argv[argc++] = p;
		p += n + 1;
	}
	argv[argc] = NULL;
	struct nbw_fleet_cli c;
	char err[1024] = "";
	int rc = nbw_fleet_parse_opts(argc, argv, &c, err, sizeof(err));
	if (rc == NBW_EXIT_USAGE)
		one_line(err);
	else if (rc == 0 && (c.nodes < 1 || c.nodes > 100000 || !(c.o.node_limit_s > 0.0) ||
			     !(c.o.start_timeout_s > 0.0) || c.o.node_limit_s > 7 * 86400.0 ||
			     c.o.start_timeout_s > 7 * 86400.0))
		abort(); /* accepted out of range */
	if (rc == 0) {
		char *rargv[MAX_ARGS + 2];
		rargv[0] = "run";
		if (c.o.run_argc)
			memcpy(rargv + 1, c.o.run_argv, (size_t)c.o.run_argc * sizeof(char *));
		rargv[c.o.run_argc + 1] = NULL;
		struct nbw_probe_opts o;
		memset(&o, 0, sizeof(o));
		err[0] = '\0';
		int prc = nbw_cli_parse_probe(c.o.run_argc + 1, rargv, &o, err, sizeof(err));
		if (prc < 0)
			one_line(err);
		nbw_cli_opts_free(&o);
	}
	free(text);
	return 0;
}
