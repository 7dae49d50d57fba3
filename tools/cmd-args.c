/* SPDX-License-Identifier: BSD-3-Clause */
#include "cmd-args.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/cli.h"
#include "nodebw/results_view.h"
#include "nodebw/rundir.h"

void nbw_cmd_note_writer(const char *file, json_t *root)
{
	struct nbw_rv_doc h;
	nbw_rv_doc_read(root, &h);
	if (strcmp(h.state, "running") != 0)
		return;
	char *copy = strdup(file), owner[400];
	int w = copy ? nbw_rundir_writer(dirname(copy), owner, sizeof(owner)) : -1;
	free(copy);
	if (w == 1)
		fprintf(stderr, "nodebw: note: %s is still being written (%s): these are its "
				"results so far\n", file, owner);
	else if (w == 0)
		fprintf(stderr, "nodebw: note: %s says \"running\" but the nodebw writing it (%s) "
				"is gone, killed or failed before its last write: these are its "
				"results up to its last checkpoint\n", file, owner);
	else
		fprintf(stderr, "nodebw: note: %s says \"running\" and no nodebw on this host "
				"holds its folder%s%s: it may be from a run that was killed, or one "
				"still running elsewhere\n", file, owner[0] ? "; its lock says " : "",
			owner);
}

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
	nbw_cmd_note_writer(file, (*doc)->root);
	return 0;
}
