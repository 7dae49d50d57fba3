/* SPDX-License-Identifier: BSD-3-Clause */
/* What two GPUs can move through a switch fabric, from one of hwloc's GPU distance matrices
 * (NVLinkBandwidth: GPU-GPU, GPU-switch and switch-switch entries, MB/s per direction).
 *
 * The figure is the maximum flow from GPU a to GPU b over the matrix's links, where only
 * switches may relay (a GPU or a CPU-side object never forwards another pair's traffic).
 * One path's figure is its narrowest hop (GPU -> switch -> ... -> switch -> GPU); paths
 * that share no link add up; paths that share a link (a trunk between two switches) get
 * no more than that link in total. With one tier of switches and no switch-switch entry
 * this is the direct entry plus, per switch both reach, the lower of the two GPU-switch
 * entries, summed: what hwloc_gpu.c computed before multi-tier fabrics. Edmonds-Karp
 * (shortest augmenting paths first), on the n objects of the matrix. */
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

/* Breadth-first search for a shortest augmenting path s -> t in the residual capacities
 * r; intermediate objects must be relays. Fills prev[], returns whether t was reached. */
static bool bfs(const double *r, unsigned n, const bool *relay, unsigned s, unsigned t,
		int *prev, unsigned *queue)
{
	for (unsigned i = 0; i < n; i++)
		prev[i] = -1;
	prev[s] = (int)s;
	unsigned head = 0, tail = 0;
	queue[tail++] = s;
	while (head < tail) {
		unsigned u = queue[head++];
		if (u != s && !relay[u])
			continue; /* reached only as the end: t, never passed through */
		for (unsigned v = 0; v < n; v++) {
			if (prev[v] >= 0 || r[(size_t)u * n + v] <= 0)
				continue;
			if (v != t && !relay[v])
				continue;
			prev[v] = (int)u;
			if (v == t)
				return true;
			queue[tail++] = v;
		}
	}
	return false;
}

int topo_fabric_flow(const double *cap, unsigned n, const bool *relay, unsigned s,
		     unsigned t, struct topo_flow *out)
{
	memset(out, 0, sizeof(*out));
	out->narrowest_mbps = -1;
	if (s >= n || t >= n || s == t)
		return -1;
	double *r = malloc((size_t)n * n * sizeof(*r));
	int *prev = malloc(n * sizeof(*prev));
	unsigned *queue = malloc(n * sizeof(*queue));
	bool *used = calloc(n, sizeof(*used));
	if (!r || !prev || !queue || !used) {
		free(r), free(prev), free(queue), free(used);
		return -1;
	}
	for (size_t k = 0; k < (size_t)n * n; k++)
		r[k] = cap[k] > 0 && k / n != k % n ? cap[k] : 0; /* no diagonal */
	while (bfs(r, n, relay, s, t, prev, queue)) {
		double f = -1;
		int sw = 0;
		for (unsigned v = t; v != s; v = (unsigned)prev[v]) {
			double c = r[(size_t)prev[v] * n + v];
			if (f < 0 || c < f)
				f = c;
			if (v != t)
				sw++;
		}
		for (unsigned v = t; v != s; v = (unsigned)prev[v]) {
			unsigned u = (unsigned)prev[v];
			r[(size_t)u * n + v] -= f;
			r[(size_t)v * n + u] += f;
			if (v != t)
				used[v] = true;
		}
		out->mbps += f;
		out->paths++;
		if (sw > out->tiers)
			out->tiers = sw;
		if (out->narrowest_mbps < 0 || f < out->narrowest_mbps)
			out->narrowest_mbps = f;
		if (f > out->widest_mbps)
			out->widest_mbps = f;
	}
	for (unsigned i = 0; i < n; i++)
		out->switches += used[i];
	free(r), free(prev), free(queue), free(used);
	return 0;
}
