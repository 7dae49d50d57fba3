/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of stages of `nodebw probe` and `nodebw run`, their time estimates, the list
 * (`nodebw run --list-stages`, the same as doc/run.md) and the walk.
 */
#include "run_stages.h"
#include "stages.h"
#include "run_solver.h"

#include <string.h>

#include "runterm.h"
#include "nodebw/backends.h"
#include "nodebw/plan.h"
#include "nodebw/results_view.h"

/* Seconds the timed repetitions of one size may take (--max-time; 0 = no cap: 0.1 s). */
static double per_size(const struct nbw_probe_opts *o)
{
	return o->max_time_s > 0.0 ? o->max_time_s : 0.1;
}

static int count_true(const bool *v, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += v[i];
	return k;
}

/* Series of one device set: APIs x directions x modes x host memories x thread counts. */
static double probe_series(const struct nbw_probe_opts *o)
{
	size_t nb;
	nbw_backends(&nb);
	int apis = o->napis ? o->napis : (int)nb;
	int dirs = o->nprobes ? o->nprobes : 3;
	return (double)apis * dirs * count_true(o->modes, NBW_MODE_COUNT) *
	       count_true(o->hostmem, NBW_HOSTMEM_NONE) *
	       count_true(o->threads, NBW_THREADS_COUNT);
}

static double est_prerun(const struct nbw_stage_ctx *c)
{
	return 1.0;
}

static double est_probes(const struct nbw_stage_ctx *c)
{
	return probe_series(c->o) * (double)c->o->sizes.n * per_size(c->o);
}

/* The sweep's children: 0 hidden helpers (quick), or 0, one per device and 8; each runs
 * the async modes (2) in pinned memory, 3 directions, 1 and 2 streams, at the sizes up to
 * the matrix cells' large one, plus a second to start. */
static double est_hht(const struct nbw_stage_ctx *c)
{
	/* The sweep is OpenMP's: nothing to run without it among the APIs. */
	bool omp = c->o->napis == 0;
	for (int i = 0; i < c->o->napis; i++)
		omp |= strcmp(c->o->apis[i], "omp") == 0;
	if (!omp)
		return 0.0;
	size_t lo, hi;
	nbw_plan_matrix_sizes(&c->o->sizes, &lo, &hi);
	int children = c->o->profile == NBW_PROFILE_QUICK ? 1 : 3;
	return children * (1.0 + 12.0 * (double)(hi + 1) * per_size(c->o));
}

static double est_none(const struct nbw_stage_ctx *c)
{
	return 0.0;
}

/* Two processes, each a second to start and 12 series (3 directions, sync and async, one
 * and two streams) at the solver's 4 halo-plane sizes. */
static double est_plane(const struct nbw_stage_ctx *c)
{
	return NBW_RUN_PLANE_BEFORE * (1.0 + 12.0 * 4.0 * per_size(c->o));
}

/* A solver round on the 2-core VM took 15-25 s (host plugin, four grids): 20 s a round. */
#define NBW_STAGE_ROUND_S 20.0

static double est_before_solver(const struct nbw_stage_ctx *c)
{
	double t = est_prerun(c) + est_probes(c) + est_plane(c);
	return t + (c->o->hht_sweep ? est_hht(c) : 0.0);
}

static double est_solver(const struct nbw_stage_ctx *c)
{
	double limit = nbw_run_time_limit(c->ro);
	if (limit > 0.0) {
		double left = limit - est_before_solver(c) - NBW_RUN_REPORT_RESERVE;
		return left > 0.0 ? left : 0.0;
	}
	return nbw_solver_rounds(c->ro, true) * NBW_STAGE_ROUND_S;
}

static double est_report(const struct nbw_stage_ctx *c)
{
	return NBW_RUN_REPORT_RESERVE;
}

