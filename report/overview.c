/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The overview section: which results files, which nodebw, which machine, the command
 * lines, the devices of every API and what they really are (host-plugin devices are host
 * memory, not GPUs), what was skipped and why, the topology when the file has one, and the
 * units with the measurements' own words on how bytes are counted.
 */
#include "nodebw/analysis.h"
#include "nodebw/cli.h"
#include "nodebw/report.h"
#include "nodebw/results_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdoc_priv.h"

/* A view's string ("" when the document lacks it), or \p dflt. */
static const char *nonempty(const char *s, const char *dflt)
{
	return *s ? s : dflt;
}

static void command_line(json_t *cmd, char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = '\0';
	size_t i;
	json_t *a;
	json_array_foreach(cmd, i, a) {
		const char *s = json_string_value(a);
		if (!s)
			continue;
		bool quote = !*s || strpbrk(s, " \t'\"$*?;&|<>()") != NULL;
		int w = snprintf(out + n, outlen - n, "%s%s%s%s", i ? " " : "", quote ? "'" : "", s,
				 quote ? "'" : "");
		if (w < 0 || (size_t)w >= outlen - n)
			break;
		n += (size_t)w;
	}
}

/* "complete", "running", "interrupted", "failed", "killed"; files without a state
 * (nodebw before 0.13) are "complete" or "interrupted" from their flag. */
static const char *file_state(const struct nbw_rv_doc *d)
{
	if (*d->state)
		return d->state;
	return d->interrupted ? "interrupted" : "complete";
}

static void files_section(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 3, "Results files");
	static const char *const h[] = { "file", "path", "created (UTC)", "nodebw",
					 "schema", "measurements", "solver runs",
					 "state" };
	struct nbw_rtable *t = nbw_rtable_new("files", 8, h);
	for (size_t i = 0; i < in->nfiles; i++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[i], &d);
		nbw_rtable_cell(t, "%zu", i);
		nbw_rtable_cell(t, "%s", in->paths[i]);
		nbw_rtable_cell(t, "%s", nonempty(d.created, "unknown"));
		nbw_rtable_cell(t, "%s", nonempty(d.tool_version, "unknown"));
		nbw_rtable_cell(t, "%d", d.schema_version);
		nbw_rtable_cell(t, "%zu", json_array_size(d.measurements));
		nbw_rtable_cell(t, "%zu", json_array_size(d.solver_runs));
		nbw_rtable_cell(t, "%s", file_state(&d));
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "The results files of this report");
	for (size_t i = 0; i < in->nfiles; i++) {
		char cmd[2048];
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[i], &d);
		command_line(d.command, cmd, sizeof(cmd));
		nbw_rdoc_item(r, "Command of file %zu: %s", i, cmd[0] ? cmd : "(not recorded)");
	}
	for (size_t i = 0; i < in->nfiles; i++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[i], &d);
		const char *st = file_state(&d);
		const char *detail = d.state_detail;
		if (strcmp(st, "running") == 0)
			nbw_rdoc_para(r, "**File %zu is incomplete**: it is a checkpoint of a run that "
					 "had not finished when it was written (still running, or killed "
					 "before any later nodebw opened its folder). It holds the series "
					 "finished by then.", i);
		else if (strcmp(st, "complete") != 0)
			nbw_rdoc_para(r, "**File %zu is incomplete** (%s%s%s): it holds the series "
					 "finished before the run ended.",
				      i, st, *detail ? ": " : "", detail);
	}
}

static void machine_section(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 3, "Machine and software");
	for (size_t i = 0; i < in->nfiles; i++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[i], &d);
		json_t *sw = d.software;
		char mem[32];
		nbw_human_bytes(isfinite(d.memory_total_bytes) ? d.memory_total_bytes : 0.0, mem,
				sizeof(mem));
		nbw_rdoc_item(r, "File %zu: host %s, %s, %lld CPUs online, %s memory, %s %s", i,
			      nonempty(d.hostname, "unknown"), nonempty(d.cpu_model, "unknown CPU"),
			      (long long)(d.cpus_online > 0 ? d.cpus_online : 0), mem,
			      nonempty(d.kernel, "unknown kernel"), d.arch);
		if (!sw)
			continue;
		char be[1024] = "";
		size_t n = 0;
		const char *api, *ver;
		for (size_t k = 0; nbw_rv_software_backend(sw, k, &api, &ver); k++) {
			int w = snprintf(be + n, sizeof(be) - n, "%s%s%s%s%s", n ? ", " : "", api,
					 *ver ? " (" : "", ver, *ver ? ")" : "");
			if (w > 0 && (size_t)w < sizeof(be) - n)
				n += (size_t)w;
		}
		struct nbw_rv_software so;
		nbw_rv_software(sw, &so);
		nbw_rdoc_item(r, "File %zu: built with %s (%s); OpenMP offload targets: %s; "
				 "backends opened: %s", i, nonempty(so.compiler, "unknown compiler"),
			      nonempty(so.build, "unknown build"),
			      nonempty(so.offload_targets, "none"), be[0] ? be : "none");
	}
}

