/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Command-line options of the probe subcommands (parsed here so they can be tested;
 * main() lives in tools/nodebw.c).
 */
#ifndef NODEBW_CLI_H
#define NODEBW_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "nodebw/items.h"
#include "nodebw/limits.h"
#include "nodebw/probe.h"
#include "nodebw/series.h"
#include "nodebw/face.h"
#include "nodebw/sizes.h"

#define NBW_MAX_LIST 16
#define NBW_EXIT_USAGE 2
/** Exit status of a command that ran to its end but some measurements (or solver runs)
 *  failed or did not pass verification; the report lists them. 1 is an error that stopped
 *  the command, 128 + N a stop by signal N. */
#define NBW_EXIT_PARTIAL 3
/** The longest --output: the OS's PATH_MAX less what nodebw appends inside the folder
 *  (report/plots/<name>.svg.part, .hht-N-XXXXXX/results.json.tmpXXXXXX, ...). */
#define NBW_OUTPUT_MAX (PATH_MAX - 256)

enum nbw_profile { NBW_PROFILE_DEFAULT, NBW_PROFILE_QUICK, NBW_PROFILE_FULL };

struct nbw_probe_opts {
	enum nbw_profile profile;
	char apis[NBW_MAX_LIST][16];      /**< empty list = every compiled backend */
	int napis;
	char probes[NBW_MAX_LIST][48];    /**< "htod", "omp-p2p", ...; empty = all */
	int nprobes;
	bool modes[NBW_MODE_COUNT];
	bool modes_given;                 /**< --mode named (else every mode) */
	bool hostmem[NBW_HOSTMEM_NONE];   /**< pageable, pinned, registered */
	bool peer[2];                     /**< P2P with peer access enabled, disabled */
	bool bind[3];                     /**< NUMA binding: none, local, remote (enum
					       nbw_bind_policy order); default local */
	bool threads[NBW_THREADS_COUNT];  /**< --threads 1, 2, all (enum nbw_threads) */
	int devices[NBW_MAX_DEVICES];
	int ndevices;                     /**< 0 = the first two devices */
	struct nbw_sizes sizes;
	bool sizes_given;
	/** --faces: the box shapes of the face probes (include/nodebw/face.h); when given, the
	 *  probe runs the face series in place of the size sweep. */
	struct nbw_face_shape faces[NBW_MAX_FACE_SHAPES];
	int nfaces;
	/** --faces-decomp: the decompositions PXxPYxPZ whose neighbour exchange the face probes
	 *  measure per shape (exchange-decomp, device to device and host-staged). */
	int decomps[NBW_MAX_DECOMPS][3];
	int ndecomps;
	/** --faces-fields: each decomposition's faces sent once per field per step (1 to
	 *  NBW_FACE_MAX_FIELDS; default 1) */
	int faces_fields;
	unsigned warmup, min_reps, max_reps;
	double min_time_s;                /**< per size: repeat until this much time is measured */
	/** Per size: stop repeating (and warming up) once the timed part would pass this many
	 *  seconds, down to 3 repetitions; 0 = no cap. Not applied below --reps or --warmup
	 *  when those were given. */
	double max_time_s;
	bool reps_given, warmup_given;
	int hidden_helpers;               /**< -1 = leave the runtime's setting alone */
	/** --cuda-sched: how host threads wait for CUDA GPUs: "spin", "yield", "blocking"
	 *  (set on each primary context before measuring) or "auto" (leave them as found) */
	char cuda_sched[16];
	bool hht_sweep;
	char output[PATH_MAX];            /**< results folder; empty = nodebw-results/<time> */
	bool replace; /**< --replace: results already in --output may be replaced */
	bool quiet;
	bool verbose; /**< --verbose: the terminal's table per series */
	bool json; /**< --json: the results document on stdout (implies quiet) */
};

/** Parse "probe"/"run" options (argv[0] is the subcommand). Returns 0, 1 when --help was
 *  given, or -1 with a one-line message in \p err (usage error: exit 2). */
int nbw_cli_parse_probe(int argc, char **argv, struct nbw_probe_opts *o, char *err,
			size_t errlen);
void nbw_cli_opts_free(struct nbw_probe_opts *o);
void nbw_cli_usage_probe(FILE *f, const char *cmd);

/** Parse "0,1,3" into ints in [0, max); rejects duplicates. 0 or -1 with \p err. */
/** One integer in [lo, hi]; 0, or -1 with "WHAT 'x' is not an integer" / "WHAT v is out of
 *  range (lo to hi)" in \p err. */
/** A decimal integer (digits, an optional leading minus; no blanks, plus sign or hex) in
 *  [lo, hi]. 0, or -1 with "WHAT 'S' is not an integer" / "WHAT V is out of range (LO to
 *  HI)" in \p err. */
int nbw_cli_parse_int(const char *s, long lo, long hi, long *out, const char *what, char *err,
		      size_t errlen);
/** A number in decimal notation (12, 0.5, .25, 1e-3; no hex, inf or nan) in [lo, hi]; the
 *  message names \p unit ("seconds"). */
int nbw_cli_parse_decimal(const char *s, double lo, double hi, double *out, const char *what,
			  const char *unit, char *err, size_t errlen);
/** A comma list of distinct integers, each in [lo, hi] (within int), at most \p max_items;
 *  \p *n of them into \p out. */
int nbw_cli_parse_int_list(const char *s, long lo, long hi, int *out, int max_items, int *n,
			   const char *what, char *err, size_t errlen);

/** Options as an argv for a child "probe" process (hidden-helper sweep). NULL-terminated,
 *  free with nbw_cli_argv_free. */
char **nbw_cli_probe_argv(const struct nbw_probe_opts *o, const char *exe);
void nbw_cli_argv_free(char **argv);

#endif
