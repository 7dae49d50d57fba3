/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe core. For every series (backend, direction, mode, host memory, threads) and
 * every size it:
 *   1. allocates the buffers of each stream (one stream = one host thread's copies),
 *   2. fills the source with a seeded pattern (untimed),
 *   3. runs the warm-up transfers, chooses the repetition count from their duration,
 *   4. with two streams, times each stream alone first (the single-device reference),
 *   5. poisons the destination again, so only the timed repetitions can produce the pattern,
 *   6. times the repetitions (both streams released together by a barrier),
 *   7. reads the destination back and checks every byte (untimed),
 *   8. records samples, summaries and the verification result, prints one table row.
 * An allocation or API failure is recorded on that size and the sweep goes on.
 */
#include "nodebw/runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nodebw/backends.h"
#include "nodebw/bufpool.h"
#include "nodebw/config.h"
#include "nodebw/gap.h"
#include "nodebw/plan.h"
#include "nodebw/sysinfo.h"
#include "nodebw/topology.h"

volatile sig_atomic_t nbw_stop_requested;

/* The machine's topology for this run (NULL when it could not be read: then nothing is
 * bound and no theoretical figure is given, and the skip list says why). */
static struct nbw_topo *topo;

double nbw_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define GOLDEN 0x9E3779B97F4A7C15ull

void nbw_pattern_fill(void *buf, size_t n, uint64_t seed)
{
	unsigned char *p = buf;
	size_t words = n / 8;
	for (size_t i = 0; i < words; i++) {
		uint64_t w = seed ^ ((uint64_t)(i + 1) * GOLDEN);
		memcpy(p + 8 * i, &w, 8);
	}
	uint64_t w = seed ^ ((uint64_t)(words + 1) * GOLDEN);
	memcpy(p + 8 * words, &w, n - 8 * words);
}

size_t nbw_pattern_check(const void *buf, size_t n, uint64_t seed)
{
	const unsigned char *p = buf;
	size_t words = n / 8;
	for (size_t i = 0; i < words; i++) {
		uint64_t w = seed ^ ((uint64_t)(i + 1) * GOLDEN), got;
		memcpy(&got, p + 8 * i, 8);
		if (got != w) {
			for (size_t b = 0; b < 8; b++)
				if (p[8 * i + b] != ((unsigned char *)&w)[b])
					return 8 * i + b;
		}
	}
	uint64_t w = seed ^ ((uint64_t)(words + 1) * GOLDEN);
	for (size_t b = 0; b < n - 8 * words; b++)
		if (p[8 * words + b] != ((unsigned char *)&w)[b])
			return 8 * words + b;
	return n;
}

int nbw_effective_hidden_helpers(void)
{
	/* LIBOMP_USE_HIDDEN_HELPER_TASK=0 turns the helpers off whatever the count says. */
	const char *use = getenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
	if (use && (strcmp(use, "0") == 0 || strcasecmp(use, "false") == 0))
		return 0;
	const char *v = getenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS");
	if (v && *v) {
		int n = atoi(v);
		return n < 0 ? 0 : n > 16 ? 16 : n;
	}
	return 8;
}

/* ---- one series ---------------------------------------------------------------------- */

struct series {
	const struct nbw_backend_ops *ops;
	struct nbw_backend *be;
	struct nbw_bufpool *pool;
	const struct nbw_probe_opts *o;
	enum nbw_dir dir;
	enum nbw_mode mode;
	enum nbw_hostmem mem;
	enum nbw_conc conc;
	enum nbw_peer peer;
	bool gated;               /* concurrent async copies started by the backend's gate */
	bool matrix_only;         /* the sweep's smallest and largest size only (plan.h) */
	enum nbw_bind_policy bind;
	int node[NBW_MAX_STREAMS]; /* NUMA node of each stream's host thread and buffers */
	const char *interface;
	unsigned nstreams;
	int src[NBW_MAX_STREAMS], dst[NBW_MAX_STREAMS];   /* -1 = host */
	struct nbw_device devinfo[NBW_MAX_DEVICES];
	/* Buffers of the largest size from the pool, reused for every size (no page faults or
	 * unmaps inside the sweep); when that allocation fails, each size allocates its own and
	 * a failure is recorded on that size only. */
	struct {
		struct nbw_buf src, dst, scratch;
		bool have;
	} cache[NBW_MAX_STREAMS];
};

struct stream_state {
	struct nbw_buf src, dst;
	struct nbw_xfer x;
	bool src_ok, dst_ok, prepared;
	bool cached;               /* buffers belong to the series cache */
	void *scratch;
	double warm_s;
	double *samples, *alone, *t0, *t1, *dev;
	char err[NBW_REASON_LEN];
	char verify_status[16];
	char verify_detail[160];
	char placement[64];        /* where the host buffer's pages are */
};

struct point {
	struct series *s;
	size_t bytes;
	uint64_t seed;
	unsigned reps;
	unsigned alone_reps;      /* repetitions of each stream alone (two streams only) */
	double *t_release;        /* gated starts: when the gate was opened, per repetition */
	bool gated;               /* this point starts on the backend's gate */
	char no_gate[160];        /* why a gated series could not use the gate here */
	pthread_barrier_t bar;
	struct stream_state st[NBW_MAX_STREAMS];
	volatile int failed;      /* set by any stream; read after a barrier */
};

struct worker_arg {
	struct point *p;
	unsigned me;
};

static void stream_error(struct point *p, struct stream_state *ss, const char *what)
{
	const char *detail = p->s->ops->last_error(p->s->be);
	snprintf(ss->err, sizeof(ss->err), "%s: %s", what, detail && *detail ? detail : "failed");
	p->failed = 1;
}

static enum nbw_loc host_loc(enum nbw_hostmem m)
{
	return m == NBW_HOSTMEM_PINNED	       ? NBW_LOC_HOST_PINNED
	       : m == NBW_HOSTMEM_REGISTERED ? NBW_LOC_HOST_REGISTERED
					     : NBW_LOC_HOST_PAGEABLE;
}

/* Write a pattern (or poison) into a buffer wherever it lives. */
static int buf_set(struct point *p, struct nbw_buf *b, uint64_t seed, bool poison, void *scratch)
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

static void stream_endpoints(const struct series *s, unsigned me, size_t bytes,
			     struct nbw_buf *src, struct nbw_buf *dst)
{
	int sdev = s->src[me], ddev = s->dst[me];
	int pin_dev = sdev >= 0 ? sdev : ddev;
	/* Page-locked memory belongs to the device it is for; pageable memory to nobody. */
	int host_dev = s->mem == NBW_HOSTMEM_PINNED || s->mem == NBW_HOSTMEM_REGISTERED ? pin_dev
											: -1;
	*src = (struct nbw_buf){ .loc = sdev >= 0 ? NBW_LOC_DEVICE : host_loc(s->mem),
				 .device = sdev >= 0 ? sdev : host_dev, .bytes = bytes };
	*dst = (struct nbw_buf){ .loc = ddev >= 0 ? NBW_LOC_DEVICE : host_loc(s->mem),
				 .device = ddev >= 0 ? ddev : host_dev, .bytes = bytes };
}

static int setup_stream(struct point *p, unsigned me)
{
	struct series *s = p->s;
	struct stream_state *ss = &p->st[me];
	if (s->cache[me].have && s->cache[me].src.bytes >= p->bytes) {
		ss->src = s->cache[me].src;
		ss->dst = s->cache[me].dst;
		ss->src.bytes = ss->dst.bytes = p->bytes;
		ss->scratch = s->cache[me].scratch.ptr;
		ss->cached = true;
	} else {
		/* Fallback when the largest size did not fit: allocate this size directly (the
		 * pool is filled from the main thread only; both workers run here at once). */
		stream_endpoints(s, me, p->bytes, &ss->src, &ss->dst);
		ss->scratch = malloc(p->bytes);
		if (!ss->scratch) {
			snprintf(ss->err, sizeof(ss->err),
				 "allocation of the host check buffer (%zu bytes) failed: out of memory",
				 p->bytes);
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
	if (buf_set(p, &ss->src, p->seed + me, false, ss->scratch)) {
		stream_error(p, ss, "buffer initialisation");
		return -1;
	}
	ss->x = (struct nbw_xfer){ .dir = s->dir, .mode = s->mode, .src = &ss->src,
				   .dst = &ss->dst, .bytes = p->bytes, .peer = s->peer,
				   .device_s = -1.0 };
	if (s->ops->prepare && s->ops->prepare(s->be, &ss->x)) {
		stream_error(p, ss, "prepare");
		return -1;
	}
	ss->prepared = true;
	return 0;
}

static void cache_free(struct series *s)
{
	for (unsigned i = 0; i < NBW_MAX_STREAMS; i++) {
		struct nbw_buf *b[] = { &s->cache[i].src, &s->cache[i].dst, &s->cache[i].scratch };
		for (unsigned k = 0; k < 3; k++)
			if (b[k]->ptr)
				nbw_bufpool_put(s->pool, b[k]);
		memset(&s->cache[i], 0, sizeof(s->cache[i]));
	}
}

static void cache_alloc(struct series *s)
{
	size_t largest = 0;
	for (size_t k = 0; k < s->o->sizes.n; k++)
		largest = s->o->sizes.v[k].bytes > largest ? s->o->sizes.v[k].bytes : largest;
	char why[NBW_REASON_LEN];
	bool can_bind = topo && !nbw_topo_is_fixture(topo);
	for (unsigned i = 0; i < s->nstreams; i++) {
		/* Allocate (and first-touch) each stream's buffers from its own NUMA node. */
		if (can_bind)
			nbw_topo_bind_thread(topo, s->node[i], why, sizeof(why));
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
		for (unsigned k = 0; can_bind && s->node[i] >= 0 && k < 2; k++)
			if (hb[k]->loc == NBW_LOC_HOST_PAGEABLE)
				nbw_topo_bind_area(topo, hb[k]->ptr, hb[k]->bytes, s->node[i], why,
						   sizeof(why));
	}
	if (can_bind)
		nbw_topo_bind_thread(topo, -1, why, sizeof(why));
}

static int timed(struct point *p, struct stream_state *ss, double *t0, double *t1)
{
	ss->x.device_s = -1.0;
	*t0 = nbw_now();
	int rc = p->s->ops->transfer(p->s->be, &ss->x);
	*t1 = nbw_now();
	if (rc)
		stream_error(p, ss, "transfer");
	return rc;
}

static void verify_stream(struct point *p, unsigned me)
{
	struct stream_state *ss = &p->st[me];
	const void *data = ss->dst.ptr;
	if (ss->dst.loc == NBW_LOC_DEVICE) {
		if (p->s->ops->read(p->s->be, ss->scratch, &ss->dst, p->bytes)) {
			snprintf(ss->verify_status, sizeof(ss->verify_status), "failed");
			snprintf(ss->verify_detail, sizeof(ss->verify_detail),
				 "could not read the destination back: %s",
				 p->s->ops->last_error(p->s->be));
			return;
		}
		data = ss->scratch;
	}
	size_t bad = nbw_pattern_check(data, p->bytes, p->seed + me);
	if (bad == p->bytes) {
		snprintf(ss->verify_status, sizeof(ss->verify_status), "passed");
		snprintf(ss->verify_detail, sizeof(ss->verify_detail),
			 "all %zu destination bytes equal the source pattern", p->bytes);
	} else {
		snprintf(ss->verify_status, sizeof(ss->verify_status), "failed");
		snprintf(ss->verify_detail, sizeof(ss->verify_detail),
			 "destination differs from the source pattern at byte %zu", bad);
	}
}

/* One repetition of a gated start: every stream enqueues its copy behind the backend's closed
 * gate, one thread opens it, each waits for its own copy. The start time of every stream is
 * the moment the gate opened (filled in by gated_times). */
static void gated_rep(struct point *p, unsigned me, unsigned r)
{
	struct stream_state *ss = &p->st[me];
	const struct nbw_backend_ops *ops = p->s->ops;
	ss->x.device_s = -1.0;
	int rc = ops->submit(p->s->be, &ss->x);
	if (rc)
		stream_error(p, ss, "submit");
	pthread_barrier_wait(&p->bar);
	if (me == 0) {
		/* Opened even when a stream failed: the other one's copy is waiting on it. */
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

static void gated_times(struct point *p, struct stream_state *ss)
{
	for (unsigned r = 0; r < p->reps; r++) {
		ss->t0[r] = p->t_release[r];
		ss->samples[r] = ss->t1[r] - ss->t0[r];
	}
}

/* Where the pages of this stream's host buffer actually are (outside the timed region). */
static void host_placement(struct point *p, unsigned me)
{
	struct stream_state *ss = &p->st[me];
	const struct nbw_buf *h = ss->src.loc != NBW_LOC_DEVICE   ? &ss->src
				  : ss->dst.loc != NBW_LOC_DEVICE ? &ss->dst
								  : NULL;
	struct nbw_page_placement pl;
	char why[NBW_REASON_LEN];
	ss->placement[0] = '\0';
	if (!h || !h->ptr)
		return;
	if (nbw_page_placement(h->ptr, p->bytes, &pl, why, sizeof(why)) == 0)
		nbw_page_placement_format(&pl, ss->placement, sizeof(ss->placement));
	else
		snprintf(ss->placement, sizeof(ss->placement), "unknown: %.50s", why);
}

static void *stream_worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct point *p = wa->p;
	unsigned me = wa->me, ns = p->s->nstreams;
	struct stream_state *ss = &p->st[me];
	const struct nbw_probe_opts *o = p->s->o;
	char why[NBW_REASON_LEN];
	if (topo && !nbw_topo_is_fixture(topo))
		nbw_topo_bind_thread(topo, p->s->node[me], why, sizeof(why)); /* -1: all CPUs */
	setup_stream(p, me);
	pthread_barrier_wait(&p->bar);

	/* Warm-up: both streams together, as they will be timed. */
	for (unsigned w = 0; !p->failed && w < o->warmup; w++) {
		double a, b;
		if (timed(p, ss, &a, &b) == 0)
			ss->warm_s = b - a;
	}
	pthread_barrier_wait(&p->bar);
	if (me == 0 && !p->failed) {
		double longest = 0.0;
		for (unsigned i = 0; i < ns; i++)
			longest = fmax(longest, p->st[i].warm_s);
		double want = longest > 0.0 ? ceil(o->min_time_s / longest) : o->min_reps;
		p->reps = (unsigned)fmin(fmax(want, o->min_reps), o->max_reps);
		/* The quick profile times each stream alone once: a rough overlap reference. */
		p->alone_reps = o->profile == NBW_PROFILE_QUICK ? 1 : p->reps;
		for (unsigned i = 0; i < ns; i++) {
			p->st[i].samples = calloc(p->reps, sizeof(double));
			p->st[i].t0 = calloc(p->reps, sizeof(double));
			p->st[i].t1 = calloc(p->reps, sizeof(double));
			p->st[i].dev = calloc(p->reps, sizeof(double));
			p->st[i].alone = ns > 1 ? calloc(p->alone_reps, sizeof(double)) : NULL;
			if (!p->st[i].samples || !p->st[i].t0 || !p->st[i].t1 || !p->st[i].dev ||
			    (ns > 1 && !p->st[i].alone)) {
				snprintf(p->st[i].err, sizeof(p->st[i].err),
					 "out of memory for %u samples", p->reps);
				p->failed = 1;
			}
		}
		p->gated = p->s->gated;
		for (unsigned i = 0; i < ns && p->gated; i++)
			if (p->st[i].x.no_gate) {
				p->gated = false;
				snprintf(p->no_gate, sizeof(p->no_gate), "%s", p->st[i].x.no_gate);
			}
		if (p->gated) {
			p->t_release = calloc(p->reps, sizeof(double));
			if (!p->t_release)
				p->failed = 1;
		}
	}
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

	/* Poison: only the timed repetitions below can put the pattern back. */
	if (!p->failed && buf_set(p, &ss->dst, 0, true, ss->scratch))
		stream_error(p, ss, "destination poisoning");
	for (unsigned r = 0; r < p->reps; r++) {
		pthread_barrier_wait(&p->bar);
		if (p->failed)
			break;
		if (p->gated) {
			gated_rep(p, me, r);
		} else if (timed(p, ss, &ss->t0[r], &ss->t1[r]) == 0) {
			ss->samples[r] = ss->t1[r] - ss->t0[r];
			ss->dev[r] = ss->x.device_s;
		}
	}
	pthread_barrier_wait(&p->bar);
	if (p->gated && !p->failed)
		gated_times(p, ss);

	if (!p->failed)
		verify_stream(p, me);
	host_placement(p, me);
	if (ss->prepared && p->s->ops->unprepare)
		p->s->ops->unprepare(p->s->be, &ss->x);
	if (!ss->cached) {
		if (ss->src_ok)
			p->s->ops->free(p->s->be, &ss->src);
		if (ss->dst_ok)
			p->s->ops->free(p->s->be, &ss->dst);
		free(ss->scratch);
	}
	return NULL;
}

static void device_label(const struct series *s, int dev, char *buf, size_t len)
{
	if (dev < 0)
		snprintf(buf, len, "host %s memory", nbw_hostmem_name(s->mem));
	else
		snprintf(buf, len, "%s device %d [%s: %s]", s->ops->name, dev, s->devinfo[dev].kind,
			 s->devinfo[dev].memory);
}

static void describe(const struct series *s, const struct point *p, struct nbw_measurement *m)
{
	char a[200], b[200];
	device_label(s, s->src[0], a, sizeof(a));
	device_label(s, s->dst[0], b, sizeof(b));
	if (s->dir == NBW_P2P)
		snprintf(m->path, sizeof(m->path), "%s -> %s; %s", a, b,
			 s->ops->p2p_path(s->be, s->src[0], s->dst[0]));
	else
		snprintf(m->path, sizeof(m->path), "%s -> %s%s", a, b,
			 s->nstreams > 1 ? " (and the same for the second device)" : "");
	int dev = s->dir == NBW_HTOD ? s->dst[0] : s->src[0];
	snprintf(m->host_mem_note, sizeof(m->host_mem_note), "%s",
		 s->dir == NBW_P2P ? "no host memory involved"
				   : s->ops->hostmem_note(s->be, s->mem, dev));
	if (s->nstreams == 1)
		snprintf(m->start, sizeof(m->start), "one host thread");
	else if (p->gated)
		snprintf(m->start, sizeof(m->start),
			 "backend gate: both copies enqueued, then released together");
	else if (p->no_gate[0])
		snprintf(m->start, sizeof(m->start), "barrier (no gate: %s)", p->no_gate);
	else
		snprintf(m->start, sizeof(m->start),
			 "two host threads released together by a barrier");
	if (s->conc == NBW_CONC_SINGLE)
		snprintf(m->bytes_counting, sizeof(m->bytes_counting),
			 "bytes = size of one transfer, counted once (read at the source, written "
			 "at the destination); GB/s = bytes / duration of one transfer / 1e9");
	else if (s->conc == NBW_CONC_DUAL)
		snprintf(m->bytes_counting, sizeof(m->bytes_counting),
			 "aggregate GB/s = 2 x size / wall time from the earliest start to the "
			 "latest end of the two transfers; per device = size / that thread's time");
	else
		snprintf(m->bytes_counting, sizeof(m->bytes_counting),
			 "aggregate GB/s = 2 x size (both directions) / wall time from the earliest "
			 "start to the latest end; per direction = size / that thread's time");
}

/* What the path of the series could give, per measurement (aggregate for two streams). */
static void theoretical(const struct series *s, struct nbw_measurement *m)
{
	m->theoretical_gbps = -1.0;
	if (!topo) {
		snprintf(m->link, sizeof(m->link), "unknown");
		snprintf(m->theoretical_basis, sizeof(m->theoretical_basis),
			 "the topology could not be read");
		return;
	}
	double sum = 0.0;
	bool known = true;
	for (unsigned i = 0; i < s->nstreams; i++) {
		double g = -1.0;
		char label[64] = "", basis[NBW_TOPO_NOTE_LEN] = "";
		if (s->dir == NBW_P2P) {
			struct nbw_topo_pair pr;
			const char *a = s->devinfo[s->src[i]].pci_bus_id,
				   *b = s->devinfo[s->dst[i]].pci_bus_id;
			int rc = s->peer == NBW_PEER_OFF ? nbw_topo_pcie_pair(topo, a, b, &pr)
							 : nbw_topo_pair(topo, a, b, &pr);
			if (!*a || !*b) {
				snprintf(label, sizeof(label), "host memory, no link");
				snprintf(basis, sizeof(basis), "a copy inside host memory");
			} else {
				snprintf(label, sizeof(label), "%s", pr.label);
				snprintf(basis, sizeof(basis), "%s", pr.basis);
				g = rc == 0 ? pr.theoretical_gbps : -1.0;
			}
		} else {
			int dev = s->dir == NBW_HTOD ? s->dst[i] : s->src[i];
			struct nbw_host_link hl;
			int rc = nbw_topo_host_link(topo, s->devinfo[dev].pci_bus_id, &hl);
			if (hl.host_memory) {
				snprintf(label, sizeof(label), "host memory, no link");
			} else if (rc == 0 && hl.max.gen) {
				snprintf(label, sizeof(label), "PCIe Gen%d x%d", hl.max.gen,
					 hl.max.width);
			} else {
				snprintf(label, sizeof(label), "unknown");
			}
			snprintf(basis, sizeof(basis), "%s", hl.note);
			g = rc == 0 ? hl.theoretical_gbps : -1.0;
		}
		if (i == 0) {
			snprintf(m->link, sizeof(m->link), "%s", label);
			snprintf(m->theoretical_basis, sizeof(m->theoretical_basis), "%s%s", basis,
				 s->nstreams > 1 ? "; aggregate = sum over both streams' paths" : "");
		}
		known = known && g > 0.0;
		sum += g;
	}
	m->theoretical_gbps = known ? sum : -1.0;
}

/* How host threads wait for the devices that issue the series' copies (the backend's
 * sched(); "" when it has none). Where two devices differ, each is named. */
static void series_sched(const struct series *s, char *word, size_t wlen, char *note,
			 size_t nlen)
{
	char w[NBW_MAX_STREAMS][32], n[NBW_MAX_STREAMS][NBW_REASON_LEN];
	int dev[NBW_MAX_STREAMS];
	unsigned k = 0;
	word[0] = note[0] = '\0';
	if (!s->ops->sched)
		return;
	for (unsigned i = 0; i < s->nstreams; i++) {
		int d = s->dir == NBW_HTOD ? s->dst[i] : s->src[i];
		if (d < 0 || (k && dev[0] == d))
			continue;
		dev[k] = d;
		if (s->ops->sched(s->be, d, w[k], sizeof(w[k]), n[k], sizeof(n[k])))
			snprintf(w[k], sizeof(w[k]), "unknown");
		k++;
	}
	if (k == 0)
		return;
	if (k == 1 || !strcmp(w[0], w[1]))
		snprintf(word, wlen, "%s", w[0]);
	else
		snprintf(word, wlen, "%s (device %d), %s (device %d)", w[0], dev[0], w[1], dev[1]);
	if (k == 1 || !strcmp(n[0], n[1]))
		snprintf(note, nlen, "%s", n[0]);
	else
		snprintf(note, nlen, "device %d: %s; device %d: %s", dev[0], n[0], dev[1], n[1]);
}

static void fill_measurement(struct series *s, struct point *p, const struct nbw_size *sz,
			     struct nbw_measurement *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->api, sizeof(m->api), "%s", s->ops->name);
	snprintf(m->probe, sizeof(m->probe), "%s-%s", s->ops->name, nbw_dir_name(s->dir));
	snprintf(m->interface, sizeof(m->interface), "%s", s->interface);
	m->dir = s->dir;
	m->mode = s->mode;
	m->hostmem = s->mem;
	m->conc = s->conc;
	m->peer = s->peer;
	m->bytes = sz->bytes;
	m->halo_n = sz->halo_n;
	m->hidden_helpers = strcmp(s->ops->name, "omp") == 0 ? nbw_effective_hidden_helpers() : -1;
	m->warmup = s->o->warmup;
	describe(s, p, m);
	snprintf(m->size_set, sizeof(m->size_set), "%s", s->matrix_only ? "matrix" : "sweep");
	theoretical(s, m);
	series_sched(s, m->sched, sizeof(m->sched), m->sched_note, sizeof(m->sched_note));
	snprintf(m->bind_policy, sizeof(m->bind_policy), "%s", nbw_bind_policy_name(s->bind));
	m->bind_node = s->node[0];
	for (unsigned i = 0; i < s->nstreams; i++) {
		size_t l = strlen(m->host_pages);
		if (p->st[i].placement[0])
			snprintf(m->host_pages + l, sizeof(m->host_pages) - l, "%s%s",
				 l ? "; " : "", p->st[i].placement);
	}
	m->nstreams = s->nstreams;
	for (unsigned i = 0; i < s->nstreams; i++) {
		m->streams[i].src_device = s->src[i];
		m->streams[i].dst_device = s->dst[i];
	}
	snprintf(m->verify_status, sizeof(m->verify_status), "not-run");
	for (unsigned i = 0; i < s->nstreams; i++)
		if (p->st[i].err[0]) {
			if (s->nstreams > 1)
				snprintf(m->error, sizeof(m->error), "stream %u: %s", i,
					 p->st[i].err);
			else
				snprintf(m->error, sizeof(m->error), "%s", p->st[i].err);
			snprintf(m->verify_detail, sizeof(m->verify_detail),
				 "not verified: the measurement failed");
			return;
		}
	m->reps = p->reps;
	m->n = p->reps;
	m->samples_s = calloc(p->reps, sizeof(double));
	for (unsigned r = 0; m->samples_s && r < p->reps; r++) {
		double lo = INFINITY, hi = -INFINITY;
		for (unsigned i = 0; i < s->nstreams; i++) {
			lo = fmin(lo, p->st[i].t0[r]);
			hi = fmax(hi, p->st[i].t1[r]);
		}
		m->samples_s[r] = hi - lo;
	}
	bool all_passed = true;
	uint64_t checked = 0;
	for (unsigned i = 0; i < s->nstreams; i++) {
		struct nbw_stream *st = &m->streams[i];
		st->samples_s = p->st[i].samples;
		st->n = p->reps;
		p->st[i].samples = NULL;
		if (p->st[i].alone) {
			st->alone_samples_s = p->st[i].alone;
			st->n_alone = p->alone_reps;
			p->st[i].alone = NULL;
		}
		bool timed_on_device = true;
		for (unsigned r = 0; r < p->reps; r++)
			timed_on_device = timed_on_device && p->st[i].dev[r] >= 0.0;
		if (timed_on_device && s->ops->device_timer) {
			st->device_samples_s = p->st[i].dev;
			st->n_device = p->reps;
			p->st[i].dev = NULL;
			snprintf(m->device_timer, sizeof(m->device_timer), "%s",
				 s->ops->device_timer);
		}
		if (strcmp(p->st[i].verify_status, "passed") == 0)
			checked += sz->bytes;
		else
			all_passed = false;
	}
	snprintf(m->verify_status, sizeof(m->verify_status), "%s", all_passed ? "passed" : "failed");
	m->verify_bytes = checked;
	for (unsigned i = 0; i < s->nstreams; i++)
		if (!all_passed && strcmp(p->st[i].verify_status, "passed") != 0) {
			snprintf(m->verify_detail, sizeof(m->verify_detail), "stream %u: %s", i,
				 p->st[i].verify_detail);
			break;
		}
	if (all_passed)
		snprintf(m->verify_detail, sizeof(m->verify_detail),
			 "every destination byte equals the source pattern (%u stream%s, checked "
			 "after the timed repetitions)",
			 s->nstreams, s->nstreams > 1 ? "s" : "");
	nbw_measurement_summarize(m);
	if (s->nstreams > 1) {
		m->has_overlap = true;
		m->serial_estimate_s = 0.0;
		for (unsigned i = 0; i < s->nstreams; i++) {
			struct nbw_summary a;
			nbw_summarize(m->streams[i].alone_samples_s, m->streams[i].n_alone, &a);
			m->serial_estimate_s += a.median;
		}
		m->concurrent_s = m->seconds.median;
		m->overlap_speedup = m->concurrent_s > 0 ? m->serial_estimate_s / m->concurrent_s : 0;
		snprintf(m->overlap_verdict, sizeof(m->overlap_verdict), "%s",
			 m->overlap_speedup > 2.3    ? "noisy" /* faster than physically possible */
			 : m->overlap_speedup >= 1.7  ? "overlapped"
			 : m->overlap_speedup <= 1.15 ? "serialized"
						      : "partial");
	}
}

static void free_point(struct point *p)
{
	for (unsigned i = 0; i < NBW_MAX_STREAMS; i++) {
		free(p->st[i].samples);
		free(p->st[i].alone);
		free(p->st[i].t0);
		free(p->st[i].t1);
		free(p->st[i].dev);
	}
	free(p->t_release);
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

static void print_series_header(const struct series *s)
{
	char a[64], b[64];
	endpoints(s->src, s->nstreams, a, sizeof(a));
	endpoints(s->dst, s->nstreams, b, sizeof(b));
	printf("\n%s-%s  mode %s  host memory %s%s%s  %s  (%s -> %s)\n  interface: %s\n",
	       s->ops->name, nbw_dir_name(s->dir), nbw_mode_name(s->mode), nbw_hostmem_name(s->mem),
	       s->peer == NBW_PEER_NA ? "" : "  peer access ",
	       s->peer == NBW_PEER_NA ? "" : nbw_peer_name(s->peer),
	       s->conc == NBW_CONC_SINGLE ? "one host thread"
	       : s->conc == NBW_CONC_DUAL ? "two devices, two host threads at once"
					  : "both directions, two host threads at once",
	       a, b, s->interface);
	char word[64], note[320];
	series_sched(s, word, sizeof(word), note, sizeof(note));
	if (word[0])
		printf("  sched: %s (%s)\n", word, note);
	printf("  %12s %6s %12s %10s %10s %7s %12s %8s%s\n", "size", "reps", "median GB/s",
	       "min GB/s", "max GB/s", "CV", "median us", "verified",
	       s->nstreams > 1 ? "  overlap (serial/concurrent)" : "");
}

static void print_row(const struct nbw_measurement *m)
{
	char lab[32];
	nbw_size_label(m->bytes, lab, sizeof(lab));
	if (m->error[0]) {
		printf("  %12s  error: %s\n", lab, m->error);
		return;
	}
	printf("  %12s %6u %12.3f %10.3f %10.3f %7.3f %12.2f %8s", lab, m->reps, m->gbps.median,
	       m->gbps.min, m->gbps.max, m->gbps.cv, m->seconds.median * 1e6, m->verify_status);
	if (m->has_overlap)
		printf("  %.2fx %s", m->overlap_speedup, m->overlap_verdict);
	printf("\n");
	fflush(stdout);
}

/* Host threads live for the whole process: libomp 19 aborts ("new_gtid <=
 * __kmp_hidden_helper_threads_num") when a new root thread registers after another root
 * thread has exited once hidden helpers run, so streams reuse two persistent workers. */
static struct {
	pthread_once_t once;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	unsigned gen, active, pending;
	void *(*fn)(void *);
	void *args[NBW_MAX_STREAMS];
	int ok;
} pool = { .once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER,
	   .work = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER };

static void *pool_main(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg, seen = 0;
	for (;;) {
		pthread_mutex_lock(&pool.mu);
		while (pool.gen == seen)
			pthread_cond_wait(&pool.work, &pool.mu);
		seen = pool.gen;
		bool mine = me < pool.active;
		pthread_mutex_unlock(&pool.mu);
		if (!mine)
			continue;
		pool.fn(pool.args[me]);
		pthread_mutex_lock(&pool.mu);
		if (--pool.pending == 0)
			pthread_cond_signal(&pool.done);
		pthread_mutex_unlock(&pool.mu);
	}
	return NULL;
}

static void pool_start(void)
{
	pool.ok = 1;
	for (uintptr_t i = 0; i < NBW_MAX_STREAMS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, pool_main, (void *)i)) {
			pool.ok = 0;
			return;
		}
		pthread_detach(t);
	}
}

/* Run fn(args[i]) on workers 0..n-1 and wait for all of them. */
static int pool_run(unsigned n, void *(*fn)(void *), void **args)
{
	pthread_once(&pool.once, pool_start);
	if (!pool.ok)
		return -1;
	pthread_mutex_lock(&pool.mu);
	pool.fn = fn;
	pool.active = n;
	pool.pending = n;
	for (unsigned i = 0; i < n; i++)
		pool.args[i] = args[i];
	pool.gen++;
	pthread_cond_broadcast(&pool.work);
	while (pool.pending)
		pthread_cond_wait(&pool.done, &pool.mu);
	pthread_mutex_unlock(&pool.mu);
	return 0;
}

static void run_series(struct series *s, struct nbw_doc *doc, struct nbw_run_status *st)
{
	/* Matrix sets print nothing per size: the matrices at the end show them. */
	bool print = !s->o->quiet && !s->matrix_only;
	if (print)
		print_series_header(s);
	cache_alloc(s);
	size_t nsz = s->o->sizes.n;
	for (size_t k = 0; k < nsz && !nbw_stop_requested; k++) {
		if (s->matrix_only && k != 0 && k != nsz - 1)
			continue;
		const struct nbw_size *sz = &s->o->sizes.v[k];
		struct point p = { .s = s, .bytes = (size_t)sz->bytes,
				   .seed = sz->bytes * 1315423911ull + (uint64_t)s->dir * 7919u +
					   (uint64_t)s->mode * 104729u + 1 };
		pthread_barrier_init(&p.bar, NULL, s->nstreams);
		struct worker_arg wa[NBW_MAX_STREAMS];
		void *args[NBW_MAX_STREAMS];
		for (unsigned i = 0; i < s->nstreams; i++) {
			wa[i] = (struct worker_arg){ .p = &p, .me = i };
			args[i] = &wa[i];
		}
		if (pool_run(s->nstreams, stream_worker, args)) {
			fprintf(stderr, "nodebw: cannot start host threads\n");
			exit(1);
		}
		pthread_barrier_destroy(&p.bar);

		struct nbw_measurement m;
		fill_measurement(s, &p, sz, &m);
		free_point(&p);
		nbw_doc_add_measurement(doc, &m);
		st->measurements++;
		if (m.error[0])
			st->errors++;
		else if (strcmp(m.verify_status, "passed") != 0)
			st->verify_failed++;
		if (print)
			print_row(&m);
		nbw_measurement_free(&m);
	}
	cache_free(s);
}

/* ---- planning ------------------------------------------------------------------------ */

static bool probe_selected(const struct nbw_probe_opts *o, const char *api, enum nbw_dir d)
{
	if (o->nprobes == 0)
		return true;
	char full[48];
	snprintf(full, sizeof(full), "%s-%s", api, nbw_dir_name(d));
	for (int i = 0; i < o->nprobes; i++)
		if (strcmp(o->probes[i], nbw_dir_name(d)) == 0 || strcmp(o->probes[i], full) == 0)
			return true;
	return false;
}

static bool api_selected(const struct nbw_probe_opts *o, const char *api)
{
	if (o->napis == 0)
		return true;
	for (int i = 0; i < o->napis; i++)
		if (strcmp(o->apis[i], api) == 0)
			return true;
	return false;
}

/* The table header waits until the input is known to be good: a usage error prints nothing
 * on stdout. */
static bool header_printed;
static double timer_res_ns;

static void print_header_once(void)
{
	if (header_printed)
		return;
	header_printed = true;
#if !NBW_HAVE_OMP
	/* First of all: what this nodebw cannot measure at all. */
	printf("nodebw: %s\n", NBW_NO_OFFLOAD_REASON);
#endif
	printf("nodebw probes; bandwidth in GB/s = 1e9 B/s; timer resolution %.0f ns\n",
	       timer_res_ns);
}

static void skip(struct nbw_doc *doc, struct nbw_run_status *st, const struct nbw_probe_opts *o,
		 const char *api, const char *probe, const char *what, const char *reason)
{
	nbw_doc_add_skip(doc, api, probe, what, reason);
	st->skipped++;
	print_header_once();
	if (!o->quiet)
		printf("\n%s %s: skipped: %s\n", strcmp(probe, "*") ? probe : api, what, reason);
}

/* A backend that cannot run: skipped with its reason, and counted against the command when
 * it was asked for by name (--api) or when it is present but unusable (\p error). */
static void backend_unavailable(struct nbw_doc *doc, struct nbw_run_status *st,
				const struct nbw_probe_opts *o, const char *api, const char *reason,
				bool error)
{
	skip(doc, st, o, api, "*", "backend", reason);
	bool named = false;
	for (int i = 0; i < o->napis; i++)
		named = named || strcmp(o->apis[i], api) == 0;
	if (!named && !error)
		return;
	if (error)
		st->backend_errors++;
	else
		st->unavailable++;
	if (!st->unavailable_why[0])
		snprintf(st->unavailable_why, sizeof(st->unavailable_why), "%s: %s", api, reason);
}

static void add_versions(struct nbw_doc *doc, const struct nbw_backend_ops *ops,
			 struct nbw_backend *be)
{
	char buf[4096] = "";
	if (ops->versions)
		ops->versions(be, buf, sizeof(buf));
	json_t *o = json_object();
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			json_object_set_new(o, line, json_string(eq + 1));
		}
	}
	json_t *sw = json_object_get(doc->root, "software");
	json_object_set_new(json_object_get(sw, "backends"), ops->name, o);
}

