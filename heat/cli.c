/* SPDX-License-Identifier: BSD-3-Clause */
/* Options of `nodebw heat`: parsed and checked here (no device needed), completed against
 * the devices that exist by nbw_heat_resolve_devices. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_general.h"
#include "nodebw/cli.h"
#include "nodebw/heat.h"

#define MAX_SIDE NBW_GRID_MAX_SIDE
#define MAX_STEPS NBW_STEPS_MAX
#define MAX_REF_THREADS 1024

enum {
	OPT_N = 256, OPT_SHAPES, OPT_NX, OPT_NY, OPT_NZ, OPT_STEPS, OPT_VERSION, OPT_DEVICES, OPT_GPUS,
	OPT_REPS, OPT_HH, OPT_REF_THREADS, OPT_INSTRUMENT, OPT_NO_EXCHANGE, OPT_PAIRED, OPT_LAUNCH_PROBE, OPT_CORUN, OPT_BASELINE_LAUNCH, OPT_BASELINE_BLOCKTIME, OPT_ROOFLINE, OPT_OUTPUT, OPT_REPLACE, OPT_QUIET, OPT_HELP,
	OPT_RADIUS, OPT_FIELDS, OPT_DECOMP, OPT_COPY, OPT_EXCHANGE, OPT_OVERLAP, OPT_APP,
};

static const struct option heat_options[] = {
	{ "n", required_argument, NULL, OPT_N },
	{ "nx", required_argument, NULL, OPT_NX },
	{ "ny", required_argument, NULL, OPT_NY },
	{ "nz", required_argument, NULL, OPT_NZ },
	{ "shapes", required_argument, NULL, OPT_SHAPES },
	{ "steps", required_argument, NULL, OPT_STEPS },
	{ "version", required_argument, NULL, OPT_VERSION },
	{ "versions", required_argument, NULL, OPT_VERSION },
	{ "devices", required_argument, NULL, OPT_DEVICES },
	{ "gpus", required_argument, NULL, OPT_GPUS },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "hidden-helpers", required_argument, NULL, OPT_HH },
	{ "ref-threads", required_argument, NULL, OPT_REF_THREADS },
	{ "instrument", no_argument, NULL, OPT_INSTRUMENT },
	{ "no-exchange", no_argument, NULL, OPT_NO_EXCHANGE },
	{ "paired", no_argument, NULL, OPT_PAIRED },
	{ "launch-probe", no_argument, NULL, OPT_LAUNCH_PROBE },
	{ "corun", no_argument, NULL, OPT_CORUN },
	{ "baseline-launch", required_argument, NULL, OPT_BASELINE_LAUNCH },
	{ "baseline-blocktime", required_argument, NULL, OPT_BASELINE_BLOCKTIME },
	{ "roofline-gbs", required_argument, NULL, OPT_ROOFLINE },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "replace", no_argument, NULL, OPT_REPLACE },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "radius", required_argument, NULL, OPT_RADIUS },
	{ "fields", required_argument, NULL, OPT_FIELDS },
	{ "decomp", required_argument, NULL, OPT_DECOMP },
	{ "copy", required_argument, NULL, OPT_COPY },
	{ "exchange", required_argument, NULL, OPT_EXCHANGE },
	{ "overlap", required_argument, NULL, OPT_OVERLAP },
	{ "app", required_argument, NULL, OPT_APP },
	{ NULL, 0, NULL, 0 },
};

void nbw_heat_usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw heat [OPTIONS]\n"
		"\n"
		"The seed paper's 3D heat solver (7-point stencil, variable kappa, split along z):\n"
		"a serial CPU reference, the OpenMP offload 1-device baseline and Versions 1-4 on\n"
		"G >= 2 devices, and a general version (stencil radius 1-4, 1-4 fields, devices\n"
		"in a PX x PY x PZ grid). Every variant is verified against the serial reference\n"
		"(|u - u_ref| <= 1e-6 + 1e-5 |u_ref|, no NaN/Inf); a failure exits with status 3.\n"
		"\n"
		"Problem:\n"
		"  --n LIST             cubic grids of N^3 points, e.g. 64,96 (default 64)\n"
		"  --nx N --ny N --nz N one box of nx x ny x nz points (all three; instead of --n);\n"
		"                       --nz P+2 reproduces the slab of P planes one device holds\n"
		"  --shapes LIST        several boxes, e.g. 96x96x50,96x96x26 (instead of --n)\n"
		"  --steps S            time steps, an integer (default 100)\n"
		"  --radius R           stencil radius 1-4: 7-, 13-, 19- or 25-point star, a\n"
		"                       boundary layer and halos R deep (default 1); every version\n"
		"  --fields F           independent fields stepped and exchanged each step, 1-4\n"
		"                       (default 1); every version\n"
		"  --app APP.json       an application description (nodebw-app): its grid,\n"
		"                       decomposition, radius, fields, exchange, copy, overlap and\n"
		"                       steps (--steps overrides them); runs serial and general\n"
		"                       unless --versions says otherwise; the solver computes in\n"
		"                       8-byte doubles whatever element_bytes the app names\n"
		"Variants:\n"
		"  --versions LIST      serial, baseline, v1, v2, v3, v4, general, or all (default\n"
		"                       all: every version but general); --version is the same\n"
		"                       option\n"
		"                         serial    CPU reference: plain host loops, no offload\n"
		"                         baseline  OpenMP offload on one device\n"
		"                         v1        one host thread, host-staged, blocking copies\n"
		"                         v2        one host thread, host-staged, async + depobj\n"
		"                         v3        a host thread per device, host-staged, async\n"
		"                         v4        a host thread per device, device to device\n"
		"                         general   a host thread per device, devices in a grid\n");
	heat_usage_general(f);
	fprintf(f,
		"  --devices LIST       OpenMP device ids to use, in order (default: every device)\n"
		"  --gpus LIST          device counts G: each run uses the first G of --devices\n"
		"                       (default 1 and the whole list); baseline runs for G = 1,\n"
		"                       v1-v4 for G >= 2, serial once per grid\n"
		"  --reps R             timed repetitions of each run (default 1; median reported)\n"
		"  --baseline-launch L  sync (default: one blocking target region per step, the\n"
		"                       paper's baseline) or nowait (the kernel form and launch of\n"
		"                       Versions 1-4: target nowait + taskwait; what the extended\n"
		"                       model calibrates on)\n"
		"  --baseline-blocktime MS\n"
		"                       libomp's blocktime (KMP_BLOCKTIME, 0-1000 ms) for the\n"
		"                       baseline runs only: how long their idle OpenMP threads\n"
		"                       spin before they sleep (default: the process's setting;\n"
		"                       nodebw run gives 10 on host-plugin devices, where the\n"
		"                       other runs use 0)\n"
		"  --instrument         also time each step phase by phase: interior kernels,\n"
		"                       boundary kernels, halo exchange, synchronisation (an extra\n"
		"                       run that waits after every phase)\n"
		"  --no-exchange        v1-v4 without the halo copies: their kernels, launches and\n"
		"                       synchronisation on G devices at once (what the compute-calibrated\n"
		"                       model calibrates on); verified against a serial run of\n"
		"                       each slab with its ghost planes held at the start values\n"
		"  --paired             v1-v4: time each repetition twice, first without the halo\n"
		"                       copies, then with them, on the same device buffers; two\n"
		"                       records per run (exchange none and halo), each holding\n"
		"                       the other's samples (what the models are validated on,\n"
		"                       free of the machine's drift between separate runs)\n"
		"  --launch-probe       instead of the solver: the launch-latency probe, target\n"
		"                       regions that add 1 to a counter on the device, launched\n"
		"                       as the solver launches its kernels (blocking from one\n"
		"                       thread; nowait + taskwait from one thread, Versions 1-2;\n"
		"                       nowait + taskwait + barrier from a thread per device,\n"
		"                       Versions 3-4), two per device and step, for each G of\n"
		"                       --gpus; with --n, also the last form with the halo\n"
		"                       copies of Version 3 (staged) and 4 (direct) of each\n"
		"                       N's plane (8 N^2 bytes), G >= 2; --steps steps per pass\n"
		"                       (default 100), --reps passes (default 15); records\n"
		"                       \"launch_probe\"\n"
		"  --corun              also the co-run probe on every grid that is the slab of a\n"
		"                       G of --gpus (N x N x (ceil((N-2)/G) + 2), --shapes):\n"
		"                       the baseline's nowait kernel on G devices at once, each\n"
		"                       with its own copy of the grid, driven by one host thread\n"
		"                       and by a thread per device (version \"corun\"; the\n"
		"                       one-device model, doc/model.md); with --nx/--ny/--nz,\n"
		"                       that box (an application's local box, any --radius and\n"
		"                       --fields) co-run so for every G >= 2 of --gpus\n"
		"  --hidden-helpers N   LIBOMP_NUM_HIDDEN_HELPER_THREADS for this run (0-16;\n"
		"                       nodebw restarts itself so the runtime sees it)\n"
		"  --ref-threads T      host threads of the serial reference (default: every\n"
		"                       core, or OMP_NUM_THREADS); any T gives the same bits\n"
		"Speed:\n"
		"  --roofline-gbs X     memory bandwidth roofline in GB/s (default: measured in the\n"
		"                       same process with a STREAM triad over 3 x 256 MiB arrays on\n"
		"                       the host for host-plugin devices and the serial reference,\n"
		"                       on device 0 of the list for GPUs)\n"
		"Output:\n"
		"  --output DIR         results folder (default nodebw-results/<date-time>); the\n"
		"                       runs are the array \"solver_runs\" of results.json; a\n"
		"                       folder that holds results already is refused\n"
		"  --replace            replace the results a --output folder already holds\n"
		"  --quiet              no table on stdout\n"
		"  -h, --help           this text\n"
		"\n"
		"Speed is reported in points per second (interior points x steps / seconds), in\n"
		"GB/s = 1e9 bytes per second counting 32 bytes per point and step (u, kappa, rhs\n"
		"read and u_new written once), and as a fraction of the roofline. Host-plugin\n"
		"devices are host memory, not GPUs. The timer covers the time steps only.\n"
		"\n"
		"Examples:\n"
		"  nodebw heat --n 64 --steps 100\n"
		"  nodebw heat --versions all --gpus 1,2,4 --n 64,96 --steps 50\n"
		"  nodebw heat --version v4 --devices 0,1,2 --nx 96 --ny 96 --nz 34 --instrument\n"
		"  nodebw heat --version v2 --gpus 4 --hidden-helpers 0\n"
		"  nodebw heat --version general --decomp 2x2x1 --radius 2 --fields 3 --copy pack\n"
		"  nodebw heat --app app.json --gpus 4\n");
}

static int one_version(const char *t, void *ctx, char *err, size_t errlen)
{
	struct nbw_heat_opts *o = ctx;
	if (strcmp(t, "all") == 0) {
		o->versions_all = true;
		for (int v = 0; v < NBW_HEAT_GENERAL; v++)
			o->versions[v] = true;
		return 0;
	}
	int v = nbw_heat_version_parse(t);
	if (v < 0) {
		snprintf(err, errlen,
			 "unknown version '%s' (serial, baseline, v1, v2, v3, v4, general, all)", t);
		return -1;
	}
	o->versions[v] = true;
	return 0;
}

static int parse_versions(const char *s, struct nbw_heat_opts *o, char *err, size_t errlen)
{
	return nbw_cli_each_item(s, "--version", one_version, o, err, errlen);
}

/* One box NXxNYxNZ of --shapes: three integers 3..MAX_SIDE. */
static int one_shape(const char *t, void *ctx, char *err, size_t errlen)
{
	struct nbw_heat_opts *o = ctx;
	char side[3][32];
	int k = 0;
	const char *p = t;
	for (; k < 3; k++) {
		size_t n = strcspn(p, "x");
		if (n == 0 || n >= sizeof(side[0]) || (k < 2 && p[n] != 'x') || (k == 2 && p[n])) {
			snprintf(err, errlen, "--shapes: '%s' is not a box NXxNYxNZ (e.g. 96x96x50)",
				 t);
			return -1;
		}
		memcpy(side[k], p, n);
		side[k][n] = '\0';
		p += n + (p[n] == 'x');
	}
	int v[3];
	for (int i = 0; i < 3; i++) {
		long x;
		if (nbw_cli_parse_int(side[i], 3, MAX_SIDE, &x, "--shapes: side", err, errlen))
			return -1;
		v[i] = (int)x;
	}
	if (o->nshapes == NBW_HEAT_MAX_SIZES) {
		snprintf(err, errlen, "--shapes: at most %d boxes", NBW_HEAT_MAX_SIZES);
		return -1;
	}
	memcpy(o->shapes[o->nshapes++], v, sizeof(v));
	return 0;
}