static const char *kind_meaning(const char *kind, bool is_gpu)
{
	if (strcmp(kind, "host-plugin") == 0)
		return "host memory: LLVM host offload plugin, not a GPU";
	if (strcmp(kind, "host-memory") == 0)
		return "host memory region copied with memcpy, not a GPU";
	return is_gpu ? "GPU" : "not a GPU";
}

static void devices_section(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 3, "Devices");
	size_t ndev = json_array_size(in->devices);
	if (ndev == 0) {
		nbw_rdoc_para(r, "No device was recorded.");
		return;
	}
	/* Per file and API: how many devices of which kind. */
	size_t host_plugin = 0, host_memory = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		json_t *apis = json_object();
		size_t i;
		json_t *d;
		json_array_foreach(in->devices, i, d) {
			struct nbw_rv_device v;
			nbw_rv_device_read(d, &v);
			if ((size_t)v.file != f)
				continue;
			const char *api = nonempty(v.api, "?"), *kind = nonempty(v.kind, "unknown");
			host_plugin += strcmp(kind, "host-plugin") == 0;
			host_memory += strcmp(kind, "host-memory") == 0;
			json_t *a = json_object_get(apis, api);
			if (!a) {
				a = json_object();
				json_object_set_new(apis, api, a);
			}
			json_object_set_new(a, kind, json_integer(json_integer_value(
							     json_object_get(a, kind)) + 1));
		}
		const char *api;
		json_t *a;
		json_object_foreach(apis, api, a) {
			char kinds[512] = "";
			size_t n = 0;
			const char *kind;
			json_t *c;
			json_object_foreach(a, kind, c) {
				int w = snprintf(kinds + n, sizeof(kinds) - n, "%s%lld %s (%s)",
						 n ? ", " : "", (long long)json_integer_value(c),
						 kind, kind_meaning(kind, strcmp(kind, "cuda") == 0 ||
									  strcmp(kind, "amdgpu") == 0 ||
									  strcmp(kind, "level-zero") == 0));
				if (w > 0 && (size_t)w < sizeof(kinds) - n)
					n += (size_t)w;
			}
			if (in->nfiles > 1)
				nbw_rdoc_item(r, "File %zu, API %s: %s", f, api, kinds);
			else
				nbw_rdoc_item(r, "API %s: %s", api, kinds);
		}
		json_decref(apis);
	}
	if (host_plugin)
		nbw_rdoc_para(r, "The OpenMP devices of kind host-plugin are LLVM's host offload "
				 "plugin: their \"device memory\" is ordinary host memory, so they are "
				 "not GPUs, and their host-to-device, device-to-host and "
				 "device-to-device numbers are host-to-host memory copies. Never read "
				 "them as GPU bandwidth.");
	if (host_memory && host_plugin)
		nbw_rdoc_para(r, "The host API's devices (kind host-memory) are separate regions of "
				 "host memory copied with memcpy: the native reference that the "
				 "host-plugin devices are held against in the gap table.");
	else if (host_memory)
		nbw_rdoc_para(r, "The host API's devices (kind host-memory) are separate regions of "
				 "host memory copied with memcpy: what the host's own memory copies "
				 "reach. No device in these results is a host-plugin device, so they "
				 "are nobody's native counterpart.");

	static const char *const h[] = { "file", "api", "id", "kind", "what it is", "name",
					 "memory", "PCI bus id", "native counterpart" };
	struct nbw_rtable *t = nbw_rtable_new("devices", 9, h);
	size_t i;
	json_t *d;
	json_array_foreach(in->devices, i, d) {
		struct nbw_rv_device v;
		nbw_rv_device_read(d, &v);
		nbw_rtable_cell(t, "%d", v.file);
		nbw_rtable_cell(t, "%s", nonempty(v.api, "?"));
		nbw_rtable_cell(t, "%d", v.id);
		nbw_rtable_cell(t, "%s", nonempty(v.kind, "unknown"));
		nbw_rtable_cell(t, "%s", kind_meaning(v.kind, v.is_gpu == 1));
		nbw_rtable_cell(t, "%s", v.name);
		nbw_rtable_cell(t, "%s", v.memory);
		nbw_rtable_cell(t, "%s", nonempty(v.pci_bus_id, "none"));
		if (v.native_api[0])
			nbw_rtable_cell(t, "%s %d (%s)", v.native_api, v.native_id, v.native_by);
		else
			nbw_rtable_cell(t, "%s", "");
		nbw_rtable_end_row(t);
	}
	nbw_rdoc_table(r, t, "Every device of every API that could be opened");
}

