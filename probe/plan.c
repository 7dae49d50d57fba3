/* SPDX-License-Identifier: BSD-3-Clause */
/* The planner (include/nodebw/plan.h): pure data, no backend. */
#include "nodebw/plan.h"
#include "plan_priv.h"
#include "nodebw/chase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct nbw_plan_set *put(struct nbw_plan_set *out, size_t max, size_t *n, unsigned ns,
				enum nbw_conc conc, bool matrix_only)
{
	if (*n >= max)
		return NULL;
	struct nbw_plan_set *s = &out[(*n)++];
	memset(s, 0, sizeof(*s));
	s->nstreams = ns;
	s->conc = conc;
	s->matrix_only = matrix_only;
	return s;
}

/* Classes already given a whole sweep (a small set: there are few kinds of link). */
struct seen {
	int cls[64];
	size_t n;
};

static bool first_of_class(const struct nbw_plan_devices *d, struct seen *seen, int a, int b)
{
	int c = d->pair_class ? d->pair_class(d->ctx, a, b) : 0;
	for (size_t i = 0; i < seen->n; i++)
		if (seen->cls[i] == c)
			return false;
	if (seen->n < sizeof(seen->cls) / sizeof(seen->cls[0]))
		seen->cls[seen->n++] = c;
	return true;
}

size_t nbw_plan_sets(const struct nbw_series_kind *k, const struct nbw_plan_devices *d,
		     struct nbw_plan_set *out, size_t max)
{
	size_t n = 0;
	const int *devs = d->devs;
	int nd = d->nd > NBW_MAX_STREAMS ? NBW_MAX_STREAMS : d->nd;
	if (nd < 1 || nd < k->min_devices)
		return 0;
	struct nbw_plan_set *s;
	if (k->dir != NBW_P2P) {
		bool htod = k->dir == NBW_HTOD;
		int ns = k->conc == NBW_CONC_SINGLE ? 1 : k->conc == NBW_CONC_DUAL ? 2 : nd;
		if (k->conc == NBW_CONC_SINGLE) {
			for (int i = 0; i < nd; i++)
				if ((s = put(out, max, &n, 1, k->conc, !d->named && i > 0))) {
					s->src[0] = htod ? -1 : devs[i];
					s->dst[0] = htod ? devs[i] : -1;
				}
			return n;
		}
		/* Dual: the first two devices (the models' contention figure); all: every one. */
		if ((s = put(out, max, &n, (unsigned)ns, k->conc,
			     k->conc == NBW_CONC_ALL && !d->named)))
			for (int i = 0; i < ns; i++) {
				s->src[i] = htod ? -1 : devs[i];
				s->dst[i] = htod ? devs[i] : -1;
			}
		return n;
	}
	if (k->conc == NBW_CONC_RING) {
		if ((s = put(out, max, &n, (unsigned)nd, k->conc, !d->named)))
			for (int i = 0; i < nd; i++) {
				s->src[i] = devs[i];
				s->dst[i] = devs[(i + 1) % nd];
			}
		return n;
	}
	if (k->conc == NBW_CONC_A2A) {
		/* Every ordered pair at once, in the order 0->1, 0->2, ..., 1->0, ...; one set
		 * (the matrix sizes unless devices were named), at most NBW_A2A_MAX_DEVICES. */
		int na = nd > NBW_A2A_MAX_DEVICES ? NBW_A2A_MAX_DEVICES : nd;
		if ((s = put(out, max, &n, (unsigned)(na * (na - 1)), k->conc, !d->named))) {
			unsigned i = 0;
			for (int a = 0; a < na; a++)
				for (int b = 0; b < na; b++)
					if (a != b) {
						s->src[i] = devs[a];
						s->dst[i++] = devs[b];
					}
		}
		return n;
	}
	if (nd == 1) { /* a same-device copy, labelled so (never a peer link) */
		if (k->conc == NBW_CONC_SINGLE && (s = put(out, max, &n, 1, k->conc, false)))
			s->src[0] = s->dst[0] = devs[0];
		return n;
	}
	/* Pairs in the order (0,1), (1,0), (0,2), (2,0), ...: the first pair first. */
	struct seen seen = { .n = 0 };
	for (int j = 1; j < nd; j++)
		for (int i = 0; i < j; i++) {
			int a = devs[i], b = devs[j];
			bool sweep = d->named || first_of_class(d, &seen, a, b);
			if (k->conc == NBW_CONC_SINGLE) {
				if ((s = put(out, max, &n, 1, k->conc, !sweep)))
					s->src[0] = a, s->dst[0] = b;
				if ((s = put(out, max, &n, 1, k->conc, !sweep)))
					s->src[0] = b, s->dst[0] = a;
			} else if ((s = put(out, max, &n, 2, k->conc, !sweep))) {
				s->src[0] = a, s->dst[0] = b;
				s->src[1] = b, s->dst[1] = a;
			}
		}
	return n;
}