/* --shapes 96x96x50,96x96x26: boxes of nx x ny x nz points. */
static int parse_shapes(const char *arg, struct nbw_heat_opts *o, char *err, size_t errlen)
{
	o->nshapes = 0;
	return nbw_cli_each_item(arg, "--shapes", one_shape, o, err, errlen);
}

/* A grid's z extent and the device counts it must hold: Versions 1-4 split it along z (the
 * baseline runs on one device, the co-run probe gives every device the whole grid). */
static int check_slabs(const struct nbw_heat_opts *o, char *err, size_t errlen)
{
	bool split = false;
	for (int v = NBW_HEAT_V1; v <= NBW_HEAT_V4; v++)
		split |= o->versions[v];
	const int R = o->radius;
	for (int s = 0; split && s < o->nshapes; s++) {
		int nx = o->shapes[s][0], ny = o->shapes[s][1], nz = o->shapes[s][2];
		for (int k = 0; k < o->ngpus; k++)
			if (o->gpus[k] >= 2 && nz - 2 * R < o->gpus[k] * R) {
				if (R == 1)
					snprintf(err, errlen,
						 "grid %dx%dx%d has %d interior planes along z, fewer "
						 "than the %d devices: every device needs at least one "
						 "plane",
						 nx, ny, nz, nz - 2, o->gpus[k]);
				else
					snprintf(err, errlen,
						 "grid %dx%dx%d has %d interior planes along z: %d "
						 "devices need at least %d each (the radius %d)",
						 nx, ny, nz, nz - 2 * R, o->gpus[k], R, R);
				return -1;
			}
	}
	return heat_check_general(o, err, errlen);
}

