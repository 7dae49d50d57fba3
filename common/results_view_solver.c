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
	out->interior = jnum(ph, "interior");
	out->boundary = jnum(ph, "boundary");
	out->halo = jnum(ph, "halo_exchange");
	out->sync = jnum(ph, "synchronisation");
	out->total = jnum(ph, "total");
}

static double fastest(json_t *r)
{
	json_t *a = json_object_get(r, "samples_s"), *x;
	double best = INFINITY;
	size_t i;
	json_array_foreach(a, i, x)
		if (json_is_number(x) && json_number_value(x) > 0.0 && json_number_value(x) < best)
			best = json_number_value(x);
	return isfinite(best) ? best : jnum(r, "seconds");
}

static void read_outcome(json_t *r, struct nbw_rv_solver_run *out)
{
	json_t *e = json_object_get(r, "error");
	out->error = e && !json_is_null(e)
			     ? (json_is_string(e) ? json_string_value(e) : "error (not a string)")
			     : NULL;
	json_t *ver = json_object_get(r, "verification");
	out->verify_status = jstr(ver, "status");
	out->verify_detail = jstr(ver, "detail");
	out->seconds = jnum(r, "seconds");
	out->seconds_per_step = jnum(r, "seconds_per_step");
	out->fastest_s = fastest(r);
	out->roofline_gbs = jnum(json_object_get(r, "roofline"), "gbs");
	read_phases(json_object_get(r, "phases_s"), &out->phases);
}

bool nbw_rv_solver_read(json_t *r, struct nbw_rv_solver_run *out)
{
	memset(out, 0, sizeof(*out));
	out->version = out->launch = out->device_kind = "";
	out->halo_path = out->kernels = out->purpose = out->partner = out->corun = "";
	out->verify_status = out->verify_detail = "";
	out->hidden_helpers = out->host_threads = out->round = out->file = -1;
	if (!json_is_object(r)) {
		read_outcome(NULL, out);
		return false;
	}
	out->j = r;
	out->version = jstr(r, "version");
	out->launch = jstr(r, "launch");
	out->device_kind = jstr(r, "device_kind");
	out->halo_path = jstr(r, "halo_path");
	out->kernels = jstr(r, "kernels");
	out->purpose = jstr(r, "purpose");
	/* "a-priori": what files before 2026-12-06 called the compute-only runs. */
	if (strcmp(out->purpose, "a-priori") == 0)
		out->purpose = "compute-only";
	out->corun = jstr(r, "corun");
	out->corun_slab_g = jint(r, "corun_slab_of_G", 0);
	out->g = jint(r, "G", 0);
	json_t *sh = json_object_get(r, "shape");
	out->nx = jint(sh, "nx", 0);
	out->ny = jint(sh, "ny", 0);
	out->nz = jint(sh, "nz", 0);
	out->cubic_n = jint(r, "cubic_n", 0);
	out->steps = jint(r, "steps", 0);
	out->warmup_steps = jint(r, "warmup_steps", 0);
	out->hidden_helpers = jint(r, "hidden_helpers", -1);
	out->host_threads = jint(r, "host_threads", -1);
	out->round = jint(r, "round", -1);
	out->file = jint(r, "file", -1);
	out->no_exchange = strcmp(jstr(r, "exchange"), "none") == 0;
	json_t *pr = json_object_get(r, "paired");
	out->paired = json_is_object(pr);
	out->partner = jstr(pr, "partner");
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