/* Every measurement and solver run that failed or was not verified, with its reason: the
 * curves and models use only verified measurements, so this is where the others show. */
static void failures_section(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 3, "Failed and unverified measurements");
	json_t *per_file = json_array();
	size_t n = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		json_t *all = nbw_analysis_failures(in->docs[f]);
		n += nbw_analysis_failure_count(all);
		json_array_append_new(per_file, all);
	}
	if (n == 0) {
		nbw_rdoc_para(r, "Every measurement and solver run in the results passed "
				 "verification without an error.");
		json_decref(per_file);
		return;
	}
	nbw_rdoc_para(r, "%zu measurement%s or solver run%s failed or %s not verified; the "
			 "curves, tables and models below leave them out (the command that made "
			 "them ended with exit status %d).",
		      n, n == 1 ? "" : "s", n == 1 ? "" : "s", n == 1 ? "was" : "were",
		      NBW_EXIT_PARTIAL);
	static const char *const h[] = { "file", "kind", "measurement", "reason" };
	struct nbw_rtable *t = nbw_rtable_new("failures", 4, h);
	size_t f;
	json_t *all;
	json_array_foreach(per_file, f, all) {
		struct nbw_pv_failure x;
		for (size_t i = 0; nbw_pv_failure(all, i, &x); i++) {
			if (x.skipped)
				continue;
			nbw_rtable_cell(t, "%zu", f);
			nbw_rtable_cell(t, "%s", x.kind[0] ? x.kind : "?");
			nbw_rtable_cell(t, "%s", x.what[0] ? x.what : "?");
			nbw_rtable_cell(t, "%s", x.reason);
			nbw_rtable_end_row(t);
		}
	}
	nbw_rdoc_table(r, t, "Failed and unverified measurements and solver runs, with their "
			     "reasons");
	json_decref(per_file);
}

static void skipped_section(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 3, "Skipped");
	size_t backends = 0, others = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[f], &d);
		size_t i;
		json_t *s;
		json_array_foreach(d.skipped, i, s) {
			struct nbw_rv_skip k;
			nbw_rv_skip_read(s, &k);
			if (strcmp(k.what, "backend") == 0) {
				if (in->nfiles > 1)
					nbw_rdoc_item(r, "File %zu: backend %s skipped: %s", f,
						      nonempty(k.api, "?"),
						      nonempty(k.reason, "no reason recorded"));
				else
					nbw_rdoc_item(r, "Backend %s skipped: %s", nonempty(k.api, "?"),
						      nonempty(k.reason, "no reason recorded"));
				backends++;
			} else {
				others++;
			}
		}
	}
	if (backends == 0)
		nbw_rdoc_para(r, "No backend was skipped: every API built into nodebw could be "
				 "opened.");
	if (others == 0)
		return;
	nbw_rdoc_para(r, "%zu series or settings were not measured; the table says why.", others);
	static const char *const h[] = { "file", "api", "probe", "what", "reason" };
	struct nbw_rtable *t = nbw_rtable_new("skipped", 5, h);
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rv_doc d;
		nbw_rv_doc_read(in->docs[f], &d);
		size_t i;
		json_t *s;
		json_array_foreach(d.skipped, i, s) {
			struct nbw_rv_skip k;
			nbw_rv_skip_read(s, &k);
			if (strcmp(k.what, "backend") == 0)
				continue;
			nbw_rtable_cell(t, "%zu", f);
			nbw_rtable_cell(t, "%s", nonempty(k.api, "?"));
			nbw_rtable_cell(t, "%s", nonempty(k.probe, "?"));
			nbw_rtable_cell(t, "%s", nonempty(k.what, "?"));
			nbw_rtable_cell(t, "%s", k.reason);
			nbw_rtable_end_row(t);
		}
	}
	nbw_rdoc_table(r, t, "What was not measured, and why");
}