/* --corun needs a G >= 2 of --gpus and, with --n/--shapes, a grid that is the slab of one
 * of them (else it would run nothing and say nothing); a box of --nx/--ny/--nz (an
 * application's local box) is co-run as it is, for every G >= 2. */
static int check_corun(const struct nbw_heat_opts *o, char *err, size_t errlen)
{
	if (!o->corun)
		return 0;
	if (o->nx > 0) {
		for (int k = 0; k < o->ngpus; k++)
			if (o->gpus[k] >= 2)
				return 0;
		snprintf(err, errlen, "--corun: --gpus has no G >= 2 devices to co-run the box "
				      "%dx%dx%d on", o->nx, o->ny, o->nz);
		return -1;
	}
	for (int s = 0; s < o->nshapes; s++)
		for (int k = 0; k < o->ngpus; k++)
			if (nbw_heat_is_slab_shape_r(o->shapes[s][0], o->shapes[s][1],
						     o->shapes[s][2], o->gpus[k], o->radius))
				return 0;
	snprintf(err, errlen, "--corun: no grid of --n/--shapes is the slab N x N x "
			      "(ceil((N-2)/G) + 2) of a G >= 2 of --gpus");
	return -1;
}

/* An explicitly named version that none of the device counts can run. */
static int check_versions_fit(const struct nbw_heat_opts *o, char *err, size_t errlen)
{
	if (o->versions_all)
		return 0;
	for (int v = NBW_HEAT_BASELINE; v < NBW_HEAT_VERSION_COUNT; v++) {
		if (!o->versions[v])
			continue;
		bool fits = false;
		for (int k = 0; k < o->ngpus; k++)
			fits |= heat_opts_fit(o, (enum nbw_heat_version)v, o->gpus[k]);
		if (!fits) {
			if (v == NBW_HEAT_GENERAL && o->decomp[0])
				snprintf(err, errlen,
					 "general with --decomp %dx%dx%d runs on %d devices, and no "
					 "device count of --gpus is that",
					 o->decomp[0], o->decomp[1], o->decomp[2],
					 o->decomp[0] * o->decomp[1] * o->decomp[2]);
			else
				snprintf(err, errlen, "%s runs on %s, and no device count of --gpus fits",
					 nbw_heat_version_name((enum nbw_heat_version)v),
					 v == NBW_HEAT_BASELINE ? "one device" : "two or more devices");
			return -1;
		}
	}
	return 0;
}

