/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole node, part 1: each P2P matrix of nbw_analysis_matrices as a table (rows = source,
 * columns = destination, GB/s at the matrix's size: the largest measured on every pair, the
 * size `nodebw matrix` and the terminal show; its CSV file has it in a bytes column) and,
 * within a bound, as two heat maps:
 * the measured GB/s and the fraction of the theoretical figure. The fraction map is left
 * out when no cell has a theoretical figure (always for host memory). A diagonal cell is
 * a copy within one device: never coloured, "X" in the map, and marked in the table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/bidir.h"
#include "nodebw/products.h"
#include "nodebw/analysis.h"
#include "node_priv.h"
#include "rdoc_priv.h"

struct mx_info {
	const char *api, *mode, *conc, *peer;
	size_t n;              /* devices */
	int *ids;
	double *gbps, *frac;   /* n x n, NaN = none */
	bool host_memory;      /* copies within host memory, not peer links */
	bool any_fraction;
	size_t measured, diagonal;
	double bytes;
	char links[400];       /* "NV18 (theoretical 450.0 GB/s)", ... */
};

static void add_link(struct mx_info *m, const struct nbw_pv_cell *c)
{
	char one[120];
	double th = c->theoretical_gbps;
	if (isfinite(th))
		snprintf(one, sizeof(one), "%s (theoretical %.1f GB/s)", c->link, th);
	else
		snprintf(one, sizeof(one), "%s", c->link);
	if (strstr(m->links, one))
		return;
	size_t len = strlen(m->links);
	if (len + strlen(one) + 8 >= sizeof(m->links)) {
		if (!strstr(m->links, ", ..."))
			snprintf(m->links + len, sizeof(m->links) - len, ", ...");
		return;
	}
	snprintf(m->links + len, sizeof(m->links) - len, "%s%s", len ? ", " : "", one);
}

static int load(json_t *mx, struct mx_info *m)
{
	memset(m, 0, sizeof(*m));
	struct nbw_pv_matrix v;
	if (!nbw_pv_matrix(mx, &v))
		return 0;
	m->api = v.api;
	m->mode = v.mode;
	m->conc = v.concurrency;
	m->peer = v.peer_access;
	m->bytes = v.bandwidth_bytes >= 0 ? (double)v.bandwidth_bytes : NAN;
	m->n = v.n;
	if (m->n == 0)
		return 0;
	m->ids = calloc(m->n, sizeof(*m->ids));
	m->gbps = calloc(m->n * m->n, sizeof(*m->gbps));
	m->frac = calloc(m->n * m->n, sizeof(*m->frac));
	if (!m->ids || !m->gbps || !m->frac)
		return -1;
	for (size_t i = 0; i < m->n; i++)
		m->ids[i] = nbw_pv_matrix_device(&v, i);
	for (size_t i = 0; i < m->n; i++) {
		for (size_t j = 0; j < m->n; j++) {
			struct nbw_pv_cell c;
			bool has = nbw_pv_matrix_cell(&v, i, j, &c);
			m->gbps[i * m->n + j] = c.gbps;
			m->frac[i * m->n + j] = c.fraction;
			if (!has || !isfinite(m->gbps[i * m->n + j]))
				continue;
			if (i == j) {
				m->diagonal++;
				m->frac[i * m->n + j] = NAN;
				continue;
			}
			m->measured++;
			m->host_memory |= strcmp(c.link, NBW_HOST_MEMORY_LABEL) == 0;
			m->any_fraction |= isfinite(m->frac[i * m->n + j]) != 0;
			add_link(m, &c);
		}
	}
	return 0;
}

static void unload(struct mx_info *m)
{
	free(m->ids);
	free(m->gbps);
	free(m->frac);
}

/* "cuda P2P async, one stream, peer access enabled"; host memory is never called P2P. */
static void describe(const struct mx_info *m, char *out, size_t outlen)
{
	bool bidir = strcmp(m->conc, "bidir") == 0;
	snprintf(out, outlen, "%s %s%s, %s%s%s%s", m->api, m->host_memory ? "" : "P2P ",
		 m->mode, bidir ? "both directions at once (the sum)" : "one stream",
		 strcmp(m->peer, "n/a") ? ", peer access " : "",
		 strcmp(m->peer, "n/a") ? m->peer : "",
		 m->host_memory ? ": copies within host memory, not peer links" : "");
}

