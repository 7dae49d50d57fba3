/* SPDX-License-Identifier: BSD-3-Clause */
/* One solver run as an element of "solver_runs" (doc/solver-run.schema.json, doc/heat.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/heat.h"

/* Point updates of the run: every field's interior points, each step; the co-run probe's
 * G devices each compute the whole grid. */
static double work(const struct nbw_heat_record *r)
{
	return (double)nbw_heat_interior_points(&r->grid) * (double)r->steps *
	       (r->corun ? r->ndev : 1) * (r->fields > 0 ? r->fields : 1);
}

double nbw_heat_points_per_s(const struct nbw_heat_record *r)
{
	if (!(r->seconds > 0.0))
		return 0.0;
	return work(r) / r->seconds;
}

uint64_t nbw_heat_record_halo_bytes(const struct nbw_heat_record *r)
{
	if (r->corun || r->no_exchange || r->ndev < 2)
		return 0;
	const int F = r->fields > 0 ? r->fields : 1;
	if (r->version == NBW_HEAT_GENERAL)
		return nbw_heat_halo_bytes(&r->grid, r->decomp, r->subs, F);
	return 2ull * (uint64_t)(r->ndev - 1) * (uint64_t)r->grid.radius * (uint64_t)F *
	       (uint64_t)r->grid.nx * (uint64_t)r->grid.ny * sizeof(double);
}

static json_t *int3(const int v[3])
{
	return json_pack("[i, i, i]", v[0], v[1], v[2]);
}

/* The run's configuration and every device's box (the subdomains; z-slabs for Versions 1-4
 * and the baseline). */
static void add_config(json_t *j, const struct nbw_heat_record *r)
{
	json_object_set_new(j, "config",
			    json_pack("{s:i, s:i, s:o, s:s, s:s, s:b}", "radius", r->grid.radius,
				      "fields", r->fields > 0 ? r->fields : 1, "decomp",
				      int3(r->decomp), "exchange",
				      r->exchange_how ? r->exchange_how : "none", "copy",
				      r->copy_how ? r->copy_how : "none", "overlap", r->overlap));
	json_t *subs = json_array();
	const int R = r->grid.radius;
	for (int i = 0; !r->corun && r->version != NBW_HEAT_SERIAL && i < r->ndev; i++) {
		const struct nbw_heat_sub *s = &r->subs[i];
		int box[3] = { s->count[0] + 2 * R, s->count[1] + 2 * R, s->count[2] + 2 * R };
		json_array_append_new(subs, json_pack("{s:i, s:o, s:o, s:o, s:o}", "device",
						      r->devices[i], "index", int3(s->idx), "begin",
						      int3(s->begin), "interior", int3(s->count),
						      "local_shape", int3(box)));
	}
	json_object_set_new(j, "subdomains", subs);
	if (r->app_name)
		json_object_set_new(
			j, "app",
			json_pack("{s:s, s:i, s:i, s:s}", "name", r->app_name, "element_bytes",
				  r->app_element_bytes, "solver_element_bytes", (int)sizeof(double),
				  "note",
				  r->app_element_bytes == (int)sizeof(double)
					  ? "the solver computes in 8-byte doubles, as the app"
					  : "the app names other elements; the solver computes in "
					    "8-byte doubles"));
}

double nbw_heat_bytes_per_s(const struct nbw_heat_record *r)
{
	return nbw_heat_points_per_s(r) * NBW_HEAT_BYTES_PER_POINT;
}

double nbw_heat_roofline_fraction(const struct nbw_heat_record *r)
{
	if (!(r->roofline.gbs > 0.0))
		return 0.0;
	return nbw_heat_bytes_per_s(r) / (r->roofline.gbs * 1e9);
}

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* The halo traffic of one step: in Versions 1-4 every interface moves R planes of each
 * field each way; general moves face boxes (bytes_per_step). */