void nbw_plan_matrix_sizes(const struct nbw_sizes *v, size_t *small, size_t *large)
{
	nbw_plan_matrix_sizes_upto(v, NBW_MATRIX_MAX_BYTES, small, large);
}

uint64_t nbw_plan_matrix_max_bytes(const struct nbw_probe_opts *o)
{
	return o->profile == NBW_PROFILE_QUICK && !o->sizes_given ? NBW_QUICK_MATRIX_MAX_BYTES
								  : NBW_MATRIX_MAX_BYTES;
}

void nbw_plan_matrix_sizes_upto(const struct nbw_sizes *v, uint64_t max_bytes, size_t *small,
				size_t *large)
{
	*small = 0;
	*large = v->n ? v->n - 1 : 0;
	for (size_t k = v->n; k-- > 1;)
		if (v->v[k].bytes <= max_bytes) {
			*large = k;
			return;
		}
}

/* ---- series ------------------------------------------------------------------------- */

struct nbw_series_plan *nbw_plan_add(struct nbw_plan *p)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 32;
		struct nbw_series_plan *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		p->v = v;
		p->cap = cap;
	}
	struct nbw_series_plan *e = &p->v[p->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

int nbw_plan_add_skip(struct nbw_plan *p, const struct nbw_series_kind *k, enum nbw_mode mode,
		      enum nbw_hostmem mem, const char *what, const char *why)
{
	struct nbw_series_plan *e = nbw_plan_add(p);
	if (!e)
		return -1;
	e->kind = k;
	e->mode = mode;
	e->mem = mem;
	snprintf(e->what, sizeof(e->what), "%s", what);
	snprintf(e->skip, sizeof(e->skip), "%s", why && *why ? why : "not possible");
	return 0;
}

static int plan_kind(const struct nbw_probe_opts *o, const struct nbw_series_kind *k,
		     enum nbw_mode mode, enum nbw_hostmem mem, const char *iface,
		     const struct nbw_plan_caps *caps, const struct nbw_plan_devices *d,
		     struct nbw_plan *out)
{
	char what[96], why[NBW_REASON_LEN] = "";
	snprintf(what, sizeof(what), "%s %s %s", nbw_mode_name(mode), nbw_hostmem_name(mem),
		 k->pattern);
	if (caps->supports && caps->supports(caps->ctx, k->dir, mode, mem, why, sizeof(why)))
		return nbw_plan_add_skip(out, k, mode, mem, what, why);
	if (mode == NBW_MODE_PARALLEL && (k->conc == NBW_CONC_ALL || k->conc == NBW_CONC_RING ||
					  k->conc == NBW_CONC_A2A))
		return nbw_plan_add_skip(out, k, mode, mem, what,
				"the parallel mode spreads one copy over every host core already; "
				"several at once would only share the same cores");
	if (mode == NBW_MODE_CHASE && k->conc != NBW_CONC_SINGLE)
		return nbw_plan_add_skip(out, k, mode, mem, what,
				"a pointer chase is one thread's dependent loads on one path: a "
				"latency, measured on each path alone");
	size_t max = (size_t)d->nd * (size_t)d->nd + 1;
	struct nbw_plan_set *sets = calloc(max, sizeof(*sets));
	if (!sets)
		return -1;
	size_t nsets = nbw_plan_sets(k, d, sets, max);
	if (nsets == 0) {
		snprintf(why, sizeof(why), "needs %d devices; %s %d", k->min_devices,
			 d->named ? "--devices lists" : "the API has", d->nd);
		free(sets);
		return nbw_plan_add_skip(out, k, mode, mem, what, why);
	}
	bool peer_axis = k->dir == NBW_P2P && caps->peer_control && sets[0].src[0] != sets[0].dst[0];
	/* A kernel (or a chase) on the destination device reads the source's memory through
	 * the peer pointer: there is nothing to measure with peer access disabled. */
	bool peer_only = peer_axis && (mode == NBW_MODE_KERNEL || mode == NBW_MODE_CHASE);
	int rc = 0;
	if (peer_only && o->peer[1]) {
		char w2[128];
		snprintf(w2, sizeof(w2), "%s, peer access disabled", what);
		rc = nbw_plan_add_skip(out, k, mode, mem, w2,
			      "a kernel on the destination device reads the source device's memory "
			      "through the peer pointer, which needs peer access enabled");
	}
	for (size_t s = 0; s < nsets && rc == 0; s++)
		for (int pe = 0; pe < (peer_axis ? 2 : 1) && rc == 0; pe++) {
			if (peer_axis && (!o->peer[pe] || (peer_only && pe == 1)))
				continue;
			for (int bp = 0; bp < 3 && rc == 0; bp++) {
				if (!o->bind[bp])
					continue;
				struct nbw_series_plan *e = nbw_plan_add(out);
				if (!e) {
					rc = -1;
					break;
				}
				e->kind = k;
				e->mode = mode;
				e->mem = mem;
				e->peer = !peer_axis ? NBW_PEER_NA : pe == 0 ? NBW_PEER_ON : NBW_PEER_OFF;
				e->bind = (enum nbw_bind_policy)bp;
				e->interface = iface;
				e->set = sets[s];
				/* A chase runs two working sets on every path (exec.c). */
				if (mode == NBW_MODE_CHASE)
					e->set.matrix_only = true;
				snprintf(e->what, sizeof(e->what), "%s", what);
			}
		}
	free(sets);
	return rc;
}

int nbw_plan_series(const struct nbw_probe_opts *o, enum nbw_dir dir,
		    const struct nbw_plan_caps *caps, const struct nbw_plan_devices *d,
		    struct nbw_plan *out)
{
	if (o->nfaces) /* --faces: the face series in place of the size sweep */
		return nbw_plan_faces(o, dir, caps, d, out);
	size_t nk;
	const struct nbw_series_kind *kinds = nbw_series_kinds(&nk);
	for (int mode = 0; mode < NBW_MODE_COUNT; mode++) {
		if (!o->modes[mode])
			continue;
		char why[NBW_REASON_LEN] = "";
		const char *iface = caps->interface(dir, (enum nbw_mode)mode, why, sizeof(why));
		if (!iface) {
			if (nbw_plan_add_skip(out, NULL, (enum nbw_mode)mode, NBW_HOSTMEM_NONE,
				     nbw_mode_name((enum nbw_mode)mode), why))
				return -1;
			continue;
		}
		for (int mem = 0; mem < NBW_HOSTMEM_NONE; mem++) {
			if (dir == NBW_P2P && mem > 0)
				break;
			if (dir != NBW_P2P && !o->hostmem[mem])
				continue;
			enum nbw_hostmem hm = dir == NBW_P2P ? NBW_HOSTMEM_NONE : (enum nbw_hostmem)mem;
			for (size_t i = 0; i < nk; i++) {
				const struct nbw_series_kind *k = &kinds[i];
				if (k->dir != dir || !o->threads[k->threads] ||
				    nbw_conc_is_face(k->conc))
					continue;
				if (plan_kind(o, k, (enum nbw_mode)mode, hm, iface, caps, d, out))
					return -1;
			}
		}
	}
	return 0;
}

void nbw_plan_free(struct nbw_plan *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

size_t nbw_plan_measurements(const struct nbw_plan *p, size_t nsizes)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].face.on && !p->v[i].skip[0])
			n += 1; /* one box */
		else if (!p->v[i].skip[0])
			n += p->v[i].set.matrix_only && nsizes > 2 ? 2 : nsizes;
	return n;
}

