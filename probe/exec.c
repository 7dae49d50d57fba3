/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The executor: one planned series over its sizes. For every size it
 *   1. allocates the buffers of each stream (one stream = one host thread's copies),
 *   2. fills the source with a seeded pattern (untimed),
 *   3. runs the warm-up transfers, chooses the fewest repetitions from their duration,
 *   4. with several streams, times each stream alone first (the single-device reference),
 *   5. poisons the destination again, so only the timed repetitions can produce the pattern,
 *   6. times the repetitions (all streams released together by a barrier, or by the
 *      backend's gate); after each, stream 0 decides between barriers whether another one
 *      follows: on until the confidence interval of the median wall time is within
 *      +-NBW_CI_TARGET, the size's time cap or --max-reps (a fixed count with --reps);
 *      between barriers, untimed, it checks every byte of the destination after each
 *      verified repetition (every one up to NBW_VERIFY_EVERY_MAX_BYTES, else the first and
 *      the last: the decision names the last before it runs) and poisons it again before
 *      the next verified one,
 *   7. records which repetitions were checked and the first that failed,
 *   8. hands the measurement to the caller.
 * An allocation or API failure is recorded on that size and the sweep goes on.
 */
#include "exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "nodebw/hugepage.h"
#include "nodebw/chase.h"
#include "nodebw/runner.h"
#include "nodebw/stats.h"
#include "nodebw/sysinfo.h"

#define DIR(s) ((s)->plan->kind->dir)
#define NSTREAMS(s) ((s)->plan->set.nstreams)

struct worker_arg {
	struct nbw_point *p;
	unsigned me;
};

static void stream_error(struct nbw_point *p, struct nbw_stream_state *ss, const char *what)
{
	const char *detail = p->s->ops->last_error(p->s->be);
	snprintf(ss->err, sizeof(ss->err), "%s: %s", what, detail && *detail ? detail : "failed");
	p->failed = 1;
}

enum nbw_loc nbw_exec_host_loc(enum nbw_hostmem m)
{
	return m == NBW_HOSTMEM_PINNED	       ? NBW_LOC_HOST_PINNED
	       : m == NBW_HOSTMEM_REGISTERED ? NBW_LOC_HOST_REGISTERED
	       : m == NBW_HOSTMEM_HUGEPAGE   ? NBW_LOC_HOST_HUGEPAGE
					     : NBW_LOC_HOST_PAGEABLE;
}

/* Write a pattern (or poison) into a buffer wherever it lives. */
static int buf_set(struct nbw_point *p, struct nbw_buf *b, uint64_t seed, bool poison,
		   void *scratch)
{
	void *target = b->loc == NBW_LOC_DEVICE ? scratch : b->ptr;
	if (poison)
		memset(target, 0xA5, b->bytes);
	else
		nbw_pattern_fill(target, b->bytes, seed);
	if (b->loc == NBW_LOC_DEVICE)
		return p->s->ops->write(p->s->be, b, scratch, b->bytes);
	return 0;
}

static void stream_endpoints(const struct nbw_exec *s, unsigned me, size_t bytes,
			     struct nbw_buf *src, struct nbw_buf *dst)
{
	int sdev = s->plan->set.src[me], ddev = s->plan->set.dst[me];
	int pin_dev = sdev >= 0 ? sdev : ddev;
	enum nbw_hostmem mem = s->plan->mem;
	/* Page-locked memory belongs to the device it is for; pageable memory to nobody. */
	int host_dev = mem == NBW_HOSTMEM_PINNED || mem == NBW_HOSTMEM_REGISTERED ||
				       mem == NBW_HOSTMEM_HUGEPAGE
			       ? pin_dev
			       : -1;
	*src = (struct nbw_buf){ .loc = sdev >= 0 ? NBW_LOC_DEVICE : nbw_exec_host_loc(mem),
				 .device = sdev >= 0 ? sdev : host_dev, .bytes = bytes };
	*dst = (struct nbw_buf){ .loc = ddev >= 0 ? NBW_LOC_DEVICE : nbw_exec_host_loc(mem),
				 .device = ddev >= 0 ? ddev : host_dev, .bytes = bytes };
}

static int setup_stream(struct nbw_point *p, unsigned me)
{
	struct nbw_exec *s = p->s;
	struct nbw_stream_state *ss = &p->st[me];
	if (s->cache[me].have && s->cache[me].src.bytes >= p->bytes) {
		ss->src = s->cache[me].src;
		ss->dst = s->cache[me].dst;
		ss->src.bytes = ss->dst.bytes = p->bytes;
		ss->scratch = s->cache[me].scratch.ptr;
		ss->cached = true;
	} else {
		/* Fallback when the largest size did not fit: allocate this size directly (the
		 * pool is filled from the main thread only; the workers run here at once). */
		stream_endpoints(s, me, p->bytes, &ss->src, &ss->dst);
		ss->scratch = malloc(p->bytes);
		if (!ss->scratch) {
			char limit[160];
			nbw_sysinfo_mem_room(0, limit, sizeof(limit));
			snprintf(ss->err, sizeof(ss->err),
				 "allocation of the host check buffer (%zu bytes) failed: out of memory "
				 "(the binding limit: %s)",
				 p->bytes, limit);
			p->failed = 1;
			return -1;
		}
		if (s->ops->alloc(s->be, &ss->src)) {
			stream_error(p, ss, "source allocation");
			return -1;
		}
		ss->src_ok = true;
		if (s->ops->alloc(s->be, &ss->dst)) {
			stream_error(p, ss, "destination allocation");
			return -1;
		}
		ss->dst_ok = true;
	}
	bool chase = s->plan->mode == NBW_MODE_CHASE;
	if (!chase && buf_set(p, &ss->src, p->seed + me, false, ss->scratch)) {
		stream_error(p, ss, "buffer initialisation");
		return -1;
	}
	ss->x = (struct nbw_xfer){ .dir = DIR(s), .mode = s->plan->mode, .src = &ss->src,
				   .dst = &ss->dst, .bytes = p->bytes, .peer = s->plan->peer,
				   .device_s = -1.0 };
	/* A chase's source is the chain instead of the pattern (exec_chase.c). */
	if (chase && nbw_chase_setup(p, me))
		return -1;
	if (s->plan->face.on && nbw_face_setup(p, me))
		return -1;
	if (s->ops->prepare && s->ops->prepare(s->be, &ss->x)) {
		stream_error(p, ss, "prepare");
		return -1;
	}
	ss->prepared = true;
	return 0;
}

static void cache_free(struct nbw_exec *s)
{
	for (unsigned i = 0; i < NBW_MAX_STREAMS; i++) {
		struct nbw_buf *b[] = { &s->cache[i].src, &s->cache[i].dst, &s->cache[i].scratch };
		for (unsigned k = 0; k < 3; k++)
			if (b[k]->ptr)
				nbw_bufpool_put(s->pool, b[k]);
		memset(&s->cache[i], 0, sizeof(s->cache[i]));
	}
}

static bool can_bind(const struct nbw_exec *s)
{
	return s->topo && !nbw_topo_is_fixture(s->topo);
}

static void cache_alloc(struct nbw_exec *s, size_t largest)
{
	char why[NBW_REASON_LEN];
	for (unsigned i = 0; i < NSTREAMS(s); i++) {
		/* Allocate (and first-touch) each stream's buffers from its own NUMA node. */
		if (can_bind(s))
			nbw_topo_bind_thread(s->topo, s->node[i], why, sizeof(why));
		stream_endpoints(s, i, largest, &s->cache[i].src, &s->cache[i].dst);
		s->cache[i].scratch = (struct nbw_buf){ .loc = NBW_LOC_HOST_PAGEABLE,
							.device = -1, .bytes = largest };
		if (nbw_bufpool_get(s->pool, &s->cache[i].src) ||
		    nbw_bufpool_get(s->pool, &s->cache[i].dst) ||
		    nbw_bufpool_get(s->pool, &s->cache[i].scratch)) {
			cache_free(s);
			return;
		}
		s->cache[i].have = true;
		/* Pageable memory may come back from the pool: move it where it belongs. Page-
		 * locked memory stays where its allocation put it (this thread's node). */
		struct nbw_buf *hb[] = { &s->cache[i].src, &s->cache[i].dst };
		for (unsigned k = 0; can_bind(s) && s->node[i] >= 0 && k < 2; k++)
			if (hb[k]->loc == NBW_LOC_HOST_PAGEABLE)
				nbw_topo_bind_area(s->topo, hb[k]->ptr, hb[k]->bytes, s->node[i], why,
						   sizeof(why));
	}
	if (can_bind(s))
		nbw_topo_bind_thread(s->topo, -1, why, sizeof(why));
}

static int timed(struct nbw_point *p, struct nbw_stream_state *ss, double *t0, double *t1)
{
	ss->x.device_s = -1.0;
	*t0 = nbw_now();
	int rc = p->s->plan->face.on ? nbw_face_copy(p, ss) : p->s->ops->transfer(p->s->be, &ss->x);
	*t1 = nbw_now();
	if (rc)
		stream_error(p, ss, "transfer");
	return rc;
}

/* An exchange step as the application issues it (s->grouped): stream 0 hands every
 * stream's message to the backend's exchange() at once and gives each stream the step's
 * times; the other streams wait at the barrier that follows. 0, or -1. */
static int grouped_step(struct nbw_point *p, unsigned me, double *t0, double *t1)
{
	if (me != 0)
		return 0;
	struct nbw_exchange_msg m[NBW_MAX_STREAMS];
	unsigned ns = NSTREAMS(p->s);
	for (unsigned i = 0; i < ns; i++)
		nbw_face_msg(p, i, &m[i]);
	const struct nbw_face_plan *fp = &p->s->plan->face;
	unsigned fields = fp->fields > 1 ? (unsigned)fp->fields : 1u;
	*t0 = nbw_now();
	int rc = p->s->ops->exchange(p->s->be, m, ns, fields, p->s->plan->mode);
	*t1 = nbw_now();
	if (rc)
		stream_error(p, &p->st[0], "exchange step");
	return rc;
}

static void grouped_rep(struct nbw_point *p, unsigned me, unsigned r)
{
	double a, b;
	if (me != 0 || p->failed || grouped_step(p, me, &a, &b))
		return;
	for (unsigned i = 0; i < NSTREAMS(p->s); i++) {
		struct nbw_stream_state *ss = &p->st[i];
		ss->t0[r] = a;
		ss->t1[r] = b;
		ss->samples[r] = b - a;
		ss->dev[r] = -1.0;
	}
}

/* The first failure is the one named; "repetition r of n: " goes in front once the count is
 * known (verify_summary). */
static void verify_failed(struct nbw_stream_state *ss, unsigned r, const char *what,
			  const char *detail, size_t at)
{
	if (ss->bad_rep)
		return;
	ss->bad_rep = r + 1;
	snprintf(ss->verify_status, sizeof(ss->verify_status), "failed");
	if (detail)
		snprintf(ss->verify_detail, sizeof(ss->verify_detail), "%s: %s", what, detail);
	else
		snprintf(ss->verify_detail, sizeof(ss->verify_detail), "%s at byte %zu", what, at);
}

/* Poison the destination before a checked repetition, untimed: every byte, or a chase's
 * final-index word. 0, or -1. */
static int poison_dst(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	if (p->s->plan->mode == NBW_MODE_CHASE)
		return nbw_chase_poison(p, me);
	return buf_set(p, &ss->dst, 0, true, ss->scratch);
}

/* Check the destination after repetition \p r (0-based), untimed. */
static void verify_rep(struct nbw_point *p, unsigned me, unsigned r)
{
	struct nbw_stream_state *ss = &p->st[me];
	const void *data = ss->dst.ptr;
	if (p->s->plan->mode == NBW_MODE_CHASE) {
		nbw_chase_verify(p, me, r);
		return;
	}
	if (p->s->plan->face.on) {
		char what[48];
		size_t at = 0;
		if (nbw_face_check(p, me, what, sizeof(what), &at) == 0)
			ss->verified++;
		else if (what[0])
			verify_failed(ss, r, what, NULL, at);
		else
			verify_failed(ss, r, "could not read the destination back",
				      p->s->ops->last_error(p->s->be), 0);
		return;
	}
	if (ss->dst.loc == NBW_LOC_DEVICE) {
		if (p->s->ops->read(p->s->be, ss->scratch, &ss->dst, p->bytes)) {
			verify_failed(ss, r, "could not read the destination back",
				      p->s->ops->last_error(p->s->be), 0);
			return;
		}
		data = ss->scratch;
	}
	size_t bad = nbw_pattern_check(data, p->bytes, p->seed + me);
	if (bad == p->bytes)
		ss->verified++;
	else
		verify_failed(ss, r, "destination differs from the source pattern", NULL, bad);
}

/* After the timed repetitions: passed when every checked repetition matched; a failure
 * named with its repetition of the final count. */
static void verify_summary(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	if (p->s->plan->mode == NBW_MODE_CHASE) {
		nbw_chase_summary(p, me);
		return;
	}
	if (ss->bad_rep) {
		char what[sizeof(ss->verify_detail)];
		snprintf(what, sizeof(what), "%s", ss->verify_detail);
		snprintf(ss->verify_detail, sizeof(ss->verify_detail), "repetition %u of %u: %s",
			 ss->bad_rep, p->reps, what);
		return;
	}
	if (!ss->verified)
		return;
	char list[sizeof(((struct nbw_measurement *)0)->verify_reps)];
	nbw_repcheck_list(p->vmask, p->reps, list, sizeof(list));
	snprintf(ss->verify_status, sizeof(ss->verify_status), "passed");
	if (p->s->plan->face.on) {
		uint64_t fb = nbw_region_bytes(&ss->region);
		snprintf(ss->verify_detail, sizeof(ss->verify_detail),
			 "the face's %llu bytes equal the source's, the other %llu destination "
			 "bytes untouched, after repetitions %s",
			 (unsigned long long)fb, (unsigned long long)(p->bytes - fb), list);
		return;
	}
	snprintf(ss->verify_detail, sizeof(ss->verify_detail),
		 "all %zu destination bytes equal the source pattern after repetitions %s",
		 p->bytes, list);
}

/* One repetition of a gated start: every stream enqueues its copy behind the backend's closed
 * gate, one thread opens it, each waits for its own copy. The start time of every stream is
 * the moment the gate opened (filled in by gated_times). */
static void gated_rep(struct nbw_point *p, unsigned me, unsigned r)
{
	struct nbw_stream_state *ss = &p->st[me];
	const struct nbw_backend_ops *ops = p->s->ops;
	ss->x.device_s = -1.0;
	/* After a failure nothing is submitted, but the barrier and the release still happen:
	 * a stream that had not seen the failure yet may be waiting on the gate. */
	int rc = p->failed ? -1 : ops->submit(p->s->be, &ss->x);
	if (rc && !p->failed)
		stream_error(p, ss, "submit");
	pthread_barrier_wait(&p->bar);
	if (me == 0) {
		/* Opened even when a stream failed: the others' copies are waiting on it. */
		if (p->t_release)
			p->t_release[r] = nbw_now();
		if (ops->release(p->s->be))
			stream_error(p, ss, "gate release");
	}
	if (rc == 0) {
		if (ops->complete(p->s->be, &ss->x)) {
			stream_error(p, ss, "complete");
		} else {
			ss->t1[r] = nbw_now();
			ss->dev[r] = ss->x.device_s;
		}
	}
}

static void gated_times(struct nbw_point *p, struct nbw_stream_state *ss)
{
	for (unsigned r = 0; r < p->reps; r++) {
		ss->t0[r] = p->t_release[r];
		ss->samples[r] = ss->t1[r] - ss->t0[r];
	}
}

/* Where the pages of this stream's host buffer actually are (outside the timed region). */
static void host_placement(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	const struct nbw_buf *h = ss->src.loc != NBW_LOC_DEVICE   ? &ss->src
				  : ss->dst.loc != NBW_LOC_DEVICE ? &ss->dst
								  : NULL;
	struct nbw_page_placement pl;
	char why[NBW_REASON_LEN];
	ss->placement[0] = ss->huge[0] = '\0';
	if (!h || !h->ptr)
		return;
	if (h->loc == NBW_LOC_HOST_HUGEPAGE)
		nbw_hugepage_given(h->ptr, p->bytes, ss->huge, sizeof(ss->huge));
	if (nbw_page_placement(h->ptr, p->bytes, &pl, why, sizeof(why)) == 0)
		nbw_page_placement_format(&pl, ss->placement, sizeof(ss->placement));
	else
		snprintf(ss->placement, sizeof(ss->placement), "unknown: %.50s", why);
}

/* Checks added where the interval was met on an unchecked repetition (the one after it is
 * checked, and the decision taken again): at most this many, so that the list of checked
 * repetitions stays short; after them only the cap or --max-reps ends such a size. */
#define NBW_EXTRA_CHECKS_MAX 4

/* Room for \p want repetitions in every per-repetition array (stream 0, between barriers:
 * the other streams touch them only in their timed part). 0, or -1 when memory ran out
 * (the arrays keep their old room). */
static int grow(struct nbw_point *p, unsigned want)
{
	unsigned ns = NSTREAMS(p->s);
	if (want <= p->room)
		return 0;
	double **arrays[4 * NBW_MAX_STREAMS + 2];
	size_t na = 0;
	for (unsigned i = 0; i < ns; i++) {
		arrays[na++] = &p->st[i].samples;
		arrays[na++] = &p->st[i].t0;
		arrays[na++] = &p->st[i].t1;
		arrays[na++] = &p->st[i].dev;
	}
	arrays[na++] = &p->sorted;
	if (p->gated)
		arrays[na++] = &p->t_release;
	for (size_t a = 0; a < na; a++) {
		double *v = realloc(*arrays[a], want * sizeof(double));
		if (!v)
			return -1;
		memset(v + p->room, 0, (want - p->room) * sizeof(double));
		*arrays[a] = v;
	}
	unsigned char *m = realloc(p->vmask, want);
	if (!m)
		return -1;
	memset(m + p->room, 0, want - p->room);
	p->vmask = m;
	p->room = want;
	return 0;
}

/* After the warm-up, on stream 0: the repetition counts and the sample arrays. */
static void plan_repetitions(struct nbw_point *p)
{
	const struct nbw_probe_opts *o = p->s->o;
	unsigned ns = NSTREAMS(p->s);
	double longest = 0.0;
	for (unsigned i = 0; i < ns; i++)
		longest = fmax(longest, p->st[i].warm_s);
	/* --reps: exactly that count (o->min_reps; the label "fixed --reps" says so). Otherwise
	 * the profile's minimum is the fewest, and the interval of the median decides how many
	 * more (once --min-time has passed), up to --max-reps or the size's time cap. */
	p->adaptive = !o->reps_given;
	p->reps = p->adaptive ? (unsigned)fmin(o->min_reps, o->max_reps) : o->min_reps;
	/* The size's time cap: where min_reps slow copies would pass it, fewer (at least 3,
	 * never below a --reps given). */
	if (p->adaptive && o->max_time_s > 0.0 && longest > 0.0 &&
	    p->reps * longest > o->max_time_s)
		p->reps = (unsigned)fmin(p->reps, fmax(3.0, floor(o->max_time_s / longest)));
	p->planned = p->reps;
	p->cap_reps = p->adaptive ? (unsigned)fmax(o->max_reps, p->planned) : p->planned;
	/* Each stream alone: once in the quick profile (a rough overlap reference), else as
	 * often as the concurrent timing, at most the profile's minimum. */
	p->alone_reps = o->profile == NBW_PROFILE_QUICK ? 1 : (unsigned)fmin(p->reps, o->min_reps);
	/* ... and all streams' alone copies together within the size's time cap. */
	if (ns > 1 && o->max_time_s > 0.0 && longest > 0.0)
		p->alone_reps = (unsigned)fmax(1.0, fmin(p->alone_reps,
							 floor(o->max_time_s / (ns * longest))));
	p->gated = p->s->gated;
	for (unsigned i = 0; i < ns && p->gated; i++)
		if (p->st[i].x.no_gate) {
			p->gated = false;
			snprintf(p->no_gate, sizeof(p->no_gate), "%s", p->st[i].x.no_gate);
		}
	/* Room for the fewest (at least 64 of an adaptive count); more as they come. */
	unsigned first = p->adaptive ? (unsigned)fmin(p->cap_reps, fmax(p->planned, 64.0))
				     : p->planned;
	if (grow(p, first)) {
		snprintf(p->st[0].err, sizeof(p->st[0].err), "out of memory for %u samples", first);
		p->failed = 1;
	}
	for (unsigned i = 0; i < ns && ns > 1; i++) {
		struct nbw_stream_state *ss = &p->st[i];
		ss->alone = calloc(p->alone_reps, sizeof(double));
		if (!ss->alone) {
			snprintf(ss->err, sizeof(ss->err), "out of memory for %u samples",
				 p->alone_reps);
			p->failed = 1;
		}
	}
	/* The first repetition is checked (the destination was poisoned after the warm-up). */
	p->go = !p->failed && p->planned > 0;
	if (p->vmask)
		p->vmask[0] = 1;
}

/* The wall time of repetition \p r as record.c counts it: from the earliest start (the
 * gate's opening) to the latest end over the streams. */
static double rep_wall(const struct nbw_point *p, unsigned r)
{
	double lo = INFINITY, hi = -INFINITY;
	for (unsigned i = 0; i < NSTREAMS(p->s); i++) {
		lo = fmin(lo, p->gated ? p->t_release[r] : p->st[i].t0[r]);
		hi = fmax(hi, p->st[i].t1[r]);
	}
	return hi - lo;
}

/* The interval of the median of the n wall times so far (p->sorted): converged? The
 * lower rank only grows with n, so the search goes on from the last one. */
static bool interval_met(struct nbw_point *p, unsigned n)
{
	size_t j = p->ci_j ? p->ci_j : 1;
	while (nbw_median_ci_coverage(n, j + 1) >= NBW_CI_LEVEL)
		j++;
	p->ci_j = j;
	double cov = nbw_median_ci_coverage(n, j);
	const double *v = p->sorted;
	double med = 0.5 * (v[(n - 1) / 2] + v[n / 2]);
	return nbw_ci_converged(cov, nbw_ci_half_width(med, v[j - 1], v[n - j]));
}

static void stop_here(struct nbw_point *p, unsigned n, bool converged, const char *why)
{
	p->go = false;
	p->reps = n;
	p->converged = converged;
	snprintf(p->stop, sizeof(p->stop), "%s", why);
}

/* Stream 0, between barriers, after repetition \p r (0-based) of every stream: does
 * another one follow, and is it checked? The same decision for all streams. A repetition is
 * checked when every one is (small sizes), when it is the first, or when it may be the last:
 * the next would reach --max-reps or the time cap, or the interval was met on an unchecked
 * one. The count ends only after a checked repetition, so the last one always is. */
static void decide(struct nbw_point *p, unsigned r)
{
	const struct nbw_probe_opts *o = p->s->o;
	unsigned n = r + 1;
	if (p->failed) {
		p->go = false;
		p->reps = n;
		return;
	}
	double w = rep_wall(p, r);
	/* Into the sorted wall times. */
	unsigned at = r;
	while (at > 0 && p->sorted[at - 1] > w) {
		p->sorted[at] = p->sorted[at - 1];
		at--;
	}
	p->sorted[at] = w;
	/* Asked to stop (a signal, a fleet node's time limit): end the size after a checked
	 * repetition, so that what was measured is kept, verified, and said to be cut short,
	 * instead of running out a count that can take minutes at a large size. */
	if (*p->s->stop && n >= 2) {
		if (p->vmask[r]) {
			stop_here(p, n, interval_met(p, n), NBW_STOP_INTERRUPTED);
			return;
		}
		if (n < p->room) {
			p->go = true;
			p->vmask[n] = 1;
			return;
		}
	}
	if (!p->adaptive) {
		if (n >= p->planned) {
			stop_here(p, n, interval_met(p, n), "fixed --reps");
			return;
		}
		p->go = true;
		p->vmask[n] = nbw_repcheck_planned(nbw_point_checks_every(p) ? 0 : p->bytes, n,
						   p->planned);
		return;
	}
	bool within = interval_met(p, n);
	/* What a repetition costs, checks included: from the third on (the first one's check
	 * would make a large size look slower than its unchecked repetitions are). */
	double now = nbw_now(), spent = now - p->t_loop;
	if (n == 2)
		p->t_mark = now;
	double each = n > 2 ? (now - p->t_mark) / (n - 2) : spent / n;
	bool capped = o->max_time_s > 0.0;
	char why[48];
	/* The interval may end the count once the fewest have run and --min-time has passed;
	 * a count ended by the cap or --max-reps with the interval met has converged too. */
	bool met = within && spent >= o->min_time_s;
	if (n >= p->planned) {
		bool full = n >= p->cap_reps, late = capped && spent + each > o->max_time_s;
		if ((met || (within && full)) && p->vmask[r]) {
			stop_here(p, n, true, NBW_STOP_INTERVAL);
			return;
		}
		if (full || (late && p->vmask[r])) {
			if (within)
				snprintf(why, sizeof(why), "%s", NBW_STOP_INTERVAL);
			else if (full)
				snprintf(why, sizeof(why), "max repetitions %u", p->cap_reps);
			else
				snprintf(why, sizeof(why), "time cap %g s", o->max_time_s);
			p->time_capped = !within && !full; /* the label is the cap's */
			stop_here(p, n, within, why);
			return;
		}
	}
	/* Another one: room for it (and the one after), then whether it is checked. */
	if (n + 2 > p->room && grow(p, (unsigned)fmin(p->cap_reps, 2.0 * p->room)))
		p->cap_reps = n + 1; /* no more memory: the next is the last */
	p->go = true;
	/* The next may be the last (so it is checked) only once it completes the fewest. */
	bool last = n + 1 >= p->planned &&
		    (n + 1 >= p->cap_reps || (capped && spent + 2.0 * each > o->max_time_s));
	bool recheck = met && n >= p->planned && p->extra_checks < NBW_EXTRA_CHECKS_MAX;
	if (recheck && !nbw_point_checks_every(p))
		p->extra_checks++;
	p->vmask[n] = nbw_point_checks_every(p) || last || recheck;
}

/* Minor page faults of the whole process so far (every stream thread and the runtime's
 * helper threads fault into it); -1 when getrusage fails. */
static long minor_faults(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : -1;
}

static void *stream_worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct nbw_point *p = wa->p;
	unsigned me = wa->me, ns = NSTREAMS(p->s);
	struct nbw_stream_state *ss = &p->st[me];
	const struct nbw_probe_opts *o = p->s->o;
	char why[NBW_REASON_LEN];
	if (can_bind(p->s))
		nbw_topo_bind_thread(p->s->topo, p->s->node[me], why, sizeof(why)); /* -1: all */
	setup_stream(p, me);
	/* A chase's loads per transfer, from timed transfers before the warm-up. */
	if (!p->failed && p->s->plan->mode == NBW_MODE_CHASE)
		nbw_chase_calibrate(p, me);
	pthread_barrier_wait(&p->bar);

	/* Warm-up: every stream together, as they will be timed; a profile's warm-up stops
	 * after one copy once it has taken half the size's time cap (a 1 GiB copy at 1 GB/s). */
	double warmed = 0.0;
	for (unsigned w = 0; !p->failed && w < o->warmup; w++) {
		double a = 0.0, b = 0.0;
		if ((p->s->grouped ? grouped_step(p, me, &a, &b) : timed(p, ss, &a, &b)) == 0)
			ss->warm_s = b - a;
		warmed += ss->warm_s;
		if (!o->warmup_given && o->max_time_s > 0.0 && warmed >= 0.5 * o->max_time_s)
			break;
	}
	pthread_barrier_wait(&p->bar);
	if (me == 0 && !p->failed)
		plan_repetitions(p);
	pthread_barrier_wait(&p->bar);

	/* The single-device reference of a concurrent measurement: each stream alone. */
	for (unsigned turn = 0; ns > 1 && turn < ns; turn++) {
		if (turn == me)
			for (unsigned r = 0; !p->failed && r < p->alone_reps; r++) {
				double a, b;
				if (timed(p, ss, &a, &b) == 0)
					ss->alone[r] = b - a;
			}
		pthread_barrier_wait(&p->bar);
	}

	/* Poison: only the timed repetitions below can put the pattern back. Each verified
	 * repetition is poisoned before and checked after, untimed and between barriers, so
	 * no stream checks or poisons while another's copy is timed. After every repetition
	 * stream 0 decides (between two barriers) whether another follows and whether it is
	 * checked; every stream reads that decision after the second. Every stream passes the
	 * same barriers whatever fails: a failed stream skips work, never a barrier. */
	if (!p->failed && poison_dst(p, me))
		stream_error(p, ss, "destination poisoning");
	if (me == 0) {
		p->minflt0 = minor_faults();
		p->t_loop = nbw_now();
	}
	bool release = true; /* the barrier that starts a repetition is still to pass */
	for (unsigned r = 0;; r++) {
		if (release)
			pthread_barrier_wait(&p->bar);
		if (!p->go)
			break;
		bool check = p->vmask[r];
		if (p->gated) {
			gated_rep(p, me, r);
		} else if (p->s->grouped) {
			grouped_rep(p, me, r);
		} else if (!p->failed && timed(p, ss, &ss->t0[r], &ss->t1[r]) == 0) {
			ss->samples[r] = ss->t1[r] - ss->t0[r];
			ss->dev[r] = ss->x.device_s;
		}
		pthread_barrier_wait(&p->bar);
		if (me == 0)
			decide(p, r);
		pthread_barrier_wait(&p->bar);
		bool next = p->go && p->vmask[r + 1];
		if (check && !p->failed)
			verify_rep(p, me, r);
		if (next && !p->failed && poison_dst(p, me))
			stream_error(p, ss, "destination poisoning");
		/* Nothing checked or poisoned: the decision's barrier also starts the next one. */
		release = check || next;
	}
	if (me == 0) {
		long f1 = minor_faults();
		p->faults_per_rep = p->minflt0 >= 0 && f1 >= p->minflt0 && p->reps
					    ? (double)(f1 - p->minflt0) / p->reps
					    : -1.0;
	}
	if (p->gated && !p->failed)
		gated_times(p, ss);
	/* A chase's base transfers, after the chain's repetitions (one stream). */
	if (p->s->plan->mode == NBW_MODE_CHASE)
		nbw_chase_base(p, me);

	if (!p->failed)
		verify_summary(p, me);
	host_placement(p, me);
	if (ss->prepared && p->s->ops->unprepare)
		p->s->ops->unprepare(p->s->be, &ss->x);
	if (p->s->plan->face.on)
		nbw_face_teardown(p, me);
	if (!ss->cached) {
		if (ss->src_ok)
			p->s->ops->free(p->s->be, &ss->src);
		if (ss->dst_ok)
			p->s->ops->free(p->s->be, &ss->dst);
		free(ss->scratch);
	}
	return NULL;
}

static void free_point(struct nbw_point *p)
{
	for (unsigned i = 0; i < NBW_MAX_STREAMS; i++) {
		free(p->st[i].samples);
		free(p->st[i].alone);
		free(p->st[i].t0);
		free(p->st[i].t1);
		free(p->st[i].dev);
	}
	free(p->t_release);
	free(p->chase_base);
	free(p->sorted);
	free(p->vmask);
}

/* Host memory one size needs: per stream source, destination and check buffer. */
static uint64_t footprint(const struct nbw_exec *s, uint64_t bytes)
{
	return bytes * 3u * NSTREAMS(s);
}

static void run_point(struct nbw_exec *s, const struct nbw_size *sz, uint64_t avail,
		      const char *limit, nbw_emit_fn emit, void *ctx)
{
	struct nbw_measurement m;
	unsigned ns = NSTREAMS(s);
	if (avail && (sz->bytes > UINT64_MAX / (3u * ns) || footprint(s, sz->bytes) > avail)) {
		char a[32], b[32], why[NBW_REASON_LEN];
		nbw_size_label(sz->bytes, a, sizeof(a));
		nbw_sysinfo_room_label(avail, b, sizeof(b));
		snprintf(why, sizeof(why),
			 "not run: %u stream%s of %s need%s 3 x %u x %s of host memory (source, "
			 "destination, check buffer) but %s is available (%s)",
			 ns, ns == 1 ? "" : "s", a, ns == 1 ? "s" : "", ns, a, b, limit);
		nbw_record_error(s, sz, why, &m);
		emit(ctx, &m);
		nbw_measurement_free(&m);
		return;
	}
	double t0 = nbw_now();
	struct nbw_point *p = calloc(1, sizeof(*p));
	if (!p) {
		nbw_record_error(s, sz, "out of memory", &m);
		emit(ctx, &m);
		return;
	}
	p->s = s;
	p->bytes = (size_t)sz->bytes;
	p->seed = sz->bytes * 1315423911ull + (uint64_t)DIR(s) * 7919u +
		  (uint64_t)s->plan->mode * 104729u + 1;
	pthread_barrier_init(&p->bar, NULL, ns);
	struct worker_arg wa[NBW_MAX_STREAMS];
	void *args[NBW_MAX_STREAMS];
	for (unsigned i = 0; i < ns; i++) {
		wa[i] = (struct worker_arg){ .p = p, .me = i };
		args[i] = &wa[i];
	}
	if (nbw_workers_run(s->workers, ns, stream_worker, args))
		nbw_record_error(s, sz, "cannot start the host threads of the streams", &m);
	else
		nbw_record_point(s, p, sz, &m);
	pthread_barrier_destroy(&p->bar);
	free_point(p);
	free(p);
	m.elapsed_s = nbw_now() - t0;
	emit(ctx, &m);
	nbw_measurement_free(&m);
}

/* A chase runs two working sets (the series' size): the sweep's smallest size rounded up
 * to NBW_CHASE_GRAIN, and the matrix cells' large size (indices \p lo and \p hi of the
 * sweep), never the whole sweep; one host thread (the planner plans no other kind). */
static void nbw_exec_chase_series(struct nbw_exec *s, size_t lo, size_t hi, nbw_emit_fn emit,
				  void *ctx)
{
	struct nbw_size ws[2] = {
		{ .bytes = nbw_chase_working_set(s->o->sizes.v[lo].bytes) },
		{ .bytes = nbw_chase_working_set(s->o->sizes.v[hi].bytes) },
	};
	unsigned n = ws[1].bytes > ws[0].bytes ? 2 : 1;
	char limit[160];
	uint64_t avail = nbw_sysinfo_mem_room(s->pool ? nbw_bufpool_idle_bytes(s->pool) : 0, limit,
					      sizeof(limit));
	if (NSTREAMS(s) != 1) {
		struct nbw_measurement m;
		nbw_record_error(s, &ws[0], "a chase is one host thread's or one device thread's "
				 "walk: one stream only", &m);
		emit(ctx, &m);
		nbw_measurement_free(&m);
		return;
	}
	if (!avail || footprint(s, ws[n - 1].bytes) <= avail)
		cache_alloc(s, ws[n - 1].bytes);
	for (unsigned k = 0; k < n && !*s->stop; k++)
		run_point(s, &ws[k], avail, limit, emit, ctx);
	cache_free(s);
}

void nbw_exec_series(struct nbw_exec *s, nbw_emit_fn emit, void *ctx)
{
	const struct nbw_backend_ops *ops = s->ops;
	s->gated = NSTREAMS(s) > 1 && s->plan->mode == NBW_MODE_ASYNC && ops->submit &&
		   ops->release && ops->complete;
	size_t nsz = s->o->sizes.n, lo, hi;
	bool chase = s->plan->mode == NBW_MODE_CHASE;
	nbw_plan_matrix_sizes_upto(&s->o->sizes, nbw_plan_matrix_max_bytes(s->o), &lo, &hi);
	size_t largest = 0;
	for (size_t k = 0; k < nsz; k++)
		if (nbw_plan_runs_size(s->plan, s->o, k))
			largest = s->o->sizes.v[k].bytes > largest ? s->o->sizes.v[k].bytes : largest;
	if (chase && nsz) {
		nbw_exec_chase_series(s, lo, hi, emit, ctx);
		return;
	}
	if (s->plan->face.on) {
		/* One point: the box. Every stream starts on the barrier (a face copy is several
		 * calls: no gate). */
		struct nbw_size box = { .bytes = nbw_face_box_bytes(&s->plan->face.shape) };
		char limit[160];
		uint64_t avail = nbw_sysinfo_mem_room(
			s->pool ? nbw_bufpool_idle_bytes(s->pool) : 0, limit, sizeof(limit));
		s->gated = false;
		s->grouped = s->plan->set.conc == NBW_CONC_XDECOMP && ops->exchange &&
			     (s->plan->mode == NBW_MODE_SYNC || s->plan->mode == NBW_MODE_ASYNC);
		if (!avail || footprint(s, box.bytes) <= avail)
			cache_alloc(s, box.bytes);
		run_point(s, &box, avail, limit, emit, ctx);
		cache_free(s);
		return;
	}
	char limit[160];
	uint64_t avail = nbw_sysinfo_mem_room(s->pool ? nbw_bufpool_idle_bytes(s->pool) : 0, limit,
					      sizeof(limit));
	if (!avail || footprint(s, largest) <= avail)
		cache_alloc(s, largest);
	/* Several streams at once stop where the matrix cells do, unless the sizes were
	 * named: overlap and contention are settled long before, and n streams of 1 GiB cost
	 * n times the memory and time (the run's skipped list says so). */
	for (size_t k = 0; k < nsz && !*s->stop; k++) {
		if (!nbw_plan_runs_size(s->plan, s->o, k))
			continue;
		run_point(s, &s->o->sizes.v[k], avail, limit, emit, ctx);
	}
	cache_free(s);
}