/* What the option parsers note beyond the options themselves. */
struct heat_parse_state {
	bool any_version, reps_given, steps_given;
	bool shape_opts;   /* --radius or --fields */
};

/* An option parser's answer when the option is not one of its group. */
#define NOT_MINE 1

/* The grid, versions and devices: --n, --shapes, --nx/--ny/--nz, --steps, --version,
 * --devices, --gpus. 0, -1 with \p err, or NOT_MINE. */
static int parse_grid_option(int c, struct nbw_heat_opts *o, struct heat_parse_state *st,
			     char *err, size_t errlen)
{
	long v = 0;
	int rc;
	switch (c) {
	case OPT_N:
		return nbw_cli_parse_int_list(optarg, 3, MAX_SIDE, o->sizes, NBW_HEAT_MAX_SIZES,
					      &o->nsizes, "--n", err, errlen);
	case OPT_SHAPES:
		return parse_shapes(optarg, o, err, errlen);
	case OPT_NX:
	case OPT_NY:
	case OPT_NZ: {
		const char *name = c == OPT_NX ? "--nx" : c == OPT_NY ? "--ny" : "--nz";
		rc = nbw_cli_parse_int(optarg, 3, MAX_SIDE, &v, name, err, errlen);
		int *dst = c == OPT_NX ? &o->nx : c == OPT_NY ? &o->ny : &o->nz;
		*dst = (int)v;
		return rc;
	}
	case OPT_STEPS:
		rc = nbw_cli_parse_int(optarg, 1, MAX_STEPS, &v, "--steps", err, errlen);
		o->steps = (int)v;
		st->steps_given = true;
		return rc;
	case OPT_RADIUS:
		rc = nbw_cli_parse_int(optarg, 1, NBW_HEAT_MAX_RADIUS, &v, "--radius", err, errlen);
		o->radius = (int)v;
		st->shape_opts = true;
		return rc;
	case OPT_FIELDS:
		rc = nbw_cli_parse_int(optarg, 1, NBW_HEAT_MAX_FIELDS, &v, "--fields", err, errlen);
		o->fields = (int)v;
		st->shape_opts = true;
		return rc;
	case OPT_DECOMP:
	case OPT_COPY:
	case OPT_EXCHANGE:
	case OPT_OVERLAP:
		o->general_opts = true;
		return heat_parse_general_option(c == OPT_DECOMP	 ? "--decomp"
						 : c == OPT_COPY	 ? "--copy"
						 : c == OPT_EXCHANGE ? "--exchange"
								     : "--overlap",
						 optarg, o, err, errlen);
	case OPT_APP:
		if (!*optarg || strlen(optarg) >= sizeof(o->app)) {
			snprintf(err, errlen, "--app needs a file name");
			return -1;
		}
		snprintf(o->app, sizeof(o->app), "%s", optarg);
		return 0;
	case OPT_VERSION:
		st->any_version = true;
		return parse_versions(optarg, o, err, errlen);
	case OPT_DEVICES:
		return nbw_cli_parse_int_list(optarg, 0, NBW_HEAT_MAX_DEVICES - 1, o->devices,
					      NBW_HEAT_MAX_DEVICES, &o->ndevices, "--devices", err,
					      errlen);
	case OPT_GPUS:
		return nbw_cli_parse_int_list(optarg, 1, NBW_HEAT_MAX_DEVICES, o->gpus,
					      NBW_HEAT_MAX_DEVICES, &o->ngpus, "--gpus", err,
					      errlen);
	default:
		return NOT_MINE;
	}
}

