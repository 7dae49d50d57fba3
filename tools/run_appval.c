/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application model's validation in `nodebw run` (doc/model.md, "Validating the
 * application model"): after the solver's rounds, the generalised solver runs four
 * configurations that are not the paper's z-slab (a radius-2 z-slab; 2x2x1 host-staged;
 * 2x2x1 device to device; 2x1x2 with two fields), with the one-device runs of their local
 * boxes and the co-runs of those boxes on G devices; before them one `nodebw probe --faces
 * SHAPE --faces-decomp PXxPYxPZ` child per distinct local box and decomposition measures the
 * faces of the box and the concurrent exchange of the decomposition (their measurements join
 * the results and so the calibration); each is predicted from the probes, the one-device
 * runs, the co-runs and the app description only (nbw_app_predict on the calibration of the
 * results so far, which holds no run of that configuration on several devices) and
 * predicted, measured and the compute-only
 * baseline are recorded in results.json "app_validation".
 */
#include "run_appval.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nodebw/app_model.h"
#include "nodebw/curves.h"
#include "nodebw/probe.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"
#include "nodebw/results_view_app.h"
#include "nodebw/session.h"
#include "nodebw/stats.h"

/* Rounds of every configuration (a configuration takes its fastest). */
#define APPVAL_ROUNDS 2
#define APPVAL_REPS 3

/* The validated configurations; the grids are small enough for a quick run on the host
 * plugin (each a second or so). */
struct appval_conf {
	const char *name;
	long grid[3];
	int decomp[3], radius, fields;
	enum nbw_app_exchange exchange;
	enum nbw_app_copy copy;
};

static const struct appval_conf confs[] = {
	{"radius-2 z-slab", {60, 60, 60}, {1, 1, 2}, 2, 1, NBW_APP_HOST_STAGED, NBW_APP_RECT},
	{"2x2x1 host-staged", {60, 60, 60}, {2, 2, 1}, 1, 1, NBW_APP_HOST_STAGED, NBW_APP_RECT},
	{"2x2x1 device", {60, 60, 60}, {2, 2, 1}, 1, 1, NBW_APP_DEVICE, NBW_APP_RECT},
	{"2x1x2 two fields", {60, 60, 60}, {2, 1, 2}, 1, 2, NBW_APP_DEVICE, NBW_APP_PACK},
};
#define NCONF (sizeof(confs) / sizeof(confs[0]))

static void conf_app(const struct appval_conf *f, int steps, struct nbw_app *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", f->name);
	memcpy(a->grid, f->grid, sizeof(a->grid));
	memcpy(a->decomp, f->decomp, sizeof(a->decomp));
	a->radius = f->radius;
	a->fields = f->fields;
	a->element_bytes = 8;
	a->exchange = f->exchange;
	a->copy = f->copy;
	a->overlap = false;
	a->steps = steps;
	a->compute = NBW_APP_COMPUTE_KERNEL;
}

/* The app description written for `nodebw heat --app`. */
static int write_app(const struct nbw_app *a, const char *path, char *err, size_t errlen)
{
	json_t *j = nbw_app_to_json(a);
	char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	json_decref(j);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = nbw_write_atomic(path, text, strlen(text), err, errlen);
	free(text);
	return rc;
}

static size_t runs_now(struct nbw_solver_run *s)
{
	struct nbw_rv_doc h;
	nbw_rv_doc_read(s->doc->root, &h);
	return json_array_size(h.solver_runs);
}

/* The fastest repetition per step among runs [from, to) of the document that ran on more
 * than one device (the configuration itself); NAN when none verified. */
static double fastest_multi(struct nbw_solver_run *s, size_t from, size_t to)
{
	struct nbw_rv_doc h;
	nbw_rv_doc_read(s->doc->root, &h);
	double best = INFINITY;
	for (size_t i = from; i < to; i++) {
		struct nbw_rv_solver_run v;
		json_t *r = json_array_get(h.solver_runs, i);
		nbw_rv_solver_read(r, &v);
		if (!nbw_rv_solver_ok(&v) || v.g < 2 || v.no_exchange || v.steps < 1)
			continue;
		best = fmin(best, v.fastest_s / v.steps);
	}
	return isfinite(best) ? best : NAN;
}