static json_t *halo_json(const struct nbw_heat_record *r)
{
	const struct nbw_heat_grid *g = &r->grid;
	bool planes = r->ndev > 1 && !r->corun && r->version != NBW_HEAT_GENERAL;
	return json_pack("{s:i, s:I, s:I}", "planes_per_step",
			 planes ? 2 * (r->ndev - 1) * g->radius * (r->fields > 0 ? r->fields : 1)
				: 0,
			 "bytes_per_plane",
			 (json_int_t)((size_t)g->nx * (size_t)g->ny * sizeof(double)),
			 "bytes_per_step", (json_int_t)nbw_heat_record_halo_bytes(r));
}

/* --paired: the other half's samples, repetition by repetition. */
static void add_paired(json_t *j, const struct nbw_heat_record *r)
{
	if (!r->partner_s)
		return;
	json_t *ps = json_array();
	for (int i = 0; i < r->reps; i++)
		json_array_append_new(ps, json_real(r->partner_s[i]));
	json_object_set_new(
		j, "paired",
		json_pack("{s:s, s:s, s:o}", "partner", r->no_exchange ? "halo" : "none",
			  "method",
			  "each timed repetition ran first without the halo copies, then "
			  "with them, on the same device buffers (nodebw heat --paired); "
			  "partner_samples_s[i] is the other half of samples_s[i]",
			  "partner_samples_s", ps));
}

