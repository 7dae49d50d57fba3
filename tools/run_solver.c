/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The solver stage of `nodebw run`: its plan (grids, steps, rounds, G, the slab shapes),
 * what it records of it in results.json "solver", the children's environment, then the
 * rounds (tools/run_rounds.c). Before it, the plane-size sweep's first processes. See
 * doc/model.md for what the runs feed and doc/run.md for the stages.
 */
#include "run_solver.h"
#include "run_appval.h"
#include "runterm.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/backends.h"
#include "nodebw/config.h"
#include "nodebw/model.h"
#include "nodebw/results.h"
#include "nodebw/runner.h"
#include "nodebw/results_view.h"
#include "nodebw/session.h"

#define NBW_XSTR(x) #x
#define NBW_STR(x) NBW_XSTR(x)

int nbw_solver_omp_devices(json_t *devices, char *kind, size_t kindlen)
{
	int n = 0;
	size_t i;
	json_t *d;
	kind[0] = '\0';
	json_array_foreach(devices, i, d) {
		struct nbw_rv_device v;
		if (!nbw_rv_device_read(d, &v) || strcmp(v.api, "omp") != 0)
			continue;
		if (!n)
			snprintf(kind, kindlen, "%s", v.kind);
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

int nbw_solver_grids(const struct nbw_run_opts *ro, bool host, int *n)
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
int nbw_solver_rounds(const struct nbw_run_opts *ro, bool host)
{
	return ro->rounds ? ro->rounds : host ? 10 : ro->full ? 5 : 3;
}

int nbw_run_plane_processes(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
			    struct nbw_doc *doc, const char *dir, int first, int count,
			    char *err, size_t errlen)
{
	char kind[32];
	if (!ro->solver || !o || nbw_solver_omp_devices(doc->devices, kind, sizeof(kind)) < 1)
		return 0;
	bool host = strcmp(kind, "host-plugin") == 0;
	int n[NBW_RUN_MAX_N], nn = nbw_solver_grids(ro, host, n);
	size_t sizes[NBW_RUN_MAX_N];
	for (int i = 0; i < nn; i++)
		sizes[i] = (size_t)8 * (size_t)n[i] * (size_t)n[i];
	int planned = NBW_RUN_PLANE_BEFORE + nbw_solver_rounds(ro, host);
	struct nbw_run_status st;
	memset(&st, 0, sizeof(st));
	double t0 = nbw_now();
	char which[32];
	snprintf(which, sizeof(which), count > 1 ? "processes %d-%d" : "process %d", first,
		 first + count - 1);
	nbw_run_doing(ro, "plane-size sweep: the models' OpenMP paths at the %d halo-plane "
			  "sizes, %s of %d", nn, which, planned);
	/* The solver's hidden-helper count (nbw_run_solver). */
	int rc = nbw_plane_sweep(o, sizes, (size_t)nn, host ? 0 : -1, first, count, planned, doc,
				 dir, NULL, &st, err, errlen);
	if (ro->term) {
		struct nbw_rv_doc h;
		nbw_rv_doc_read(doc->root, &h);
		nbw_runterm_measured(ro->term, json_array_size(h.measurements));
	}
	/* The stage's own result is a line; a process in a solver round is progress, unless
	 * something failed. */
	bool failed = st.verify_failed || st.errors;
	if (rc == 0)
		(first == 1 || failed ? nbw_run_progress : nbw_run_doing)(
			ro, "plane-size sweep: %u measurements in %.1f s%s", st.measurements,
			nbw_now() - t0, failed ? " (some failed: see the results)" : "");
	return rc;
}

int nbw_run_plane_sweep(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
			struct nbw_doc *doc, const char *dir, char *err, size_t errlen)
{
	return nbw_run_plane_processes(ro, o, doc, dir, 1, NBW_RUN_PLANE_BEFORE, err, errlen);
}

/* Grids, steps, rounds, hidden helpers, the G of Versions 1-4 and the slab shapes. */
static void solver_plan(const struct nbw_run_opts *ro, struct nbw_solver_plan *p)
{
	bool host = p->host;
	/* Sizes: small grids on the host plugin (its devices share the host's cores and
	 * memory; on the 2-vCPU reference machine runs of N >= 96 were slowed 10-30x in half
	 * of the repetitions by memory contention, N <= 80 stayed within a few per cent), the
	 * paper's range on GPUs. */
	p->nn = nbw_solver_grids(ro, host, p->n);
	p->steps = ro->steps ? ro->steps : host ? 120 : ro->full ? 500 : 100;
	p->rounds = nbw_solver_rounds(ro, host);
	/* libomp's hidden helper threads compete with the host threads for the cores when
	 * the devices are host memory; the solver runs without them there. */
	p->hh = host ? 0 : -1;
	p->ng = 0;
	if (p->ndev >= 2)
		p->gs[p->ng++] = 2;
	if (p->ndev >= 4)
		p->gs[p->ng++] = 4;
	list_str(p->nlist, sizeof(p->nlist), p->n, p->nn, ",");
	snprintf(p->glist, sizeof(p->glist), "1%s%s", p->ng > 0 ? ",2" : "",
		 p->ng > 1 ? ",4" : "");
	/* The slab shapes of the extended model: N x N x (ceil((N-2)/G) + 2). */
	p->shapes[0] = '\0';
	size_t w = 0;
	for (int i = 0; i < p->nn; i++)
		for (int k = 0; k < p->ng; k++) {
			int planes = (p->n[i] - 2 + p->gs[k] - 1) / p->gs[k];
			w += (size_t)snprintf(p->shapes + w, sizeof(p->shapes) - w, "%s%dx%dx%d",
					      w ? "," : "", p->n[i], p->n[i], planes + 2);
		}
}

/* The plan, as results.json "solver" says it. */
static void solver_plan_json(json_t *info, const struct nbw_solver_plan *p)
{
	json_object_set_new(info, "device_kind", json_string(p->kind));
	json_object_set_new(info, "devices", json_integer(p->ndev));
	json_object_set_new(info, "n", json_string(p->nlist));
	json_object_set_new(info, "G", json_string(p->glist));
	json_object_set_new(info, "steps", json_integer(p->steps));
	json_object_set_new(info, "rounds", json_integer(p->rounds));
	json_object_set_new(info, "hidden_helpers", p->hh >= 0 ? json_integer(p->hh) : json_null());
	json_object_set_new(info, "hidden_helpers_reason",
			    json_string(p->host ? "0: on host-plugin devices libomp's hidden helper "
						  "threads compete with the solver's host threads for "
						  "the same cores"
						: "the runtime's own setting"));
	json_object_set_new(info, "summary",
			    json_string("every round: cubic N^3 grids with baseline (1 device) "
					"and v1-v4 on each G, timed (validation, and the paper's "
					"k(N)), each repetition of v1-v4 timed first "
					"without the halo copies on the same buffers (--paired; "
					"compute-calibrated: the compute, launch and synchronisation of G "
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
	if (p->ng == 0)
		json_object_set_new(info, "validation_skipped",
				    json_string("fewer than 2 OpenMP devices: Versions 1-4 need "
						"G >= 2"));
}

/* The children's environment: libomp's blocktime on host-plugin devices, the hidden-helper
 * count (libomp reads it at start-up, so that the children need not restart themselves). */
static void solver_environment(json_t *info, struct nbw_solver_plan *p)
{
	/* On host-plugin devices the solver's threads share the machine's cores: libomp's
	 * spin-waiting (200 ms by default) would hold a core another of its threads needs. */
	p->spin_baseline = false;
	if (p->host && !getenv("KMP_BLOCKTIME")) {
		setenv("KMP_BLOCKTIME", "0", 1);
		/* The one-device baseline shares the cores with nothing: its kernel's team spins
		 * between steps (NBW_RUN_BASELINE_BLOCKTIME_MS) instead of paying a wake-up from
		 * sleep every step, a cost that differs from process to process. */
		p->spin_baseline = true;
		json_object_set_new(
			info, "environment",
			json_pack("{s:s}", "KMP_BLOCKTIME",
				  "0 (host-plugin devices share the cores: waiting threads sleep at "
				  "once instead of spinning); the cubic baseline runs spin "
				  "for " NBW_STR(NBW_RUN_BASELINE_BLOCKTIME_MS) " ms "
				  "(nodebw heat --baseline-blocktime): one device alone, "
				  "whose kernel's team would otherwise wake from sleep every step"));
	}
	if (p->hh >= 0) {
		char v[16];
		snprintf(v, sizeof(v), "%d", p->hh);
		setenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS", v, 1);
		unsetenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
	}
}

/* No OpenMP device: the stage records why and ends. */
static int solver_skipped(const struct nbw_run_opts *ro, struct nbw_doc *doc, json_t *info,
			  const char *dir, char *err, size_t errlen)
{
	json_object_set_new(info, "skipped",
			    json_string(NBW_HAVE_OMP ? "no OpenMP offload device: the solver "
						       "needs one (see the skipped list)"
						     : NBW_NO_OFFLOAD_REASON));
	nbw_run_progress(ro, "solver: skipped (%s)",
			 NBW_HAVE_OMP ? "no OpenMP offload device" : NBW_NO_OFFLOAD_REASON);
	nbw_doc_set_state(doc, "complete", NULL);
	return nbw_doc_write(doc, dir, err, errlen);
}

/* The state the stage leaves: complete, or interrupted by a signal. */
static int solver_finish(struct nbw_solver_run *s)
{
	if (nbw_stop_requested)
		s->st->interrupted = 1;
	if (s->st->interrupted) {
		char detail[96];
		snprintf(detail, sizeof(detail), "stopped by %s in the solver stage",
			 nbw_signal_name(nbw_stop_signal ? nbw_stop_signal : SIGINT));
		nbw_doc_set_state(s->doc, "interrupted", detail);
	} else {
		nbw_doc_set_state(s->doc, "complete", NULL);
	}
	return nbw_doc_write(s->doc, s->dir, s->err, s->errlen);
}

int nbw_run_solver(const struct nbw_run_opts *ro, const struct nbw_probe_opts *o,
		   struct nbw_doc *doc, const char *dir, struct nbw_run_solver_status *st,
		   char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	struct nbw_solver_run s = {.ro = ro, .o = o, .doc = doc, .dir = dir, .st = st,
				   .err = err, .errlen = errlen};
	s.p.ndev = nbw_solver_omp_devices(doc->devices, s.p.kind, sizeof(s.p.kind));
	s.p.host = strcmp(s.p.kind, "host-plugin") == 0;
	s.info = json_object();
	nbw_doc_set(doc, "solver", s.info);
	if (s.p.ndev < 1)
		return solver_skipped(ro, doc, s.info, dir, err, errlen);
	solver_plan(ro, &s.p);
	solver_plan_json(s.info, &s.p);
	solver_environment(s.info, &s.p);
	s.children = json_array();
	json_object_set_new(s.info, "children", s.children);
	s.t_solver = nbw_now();
	/* The run's time limit governs the solver, the stage that can give: rounds beyond the
	 * NBW_ROUNDS_CORE that the stability test needs start only when one more (the mean
	 * round so far) ends before the limit, less what the report needs. */
	s.limit = nbw_run_time_limit(ro);
	s.limited = s.limit > 0.0;
	s.deadline = s.limit - NBW_RUN_REPORT_RESERVE - nbw_run_appval_reserve(&s);
	json_object_set_new(s.info, "time_limit_s", s.limit > 0.0 ? json_real(s.limit) : json_null());
	if (nbw_solver_planned_rounds(&s) || nbw_solver_extra_rounds(&s) ||
	    nbw_run_app_validation(&s))
		return -1;
	return solver_finish(&s);
}