/* How the runs are repeated and measured: --reps, --hidden-helpers, --ref-threads,
 * --instrument, --no-exchange, --paired, --launch-probe, --baseline-launch,
 * --baseline-blocktime, --roofline-gbs. 0, -1 with \p err, or NOT_MINE. */
static int parse_run_option(int c, struct nbw_heat_opts *o, struct heat_parse_state *st,
			    char *err, size_t errlen)
{
	long v = 0;
	int rc;
	switch (c) {
	case OPT_REPS:
		rc = nbw_cli_parse_int(optarg, 1, 1000, &v, "--reps", err, errlen);
		o->reps = (int)v;
		st->reps_given = true;
		return rc;
	case OPT_HH:
		rc = nbw_cli_parse_int(optarg, 0, 16, &v, "--hidden-helpers", err, errlen);
		o->hidden_helpers = (int)v;
		return rc;
	case OPT_REF_THREADS:
		rc = nbw_cli_parse_int(optarg, 1, MAX_REF_THREADS, &v, "--ref-threads", err, errlen);
		o->ref_threads = (int)v;
		return rc;
	case OPT_INSTRUMENT: o->instrument = true; return 0;
	case OPT_NO_EXCHANGE: o->no_exchange = true; return 0;
	case OPT_PAIRED: o->paired = true; return 0;
	case OPT_LAUNCH_PROBE: o->launch_probe = true; return 0;
	case OPT_CORUN: o->corun = true; return 0;
	case OPT_BASELINE_LAUNCH:
		if (strcmp(optarg, "sync") != 0 && strcmp(optarg, "nowait") != 0) {
			snprintf(err, errlen, "--baseline-launch: '%s' (sync or nowait)", optarg);
			return -1;
		}
		o->baseline_nowait = strcmp(optarg, "nowait") == 0;
		return 0;
	case OPT_BASELINE_BLOCKTIME:
		rc = nbw_cli_parse_int(optarg, 0, 1000, &v, "--baseline-blocktime", err, errlen);
		o->baseline_blocktime_ms = (int)v;
		return rc;
	case OPT_ROOFLINE:
		/* 1e-6 GB/s (1 kB/s) to 1e6 GB/s (1 PB/s): a memory's bandwidth. */
		return nbw_cli_parse_decimal(optarg, 1e-6, 1e6, &o->roofline_gbs, "--roofline-gbs",
					     "GB/s", err, errlen);
	default:
		return NOT_MINE;
	}
}

