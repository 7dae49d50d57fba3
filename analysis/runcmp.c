/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two runs of one node compared (include/nodebw/runcmp.h). Every figure is the products'
 * own: A's products at A's comparison size, B's derived at the same size; the headlines
 * (nbw_headlines) and the paths' figures (nbw_path_figure) are read from them, never
 * recomputed here. What this file adds is the pairing, the noise rule and the order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/findings.h"
#include "nodebw/products.h"
#include "nodebw/results_view.h"
#include "nodebw/runcmp.h"

const char *nbw_rc_verdict_name(enum nbw_rc_verdict v)
{
	static const char *const n[] = { "worse", "better", "within noise", "not judged",
					 "only in A", "only in B" };
	return v < NBW_RC_NVERDICTS ? n[v] : "";
}

const char *nbw_rc_verdict_heading(enum nbw_rc_verdict v)
{
	static const char *const n[] = {
		"Worse (beyond noise)", "Better (beyond noise)", "Unchanged (within noise)",
		"Not judged (a figure without an interval)", "Only in A (no figure in B there)",
		"Only in B (no figure in A there)"
	};
	return v < NBW_RC_NVERDICTS ? n[v] : "";
}

/* ---- the runs ------------------------------------------------------------------------ */

static void run_of(json_t *root, const char *file, long long cmp, struct nbw_rc_run *r)
{
	struct nbw_rv_doc d;
	nbw_rv_doc_read(root, &d);
	snprintf(r->file, sizeof(r->file), "%s", file ? file : "");
	snprintf(r->host, sizeof(r->host), "%s", d.hostname);
	snprintf(r->created, sizeof(r->created), "%s", d.created);
	snprintf(r->version, sizeof(r->version), "%s", d.tool_version);
	snprintf(r->revision, sizeof(r->revision), "%s", d.tool_revision);
	r->comparison_bytes = cmp;
}

/* ---- the list of paths ------------------------------------------------------------------ */

struct list {
	struct nbw_rc_path *p;
	size_t n, cap;
	bool oom;
};

static struct nbw_rc_path *push(struct list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct nbw_rc_path *t = realloc(l->p, cap * sizeof(*t));
		if (!t) {
			l->oom = true;
			return NULL;
		}
		l->p = t;
		l->cap = cap;
	}
	struct nbw_rc_path *p = &l->p[l->n++];
	memset(p, 0, sizeof(*p));
	p->ratio = NAN;
	p->a.gbps = p->a.lo_gbps = p->a.hi_gbps = NAN;
	p->b = p->a;
	return p;
}

static void side_of_headline(const struct nbw_headline *h, struct nbw_rc_side *s)
{
	s->present = true;
	s->gbps = h->gbps;
	s->lo_gbps = h->lo_gbps;
	s->hi_gbps = h->hi_gbps;
	s->members = h->members;
	snprintf(s->how, sizeof(s->how), "%s", h->how);
}

static void side_of_fig(const struct nbw_path_fig *f, struct nbw_rc_side *s)
{
	s->present = true;
	s->gbps = f->gbps;
	s->lo_gbps = f->lo_gbps;
	s->hi_gbps = f->hi_gbps;
	s->members = f->members;
}

/* The pair's verdict and ratio from its two sides. */
static void judge(struct nbw_rc_path *p)
{
	if (!p->a.present || !p->b.present) {
		p->verdict = p->a.present ? NBW_RC_ONLY_A : NBW_RC_ONLY_B;
		return;
	}
	p->ratio = p->b.gbps / p->a.gbps;
	bool ci = isfinite(p->a.lo_gbps) && isfinite(p->a.hi_gbps) && isfinite(p->b.lo_gbps) &&
		  isfinite(p->b.hi_gbps);
	if (!ci)
		p->verdict = NBW_RC_NO_INTERVAL;
	else if (p->b.hi_gbps < p->a.lo_gbps)
		p->verdict = NBW_RC_WORSE;
	else if (p->b.lo_gbps > p->a.hi_gbps)
		p->verdict = NBW_RC_BETTER;
	else
		p->verdict = NBW_RC_SAME;
}

/* ---- headlines ------------------------------------------------------------------------ */

static const char *headline_words(const char *what)
{
	return !strcmp(what, "htod")   ? "HtoD (best mode and memory)"
	       : !strcmp(what, "dtoh") ? "DtoH (best mode and memory)"
	       : !strcmp(what, "p2p")  ? "P2P (best mode)"
				       : "every device at once (highest aggregate)";
}