/* Largest footprint of one size: two streams of source, destination and check buffer. */
#define FOOTPRINT_FACTOR 6u

static int check_memory(const struct nbw_probe_opts *o, struct nbw_doc *doc,
			struct nbw_run_status *st, size_t *nsizes, char *err, size_t errlen)
{
	uint64_t avail = nbw_sysinfo_mem_available();
	*nsizes = o->sizes.n;
	if (!avail)
		return 0;
	for (size_t k = 0; k < o->sizes.n; k++) {
		uint64_t need = o->sizes.v[k].bytes * FOOTPRINT_FACTOR;
		if (o->sizes.v[k].bytes > UINT64_MAX / FOOTPRINT_FACTOR || need > avail) {
			char a[32], b[32];
			nbw_size_label(o->sizes.v[k].bytes, a, sizeof(a));
			nbw_size_label(avail, b, sizeof(b));
			if (o->sizes_given) {
				snprintf(err, errlen,
					 "size %s needs up to %u times its size in host memory (two "
					 "streams of source, destination and check buffers) but only %s "
					 "is available",
					 a, FOOTPRINT_FACTOR, b);
				return NBW_EXIT_USAGE;
			}
			char why[NBW_REASON_LEN];
			snprintf(why, sizeof(why), "size %s and larger need more host memory than the "
				 "%s available", a, b);
			skip(doc, st, o, "*", "*", "sizes", why);
			*nsizes = k;
			return 0;
		}
	}
	return 0;
}

