/* SPDX-License-Identifier: BSD-3-Clause */
/* The "topology" object of results.json (and `nodebw topo --json`); shape in
 * doc/topology.md. Unknown numbers are null, never 0. */
#include <string.h>

#include "topo_int.h"

#define NBW_TOPO_SCHEMA_VERSION 1

static json_t *num_or_null(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

static json_t *int_or_null(int v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *pcie_json(const struct nbw_pcie *p)
{
	if (p->gt_s <= 0 && p->width <= 0)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o}", "gen", p->gen ? json_integer(p->gen) : json_null(),
			 "gt_s", p->gt_s > 0 ? json_real(p->gt_s) : json_null(), "width",
			 p->width > 0 ? json_integer(p->width) : json_null(), "gbps",
			 num_or_null(p->gbps));
}

static json_t *host_link_json(const struct nbw_host_link *l)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
			 "type", l->host_memory ? "none" : l->found ? "pcie" : "unknown",
			 "current", pcie_json(&l->current), "max", pcie_json(&l->max),
			 "port_max", pcie_json(&l->port_max),
			 "theoretical_gbps", num_or_null(l->theoretical_gbps),
			 "numa_node", int_or_null(l->numa_node), "cpuset", str_or_null(l->cpuset),
			 "note", l->note);
}

static json_t *list_json(const char *csv)
{
	json_t *a = json_array();
	char copy[128];
	snprintf(copy, sizeof(copy), "%s", csv);
	for (char *s = NULL, *w = strtok_r(copy, ",", &s); w; w = strtok_r(NULL, ",", &s))
		json_array_append_new(a, json_string(w));
	return a;
}

static json_t *host_json(const struct nbw_topo *t)
{
	struct nbw_topo_host h;
	nbw_topo_host(t, &h);
	json_t *numa = json_array();
	struct nbw_topo_numa n;
	for (unsigned i = 0; nbw_topo_numa(t, i, &n) == 0; i++)
		json_array_append_new(numa, json_pack("{s:i, s:I, s:o, s:o}", "os_index",
			n.os_index, "memory_bytes", (json_int_t)n.memory_bytes, "cpuset",
			str_or_null(n.cpuset), "package", int_or_null(n.package)));
	return json_pack("{s:o, s:o, s:i, s:i, s:i, s:i, s:o}", "hostname",
			 str_or_null(h.hostname), "cpu_model", str_or_null(h.cpu_model), "packages",
			 h.packages, "numa_nodes", h.numa_nodes, "cores", h.cores, "pus", h.pus,
			 "numa", numa);
}

