/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw predict --measure`: before predicting, the one-device runs the calibration lacks
 * for the sizes asked for, on this node's devices, as nodebw run's solver stage makes them
 * (tools/run_rounds.c): the slab N x N x (ceil((N-2)/G)+2) of each N and G launched as
 * Versions 1-4 launch (nowait), G of them at once (the co-run probe), and the launch probe's
 * copy forms at those N; with --app, the one-device runs of its local boxes, their co-runs
 * (each box on the G devices whose box it is, at once: `nodebw heat --corun --nx --ny --nz`)
 * and the faces of those boxes (`nodebw probe --faces`). Still no multi-device run of
 * Versions 1-4. The runs are added to the calibration, which is written to a new file beside
 * the old one (atomically).
 */
#include "predict_measure.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/app_model.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"
#include "nodebw/session.h"
#include "nodebw/termtext.h"

#define MAX_ARGS 32

/* What the calibration lacks for the request. */
static bool has_slab(const struct nbw_calib *c, int n, int planes);

/* A local box to measure: its one-device run and its co-runs for the G of gs. */
struct missing_box {
	const struct nbw_measure_box *b;
	int gs[16], ng;
};

struct missing {
	char shapes[2048], gpus[64], ns[512];
	int nshapes, ncopy;
	bool corun;
	struct missing_box boxes[64]; /* the app's local boxes not yet measured */
	int nboxes;
};

static bool has_box(const struct nbw_calib *c, const struct nbw_measure_box *b)
{
	for (size_t i = 0; i < c->nboxes; i++)
		if (c->boxes[i].radius == b->radius && c->boxes[i].fields == b->fields &&
		    !memcmp(c->boxes[i].box, b->box, sizeof(b->box)))
			return true;
	/* A radius-1, one-field slab of an N^3 grid is a one-device slab run. */
	return b->radius == 1 && b->fields == 1 && b->box[0] == b->box[1] &&
	       b->box[2] <= b->box[0] && has_slab(c, (int)b->box[0], (int)b->box[2] - 2);
}

static bool has_slab(const struct nbw_calib *c, int n, int planes)
{
	for (size_t i = 0; i < c->nslab; i++)
		if (c->slab[i].n == n && c->slab[i].planes == planes)
			return true;
	return false;
}

static bool has_corun(const struct nbw_calib *c, int n, int g, bool per_device)
{
	for (size_t i = 0; i < c->ncorun; i++)
		if (c->corun[i].n == n && c->corun[i].g == g && c->corun[i].per_device == per_device)
			return true;
	return false;
}

static bool has_copy(const struct nbw_calib *c, int n, int g, const char *form)
{
	for (size_t i = 0; i < c->nlaunch; i++)
		if (c->launch[i].n == n && c->launch[i].g == g && !strcmp(c->launch[i].form, form))
			return true;
	return false;
}

static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strlen(buf);
	if (at >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

static bool same_box(const struct nbw_measure_box *a, const struct nbw_measure_box *b)
{
	return a->radius == b->radius && a->fields == b->fields &&
	       !memcmp(a->box, b->box, sizeof(a->box));
}

/* Whether the calibration lacks box \p x's one-device run or a co-run for one of its G. */
static bool box_lacks(const struct nbw_calib *c, const struct missing_box *x)
{
	if (!has_box(c, x->b))
		return true;
	for (int k = 0; k < x->ng; k++) {
		double step;
		int at_once;
		if (nbw_calib_box_corun(c, x->b->radius, x->b->fields, x->b->box, x->gs[k], &step,
					&at_once, NULL, 0))
			return true;
	}
	return false;
}

/* The app's local boxes, each once with every G >= 2 whose box it is, that lack a run. */
static void find_missing_boxes(const struct nbw_calib *c, const struct nbw_measure_req *r,
			       struct missing *m)
{
	struct missing_box all[64];
	int n = 0;
	for (int i = 0; i < r->nboxes; i++) {
		const struct nbw_measure_box *b = &r->boxes[i];
		struct missing_box *x = NULL;
		for (int k = 0; k < n && !x; k++)
			if (same_box(all[k].b, b))
				x = &all[k];
		if (!x && n < 64) {
			x = &all[n++];
			*x = (struct missing_box){.b = b, .ng = 0};
		}
		bool listed = !x || b->g < 2;
		for (int k = 0; x && k < x->ng; k++)
			listed |= x->gs[k] == b->g;
		if (!listed && x->ng < (int)(sizeof(x->gs) / sizeof(x->gs[0])))
			x->gs[x->ng++] = b->g;
	}
	for (int k = 0; k < n; k++)
		if (box_lacks(c, &all[k]))
			m->boxes[m->nboxes++] = all[k];
}

static void find_missing(const struct nbw_calib *c, const struct nbw_measure_req *r,
			 struct missing *m)
{
	memset(m, 0, sizeof(*m));
	find_missing_boxes(c, r, m);
	bool one = r->vers[1] || r->vers[2], per = r->vers[3] || r->vers[4];
	bool copies = r->vers[3] || r->vers[4];
	for (int j = 0; j < r->ng; j++)
		append(m->gpus, sizeof(m->gpus), "%s%d", j ? "," : "", r->gs[j]);
	for (int i = 0; i < r->nn; i++) {
		int n = r->ns[i];
		bool copy_missing = false;
		for (int j = 0; j < r->ng; j++) {
			int g = r->gs[j], planes = (n - 2 + g - 1) / g;
			bool lacks = !has_slab(c, n, planes) || (one && !has_corun(c, n, g, false)) ||
				     (per && !has_corun(c, n, g, true));
			if (lacks) {
				append(m->shapes, sizeof(m->shapes), "%s%dx%dx%d",
				       m->nshapes ? "," : "", n, n, planes + 2);
				m->nshapes++;
				m->corun = true;
			}
			copy_missing |= copies && ((r->vers[3] && !has_copy(c, n, g, "staged-copy")) ||
						   (r->vers[4] && !has_copy(c, n, g, "direct-copy")));
		}
		if (copy_missing) {
			append(m->ns, sizeof(m->ns), "%s%d", m->ncopy ? "," : "", n);
			m->ncopy++;
		}
	}
}

/* The children's environment as nodebw run sets it for the solver (tools/run_solver.c):
 * on host-plugin devices waiting threads sleep at once, and the hidden helpers are the
 * calibration's. */
static void child_environment(const struct nbw_calib *c)
{
	if (strcmp(c->device_kind, "host-plugin") == 0 && !getenv("KMP_BLOCKTIME"))
		setenv("KMP_BLOCKTIME", "0", 1);
	if (c->hidden_helpers >= 0) {
		char v[16];
		snprintf(v, sizeof(v), "%d", c->hidden_helpers);
		setenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS", v, 1);
		unsetenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
	}
}

/* One `nodebw heat` (or `nodebw probe`) child into a new folder under \p dir; its results document into
 * \p docs. 0, or -1 with \p err. */
static int heat_child(char **argv, int argc, const char *dir, json_t **doc, char *err,
		      size_t errlen)
{
	char cdir[4096];
	snprintf(cdir, sizeof(cdir), "%s/.measure-XXXXXX", dir);
	if (!mkdtemp(cdir)) {
		snprintf(err, errlen, "cannot create a folder in %s: %s", dir, strerror(errno));
		return -1;
	}
	argv[argc++] = "--output";
	argv[argc++] = cdir;
	argv[argc++] = "--quiet";
	argv[argc] = NULL;
	int rc = nbw_run_child(argv);
	char path[4200];
	snprintf(path, sizeof(path), "%s/results.json", cdir);
	json_error_t je;
	*doc = rc == 0 ? json_load_file(path, 0, &je) : NULL;
	nbw_remove_results_dir(cdir);
	if (!*doc) {
		snprintf(err, errlen, "nodebw %s %s exited with status %d%s", argv[1],
			 strcmp(argv[1], "probe") == 0 ? "--faces"
			 : argv[2][0] == '-' && argv[2][1] == '-' && strcmp(argv[2], "--launch-probe")
				 ? "(one-device run)"
				 : argv[2],
			 rc,
			 rc == 0 ? " and wrote no readable results" : "");
		return -1;
	}
	return 0;
}

/* Local box \p mb's one-device run and its co-runs for its G (one `nodebw heat` child, round
 * \p round) into \p doc. 0, or -1 with \p err. */
static int measure_box(const struct missing_box *mb, const struct nbw_measure_req *r,
		       int round, const char *steps, const char *dir, json_t **doc, char *err,
		       size_t errlen)
{
	const struct nbw_measure_box *x = mb->b;
	char rs[8], fs[8], nx[24], ny[24], nz[24], gl[80] = "1", reps[16];
	snprintf(rs, sizeof(rs), "%d", x->radius);
	snprintf(fs, sizeof(fs), "%d", x->fields);
	snprintf(nx, sizeof(nx), "%ld", x->box[0]);
	snprintf(ny, sizeof(ny), "%ld", x->box[1]);
	snprintf(nz, sizeof(nz), "%ld", x->box[2]);
	snprintf(reps, sizeof(reps), "%d", NBW_MEASURE_REPS);
	for (int k = 0; k < mb->ng; k++)
		append(gl, sizeof(gl), ",%d", mb->gs[k]);
	char *argv[MAX_ARGS] = {"nodebw", "heat", "--versions", "baseline", "--baseline-launch",
				"nowait", "--gpus", gl, "--nx", nx, "--ny", ny, "--nz", nz,
				"--steps", (char *)steps, "--reps", reps};
	int argc = 18;
	/* Radius 1 and one field: the solver's own stencil, any nodebw heat. */
	if (x->radius != 1 || x->fields != 1) {
		argv[argc++] = "--radius";
		argv[argc++] = rs;
		argv[argc++] = "--fields";
		argv[argc++] = fs;
	}
	/* The box on the G devices whose box it is, at once. */
	if (mb->ng)
		argv[argc++] = "--corun";
	if (r->log)
		nbw_term_wrapf(r->log, "nodebw: ", "    ", NBW_TERM_COLUMNS,
			       "predict --measure: round %d/%d: the one-device run of the local "
			       "box %ldx%ldx%ld (radius %d, %d field%s)%s%s", round,
			       NBW_MEASURE_ROUNDS, x->box[0], x->box[1], x->box[2], x->radius,
			       x->fields, x->fields == 1 ? "" : "s",
			       mb->ng ? ", and G of them at once (co-run) for G = " : "",
			       mb->ng ? gl + 2 : "");
	int rc = heat_child(argv, argc, dir, doc, err, errlen);
	if (rc && (x->radius > 1 || x->fields > 1))
		snprintf(err + strlen(err), errlen - strlen(err), " (the one-device run of a local "
			 "box of radius %d with %d field%s needs nodebw heat --radius and "
			 "--fields)", x->radius, x->fields, x->fields == 1 ? "" : "s");
	return rc;
}

/* Whether some configuration of the documents' runs is unstable (nbw_solver_unstable). */
static bool unstable(json_t *const *docs, size_t nd)
{
	json_t *runs = json_array();
	for (size_t i = 0; runs && i < nd; i++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(docs[i], &d);
		if (d.solver_runs)
			json_array_extend(runs, d.solver_runs);
	}
	struct nbw_unstable *u = NULL;
	long n = runs ? nbw_solver_unstable(runs, &u) : 0;
	free(u);
	json_decref(runs);
	return n > 0;
}

/* The new calibration's path: \p r->out_path, else NAME-measured.json beside the old. */
static void out_path(const struct nbw_measure_req *r, char *buf, size_t len)
{
	if (r->out_path) {
		snprintf(buf, len, "%s", r->out_path);
		return;
	}
	snprintf(buf, len, "%s", r->calib_path);
	char *dot = strrchr(buf, '.'), *slash = strrchr(buf, '/');
	if (dot && (!slash || dot > slash) && strcmp(dot, ".json") == 0)
		*dot = '\0';
	if (strlen(buf) + sizeof("-measured.json") <= len)
		strcat(buf, "-measured.json");
}

/* The app's faces and exchanges: one child per "SHAPE@PXxPYxPZ@F" of \p r->faces (`nodebw
 * probe --faces SHAPE --faces-decomp PXxPYxPZ --faces-fields F`), OpenMP, the quick profile
 * with NBW_APP_FACES_MAX_TIME per series, pinned host memory, sync and async (as nodebw
 * run's validation measures its configurations'), added to c's "faces". */
static int measure_faces(struct nbw_calib *c, const struct nbw_measure_req *r, const char *dir,
			 char *err, size_t errlen)
{
	char list[1024];
	snprintf(list, sizeof(list), "%s", r->faces);
	int rc = 0;
	char *save = NULL;
	for (char *item = strtok_r(list, ",", &save); item && rc == 0 && !nbw_stop_requested;
	     item = strtok_r(NULL, ",", &save)) {
		char *at = strchr(item, '@'), *fl = NULL;
		if (at)
			*at++ = '\0';
		if (at && (fl = strchr(at, '@')) != NULL)
			*fl++ = '\0';
		char *argv[MAX_ARGS] = {"nodebw", "probe", "--api", "omp", "--quick", "--max-time",
					NBW_APP_FACES_MAX_TIME, "--host-mem", "pinned", "--mode",
					"sync,async", "--faces", item};
		int argc = 13;
		if (at) {
			argv[argc++] = "--faces-decomp";
			argv[argc++] = at;
		}
		if (at && fl && strcmp(fl, "1") != 0) {
			argv[argc++] = "--faces-fields";
			argv[argc++] = fl;
		}
		if (r->log)
			nbw_term_wrapf(r->log, "nodebw: ", "    ", NBW_TERM_COLUMNS,
				       "predict --measure: the faces of the local box %s%s%s", item,
				       at ? " and the exchange of " : "", at ? at : "");
		json_t *fdoc = NULL;
		rc = heat_child(argv, argc, dir, &fdoc, err, errlen);
		if (rc == 0 && nbw_calib_add_face_doc(c, fdoc)) {
			snprintf(err, errlen, "out of memory adding the measured faces");
			rc = -1;
		}
		json_decref(fdoc);
	}
	return rc;
}

int nbw_predict_measure(struct nbw_calib *c, const struct nbw_measure_req *r, char *written,
			size_t writtenlen, char *err, size_t errlen)
{
	struct missing m;
	written[0] = '\0';
	find_missing(c, r, &m);
	bool faces = r->faces && r->faces[0];
	if (!m.nshapes && !m.ncopy && !m.nboxes && !faces) {
		if (r->log)
			fprintf(r->log, "nodebw: predict --measure: the calibration has every "
					"one-device run asked for; nothing measured\n");
		return 0;
	}
	char path[4096], dir[4096], steps[16], reps[16];
	out_path(r, path, sizeof(path));
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(dir, sizeof(dir), "%s", dirname(dir));
	snprintf(steps, sizeof(steps), "%d", r->steps);
	snprintf(reps, sizeof(reps), "%d", NBW_MEASURE_REPS);
	child_environment(c);
	json_t *docs[(2 + 64) * NBW_MEASURE_MAX_ROUNDS];
	size_t nd = 0;
	int rc = faces ? measure_faces(c, r, dir, err, errlen) : 0;
	for (int round = 1; round <= NBW_MEASURE_MAX_ROUNDS && rc == 0 && !nbw_stop_requested &&
			    (m.nshapes || m.ncopy || m.nboxes);
	     round++) {
		if (round > NBW_MEASURE_ROUNDS && !unstable(docs, nd))
			break;
		if (round > NBW_MEASURE_ROUNDS && r->log)
			nbw_term_wrapf(r->log, "nodebw: ", "    ", NBW_TERM_COLUMNS,
				       "predict --measure: rounds disagree by more than %.1fx "
				       "(a load burst?): one more round", NBW_STABLE_SPREAD);
		if (m.nshapes) {
			char gl[80];
			snprintf(gl, sizeof(gl), "1,%s", m.gpus);
			char *argv[MAX_ARGS] = {"nodebw", "heat", "--shapes", m.shapes, "--versions",
						"baseline", "--baseline-launch", "nowait", "--gpus",
						gl, "--corun", "--steps", steps, "--reps", reps};
			if (r->log)
				nbw_term_wrapf(r->log, "nodebw: ", "    ", NBW_TERM_COLUMNS,
					       "predict --measure: round %d/%d: one-device runs "
					       "of %s, and G of them at once (co-run)", round,
					       NBW_MEASURE_ROUNDS, m.shapes);
			rc = heat_child(argv, 15, dir, &docs[nd], err, errlen);
			nd += rc == 0;
		}
		for (int b = 0; b < m.nboxes && rc == 0; b++) {
			rc = measure_box(&m.boxes[b], r, round, steps, dir, &docs[nd], err, errlen);
			nd += rc == 0;
		}
		if (m.ncopy && rc == 0) {
			char *argv[MAX_ARGS] = {"nodebw", "heat", "--launch-probe", "--gpus", m.gpus,
						"--n", m.ns};
			if (r->log)
				nbw_term_wrapf(r->log, "nodebw: ", "    ", NBW_TERM_COLUMNS,
					       "predict --measure: round %d/%d: launch probe with "
					       "the halo copies of N = %s", round,
					       NBW_MEASURE_ROUNDS, m.ns);
			rc = heat_child(argv, 7, dir, &docs[nd], err, errlen);
			nd += rc == 0;
		}
	}
	if (rc == 0 && nbw_stop_requested) {
		snprintf(err, errlen, "predict --measure: stopped by a signal");
		rc = -1;
	}
	if (rc == 0 && nbw_calib_add_solver_docs(c, docs, nd)) {
		snprintf(err, errlen, "out of memory adding the measured runs");
		rc = -1;
	}
	for (size_t i = 0; i < nd; i++)
		json_decref(docs[i]);
	if (rc)
		return -1;
	size_t at = strlen(c->source);
	snprintf(c->source + at, sizeof(c->source) - at, "%s + nodebw predict --measure",
		 at ? "" : "calibration");
	json_t *j = nbw_calib_to_json(c);
	char *text = j ? json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) : NULL;
	json_decref(j);
	if (!text) {
		snprintf(err, errlen, "out of memory writing the calibration");
		return -1;
	}
	rc = nbw_write_atomic(path, text, strlen(text), err, errlen);
	free(text);
	if (rc)
		return -1;
	snprintf(written, writtenlen, "%s", path);
	if (r->log)
		nbw_term_wrapf(r->log, "nodebw: ", "    ", NBW_TERM_COLUMNS,
			       "predict --measure: the calibration with the measured runs: %s", path);
	return 0;
}
