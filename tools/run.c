/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw run`'s own options, its clock and progress lines, the calibration file and the
 * report, and the disturbance record of the stages. The solver stage is in run_solver.c and
 * run_rounds.c, the table of stages in run_stages.c (doc/run.md).
 */
#include "run.h"
#include "check.h"
#include "run_solver.h"
#include "runterm.h"

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

#include "nodebw/advice.h"
#include "nodebw/backends.h"
#include "nodebw/cli.h"
#include "nodebw/config.h"
#include "nodebw/model.h"
#include "nodebw/products.h"
#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/runner.h"
#include "nodebw/session.h"
#include "nodebw/speedref.h"
#include "nodebw/termtext.h"

/* The quick profile's promise: the whole run, report included, in 5 minutes. */
#define NBW_RUN_QUICK_LIMIT 300.0

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
double nbw_run_elapsed(void)
{
	return t_start > 0.0 ? nbw_now() - t_start : 0.0;
}

static void progress(const struct nbw_run_opts *ro, bool doing, const char *fmt, va_list ap)
{
	if (t_start == 0.0)
		t_start = nbw_now();
	char stamp[48], *text = NULL;
	snprintf(stamp, sizeof(stamp), "[nodebw run %6.1f s] ", nbw_now() - t_start);
	if (vasprintf(&text, fmt, ap) < 0)
		return;
	if (ro->term) {
		if (doing) {
			nbw_runterm_doing(ro->term, stamp, text);
		} else {
			char *line = NULL;
			if (asprintf(&line, "%s%s", stamp, text) >= 0)
				nbw_runterm_say(ro->term, line);
			free(line);
		}
	} else if (!ro->quiet || ro->json) {
		/* With --json, stdout holds the results document alone; progress is for a
		 * person: on stdout when it is a terminal, else on stderr. */
		FILE *f = ro->json || !isatty(STDOUT_FILENO) ? stderr : stdout;
		nbw_term_wrapf(f, stamp, "    ", NBW_TERM_COLUMNS, "%s", text);
		fflush(f);
	}
	free(text);
}

void nbw_run_progress(const struct nbw_run_opts *ro, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	progress(ro, false, fmt, ap);
	va_end(ap);
}

void nbw_run_doing(const struct nbw_run_opts *ro, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	progress(ro, true, fmt, ap);
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
		if (strcmp(a, "--list-stages") == 0) {
			ro->list_stages = true;
		} else if (strcmp(a, "--no-solver") == 0) {
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

int nbw_run_check_opts(int argc, char **argv, char *err, size_t errlen)
{
	char **a = calloc((size_t)argc + 2, sizeof(char *));
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	a[0] = "run";
	if (argc)
		memcpy(a + 1, argv, (size_t)argc * sizeof(char *));
	int n = argc + 1, rc = -1;
	struct nbw_run_opts ro;
	struct nbw_probe_opts o;
	memset(&ro, 0, sizeof(ro));
	memset(&o, 0, sizeof(o));
	struct nbw_check_opts co;
	if (nbw_run_extract_opts(&n, a, &ro, err, errlen) == 0 &&
	    nbw_check_extract(&n, a, true, &co, err, errlen) == 0) {
		rc = nbw_cli_parse_probe(n, a, &o, err, errlen);
		if (rc == 1)
			snprintf(err, errlen, "the run's --help has no place among its options "
					      "(see 'nodebw run --help')");
		nbw_cli_opts_free(&o);
	}
	free(a);
	return rc ? -1 : 0;
}

/* ---- calibration and report -------------------------------------------------------- */

int nbw_run_report(const struct nbw_run_opts *ro, const char *dir,
		   struct nbw_products *products, json_t **summary, char *err, size_t errlen)
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
	in.criteria = ro->criteria;
	/* The products the run derived from the same measurements: lent, taken back below. */
	in.products[0] = products;
	/* The calibration derived as the results were loaded: written here, and the same one
	 * feeds the summary and the report. */
	int rc = 0;
	/* The summary first: its accuracy per (G, version) is the run's validation, which the
	 * calibration keeps for 'nodebw predict' (one computation, nbw_model_summary). */
	json_t *sum = in.calib ? nbw_report_summary(&in) : NULL;
	if (in.calib && sum) {
		struct nbw_validation *val = calloc(1, sizeof(*val));
		if (val && nbw_model_validation(sum, val) == 0) {
			in.calib->valid = val;
		} else if (val) {
			nbw_validation_free(val);
			free(val);
		}
	}
	if (in.calib) {
		json_t *j = nbw_calib_to_json(in.calib);
		nbw_calib_app_validation_json(j, in.nfiles ? in.docs[0] : NULL);
		char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
		json_decref(j);
		rc = text ? nbw_write_atomic(cal, text, strlen(text), err, errlen) : -1;
		free(text);
	} else {
		snprintf(err, errlen, "%s", in.calib_err);
		rc = -1;
	}
	if (rc) {
		json_decref(sum);
		sum = NULL;
	}
	if (rc == 0 && ro->report) {
		nbw_run_progress(ro, "report: %s/report.md and report.html", rdir);
		rc = nbw_report_build(&in, sum, rdir, err, errlen);
	}
	if (summary)
		*summary = sum;
	else
		json_decref(sum);
	if (products)
		in.products[0] = NULL;
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
	if (!nbw_doc_records_disturbance(doc) || nbw_stop_requested)
		return;
	struct nbw_speedref s;
	char err[200];
	json_t *j = nbw_speedref_measure(&s, err, sizeof(err)) == 0
			    ? nbw_speedref_json(&s)
			    : json_pack("{s:s}", "error", err);
	if (!j)
		return;
	json_object_set_new(j, "at", json_string(at));
	json_object_set_new(j, "elapsed_s", json_real(nbw_run_elapsed()));
	nbw_doc_add_speed_reference(doc, j, nbw_speedref_method());
}

void nbw_run_disturb_stage(struct nbw_run_disturb *d, struct nbw_doc *doc, const char *name)
{
	struct nbw_disturb_snap now;
	char err[256];
	if (!d->ok || !nbw_doc_records_disturbance(doc) ||
	    nbw_disturb_snap_take(NULL, &now, err, sizeof(err)))
		return;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	json_t *st = nbw_disturb_stage_json(&d->last, &now, ncpu > 0 ? (unsigned)ncpu : 1u);
	d->last = now;
	if (!st)
		return;
	json_object_set_new(st, "stage", json_string(name));
	nbw_doc_add_disturb_stage(doc, st);
	if (d->speedref) {
		/* Timed after the snapshot: its 0.2 s count in the next stage's window, as
		 * nodebw's own time (never as another process's). */
		char at[96];
		snprintf(at, sizeof(at), "%s%s", strncmp(name, "pre-run", 7) ? "after " : "",
			 strncmp(name, "pre-run", 7) ? name : "start");
		nbw_run_speed_reference(doc, at);
	}
}