static void gbps_cell(struct nbw_rtable *t, double v, const char *none)
{
	if (isfinite(v))
		nbw_rtable_cell(t, "%.1f", v);
	else
		nbw_rtable_cell(t, "%s", none);
}

/* The links between devices as a picture: a heat map of the theoretical GB/s of each pair's
 * link, labelled with the link ("NV18", "PIX"), devices numbered in the order of the device
 * table (nothing with fewer than two devices in the pairs). */
static void links_map(struct nbw_rdoc *r, json_t *topo, size_t f)
{
	enum { MAXD = 64 };
	const char *ids[MAXD];
	size_t n = 0;
	struct nbw_rv_topo_device d;
	for (size_t i = 0; nbw_rv_topo_device(topo, i, &d) && n < MAXD; i++)
		ids[n++] = d.id;
	struct nbw_rv_topo_pair p;
	int idx[MAXD];
	double *v = calloc(n * n + 1, sizeof(*v));
	const char **text = calloc(n * n + 1, sizeof(*text));
	size_t found = 0;
	for (size_t i = 0; v && text && i < n * n; i++) {
		v[i] = NAN;
		text[i] = i / n == i % n ? "X" : "-";
	}
	for (size_t k = 0; v && text && nbw_rv_topo_pair(topo, k, &p); k++) {
		size_t a = n, b = n;
		for (size_t i = 0; i < n; i++) {
			a = strcmp(ids[i], p.a) == 0 ? i : a;
			b = strcmp(ids[i], p.b) == 0 ? i : b;
		}
		if (a == n || b == n || a == b)
			continue;
		v[a * n + b] = v[b * n + a] = p.gbps;
		text[a * n + b] = text[b * n + a] = p.label[0] ? p.label : "?";
		found++;
	}
	if (found && n >= 2 && n <= 16) {
		for (size_t i = 0; i < n; i++)
			idx[i] = (int)i;
		char name[48];
		snprintf(name, sizeof(name), "topology-links-%zu", f);
		struct nbw_heatmap h = {
			.name = name, .title = "Links between devices: theoretical GB/s",
			.xlabel = "device (row of the device table)", .ylabel = "device",
			.cblabel = "theoretical GB/s (1e9 B/s) per direction", .n = n, .ids = idx,
			.value = v, .text = text, .cbmin = 0, .cbmax = NAN,
		};
		nbw_rdoc_heatmap(r, &h, "The links between devices: each pair's link as the "
					"topology names it, coloured by its theoretical GB/s (1e9 B/s) "
					"per direction; devices numbered 0, 1, ... in the order of the "
					"device table; X = the same device, - = no link recorded");
	}
	free(v);
	free(text);
}

/* The topology's detail (the run page): where it came from, and every pair's link. */
static void detail_tables(struct nbw_rdoc *r, json_t *topo, size_t f)
{
	struct nbw_rv_topo_source s;
	for (size_t i = 0; nbw_rv_topo_source(topo, i, &s); i++)
		nbw_rdoc_item(r, "source %s: %s; %s", nonempty(s.name, "?"),
			      s.ok ? "used" : "not available", s.detail);
	struct nbw_rv_topo_pair p;
	if (nbw_rv_topo_pair(topo, 0, &p)) {
		static const char *const h[] = { "a", "b", "link", "kind",
						  "theoretical GB/s", "basis" };
		char name[32];
		snprintf(name, sizeof(name), "topology-pairs-%zu", f);
		struct nbw_rtable *t = nbw_rtable_new(name, 6, h);
		for (size_t i = 0; nbw_rv_topo_pair(topo, i, &p); i++) {
			nbw_rtable_cell(t, "%s", nonempty(p.a, "?"));
			nbw_rtable_cell(t, "%s", nonempty(p.b, "?"));
			nbw_rtable_cell(t, "%s", nonempty(p.label, "?"));
			nbw_rtable_cell(t, "%s", p.kind);
			gbps_cell(t, p.gbps, "unknown");
			nbw_rtable_cell(t, "%s", p.basis);
			nbw_rtable_end_row(t);
		}
		nbw_rdoc_table(r, t, "Device-to-device links (theoretical GB/s = 1e9 B/s "
				     "per direction)");
	}
}