/* The children of one configuration in round \p r: the one-device run of its busiest local
 * box, then the configuration itself. \p first_status: the first child's exit status. */
static int conf_round(struct nbw_solver_run *s, const struct nbw_app *a, const char *path,
		      int r, size_t *from, size_t *to, int *first_status)
{
	long in[3], box[3];
	nbw_app_local_box(a, a->decomp, (const int[3]){0, 0, 0}, in, box);
	struct nbw_argbuf b = {.n = 0};
	nbw_arg(&b, "nodebw");
	nbw_arg(&b, "heat");
	nbw_arg(&b, "--versions");
	nbw_arg(&b, "baseline");
	/* The box alone, and G of it at once (its co-run): the compute term's measurements. */
	int g = a->decomp[0] * a->decomp[1] * a->decomp[2];
	nbw_arg(&b, "--gpus");
	nbw_arg(&b, "1,%d", g);
	nbw_arg(&b, "--corun");
	nbw_arg(&b, "--baseline-launch");
	nbw_arg(&b, "nowait");
	nbw_arg(&b, "--radius");
	nbw_arg(&b, "%d", a->radius);
	nbw_arg(&b, "--fields");
	nbw_arg(&b, "%d", a->fields);
	nbw_arg(&b, "--nx");
	nbw_arg(&b, "%ld", box[0]);
	nbw_arg(&b, "--ny");
	nbw_arg(&b, "%ld", box[1]);
	nbw_arg(&b, "--nz");
	nbw_arg(&b, "%ld", box[2]);
	size_t kids = json_array_size(s->children);
	if (nbw_solver_child(s, &b, (int)a->steps, APPVAL_REPS, r, "app-calibration"))
		return -1;
	json_t *last = json_array_get(s->children, kids);
	*first_status = (int)json_integer_value(json_object_get(last, "exit_status"));
	if (*first_status != 0)
		return 0;
	struct nbw_argbuf c = {.n = 0};
	nbw_arg(&c, "nodebw");
	nbw_arg(&c, "heat");
	nbw_arg(&c, "--app");
	nbw_arg(&c, "%s", path);
	nbw_arg(&c, "--versions");
	nbw_arg(&c, "general");
	*from = runs_now(s);
	int rc = nbw_solver_child(s, &c, (int)a->steps, APPVAL_REPS, r, "app-validation");
	*to = runs_now(s);
	return rc;
}

/* The prediction of \p a from the calibration of the results so far. */
static json_t *conf_record(const struct nbw_calib *c, const struct nbw_app *a, double measured)
{
	struct nbw_app_pred p;
	char why[400];
	json_t *o = json_pack("{s:s, s:o, s:i, s:i, s:s, s:s, s:b, s:I}", "name", a->name, "app",
			      nbw_app_to_json(a), "radius", a->radius, "fields", a->fields,
			      "exchange", nbw_app_exchange_name(a->exchange), "copy",
			      nbw_app_copy_name(a->copy), "overlap", a->overlap, "steps",
			      (json_int_t)a->steps);
	char dec[32];
	snprintf(dec, sizeof(dec), "%dx%dx%d", a->decomp[0], a->decomp[1], a->decomp[2]);
	json_object_set_new(o, "decomp", json_string(dec));
	json_object_set_new(o, "measured_s", isnan(measured) ? json_null() : json_real(measured * a->steps));
	if (nbw_app_predict(c, a, a->decomp, a->exchange, a->copy, &p, why, sizeof(why))) {
		json_object_set_new(o, "not_predicted", json_string(why));
		return o;
	}
	double base = (p.compute_s + p.launch_s) * a->steps;
	json_object_set_new(o, "predicted_s", json_real(p.total_s));
	json_object_set_new(o, "compute_only_s", json_real(base));
	json_object_set_new(o, "compute_s", json_real(p.compute_s * a->steps));
	json_object_set_new(o, "exchange_s", json_real(p.exchange_s * a->steps));
	json_object_set_new(o, "launch_s", json_real(p.launch_s * a->steps));
	json_object_set_new(o, "compute_from", json_string(p.compute_from));
	json_object_set_new(o, "exchange_from", json_string(p.exchange_from));
	if (!isnan(measured)) {
		double m = measured * a->steps;
		json_object_set_new(o, "error_pct", json_real(100.0 * fabs(p.total_s - m) / m));
		json_object_set_new(o, "compute_only_error_pct",
				    json_real(100.0 * fabs(base - m) / m));
	}
	return o;
}

