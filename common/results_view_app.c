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
	out->radius = jint(r, "radius", 1);
	out->fields = jint(r, "fields", 1);
	json_t *d = json_object_get(r, "decomp");
	read_decomp(d, out->decomp);
	out->general = out->decomp[0] > 0;
	const char *e = jstr(r, "exchange");
	out->exchange = strcmp(e, "host-staged") == 0 || strcmp(e, "device") == 0 ||
					strcmp(e, "host") == 0
				? e
				: "";
	out->copy = jstr(r, "copy");
	json_t *o = json_object_get(r, "overlap");
	out->overlap = json_is_boolean(o) ? json_is_true(o)
		       : json_is_string(o) ? strcmp(json_string_value(o), "on") == 0
					    : -1;
	out->app_name = jstr(json_object_get(r, "app"), "name");
}
