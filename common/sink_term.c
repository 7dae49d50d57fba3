/* SPDX-License-Identifier: BSD-3-Clause */
/* The terminal sink (include/nodebw/sink.h): a table per series, one row per size. */
#include <stdlib.h>
#include <string.h>

#include "nodebw/backends.h"
#include "nodebw/sink.h"

struct term {
	struct nbw_sink sink;      /* first: the sink is the struct */
	FILE *f;
	bool no_offload;
	bool banner;               /* printed */
	double res_s;
};

/* The banner waits for the first thing worth saying: a usage error prints nothing. */
static void banner(struct term *t)
{
	if (t->banner)
		return;
	t->banner = true;
	if (t->no_offload)
		fprintf(t->f, "nodebw: %s\n", NBW_NO_OFFLOAD_REASON);
	fprintf(t->f, "nodebw probes; bandwidth in GB/s = 1e9 B/s; timer resolution %.0f ns\n",
		t->res_s * 1e9);
}

static void t_begin(struct nbw_sink *s, double res)
{
	((struct term *)s)->res_s = res;
}

static void t_backend(struct nbw_sink *s, const char *api, int ndev, const struct nbw_device *d)
{
	struct term *t = (struct term *)s;
	banner(t);
	fprintf(t->f, "\n%s: %d device%s", api, ndev, ndev == 1 ? "" : "s");
	for (int i = 0; i < ndev; i++)
		fprintf(t->f, "%s %d = %s", i ? ";" : ":", i, d[i].name);
	fprintf(t->f, "\n");
}

static void endpoints(const int *dev, unsigned n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(buf);
		if (dev[i] < 0)
			snprintf(buf + l, len - l, "%shost", i ? "+" : "");
		else
			snprintf(buf + l, len - l, "%s%d", i ? "+" : "", dev[i]);
	}
}

/* One device or one pair of many at the two matrix sizes: the matrices at the end show it.
 * All-at-once and ring sets are one per series: always shown. */
static bool quiet_set(const struct nbw_plan_set *set)
{
	return set->matrix_only && set->conc != NBW_CONC_ALL && set->conc != NBW_CONC_RING;
}

static void t_series(struct nbw_sink *s, const struct nbw_series_info *si)
{
	struct term *t = (struct term *)s;
	const struct nbw_series_plan *p = si->plan;
	if (quiet_set(&p->set))
		return;
	banner(t);
	char a[NBW_MAX_STREAMS * 6], b[NBW_MAX_STREAMS * 6];
	bool one_host = true;
	for (unsigned i = 0; i < p->set.nstreams; i++)
		one_host = one_host && (p->kind->dir == NBW_HTOD ? p->set.src[i] : p->set.dst[i]) < 0;
	endpoints(p->set.src, p->kind->dir == NBW_HTOD && one_host ? 1 : p->set.nstreams, a,
		  sizeof(a));
	endpoints(p->set.dst, p->kind->dir == NBW_DTOH && one_host ? 1 : p->set.nstreams, b,
		  sizeof(b));
	fprintf(t->f, "\n%s-%s  mode %s  host memory %s%s%s  %s  (%s -> %s)\n  interface: %s\n",
		si->api, nbw_dir_name(p->kind->dir), nbw_mode_name(p->mode),
		nbw_hostmem_name(p->mem), p->peer == NBW_PEER_NA ? "" : "  peer access ",
		p->peer == NBW_PEER_NA ? "" : nbw_peer_name(p->peer), p->kind->label, a, b,
		p->interface);
	if (si->sched[0])
		fprintf(t->f, "  sched: %s (%s)\n", si->sched, si->sched_note);
	fprintf(t->f, "  %12s %6s %12s %10s %10s %7s %12s %8s%s\n", "size", "reps", "median GB/s",
		"min GB/s", "max GB/s", "CV", "median us", "verified",
		p->set.nstreams > 1 ? "  overlap (serial/concurrent)" : "");
}

static void t_measurement(struct nbw_sink *s, const struct nbw_series_info *si,
			  const struct nbw_measurement *m)
{
	struct term *t = (struct term *)s;
	if (quiet_set(&si->plan->set))
		return;
	char lab[32];
	nbw_size_label(m->bytes, lab, sizeof(lab));
	if (m->error[0]) {
		fprintf(t->f, "  %12s  error: %s\n", lab, m->error);
		return;
	}
	fprintf(t->f, "  %12s %6u %12.3f %10.3f %10.3f %7.3f %12.2f %8s", lab, m->reps,
		m->gbps.median, m->gbps.min, m->gbps.max, m->gbps.cv, m->seconds.median * 1e6,
		m->verify_status);
	if (m->has_overlap)
		fprintf(t->f, "  %.2fx %s", m->overlap_speedup, m->overlap_verdict);
	fprintf(t->f, "\n");
	fflush(t->f);
}

static void t_skip(struct nbw_sink *s, const char *api, const char *probe, const char *what,
		   const char *reason)
{
	struct term *t = (struct term *)s;
	banner(t);
	fprintf(t->f, "\n%s %s: skipped: %s\n", strcmp(probe, "*") ? probe : api, what, reason);
}

struct nbw_sink *nbw_sink_terminal(FILE *f, bool no_offload)
{
	struct term *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->f = f;
	t->no_offload = no_offload;
	t->sink = (struct nbw_sink){ .begin = t_begin, .backend = t_backend, .series = t_series,
				     .measurement = t_measurement, .skip = t_skip };
	return &t->sink;
}

void nbw_sink_terminal_free(struct nbw_sink *s)
{
	free(s); /* the sink is the first member of its struct */
}