static void stem(const struct mx_info *m, const char *tag, const char *what, char *out,
		 size_t outlen)
{
	snprintf(out, outlen, "%sp2p-%s-%s-%s%s%s-%s", tag, m->api, m->mode, m->conc,
		 strcmp(m->peer, "n/a") ? "-peer-" : "", strcmp(m->peer, "n/a") ? m->peer : "",
		 what);
}

static bool wants_maps(const struct mx_info *m, size_t nmatrices)
{
	if (nmatrices <= NBW_NODE_MAPS_ALL)
		return true;
	return strcmp(m->conc, "single") == 0 &&
	       (strcmp(m->mode, "sync") == 0 || strcmp(m->mode, "async") == 0) &&
	       (strcmp(m->peer, "enabled") == 0 || strcmp(m->peer, "n/a") == 0);
}

/* The sentence every caption of this matrix carries. */
static void context(const struct mx_info *m, char *out, size_t outlen)
{
	char size[32];
	nbw_human_bytes(m->bytes, size, sizeof(size));
	int k = snprintf(out, outlen, "Median GB/s (1e9 B/s) at %s, the comparison size (every "
				      "device and pair of the run is compared there); rows = source, "
				      "columns = destination; - = not measured there.", size);
	if (k < 0 || (size_t)k >= outlen)
		return;
	if (strcmp(m->conc, "bidir") == 0)
		k += snprintf(out + k, outlen - (size_t)k, " Cell (a, b): both directions at once "
			      "(the run whose first stream goes a -> b), the sum of both ("
			      NBW_BIDIR_DEFINITION "; nodebw matrix shows each direction too).");
	if (k >= 0 && (size_t)k < outlen && m->host_memory)
		k += snprintf(out + k, outlen - (size_t)k, " These devices are host memory "
			      "(host-plugin devices or host memory regions): the cells are copies "
			      "within host memory, not peer links, and there is no theoretical "
			      "figure.");
	else if (k >= 0 && (size_t)k < outlen && m->links[0])
		k += snprintf(out + k, outlen - (size_t)k, " Links: %s.", m->links);
	if (k >= 0 && (size_t)k < outlen && m->diagonal)
		snprintf(out + k, outlen - (size_t)k, " The diagonal is a copy within one device "
			 "(%s): not coloured in the maps.", NBW_SAME_DEVICE_LABEL);
}

static void table(struct nbw_rdoc *r, const struct mx_info *m, const char *tag,
		  const char *what, const char *ctx)
{
	const char **hdr = calloc(m->n + 1, sizeof(*hdr));
	const char **csv = calloc(m->n + 1, sizeof(*csv));
	char **names = calloc(2 * m->n, sizeof(*names));
	if (!hdr || !csv || !names) {
		free(hdr);
		free(csv);
		free(names);
		return;
	}
	hdr[0] = "source \\ destination (GB/s)";
	for (size_t j = 0; j < m->n; j++) {
		if (asprintf(&names[j], "%d", m->ids[j]) < 0)
			names[j] = NULL;
		hdr[j + 1] = names[j] ? names[j] : "?";
		if (asprintf(&names[m->n + j], "dst_%d_gbps", m->ids[j]) < 0)
			names[m->n + j] = NULL;
		csv[j + 1] = names[m->n + j];
	}
	csv[0] = "src_device,bytes"; /* the matrix's size on every row of the CSV file */
	char name[200], cap[1400];
	stem(m, tag, "gbps", name, sizeof(name));
	struct nbw_rtable *t = nbw_rtable_new(name, m->n + 1, hdr);
	nbw_rtable_csv_names(t, csv);
	for (size_t i = 0; i < m->n; i++) {
		char first[48];
		snprintf(first, sizeof(first), "%d,%.0f", m->ids[i], m->bytes);
		nbw_rtable_cellc(t, first, "%d", m->ids[i]);
		for (size_t j = 0; j < m->n; j++) {
			double v = m->gbps[i * m->n + j];
			if (!isfinite(v))
				nbw_rtable_cellc(t, "", "%s", i == j ? "X" : "-");
			else if (i == j)
				nbw_rtable_cellv(t, v, "%.2f (same device)", v);
			else
				nbw_rtable_cell(t, "%.2f", v);
		}
		nbw_rtable_end_row(t);
	}
	snprintf(cap, sizeof(cap), "%s: GB/s = 1e9 B/s. %s", what, ctx);
	nbw_rdoc_table(r, t, cap);
	for (size_t j = 0; j < 2 * m->n; j++)
		free(names[j]);
	free(names);
	free(csv);
	free(hdr);
}