/* Where the results go and what is said: --output, --quiet; and getopt's complaints.
 * 0 or -1 with \p err. */
static int parse_output_option(int c, char **argv, struct nbw_heat_opts *o, char *err,
			       size_t errlen)
{
	switch (c) {
	case OPT_OUTPUT:
		if (!*optarg || strlen(optarg) > NBW_OUTPUT_MAX) {
			snprintf(err, errlen, "--output needs a folder name of 1 to %d characters "
					      "(PATH_MAX %d less room for the files inside)",
				 NBW_OUTPUT_MAX, PATH_MAX);
			return -1;
		}
		snprintf(o->output, sizeof(o->output), "%s", optarg);
		return 0;
	case OPT_REPLACE: o->replace = true; return 0;
	case OPT_QUIET: o->quiet = true; return 0;
	case ':':
		snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		return -1;
	default:
		if (optopt > 0 && optopt < 256)
			snprintf(err, errlen, "unknown option '-%c' (see 'nodebw heat --help')",
				 optopt);
		else
			snprintf(err, errlen, "unknown option '%s' (see 'nodebw heat --help')",
				 argv[optind - 1]);
		return -1;
	}
}

/* --launch-probe takes only the options that say where and how often to launch. */
static int check_launch_probe(struct nbw_heat_opts *o, const struct heat_parse_state *st,
			      int given, char *err, size_t errlen)
{
	if (given || o->nshapes || st->any_version || o->instrument || o->no_exchange ||
	    o->paired || o->baseline_nowait || o->roofline_gbs > 0.0 ||
	    o->baseline_blocktime_ms >= 0 || o->corun || st->shape_opts || o->general_opts ||
	    o->app[0]) {
		snprintf(err, errlen, "--launch-probe measures launches only: it takes "
				      "--n, --devices, --gpus, --steps, --reps, "
				      "--hidden-helpers, --output and --quiet");
		return -1;
	}
	if (!st->reps_given)
		o->reps = 15;
	return 0;
}