static const struct nbw_headline *find_headline(const struct nbw_products *p, const char *api,
						 const char *what)
{
	for (size_t i = 0; p && i < p->nheadlines; i++)
		if (!strcmp(p->headlines[i].api, api) && !strcmp(p->headlines[i].what, what))
			return &p->headlines[i];
	return NULL;
}

static void headline_path(struct list *l, const char *api, const char *what,
			  const struct nbw_headline *ha, const struct nbw_headline *hb,
			  bool b_other_size)
{
	struct nbw_rc_path *p = push(l);
	if (!p)
		return;
	p->headline = true;
	snprintf(p->api, sizeof(p->api), "%s", api);
	snprintf(p->what, sizeof(p->what), "%s", what);
	snprintf(p->name, sizeof(p->name), "%s %s", api, headline_words(what));
	p->bytes = ha ? ha->bytes : hb->bytes;
	if (ha)
		side_of_headline(ha, &p->a);
	if (hb)
		side_of_headline(hb, &p->b);
	p->b_other_size = !hb && b_other_size;
	judge(p);
}

/* A's headlines against B's at A's size (\p pb), then B's alone (at A's size, else at its
 * own, \p pbo). */
static void headlines(struct list *l, const struct nbw_products *pa, const struct nbw_products *pb,
		      const struct nbw_products *pbo)
{
	for (size_t i = 0; i < pa->nheadlines; i++) {
		const struct nbw_headline *h = &pa->headlines[i];
		headline_path(l, h->api, h->what, h, find_headline(pb, h->api, h->what),
			      pbo != pb && find_headline(pbo, h->api, h->what));
	}
	const struct nbw_products *bs[2] = { pb, pbo };
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < bs[k]->nheadlines; i++) {
			const struct nbw_headline *h = &bs[k]->headlines[i];
			bool seen = find_headline(pa, h->api, h->what) != NULL;
			for (size_t j = 0; j < l->n && !seen; j++)
				seen = l->p[j].headline && !strcmp(l->p[j].api, h->api) &&
				       !strcmp(l->p[j].what, h->what);
			if (!seen)
				headline_path(l, h->api, h->what, NULL, h, false);
		}
}

/* ---- summary paths ---------------------------------------------------------------------- */

/* One summary path: a device table's or a single-stream P2P matrix's key. */
struct key {
	const char *api, *dir, *mode, *host_mem, *peer, *bind;
};

static bool path_fig(const struct nbw_products *p, const struct key *k, struct nbw_path_fig *f)
{
	return nbw_path_figure(p->device_tables, p->matrices, k->api, k->dir, k->mode,
			       k->host_mem, k->peer, k->bind, f);
}

static bool same_key(const struct nbw_rc_path *p, const struct key *k)
{
	return !p->headline && !strcmp(p->api, k->api) && !strcmp(p->what, k->dir) &&
	       !strcmp(p->mode, k->mode) && !strcmp(p->host_mem, k->host_mem) &&
	       !strcmp(p->peer_access, k->peer) && !strcmp(p->binding, k->bind);
}

static void path_name(const struct key *k, char *out, size_t len)
{
	bool p2p = !strcmp(k->dir, "p2p");
	bool peer = p2p && k->peer[0] && strcmp(k->peer, "n/a") != 0;
	bool bind = k->bind[0] && strcmp(k->bind, "local") != 0 && strcmp(k->bind, "none") != 0;
	snprintf(out, len, "%s %s %s%s%s%s%s%s%s", k->api, k->dir, k->mode, p2p ? "" : " ",
		 p2p ? "" : k->host_mem, peer ? " peer access " : "", peer ? k->peer : "",
		 bind ? " bound " : "", bind ? k->bind : "");
}

/* Path \p k once: its figure in A (\p pa) and B (at A's size, \p pb; \p pbo: B's own). */
static void key_path(struct list *l, const struct key *k, const struct nbw_products *pa,
		     const struct nbw_products *pb, const struct nbw_products *pbo)
{
	for (size_t j = 0; j < l->n; j++)
		if (same_key(&l->p[j], k))
			return;
	struct nbw_path_fig fa, fb, fo = { NAN, NAN, NAN, 0, -1 };
	bool ina = path_fig(pa, k, &fa), inb = path_fig(pb, k, &fb);
	bool ino = !inb && pbo != pb && path_fig(pbo, k, &fo);
	if (!ina && !inb && !ino)
		return;
	struct nbw_rc_path *p = push(l);
	if (!p)
		return;
	snprintf(p->api, sizeof(p->api), "%s", k->api);
	snprintf(p->what, sizeof(p->what), "%s", k->dir);
	snprintf(p->mode, sizeof(p->mode), "%s", k->mode);
	snprintf(p->host_mem, sizeof(p->host_mem), "%s", k->host_mem);
	snprintf(p->peer_access, sizeof(p->peer_access), "%s", k->peer);
	snprintf(p->binding, sizeof(p->binding), "%s", k->bind);
	path_name(k, p->name, sizeof(p->name));
	if (ina)
		side_of_fig(&fa, &p->a);
	if (inb)
		side_of_fig(&fb, &p->b);
	else if (!ina && ino) /* only in B, at its own size */
		side_of_fig(&fo, &p->b);
	p->bytes = ina ? fa.bytes : inb ? fb.bytes : fo.bytes;
	p->b_other_size = ina && !inb && ino;
	judge(p);
}

