/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nodes of a fleet folder, each reduced to what the comparison needs, one node at a
 * time (a --full results.json is 140 MB; a site's fleet has hundreds), as one JSON object:
 *   {"node", "folder", "status", "reason", "readable", "group",
 *    "topology": {key: value}, "values": {path: {value, unit, better, label, link,
 *    theoretical_gbps, kind}}}
 * - the paths: every verified transfer series of the main run (not the hidden-helper
 *   sweep's re-runs), the matrix cells of every device and pair included, as its
 *   bandwidth at the run's comparison size (nbw_analysis_comparison_bytes, the size every
 *   device and pair has: the figure the node's own summary, matrix and check show) and its
 *   time at its smallest (<= 4 KiB), and every verified halo-exchange solver configuration as its fastest
 *   round's time per step; the size is part of the path, so only like is compared;
 * - the machine speed reference of the run (its best core, cache and memory figures);
 * - the topology, flattened to "device 2 host link" -> "PCIe Gen5 x16" and the like;
 * - the group: the device models ("4 x NVIDIA H200"), so that only like nodes are compared.
 */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare_priv.h"
#include "nodebw/analysis.h"
#include "nodebw/link_health.h"
#include "nodebw/verdict.h"
#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"
#include "nodebw/speedref.h"
#include "rdoc_priv.h"

static void put_value(json_t *values, const char *path, double v, const char *unit,
		      const char *better, const char *kind, const char *link, double theo)
{
	if (!isfinite(v) || v <= 0)
		return;
	json_t *o = json_pack("{s:f, s:s, s:s, s:s}", "value", v, "unit", unit, "better", better,
			      "kind", kind);
	if (link && *link)
		json_object_set_new(o, "link", json_string(link));
	if (theo > 0)
		json_object_set_new(o, "theoretical_gbps", json_real(theo));
	json_object_set_new(values, path, o);
}

/* "omp htod sync pinned h->0", with the concurrency, peer access and binding when they
 * are not the plain case. */
static void path_name(const struct nbw_curve_key *k, char *out, size_t len)
{
	char extra[96] = "";
	size_t e = 0;
	if (strcmp(k->conc, "single") != 0)
		e += (size_t)snprintf(extra + e, sizeof(extra) - e, " %s", k->conc);
	if (e < sizeof(extra) && strcmp(k->peer, "n/a") != 0)
		e += (size_t)snprintf(extra + e, sizeof(extra) - e, " peer %s", k->peer);
	if (e < sizeof(extra) && k->bind[0] && strcmp(k->bind, "local") != 0 &&
	    strcmp(k->bind, "none") != 0)
		snprintf(extra + e, sizeof(extra) - e, " bind %s", k->bind);
	snprintf(out, len, "%s %s %s %s%s %s", k->api, k->dir, k->mode, k->host_mem, extra,
		 k->devices);
}

static void transfer_values(json_t *values, json_t *devices, json_t *measurements)
{
	long long cmp = nbw_analysis_comparison_bytes(devices, measurements);
	struct nbw_curves cs = { 0 };
	if (nbw_curves_add_cells(&cs, measurements, 0) != 0) {
		nbw_curves_free(&cs);
		return;
	}
	for (size_t i = 0; i < cs.n; i++) {
		const struct nbw_curve *c = &cs.c[i];
		if (c->key.sweep[0] || c->n == 0)
			continue;
		char name[200], size[32], path[260];
		path_name(&c->key, name, sizeof(name));
		/* At the comparison size only: a series without it has no bandwidth here. */
		for (size_t p = 0; p < c->n; p++) {
			if (c->pt[p].bytes != cmp)
				continue;
			nbw_human_bytes(c->pt[p].bytes, size, sizeof(size));
			snprintf(path, sizeof(path), "%s @ %s", name, size);
			put_value(values, path, c->pt[p].gbps, "GB/s", "higher", "bandwidth",
				  c->link, c->theoretical_gbps);
		}
		const struct nbw_curve_point *small = &c->pt[0];
		if (c->n >= 2 && small->bytes <= 4096) {
			nbw_human_bytes(small->bytes, size, sizeof(size));
			snprintf(path, sizeof(path), "%s @ %s", name, size);
			put_value(values, path, small->seconds * 1e6, "us", "lower", "latency",
				  c->link, -1);
		}
	}
	nbw_curves_free(&cs);
}

static void solver_values(json_t *values, json_t *runs)
{
	size_t i;
	json_t *j;
	json_array_foreach(runs, i, j) {
		struct nbw_rv_solver_run r;
		/* The multi-device runs with their exchange, verified against the serial
		 * reference (the reference itself is not compared), the fastest round. */
		if (!nbw_rv_solver_read(j, &r) || !r.version[0] || r.no_exchange ||
		    strcmp(r.verify_status, "passed") != 0 || (r.error && r.error[0]) ||
		    !(r.seconds_per_step > 0))
			continue;
		char path[200];
		const char *sp = r.purpose[0] ? " " : "";
		if (r.cubic_n > 0)
			snprintf(path, sizeof(path), "heat %s G=%d N=%d%s%s", r.version, r.g,
				 r.cubic_n, sp, r.purpose);
		else
			snprintf(path, sizeof(path), "heat %s G=%d %dx%dx%d%s%s", r.version, r.g,
				 r.nx, r.ny, r.nz, sp, r.purpose);
		double ms = r.seconds_per_step * 1e3;
		if (nbw_fv_values_value(values, path) <= ms)
			continue; /* the fastest round (NAN: the first) */
		put_value(values, path, ms, "ms/step", "lower", "solver", NULL, -1);
	}
}

/* The machine speed reference of nodebw run (common/speedref.c): the node's best of each
 * kernel over the run, so that a node whose host is slower (a throttled clock or memory, a
 * shared host) stands out even where its devices do not. */
static void speedref_values(json_t *values, json_t *points)
{
	struct nbw_speedref b;
	nbw_speedref_best(points, &b);
	put_value(values, "host speed reference: core (multiply-add chains)", b.core_ns, "ns/step",
		  "lower", "host", NULL, -1);
	put_value(values, "host speed reference: cache copy 192 KiB", b.cache_gbps, "GB/s",
		  "higher", "host", NULL, -1);
	put_value(values, "host speed reference: memory copy 32 MiB", b.memory_gbps, "GB/s",
		  "higher", "host", NULL, -1);
}

static void topo_put(json_t *t, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void topo_put(json_t *t, const char *key, const char *fmt, ...)
{
	char v[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	json_object_set_new(t, key, json_string(v));
}

/* The topology as "what" -> "value" strings; devices are numbered in the order the
 * topology lists them (PCI order), so that like nodes line up. */
static json_t *flat_topology(json_t *topo)
{
	json_t *t = json_object();
	struct nbw_rv_topo_host host;
	nbw_rv_topo_host(topo, &host);
	topo_put(t, "host CPU", "%s", host.cpu_model[0] ? host.cpu_model : "unknown");
	topo_put(t, "host packages, NUMA nodes, cores", "%lld, %lld, %lld",
		 host.packages < 0 ? 0 : host.packages, host.numa_nodes < 0 ? 0 : host.numa_nodes,
		 host.cores < 0 ? 0 : host.cores);
	size_t ndev = 0;
	struct nbw_rv_topo_device d;
	while (nbw_rv_topo_device(topo, ndev, &d))
		ndev++;
	topo_put(t, "devices", "%zu", ndev);
	for (size_t i = 0; nbw_rv_topo_device(topo, i, &d); i++) {
		char key[96];
		snprintf(key, sizeof(key), "device %zu model", i);
		topo_put(t, key, "%s", d.name[0] ? d.name : "unknown");
		if (d.link_has_current) {
			snprintf(key, sizeof(key), "device %zu host link", i);
			topo_put(t, key, "%s %s (device max %s)", d.link_type[0] ? d.link_type : "link",
				 d.link_current, d.link_max);
		}
		if (d.numa_node >= 0) {
			snprintf(key, sizeof(key), "device %zu NUMA node", i);
			topo_put(t, key, "%d", d.numa_node);
		}
	}
	struct nbw_rv_topo_pair p;
	for (size_t i = 0; nbw_rv_topo_pair(topo, i, &p); i++) {
		/* pairs name devices by id; their position is what lines up across nodes */
		long ia = -1, ib = -1;
		for (size_t k = 0; nbw_rv_topo_device(topo, k, &d); k++) {
			if (d.id[0] && p.a[0] && strcmp(d.id, p.a) == 0)
				ia = (long)k;
			if (d.id[0] && p.b[0] && strcmp(d.id, p.b) == 0)
				ib = (long)k;
		}
		if (ia < 0 || ib < 0 || !p.label[0])
			continue;
		char key[96];
		snprintf(key, sizeof(key), "link device %ld - device %ld", ia, ib);
		topo_put(t, key, "%s", p.label);
	}
	return t;
}

/* "4 x NVIDIA H200" (+ " + ..." for mixed nodes): the OpenMP devices, else every
 * device of the native APIs; host-plugin devices are "host-plugin (host memory)". */
static void group_key(json_t *devices, char *out, size_t len)
{
	struct {
		char name[128];
		int n;
	} kinds[16];
	int nk = 0;
	bool any_omp = false;
	size_t i;
	json_t *d;
	json_array_foreach(devices, i, d) {
		struct nbw_rv_device v;
		any_omp |= nbw_rv_device_read(d, &v) && strcmp(v.api, "omp") == 0;
	}
	json_array_foreach(devices, i, d) {
		struct nbw_rv_device v;
		if (!nbw_rv_device_read(d, &v) || !v.api[0] || strcmp(v.api, "host") == 0 ||
		    (any_omp && strcmp(v.api, "omp") != 0))
			continue;
		char what[128];
		if (strcmp(v.kind, "host-plugin") == 0)
			snprintf(what, sizeof(what), "host-plugin (host memory)");
		else
			snprintf(what, sizeof(what), "%s",
				 v.name[0] ? v.name : v.kind[0] ? v.kind : "device");
		int k = 0;
		while (k < nk && strcmp(kinds[k].name, what) != 0)
			k++;
		if (k == nk && nk < 16) {
			snprintf(kinds[nk].name, sizeof(kinds[nk].name), "%s", what);
			kinds[nk++].n = 0;
		}
		if (k < nk)
			kinds[k].n++;
	}
	size_t o = 0;
	out[0] = '\0';
	for (int k = 0; k < nk && o < len; k++)
		o += (size_t)snprintf(out + o, len - o, "%s%d x %s", k ? " + " : "", kinds[k].n,
				      kinds[k].name);
	if (nk == 0)
		snprintf(out, len, "no devices");
}

/* The node's verdicts (nodebw check's, include/nodebw/verdict.h): counts and the paths
 * that failed, each "api direction concurrency where: reason". */
static json_t *node_verdicts(json_t *root, const struct nbw_criteria *cr)
{
	json_t *v = nbw_verdicts_node(root, cr);
	if (!v)
		return json_null();
	json_t *failing = json_array();
	struct nbw_pv_verdicts view;
	struct nbw_pv_vpath p;
	nbw_pv_verdicts(v, &view);
	for (size_t i = 0; nbw_pv_vpath(&view, i, &p); i++) {
		if (!strcmp(p.verdict, "pass") || !strcmp(p.verdict, "not judged"))
			continue;
		char line[900];
		snprintf(line, sizeof(line), "%s %s %s %s: %s", p.api, p.direction, p.concurrency,
			 p.where, p.reason);
		json_array_append_new(failing, json_string(line));
	}
	struct nbw_pv_lh e;
	for (size_t i = 0; nbw_pv_link_health(v, i, &e); i++) {
		if (strcmp(e.verdict, "fail"))
			continue;
		char line[900];
		snprintf(line, sizeof(line), "link health %s %s %s: %s", e.device, e.aspect, e.link,
			 e.reason);
		json_array_append_new(failing, json_string(line));
	}
	json_t *out = json_pack("{s:s, s:{s:i, s:i, s:i, s:i}, s:i, s:o}", "outcome",
				view.outcome, "counts", "pass",
				view.pass, "below threshold", view.below_threshold,
				"below reference", view.below_reference, "not judged",
				view.not_judged, "failed", nbw_verdicts_failed(v), "failing",
				failing);
	json_decref(v);
	return out;
}

static json_t *load_node(const char *ndir, const char *folder, const struct nbw_criteria *cr)
{
	json_t *node = json_pack("{s:s, s:s, s:s, s:s, s:b}", "node", folder, "folder", folder,
				 "status", "unknown", "reason", "", "readable", 0);
	char path[4400], err[600];
	snprintf(path, sizeof(path), "%s/fleet-node.json", ndir);
	json_t *fn = nbw_fv_node_file_load(path);
	if (fn) {
		const char *n, *s, *r;
		nbw_fv_node_file(fn, &n, &s, &r);
		if (n)
			json_object_set_new(node, "node", json_string(n));
		if (s)
			json_object_set_new(node, "status", json_string(s));
		if (r)
			json_object_set_new(node, "reason", json_string(r));
		json_decref(fn);
	}
	snprintf(path, sizeof(path), "%s/results.json", ndir);
	struct nbw_doc *doc = nbw_doc_load(path, err, sizeof(err));
	if (!doc) {
		char why[900];
		struct nbw_fv_node said;
		nbw_fv_node_of(node, &said);
		const char *r = said.reason;
		snprintf(why, sizeof(why), "unreadable: %s%s%s", err, r && *r ? "; the node said: " : "",
			 r && *r ? r : "");
		json_object_set_new(node, "reason", json_string(why));
		json_object_set_new(node, "status", json_string("unreadable"));
		return node;
	}
	struct nbw_rv_doc h;
	nbw_rv_doc_read(doc->root, &h);
	const char *state = h.state[0] ? h.state : NULL;
	json_object_set_new(node, "state", json_string(state ? state : "unknown"));
	if (!fn)
		json_object_set_new(node, "status",
				    json_string(state && strcmp(state, "complete") == 0 ?
							"ok" : state ? state : "unknown"));
	char gk[256];
	group_key(h.devices, gk, sizeof(gk));
	json_object_set_new(node, "group", json_string(gk));
	json_t *values = json_object();
	transfer_values(values, h.devices, h.measurements);
	solver_values(values, h.solver_runs);
	speedref_values(values, h.speed_reference);
	json_object_set_new(node, "values", values);
	json_object_set_new(node, "verdicts", node_verdicts(h.j, cr));
	json_object_set_new(node, "topology", h.topology ? flat_topology(h.topology) : json_object());
	if (h.hostname[0])
		json_object_set_new(node, "host", json_string(h.hostname));
	json_object_set_new(node, "readable", json_true());
	nbw_doc_free(doc);
	return node;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *nbw_fleet_load_nodes(const char *dir, const struct nbw_criteria *cr, char *err,
			     size_t errlen)
{
	char base[4200];
	snprintf(base, sizeof(base), "%s/nodes", dir);
	struct stat st;
	if (stat(base, &st) != 0 || !S_ISDIR(st.st_mode))
		snprintf(base, sizeof(base), "%s", dir);
	DIR *d = opendir(base);
	if (!d) {
		snprintf(err, errlen, "%s: not a fleet folder (cannot read it)", dir);
		return NULL;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		/* A node folder is known by what it holds (results.json or fleet-node.json), never
		 * by its name: a node may be called "report". The comparison's report folder holds
		 * neither. */
		if (e->d_name[0] == '.')
			continue;
		char sub[4600], f1[4700], f2[4700];
		snprintf(sub, sizeof(sub), "%s/%s", base, e->d_name);
		snprintf(f1, sizeof(f1), "%s/results.json", sub);
		snprintf(f2, sizeof(f2), "%s/fleet-node.json", sub);
		if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode) ||
		    (access(f1, F_OK) != 0 && access(f2, F_OK) != 0))
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(char *));
		if (!nn)
			break;
		names = nn;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n == 0) {
		snprintf(err, errlen, "%s: no node folders (nodes/<node>/ with results.json or "
			 "fleet-node.json)", dir);
		free(names);
		return NULL;
	}
	qsort(names, n, sizeof(char *), by_name);
	json_t *nodes = json_array();
	for (size_t i = 0; i < n; i++) {
		char sub[4600];
		snprintf(sub, sizeof(sub), "%s/%s", base, names[i]);
		json_array_append_new(nodes, load_node(sub, names[i], cr));
		free(names[i]);
	}
	free(names);
	return nodes;
}

const char *nbw_fleet_default_report(const char *dir, char *buf, size_t len)
{
	char f1[4300], f2[4300];
	snprintf(buf, len, "%s/report", dir);
	snprintf(f1, sizeof(f1), "%s/results.json", buf);
	snprintf(f2, sizeof(f2), "%s/fleet-node.json", buf);
	return access(f1, F_OK) == 0 || access(f2, F_OK) == 0 ? NULL : buf;
}