void nbw_report_topology(struct nbw_rdoc *r, const struct nbw_rinput *in, int level,
			 bool detail)
{
	for (size_t f = 0; f < in->nfiles; f++) {
		struct nbw_rv_doc doc;
		nbw_rv_doc_read(in->docs[f], &doc);
		json_t *topo = doc.topology;
		if (!topo)
			continue;
		char head[64];
		snprintf(head, sizeof(head), in->nfiles > 1 ? "Topology (file %zu)" : "Topology", f);
		if (in->nfiles > 1)
			nbw_rdoc_heading(r, level, head);
		struct nbw_rv_topo_host host;
		nbw_rv_topo_host(topo, &host);
		if (detail) {
			detail_tables(r, topo, f);
			continue;
		}
		nbw_rdoc_para(r, "Host %s: %lld package(s), %lld NUMA node(s), %lld cores, %lld "
				 "hardware threads (%s topology). Theoretical figures are GB/s = "
				 "1e9 B/s per direction (doc/topology.md).",
			      nonempty(host.hostname, "unknown"), host.packages < 0 ? 0 : host.packages,
			      host.numa_nodes < 0 ? 0 : host.numa_nodes, host.cores < 0 ? 0 : host.cores,
			      host.pus < 0 ? 0 : host.pus, nonempty(host.origin, "live"));
		links_map(r, topo, f);
		struct nbw_rv_topo_device d;
		if (nbw_rv_topo_device(topo, 0, &d)) {
			static const char *const h[] = { "id", "kind", "name", "host link",
							  "theoretical GB/s", "NUMA node", "note" };
			char name[32];
			snprintf(name, sizeof(name), "topology-devices-%zu", f);
			struct nbw_rtable *t = nbw_rtable_new(name, 7, h);
			for (size_t i = 0; nbw_rv_topo_device(topo, i, &d); i++) {
				nbw_rtable_cell(t, "%s", nonempty(d.id, "?"));
				nbw_rtable_cell(t, "%s", nonempty(d.kind, "?"));
				nbw_rtable_cell(t, "%s", d.name);
				nbw_rtable_cell(t, "%s", nonempty(d.link_type, "unknown"));
				gbps_cell(t, d.link_gbps,
					  strcmp(d.link_type, "none") == 0 ? "no link" : "unknown");
				if (d.numa_node >= 0)
					nbw_rtable_cell(t, "%d", d.numa_node);
				else
					nbw_rtable_cell(t, "%s", "");
				nbw_rtable_cell(t, "%s", d.link_note);
				nbw_rtable_end_row(t);
			}
			nbw_rdoc_table(r, t, "Devices and their host links (theoretical GB/s = 1e9 "
					     "B/s per direction)");
		}
	}
}

static void units_section(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 3, "Units and how bytes are counted");
	nbw_rdoc_para(r, "Bandwidth is in GB/s = 1e9 bytes per second (decimal, not GiB/s); "
			 "times are in seconds or microseconds (us); sizes are in bytes, and kB, "
			 "MB, GB are powers of 1000.");
	/* Each distinct wording of bytes_counting once, with the concurrency it belongs to. */
	json_t *seen = json_object();
	size_t i;
	json_t *m;
	json_array_foreach(in->measurements, i, m) {
		struct nbw_rv_meas x;
		nbw_rv_meas_read(NULL, m, &x);
		const char *bc = x.bytes_counting;
		if (!x.j || !bc[0] || json_object_get(seen, bc))
			continue;
		json_object_set_new(seen, bc, json_true());
		nbw_rdoc_item(r, "%s: %s", nonempty(x.concurrency, "?"), bc);
	}
	json_decref(seen);
}

void nbw_report_overview(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	nbw_rdoc_heading(r, 2, "Overview");
	files_section(r, in);
	machine_section(r, in);
	devices_section(r, in);
	failures_section(r, in);
	skipped_section(r, in);
	nbw_rdoc_heading(r, 3, "Topology: sources and every pair's link");
	nbw_report_topology(r, in, 4, true);
	units_section(r, in);
	nbw_report_disturbance(r, in);
	nbw_report_speed_reference(r, in);
	nbw_report_solver_drift(r, in);
}
