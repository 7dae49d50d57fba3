/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw check`'s default plan when it runs the probes itself (doc/check.md, "Time
 * budget"): only what the verdicts judge, so that a node of 8 GPUs is checked within two
 * minutes. Each part applies unless the command line names that option; --default or
 * --full (the probe's profiles, the whole size sweep) leave the probe's plan as it is.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* The plan, option by option: what it adds and the options that replace it. */
static const struct {
	const char *add[2];
	const char *unless[4];
} plan[] = {
	/* short repetitions: a time cap of 0.02 s per measurement */
	{ { "--quick", NULL }, { "--quick", NULL } },
	/* one size, the comparison size: a published figure needs >= 64 MiB (doc/check.md) */
	{ { "--sizes", NBW_CHECK_PLAN_SIZE }, { "--sizes", "--max-size", NULL } },
	/* one copy-engine mode, the one the published health checks use */
	{ { "--mode", "async" }, { "--mode", NULL } },
	/* the host memory the published figures name */
	{ { "--host-mem", "pinned" }, { "--host-mem", NULL } },
	{ { "--no-hht-sweep", NULL }, { "--hht-sweep", "--no-hht-sweep", NULL } },
};

static bool given(int argc, char **argv, const char *opt)
{
	size_t n = strlen(opt);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strncmp(argv[i], opt, n) && (argv[i][n] == '\0' || argv[i][n] == '='))
			return true;
	}
	return false;
}

char **nbw_check_plan_args(int *argc, char **argv)
{
	size_t cap = (size_t)*argc + 2 * (sizeof(plan) / sizeof(plan[0])) + 2;
	char **av = calloc(cap, sizeof(char *));
	if (!av)
		return NULL;
	int n = 0;
	av[n++] = argv[0];
	bool whole = given(*argc, argv, "--default") || given(*argc, argv, "--full");
	for (size_t k = 0; !whole && k < sizeof(plan) / sizeof(plan[0]); k++) {
		bool named = false;
		for (size_t u = 0; plan[k].unless[u]; u++)
			named |= given(*argc, argv, plan[k].unless[u]);
		if (named)
			continue;
		for (size_t a = 0; a < 2 && plan[k].add[a]; a++)
			av[n++] = (char *)plan[k].add[a];
	}
	for (int i = 1; i < *argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	*argc = n;
	return av;
}
