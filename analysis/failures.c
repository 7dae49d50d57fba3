/* SPDX-License-Identifier: BSD-3-Clause */
/* What a run did not measure: every measurement that ended with an error or without passing
 * verification, every solver run that failed verification or whose child failed, and every
 * skipped entry, each with its reason (include/nodebw/analysis.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "nodebw/analysis.h"

/* "omp htod async pinned, dual, host->0+host->1, 1048576 B" */
static void label(json_t *m, char *buf, size_t len)
{
	size_t w = (size_t)snprintf(buf, len, "%s %s %s %s, %s, ", nbw_an_str(m, "api"),
				    nbw_an_str(m, "direction"), nbw_an_str(m, "mode"),
				    nbw_an_str(m, "host_mem"), nbw_an_str(m, "concurrency"));
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(m, "streams"), i, s) {
		if (w >= len)
			break;
		json_t *src = json_object_get(s, "src"), *dst = json_object_get(s, "dst");
		char a[24], b[24];
		snprintf(a, sizeof(a), json_is_integer(src) ? "%" JSON_INTEGER_FORMAT : "host",
			 json_integer_value(src));
		snprintf(b, sizeof(b), json_is_integer(dst) ? "%" JSON_INTEGER_FORMAT : "host",
			 json_integer_value(dst));
		w += (size_t)snprintf(buf + w, len - w, "%s%s->%s", i ? "+" : "", a, b);
	}
	if (w < len)
		snprintf(buf + w, len - w, "%s%" JSON_INTEGER_FORMAT " B", w ? ", " : "",
			 json_integer_value(json_object_get(m, "bytes")));
}

static void add(json_t *out, const char *kind, const char *what, const char *reason)
{
	json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "kind", kind, "what", what,
					      "reason", reason && *reason ? reason : "no reason given"));
}

json_t *nbw_analysis_failures(json_t *root)
{
	json_t *out = json_array();
	size_t i;
	json_t *m;
	char what[400];
	json_array_foreach(json_object_get(root, "measurements"), i, m) {
		const char *err = json_string_value(json_object_get(m, "error"));
		json_t *v = json_object_get(m, "verification");
		const char *vs = nbw_an_str(v, "status");
		if ((!err || !*err) && strcmp(vs, "passed") == 0)
			continue;
		label(m, what, sizeof(what));
		if (err && *err)
			add(out, "error", what, err);
		else if (strcmp(vs, "failed") == 0)
			add(out, "verification failed", what, nbw_an_str(v, "detail"));
		else
			add(out, "not verified", what, nbw_an_str(v, "detail"));
	}
	json_array_foreach(json_object_get(root, "solver_runs"), i, m) {
		json_t *v = json_object_get(m, "verification");
		if (strcmp(nbw_an_str(v, "status"), "failed") != 0)
			continue;
		json_t *sh = json_object_get(m, "shape");
		snprintf(what, sizeof(what),
			 "solver %s, %" JSON_INTEGER_FORMAT "x%" JSON_INTEGER_FORMAT
			 "x%" JSON_INTEGER_FORMAT ", G = %" JSON_INTEGER_FORMAT,
			 nbw_an_str(m, "version"), json_integer_value(json_object_get(sh, "nx")),
			 json_integer_value(json_object_get(sh, "ny")),
			 json_integer_value(json_object_get(sh, "nz")),
			 json_integer_value(json_object_get(m, "G")));
		add(out, "verification failed", what, nbw_an_str(v, "detail"));
	}
	json_array_foreach(json_object_get(json_object_get(root, "solver"), "children"), i, m) {
		json_int_t st = json_integer_value(json_object_get(m, "exit_status"));
		if (st == 0)
			continue;
		char why[64];
		snprintf(what, sizeof(what), "solver round %" JSON_INTEGER_FORMAT " (%s)",
			 json_integer_value(json_object_get(m, "round")), nbw_an_str(m, "purpose"));
		snprintf(why, sizeof(why), "the child process ended with status %" JSON_INTEGER_FORMAT, st);
		add(out, "error", what, why);
	}
	json_array_foreach(json_object_get(root, "skipped"), i, m) {
		snprintf(what, sizeof(what), "%s %s: %s", nbw_an_str(m, "api"), nbw_an_str(m, "probe"),
			 nbw_an_str(m, "what"));
		add(out, "skipped", what, nbw_an_str(m, "reason"));
	}
	return out;
}

size_t nbw_analysis_failure_count(json_t *failures)
{
	size_t n = 0, i;
	json_t *f;
	json_array_foreach(failures, i, f)
		n += strcmp(nbw_an_str(f, "kind"), "skipped") != 0;
	return n;
}
