/* SPDX-License-Identifier: BSD-3-Clause */
/* The terminal sink (include/nodebw/sink.h): one line per series, or (verbose) a table per
 * series with one row per size; the progress of each API's series with an estimate of the
 * time left. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/backends.h"
#include "nodebw/runner.h"
#include "nodebw/sizes.h"
#include "nodebw/sink.h"

/* What one series' line says, gathered from its measurements. */
struct line {
	char head[200];
	unsigned sizes, verified, errors, converged;
	char first_error[120];
	double small_b, small_us, large_b, large_gbps, best_gbps, best_b;
	double cmp_gbps;           /* at the comparison size; NaN when not measured there */
	bool has_ov;
	double ov, ov_lo, ov_hi;
	char ov_verdict[16];
};

struct term {
	struct nbw_sink sink;      /* first: the sink is the struct */
	FILE *f;
	struct nbw_term_opts o;
	bool banner;               /* printed */
	double res_s;
	double t_api;              /* start of the current API's series */
	double t_progress;         /* last progress line on o.progress */
	struct line l;
};

/* The banner waits for the first thing worth saying: a usage error prints nothing. */
static void banner(struct term *t)
{
	if (t->banner)
		return;
	t->banner = true;
	if (t->o.no_offload)
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
	t->t_api = nbw_now();
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
	return set->matrix_only && set->conc != NBW_CONC_ALL && set->conc != NBW_CONC_RING &&
	       set->conc != NBW_CONC_A2A;
}

/* "omp-htod sync pageable, two devices, two host threads at once (host -> 0+1)" */
static void series_name(const struct nbw_series_info *si, bool wide, char *out, size_t len)
{
	const struct nbw_series_plan *p = si->plan;
	char a[NBW_MAX_STREAMS * 6], b[NBW_MAX_STREAMS * 6];
	bool one_host = true;
	for (unsigned i = 0; i < p->set.nstreams; i++)
		one_host = one_host && (p->kind->dir == NBW_HTOD ? p->set.src[i] : p->set.dst[i]) < 0;
	endpoints(p->set.src, p->kind->dir == NBW_HTOD && one_host ? 1 : p->set.nstreams, a,
		  sizeof(a));
	endpoints(p->set.dst, p->kind->dir == NBW_DTOH && one_host ? 1 : p->set.nstreams, b,
		  sizeof(b));
	if (p->set.conc == NBW_CONC_A2A) {
		/* Every ordered pair: the devices once each, "0+1+2+3->each other". */
		int d[NBW_MAX_STREAMS];
		unsigned nd = 0;
		for (unsigned i = 0; i < p->set.nstreams; i++) {
			unsigned k = 0;
			while (k < nd && d[k] != p->set.src[i])
				k++;
			if (k == nd)
				d[nd++] = p->set.src[i];
		}
		endpoints(d, nd, a, sizeof(a));
		snprintf(b, sizeof(b), "each other (all-to-all)");
	}
	bool peer = p->peer != NBW_PEER_NA;
	if (wide)
		snprintf(out, len, "%s-%s  mode %s  host memory %s%s%s  %s  (%s -> %s)", si->api,
			 nbw_dir_name(p->kind->dir), nbw_mode_name(p->mode),
			 nbw_hostmem_name(p->mem), peer ? "  peer access " : "",
			 peer ? nbw_peer_name(p->peer) : "", p->kind->label, a, b);
	else
		snprintf(out, len, "%s-%s %s %s%s%s %s->%s", si->api, nbw_dir_name(p->kind->dir),
			 nbw_mode_name(p->mode), nbw_hostmem_name(p->mem), peer ? " peer " : "",
			 peer ? nbw_peer_name(p->peer) : "", a, b);
}