/* The grids from --n, --nx/--ny/--nz (\p given of them) or --shapes, and the versions. */
static int resolve_grids(struct nbw_heat_opts *o, const struct heat_parse_state *st,
			 int given, char *err, size_t errlen)
{
	if (o->paired && o->no_exchange) {
		snprintf(err, errlen, "--paired times each repetition with and without the halo "
				      "copies; --no-exchange leaves them out: give one");
		return -1;
	}
	if (o->app[0] && (given || o->nsizes || o->nshapes || st->shape_opts || o->general_opts)) {
		snprintf(err, errlen, "--app sets the grid, decomposition, radius, fields, "
				      "exchange, copy and overlap: it goes without --n, --nx/--ny/"
				      "--nz, --shapes, --radius, --fields, --decomp, --copy, "
				      "--exchange and --overlap");
		return -1;
	}
	if (o->app[0] && heat_apply_app(o, !st->any_version, !st->steps_given, err, errlen))
		return -1;
	if (given && given < 3) {
		snprintf(err, errlen, "--nx, --ny and --nz go together (give all three)");
		return -1;
	}
	if ((given > 0) + (o->nsizes > 0) + (o->nshapes > 0) > 1) {
		snprintf(err, errlen, "--n, --nx/--ny/--nz and --shapes exclude each other");
		return -1;
	}
	if (!given && !o->nsizes && !o->nshapes && !o->app[0]) {
		o->sizes[0] = 64;
		o->nsizes = 1;
	}
	if (given) {
		o->shapes[0][0] = o->nx;
		o->shapes[0][1] = o->ny;
		o->shapes[0][2] = o->nz;
		o->nshapes = 1;
	} else if (o->nsizes) {
		for (int i = 0; i < o->nsizes; i++)
			o->shapes[i][0] = o->shapes[i][1] = o->shapes[i][2] = o->sizes[i];
		o->nshapes = o->nsizes;
	}
	if (!st->any_version && !o->app[0]) {
		o->versions_all = true;
		for (int i = 0; i < NBW_HEAT_GENERAL; i++)
			o->versions[i] = true;
	}
	if (heat_resolve_general(o, err, errlen) || heat_check_general(o, err, errlen))
		return -1;
	if (o->ngpus && (check_slabs(o, err, errlen) || check_versions_fit(o, err, errlen) ||
			 check_corun(o, err, errlen)))
		return -1;
	return 0;
}

