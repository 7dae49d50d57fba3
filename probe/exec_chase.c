/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The chase mode's parts of a point (include/nodebw/chase.h, struct nbw_xfer.chase_loads):
 * the core writes a random single cycle over slots NBW_CHASE_STRIDE bytes apart into the
 * source (untimed), lengthens the chain until one transfer takes NBW_CHASE_TARGET_S (and
 * covers the whole cycle when that stays short), times its repetitions as every mode is
 * timed (exec.c), then base transfers of NBW_CHASE_BASE_LOADS load, and checks the final
 * index of every transfer against its own walk of the chain, untimed. The latency per load
 * is the slope between the two medians: what one transfer costs to launch and wait for is
 * the same in both and drops out. Both walk the same slots (the base one the first of
 * them), so the slope is the latency of the slots the chain touches (touched_bytes).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "nodebw/chase.h"
#include "nodebw/runner.h"
#include "nodebw/stats.h"

/* The poison of the final-index word: never an index of a chain (beyond any buffer). */
#define POISON 0xA5A5A5A5A5A5A5A5ull
/* The base transfers: as many as the chain's repetitions, within these. */
#define BASE_REPS_MIN 5u
#define BASE_REPS_MAX 64u
/* The most transfers the calibration makes (doublings from NBW_CHASE_MIN_LOADS). */
#define CALIBRATE_MAX 24

bool nbw_point_checks_every(const struct nbw_point *p)
{
	return p->bytes <= NBW_VERIFY_EVERY_MAX_BYTES || p->s->plan->mode == NBW_MODE_CHASE;
}

static void chase_error(struct nbw_point *p, struct nbw_stream_state *ss, const char *what)
{
	const char *detail = p->s->ops->last_error(p->s->be);
	snprintf(ss->err, sizeof(ss->err), "%s: %s", what, detail && *detail ? detail : "failed");
	p->failed = 1;
}

int nbw_chase_setup(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	struct nbw_buf *b = &ss->src;
	uint64_t *chain = b->loc == NBW_LOC_DEVICE ? ss->scratch : b->ptr;
	if (nbw_chase_build(chain, p->bytes, p->seed + me)) {
		snprintf(ss->err, sizeof(ss->err),
			 "a chase needs a working set of whole %u-byte slots, two at least (%zu bytes)",
			 NBW_CHASE_STRIDE, p->bytes);
		p->failed = 1;
		return -1;
	}
	if (b->loc == NBW_LOC_DEVICE && p->s->ops->write(p->s->be, b, chain, p->bytes)) {
		chase_error(p, ss, "writing the chain");
		return -1;
	}
	ss->chain = chain;
	ss->x.chase_loads = NBW_CHASE_MIN_LOADS;
	return 0;
}

static int chase_once(struct nbw_point *p, struct nbw_stream_state *ss, double *secs)
{
	ss->x.device_s = -1.0;
	double t0 = nbw_now();
	int rc = p->s->ops->transfer(p->s->be, &ss->x);
	*secs = nbw_now() - t0;
	if (rc)
		chase_error(p, ss, "transfer");
	return rc;
}

void nbw_chase_calibrate(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	uint64_t slots = nbw_chase_slots(p->bytes);
	double t, t2;
	/* Once untimed: the first walk pays the chain's first touch (page faults, TLB). */
	if (chase_once(p, ss, &t))
		return;
	for (int k = 0; k < CALIBRATE_MAX && !p->failed; k++) {
		/* The fastest of two: one disturbed transfer must not stop the doubling. */
		if (chase_once(p, ss, &t) || chase_once(p, ss, &t2))
			return;
		t = fmin(t, t2);
		uint64_t next = nbw_chase_next_loads(ss->x.chase_loads, t, slots);
		if (next == ss->x.chase_loads)
			break;
		ss->x.chase_loads = next;
	}
	ss->chase_want = nbw_chase_walk(ss->chain, p->bytes, ss->x.chase_loads);
}

int nbw_chase_poison(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	uint64_t v = POISON;
	if (ss->dst.loc == NBW_LOC_DEVICE)
		return p->s->ops->write(p->s->be, &ss->dst, &v, sizeof(v));
	memcpy(ss->dst.ptr, &v, sizeof(v));
	return 0;
}

static void chase_bad(struct nbw_stream_state *ss, unsigned r, const char *what)
{
	if (ss->bad_rep)
		return;
	ss->bad_rep = r + 1;
	snprintf(ss->verify_status, sizeof(ss->verify_status), "failed");
	snprintf(ss->verify_detail, sizeof(ss->verify_detail), "%s", what);
}

void nbw_chase_verify(struct nbw_point *p, unsigned me, unsigned r)
{
	struct nbw_stream_state *ss = &p->st[me];
	uint64_t got = POISON;
	char why[120];
	if (ss->dst.loc == NBW_LOC_DEVICE) {
		if (p->s->ops->read(p->s->be, &got, &ss->dst, sizeof(got))) {
			chase_bad(ss, r, "could not read the final index back");
			return;
		}
	} else {
		memcpy(&got, ss->dst.ptr, sizeof(got));
	}
	if (nbw_chase_check(got, ss->chase_want, why, sizeof(why)))
		ss->verified++;
	else
		chase_bad(ss, r, why);
}