bool nbw_plan_runs_size(const struct nbw_series_plan *p, const struct nbw_probe_opts *o,
			size_t k)
{
	size_t lo, hi;
	nbw_plan_matrix_sizes_upto(&o->sizes, nbw_plan_matrix_max_bytes(o), &lo, &hi);
	/* Several streams at once stop where the matrix cells do, unless the sizes were
	 * named. */
	bool capped = p->set.nstreams > 1 && !o->sizes_given;
	return !((p->set.matrix_only && k != lo && k != hi) || (capped && k > hi));
}

size_t nbw_plan_points(const struct nbw_series_plan *p, const struct nbw_probe_opts *o)
{
	if (p->skip[0])
		return 0;
	if (p->face.on)
		return 1; /* one box */
	if (o->sizes.n == 0)
		return 0;
	if (p->mode == NBW_MODE_CHASE) {
		/* Two working sets (one when they round to the same); a chase of several
		 * streams records the one error that says it cannot be. */
		size_t lo, hi;
		nbw_plan_matrix_sizes_upto(&o->sizes, nbw_plan_matrix_max_bytes(o), &lo, &hi);
		if (p->set.nstreams != 1)
			return 1;
		return nbw_chase_working_set(o->sizes.v[hi].bytes) >
				       nbw_chase_working_set(o->sizes.v[lo].bytes)
			       ? 2
			       : 1;
	}
	size_t n = 0;
	for (size_t k = 0; k < o->sizes.n; k++)
		n += nbw_plan_runs_size(p, o, k);
	return n;
}