static void checkpoint(const struct series *s, struct nbw_doc *doc, const char *outdir)
{
	char werr[NBW_REASON_LEN];
	if (outdir && nbw_doc_write(doc, outdir, werr, sizeof(werr)) && !s->o->quiet)
		fprintf(stderr, "nodebw: checkpoint: %s\n", werr);
}

/* Enable or disable peer access for every pair of the series (outside the timed region). */
static int set_peer_access(struct series *s, char *why, size_t whylen)
{
	if (s->peer == NBW_PEER_NA)
		return 0;
	for (unsigned i = 0; i < s->nstreams; i++)
		if (nbw_peer_access_pair(s->ops, s->be, s->src[i], s->dst[i],
					 s->peer == NBW_PEER_ON, why, whylen))
			return -1;
	return 0;
}

/* The NUMA node of each stream under the series' binding policy. */
static int plan_binding(struct series *s, char *why, size_t whylen)
{
	for (unsigned i = 0; i < s->nstreams; i++) {
		s->node[i] = -1;
		if (s->bind == NBW_BIND_NONE)
			continue;
		if (!topo) {
			snprintf(why, whylen, "binding needs the topology, which could not be read");
			return -1;
		}
		int dev = s->dir == NBW_HTOD ? s->dst[i] : s->src[i];
		if (nbw_topo_bind_node(topo, s->devinfo[dev].pci_bus_id, s->bind, &s->node[i], why,
				       whylen))
			return -1;
	}
	return 0;
}