json_t *nbw_topo_to_json(const struct nbw_topo *t)
{
	if (!t)
		return json_null();
	json_t *root = json_object(), *src = json_array(), *devs = json_array();
	json_t *pairs = json_array(), *ids = json_array(), *labels = json_array();
	json_object_set_new(root, "schema", json_string("nodebw-topology"));
	json_object_set_new(root, "schema_version", json_integer(NBW_TOPO_SCHEMA_VERSION));
	json_object_set_new(root, "origin", json_string(t->fixture ? "fixture" : "live"));
	json_object_set_new(root, "fixture", t->fixture ? json_string(t->fixture_dir) :
			    json_null());
	json_object_set_new(root, "units", json_string("GB/s = 1e9 bytes/s, theoretical, per "
						       "direction"));
	json_object_set_new(root, "host", host_json(t));
	for (size_t i = 0; i < t->nsrc; i++)
		json_array_append_new(src, json_pack("{s:s, s:b, s:i, s:s}", "name",
			t->src[i].name, "ok", t->src[i].ok, "devices", t->src[i].devices, "detail",
			t->src[i].detail));
	json_object_set_new(root, "sources", src);
	for (size_t i = 0; i < t->ndev; i++) {
		const struct nbw_topo_device *d = &t->dev[i].pub;
		json_array_append_new(devs, json_pack("{s:s, s:o, s:o, s:s, s:o, s:s, s:o, s:o, "
			"s:o, s:o}", "id", d->id, "pci_bus_id", str_or_null(d->pci_bus_id), "tile",
			int_or_null(d->tile), "kind", d->kind, "vendor", str_or_null(d->vendor),
			"name", d->name, "name_source", str_or_null(t->dev[i].name_source),
			"seen_by", list_json(d->seen_by), "host_link", host_link_json(&d->link),
			"link_health", topo_health_to_json(t, i)));
	}
	json_object_set_new(root, "devices", devs);
	for (size_t i = 0; i < t->ndev; i++) {
		if (!t->dev[i].pub.pci_bus_id[0])
			continue;
		json_t *row = json_array();
		json_array_append_new(ids, json_string(t->dev[i].pub.id));
		for (size_t j = 0; j < t->ndev; j++) {
			if (!t->dev[j].pub.pci_bus_id[0])
				continue;
			struct nbw_topo_pair p, pc;
			topo_pair_idx(t, (int)i, (int)j, &p);
			json_array_append_new(row, json_string(p.label));
			if (j <= i)
				continue;
			topo_pcie_idx(t, (int)i, (int)j, &pc);
			json_t *cc = json_null();
			if (p.hwloc_gbps >= 0)
				cc = json_pack("{s:o, s:s, s:f, s:s, s:o, s:b}", "vendor_gbps",
					       num_or_null(p.theoretical_gbps), "vendor_source",
					       p.source, "hwloc_gbps", p.hwloc_gbps, "hwloc_source",
					       p.hwloc_source, "difference_pct",
					       p.theoretical_gbps >= 0 && p.hwloc_gbps > 0 ?
					       json_real(100.0 * (p.theoretical_gbps - p.hwloc_gbps) /
							 p.hwloc_gbps) : json_null(),
					       "agree", !p.disagree);
			json_array_append_new(pairs, json_pack("{s:s, s:s, s:s, s:s, s:o, s:i, s:o, "
				"s:s, s:o, s:o, s:{s:s, s:o}}", "a", t->dev[i].pub.id, "b",
				t->dev[j].pub.id, "label", p.label, "kind", nbw_link_kind_name(p.kind),
				"links", p.links > 0 ? json_integer(p.links) : json_null(), "hops",
				p.hops, "theoretical_gbps", num_or_null(p.theoretical_gbps), "basis",
				p.basis, "source", str_or_null(p.source), "cross_check", cc, "pcie",
				"label", pc.label, "theoretical_gbps",
				num_or_null(pc.theoretical_gbps)));
		}
		json_array_append_new(labels, row);
	}
	json_object_set_new(root, "pairs", pairs);
	json_object_set_new(root, "matrix", json_pack("{s:o, s:o}", "ids", ids, "labels", labels));
	json_object_set_new(root, "formulas", json_pack("{s:s, s:s, s:s, s:s}",
		"pcie", "GB/s per direction = GT/s per lane x encoding efficiency (8b/10b Gen1-2, "
			"128b/130b Gen3-6) / 8 x lanes, at min(device max, port max)",
		"nvlink", "links x per-link rate per direction (NVLink 1: 20, 2-4: 25, 5: 50 GB/s)",
		"xgmi_xelink_mdf", "the bandwidth the vendor API reports, else links x per-link rate",
		"pcie_p2p", "the slower of the two host links; switches, root complexes and the SMP "
			    "interconnect are not counted"));
	return root;
}

json_t *nbw_page_placement_to_json(const struct nbw_page_placement *pl)
{
	json_t *nodes = json_object();
	for (int n = 0; n <= pl->max_node && n < NBW_TOPO_MAX_NUMA; n++)
		if (pl->on_node[n]) {
			char key[16];
			snprintf(key, sizeof(key), "%d", n);
			json_object_set_new(nodes, key, json_integer((json_int_t)pl->on_node[n]));
		}
	return json_pack("{s:I, s:I, s:o, s:I, s:I}", "page_size", (json_int_t)pl->page_size,
			 "pages", (json_int_t)pl->pages, "nodes", nodes, "not_present",
			 (json_int_t)pl->not_present, "failed", (json_int_t)pl->failed);
}