int nbw_heat_parse(int argc, char **argv, struct nbw_heat_opts *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->steps = 100;
	o->reps = 1;
	o->hidden_helpers = -1;
	o->baseline_blocktime_ms = -1;
	o->radius = 1;
	o->fields = 1;
	o->overlap = true;
	o->copy = NBW_APP_RECT;
	o->exchange = NBW_APP_HOST_STAGED;
	struct heat_parse_state st = {false, false, false, false};
	int c, rc = 0;
	optind = 0; /* restart getopt: the subcommand sits at argv[0] */
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, "+:h", heat_options, NULL)) != -1) {
		if (c == 'h' || c == OPT_HELP)
			return 1;
		rc = parse_grid_option(c, o, &st, err, errlen);
		if (rc == NOT_MINE)
			rc = parse_run_option(c, o, &st, err, errlen);
		if (rc == NOT_MINE)
			rc = parse_output_option(c, argv, o, err, errlen);
	}
	if (rc == 0 && optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		rc = -1;
	}
	if (rc)
		return -1;
	int given = (o->nx > 0) + (o->ny > 0) + (o->nz > 0);
	if (o->launch_probe)
		return check_launch_probe(o, &st, given, err, errlen);
	return resolve_grids(o, &st, given, err, errlen);
}

int nbw_heat_resolve_devices(struct nbw_heat_opts *o, int ndev, char *err, size_t errlen)
{
	bool offload = false;
	for (int v = NBW_HEAT_BASELINE; v < NBW_HEAT_VERSION_COUNT; v++)
		offload |= o->versions[v];
	if (ndev <= 0 && o->launch_probe) {
		snprintf(err, errlen, "no OpenMP offload device: the launch probe needs one");
		return -1;
	}
	if (ndev <= 0 && offload && !o->versions_all) {
		snprintf(err, errlen, "no OpenMP offload device: only the serial reference can run");
		return -1;
	}
	for (int i = 0; i < o->ndevices; i++)
		if (o->devices[i] >= ndev) {
			if (ndev > 0)
				snprintf(err, errlen, "device %d does not exist (device ids 0 to %d)",
					 o->devices[i], ndev - 1);
			else
				snprintf(err, errlen,
					 "device %d does not exist (no OpenMP offload device)",
					 o->devices[i]);
			return -1;
		}
	if (o->ndevices == 0) {
		o->ndevices = ndev < NBW_HEAT_MAX_DEVICES ? ndev : NBW_HEAT_MAX_DEVICES;
		for (int i = 0; i < o->ndevices; i++)
			o->devices[i] = i;
	}
	if (o->ngpus == 0 && o->ndevices > 0) {
		o->gpus[o->ngpus++] = 1;
		if (o->ndevices > 1)
			o->gpus[o->ngpus++] = o->ndevices;
	}
	for (int k = 0; k < o->ngpus; k++)
		if (o->gpus[k] > o->ndevices) {
			if (o->ndevices < ndev)
				snprintf(err, errlen, "--gpus %d: the device list has %d device%s",
					 o->gpus[k], o->ndevices, o->ndevices == 1 ? "" : "s");
			else
				snprintf(err, errlen, "--gpus %d: only %d device%s exist%s", o->gpus[k],
					 ndev, ndev == 1 ? "" : "s", ndev == 1 ? "s" : "");
			return -1;
		}
	if (check_slabs(o, err, errlen) || check_versions_fit(o, err, errlen) ||
	    check_corun(o, err, errlen))
		return -1;
	return 0;
}