/* The series of one (direction, mode): host memory kinds x one or two host threads x peer
 * access. A combination the backend cannot do is recorded as skipped with its reason. */
/* One device set of a series: its peer-access and binding axes. */
static void run_set(struct series *s, const struct nbw_plan_set *set, const char *what,
		    const char *probe, struct nbw_doc *doc, const char *outdir,
		    struct nbw_run_status *st)
{
	const struct nbw_probe_opts *o = s->o;
	const struct nbw_backend_ops *ops = s->ops;
	char why[NBW_REASON_LEN] = "";
	s->conc = set->conc;
	s->nstreams = set->nstreams;
	s->matrix_only = set->matrix_only;
	for (unsigned i = 0; i < s->nstreams; i++) {
		s->src[i] = set->src[i];
		s->dst[i] = set->dst[i];
	}
	s->gated = s->nstreams > 1 && s->mode == NBW_MODE_ASYNC && ops->submit && ops->release &&
		   ops->complete;
	bool peer_axis = s->dir == NBW_P2P && ops->peer_access && s->src[0] != s->dst[0];
	for (int pe = 0; pe < (peer_axis ? 2 : 1) && !nbw_stop_requested; pe++) {
		s->peer = !peer_axis ? NBW_PEER_NA : pe == 0 ? NBW_PEER_ON : NBW_PEER_OFF;
		if (peer_axis && !o->peer[pe])
			continue;
		if (set_peer_access(s, why, sizeof(why))) {
			char w2[160];
			snprintf(w2, sizeof(w2), "%s %d->%d, peer access %s", what, s->src[0],
				 s->dst[0], nbw_peer_name(s->peer));
			skip(doc, st, o, ops->name, probe, w2, why);
			continue;
		}
		for (int bp = 0; bp < 3 && !nbw_stop_requested; bp++) {
			if (!o->bind[bp])
				continue;
			s->bind = (enum nbw_bind_policy)bp;
			if (plan_binding(s, why, sizeof(why))) {
				char w2[160];
				snprintf(w2, sizeof(w2), "%s, bind %s", what,
					 nbw_bind_policy_name(s->bind));
				skip(doc, st, o, ops->name, probe, w2, why);
				continue;
			}
			run_series(s, doc, st);
			checkpoint(s, doc, outdir);
		}
	}
}