static void t_series(struct nbw_sink *s, const struct nbw_series_info *si)
{
	struct term *t = (struct term *)s;
	const struct nbw_series_plan *p = si->plan;
	if (quiet_set(&p->set))
		return;
	banner(t);
	if (!t->o.verbose) {
		memset(&t->l, 0, sizeof(t->l));
		t->l.cmp_gbps = NAN;
		series_name(si, false, t->l.head, sizeof(t->l.head));
		if (si->sched[0]) {
			size_t n = strlen(t->l.head);
			snprintf(t->l.head + n, sizeof(t->l.head) - n, " (sched %s)", si->sched);
		}
		return;
	}
	char name[300];
	series_name(si, true, name, sizeof(name));
	fprintf(t->f, "\n%s\n  interface: %s\n", name, p->interface);
	if (si->sched[0])
		fprintf(t->f, "  sched: %s (%s)\n", si->sched, si->sched_note);
	fprintf(t->f, "  %12s %6s %12s %15s %10s %10s %7s %12s %8s%s\n", "size", "reps",
		"median GB/s", "95% interval", "min GB/s", "max GB/s", "CV", "median us",
		"verified", p->set.nstreams > 1 ? "  overlap (serial/concurrent)" : "");
}

static void gather(struct line *l, const struct nbw_measurement *m, uint64_t cmp_bytes)
{
	l->sizes++;
	if (m->error[0]) {
		if (!l->errors++)
			snprintf(l->first_error, sizeof(l->first_error), "%s", m->error);
		return;
	}
	l->verified += strcmp(m->verify_status, "passed") == 0;
	l->converged += m->stop[0] && m->converged;
	double b = (double)m->bytes;
	if (l->small_b == 0 || b < l->small_b) {
		l->small_b = b;
		l->small_us = m->seconds.median * 1e6;
	}
	if (cmp_bytes && m->bytes == cmp_bytes)
		l->cmp_gbps = m->gbps.median;
	if (b >= l->large_b) {
		l->large_b = b;
		l->large_gbps = m->gbps.median;
		l->has_ov = m->has_overlap;
		l->ov = m->overlap_speedup;
		l->ov_lo = m->overlap_lo;
		l->ov_hi = m->overlap_hi;
		snprintf(l->ov_verdict, sizeof(l->ov_verdict), "%s", m->overlap_verdict);
	}
	if (m->gbps.median > l->best_gbps) {
		l->best_gbps = m->gbps.median;
		l->best_b = b;
	}
}

static void eta(const struct term *t, const struct nbw_series_info *si, char *out, size_t len);

static void t_measurement(struct nbw_sink *s, const struct nbw_series_info *si,
			  const struct nbw_measurement *m)
{
	struct term *t = (struct term *)s;
	if (quiet_set(&si->plan->set))
		return;
	if (!t->o.verbose && si->plan->face.on) {
		char pre[96] = "", e[64];
		if (!t->o.progress) {
			eta(t, si, e, sizeof(e));
			snprintf(pre, sizeof(pre), "[%s; %u/%u] ", e, si->index, si->total);
		}
		nbw_sink_face_line(t->f, pre, si, m);
		return;
	}
	if (!t->o.verbose) {
		gather(&t->l, m, t->o.cmp_bytes);
		return;
	}
	char lab[32];
	nbw_size_label(m->bytes, lab, sizeof(lab));
	if (m->error[0]) {
		fprintf(t->f, "  %12s  error: %s\n", lab, m->error);
		return;
	}
	/* The median's 95 % interval as +- % of it; "n.c." where the repetitions stopped
	 * before it was within +-1 % (not converged). */
	char ci[32] = "-";
	if (m->ci.n && isfinite(m->ci.half_width))
		snprintf(ci, sizeof(ci), "+-%.1f %%%s", 100.0 * m->ci.half_width,
			 m->stop[0] && !m->converged ? " n.c." : "");
	fprintf(t->f, "  %12s %6u %12.3f %15s %10.3f %10.3f %7.3f %12.2f %8s", lab, m->reps,
		m->gbps.median, ci, m->gbps.min, m->gbps.max, m->gbps.cv, m->seconds.median * 1e6,
		m->verify_status);
	if (m->has_overlap)
		fprintf(t->f, "  %.2fx %s", m->overlap_speedup, m->overlap_verdict);
	fprintf(t->f, "\n");
	fflush(t->f);
}

/* "12.3 s, about 40 s left" for the API's series so far. */
static void eta(const struct term *t, const struct nbw_series_info *si, char *out, size_t len)
{
	double now = nbw_now(), spent = now - t->t_api;
	double left = si->index ? spent / si->index * (double)(si->total - si->index) : 0.0;
	snprintf(out, len, "%.1f s, %s%.0f s left", now - t->o.t0,
		 si->index < si->total ? "about " : "", left);
}

