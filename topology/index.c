// SPDX-License-Identifier: BSD-3-Clause
/* Lookups that keep the matrix near-linear in the number of devices and links: a hash of
 * device ids (topo_find), and, once topo_finalize has numbered the devices, the links and
 * hwloc's GPU figures sorted by device pair (topo_find_link, topo_find_hwfig). An index
 * that could not be allocated, or that is out of date, falls back to the linear scan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

static uint64_t hash_id(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void id_put(int *tab, size_t cap, const struct nbw_topo *t, int i)
{
	size_t k = hash_id(t->dev[i].pub.id) & (cap - 1);
	while (tab[k] >= 0)
		k = (k + 1) & (cap - 1);
	tab[k] = i;
}

void topo_id_rebuild(struct nbw_topo *t)
{
	size_t cap = 64;
	while (cap < 2 * t->ndev + 2)
		cap *= 2;
	free(t->idtab);
	t->idtab = malloc(cap * sizeof(int));
	t->idcap = t->idtab ? cap : 0;
	for (size_t k = 0; k < t->idcap; k++)
		t->idtab[k] = -1;
	t->idn = 0;
	for (size_t i = 0; i < t->ndev && t->idtab; i++)
		if (t->dev[i].pub.id[0]) {
			id_put(t->idtab, t->idcap, t, (int)i);
			t->idn++;
		}
}

void topo_id_insert(struct nbw_topo *t, int i)
{
	if (2 * (t->idn + 1) > t->idcap) {
		topo_id_rebuild(t); /* includes device i */
		return;
	}
	id_put(t->idtab, t->idcap, t, i);
	t->idn++;
}

int topo_id_lookup(const struct nbw_topo *t, const char *id)
{
	if (!t->idcap) {
		for (size_t i = 0; i < t->ndev; i++)
			if (strcmp(t->dev[i].pub.id, id) == 0)
				return (int)i;
		return -1;
	}
	for (size_t k = hash_id(id) & (t->idcap - 1); t->idtab[k] >= 0;
	     k = (k + 1) & (t->idcap - 1))
		if (strcmp(t->dev[t->idtab[k]].pub.id, id) == 0)
			return t->idtab[k];
	return -1;
}

static int pair_cmp(const void *pa, const void *pb)
{
	const struct topo_pairkey *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	if (a->hint != b->hint)
		return a->hint < b->hint ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static bool is_hint(enum nbw_link_kind k)
{
	return k >= NBW_LINK_PIX && k <= NBW_LINK_SYS;
}

/* The first entry of \p v (sorted) with this pair and hint flag: the one a scan in the
 * original order would have found first. */
static const struct topo_pairkey *lower(const struct topo_pairkey *v, size_t n, int a, int b,
					bool hint)
{
	struct topo_pairkey key = { a < b ? a : b, a < b ? b : a, hint, -1 };
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pair_cmp(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].lo == key.lo && v[lo].hi == key.hi && v[lo].hint == hint ?
	       &v[lo] : NULL;
}

void topo_pairs_rebuild(struct nbw_topo *t)
{
	free(t->linkidx);
	free(t->figidx);
	t->linkidx = t->figidx = NULL;
	t->nlinkidx = t->nfigidx = 0;
	t->linkidx_valid = t->figidx_valid = false;
	t->linkidx = malloc((t->nlink ? t->nlink : 1) * sizeof(*t->linkidx));
	if (t->linkidx) {
		for (size_t i = 0; i < t->nlink; i++) {
			const struct topo_link *l = &t->link[i];
			t->linkidx[i] = (struct topo_pairkey){ l->a < l->b ? l->a : l->b,
				l->a < l->b ? l->b : l->a, is_hint(l->kind), (int)i };
		}
		qsort(t->linkidx, t->nlink, sizeof(*t->linkidx), pair_cmp);
		t->nlinkidx = t->nlink;
		t->linkidx_valid = true;
	}
	t->figidx = malloc((t->nhwfig ? t->nhwfig : 1) * sizeof(*t->figidx));
	if (t->figidx) {
		size_t n = 0;
		for (size_t i = 0; i < t->nhwfig; i++) {
			int a = topo_id_lookup(t, t->hwfig[i].a), b = topo_id_lookup(t, t->hwfig[i].b);
			if (a >= 0 && b >= 0)
				t->figidx[n++] = (struct topo_pairkey){ a < b ? a : b, a < b ? b : a,
									false, (int)i };
		}
		qsort(t->figidx, n, sizeof(*t->figidx), pair_cmp);
		t->nfigidx = n;
		t->figidx_ndev = t->ndev;
		t->figidx_valid = true;
	}
}

const struct topo_link *topo_find_link(const struct nbw_topo *t, int a, int b, bool hints)
{
	if (t->linkidx_valid && t->nlinkidx == t->nlink) {
		const struct topo_pairkey *k = lower(t->linkidx, t->nlinkidx, a, b, hints);
		return k ? &t->link[k->idx] : NULL;
	}
	for (size_t i = 0; i < t->nlink; i++) {
		const struct topo_link *l = &t->link[i];
		if (((l->a == a && l->b == b) || (l->a == b && l->b == a)) &&
		    is_hint(l->kind) == hints)
			return l;
	}
	return NULL;
}

const struct topo_hwfig *topo_find_hwfig(const struct nbw_topo *t, int a, int b)
{
	const struct nbw_topo_device *x = &t->dev[a].pub, *y = &t->dev[b].pub;
	if (x->tile >= 0 || y->tile >= 0 || !x->pci_bus_id[0] || !y->pci_bus_id[0])
		return NULL;
	/* devices added after the index was built may be named by a figure: scan then */
	if (t->figidx_valid && t->figidx_ndev == t->ndev) {
		const struct topo_pairkey *k = lower(t->figidx, t->nfigidx, a, b, false);
		return k ? &t->hwfig[k->idx] : NULL;
	}
	for (size_t i = 0; i < t->nhwfig; i++) {
		const struct topo_hwfig *h = &t->hwfig[i];
		if ((strcmp(h->a, x->pci_bus_id) == 0 && strcmp(h->b, y->pci_bus_id) == 0) ||
		    (strcmp(h->a, y->pci_bus_id) == 0 && strcmp(h->b, x->pci_bus_id) == 0))
			return h;
	}
	return NULL;
}
