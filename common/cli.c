/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/backends.h"
#include "nodebw/topology.h"

enum {
	OPT_API = 256, OPT_MAXTIME, OPT_PROBE, OPT_MODE, OPT_HOSTMEM, OPT_THREADS, OPT_DEVICES, OPT_SIZES,
	OPT_MAXSIZE, OPT_QUICK, OPT_FULL, OPT_WARMUP, OPT_REPS, OPT_MAXREPS, OPT_MINTIME,
	OPT_HH, OPT_HHT_SWEEP, OPT_DEFAULT, OPT_NO_HHT_SWEEP, OPT_OUTPUT, OPT_REPLACE, OPT_QUIET, OPT_VERBOSE, OPT_HELP,
	OPT_PEER, OPT_BIND, OPT_CUDA_SCHED, OPT_JSON, OPT_FACES, OPT_FACES_DECOMP,
	OPT_FACES_FIELDS,
};

static const struct option probe_options[] = {
	{ "api", required_argument, NULL, OPT_API },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "host-mem", required_argument, NULL, OPT_HOSTMEM },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "peer-access", required_argument, NULL, OPT_PEER },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "devices", required_argument, NULL, OPT_DEVICES },
	{ "sizes", required_argument, NULL, OPT_SIZES },
	{ "faces", required_argument, NULL, OPT_FACES },
	{ "faces-decomp", required_argument, NULL, OPT_FACES_DECOMP },
	{ "faces-fields", required_argument, NULL, OPT_FACES_FIELDS },
	{ "max-size", required_argument, NULL, OPT_MAXSIZE },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "full", no_argument, NULL, OPT_FULL },
	{ "default", no_argument, NULL, OPT_DEFAULT },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "max-reps", required_argument, NULL, OPT_MAXREPS },
	{ "min-time", required_argument, NULL, OPT_MINTIME },
	{ "max-time", required_argument, NULL, OPT_MAXTIME },
	{ "hidden-helpers", required_argument, NULL, OPT_HH },
	{ "cuda-sched", required_argument, NULL, OPT_CUDA_SCHED },
	{ "hht-sweep", no_argument, NULL, OPT_HHT_SWEEP },
	{ "no-hht-sweep", no_argument, NULL, OPT_NO_HHT_SWEEP },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "replace", no_argument, NULL, OPT_REPLACE },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* run's own options (nbw_cli_usage_probe). */
static const char run_usage[] =
	"Solver and report (run only; doc/model.md):\n"
	"  --solver-n LIST      grid sizes N of the solver runs (default 40,52,64,76 on\n"
	"                       host-plugin devices, 256-640 on GPUs, --full 512-1280)\n"
	"  --solver-steps N     time steps per run (default 120 host plugin, 100 GPU,\n"
	"                       --full 500)\n"
	"  --solver-rounds N    rounds of every solver configuration (default 10 on\n"
	"                       host-plugin devices, 3 on GPUs (5 with --full)); the\n"
	"                       models take each configuration's fastest round\n"
	"  --time-limit SECONDS the whole run's limit (default 300 with the quick\n"
	"                       profile, none with --default or --full; 0 = none):\n"
	"                       solver rounds past the third, and the extra rounds\n"
	"                       of unstable configurations, start only when they can\n"
	"                       end 15 s before it (the report's time)\n"
	"  --no-solver          probes only (no calibration or validation runs)\n"
	"  --no-report          no report folder (nodebw report makes it later)\n"
	"  --list-stages        print the stages these options run, each with what it\n"
	"                       runs and writes and its time estimate; run nothing\n"
	"                       (doc/run.md)\n"
	"  -v, --verbose        (run) the per-series lines on the terminal too (run.log)\n";

