/* SPDX-License-Identifier: BSD-3-Clause */
#include "cmd-args.h"

#include <string.h>

#include "nodebw/cli.h"

int nbw_cmd_one_results_file(int argc, char **argv, void (*usage)(FILE *), bool *json,
			     const char **path, struct nbw_doc **doc)
{
	const char *cmd = argv[0], *file = NULL;
	*json = false;
	*doc = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 1;
		}
		if (strcmp(argv[i], "--json") == 0) {
			*json = true;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "nodebw: error: unknown option '%s' (see 'nodebw %s --help')\n",
				argv[i], cmd);
			return NBW_EXIT_USAGE;
		} else if (file) {
			fprintf(stderr, "nodebw: error: '%s' takes one results file\n", cmd);
			return NBW_EXIT_USAGE;
		} else {
			file = argv[i];
		}
	}
	if (!file) {
		fprintf(stderr, "nodebw: error: '%s' needs a results file (results.json)\n", cmd);
		return NBW_EXIT_USAGE;
	}
	char err[1024];
	*path = file;
	*doc = nbw_doc_load(file, err, sizeof(err));
	if (!*doc) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return NBW_EXIT_USAGE;
	}
	return 0;
}