/* Whether this nodebw's solver takes the generalised options: `nodebw heat --radius 1
 * --fields 1 --help` exits 0 (an unknown option exits 2), quietly. */
static bool solver_general(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		char *argv[] = {"nodebw", "heat", "--radius", "1", "--fields", "1", "--help", NULL};
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The faces of the configurations' local boxes and the concurrent exchange of each
 * configuration's decomposition: one `nodebw probe --faces SHAPE --faces-decomp PXxPYxPZ`
 * child per distinct box and decomposition, on OpenMP in the run's sync and async modes,
 * pinned host memory, the quick profile: their measurements join the results, so the
 * calibration the predictions take holds the face copies and the exchanges of exactly these
 * shapes. */
static int measure_faces(struct nbw_solver_run *s, int steps)
{
	char done[NCONF][96];
	int ndone = 0;
	char modes[32] = "";
	const enum nbw_mode want[] = {NBW_MODE_SYNC, NBW_MODE_ASYNC};
	for (size_t m = 0; m < 2; m++)
		if (!s->o->modes_given || s->o->modes[want[m]]) {
			size_t at = strlen(modes);
			snprintf(modes + at, sizeof(modes) - at, "%s%s", at ? "," : "",
				 nbw_mode_name(want[m]));
		}
	if (!modes[0])
		snprintf(modes, sizeof(modes), "async");
	for (size_t i = 0; i < NCONF; i++) {
		struct nbw_app a;
		struct nbw_app_pred p;
		char one[64], dec[32], key[96];
		conf_app(&confs[i], steps, &a);
		nbw_app_local_box(&a, a.decomp, (const int[3]){0, 0, 0}, p.interior, p.box);
		nbw_app_faces_arg(&a, &p, one, sizeof(one));
		snprintf(dec, sizeof(dec), "%dx%dx%d", a.decomp[0], a.decomp[1], a.decomp[2]);
		snprintf(key, sizeof(key), "%s@%s@%d", one, dec, a.fields);
		bool seen = false;
		for (int k = 0; k < ndone; k++)
			seen = seen || strcmp(done[k], key) == 0;
		if (seen)
			continue;
		snprintf(done[ndone++], sizeof(done[0]), "%s", key);
		nbw_run_doing(s->ro, "application model: the faces of the local box %s and the "
				     "exchange of %s devices, one probe child", one, dec);
		struct nbw_argbuf b = {.n = 0};
		nbw_arg(&b, "nodebw");
		nbw_arg(&b, "probe");
		nbw_arg(&b, "--api");
		nbw_arg(&b, "omp");
		nbw_arg(&b, "--quick");
		nbw_arg(&b, "--max-time");
		nbw_arg(&b, "%s", NBW_APP_FACES_MAX_TIME);
		nbw_arg(&b, "--host-mem");
		nbw_arg(&b, "pinned");
		nbw_arg(&b, "--mode");
		nbw_arg(&b, "%s", modes);
		nbw_arg(&b, "--faces");
		nbw_arg(&b, "%s", one);
		nbw_arg(&b, "--faces-decomp");
		nbw_arg(&b, "%s", dec);
		if (a.fields > 1) {
			nbw_arg(&b, "--faces-fields");
			nbw_arg(&b, "%d", a.fields);
		}
		if (nbw_solver_probe_child(s, &b, "app_faces", "application-model validation",
					   "app-validation faces"))
			return -1;
	}
	return 0;
}

static int skip(struct nbw_solver_run *s, const char *why)
{
	nbw_doc_set(s->doc, "app_validation", json_pack("{s:s}", "skipped", why));
	nbw_run_progress(s->ro, "application model: validation skipped (%s)", why);
	return nbw_doc_write(s->doc, s->dir, s->err, s->errlen);
}

/* Three probe children of about 10 s (each series up to NBW_APP_FACES_MAX_TIME), then two
 * rounds of four configurations, each two children of about a second and a half on the
 * 2-core VM (process start, the serial reference, a few hundred milliseconds of steps, the
 * box's co-run): 53 s measured. */
#define APPVAL_RESERVE_S 65.0

double nbw_run_appval_reserve(const struct nbw_solver_run *s)
{
	return s->p.ndev >= 4 && solver_general() ? APPVAL_RESERVE_S : 0.0;
}

int nbw_run_app_validation(struct nbw_solver_run *s)
{
	if (s->p.ndev < 4)
		return skip(s, "fewer than 4 OpenMP devices: the configurations need 2 and 4");
	if (nbw_stop_requested || s->st->interrupted)
		return 0;
	if (!solver_general())
		return skip(s, "this nodebw heat lacks the generalised solver (--radius, --fields, "
			       "--app): the application model is not validated");
	int steps = s->p.steps;
	if (measure_faces(s, steps))
		return -1;
	double measured[NCONF];
	bool lacks = false;
	char path[4096];
	for (size_t i = 0; i < NCONF; i++)
		measured[i] = NAN;
	for (int r = 1; r <= APPVAL_ROUNDS && !lacks && !nbw_stop_requested; r++)
		for (size_t i = 0; i < NCONF && !lacks && !nbw_stop_requested; i++) {
			struct nbw_app a;
			conf_app(&confs[i], steps, &a);
			snprintf(path, sizeof(path), "%s/.app-%zu.json", s->dir, i);
			if (write_app(&a, path, s->err, s->errlen))
				return -1;
			nbw_run_doing(s->ro, "application model %d/%d: %s (grid %ldx%ldx%ld, radius "
					     "%d, %d field%s), its local box on one device",
				      r, APPVAL_ROUNDS, a.name, a.grid[0], a.grid[1], a.grid[2],
				      a.radius, a.fields, a.fields == 1 ? "" : "s");
			size_t from = 0, to = 0;
			int first = 0, rc = conf_round(s, &a, path, r, &from, &to, &first);
			unlink(path);
			if (rc)
				return -1;
			if (first == 2) { /* the solver refused its options */
				lacks = true;
				break;
			}
			double t = fastest_multi(s, from, to);
			if (!isnan(t) && (isnan(measured[i]) || t < measured[i]))
				measured[i] = t;
		}
	if (lacks)
		return skip(s, "this nodebw heat lacks the generalised solver (--radius, --fields, "
			       "--app): the application model is not validated");
	/* The predictions, from the calibration of the results so far. */
	char rpath[4096], err[400];
	snprintf(rpath, sizeof(rpath), "%s/results.json", s->dir);
	struct nbw_rinput in;
	const char *paths[1] = {rpath};
	int lrc = nbw_rinput_load(&in, paths, 1, err, sizeof(err));
	if (lrc || !in.calib) {
		if (!lrc) {
			snprintf(err, sizeof(err), "%s", in.calib_err);
			nbw_rinput_free(&in);
		}
		char why[480];
		snprintf(why, sizeof(why), "no calibration from the results: %s", err);
		return skip(s, why);
	}
	json_t *rows = json_array();
	for (size_t i = 0; i < NCONF; i++) {
		struct nbw_app a;
		conf_app(&confs[i], steps, &a);
		json_array_append_new(rows, conf_record(in.calib, &a, measured[i]));
	}
	nbw_rinput_free(&in);
	nbw_doc_set(s->doc, "app_validation", json_pack("{s:o}", "configurations", rows));
	nbw_run_progress(s->ro, "application model: %zu configurations predicted and measured "
				"(results.json app_validation)", NCONF);
	return nbw_doc_write(s->doc, s->dir, s->err, s->errlen);
}
