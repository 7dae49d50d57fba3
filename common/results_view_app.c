/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed view of a solver run's application configuration (include/nodebw/results_view_app.h):
 * radius, fields, decomposition and halo method of the generalised solver's records.
 */
#include <stdio.h>
#include <string.h>

#include "nodebw/results_view_app.h"
#include "results_priv.h"

static void read_decomp(json_t *d, int out[3])
{
	out[0] = out[1] = out[2] = 0;
	if (json_is_string(d)) {
		int a, b, c;
		if (sscanf(json_string_value(d), "%dx%dx%d", &a, &b, &c) == 3 && a > 0 && b > 0 &&
		    c > 0) {
			out[0] = a;
			out[1] = b;
			out[2] = c;
		}
	} else if (json_is_array(d) && json_array_size(d) == 3) {
		for (int i = 0; i < 3; i++) {
			json_t *x = json_array_get(d, (size_t)i);
			out[i] = json_is_integer(x) ? (int)json_integer_value(x) : 0;
		}
	}
}

void nbw_rv_solver_app_read(json_t *r, struct nbw_rv_solver_app *out)
{
	memset(out, 0, sizeof(*out));
	/* The generalised solver's records keep their configuration in "config"; a record
	 * without it ran radius 1, one field. */
	json_t *c = json_object_get(r, "config");
	if (!json_is_object(c))
		c = NULL;
	out->radius = jint(c, "radius", 1);
	out->fields = jint(c, "fields", 1);
	read_decomp(json_object_get(c, "decomp"), out->decomp);
	out->general = strcmp(jstr(r, "version"), "general") == 0;
	const char *e = jstr(c, "exchange");
	out->exchange = strcmp(e, "host-staged") == 0 || strcmp(e, "device") == 0 ||
					strcmp(e, "host") == 0
				? e
				: "";
	out->copy = jstr(c, "copy");
	json_t *o = json_object_get(c, "overlap");
	out->overlap = json_is_boolean(o) ? json_is_true(o)
		       : json_is_string(o) ? strcmp(json_string_value(o), "on") == 0
					    : -1;
	out->app_name = jstr(json_object_get(r, "app"), "name");
}

const char *nbw_rv_appval_skipped(json_t *doc)
{
	json_t *s = json_object_get(json_object_get(doc, "app_validation"), "skipped");
	return json_is_string(s) ? json_string_value(s) : NULL;
}

json_t *nbw_rv_appval_json(json_t *doc)
{
	json_t *v = json_object_get(doc, "app_validation");
	return json_is_object(v) ? v : NULL;
}

bool nbw_rv_appval_row(json_t *doc, size_t i, struct nbw_rv_appval *out)
{
	json_t *rows = json_object_get(json_object_get(doc, "app_validation"), "configurations");
	json_t *r = json_array_get(rows, i);
	if (!json_is_object(r))
		return false;
	out->name = jstr(r, "name");
	out->decomp = jstr(r, "decomp");
	out->exchange = jstr(r, "exchange");
	out->copy = jstr(r, "copy");
	out->not_predicted = jstr(r, "not_predicted");
	out->compute_from = jstr(r, "compute_from");
	out->exchange_from = jstr(r, "exchange_from");
	out->radius = jint(r, "radius", 0);
	out->fields = jint(r, "fields", 0);
	out->measured_s = jnum(r, "measured_s");
	out->predicted_s = jnum(r, "predicted_s");
	out->compute_only_s = jnum(r, "compute_only_s");
	out->error_pct = jnum(r, "error_pct");
	out->compute_only_error_pct = jnum(r, "compute_only_error_pct");
	out->compute_s = jnum(r, "compute_s");
	out->exchange_s = jnum(r, "exchange_s");
	out->launch_s = jnum(r, "launch_s");
	return true;
}