static void run_mode(struct series *s, int nd, const int *devs, struct nbw_doc *doc,
		     const char *outdir, struct nbw_run_status *st)
{
	const struct nbw_probe_opts *o = s->o;
	const struct nbw_backend_ops *ops = s->ops;
	char probe[48], why[NBW_REASON_LEN] = "";
	snprintf(probe, sizeof(probe), "%s-%s", ops->name, nbw_dir_name(s->dir));
	s->interface = ops->interface(s->dir, s->mode, why, sizeof(why));
	if (!s->interface) {
		skip(doc, st, o, ops->name, probe, nbw_mode_name(s->mode), why);
		return;
	}
	for (int mem = 0; mem < NBW_HOSTMEM_NONE && !nbw_stop_requested; mem++) {
		if (s->dir == NBW_P2P && mem > 0)
			break;
		if (s->dir != NBW_P2P && !o->hostmem[mem])
			continue;
		s->mem = s->dir == NBW_P2P ? NBW_HOSTMEM_NONE : (enum nbw_hostmem)mem;
		for (int t = 0; t < 2 && !nbw_stop_requested; t++) {
			if (!o->threads[t])
				continue;
			char what[80];
			snprintf(what, sizeof(what), "%s %s %s", nbw_mode_name(s->mode),
				 nbw_hostmem_name(s->mem),
				 t ? (s->dir == NBW_P2P ? "bidir" : "dual") : "single");
			if (ops->supports &&
			    ops->supports(s->be, s->dir, s->mode, s->mem, why, sizeof(why))) {
				skip(doc, st, o, ops->name, probe, what, why);
				continue;
			}
			size_t maxsets = (size_t)nd * (size_t)nd + 1;
			struct nbw_plan_set *sets = calloc(maxsets, sizeof(*sets));
			size_t nsets = sets ? nbw_plan_sets(s->dir, t + 1, devs, nd, o->ndevices > 0,
							    sets, maxsets)
					    : 0;
			if (nsets == 0) {
				snprintf(why, sizeof(why), "%s",
					 !sets		? "out of memory"
					 : o->ndevices ? "needs two devices; --devices lists one"
						       : "needs two devices; the API has only one");
				skip(doc, st, o, ops->name, probe, what, why);
				free(sets);
				continue;
			}
			for (size_t k = 0; k < nsets && !nbw_stop_requested; k++)
				run_set(s, &sets[k], what, probe, doc, outdir, st);
			free(sets);
		}
	}
}