void nbw_cli_usage_probe(FILE *f, const char *cmd)
{
	fprintf(f,
		"Usage: nodebw %s [OPTIONS]\n"
		"\n"
		"%s"
		"\n"
		"Selection (comma-separated lists; default: everything):\n"
		"  --api LIST           backends: omp, host, cuda, hip, ze (see 'nodebw list'), or\n"
		"                       all (the default)\n"
		"  --probe LIST         htod, dtoh, p2p, or catalogue names such as omp-htod\n"
		"  --mode LIST          sync, async, nowait (OpenMP), parallel (host: all cores),\n"
		"                       kernel (a copy kernel beside the API's copies), chase\n"
		"  --host-mem LIST      pageable, pinned, registered, hugepage\n"
		"  --peer-access LIST   P2P with peer access enabled, disabled (where the API lets\n"
		"                       a program choose: CUDA, HIP)\n"
		"  --bind LIST          NUMA binding of the host threads and host buffers: local\n"
		"                       (the device's node; default), remote, none\n"
		"  --threads LIST       1 (one device, one host thread), 2 (two devices or both P2P\n"
		"                       directions from two host threads at once), all (every\n"
		"                       device at once: host-to-all, all-to-host, the P2P\n"
		"                       ring i -> i+1, and the P2P all-to-all, every ordered\n"
		"                       pair at once; one host thread per copy); default all\n"
		"                       three\n"
		"  --devices LIST       device ids (default: every device of each API): HtoD and\n"
		"                       DtoH measure each device, P2P every ordered pair and,\n"
		"                       with two threads, both directions of every pair; named\n"
		"                       devices get the whole size sweep, otherwise only the\n"
		"                       first device and the first pair of each kind of link (the\n"
		"                       others, all-at-once, the ring and all-to-all: smallest\n"
		"                       and largest size, for the matrices); two devices at\n"
		"                       once: the first two devices\n"
		"Sizes (K, M, G are decimal; KiB, MiB, GiB binary):\n"
		"  --sizes LIST         explicit sizes, e.g. 8,4KiB,2MB,1GiB\n"
		"  --faces LIST         halo-shaped copies instead of the size sweep: for each\n"
		"                       NXxNYxNZ:R:E (box elements, halo depth R, element\n"
		"                       bytes E; e.g. 96x96x96:2:8) the z-, y- and x-faces by\n"
		"                       rectangular copy and by pack/copy/unpack, host-staged and\n"
		"                       device to device, and the neighbour exchange of a line and\n"
		"                       a 2 x G/2 grid of devices (doc/faces.md)\n"
		"  --faces-decomp LIST  with --faces: for each PXxPYxPZ (devices along x, y, z;\n"
		"                       e.g. 2x2x1) the neighbour exchange of that decomposition\n"
		"                       (every neighbour pair both ways, every message at once),\n"
		"                       device to device and staged through --host-mem host boxes\n"
		"  --faces-fields N     with --faces-decomp: every face sent once per field, N\n"
		"                       fields (1-4, default 1), each field's messages chained\n"
		"                       on their own, as an application exchanges its fields\n"
		"  --max-size SIZE      largest power of two of the default sweep\n"
		"                       (default 256MiB, --quick 64MiB, --full 1GiB); the sweep\n"
		"                       adds the halo planes 8*N^2 B, N = 512, 640, ..., 1280\n"
		"Method:\n"
		"  --quick              short profile: every third power of two to 64 MiB, two\n"
		"                       halo planes, fewer repetitions (the default of 'run')\n"
		"  --default            standard profile: every power of two to 256 MiB and all\n"
		"                       seven halo planes (the default of 'probe')\n"
		"  --full               long profile (sizes to 1 GiB, more repetitions)\n"
		"  --warmup N           untimed transfers before timing (default 2, quick 1)\n"
		"  Repetitions per size are adaptive: at least the profile's minimum (6, full\n"
		"  10) and --min-time, then on until the 95 %% confidence interval of the median\n"
		"  time is within +-1 %% of it, or --max-reps or --max-time is reached (the\n"
		"  measurement then says \"not converged\").\n"
		"  --reps N             a fixed count instead: exactly N timed repetitions per\n"
		"                       size, whatever --min-time, --max-reps and --max-time say\n"
		"                       (its interval is still reported)\n"
		"  --max-reps N         maximum timed repetitions per size (default 500, quick\n"
		"                       5000, full 1000)\n"
		"  --max-time SECONDS   per size, stop repeating (and warming up) once the\n"
		"                       repetitions (copies and their checks) would pass this, down\n"
		"                       to 3 repetitions; 0 = no cap (default 0.1, quick 0.02, full\n"
		"                       0.15; never below --reps or --warmup when those are given)\n"
		"  --min-time SECONDS   repeat for at least this long per size (adaptive counts;\n"
		"                       default 0.005, quick 0.001, full 0.02)\n"
		"  --hidden-helpers N   LIBOMP_NUM_HIDDEN_HELPER_THREADS for this run (0-16;\n"
		"                       nodebw restarts itself so the runtime sees it)\n"
		"  --hht-sweep          also measure the async modes with 0, one per device and 8\n"
		"                       hidden helper threads (one child process each)%s\n"
		"  --no-hht-sweep       do not run the hidden-helper sweep\n"
		"  --cuda-sched WAIT    how host threads wait for CUDA GPUs: spin, yield or\n"
		"                       blocking (set on each device's primary context before\n"
		"                       measuring), or auto (leave them as found; the default).\n"
		"                       CUDA measurements record the setting in force ('sched')\n"
		"Output:\n"
		"  --output DIR         results folder (default nodebw-results/<date-time>):\n"
		"                       results.json (every sample) and results.csv (summaries)\n"
		"  --replace            replace the results --output holds (refused without it)\n"
		"  --quiet              no tables on stdout\n"
		"  -v, --verbose        a table per series with a row per size (default: one\n"
		"                       line per series; the files have every size)\n"
		"  --json               the results document (results.json) on stdout at the end,\n"
		"                       nothing else there (progress and notes go to stderr)\n"
		"  --check FILE         at the end, a verdict for every path against the site's\n"
		"                       thresholds FILE, the shipped published figures and the\n"
		"                       links' theoretical figures (check.json; exit 1 when a path\n"
		"                       fails, 3 when nothing or a site rule judged nothing;\n"
		"                       --references FILE|none, --tolerance PCT, --min-fraction\n"
		"                       PCT, --strict, --all: see 'nodebw check --help')\n"
		"  -h, --help           this text (also 'nodebw help %s')\n"
		"%s"
		"\n"
		"Bandwidth is printed in GB/s = 1e9 bytes per second.\n"
		"\n"
		"Examples:\n"
		"  nodebw %s --quick\n"
		"  nodebw %s --probe htod --mode sync --host-mem pinned --sizes 1MiB,64MiB,1GiB\n"
		"  nodebw %s --probe p2p --devices 2,3 --hidden-helpers 4\n",
		cmd,
		strcmp(cmd, "run") == 0
			? "Run the main job: topology, every probe of every available API with the\n"
			  "hidden-helper sweep, the heat solver's calibration and validation runs,\n"
			  "calibration.json and the report (report/report.html), into one folder.\n"
			: "Measure host-to-device, device-to-host and device-to-device transfers over\n"
			  "a size sweep. Every transfer is verified outside the timed region.\n",
		strcmp(cmd, "run") == 0 ? " (on by default for run)" : "", cmd,
		strcmp(cmd, "run") == 0
			? run_usage
			: "",
		cmd, cmd, cmd);
}

