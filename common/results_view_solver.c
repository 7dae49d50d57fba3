/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed view of one solver run of a results document (heat/record.c writes them,
 * doc/solver-run.schema.json; include/nodebw/results_view.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/results_view.h"
#include "results_priv.h"

static void read_phases(json_t *ph, struct nbw_rv_phases *out)
{
	out->interior = rv_num(ph, "interior");
	out->boundary = rv_num(ph, "boundary");
	out->halo = rv_num(ph, "halo_exchange");
	out->sync = rv_num(ph, "synchronisation");
	out->total = rv_num(ph, "total");
}

static double fastest(json_t *r)
{
	json_t *a = json_object_get(r, "samples_s"), *x;
	double best = INFINITY;
	size_t i;
	json_array_foreach(a, i, x)
		if (json_is_number(x) && json_number_value(x) > 0.0 && json_number_value(x) < best)
			best = json_number_value(x);
	return isfinite(best) ? best : rv_num(r, "seconds");
}

static void read_outcome(json_t *r, struct nbw_rv_solver_run *out)
{
	json_t *e = json_object_get(r, "error");
	out->error = e && !json_is_null(e)
			     ? (json_is_string(e) ? json_string_value(e) : "error (not a string)")
			     : NULL;
	json_t *ver = json_object_get(r, "verification");
	out->verify_status = rv_str(ver, "status");
	out->verify_detail = rv_str(ver, "detail");
	out->seconds = rv_num(r, "seconds");
	out->seconds_per_step = rv_num(r, "seconds_per_step");
	out->k_s_per_point = rv_num(r, "k_s_per_point");
	out->fastest_s = fastest(r);
	out->roofline_gbs = rv_num(json_object_get(r, "roofline"), "gbs");
	read_phases(json_object_get(r, "phases_s"), &out->phases);
}

bool nbw_rv_solver_read(json_t *r, struct nbw_rv_solver_run *out)
{
	memset(out, 0, sizeof(*out));
	out->version = out->version_label = out->launch = out->device_kind = "";
	out->halo_path = out->kernels = out->purpose = out->partner = "";
	out->verify_status = out->verify_detail = "";
	out->hidden_helpers = out->host_threads = out->round = out->file = -1;
	if (!json_is_object(r)) {
		read_outcome(NULL, out);
		return false;
	}
	out->j = r;
	out->version = rv_str(r, "version");
	out->version_label = rv_str(r, "version_label");
	out->launch = rv_str(r, "launch");
	out->device_kind = rv_str(r, "device_kind");
	out->halo_path = rv_str(r, "halo_path");
	out->kernels = rv_str(r, "kernels");
	out->purpose = rv_str(r, "purpose");
	out->g = rv_int(r, "G", 0);
	json_t *sh = json_object_get(r, "shape");
	out->nx = rv_int(sh, "nx", 0);
	out->ny = rv_int(sh, "ny", 0);
	out->nz = rv_int(sh, "nz", 0);
	out->cubic_n = rv_int(r, "cubic_n", 0);
	out->steps = rv_int(r, "steps", 0);
	out->warmup_steps = rv_int(r, "warmup_steps", 0);
	out->repetitions = rv_int(r, "repetitions", 0);
	out->hidden_helpers = rv_int(r, "hidden_helpers", -1);
	out->host_threads = rv_int(r, "host_threads", -1);
	out->round = rv_int(r, "round", -1);
	out->file = rv_int(r, "file", -1);
	out->no_exchange = strcmp(rv_str(r, "exchange"), "none") == 0;
	json_t *pr = json_object_get(r, "paired");
	out->paired = json_is_object(pr);
	out->partner = rv_str(pr, "partner");
	out->instrumented = json_is_true(json_object_get(r, "instrumented"));
	read_outcome(r, out);
	return true;
}

bool nbw_rv_solver_ok(const struct nbw_rv_solver_run *r)
{
	return r->j && !r->error && r->seconds > 0.0 &&
	       (strcmp(r->verify_status, "passed") == 0 ||
		strcmp(r->verify_status, "reference") == 0);
}

size_t nbw_rv_solver_samples(const struct nbw_rv_solver_run *r, bool partner, double **out)
{
	json_t *a = partner ? json_object_get(json_object_get(r->j, "paired"), "partner_samples_s")
			    : json_object_get(r->j, "samples_s");
	*out = NULL;
	size_t n = json_array_size(a);
	if (!n || !(*out = malloc(n * sizeof(double))))
		return 0;
	for (size_t i = 0; i < n; i++) {
		json_t *x = json_array_get(a, i);
		(*out)[i] = json_is_number(x) ? json_number_value(x) : NAN;
	}
	return n;
}