static void run_backend(const struct nbw_backend_ops *ops, const struct nbw_probe_opts *o,
			struct nbw_doc *doc, const char *outdir, struct nbw_run_status *st,
			int *usage_rc, char *err, size_t errlen)
{
	char why[NBW_REASON_LEN] = "";
	struct nbw_backend *be = NULL;
	struct nbw_backend_opts bo = { .cuda_sched = o->cuda_sched };
	int rc = ops->open(&be, &bo, why, sizeof(why));
	if (rc) {
		/* -ENODEV: no driver or device, a skip; anything else: the API is there but
		 * cannot be used (e.g. a driver older than the runtime), an error. */
		backend_unavailable(doc, st, o, ops->name, why[0] ? why : strerror(-rc),
				    rc != -ENODEV);
		return;
	}
	struct series *s = calloc(1, sizeof(*s));
	if (!s) {
		ops->close(be);
		return;
	}
	int ndev = ops->device_count(be);
	struct nbw_bufpool bufs;
	nbw_bufpool_init(&bufs, ops, be, nbw_sysinfo_mem_available() / 2);
	s->ops = ops;
	s->be = be;
	s->pool = &bufs;
	s->o = o;
	for (int d = 0; d < ndev && d < NBW_MAX_DEVICES; d++) {
		ops->device_info(be, d, &s->devinfo[d]);
		nbw_doc_add_device(doc, ops->name, &s->devinfo[d]);
		if (topo)
			nbw_topo_add_api_device(topo, ops->name, &s->devinfo[d]);
	}
	add_versions(doc, ops, be);
	int devs[NBW_MAX_DEVICES], nd = 0;
	if (o->ndevices) {
		for (int i = 0; i < o->ndevices; i++) {
			if (o->devices[i] >= ndev) {
				snprintf(err, errlen,
					 "device id %d does not exist for API %s (it has %d device%s: "
					 "0-%d)",
					 o->devices[i], ops->name, ndev, ndev == 1 ? "" : "s", ndev - 1);
				*usage_rc = NBW_EXIT_USAGE;
				goto out;
			}
			devs[nd++] = o->devices[i];
		}
	} else {
		for (int d = 0; d < ndev && d < NBW_MAX_DEVICES; d++)
			devs[nd++] = d;
	}
	print_header_once();
	if (!o->quiet) {
		printf("\n%s: %d device%s", ops->name, ndev, ndev == 1 ? "" : "s");
		for (int d = 0; d < ndev && d < NBW_MAX_DEVICES; d++)
			printf("%s %d = %s", d ? ";" : ":", d, s->devinfo[d].name);
		printf("\n");
	}
	for (int dir = 0; dir < NBW_DIR_COUNT && !nbw_stop_requested; dir++) {
		s->dir = (enum nbw_dir)dir;
		if (!probe_selected(o, ops->name, s->dir))
			continue;
		for (int mode = 0; mode < NBW_MODE_COUNT && !nbw_stop_requested; mode++) {
			if (!o->modes[mode])
				continue;
			s->mode = (enum nbw_mode)mode;
			run_mode(s, nd, devs, doc, outdir, st);
		}
	}
out:
	nbw_bufpool_destroy(&bufs);
	free(s);
	ops->close(be);
}