json_t *nbw_heat_record_to_json(const struct nbw_heat_record *r)
{
	const struct nbw_heat_grid *g = &r->grid;
	json_t *devices = json_array(), *slabs = json_array(), *samples = json_array();
	for (int i = 0; i < r->ndev; i++) {
		const struct nbw_heat_slab *s = &r->slabs[i];
		int planes = s->k_end - s->k_begin;
		json_array_append_new(devices, json_integer(r->devices[i]));
		if (r->version == NBW_HEAT_GENERAL)
			continue; /* its boxes are the subdomains */
		json_array_append_new(slabs,
				      json_pack("{s:i, s:i, s:i, s:i, s:[i, i, i]}", "device",
						r->devices[i], "k_begin", s->k_begin, "k_end", s->k_end,
						"planes", planes, "local_shape", g->nx, g->ny,
						planes + 2 * g->radius));
	}
	for (int i = 0; i < r->reps && r->samples_s; i++)
		json_array_append_new(samples, json_real(r->samples_s[i]));
	uint64_t pts = nbw_heat_interior_points(g);
	json_t *j = json_pack(
		"{s:s, s:s, s:{s:i, s:i, s:i}, s:I, s:i, s:o, s:s, s:i, s:i, s:i, s:o, s:s, s:b,"
		" s:i, s:i, s:f, s:f, s:f, s:s}",
		"version", r->corun ? "corun" : nbw_heat_version_name(r->version), "version_label",
		r->corun ? "co-run probe: the one-device baseline on G devices at once, each with "
			   "its own copy of the grid"
			 : nbw_heat_version_label(r->version),
		"shape", "nx", g->nx, "ny", g->ny, "nz", g->nz,
		"interior_points", (json_int_t)pts, "G", r->ndev, "devices", devices, "device_kind",
		r->device_kind, "steps", r->steps, "warmup_steps", r->warmup_steps, "repetitions",
		r->reps, "samples_s", samples, "timer",
		"omp_get_wtime around the time-step loop only (data already on the devices; ends "
		"after the last step's synchronisation)",
		"instrumented", r->instrumented, "host_threads", r->host_threads, "hidden_helpers",
		r->hidden_helpers, "h", g->h, "dt", g->dt, "factor", g->factor, "bytes_counting",
		"32 bytes per interior point and step: u, kappa and rhs read and u_new written "
		"once (neighbours reused from cache, write-allocate not counted)");
	json_object_set_new(j, "slabs", slabs);
	add_config(j, r);
	json_object_set_new(j, "cubic_n", g->nx == g->ny && g->ny == g->nz ? json_integer(g->nx)
									: json_null());
	json_object_set_new(j, "kernels", json_string(r->kernels));
	json_object_set_new(j, "blocktime_ms", json_integer(r->blocktime_ms));
	json_object_set_new(j, "cuda_sched",
			    r->cuda_sched[0] ? json_pack("{s:s, s:s}", "word", r->cuda_sched,
							 "devices", r->cuda_sched_note)
					     : json_null());
	json_object_set_new(j, "launch", json_string(r->launch ? r->launch : "none"));
	if (r->corun) {
		json_object_set_new(j, "corun", json_string(r->corun));
		json_object_set_new(j, "corun_slab_of_G", json_integer(r->corun_slab_g));
	}
	json_object_set_new(j, "halo_path", json_string(r->halo_path));
	json_object_set_new(j, "exchange", json_string(r->no_exchange ? "none" : "halo"));
	add_paired(j, r);
	json_object_set_new(j, "halo", halo_json(r));
	bool ok = r->error[0] == '\0' && r->seconds > 0.0;
	json_object_set_new(j, "seconds", ok ? json_real(r->seconds) : json_null());
	json_object_set_new(j, "seconds_per_step",
			    ok ? json_real(r->seconds / r->steps) : json_null());
	json_object_set_new(j, "k_s_per_point", ok ? json_real(r->seconds / work(r)) : json_null());
	json_object_set_new(j, "points_per_s", ok ? json_real(nbw_heat_points_per_s(r))
						  : json_null());
	json_object_set_new(j, "bytes_per_s", ok ? json_real(nbw_heat_bytes_per_s(r))
						 : json_null());
	json_object_set_new(j, "roofline",
			    r->roofline.gbs > 0.0
				    ? json_pack("{s:f, s:s, s:s}", "gbs", r->roofline.gbs, "source",
						r->roofline.source, "method", r->roofline.method)
				    : json_null());
	json_object_set_new(j, "roofline_fraction",
			    ok && r->roofline.gbs > 0.0 ? json_real(nbw_heat_roofline_fraction(r))
							: json_null());
	if (r->instrumented && ok)
		json_object_set_new(j, "phases_s",
				    json_pack("{s:f, s:f, s:f, s:f, s:f}", "interior",
					      r->phases.interior_s, "boundary", r->phases.boundary_s,
					      "halo_exchange", r->phases.halo_s, "synchronisation",
					      r->phases.sync_s, "total", r->phases.total_s));
	else
		json_object_set_new(j, "phases_s", json_null());
	const char *st = r->verify_status[0] ? r->verify_status : "not-run";
	json_t *ver = json_pack("{s:s, s:s}", "status", st, "rule",
				r->no_exchange
					? "|u - u_ref| <= 1e-6 + 1e-5 |u_ref| at every point, no NaN or "
					  "Inf; u_ref: each slab run serially on its own, ghost planes "
					  "at the start values (no halo exchange)"
					: "|u - u_ref| <= 1e-6 + 1e-5 |u_ref| at every point, no NaN or "
					  "Inf; u_ref from the serial reference");
	bool checked = strcmp(st, "passed") == 0 || strcmp(st, "failed") == 0;
	json_object_set_new(ver, "max_abs_diff", checked ? num_or_null(r->check.max_abs_diff)
							 : strcmp(st, "reference") == 0
								   ? json_real(0.0)
								   : json_null());
	json_object_set_new(ver, "points_failed",
			    checked ? json_integer((json_int_t)r->check.bad) : json_integer(0));
	json_object_set_new(ver, "nonfinite",
			    checked ? json_integer((json_int_t)r->check.nonfinite) : json_integer(0));
	if (checked && r->check.bad) {
		size_t p = r->check.first_bad, plane = (size_t)g->nx * (size_t)g->ny;
		size_t n = nbw_heat_grid_points(g), q = p / n;
		char where[96];
		p %= n;
		if (r->fields > 1)
			snprintf(where, sizeof(where), "first in field %zu at i=%zu j=%zu k=%zu", q,
				 p % g->nx, (p % plane) / g->nx, p / plane);
		else
			snprintf(where, sizeof(where), "first at i=%zu j=%zu k=%zu", p % g->nx,
				 (p % plane) / g->nx, p / plane);
		json_object_set_new(ver, "detail", json_string(where));
	}
	json_object_set_new(j, "verification", ver);
	json_object_set_new(j, "error", r->error[0] ? json_string(r->error) : json_null());
	return j;
}
