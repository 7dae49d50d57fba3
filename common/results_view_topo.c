/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results document's topology and software blocks as fields
 * (include/nodebw/results_view.h): part of the results module, the one place that names
 * their keys.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/jget.h"
#include "nodebw/results_view.h"
#include "results_priv.h"




void nbw_rv_topo_host(json_t *topo, struct nbw_rv_topo_host *out)
{
	json_t *h = json_object_get(topo, "host");
	out->hostname = jstr(h, "hostname");
	out->cpu_model = jstr(h, "cpu_model");
	out->origin = jstr(topo, "origin");
	out->packages = jint(h, "packages", -1);
	out->numa_nodes = jint(h, "numa_nodes", -1);
	out->cores = jint(h, "cores", -1);
	out->pus = jint(h, "pus", -1);
}

bool nbw_rv_topo_source(json_t *topo, size_t i, struct nbw_rv_topo_source *out)
{
	json_t *s = json_array_get(json_object_get(topo, "sources"), i);
	memset(out, 0, sizeof(*out));
	out->name = out->detail = "";
	if (!json_is_object(s))
		return false;
	out->name = jstr(s, "name");
	out->detail = jstr(s, "detail");
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
	out->id = jstr(d, "id");
	out->kind = jstr(d, "kind");
	out->name = jstr(d, "name");
	out->link_type = jstr(hl, "type");
	out->link_note = jstr(hl, "note");
	out->link_gbps = jnum(hl, "theoretical_gbps");
	if (!nbw_theory_gbps_ok(out->link_gbps))
		out->link_gbps = NAN; /* refused where loaded (results_check.c) */
	long long node = jint(hl, "numa_node", -1);
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
	out->a = jstr(p, "a");
	out->b = jstr(p, "b");
	out->label = jstr(p, "label");
	out->kind = jstr(p, "kind");
	out->basis = jstr(p, "basis");
	out->gbps = jnum(p, "theoretical_gbps");
	if (!nbw_theory_gbps_ok(out->gbps))
		out->gbps = NAN;
	return true;
}

void nbw_rv_software(json_t *sw, struct nbw_rv_software *out)
{
	out->compiler = jstr(sw, "compiler");
	out->build = jstr(sw, "build");
	out->offload_targets = jstr(sw, "offload_targets");
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
		*version = jstr(v, keys[k]);
	return true;
}
