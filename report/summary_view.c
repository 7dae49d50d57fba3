/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed views of the report's summary object (include/nodebw/report.h): with summary.c,
 * which builds it, the one place that names its keys. The report's summary section, its
 * figure, the end of `nodebw run` and `nodebw summary` read fields.
 */
#include <math.h>
#include <string.h>

#include "nodebw/jget.h"
#include "nodebw/report.h"




static json_t *solver_list(json_t *summary, const char *which)
{
	return json_object_get(json_object_get(summary, "solver"), which);
}

bool nbw_rs_path(json_t *summary, size_t i, struct nbw_rs_path *out)
{
	return nbw_rs_path_of(json_array_get(json_object_get(summary, "paths"), i), out);
}

bool nbw_rs_path_of(json_t *p, struct nbw_rs_path *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(p))
		return false;
	out->api = jstr(p, "api");
	out->direction = jstr(p, "direction");
	out->mode = jstr(p, "mode");
	out->host_mem = jstr(p, "host_mem");
	out->peer_access = jstr(p, "peer_access");
	out->binding = jstr(p, "binding");
	out->device_kind = jstr(p, "device_kind");
	out->large_size = jstr(p, "large_size");
	out->best_size = jstr(p, "best_size");
	out->small_size = jstr(p, "small_size");
	out->link = jstr(p, "link");
	out->drop_cause = jstr(p, "drop_cause");
	out->meaning = jstr(p, "meaning");
	out->file = jint(p, "file", 0);
	out->members = jint(p, "members", 0);
	out->large_bytes = jnum(p, "large_bytes");
	out->large_gbps = jnum(p, "large_gbps");
	out->best_gbps = jnum(p, "best_gbps");
	out->best_bytes = jnum(p, "best_bytes");
	out->small_bytes = jnum(p, "small_bytes");
	out->latency_us = jnum(p, "latency_us");
	out->theoretical_gbps = jnum(p, "theoretical_gbps");
	out->fraction = jnum(p, "fraction");
	out->endpoints_ = json_object_get(p, "endpoints");
	out->nendpoints = json_array_size(out->endpoints_);
	return true;
}

const char *nbw_rs_path_endpoint(const struct nbw_rs_path *p, size_t i)
{
	const char *s = json_string_value(json_array_get(p->endpoints_, i));
	return s ? s : "";
}

bool nbw_rs_speedup(json_t *summary, size_t i, struct nbw_rs_speedup *out)
{
	json_t *s = json_array_get(solver_list(summary, "speedups"), i);
	memset(out, 0, sizeof(*out));
	out->version = "";
	if (!json_is_object(s))
		return false;
	out->g = jint(s, "G", 0);
	out->version = jstr(s, "version");
	out->largest_n = jint(s, "largest_n", 0);
	out->best_n = jint(s, "best_n", 0);
	out->speedup_at_largest_n = jnum(s, "speedup_at_largest_n");
	out->best_speedup = jnum(s, "best_speedup");
	return true;
}

static void accuracy(json_t *a, struct nbw_rs_accuracy *out)
{
	memset(out, 0, sizeof(*out));
	out->version = out->measure = "";
	out->onedev_mape = out->compcal_mape = out->extended_mape = NAN;
	out->paper_mape = out->conly_mape = out->max_spread = NAN;
	if (!json_is_object(a))
		return;
	out->present = true;
	out->g = jint(a, "G", 0);
	out->version = jstr(a, "version");
	out->measure = jstr(a, "measure");
	out->sizes = jint(a, "sizes", 0);
	out->unstable_sizes = jint(a, "unstable_sizes", 0);
	out->onedev_mape = jnum(a, "onedev_mape");
	out->compcal_mape = jnum(a, "compcal_mape");
	out->extended_mape = jnum(a, "extended_mape");
	out->paper_mape = jnum(a, "paper_mape");
	out->conly_mape = jnum(a, "conly_mape");
	out->max_spread = jnum(a, "max_spread");
	out->n_values_ = json_object_get(a, "n_values");
	out->nn = json_array_size(out->n_values_);
}

int nbw_rs_accuracy_n(const struct nbw_rs_accuracy *a, size_t i)
{
	return (int)json_integer_value(json_array_get(a->n_values_, i));
}

bool nbw_rs_accuracy(json_t *summary, size_t i, struct nbw_rs_accuracy *out)
{
	accuracy(json_array_get(solver_list(summary, "accuracy"), i), out);
	return out->present;
}

void nbw_rs_accuracy_of(json_t *summary, int g, const char *version,
			struct nbw_rs_accuracy *out)
{
	struct nbw_rs_accuracy a;
	accuracy(NULL, out);
	for (size_t i = 0; nbw_rs_accuracy(summary, i, &a); i++)
		if (a.g == g && strcmp(a.version, version) == 0)
			*out = a;
}

const char *nbw_rs_solver_why(json_t *summary)
{
	return jstr(json_object_get(summary, "solver"), "why");
}

bool nbw_rs_gap(json_t *summary, size_t i, struct nbw_rs_gap *out)
{
	json_t *s = json_array_get(json_object_get(summary, "gaps"), i);
	memset(out, 0, sizeof(*out));
	out->native_api = out->omp_mode = out->meaning = "";
	if (!json_is_object(s))
		return false;
	out->native_api = jstr(s, "native_api");
	out->omp_mode = jstr(s, "omp_mode");
	out->meaning = jstr(s, "meaning");
	out->devices = jint(s, "devices", 0);
	return true;
}

const char *nbw_rs_item(json_t *summary, size_t i)
{
	return json_string_value(json_array_get(json_object_get(summary, "items"), i));
}

bool nbw_rs_has_items(json_t *summary)
{
	return json_is_array(json_object_get(summary, "items"));
}

const char *nbw_rs_sentence(json_t *summary, size_t i)
{
	return json_string_value(json_array_get(json_object_get(summary, "sentences"), i));
}

const char *nbw_rs_units(json_t *summary)
{
	return jstr(summary, "units");
}

json_t *nbw_rs_items_json(json_t *summary)
{
	return json_object_get(summary, "items");
}

json_t *nbw_rs_solver_json(json_t *summary)
{
	return json_object_get(summary, "solver");
}