static const struct nbw_stage stages[] = {
	{"pre-run check", "one second of nodebw idle: whether the machine is; the machine's "
	 "settings (THP, cpufreq) and, in a run, the speed reference",
	 "results.json: disturbance (environment, stages, speed_reference)",
	 "fixed: 1 s", est_prerun, false, false, NULL, nbw_stage_prerun},
	{"probes", "every selected probe of every available API over the size sweep, each "
	 "transfer verified", "results.json: devices, skipped, measurements, settings, topology; "
	 "results.csv",
	 "sizes x --max-time x series of one device set (APIs x directions x modes x host "
	 "memories x thread counts); more devices take longer",
	 est_probes, false, false, NULL, nbw_stage_probes},
	{"hidden-helper sweep", "the async modes again in child processes with 0 hidden "
	 "helpers (--quick), or 0, one per device and 8",
	 "results.json: measurements tagged hht_sweep, hht_sweep, hht_sweep_note",
	 "children (1 quick, else 3) x (1 s + 12 series x sizes to 64 MiB x --max-time); "
	 "0 without OpenMP among the APIs",
	 est_hht, false, false, nbw_stage_hht_wanted, nbw_stage_hht},
	{"analyses", "the OpenMP-vs-native gap table and the whole-node analyses of what was "
	 "measured; the probes' counts",
	 "results.json: gaps, outliers, outlier_groups, all_at_once, matrices, device_tables, "
	 "state", "instant (computed from the measurements)", est_none, false, false, NULL,
	 nbw_stage_analyses},
	{"plane-size sweep", "the models' OpenMP paths at the solver's halo-plane sizes 8 N^2, "
	 "the first 2 processes (one more starts each solver round)",
	 "results.json: measurements tagged plane_sweep, plane_sweep",
	 "2 processes x (1 s + 12 series x 4 sizes x --max-time)", est_plane, true, false,
	 nbw_stage_solver_wanted, nbw_stage_plane},
	{"solver", "the heat solver's rounds in child processes (nodebw heat): cubic grids "
	 "with baseline and v1-v4 (each also without its halo copies), slab shapes with the "
	 "co-run probe, launch probe; extra rounds of unstable configurations; then the "
	 "application model's validation (the generalised solver on four configurations and "
	 "the one-device runs of their local boxes)",
	 "results.json: solver, solver_runs, launch_probe, app_validation, state",
	 "with a time limit (quick: 300 s): what is left of it less 15 s for the report; "
	 "else rounds x 20 s", est_solver, true, false, nbw_stage_solver_wanted,
	 nbw_stage_solver},
	{"calibration and report", "the calibration from the results, then the report "
	 "(--no-report: the calibration only)",
	 "calibration.json; report/ (report.md, report.html, summary.json, tables, plots)",
	 "the 15 s the run keeps for it", est_report, true, false, NULL, nbw_stage_report},
	{"summary", "one summary on the terminal (at most 40 lines on a node of 4 host-plugin "
	 "devices); the results marked failed when an API asked for could not run",
	 "the terminal; results.json: state when an API could not run",
	 "instant", est_none, false, true, NULL, nbw_stage_summary},
};

const struct nbw_stage *nbw_stages(size_t *n)
{
	*n = sizeof(stages) / sizeof(stages[0]);
	return stages;
}

bool nbw_stage_wanted(const struct nbw_stage *s, const struct nbw_stage_ctx *c)
{
	if (s->run_only && !c->is_run)
		return false;
	return !s->wanted || s->wanted(c);
}

void nbw_stages_list(FILE *f, const struct nbw_stage_ctx *c)
{
	size_t n, k = 0;
	const struct nbw_stage *t = nbw_stages(&n);
	double total = 0.0;
	fprintf(f, "nodebw %s: the stages these options run, in order (doc/run.md)\n",
		c->is_run ? "run" : "probe");
	for (size_t i = 0; i < n; i++) {
		if (!nbw_stage_wanted(&t[i], c))
			continue;
		double e = t[i].estimate(c);
		total += e;
		fprintf(f, "\n%zu. %s (about %.0f s)\n   runs: %s\n   writes: %s\n   estimate: %s\n",
			++k, t[i].name, e, t[i].runs, t[i].writes, t[i].estimate_how);
	}
	fprintf(f, "\nabout %.0f s in all\n", total);
}

void nbw_stages_count(struct nbw_stage_ctx *c)
{
	struct nbw_stage_plan *p = &c->plan;
	struct nbw_probe_count pc;
	memset(p, 0, sizeof(*p));
	if (nbw_probe_plan_count(c->o, &pc))
		return;
	p->known = true;
	p->probes = pc.measurements;
	p->series = pc.series;
	p->hht = c->o->hht_sweep ? nbw_hht_sweep_count(c->o, pc.omp_devices) : 0;
	if (c->is_run && c->ro->solver && pc.omp_devices >= 1) {
		bool host = strcmp(pc.omp_kind, "host-plugin") == 0;
		int n[NBW_RUN_MAX_N], nn = nbw_solver_grids(c->ro, host, n);
		size_t sizes[NBW_RUN_MAX_N];
		for (int i = 0; i < nn; i++)
			sizes[i] = (size_t)8 * (size_t)n[i] * (size_t)n[i];
		p->rounds = nbw_solver_rounds(c->ro, host);
		p->plane_processes = NBW_RUN_PLANE_BEFORE + p->rounds;
		p->plane_process = nbw_plane_sweep_count(c->o, sizes, (size_t)nn, pc.omp_devices);
	}
	p->total = p->probes + p->hht + p->plane_process * (size_t)p->plane_processes;
}

