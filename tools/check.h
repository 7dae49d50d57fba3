/* SPDX-License-Identifier: BSD-3-Clause */
/* Accepting a node from the command line (include/nodebw/verdict.h, doc/check.md): the
 * options `nodebw check`, `probe` and `run` share, the criteria they name, and the verdicts
 * printed, saved beside the results and turned into the exit status. */
#ifndef NODEBW_TOOLS_CHECK_H
#define NODEBW_TOOLS_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "nodebw/verdict.h"

struct nbw_check_opts {
	bool on;                /**< verdicts wanted (--check, or the check command) */
	const char *thresholds; /**< the site's thresholds file, NULL = none */
	const char *references; /**< the published figures: NULL = the shipped table, "none" */
	double tolerance;       /**< under a published figure's low end (fraction) */
	double fraction;        /**< of the theoretical figure */
	bool all;               /**< list every path, not only those that did not pass */
	bool strict;            /**< a warning (a published minimum's band) fails the node */
};

/** The exit status when nothing was judged, or a site rule judged no path, and nothing
 *  failed (doc/check.md): 0 pass (a warning too, unless --strict: then 1), 1 fail, 2 bad
 *  input, 3 not judged. */
#define NBW_CHECK_EXIT_NOT_JUDGED 3

/** Take --check FILE (probe, run: \p with_check), --thresholds FILE (check), --references
 *  FILE|none, --tolerance PCT, --min-fraction PCT, --all and --strict out of argv[1..]; 0
 *  or -1 with \p err. */
int nbw_check_extract(int *argc, char **argv, bool with_check, struct nbw_check_opts *co,
		      char *err, size_t errlen);
/** For the commands that only show verdicts (report, compare): a copy of argv into \p *av
 *  (the caller frees it) without the check options, whose criteria go to \p *cr (the
 *  shipped published figures when none is named; NULL when they cannot be read and nothing
 *  was asked for). 0, or NBW_EXIT_USAGE or 1 after one line on stderr. */
int nbw_check_cmd_criteria(int *argc, char **argv, char ***av, struct nbw_criteria **cr);
/** The criteria \p co names (the shipped table found where nodebw is installed, beside the
 *  source tree of a build, or in $NODEBW_REFERENCES); NULL with \p err on bad input. A
 *  shipped table that cannot be found is no error: \p note says so ("" otherwise). */
struct nbw_criteria *nbw_check_criteria(const struct nbw_check_opts *co, char *note,
					size_t notelen, char *err, size_t errlen);
/** Judge \p root (a results document), print the verdicts to \p f (or as JSON when
 *  \p json), and save them as \p dir/check.json when \p dir is not NULL. Returns the exit
 *  status of the outcome (nbw_check_status), or -1 (with \p err) on an error. */
/** The one size check's default plan measures: the smallest a published figure is judged
 *  at (min(its min_bytes, 64 MiB), doc/check.md). */
#define NBW_CHECK_PLAN_SIZE "64MiB"
/** argv (argv[0] the command) with check's default plan for the probes put after argv[0]:
 *  --quick, --sizes 64MiB, --mode async, --host-mem pinned, --no-hht-sweep, each unless the
 *  command line names that option, none with --default or --full (tools/check_plan.c).
 *  The new array (free it; its strings are argv's or static) and \p argc updated; NULL
 *  when out of memory. */
char **nbw_check_plan_args(int *argc, char **argv);
/** The exit status of verdicts \p v: 1 fail, NBW_CHECK_EXIT_NOT_JUDGED not judged, 0 pass
 *  or warning (1 with \p strict). */
int nbw_check_status(json_t *v, bool strict);
int nbw_check_results(json_t *root, const struct nbw_criteria *cr,
		      const struct nbw_check_opts *co, bool json, FILE *f, const char *dir,
		      char *err, size_t errlen);

#endif