int nbw_cli_parse_int(const char *s, long lo, long hi, long *out, const char *what, char *err,
		      size_t errlen)
{
	char *end = NULL;
	/* Digits with an optional minus only: strtol would also take blanks and a plus. */
	if (!((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9'))) {
		snprintf(err, errlen, "%s '%s' is not an integer", what, s);
		return -1;
	}
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno == ERANGE) {
		snprintf(err, errlen, "%s %s is out of range (%ld to %ld)", what, s, lo, hi);
		return -1;
	}
	if (errno || !end || end == s || *end) {
		snprintf(err, errlen, "%s '%s' is not an integer", what, s);
		return -1;
	}
	if (v < lo || v > hi) {
		snprintf(err, errlen, "%s %ld is out of range (%ld to %ld)", what, v, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int nbw_cli_parse_decimal(const char *s, double lo, double hi, double *out, const char *what,
			  const char *unit, char *err, size_t errlen)
{
	/* Decimal notation only, [digits][.digits][e[+-]digits]: strtod would also read hex
	 * (0x10 = 16), inf, nan and leading blanks. */
	size_t i = 0, digits = 0;
	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (s[i] == '.')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (digits && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = ++i;
		if (s[i] == '+' || s[i] == '-')
			e = ++i;
		while (s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == e)
			digits = 0;
	}
	char *end = NULL;
	errno = 0;
	double v = digits && !s[i] ? strtod(s, &end) : NAN;
	if (!digits || s[i] || errno || !isfinite(v) || v < lo || v > hi) {
		snprintf(err, errlen, "%s '%s' must be %s from %g to %g, in decimal notation", what,
			 s, unit, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

struct int_list {
	long lo, hi;
	int *out, max, *n;
	const char *what;
};

static int one_int(const char *t, void *ctx, char *err, size_t errlen)
{
	struct int_list *l = ctx;
	long v;
	if (nbw_cli_parse_int(t, l->lo, l->hi, &v, l->what, err, errlen))
		return -1;
	if (*l->n >= l->max) {
		snprintf(err, errlen, "too many %ss (at most %d)", l->what, l->max);
		return -1;
	}
	for (int i = 0; i < *l->n; i++)
		if (l->out[i] == (int)v) {
			snprintf(err, errlen, "%s %ld is listed twice", l->what, v);
			return -1;
		}
	l->out[(*l->n)++] = (int)v;
	return 0;
}

int nbw_cli_parse_int_list(const char *s, long lo, long hi, int *out, int max_items, int *n,
			   const char *what, char *err, size_t errlen)
{
	*n = 0;
	if (lo < INT_MIN || hi > INT_MAX || lo > hi) {
		snprintf(err, errlen, "%s: bad range", what);
		return -1;
	}
	struct int_list l = {lo, hi, out, max_items, n, what};
	return nbw_cli_each_item(s, what, one_int, &l, err, errlen);
}

/* Split an option's comma list and call \p one for every item. */
static int each_item(const char *opt, const char *s,
		     int (*one)(const char *, void *, char *, size_t), void *ctx, char *err,
		     size_t errlen)
{
	return nbw_cli_each_item(s, opt, one, ctx, err, errlen);
}

static int one_mode(const char *t, void *ctx, char *err, size_t errlen)
{
	int m = nbw_mode_parse(t);
	if (m < 0) {
		snprintf(err, errlen, "unknown mode '%s' (sync, async, nowait, parallel, kernel, chase)",
			 t);
		return -1;
	}
	((bool *)ctx)[m] = true;
	return 0;
}

static int one_hostmem(const char *t, void *ctx, char *err, size_t errlen)
{
	int m = nbw_hostmem_parse(t);
	if (m < 0 || m == NBW_HOSTMEM_NONE) {
		snprintf(err, errlen,
			 "unknown host memory kind '%s' (pageable, pinned, registered, hugepage)", t);
		return -1;
	}
	((bool *)ctx)[m] = true;
	return 0;
}

static int one_peer(const char *t, void *ctx, char *err, size_t errlen)
{
	int p = nbw_peer_parse(t);
	if (p != NBW_PEER_ON && p != NBW_PEER_OFF) {
		snprintf(err, errlen, "unknown peer access '%s' (enabled, disabled)", t);
		return -1;
	}
	((bool *)ctx)[p - NBW_PEER_ON] = true;
	return 0;
}

static int one_bind(const char *t, void *ctx, char *err, size_t errlen)
{
	int p = nbw_bind_policy_parse(t);
	if (p < 0) {
		snprintf(err, errlen, "unknown binding '%s' (local, remote, none)", t);
		return -1;
	}
	((bool *)ctx)[p] = true;
	return 0;
}

static int one_threads(const char *t, void *ctx, char *err, size_t errlen)
{
	int k = nbw_threads_parse(t);
	if (k < 0) {
		snprintf(err, errlen, "unknown thread count '%s' (1, 2 or all)", t);
		return -1;
	}
	((bool *)ctx)[k] = true;
	return 0;
}

static int one_api(const char *t, void *ctx, char *err, size_t errlen)
{
	struct nbw_probe_opts *o = ctx;
	if (strcmp(t, "all") == 0)
		return 0;
	if (!nbw_backend_find(t) && !nbw_backend_known(t)) {
		size_t n;
		const struct nbw_backend_ops *const *all = nbw_backends(&n);
		char built[128] = "";
		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(built);
			snprintf(built + l, sizeof(built) - l, "%s%s", i ? ", " : "", all[i]->name);
		}
		snprintf(err, errlen, "unknown API '%s' (built into this nodebw: %s%sall)", t, built,
			 n ? ", " : "");
		return -1;
	}
	if (o->napis >= NBW_MAX_LIST)
		return 0;
	snprintf(o->apis[o->napis++], sizeof(o->apis[0]), "%s", t);
	return 0;
}

static int one_probe(const char *t, void *ctx, char *err, size_t errlen)
{
	struct nbw_probe_opts *o = ctx;
	struct nbw_probe_info cat[64];
	size_t n = nbw_probe_catalogue(cat, 64);
	bool ok = nbw_dir_parse(t) >= 0;
	for (size_t i = 0; i < n && !ok; i++)
		ok = strcmp(cat[i].name, t) == 0;
	if (!ok) {
		snprintf(err, errlen,
			 "unknown probe '%s' (htod, dtoh, p2p, or a name from 'nodebw list')", t);
		return -1;
	}
	if (o->nprobes < NBW_MAX_LIST)
		snprintf(o->probes[o->nprobes++], sizeof(o->probes[0]), "%s", t);
	return 0;
}

static const char *profile_name(int opt)
{
	return opt == OPT_QUICK ? "--quick" : opt == OPT_FULL ? "--full" : "--default";
}

static void apply_profile(struct nbw_probe_opts *o)
{
	switch (o->profile) {
	/* Repetitions are adaptive: at least min_reps (6 reach the 95 % interval of the
	 * median) and min_time_s, then on until that interval is within +-1 %, up to max_reps
	 * or max_time_s of repetitions per size (probe/exec.c). */
	case NBW_PROFILE_QUICK:
		/* The time cap decides here, not a repetition count: 5000 only stops copies so
		 * short (< 0.3 us) that the timer's steps keep the interval from +-1 %. With 100
		 * the probes took 52 s and 247 of 1122 measurements converged; with 5000 73 s
		 * and 450 (2-core VM). Once every device and pair was measured the cap went
		 * from 0.05 s to 0.02 s to keep 'probe --quick' of the whole node within a
		 * minute (doc/architecture.md). */
		o->warmup = 1, o->min_reps = 6, o->max_reps = 5000, o->min_time_s = 0.001;
		o->max_time_s = 0.02;
		break;
	case NBW_PROFILE_FULL:
		o->warmup = 3, o->min_reps = 10, o->max_reps = 1000, o->min_time_s = 0.02;
		o->max_time_s = 0.15;
		break;
	default:
		o->warmup = 2, o->min_reps = 6, o->max_reps = 500, o->min_time_s = 0.005;
		o->max_time_s = 0.1;
		break;
	}
}

static void set_all(bool *v, int n, bool on)
{
	for (int i = 0; i < n; i++)
		v[i] = on;
}

/* What the options of "probe" and "run" said, before the profile fills the rest. */
struct probe_args {
	bool modes[NBW_MODE_COUNT], mems[NBW_HOSTMEM_NONE], threads[NBW_THREADS_COUNT];
	bool peer[2], bind[3];
	bool any_mode, any_mem, any_threads, any_peer, any_bind;
	long warm, reps, maxreps;
	double mintime, maxtime;
	uint64_t max_size;
	const char *sizes;
};

/* One option \p c of getopt_long: 0, -1 with \p err, or 1 for --help. */
static int probe_option(int c, int argc, char **argv, struct probe_args *ps,
			struct nbw_probe_opts *o, char *err, size_t errlen)
{
	int rc = 0;
	(void)argc;
	switch (c) {
	case OPT_API: rc = each_item("--api", optarg, one_api, o, err, errlen); break;
	case OPT_PROBE: rc = each_item("--probe", optarg, one_probe, o, err, errlen); break;
	case OPT_MODE: rc = each_item("--mode", optarg, one_mode, ps->modes, err, errlen); ps->any_mode = true; break;
	case OPT_HOSTMEM: rc = each_item("--host-mem", optarg, one_hostmem, ps->mems, err, errlen); ps->any_mem = true; break;
	case OPT_THREADS: rc = each_item("--threads", optarg, one_threads, ps->threads, err, errlen); ps->any_threads = true; break;
	case OPT_PEER: rc = each_item("--peer-access", optarg, one_peer, ps->peer, err, errlen); ps->any_peer = true; break;
	case OPT_BIND: rc = each_item("--bind", optarg, one_bind, ps->bind, err, errlen); ps->any_bind = true; break;
	case OPT_DEVICES:
		rc = nbw_cli_parse_int_list(optarg, 0, NBW_MAX_DEVICES - 1, o->devices,
					    NBW_MAX_DEVICES, &o->ndevices, "--devices", err,
					    errlen);
		break;
	case OPT_SIZES: ps->sizes = optarg; break;
	case OPT_FACES:
		rc = nbw_face_shapes_parse(optarg, o->faces, NBW_MAX_FACE_SHAPES, &o->nfaces, err,
					   errlen);
		break;
	case OPT_FACES_DECOMP:
		rc = nbw_face_decomps_parse(optarg, o->decomps, NBW_MAX_DECOMPS, &o->ndecomps, err,
					    errlen);
		break;
	case OPT_FACES_FIELDS: {
		long v = 1;
		rc = nbw_cli_parse_int(optarg, 1, NBW_FACE_MAX_FIELDS, &v, "--faces-fields", err,
				       errlen);
		o->faces_fields = (int)v;
		break;
	}
	case OPT_MAXSIZE: rc = nbw_size_parse(optarg, &ps->max_size, err, errlen); break;
	case OPT_QUICK: o->profile = NBW_PROFILE_QUICK; break;
	case OPT_FULL: o->profile = NBW_PROFILE_FULL; break;
	case OPT_DEFAULT: o->profile = NBW_PROFILE_DEFAULT; break;
	case OPT_WARMUP: rc = nbw_cli_parse_int(optarg, 0, 1000, &ps->warm, "--warmup", err, errlen); break;
	case OPT_REPS: rc = nbw_cli_parse_int(optarg, 1, NBW_REPS_MAX, &ps->reps, "--reps", err, errlen); break;
	case OPT_MAXREPS: rc = nbw_cli_parse_int(optarg, 1, NBW_REPS_MAX, &ps->maxreps, "--max-reps", err, errlen); break;
	case OPT_MINTIME:
		rc = nbw_cli_parse_decimal(optarg, 0.0, 3600.0, &ps->mintime, "--min-time",
					   "seconds", err, errlen);
		break;
	case OPT_MAXTIME:
		rc = nbw_cli_parse_decimal(optarg, 0.0, 3600.0, &ps->maxtime, "--max-time",
					   "seconds", err, errlen);
		break;
	case OPT_HH: {
		long v = -1;
		rc = nbw_cli_parse_int(optarg, 0, 16, &v, "--hidden-helpers", err, errlen);
		o->hidden_helpers = (int)v;
		break;
	}
	case OPT_HHT_SWEEP: o->hht_sweep = true; break;
	case OPT_CUDA_SCHED:
		if (strcmp(optarg, "spin") && strcmp(optarg, "yield") &&
		    strcmp(optarg, "blocking") && strcmp(optarg, "auto")) {
			snprintf(err, errlen,
				 "unknown --cuda-sched '%s' (spin, yield, blocking, auto)", optarg);
			rc = -1;
			break;
		}
		snprintf(o->cuda_sched, sizeof(o->cuda_sched), "%s", optarg);
		break;
	case OPT_NO_HHT_SWEEP: o->hht_sweep = false; break;
	case OPT_OUTPUT:
		if (!*optarg || strlen(optarg) > NBW_OUTPUT_MAX) {
			snprintf(err, errlen, "--output needs a folder name of 1 to %d "
					      "characters (PATH_MAX %d less room for the "
					      "files inside)",
				 NBW_OUTPUT_MAX, PATH_MAX);
			rc = -1;
		}
		snprintf(o->output, sizeof(o->output), "%s", optarg);
		break;
	case OPT_REPLACE: o->replace = true; break;
	case OPT_QUIET: o->quiet = true; break;
	case 'v':
	case OPT_VERBOSE: o->verbose = true; break;
	case OPT_JSON: o->json = o->quiet = true; break;
	case 'h':
	case OPT_HELP: rc = 1; break;
	case ':':
		snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		rc = -1;
		break;
	default:
		if (optopt > 0 && optopt < 256)
			snprintf(err, errlen, "unknown option '-%c' (see 'nodebw %s --help')",
				 optopt, argv[0]);
		else
			snprintf(err, errlen, "unknown option '%s' (see 'nodebw %s --help')",
				 argv[optind - 1], argv[0]);
		rc = -1;
		break;
	}
	return rc;
}

/* The selections nobody named: all of them (registered memory not in the quick profile). */
static int probe_selection(const struct probe_args *ps, struct nbw_probe_opts *o, char *err,
			   size_t errlen)
{
	memcpy(o->modes, ps->modes, sizeof(ps->modes));
	memcpy(o->hostmem, ps->mems, sizeof(ps->mems));
	memcpy(o->threads, ps->threads, sizeof(ps->threads));
	memcpy(o->peer, ps->peer, sizeof(ps->peer));
	memcpy(o->bind, ps->bind, sizeof(ps->bind));
	if (!ps->any_bind)
		o->bind[NBW_BIND_LOCAL] = true;
	if (!ps->any_mode) set_all(o->modes, NBW_MODE_COUNT, true);
	o->modes_given = ps->any_mode;
	if (!ps->any_mem) {
		/* The quick profile leaves registered memory out unless asked for by name;
		 * huge pages only when asked for by name (they need a reserved pool). */
		set_all(o->hostmem, NBW_HOSTMEM_NONE, true);
		o->hostmem[NBW_HOSTMEM_REGISTERED] = o->profile != NBW_PROFILE_QUICK;
		o->hostmem[NBW_HOSTMEM_HUGEPAGE] = false;
	}
	if (!ps->any_threads) set_all(o->threads, NBW_THREADS_COUNT, true);
	/* Asked for several devices at once, and named only one. */
	if (ps->any_threads && o->ndevices == 1 && !o->threads[NBW_THREADS_1]) {
		snprintf(err, errlen, "--threads %s needs at least two devices; --devices lists one",
			 o->threads[NBW_THREADS_2] ? "2" : "all");
		return -1;
	}
	if (!ps->any_peer) set_all(o->peer, 2, true);
	return 0;
}

/* --sizes, --max-size or the profile's sweep. */
static int probe_sizes(const struct probe_args *ps, struct nbw_probe_opts *o, char *err,
		       size_t errlen)
{
	uint64_t max_size = ps->max_size;
	if (ps->sizes && max_size) {
		snprintf(err, errlen, "--sizes and --max-size exclude each other");
		return -1;
	}
	o->sizes_given = ps->sizes || max_size;
	if (ps->sizes)
		return nbw_sizes_parse_list(ps->sizes, &o->sizes, err, errlen) ? -1 : 0;
	if (!max_size)
		max_size = o->profile == NBW_PROFILE_QUICK  ? 64ull << 20
			   : o->profile == NBW_PROFILE_FULL ? 1ull << 30
							    : 256ull << 20;
	if (max_size < 8) {
		snprintf(err, errlen, "--max-size must be at least 8 bytes");
		return -1;
	}
	if (nbw_sizes_default(&o->sizes, max_size, o->profile == NBW_PROFILE_QUICK)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int nbw_cli_parse_probe(int argc, char **argv, struct nbw_probe_opts *o, char *err,
			size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->hidden_helpers = -1;
	o->faces_fields = 1;
	snprintf(o->cuda_sched, sizeof(o->cuda_sched), "auto");
	bool is_run = argc > 0 && strcmp(argv[0], "run") == 0;
	o->hht_sweep = is_run;
	/* The main job defaults to the quick profile; --full gives the thorough one. */
	o->profile = is_run ? NBW_PROFILE_QUICK : NBW_PROFILE_DEFAULT;
	struct probe_args ps = { .warm = -1, .reps = -1, .maxreps = -1, .mintime = -1.0,
				 .maxtime = -1.0 };
	int c, rc = 0;

	optind = 0; /* restart getopt: the subcommand sits at argv[0] */
	opterr = 0;
	int profile_opt = 0; /* the profile option given, to refuse two different ones */
	while (rc == 0 && (c = getopt_long(argc, argv, "+:hv", probe_options, NULL)) != -1) {
		if (c == OPT_QUICK || c == OPT_FULL || c == OPT_DEFAULT) {
			if (profile_opt && profile_opt != c) {
				snprintf(err, errlen, "%s and %s exclude each other (one profile)",
					 profile_name(profile_opt), profile_name(c));
				rc = -1;
				break;
			}
			profile_opt = c;
		}
		rc = probe_option(c, argc, argv, &ps, o, err, errlen);
	}
	if (rc == 1)
		return 1;
	if (rc == 0 && optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		rc = -1;
	}
	if (rc == 0 && o->faces_fields > 1 && !o->ndecomps) {
		snprintf(err, errlen, "--faces-fields needs --faces-decomp (the exchange that "
				      "sends each face once per field)");
		rc = -1;
	}
	if (rc == 0 && o->ndecomps && !o->nfaces) {
		snprintf(err, errlen, "--faces-decomp needs --faces (the boxes the decomposition's "
				      "devices exchange faces of)");
		rc = -1;
	}
	if (rc == 0 && is_run && o->nfaces) {
		snprintf(err, errlen, "--faces is an option of 'nodebw probe' (the face probes "
				      "replace its size sweep)");
		rc = -1;
	}
	if (rc)
		return -1;

	apply_profile(o);
	if (ps.warm >= 0) o->warmup = (unsigned)ps.warm;
	if (ps.reps >= 0) o->min_reps = (unsigned)ps.reps;
	if (ps.maxreps >= 0) o->max_reps = (unsigned)ps.maxreps;
	if (ps.mintime >= 0.0) o->min_time_s = ps.mintime;
	if (ps.maxtime >= 0.0) o->max_time_s = ps.maxtime;
	o->reps_given = ps.reps >= 0;
	o->warmup_given = ps.warm >= 0;
	if (o->max_reps < o->min_reps)
		o->max_reps = o->min_reps;
	if (probe_selection(&ps, o, err, errlen))
		return -1;
	return probe_sizes(&ps, o, err, errlen);
}

void nbw_cli_opts_free(struct nbw_probe_opts *o)
{
	nbw_sizes_free(&o->sizes);
}

static void add_arg(char ***v, int *n, const char *s)
{
	char **nv = realloc(*v, (size_t)(*n + 2) * sizeof(*nv));
	if (!nv)
		abort();
	nv[*n] = strdup(s);
	nv[*n + 1] = NULL;
	*v = nv;
	(*n)++;
}

static void add_list(char ***v, int *n, const char *opt, const char *const *names,
		     const bool *on, int count)
{
	char buf[256] = "";
	for (int i = 0; i < count; i++)
		if (on[i]) {
			size_t l = strlen(buf);
			snprintf(buf + l, sizeof(buf) - l, "%s%s", l ? "," : "", names[i]);
		}
	if (buf[0]) {
		add_arg(v, n, opt);
		add_arg(v, n, buf);
	}
}

char **nbw_cli_probe_argv(const struct nbw_probe_opts *o, const char *exe)
{
	char **v = NULL, buf[64];
	int n = 0;
	add_arg(&v, &n, exe);
	add_arg(&v, &n, "probe");
	for (int i = 0; i < o->napis; i++) {
		add_arg(&v, &n, "--api");
		add_arg(&v, &n, o->apis[i]);
	}
	for (int i = 0; i < o->nprobes; i++) {
		add_arg(&v, &n, "--probe");
		add_arg(&v, &n, o->probes[i]);
	}
	const char *modes[NBW_MODE_COUNT], *mems[NBW_HOSTMEM_NONE], *threads[] = { "1", "2", "all" },
					   *peers[] = { "enabled", "disabled" };
	for (int i = 0; i < NBW_MODE_COUNT; i++)
		modes[i] = nbw_mode_name((enum nbw_mode)i);
	for (int i = 0; i < NBW_HOSTMEM_NONE; i++)
		mems[i] = nbw_hostmem_name((enum nbw_hostmem)i);
	add_list(&v, &n, "--mode", modes, o->modes, NBW_MODE_COUNT);
	add_list(&v, &n, "--host-mem", mems, o->hostmem, NBW_HOSTMEM_NONE);
	add_list(&v, &n, "--threads", threads, o->threads, NBW_THREADS_COUNT);
	add_list(&v, &n, "--peer-access", peers, o->peer, 2);
	const char *binds[] = { "none", "local", "remote" };
	add_list(&v, &n, "--bind", binds, o->bind, 3);
	if (o->ndevices) {
		char dl[512] = "";
		for (int i = 0; i < o->ndevices; i++) {
			size_t l = strlen(dl);
			snprintf(dl + l, sizeof(dl) - l, "%s%d", i ? "," : "", o->devices[i]);
		}
		add_arg(&v, &n, "--devices");
		add_arg(&v, &n, dl);
	}
	size_t cap = o->sizes.n * 24 + 1;
	char *sl = calloc(1, cap);
	if (!sl)
		abort();
	for (size_t i = 0; i < o->sizes.n; i++) {
		size_t l = strlen(sl);
		snprintf(sl + l, cap - l, "%s%llu", i ? "," : "",
			 (unsigned long long)o->sizes.v[i].bytes);
	}
	add_arg(&v, &n, "--sizes");
	add_arg(&v, &n, sl);
	free(sl);
	/* The profile first, then what was given: the child applies the same rules (e.g. the
	 * time cap does not cut repetitions below a --reps given, only a profile's). */
	if (o->profile != NBW_PROFILE_DEFAULT)
		add_arg(&v, &n, o->profile == NBW_PROFILE_QUICK ? "--quick" : "--full");
	if (o->warmup_given) {
		snprintf(buf, sizeof(buf), "%u", o->warmup);
		add_arg(&v, &n, "--warmup");
		add_arg(&v, &n, buf);
	}
	if (o->reps_given) {
		snprintf(buf, sizeof(buf), "%u", o->min_reps);
		add_arg(&v, &n, "--reps");
		add_arg(&v, &n, buf);
	}
	snprintf(buf, sizeof(buf), "%u", o->max_reps);
	add_arg(&v, &n, "--max-reps");
	add_arg(&v, &n, buf);
	snprintf(buf, sizeof(buf), "%.17g", o->min_time_s);
	add_arg(&v, &n, "--min-time");
	add_arg(&v, &n, buf);
	snprintf(buf, sizeof(buf), "%.17g", o->max_time_s);
	add_arg(&v, &n, "--max-time");
	add_arg(&v, &n, buf);
	if (o->hidden_helpers >= 0) {
		snprintf(buf, sizeof(buf), "%d", o->hidden_helpers);
		add_arg(&v, &n, "--hidden-helpers");
		add_arg(&v, &n, buf);
	}
	add_arg(&v, &n, o->hht_sweep ? "--hht-sweep" : "--no-hht-sweep");
	if (o->nfaces) {
		char fl[NBW_MAX_FACE_SHAPES * 48] = "";
		for (int i = 0; i < o->nfaces; i++) {
			char one[48];
			nbw_face_shape_label(&o->faces[i], one, sizeof(one));
			snprintf(fl + strlen(fl), sizeof(fl) - strlen(fl), "%s%s", i ? "," : "", one);
		}
		add_arg(&v, &n, "--faces");
		add_arg(&v, &n, fl);
	}
	if (o->ndecomps) {
		char dl[NBW_MAX_DECOMPS * 16] = "";
		for (int i = 0; i < o->ndecomps; i++) {
			char one[16];
			nbw_face_decomp_label(o->decomps[i], one, sizeof(one));
			snprintf(dl + strlen(dl), sizeof(dl) - strlen(dl), "%s%s", i ? "," : "", one);
		}
		add_arg(&v, &n, "--faces-decomp");
		add_arg(&v, &n, dl);
	}
	char ff[16];
	if (o->faces_fields > 1) {
		snprintf(ff, sizeof(ff), "%d", o->faces_fields);
		add_arg(&v, &n, "--faces-fields");
		add_arg(&v, &n, ff);
	}
	add_arg(&v, &n, "--cuda-sched");
	add_arg(&v, &n, o->cuda_sched);
	if (o->output[0]) {
		add_arg(&v, &n, "--output");
		add_arg(&v, &n, o->output);
	}
	if (o->quiet)
		add_arg(&v, &n, "--quiet");
	if (o->verbose)
		add_arg(&v, &n, "--verbose");
	return v;
}

void nbw_cli_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}
