/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw run` after the probes: the solver's calibration and validation runs (child
 * processes of `nodebw heat`, merged into results.json), the calibration file and the
 * report. See doc/model.md for what the runs feed.
 */
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nodebw/backends.h"
#include "nodebw/cli.h"
#include "nodebw/config.h"
#include "nodebw/model.h"
#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/runner.h"
#include "nodebw/session.h"
#include "nodebw/speedref.h"

#define MAX_ARGS 64
/* Extra rounds for the configurations whose rounds disagree (within the stage's budget). */
#define NBW_RUN_EXTRA_ROUNDS 4
/* The quick profile's promise: the whole run, report included, in 5 minutes. */
#define NBW_RUN_QUICK_LIMIT 300.0
/* What the run keeps for the calibration and the report after the solver (the report of a
 * quick run on the 2-core VM took 1-3 s, its plots 5-8 s). */
#define NBW_RUN_REPORT_RESERVE 15.0
/* Processes of the plane-size sweep before the solver; one more starts each solver round.
 * Five back to back reached the floor of six to ten processes in most trials on the
 * 2-vCPU VM, but the floor itself moved with the machine's speed from run to run (4-5 %
 * in the fourth repeatability triple, doc/model.md): spread over the rounds they meet it at
 * as many moments as the solver does. */
#define NBW_RUN_PLANE_BEFORE 2
/* The cubic baseline's blocktime on host-plugin devices (ms): long enough that its team
 * spins from one step to the next. With 0, N = 40 took 8.2-10.7 ms for 120 steps in twelve
 * processes on the 2-vCPU VM, modal per process; spinning, 5.9-6.0 ms. */
#define NBW_RUN_BASELINE_BLOCKTIME_MS 10

/* Timed repetitions of a solver child: NBW_RUN_REPS in the first NBW_ROUNDS_CORE rounds
 * (with the instrumented runs) and in extra rounds; NBW_RUN_LATE_REPS in the cubic part of
 * the later rounds, which leave the instrumented runs out (about the same time). */
#define NBW_RUN_REPS 3
#define NBW_RUN_LATE_REPS 5
#define NBW_XSTR(x) #x
#define NBW_STR(x) NBW_XSTR(x)

static double t_start;

void nbw_run_clock_start(void)
{
	t_start = nbw_now();
}

double nbw_run_time_limit(const struct nbw_run_opts *ro)
{
	if (ro->time_limit >= 0.0)
		return ro->time_limit;
	return ro->full || ro->standard ? 0.0 : NBW_RUN_QUICK_LIMIT;
}

/* Seconds since the run started. */
static double run_elapsed(void)
{
	return t_start > 0.0 ? nbw_now() - t_start : 0.0;
}

void nbw_run_progress(const struct nbw_run_opts *ro, const char *fmt, ...)
{
	if (ro->quiet && !ro->json)
		return;
	/* With --json, stdout holds the results document alone; progress is for a person:
	 * on stdout when it is a terminal, else on stderr. */
	FILE *f = ro->json || !isatty(STDOUT_FILENO) ? stderr : stdout;
	va_list ap;
	va_start(ap, fmt);
	if (t_start == 0.0)
		t_start = nbw_now();
	fprintf(f, "\n[nodebw run %6.1f s] ", nbw_now() - t_start);
	vfprintf(f, fmt, ap);
	fprintf(f, "\n");
	fflush(f);
	va_end(ap);
}

/* Remove the run-only options from argv (the rest goes to the probe parser). */
int nbw_run_extract_opts(int *argc, char **argv, struct nbw_run_opts *ro, char *err,
			 size_t errlen)
{
	memset(ro, 0, sizeof(*ro));
	ro->solver = ro->report = true;
	ro->rounds = 0;
	ro->steps = 0;
	ro->time_limit = -1.0;
	int w = 0;
	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < *argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--no-solver") == 0) {
			ro->solver = false;
		} else if (strcmp(a, "--no-report") == 0) {
			ro->report = false;
		} else if (strcmp(a, "--time-limit") == 0) {
			if (!val) {
				snprintf(err, errlen, "option '%s' needs a value", a);
				return -1;
			}
			if (nbw_cli_parse_decimal(val, 0.0, 1e7, &ro->time_limit, a, "seconds", err,
						  errlen))
				return -1;
			i++;
		} else if (strcmp(a, "--solver-n") == 0 || strcmp(a, "--solver-steps") == 0 ||
			   strcmp(a, "--solver-rounds") == 0) {
			if (!val) {
				snprintf(err, errlen, "option '%s' needs a value", a);
				return -1;
			}
			if (strcmp(a, "--solver-n") == 0) {
				if (nbw_cli_parse_int_list(val, 8, 4096, ro->n, NBW_RUN_MAX_N, &ro->nn,
							   a, err, errlen))
					return -1;
			} else {
				long v;
				if (nbw_cli_parse_int(val, 1, 100000, &v, a, err, errlen))
					return -1;
				*(strcmp(a, "--solver-steps") == 0 ? &ro->steps : &ro->rounds) = (int)v;
			}
			i++;
		} else {
			if (strcmp(a, "--quiet") == 0)
				ro->quiet = true;
			if (strcmp(a, "--json") == 0)
				ro->json = true;
			if (strcmp(a, "--full") == 0)
				ro->full = true;
			if (strcmp(a, "--default") == 0)
				ro->standard = true;
			argv[w++] = argv[i];
		}
	}
	argv[w] = NULL;
	*argc = w;
	return 0;
}

/* ---- solver runs ------------------------------------------------------------------- */

struct argbuf {
	char *v[MAX_ARGS];
	int n;
};

static void arg(struct argbuf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void arg(struct argbuf *a, const char *fmt, ...)
{
	if (a->n >= MAX_ARGS - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&a->v[a->n], fmt, ap) >= 0)
		a->n++;
	va_end(ap);
	a->v[a->n] = NULL;
}

static void args_free(struct argbuf *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	a->n = 0;
}

static json_t *args_json(const struct argbuf *a)
{
	json_t *j = json_array();
	for (int i = 0; i < a->n; i++)
		json_array_append_new(j, json_string(a->v[i]));
	return j;
}

/* Append the child's solver runs to the main document, tagged with round and purpose;
 * returns the roofline GB/s the child measured (0 when none). */
static double merge_runs(struct nbw_doc *doc, const char *dir, int round, const char *purpose,
			 unsigned *nruns, unsigned *nfailed)
{
	char *p = NULL, err[NBW_REASON_LEN * 4];
	if (asprintf(&p, "%s/results.json", dir) < 0)
		return 0.0;
	struct nbw_doc *child = access(p, F_OK) == 0 ? nbw_doc_load(p, err, sizeof(err)) : NULL;
	bool there = access(p, F_OK) == 0;
	free(p);
	if (!there)
		return 0.0;
	if (!child) {
		fprintf(stderr, "nodebw: warning: solver results unreadable: %s\n", err);
		return 0.0;
	}
	json_t *all = json_object_get(doc->root, "solver_runs");
	if (!json_is_array(all)) {
		all = json_array();
		nbw_doc_set(doc, "solver_runs", all);
	}
	double roof = 0.0;
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(child->root, "solver_runs"), i, r) {
		json_t *c = json_deep_copy(r);
		json_object_set_new(c, "round", json_integer(round));
		/* Runs without the halo copies are the a-priori model's, also when they were
		 * timed beside the validation runs (--paired). */
		const char *ex = json_string_value(json_object_get(r, "exchange"));
		json_object_set_new(c, "purpose",
				    json_string(ex && strcmp(ex, "none") == 0 ? "a-priori" : purpose));
		json_array_append_new(all, c);
		(*nruns)++;
		const char *st = json_string_value(
			json_object_get(json_object_get(r, "verification"), "status"));
		if (st && strcmp(st, "failed") == 0)
			(*nfailed)++;
		json_t *rf = json_object_get(json_object_get(r, "roofline"), "gbs");
		if (json_is_number(rf) && roof == 0.0)
			roof = json_number_value(rf);
	}
	json_t *lp = json_object_get(child->root, "launch_probe");
	if (json_array_size(lp)) {
		json_t *dl = json_object_get(doc->root, "launch_probe");
		if (!json_is_array(dl)) {
			dl = json_array();
			nbw_doc_set(doc, "launch_probe", dl);
		}
		json_array_foreach(lp, i, r) {
			json_t *c = json_deep_copy(r);
			json_object_set_new(c, "round", json_integer(round));
			json_array_append_new(dl, c);
		}
	}
	nbw_doc_free(child);
	return roof;
}

/* Runs one child `nodebw heat` (\p a: its arguments so far) into a folder of its own, merges
 * its records into \p doc tagged with \p round and \p purpose, and writes the document. */
static int heat_child(struct argbuf *a, double *roof, struct nbw_doc *doc, const char *dir,
		      int round, const char *purpose, struct nbw_run_solver_status *st,
		      json_t *children, char *err, size_t errlen)
{
	char *cdir = NULL;
	if (asprintf(&cdir, "%s/.solver-%d-XXXXXX", dir, round) < 0 || !mkdtemp(cdir)) {
		snprintf(err, errlen, "cannot create a folder in %s: %s", dir,
			 cdir ? strerror(errno) : "out of memory");
		free(cdir);
		args_free(a);
		return -1;
	}
	arg(a, "--output");
	arg(a, "%s", cdir);
	arg(a, "--quiet");
	int crc = nbw_run_child(a->v);
	double rf = merge_runs(doc, cdir, round, purpose, &st->runs, &st->verify_failed);
	if (*roof == 0.0)
		*roof = rf;
	nbw_remove_results_dir(cdir);
	free(cdir);
	json_array_append_new(children, json_pack("{s:i, s:s, s:o, s:i}", "round", round,
						  "purpose", purpose, "argv", args_json(a),
						  "exit_status", crc));
	args_free(a);
	if (crc == 130 || nbw_stop_requested) {
		st->interrupted = 1;
		return 0;
	}
	if (crc != 0)
		st->child_failures++;
	return nbw_doc_write(doc, dir, err, errlen);
}

/* Whether an unstable configuration before \p i in \p bad is the same version, G and shape
 * (the other half of a paired configuration). */
static bool paired_before(json_t *bad, size_t i)
{
	json_t *u = json_array_get(bad, i);
	static const char *const keys[] = {"version", "G", "nx", "ny", "nz", "steps"};
	for (size_t j = 0; j < i; j++) {
		json_t *w = json_array_get(bad, j);
		bool same = true;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && same; k++)
			same = json_equal(json_object_get(u, keys[k]), json_object_get(w, keys[k]));
		if (same)
			return true;
	}
	return false;
}

/* One solver child: \p steps steps, 3 repetitions, the roofline once it is known. */
static int solver_child(struct argbuf *a, int steps, int reps, double *roof,
			struct nbw_doc *doc, const char *dir, int round, const char *purpose,
			struct nbw_run_solver_status *st, json_t *children, char *err,
			size_t errlen)
{
	arg(a, "--steps");
	arg(a, "%d", steps);
	arg(a, "--reps");
	arg(a, "%d", reps);
	if (*roof > 0.0) {
		arg(a, "--roofline-gbs");
		arg(a, "%.6g", *roof);
	}
	return heat_child(a, roof, doc, dir, round, purpose, st, children, err, errlen);
}

static int omp_devices(json_t *devices, char *kind, size_t kindlen)
{
	int n = 0;
	size_t i;
	json_t *d;
	kind[0] = '\0';
	json_array_foreach(devices, i, d) {
		const char *api = json_string_value(json_object_get(d, "api"));
		if (!api || strcmp(api, "omp") != 0)
			continue;
		if (!n)
			snprintf(kind, kindlen, "%s",
				 json_string_value(json_object_get(d, "kind"))
					 ? json_string_value(json_object_get(d, "kind"))
					 : "");
		n++;
	}
	return n;
}

static void list_str(char *buf, size_t len, const int *v, int n, const char *sep)
{
	size_t w = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && w < len; i++)
		w += (size_t)snprintf(buf + w, len - w, "%s%d", i ? sep : "", v[i]);
}

/* The solver's grid sizes N into \p n (NBW_RUN_MAX_N), their count returned. */
static int solver_grids(const struct nbw_run_opts *ro, bool host, int *n)
{
	static const int host_n[] = {40, 52, 64, 76};
	static const int gpu_quick[] = {256, 384, 512, 640};
	static const int gpu_full[] = {512, 640, 768, 896, 1024, 1152, 1280};
	if (ro->nn) {
		memcpy(n, ro->n, (size_t)ro->nn * sizeof(int));
		return ro->nn;
	}
	const int *dn = host ? host_n : ro->full ? gpu_full : gpu_quick;
	int ndn = host ? 4 : ro->full ? 7 : 4;
	memcpy(n, dn, (size_t)ndn * sizeof(int));
	return ndn;
}

/* Where the devices share the host's cores their times scatter most, and from one process
 * to the next more than between a process's repetitions (on the 2-core VM a one-device
 * N = 40 run took 8.3-16.0 ms in ten processes): ten rounds there, each a new set of
 * processes, for the fastest round to reach the floor. */
static int solver_rounds(const struct nbw_run_opts *ro, bool host)
{
	return ro->rounds ? ro->rounds : host ? 10 : ro->full ? 5 : 3;
}

/* Processes first .. first + count - 1 of the plane-size sweep (NBW_RUN_PLANE_BEFORE before
 * the solver, then one per round); nothing without an OpenMP device. */
static int plane_processes(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
			   struct nbw_doc *doc, const char *dir, int first, int count, char *err,
			   size_t errlen)
{
	char kind[32];
	if (!ro->solver || !o || omp_devices(doc->devices, kind, sizeof(kind)) < 1)
		return 0;
	bool host = strcmp(kind, "host-plugin") == 0;
	int n[NBW_RUN_MAX_N], nn = solver_grids(ro, host, n);
	size_t sizes[NBW_RUN_MAX_N];
	for (int i = 0; i < nn; i++)
		sizes[i] = (size_t)8 * (size_t)n[i] * (size_t)n[i];
	int planned = NBW_RUN_PLANE_BEFORE + solver_rounds(ro, host);
	struct nbw_run_status st;
	memset(&st, 0, sizeof(st));
	double t0 = nbw_now();
	char which[32];
	snprintf(which, sizeof(which), count > 1 ? "processes %d-%d" : "process %d", first,
		 first + count - 1);
	nbw_run_progress(ro, "plane-size sweep: the models' OpenMP paths at the %d halo-plane "
			     "sizes, %s of %d", nn, which, planned);
	/* The solver's hidden-helper count (nbw_run_solver). */
	int rc = nbw_plane_sweep(o, sizes, (size_t)nn, host ? 0 : -1, first, count, planned, doc,
				 dir, NULL, &st, err, errlen);
	if (rc == 0)
		nbw_run_progress(ro, "plane-size sweep: %u measurements in %.1f s%s",
				 st.measurements, nbw_now() - t0,
				 st.verify_failed || st.errors ? " (some failed: see the results)"
							       : "");
	return rc;
}

int nbw_run_plane_sweep(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
			struct nbw_doc *doc, const char *dir, char *err, size_t errlen)
{
	return plane_processes(ro, o, doc, dir, 1, NBW_RUN_PLANE_BEFORE, err, errlen);
}

int nbw_run_solver(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
		   struct nbw_doc *doc, const char *dir, struct nbw_run_solver_status *st,
		   char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	char kind[32];
	int ndev = omp_devices(doc->devices, kind, sizeof(kind));
	bool host = strcmp(kind, "host-plugin") == 0;
	json_t *info = json_object();
	nbw_doc_set(doc, "solver", info);
	if (ndev < 1) {
		json_object_set_new(info, "skipped",
				    json_string(NBW_HAVE_OMP ? "no OpenMP offload device: the solver "
							       "needs one (see the skipped list)"
							     : NBW_NO_OFFLOAD_REASON));
		nbw_run_progress(ro, "solver: skipped (%s)",
				 NBW_HAVE_OMP ? "no OpenMP offload device" : NBW_NO_OFFLOAD_REASON);
		nbw_doc_set_state(doc, "complete", NULL);
		return nbw_doc_write(doc, dir, err, errlen);
	}
	/* Sizes: small grids on the host plugin (its devices share the host's cores and
	 * memory; on the 2-vCPU reference machine runs of N >= 96 were slowed 10-30x in half
	 * of the repetitions by memory contention, N <= 80 stayed within a few per cent), the
	 * paper's range on GPUs. */
	int n[NBW_RUN_MAX_N], nn = solver_grids(ro, host, n);
	int steps = ro->steps ? ro->steps : host ? 120 : ro->full ? 500 : 100;
	int rounds = solver_rounds(ro, host);
	/* libomp's hidden helper threads compete with the host threads for the cores when
	 * the devices are host memory; the solver runs without them there. */
	int hh = host ? 0 : -1;
	int gs[2], ng = 0;
	if (ndev >= 2)
		gs[ng++] = 2;
	if (ndev >= 4)
		gs[ng++] = 4;
	char nlist[256], glist[32];
	list_str(nlist, sizeof(nlist), n, nn, ",");
	glist[0] = '\0';
	snprintf(glist, sizeof(glist), "1%s%s", ng > 0 ? ",2" : "", ng > 1 ? ",4" : "");
	/* The slab shapes of the extended model: N x N x (ceil((N-2)/G) + 2). */
	char shapes[2048] = "";
	size_t w = 0;
	for (int i = 0; i < nn; i++)
		for (int k = 0; k < ng; k++) {
			int planes = (n[i] - 2 + gs[k] - 1) / gs[k];
			w += (size_t)snprintf(shapes + w, sizeof(shapes) - w, "%s%dx%dx%d",
					      w ? "," : "", n[i], n[i], planes + 2);
		}
	json_object_set_new(info, "device_kind", json_string(kind));
	json_object_set_new(info, "devices", json_integer(ndev));
	json_object_set_new(info, "n", json_string(nlist));
	json_object_set_new(info, "G", json_string(glist));
	json_object_set_new(info, "steps", json_integer(steps));
	json_object_set_new(info, "rounds", json_integer(rounds));
	json_object_set_new(info, "hidden_helpers", hh >= 0 ? json_integer(hh) : json_null());
	json_object_set_new(info, "hidden_helpers_reason",
			    json_string(host ? "0: on host-plugin devices libomp's hidden helper "
					       "threads compete with the solver's host threads for "
					       "the same cores"
					     : "the runtime's own setting"));
	json_object_set_new(info, "summary",
			    json_string("every round: cubic N^3 grids with baseline (1 device) "
					"and v1-v4 on each G, timed (validation, and the paper's "
					"k(N)), each repetition of v1-v4 timed first "
					"without the halo copies on the same buffers (--paired; "
					"a-priori: the compute, launch and synchronisation of G "
					"devices at once): 3 repetitions and instrumented runs "
					"in the first 3 rounds, 5 repetitions and no instrumented "
					"runs later; then one-device runs of the slab "
					"shapes N x N x (ceil((N-2)/G)+2) launched as Versions 1-4 "
					"launch (nowait; calibration); in the first 3 rounds the launch probe (nodebw heat --launch-probe: "
					"near-empty target regions launched as v1-v4 launch, and "
					"with Versions 3-4's halo copies); "
					"the models take each configuration's fastest round, and "
					"are validated against the speed-matched time of the "
					"paired halves (doc/model.md)"));
	if (ng == 0)
		json_object_set_new(info, "validation_skipped",
				    json_string("fewer than 2 OpenMP devices: Versions 1-4 need "
						"G >= 2"));
	/* On host-plugin devices the solver's threads share the machine's cores: libomp's
	 * spin-waiting (200 ms by default) would hold a core another of its threads needs. */
	bool spin_baseline = false;
	if (host && !getenv("KMP_BLOCKTIME")) {
		setenv("KMP_BLOCKTIME", "0", 1);
		/* The one-device baseline shares the cores with nothing: its kernel's team spins
		 * between steps (NBW_RUN_BASELINE_BLOCKTIME_MS) instead of paying a wake-up from
		 * sleep every step, a cost that differs from process to process. */
		spin_baseline = true;
		json_object_set_new(
			info, "environment",
			json_pack("{s:s}", "KMP_BLOCKTIME",
				  "0 (host-plugin devices share the cores: waiting threads sleep at "
				  "once instead of spinning); the cubic baseline runs spin "
				  "for " NBW_STR(NBW_RUN_BASELINE_BLOCKTIME_MS) " ms "
				  "(nodebw heat --baseline-blocktime): one device alone, "
				  "whose kernel's team would otherwise wake from sleep every step"));
	}
	/* The hidden-helper count goes into the children's environment (libomp reads it at
	 * start-up), so that they need not restart themselves. */
	if (hh >= 0) {
		char v[16];
		snprintf(v, sizeof(v), "%d", hh);
		setenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS", v, 1);
		unsetenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
	}
	json_t *children = json_array();
	json_object_set_new(info, "children", children);
	double roof = 0.0, t_solver = nbw_now();
	int rc = 0;
	/* The run's time limit governs the solver, the stage that can give: rounds beyond the
	 * NBW_ROUNDS_CORE that the stability test needs start only when one more (the mean
	 * round so far) ends before the limit, less what the report needs. */
	double limit = nbw_run_time_limit(ro);
	bool limited = limit > 0.0;
	double deadline = limit - NBW_RUN_REPORT_RESERVE;
	json_object_set_new(info, "time_limit_s", limit > 0.0 ? json_real(limit) : json_null());
	int rounds_run = 0;
	for (int r = 1; r <= rounds && !nbw_stop_requested && rc == 0 && !st->interrupted; r++) {
		if (limited && r > NBW_ROUNDS_CORE &&
		    run_elapsed() + (nbw_now() - t_solver) / (r - 1) > deadline) {
			char why[160];
			snprintf(why, sizeof(why),
				 "%d of %d rounds: one more (%.0f s, the mean round) would end after "
				 "the run's %.0f s limit less %.0f s for the report",
				 r - 1, rounds, (nbw_now() - t_solver) / (r - 1), limit,
				 NBW_RUN_REPORT_RESERVE);
			json_object_set_new(info, "rounds_stopped", json_string(why));
			nbw_run_progress(ro, "solver: %s", why);
			break;
		}
		/* The machine's speed as the round starts (the drift table's companion). */
		char at[32];
		snprintf(at, sizeof(at), "solver round %d", r);
		nbw_run_speed_reference(doc, at);
		/* One more process of the plane-size sweep, where the run made one. */
		if (json_object_get(doc->root, "plane_sweep") &&
		    plane_processes(ro, o, doc, dir, NBW_RUN_PLANE_BEFORE + r, 1, err, errlen)) {
			rc = -1;
			break;
		}
		/* The rounds are alike: the time left is the mean round's times the rest. */
		char left[64] = "";
		if (r > 1)
			snprintf(left, sizeof(left), "; about %.0f s left in the solver",
				 (nbw_now() - t_solver) / (r - 1) * (rounds - r + 1));
		for (int part = 0; part < 3 && !nbw_stop_requested && rc == 0 && !st->interrupted;
		     part++) {
			if (part >= 1 && ng == 0)
				continue;
			if (part == 2) {
				/* The launch probe (the a-priori model's launch term, and the
				 * evidence of its per-launch cost), in the rounds the stability
				 * test always has: a second or so each. */
				if (r > NBW_ROUNDS_CORE)
					continue;
				struct argbuf a = {.n = 0};
				arg(&a, "nodebw");
				arg(&a, "heat");
				arg(&a, "--launch-probe");
				arg(&a, "--gpus");
				arg(&a, "%s", glist + 2);
				arg(&a, "--n");
				arg(&a, "%s", nlist);
				nbw_run_progress(ro, "solver round %d/%d: launch probe (empty target "
						     "regions launched as v1-v4 launch, G = %s; "
						     "v3 and v4 halo copies, N = %s)",
						 r, rounds, glist + 2, nlist);
				rc = heat_child(&a, &roof, doc, dir, r, "a-priori", st, children,
						err, errlen);
				continue;
			}
			struct argbuf a = {.n = 0};
			arg(&a, "nodebw");
			arg(&a, "heat");
			/* The phases of the instrumented runs come from the rounds every run
			 * has; later rounds spend that time on more paired repetitions, which
			 * the validation's speed-matched time and the a-priori compute take. */
			bool core = r <= NBW_ROUNDS_CORE;
			if (part == 0) {
				arg(&a, "--n");
				arg(&a, "%s", nlist);
				arg(&a, "--versions");
				arg(&a, ng ? "baseline,v1,v2,v3,v4" : "baseline");
				arg(&a, "--gpus");
				arg(&a, "%s", glist);
				if (core)
					arg(&a, "--instrument");
				/* The a-priori model's compute: each version's repetitions also
				 * without the halo copies, moments before, on the same buffers. */
				arg(&a, "--paired");
				if (spin_baseline) {
					arg(&a, "--baseline-blocktime");
					arg(&a, "%d", NBW_RUN_BASELINE_BLOCKTIME_MS);
				}
			} else {
				arg(&a, "--shapes");
				arg(&a, "%s", shapes);
				arg(&a, "--versions");
				arg(&a, "baseline");
				arg(&a, "--baseline-launch");
				arg(&a, "nowait");
				arg(&a, "--gpus");
				arg(&a, "1");
			}
			const char *purpose = part == 0 ? "validation" : "calibration";
			int reps = part == 0 && !core ? NBW_RUN_LATE_REPS : NBW_RUN_REPS;
			nbw_run_progress(ro, "solver round %d/%d: %s (%s; %d steps, %d repetitions)%s",
					 r, rounds,
					 part == 1 ? "one-device runs of the slab shapes"
					 : core	   ? "cubic grids, baseline and v1-v4, timed with "
						     "and without the halo copies + instrumented"
						   : "cubic grids, baseline and v1-v4, timed with "
						     "and without the halo copies",
					 part == 1 ? shapes : nlist, steps, reps,
					 part == 0 ? left : "");
			rc = solver_child(&a, steps, reps, &roof, doc, dir, r, purpose, st, children,
					  err, errlen);
		}
		if (rc == 0 && !st->interrupted && !nbw_stop_requested)
			rounds_run = r;
	}
	json_object_set_new(info, "rounds_run", json_integer(rounds_run));
	/* Configurations whose rounds disagree (a round slowed by something else on the
	 * machine) are measured again, one round at a time, while the stage's budget lasts:
	 * the model takes the fastest round, and a configuration counts as stable once its
	 * NBW_ROUNDS_CORE fastest rounds agree; one that never does is reported as unstable. */
	double budget = ro->full ? 1800.0 : 150.0, longest = 3.0;
	const char *why_stop = "the stage's budget is spent";
	for (int extra = 1; rc == 0 && !st->interrupted && !nbw_stop_requested &&
			    extra <= NBW_RUN_EXTRA_ROUNDS;
	     extra++) {
		json_t *bad = nbw_solver_unstable(json_object_get(doc->root, "solver_runs"));
		size_t nb = json_array_size(bad), i;
		double spent = nbw_now() - t_solver;
		bool late = limited && run_elapsed() + longest > deadline;
		if (late)
			why_stop = "the run's time limit is near";
		if (!nb || spent > budget || late) {
			if (nb)
				nbw_run_progress(ro, "solver: %zu configuration%s still unstable; %s "
						     "(stage budget %.0f s, run limit %s)", nb,
						 nb == 1 ? "" : "s", why_stop, budget,
						 limit > 0.0 ? "set" : "none");
			if (nb)
				json_object_set_new(info, "extra_rounds_stopped",
						    json_string(why_stop));
			json_decref(bad);
			break;
		}
		nbw_run_progress(ro, "solver: %zu configuration%s with rounds more than %.1fx apart, "
				     "measured again (extra round %d of at most %d)", nb,
				 nb == 1 ? "" : "s", NBW_STABLE_SPREAD, extra, NBW_RUN_EXTRA_ROUNDS);
		char at[32];
		snprintf(at, sizeof(at), "solver round %d", rounds + extra);
		nbw_run_speed_reference(doc, at);
		json_t *u;
		json_array_foreach(bad, i, u) {
			if (rc || st->interrupted || nbw_stop_requested ||
			    nbw_now() - t_solver > budget)
				break;
			/* The longest extra child so far (at least 3 s) must still fit. */
			if (limited && run_elapsed() + longest > deadline) {
				why_stop = "the run's time limit is near";
				break;
			}
			const char *v = json_string_value(json_object_get(u, "version"));
			bool slab = strcmp(v, "baseline") == 0 &&
				    strcmp(json_string_value(json_object_get(u, "launch")), "nowait") == 0;
			/* Versions 1-4 are measured again as they were, paired: both halves of a
			 * configuration get one more round, once even when both are unstable. */
			bool multi = v[0] == 'v';
			if (multi && paired_before(bad, i))
				continue;
			double t_child = nbw_now();
			struct argbuf a = {.n = 0};
			int g = (int)json_integer_value(json_object_get(u, "G"));
			arg(&a, "nodebw");
			arg(&a, "heat");
			arg(&a, "--shapes");
			arg(&a, "%dx%dx%d", (int)json_integer_value(json_object_get(u, "nx")),
			    (int)json_integer_value(json_object_get(u, "ny")),
			    (int)json_integer_value(json_object_get(u, "nz")));
			arg(&a, "--versions");
			arg(&a, "%s", v);
			arg(&a, "--gpus");
			arg(&a, "%d", g);
			if (slab) {
				arg(&a, "--baseline-launch");
				arg(&a, "nowait");
			} else if (multi) {
				arg(&a, "--instrument");
				arg(&a, "--paired");
			} else {
				arg(&a, "--instrument");
				if (spin_baseline) {
					arg(&a, "--baseline-blocktime");
					arg(&a, "%d", NBW_RUN_BASELINE_BLOCKTIME_MS);
				}
			}
			rc = solver_child(&a, (int)json_integer_value(json_object_get(u, "steps")),
					  NBW_RUN_REPS, &roof, doc, dir, rounds + extra,
					  slab ? "calibration" : "validation", st, children, err,
					  errlen);
			if (nbw_now() - t_child > longest)
				longest = nbw_now() - t_child;
		}
		json_decref(bad);
	}
	if (rc)
		return -1;
	if (nbw_stop_requested)
		st->interrupted = 1;
	if (st->interrupted) {
		char detail[96];
		snprintf(detail, sizeof(detail), "stopped by %s in the solver stage",
			 nbw_signal_name(nbw_stop_signal ? nbw_stop_signal : SIGINT));
		nbw_doc_set_state(doc, "interrupted", detail);
	} else {
		nbw_doc_set_state(doc, "complete", NULL);
	}
	return nbw_doc_write(doc, dir, err, errlen);
}

/* ---- calibration and report -------------------------------------------------------- */

int nbw_run_report(const struct nbw_run_opts *ro, const char *dir, json_t **summary, char *err,
		   size_t errlen)
{
	if (summary)
		*summary = NULL;
	char *results = NULL, *rdir = NULL, *cal = NULL;
	if (asprintf(&results, "%s/results.json", dir) < 0 ||
	    asprintf(&rdir, "%s/report", dir) < 0 || asprintf(&cal, "%s/calibration.json", dir) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1; /* (leaks at most two short strings on the way out) */
	}
	struct nbw_rinput in;
	const char *paths[1] = {results};
	if (nbw_rinput_load(&in, paths, 1, err, errlen)) {
		free(results);
		free(rdir);
		free(cal);
		return -1;
	}
	struct nbw_calib c;
	int rc = 0;
	if (nbw_calib_from_results(&in, &c, err, errlen) == 0) {
		json_t *j = nbw_calib_to_json(&c);
		char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
		json_decref(j);
		rc = text ? nbw_write_atomic(cal, text, strlen(text), err, errlen) : -1;
		free(text);
		nbw_calib_free(&c);
	} else {
		rc = -1;
	}
	json_t *sum = rc == 0 ? nbw_report_summary(&in) : NULL;
	if (rc == 0 && ro->report) {
		nbw_run_progress(ro, "report: %s/report.md and report.html", rdir);
		rc = nbw_report_build(&in, sum, rdir, err, errlen);
	}
	if (summary)
		*summary = sum;
	else
		json_decref(sum);
	nbw_rinput_free(&in);
	free(results);
	free(rdir);
	free(cal);
	return rc;
}

/* ---- disturbance of the stages ---------------------------------------------------- */

void nbw_run_disturb_start(struct nbw_run_disturb *d, struct nbw_doc *doc, bool speedref)
{
	char err[256];
	memset(d, 0, sizeof(*d));
	d->speedref = speedref;
	json_t *env = nbw_disturb_env_json(NULL);
	json_t *j = json_pack("{s:o, s:[]}", "environment", env ? env : json_null(), "stages");
	d->ok = nbw_disturb_snap_take(NULL, &d->last, err, sizeof(err)) == 0;
	if (!d->ok)
		json_object_set_new(j, "unavailable", json_string(err));
	nbw_doc_set(doc, "disturbance", j);
	/* Whether the machine is idle when the run starts: one second of nodebw doing nothing
	 * (the load average cannot tell, it still holds whatever ran a minute before). */
	if (d->ok) {
		struct timespec one = {1, 0};
		while (nanosleep(&one, &one) && errno == EINTR && !nbw_stop_requested)
			;
		nbw_run_disturb_stage(d, doc, "pre-run check (1 s idle)");
	}
}

void nbw_run_speed_reference(struct nbw_doc *doc, const char *at)
{
	json_t *all = json_object_get(doc->root, "disturbance");
	if (!json_is_object(all) || nbw_stop_requested)
		return;
	json_t *list = json_object_get(all, "speed_reference");
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(all, "speed_reference", list);
		json_object_set_new(all, "speed_reference_method",
				    json_string(nbw_speedref_method()));
	}
	struct nbw_speedref s;
	char err[200];
	json_t *j = nbw_speedref_measure(&s, err, sizeof(err)) == 0
			    ? nbw_speedref_json(&s)
			    : json_pack("{s:s}", "error", err);
	if (!j)
		return;
	json_object_set_new(j, "at", json_string(at));
	json_object_set_new(j, "elapsed_s", json_real(run_elapsed()));
	json_array_append_new(list, j);
}

void nbw_run_disturb_stage(struct nbw_run_disturb *d, struct nbw_doc *doc, const char *name)
{
	struct nbw_disturb_snap now;
	char err[256];
	json_t *all = json_object_get(doc->root, "disturbance");
	if (!d->ok || !json_is_object(all) ||
	    nbw_disturb_snap_take(NULL, &now, err, sizeof(err)))
		return;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	json_t *st = nbw_disturb_stage_json(&d->last, &now, ncpu > 0 ? (unsigned)ncpu : 1u);
	d->last = now;
	if (!st)
		return;
	json_object_set_new(st, "stage", json_string(name));
	json_array_append_new(json_object_get(all, "stages"), st);
	if (d->speedref) {
		/* Timed after the snapshot: its 0.2 s count in the next stage's window, as
		 * nodebw's own time (never as another process's). */
		char at[96];
		snprintf(at, sizeof(at), "%s%s", strncmp(name, "pre-run", 7) ? "after " : "",
			 strncmp(name, "pre-run", 7) ? name : "start");
		nbw_run_speed_reference(doc, at);
	}
}