static void maps(struct nbw_rdoc *r, const struct mx_info *m, const char *tag,
		 const char *what, const char *ctx)
{
	char name[200], title[400], cap[1600];
	char **text = calloc(m->n * m->n, sizeof(*text));
	double *pct = calloc(m->n * m->n, sizeof(*pct));
	double *bw = calloc(m->n * m->n, sizeof(*bw));
	if (!text || !pct || !bw)
		goto out;
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->n; j++) {
			size_t k = i * m->n + j;
			bw[k] = i == j ? NAN : m->gbps[k];
			pct[k] = i == j ? NAN : 100.0 * m->frac[k];
			text[k] = i == j ? "X" : NULL;
		}
	stem(m, tag, "gbps", name, sizeof(name));
	char msz[32];
	nbw_human_bytes(m->bytes, msz, sizeof(msz));
	snprintf(title, sizeof(title), "%s: GB/s (1e9 B/s) at %s, rows = source", what, msz);
	struct nbw_heatmap h = {
		.name = name, .title = title, .xlabel = "destination device",
		.ylabel = "source device", .cblabel = "GB/s (1e9 B/s)", .n = m->n, .ids = m->ids,
		.value = bw, .text = (const char *const *)text, .fmt = "%.1f", .cbmin = 0,
		.cbmax = NAN,
	};
	snprintf(cap, sizeof(cap), "%s: measured GB/s (1e9 B/s). %s", what, ctx);
	nbw_rdoc_heatmap(r, &h, cap);
	if (!m->any_fraction) {
		nbw_rdoc_para(r, "No fraction-of-theoretical map for %s: %s.", what,
			      m->host_memory ? "host memory has no link and no theoretical figure"
					     : "no theoretical figure is known for these pairs");
		goto out;
	}
	stem(m, tag, "fraction", name, sizeof(name));
	snprintf(title, sizeof(title), "%s: %% of theoretical GB/s at %s, rows = source",
		 what, msz);
	h.name = name;
	h.cblabel = "measured / theoretical GB/s (%)";
	h.value = pct;
	h.fmt = "%.0f%%";
	h.cbmax = 100;
	h.red_to_green = true;
	snprintf(cap, sizeof(cap), "%s: measured GB/s as %% of the theoretical GB/s of the link "
				   "(- = not measured or no theoretical figure). %s", what, ctx);
	nbw_rdoc_heatmap(r, &h, cap);
out:
	free(text);
	free(pct);
	free(bw);
}

void nbw_node_matrices(struct nbw_rdoc *r, json_t *matrices, const char *tag, int level)
{
	nbw_rdoc_heading(r, level, "Device-to-device matrices");
	size_t nmx = json_array_size(matrices), drawn = 0, left = 0;
	if (nmx == 0) {
		nbw_rdoc_para(r, "No verified device-to-device (p2p) measurement: no matrix.");
		return;
	}
	if (nmx > NBW_NODE_MAPS_ALL)
		nbw_rdoc_para(r, "%zu matrices: heat maps for the single-stream sync and async "
				 "ones with peer access enabled or n/a (at most %d), tables for "
				 "all.", nmx, NBW_NODE_MAPS_MAX);
	size_t i;
	json_t *mx;
	json_array_foreach(matrices, i, mx) {
		struct mx_info m;
		char what[200], ctx[1200];
		if (load(mx, &m) || m.n == 0) {
			unload(&m);
			continue;
		}
		describe(&m, what, sizeof(what));
		context(&m, ctx, sizeof(ctx));
		nbw_rdoc_heading(r, level + 1, what);
		if (wants_maps(&m, nmx) && drawn < NBW_NODE_MAPS_MAX) {
			maps(r, &m, tag, what, ctx);
			drawn++;
		} else if (wants_maps(&m, nmx)) {
			left++;
		}
		table(r, &m, tag, what, ctx);
		unload(&m);
	}
	if (left)
		nbw_rdoc_para(r, "%zu more matrices would have heat maps; only the first %d are "
				 "drawn, the rest are tables.", left, NBW_NODE_MAPS_MAX);
}