int nbw_probe_run(const struct nbw_probe_opts *o, struct nbw_doc *doc, const char *outdir,
		  struct nbw_run_status *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	struct timespec res;
	clock_getres(CLOCK_MONOTONIC, &res);
	header_printed = o->quiet;
	timer_res_ns = (double)res.tv_nsec + (double)res.tv_sec * 1e9;
	size_t nsizes;
	int rc = check_memory(o, doc, st, &nsizes, err, errlen);
	if (rc)
		return rc;
	nbw_doc_set(doc, "interrupted", json_false()); /* checkpoints say so too */
	struct nbw_probe_opts local = *o;
	local.sizes.n = nsizes;
	json_t *sizes = json_array();
	for (size_t k = 0; k < nsizes; k++)
		json_array_append_new(sizes, json_integer((json_int_t)o->sizes.v[k].bytes));
	nbw_doc_set(doc, "settings",
		    json_pack("{s:s, s:i, s:i, s:i, s:f, s:o, s:i, s:s, s:f, s:s}", "profile",
			      o->profile == NBW_PROFILE_QUICK  ? "quick"
			      : o->profile == NBW_PROFILE_FULL ? "full"
							       : "default",
			      "warmup", (int)o->warmup, "min_repetitions", (int)o->min_reps,
			      "max_repetitions", (int)o->max_reps, "min_time_s", o->min_time_s,
			      "sizes", sizes, "hidden_helpers_effective",
			      nbw_effective_hidden_helpers(), "timer", "clock_gettime(CLOCK_MONOTONIC)",
			      "timer_resolution_s", (double)res.tv_sec + res.tv_nsec * 1e-9,
			      "cuda_sched", o->cuda_sched[0] ? o->cuda_sched : "auto"));
	char terr[NBW_REASON_LEN];
	if (nbw_topo_load(&topo, NULL, terr, sizeof(terr))) {
		topo = NULL;
		skip(doc, st, o, "*", "*", "topology", terr);
	}
	size_t n, nmiss;
	const struct nbw_backend_ops *const *all = nbw_backends(&n);
	const struct nbw_backend_missing *miss = nbw_backends_missing(&nmiss);
	for (size_t i = 0; i < nmiss; i++)
		if (api_selected(o, miss[i].name))
			backend_unavailable(doc, st, o, miss[i].name, miss[i].reason, false);
#if !NBW_HAVE_OMP
	if (api_selected(o, "omp"))
		backend_unavailable(doc, st, o, "omp", NBW_NO_OFFLOAD_REASON, false);
#endif
	/* Asked for by name but not compiled into this nodebw at all. */
	for (int i = 0; i < o->napis; i++) {
		bool known = nbw_backend_find(o->apis[i]) != NULL;
		for (size_t k = 0; k < nmiss; k++)
			known = known || strcmp(miss[k].name, o->apis[i]) == 0;
		known = known || (!NBW_HAVE_OMP && strcmp(o->apis[i], "omp") == 0);
		if (!known) {
			char why[NBW_REASON_LEN];
			snprintf(why, sizeof(why),
				 "not built into this nodebw (its runtime was not found at configure "
				 "time; see meson_options.txt)");
			backend_unavailable(doc, st, o, o->apis[i], why, false);
		}
	}
	int usage_rc = 0;
	bool any = false;
	for (size_t i = 0; i < n && !usage_rc && !nbw_stop_requested; i++) {
		if (!api_selected(o, all[i]->name))
			continue;
		any = true;
		run_backend(all[i], &local, doc, outdir, st, &usage_rc, err, errlen);
	}
	if (!any && !o->quiet)
		printf("no backend selected or built\n");
	st->interrupted = nbw_stop_requested != 0;
	nbw_doc_set(doc, "interrupted", json_boolean(st->interrupted));
	if (topo) {
		nbw_doc_set(doc, "topology", nbw_topo_to_json(topo));
		nbw_topo_free(topo);
		topo = NULL;
	}
	if (usage_rc)
		return usage_rc;
	nbw_gap_match_devices(doc->devices);
	json_t *gaps = nbw_gap_compute(doc->devices, doc->measurements);
	if (!o->quiet)
		nbw_gap_print(stdout, gaps);
	nbw_doc_set(doc, "gaps", gaps);
	if (outdir && nbw_doc_write(doc, outdir, err, errlen))
		return -1;
	return 0;
}