static void one_line(struct term *t, const struct nbw_series_info *si)
{
	const struct line *l = &t->l;
	char sm[32], lg[32], bs[32], pre[96] = "", ov[96] = "";
	nbw_size_label((uint64_t)l->small_b, sm, sizeof(sm));
	nbw_size_label((uint64_t)l->large_b, lg, sizeof(lg));
	nbw_size_label((uint64_t)l->best_b, bs, sizeof(bs));
	if (!t->o.progress) {
		char e[64];
		eta(t, si, e, sizeof(e));
		snprintf(pre, sizeof(pre), "[%s; %u/%u] ", e, si->index, si->total);
	}
	if (l->has_ov) {
		if (strcmp(l->ov_verdict, "noisy") == 0 || strcmp(l->ov_verdict, "unclear") == 0)
			snprintf(ov, sizeof(ov), "; overlap not judged (%.2f-%.2fx: %s)", l->ov_lo,
				 l->ov_hi, l->ov_verdict);
		else
			snprintf(ov, sizeof(ov), "; overlap %.2fx %s", l->ov, l->ov_verdict);
	}
	if (l->verified + l->errors == 0 && l->sizes == 0) {
		fprintf(t->f, "%s%s: nothing measured\n", pre, l->head);
	} else if (l->errors == l->sizes) {
		fprintf(t->f, "%s%s: %u sizes, every one failed (%s)\n", pre, l->head, l->sizes,
			l->first_error);
	} else {
		/* A series swept beyond the comparison size: its figure there first (the one
		 * every output compares), the sweep's end after it. */
		char cs[32];
		bool beyond = isfinite(l->cmp_gbps) && l->large_b > (double)t->o.cmp_bytes;
		nbw_size_label(t->o.cmp_bytes, cs, sizeof(cs));
		fprintf(t->f, l->small_us >= 100 ? "%s%s: %s %.0f us, %s %.2f GB/s"
						 : "%s%s: %s %.3g us, %s %.2f GB/s",
			pre, l->head, sm, l->small_us, beyond ? cs : lg,
			beyond ? l->cmp_gbps : l->large_gbps);
		if (beyond)
			fprintf(t->f, " (sweep to %s: %.2f GB/s)", lg, l->large_gbps);
		if (l->best_gbps > 1.1 * l->large_gbps)
			fprintf(t->f, " (best %.2f at %s)", l->best_gbps, bs);
		fprintf(t->f, "; %u/%u verified; %u/%u within +-1 %%%s", l->verified, l->sizes,
			l->converged, l->sizes, ov);
		if (l->errors)
			fprintf(t->f, "; %u failed: %s", l->errors, l->first_error);
		fprintf(t->f, "\n");
	}
	fflush(t->f);
}

static void t_series_end(struct nbw_sink *s, const struct nbw_series_info *si)
{
	struct term *t = (struct term *)s;
	if (!quiet_set(&si->plan->set) && !t->o.verbose && !si->plan->face.on)
		one_line(t, si);
	double now = nbw_now();
	if (t->o.progress && (now - t->t_progress >= 2.0 || si->index == si->total)) {
		char e[64];
		eta(t, si, e, sizeof(e));
		fprintf(t->o.progress, "[%s %s] %s probes: %u/%u series\n",
			t->o.label ? t->o.label : "nodebw", e, si->api, si->index, si->total);
		fflush(t->o.progress);
		t->t_progress = now;
	}
}

static void t_skip(struct nbw_sink *s, const char *api, const char *probe, const char *what,
		   const char *reason, bool by_design)
{
	(void)by_design; /* listed alike: the run's status line tells them apart */
	struct term *t = (struct term *)s;
	banner(t);
	fprintf(t->f, "\n%s %s: skipped: %s\n", strcmp(probe, "*") ? probe : api, what, reason);
}

struct nbw_sink *nbw_sink_terminal(FILE *f, const struct nbw_term_opts *opts)
{
	struct term *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->f = f;
	t->o = *opts;
	t->t_api = nbw_now();
	t->sink = (struct nbw_sink){ .begin = t_begin, .backend = t_backend, .series = t_series,
				     .measurement = t_measurement, .series_end = t_series_end,
				     .skip = t_skip };
	return &t->sink;
}

void nbw_sink_terminal_free(struct nbw_sink *s)
{
	free(s); /* the sink is the first member of its struct */
}
