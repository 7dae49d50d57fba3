/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The solver stage's child processes: `nodebw heat` run into a folder of its own, its
 * records merged into the run's results.json, tagged with the round and their purpose; and
 * `nodebw probe` the same way (the application model's face probes), its measurements
 * merged with a tag.
 */
#include "run_solver.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/results.h"
#include "nodebw/results_view.h"
#include "nodebw/runner.h"
#include "nodebw/session.h"

void nbw_arg(struct nbw_argbuf *a, const char *fmt, ...)
{
	if (a->n >= NBW_ARGBUF_MAX - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&a->v[a->n], fmt, ap) >= 0)
		a->n++;
	va_end(ap);
	a->v[a->n] = NULL;
}

static void args_free(struct nbw_argbuf *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	a->n = 0;
}

static json_t *args_json(const struct nbw_argbuf *a)
{
	json_t *j = json_array();
	for (int i = 0; i < a->n; i++)
		json_array_append_new(j, json_string(a->v[i]));
	return j;
}

/* The child's launch-probe records, tagged with \p round, appended to the document's. */
static void merge_launch_probe(struct nbw_doc *doc, json_t *lp, int round)
{
	if (!json_array_size(lp))
		return;
	struct nbw_rv_doc h;
	nbw_rv_doc_read(doc->root, &h);
	json_t *dl = h.launch_probe;
	if (!dl) {
		dl = json_array();
		nbw_doc_set(doc, "launch_probe", dl);
	}
	size_t i;
	json_t *r;
	json_array_foreach(lp, i, r) {
		json_t *c = json_deep_copy(r);
		json_object_set_new(c, "round", json_integer(round));
		json_array_append_new(dl, c);
	}
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
	struct nbw_rv_doc head, from;
	nbw_rv_doc_read(doc->root, &head);
	nbw_rv_doc_read(child->root, &from);
	json_t *all = head.solver_runs;
	if (!all) {
		all = json_array();
		nbw_doc_set(doc, "solver_runs", all);
	}
	double roof = 0.0;
	size_t i;
	json_t *r;
	json_array_foreach(from.solver_runs, i, r) {
		struct nbw_rv_solver_run v;
		nbw_rv_solver_read(r, &v);
		json_t *c = json_deep_copy(r);
		json_object_set_new(c, "round", json_integer(round));
		/* Runs without the halo copies are the compute-calibrated model's, also when
		 * they were timed beside the validation runs (--paired). */
		json_object_set_new(c, "purpose",
				    json_string(v.no_exchange ? "compute-only" : purpose));
		json_array_append_new(all, c);
		(*nruns)++;
		if (strcmp(v.verify_status, "failed") == 0)
			(*nfailed)++;
		if (isfinite(v.roofline_gbs) && roof == 0.0)
			roof = v.roofline_gbs;
	}
	struct nbw_rv_doc ch;
	nbw_rv_doc_read(child->root, &ch);
	merge_launch_probe(doc, ch.launch_probe, round);
	nbw_doc_free(child);
	return roof;
}

/* A child of the run in a fresh folder DIR/PREFIX-XXXXXX (its --output): run; 0 with its exit
 * status in *crc and the folder in *cdir (to merge, remove and free), or -1 with s->err
 * (\p a freed). */
static int child_in_folder(struct nbw_solver_run *s, struct nbw_argbuf *a, const char *prefix,
			   char **cdir, int *crc)
{
	*cdir = NULL;
	if (asprintf(cdir, "%s/%s-XXXXXX", s->dir, prefix) < 0 || !mkdtemp(*cdir)) {
		snprintf(s->err, s->errlen, "cannot create a folder in %s: %s", s->dir,
			 *cdir ? strerror(errno) : "out of memory");
		free(*cdir);
		*cdir = NULL;
		args_free(a);
		return -1;
	}
	nbw_arg(a, "--output");
	nbw_arg(a, "%s", *cdir);
	nbw_arg(a, "--quiet");
	*crc = nbw_run_child(a->v);
	return 0;
}

/* After a child's results are merged: an interrupted child stops the run (0), a failed one
 * is counted; the run's document is written. */
static int child_done(struct nbw_solver_run *s, int crc)
{
	if (crc == 130 || nbw_stop_requested) {
		s->st->interrupted = 1;
		return 0;
	}
	if (crc != 0)
		s->st->child_failures++;
	return nbw_doc_write(s->doc, s->dir, s->err, s->errlen);
}

int nbw_solver_heat_child(struct nbw_solver_run *s, struct nbw_argbuf *a, int round,
			  const char *purpose)
{
	char *cdir, prefix[32];
	int crc;
	snprintf(prefix, sizeof(prefix), ".solver-%d", round);
	if (child_in_folder(s, a, prefix, &cdir, &crc))
		return -1;
	double rf = merge_runs(s->doc, cdir, round, purpose, &s->st->runs, &s->st->verify_failed);
	if (s->roof == 0.0)
		s->roof = rf;
	nbw_remove_results_dir(cdir);
	free(cdir);
	json_array_append_new(s->children, json_pack("{s:i, s:s, s:o, s:i}", "round", round,
						     "purpose", purpose, "argv", args_json(a),
						     "exit_status", crc));
	args_free(a);
	return child_done(s, crc);
}

int nbw_solver_child(struct nbw_solver_run *s, struct nbw_argbuf *a, int steps, int reps,
		     int round, const char *purpose)
{
	nbw_arg(a, "--steps");
	nbw_arg(a, "%d", steps);
	nbw_arg(a, "--reps");
	nbw_arg(a, "%d", reps);
	if (s->roof > 0.0) {
		nbw_arg(a, "--roofline-gbs");
		nbw_arg(a, "%.6g", s->roof);
	}
	return nbw_solver_heat_child(s, a, round, purpose);
}

int nbw_solver_probe_child(struct nbw_solver_run *s, struct nbw_argbuf *a, const char *field,
			   const char *tag, const char *purpose)
{
	char *cdir;
	int crc;
	if (child_in_folder(s, a, ".probe", &cdir, &crc))
		return -1;
	struct nbw_run_status st = {0};
	char results[4200];
	snprintf(results, sizeof(results), "%s/results.json", cdir);
	/* After Ctrl-C the child keeps what it measured; merge that if it got so far. */
	if (!nbw_stop_requested || access(results, F_OK) == 0)
		nbw_merge_child(s->doc, cdir, field, json_string(tag), purpose, &st);
	nbw_remove_results_dir(cdir);
	free(cdir);
	json_array_append_new(s->children, json_pack("{s:i, s:s, s:o, s:i, s:i}", "round", 1,
						     "purpose", purpose, "argv", args_json(a),
						     "exit_status", crc, "measurements",
						     (int)st.measurements));
	args_free(a);
	return child_done(s, crc);
}