void nbw_chase_base(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	if (p->failed || ss->bad_rep || !p->reps)
		return;
	/* Each costs a launch and one load: within the size's time cap whatever the count. */
	unsigned n = (unsigned)fmin(BASE_REPS_MAX, fmax(BASE_REPS_MIN, p->reps));
	p->chase_base = calloc(n, sizeof(double));
	if (!p->chase_base) {
		snprintf(ss->err, sizeof(ss->err), "out of memory for %u samples", n);
		p->failed = 1;
		return;
	}
	uint64_t loads = ss->x.chase_loads, want = ss->chase_want;
	ss->x.chase_loads = NBW_CHASE_BASE_LOADS;
	ss->chase_want = nbw_chase_walk(ss->chain, p->bytes, ss->x.chase_loads);
	for (unsigned r = 0; r < n && !p->failed && !ss->bad_rep; r++) {
		if (nbw_chase_poison(p, me)) {
			chase_error(p, ss, "destination poisoning");
			break;
		}
		if (chase_once(p, ss, &p->chase_base[r]))
			break;
		nbw_chase_verify(p, me, p->reps + r); /* past the chain's: a base transfer */
		p->chase_base_reps = r + 1;
	}
	ss->x.chase_loads = loads;
	ss->chase_want = want;
}

void nbw_chase_summary(struct nbw_point *p, unsigned me)
{
	struct nbw_stream_state *ss = &p->st[me];
	char what[sizeof(ss->verify_detail)], list[96];
	if (ss->bad_rep) {
		snprintf(what, sizeof(what), "%s", ss->verify_detail);
		if (ss->bad_rep <= p->reps)
			snprintf(ss->verify_detail, sizeof(ss->verify_detail),
				 "repetition %u of %u: %s", ss->bad_rep, p->reps, what);
		else
			snprintf(ss->verify_detail, sizeof(ss->verify_detail),
				 "base transfer %u: %s", ss->bad_rep - p->reps, what);
		return;
	}
	if (!ss->verified)
		return;
	nbw_repcheck_list(p->vmask, p->reps, list, sizeof(list));
	snprintf(ss->verify_status, sizeof(ss->verify_status), "passed");
	snprintf(ss->verify_detail, sizeof(ss->verify_detail),
		 "final index = the core's own walk of the chain after repetitions %s (%llu loads) "
		 "and %u base transfers (%llu load)",
		 list, (unsigned long long)ss->x.chase_loads, p->chase_base_reps,
		 (unsigned long long)NBW_CHASE_BASE_LOADS);
}

void nbw_chase_record(const struct nbw_exec *s, const struct nbw_point *p,
		      struct nbw_measurement *m)
{
	(void)s;
	struct nbw_chase_result *c = &m->chase;
	snprintf(m->bytes_counting, sizeof(m->bytes_counting),
		 "not a bandwidth: bytes is the chase's working set (a random cycle of %u-byte "
		 "slots, one dependent 8-byte load each); the GB/s figures mean nothing, the "
		 "latency per load is chase.latency_ns",
		 NBW_CHASE_STRIDE);
	if (!p || m->error[0] || !p->reps || !p->chase_base_reps)
		return;
	const struct nbw_stream_state *ss = &p->st[0];
	if (strcmp(m->verify_status, "passed") == 0)
		snprintf(m->verify_detail, sizeof(m->verify_detail), "%s", ss->verify_detail);
	double *v = malloc(p->chase_base_reps * sizeof(double));
	if (!v)
		return;
	memcpy(v, p->chase_base, p->chase_base_reps * sizeof(double));
	double basem = nbw_median(v, p->chase_base_reps);
	free(v);
	uint64_t loads = ss->x.chase_loads, slots = nbw_chase_slots(m->bytes);
	double slope = (m->seconds.median - basem) / (double)(loads - NBW_CHASE_BASE_LOADS);
	c->has = true;
	c->loads = loads;
	c->base_loads = NBW_CHASE_BASE_LOADS;
	c->slots = slots;
	c->stride_bytes = NBW_CHASE_STRIDE;
	c->touched_bytes = (loads < slots ? loads : slots) * NBW_CHASE_STRIDE;
	c->base_reps = p->chase_base_reps;
	c->base_median_s = basem;
	c->latency_ns = slope * 1e9;
	c->overhead_us = (basem - slope * (double)NBW_CHASE_BASE_LOADS) * 1e6;
	snprintf(c->method, sizeof(c->method),
		 "slope: (median of %u transfers of %llu loads - median of %u of %llu) / %llu; "
		 "a transfer's launch and wait are in both and drop out (overhead_us); %s",
		 p->reps, (unsigned long long)loads, p->chase_base_reps,
		 (unsigned long long)NBW_CHASE_BASE_LOADS,
		 (unsigned long long)(loads - NBW_CHASE_BASE_LOADS),
		 loads >= slots ? "the chain walks the whole cycle"
				: "the chain walks a prefix of the cycle (touched_bytes): the whole "
				  "of it would take too long per transfer");
	m->verify_bytes = strcmp(m->verify_status, "passed") == 0 ? sizeof(uint64_t) : 0;
}
