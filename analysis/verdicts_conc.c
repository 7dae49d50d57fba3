/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The paths of copies made at the same time, judged beside the one-at-a-time paths
 * (analysis/verdicts.c, doc/check.md):
 *
 * - each ordered pair during all-to-all (concurrency "a2a"): its own stream's GB/s while
 *   every other pair copies too, like TransferBench's all-to-all health check, which fails
 *   any pair below its figure;
 * - the all-to-all aggregate: n(n-1) x size / the wall time of the whole (the kind table's
 *   bytes counting), judged by site thresholds only: through a switch the pairs share each
 *   device's links, so the sum of the pairs' link figures bounds nothing;
 * - the host-to-all and all-to-host aggregates (concurrency "all"): every device's bytes
 *   over the wall time, judged by site thresholds and against the sum of the devices' host
 *   links (the theoretical figure the measurement records).
 *
 * Each becomes one measurement-like path, so the criteria select and judge it exactly as
 * they judge a single copy: a threshold names it with "concurrency" ("a2a" or "all") and
 * "aggregate" (true for the aggregates).
 */
#include "verdicts_conc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool concurrent(const struct nbw_rv_meas *x)
{
	bool p2p = strcmp(x->direction, "p2p") == 0;
	if (p2p)
		return strcmp(x->concurrency, "a2a") == 0;
	return (!strcmp(x->direction, "htod") || !strcmp(x->direction, "dtoh")) &&
	       strcmp(x->concurrency, "all") == 0;
}

static int count_devices(const struct nbw_rv_meas *x)
{
	int ids[NBW_RV_MAX_STREAMS * 2], n = 0;
	for (int i = 0; i < x->nstreams; i++) {
		int e[2] = { x->streams[i].src, x->streams[i].dst };
		for (int k = 0; k < 2; k++) {
			bool seen = e[k] < 0;
			for (int j = 0; j < n && !seen; j++)
				seen = ids[j] == e[k];
			if (!seen)
				ids[n++] = e[k];
		}
	}
	return n;
}

static bool push(struct nbw_vc_path **v, size_t *n, size_t *cap, const struct nbw_vc_path *p)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct nbw_vc_path *t = realloc(*v, c * sizeof(*t));
		if (!t)
			return false;
		*v = t;
		*cap = c;
	}
	(*v)[(*n)++] = *p;
	return true;
}

size_t nbw_vc_paths(json_t *devices, json_t *measurements, struct nbw_vc_path **out)
{
	struct nbw_vc_path *v = NULL, *p = malloc(sizeof(*p));
	size_t n = 0, cap = 0, i;
	json_t *m;
	*out = NULL;
	if (!p)
		return 0;
	json_array_foreach(measurements, i, m) {
		memset(p, 0, sizeof(*p));
		if (!nbw_rv_meas_read(devices, m, &p->x) || !nbw_rv_meas_usable(&p->x) ||
		    p->x.plane_sweep || p->x.chase || !concurrent(&p->x) || p->x.nstreams < 2)
			continue;
		p->ndevices = count_devices(&p->x);
		p->aggregate = true;
		bool a2a = strcmp(p->x.concurrency, "a2a") == 0;
		if (a2a)
			p->x.theoretical = -1.0;
		if (!push(&v, &n, &cap, p))
			break;
		if (!a2a)
			continue;
		/* Each pair: its own stream, as a measurement of that pair alone would read. */
		struct nbw_rv_meas whole = p->x;
		for (int s = 0; s < whole.nstreams; s++) {
			p->aggregate = false;
			p->x = whole;
			p->x.nstreams = 1;
			p->x.streams[0] = whole.streams[s];
			p->x.src = whole.streams[s].src;
			p->x.dst = whole.streams[s].dst;
			p->x.gbps = whole.streams[s].gbps;
			p->x.gbps_min = p->x.gbps_max = NAN;
			p->x.ci_lo_gbps = p->x.ci_hi_gbps = p->x.ci_half_width_pct = NAN;
			p->x.theoretical = -1.0;
			if (!push(&v, &n, &cap, p))
				break;
		}
	}
	free(p);
	*out = v;
	return n;
}

void nbw_vc_where(const struct nbw_vc_path *v, char *buf, size_t len)
{
	if (!v->aggregate)
		snprintf(buf, len, "%d->%d", v->x.src, v->x.dst);
	else if (strcmp(v->x.direction, "htod") == 0)
		snprintf(buf, len, "host->all");
	else if (strcmp(v->x.direction, "dtoh") == 0)
		snprintf(buf, len, "all->host");
	else
		snprintf(buf, len, "aggregate");
}