size_t nbw_stages_measured(const struct nbw_stage_ctx *c)
{
	struct nbw_rv_doc h;
	if (!c->doc)
		return 0;
	nbw_rv_doc_read(c->doc->root, &h);
	return json_array_size(h.measurements);
}

void nbw_stages_count_line(const struct nbw_stage_ctx *c)
{
	if (!c->plan.known)
		return;
	size_t done = nbw_stages_measured(c);
	nbw_run_progress(c->ro, "%zu measurements of %zu planned%s", done, c->plan.total,
			 done < c->plan.total   ? " (the run stopped short of its plan)"
			 : done > c->plan.total ? " (more than the plan counted)"
						: "");
}

/* The measurements each stage should record. */
static size_t stage_planned(const struct nbw_stage_ctx *c, const char *name)
{
	const struct nbw_stage_plan *p = &c->plan;
	if (strcmp(name, "probes") == 0)
		return p->probes;
	if (strcmp(name, "hidden-helper sweep") == 0)
		return p->hht;
	if (strcmp(name, "plane-size sweep") == 0)
		return p->plane_process * NBW_RUN_PLANE_BEFORE;
	if (strcmp(name, "solver") == 0)
		return p->plane_process * (size_t)p->rounds;
	return 0;
}

void nbw_stages_plan_line(const struct nbw_stage_ctx *c)
{
	size_t n, w = 0;
	const struct nbw_stage *t = nbw_stages(&n);
	char line[512], counts[256] = "";
	double total = 0.0;
	line[0] = '\0';
	for (size_t i = 0; i < n && w < sizeof(line); i++) {
		if (!nbw_stage_wanted(&t[i], c) || t[i].estimate(c) < 0.5)
			continue;
		total += t[i].estimate(c);
		w += (size_t)snprintf(line + w, sizeof(line) - w, "%s%s ~%.0f s", w ? ", " : "",
				      t[i].name, t[i].estimate(c));
	}
	const struct nbw_stage_plan *p = &c->plan;
	if (p->known) {
		size_t k = (size_t)snprintf(counts, sizeof(counts), "; %zu measurements (probes %zu",
					    p->total, p->probes);
		if (p->hht && k < sizeof(counts))
			k += (size_t)snprintf(counts + k, sizeof(counts) - k,
					      ", hidden-helper sweep %zu", p->hht);
		if (p->plane_processes && k < sizeof(counts))
			k += (size_t)snprintf(counts + k, sizeof(counts) - k,
					      ", plane-size sweep %d x %zu", p->plane_processes,
					      p->plane_process);
		if (k < sizeof(counts))
			snprintf(counts + k, sizeof(counts) - k, ")");
		k = strlen(counts);
		if (p->rounds)
			snprintf(counts + k, sizeof(counts) - k, " and %d solver rounds", p->rounds);
	}
	nbw_run_progress(c->ro, "plan: %s; about %.0f s in all%s (nodebw run --list-stages)", line,
			 total, counts);
}

void nbw_stages_walk(struct nbw_stage_ctx *c)
{
	size_t n;
	const struct nbw_stage *t = nbw_stages(&n);
	bool closing = false;
	struct nbw_runterm *rt = c->is_run ? c->ro->term : NULL;
	if (rt) {
		for (size_t i = 0; i < n; i++)
			if (nbw_stage_wanted(&t[i], c))
				nbw_runterm_plan_stage(rt, t[i].name, t[i].estimate(c));
		nbw_runterm_plan_counts(rt, c->plan.total, c->plan.series);
	}
	for (size_t i = 0; i < n; i++) {
		if (!nbw_stage_wanted(&t[i], c) || (closing && !t[i].closing))
			continue;
		if (rt)
			nbw_runterm_stage(rt, t[i].name, stage_planned(c, t[i].name));
		enum nbw_stage_next r = t[i].run(c);
		if (r == NBW_STAGE_ABORT)
			return;
		if (r == NBW_STAGE_CLOSE)
			closing = true;
	}
}
