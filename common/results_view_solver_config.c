/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed view of a solver run's configuration and subdomains (heat/record.c writes them:
 * "config", "subdomains", "halo"; doc/solver-run.schema.json). Files written before the
 * general version have neither: they ran radius 1, one field, z-slabs, and their slabs are
 * read as the subdomains.
 */
#include <string.h>

#include "nodebw/results_view.h"
#include "results_priv.h"

static void int3(json_t *a, int out[3], int dflt)
{
	for (size_t i = 0; i < 3; i++) {
		json_t *x = json_array_get(a, i);
		out[i] = json_is_integer(x) ? (int)json_integer_value(x) : dflt;
	}
}

bool nbw_rv_solver_config(const struct nbw_rv_solver_run *r, struct nbw_rv_solver_config *out)
{
	memset(out, 0, sizeof(*out));
	out->radius = out->fields = 1;
	out->decomp[0] = out->decomp[1] = 1;
	out->decomp[2] = r->g > 0 ? r->g : 1;
	out->exchange = out->copy = "";
	out->halo_bytes_per_step = -1;
	json_t *halo = json_object_get(r->j, "halo"), *b = json_object_get(halo, "bytes_per_step");
	if (json_is_integer(b))
		out->halo_bytes_per_step = (long long)json_integer_value(b);
	out->app_element_bytes = jint(json_object_get(r->j, "app"), "element_bytes", 0);
	json_t *c = json_object_get(r->j, "config");
	if (!json_is_object(c))
		return false;
	out->radius = jint(c, "radius", 1);
	out->fields = jint(c, "fields", 1);
	int3(json_object_get(c, "decomp"), out->decomp, 1);
	out->exchange = jstr(c, "exchange");
	out->copy = jstr(c, "copy");
	out->overlap = json_is_true(json_object_get(c, "overlap"));
	return true;
}

size_t nbw_rv_solver_subdomains(const struct nbw_rv_solver_run *r, struct nbw_rv_subdomain *out,
				size_t max)
{
	json_t *subs = json_object_get(r->j, "subdomains"), *s;
	size_t i, n = 0;
	if (json_is_array(subs) && json_array_size(subs)) {
		json_array_foreach(subs, i, s) {
			if (n == max)
				break;
			struct nbw_rv_subdomain *d = &out[n++];
			d->device = jint(s, "device", -1);
			int3(json_object_get(s, "index"), d->index, 0);
			int3(json_object_get(s, "begin"), d->begin, 0);
			int3(json_object_get(s, "interior"), d->interior, 0);
			int3(json_object_get(s, "local_shape"), d->local_shape, 0);
		}
		return n;
	}
	/* an older file: its slabs, radius 1 */
	json_array_foreach(json_object_get(r->j, "slabs"), i, s) {
		if (n == max)
			break;
		struct nbw_rv_subdomain *d = &out[n];
		d->device = jint(s, "device", -1);
		d->index[0] = d->index[1] = 0;
		d->index[2] = (int)n++;
		d->begin[0] = d->begin[1] = 1;
		d->begin[2] = jint(s, "k_begin", 0);
		int3(json_object_get(s, "local_shape"), d->local_shape, 0);
		for (int a = 0; a < 3; a++)
			d->interior[a] = d->local_shape[a] - 2;
	}
	return n;
}