static void paths_of(struct list *l, const struct nbw_products *src, const struct nbw_products *pa,
		     const struct nbw_products *pb, const struct nbw_products *pbo)
{
	size_t i;
	json_t *t;
	json_array_foreach(src->device_tables, i, t) {
		struct nbw_pv_table v;
		nbw_pv_table(t, &v);
		struct key k = { v.api, v.direction, v.mode, v.host_mem, "n/a", v.binding };
		key_path(l, &k, pa, pb, pbo);
	}
	json_array_foreach(src->matrices, i, t) {
		struct nbw_pv_matrix v;
		nbw_pv_matrix(t, &v);
		if (strcmp(v.concurrency, "single") != 0)
			continue;
		struct key k = { v.api, "p2p", v.mode, "none", v.peer_access, v.binding };
		key_path(l, &k, pa, pb, pbo);
	}
}

/* ---- order ------------------------------------------------------------------------------ */

struct ranked {
	struct nbw_rc_path p;
	size_t at;
};

static int by_verdict(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	if (a->p.verdict != b->p.verdict)
		return a->p.verdict < b->p.verdict ? -1 : 1;
	/* the worst first among the worse, the best first among the better */
	if (a->p.verdict == NBW_RC_WORSE && a->p.ratio != b->p.ratio)
		return a->p.ratio < b->p.ratio ? -1 : 1;
	if (a->p.verdict == NBW_RC_BETTER && a->p.ratio != b->p.ratio)
		return a->p.ratio > b->p.ratio ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static int order(struct list *l)
{
	struct ranked *r = calloc(l->n ? l->n : 1, sizeof(*r));
	if (!r)
		return -1;
	for (size_t i = 0; i < l->n; i++)
		r[i] = (struct ranked){ l->p[i], i };
	qsort(r, l->n, sizeof(*r), by_verdict);
	for (size_t i = 0; i < l->n; i++)
		l->p[i] = r[i].p;
	free(r);
	return 0;
}

/* ---- the comparison --------------------------------------------------------------------- */

int nbw_runcmp(json_t *a, const char *file_a, json_t *b, const char *file_b,
	       struct nbw_runcmp *out)
{
	memset(out, 0, sizeof(*out));
	struct nbw_products pa, pbo, pbat;
	if (nbw_products_derive(a, &pa) != 0)
		return -1;
	if (nbw_products_derive(b, &pbo) != 0) {
		nbw_products_release(&pa);
		return -1;
	}
	/* B at A's comparison size: the same products, read where A's figures are. */
	const struct nbw_products *pb = &pbo;
	bool other = pa.comparison_bytes != pbo.comparison_bytes;
	if (other) {
		if (nbw_products_derive_at(b, pa.comparison_bytes, &pbat) != 0) {
			nbw_products_release(&pa);
			nbw_products_release(&pbo);
			return -1;
		}
		pb = &pbat;
	}
	run_of(a, file_a, pa.comparison_bytes, &out->a);
	run_of(b, file_b, pbo.comparison_bytes, &out->b);
	out->hosts_differ = out->a.host[0] && out->b.host[0] && strcmp(out->a.host, out->b.host);
	out->bytes = pa.comparison_bytes;
	struct list l = { 0 };
	headlines(&l, &pa, pb, &pbo);
	paths_of(&l, &pa, &pa, pb, &pbo);
	paths_of(&l, pb, &pa, pb, &pbo);
	if (other)
		paths_of(&l, &pbo, &pa, pb, &pbo);
	int rc = l.oom || order(&l) ? -1 : 0;
	nbw_products_release(&pa);
	nbw_products_release(&pbo);
	if (other)
		nbw_products_release(&pbat);
	if (rc) {
		free(l.p);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->paths = l.p;
	out->npaths = l.n;
	for (size_t i = 0; i < l.n; i++)
		out->counts[l.p[i].verdict]++;
	return 0;
}

void nbw_runcmp_release(struct nbw_runcmp *c)
{
	if (!c)
		return;
	free(c->paths);
	memset(c, 0, sizeof(*c));
}
