/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results document's topology and software blocks as fields
 * (include/nodebw/results_view.h): part of the results module, the one place that names
 * their keys.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/results_view.h"

static const char *s_of(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static double n_of(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long i_of(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

void nbw_rv_topo_host(json_t *topo, struct nbw_rv_topo_host *out)
{
	json_t *h = json_object_get(topo, "host");
	out->hostname = s_of(h, "hostname");
	out->cpu_model = s_of(h, "cpu_model");
	out->origin = s_of(topo, "origin");
	out->packages = i_of(h, "packages");
	out->numa_nodes = i_of(h, "numa_nodes");
	out->cores = i_of(h, "cores");
	out->pus = i_of(h, "pus");
}

bool nbw_rv_topo_source(json_t *topo, size_t i, struct nbw_rv_topo_source *out)
{
	json_t *s = json_array_get(json_object_get(topo, "sources"), i);
	memset(out, 0, sizeof(*out));
	out->name = out->detail = "";
	if (!json_is_object(s))
		return false;
	out->name = s_of(s, "name");
	out->detail = s_of(s, "detail");
	out->ok = json_is_true(json_object_get(s, "ok"));
	return true;
}

static void pcie_text(json_t *l, char *out, size_t len)
{
	if (!json_is_object(l)) {
		snprintf(out, len, "none");
		return;
	}
	snprintf(out, len, "Gen%lld x%lld", (long long)json_integer_value(json_object_get(l, "gen")),
		 (long long)json_integer_value(json_object_get(l, "width")));
}

bool nbw_rv_topo_device(json_t *topo, size_t i, struct nbw_rv_topo_device *out)
{
	json_t *d = json_array_get(json_object_get(topo, "devices"), i);
	memset(out, 0, sizeof(*out));
	out->id = out->kind = out->name = out->link_type = out->link_note = "";
	out->link_gbps = NAN;
	out->numa_node = -1;
	if (!json_is_object(d))
		return false;
	json_t *hl = json_object_get(d, "host_link");
	out->id = s_of(d, "id");
	out->kind = s_of(d, "kind");
	out->name = s_of(d, "name");
	out->link_type = s_of(hl, "type");
	out->link_note = s_of(hl, "note");
	out->link_gbps = n_of(hl, "theoretical_gbps");
	long long node = i_of(hl, "numa_node");
	out->numa_node = node >= 0 && node < 1 << 20 ? (int)node : -1;
	out->link_has_current = json_is_object(hl) && json_object_get(hl, "current");
	pcie_text(json_object_get(hl, "current"), out->link_current, sizeof(out->link_current));
	pcie_text(json_object_get(hl, "max"), out->link_max, sizeof(out->link_max));
	return true;
}

bool nbw_rv_topo_pair(json_t *topo, size_t i, struct nbw_rv_topo_pair *out)
{
	json_t *p = json_array_get(json_object_get(topo, "pairs"), i);
	memset(out, 0, sizeof(*out));
	out->a = out->b = out->label = out->kind = out->basis = "";
	out->gbps = NAN;
	if (!json_is_object(p))
		return false;
	out->a = s_of(p, "a");
	out->b = s_of(p, "b");
	out->label = s_of(p, "label");
	out->kind = s_of(p, "kind");
	out->basis = s_of(p, "basis");
	out->gbps = n_of(p, "theoretical_gbps");
	return true;
}

void nbw_rv_software(json_t *sw, struct nbw_rv_software *out)
{
	out->compiler = s_of(sw, "compiler");
	out->build = s_of(sw, "build");
	out->offload_targets = s_of(sw, "offload_targets");
}

bool nbw_rv_software_backend(json_t *sw, size_t i, const char **api, const char **version)
{
	void *it = json_object_iter(json_object_get(sw, "backends"));
	for (size_t k = 0; it && k < i; k++)
		it = json_object_iter_next(json_object_get(sw, "backends"), it);
	if (!it)
		return false;
	json_t *v = json_object_iter_value(it);
	*api = json_object_iter_key(it);
	/* The version each backend reports, in the order the backends write one. */
	static const char *const keys[] = { "libomptarget_version", "cuda_runtime",
					    "hip_runtime", "ze_headers_api", "copy" };
	*version = "";
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && !**version; k++)
		*version = s_of(v, keys[k]);
	return true;
}
