/* SPDX-License-Identifier: BSD-3-Clause */
/* The device sets of a series (include/nodebw/plan.h): pure data, no backend. */
#include "nodebw/plan.h"

static void put(struct nbw_plan_set *out, size_t max, size_t *n, unsigned ns, const int *src,
		const int *dst, enum nbw_conc conc, bool matrix_only)
{
	if (*n >= max)
		return;
	struct nbw_plan_set *s = &out[(*n)++];
	s->nstreams = ns;
	s->conc = conc;
	s->matrix_only = matrix_only;
	for (unsigned i = 0; i < 2; i++) {
		s->src[i] = i < ns ? src[i] : -1;
		s->dst[i] = i < ns ? dst[i] : -1;
	}
}

size_t nbw_plan_sets(enum nbw_dir dir, int threads, const int *devs, int nd, bool named,
		     struct nbw_plan_set *out, size_t max)
{
	size_t n = 0;
	if (nd < 1 || (threads == 2 && nd < 2))
		return 0;
	if (dir != NBW_P2P) {
		bool htod = dir == NBW_HTOD;
		if (threads == 2) {
			int src[2] = { htod ? -1 : devs[0], htod ? -1 : devs[1] };
			int dst[2] = { htod ? devs[0] : -1, htod ? devs[1] : -1 };
			put(out, max, &n, 2, src, dst, NBW_CONC_DUAL, false);
			return n;
		}
		for (int i = 0; i < nd; i++) {
			int src = htod ? -1 : devs[i], dst = htod ? devs[i] : -1;
			put(out, max, &n, 1, &src, &dst, NBW_CONC_SINGLE, !named && i > 0);
		}
		return n;
	}
	if (nd == 1) { /* a same-device copy, labelled so (never a peer link) */
		if (threads == 1)
			put(out, max, &n, 1, devs, devs, NBW_CONC_SINGLE, false);
		return n;
	}
	/* Pairs in the order (0,1), (1,0), (0,2), (2,0), ...: the first pair first. */
	for (int j = 1; j < nd; j++)
		for (int i = 0; i < j; i++) {
			int a = devs[i], b = devs[j];
			bool first = i == 0 && j == 1;
			if (threads == 1) {
				put(out, max, &n, 1, &a, &b, NBW_CONC_SINGLE, !named && !first);
				put(out, max, &n, 1, &b, &a, NBW_CONC_SINGLE, !named && !first);
			} else {
				int src[2] = { a, b }, dst[2] = { b, a };
				put(out, max, &n, 2, src, dst, NBW_CONC_BIDIR, !named && !first);
			}
		}
	return n;
}
