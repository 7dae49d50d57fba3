/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP backend's exchange step (include/nodebw/probe.h, exchange()), issued as an
 * application issues it (the bundled solver's general version, heat/omp_general.c): one
 * parallel region with a host thread per sending device; each thread issues its device's
 * messages and waits for them, and the region's closing barrier ends the step.
 *   async  every call deferred (target nowait depend, omp_target_memcpy[_rect]_async), the
 *          device's messages chained on one depobj as one field's are, then a taskwait: the
 *          team's threads run each other's deferred work where they are idle;
 *   sync   blocking calls (target, omp_target_memcpy[_rect]) in turn.
 * A message: rect, one rectangular copy (host-staged: device box -> host box -> device
 * box); pack, gather kernel -> contiguous copy (host-staged: two) -> scatter kernel on the
 * receiver, launched by the sender's thread.
 *
 * Compiled with the offload flags (bw_omp/meson.build), never sanitised.
 */
#include "omp_exchange.h"

#include <omp.h>

#include "omp_face.h"

/* One message's calls; \p dep and \p tok: the sender's chain (async), else NULL. The
 * rectangular copies' arrays live in the message until the step ends. */
static int issue(struct omp_xmsg *m, omp_depend_t *dep, int *tok)
{
	const struct nbw_region *r = m->region;
	if (r->method == NBW_FACE_RECT) {
		if (!m->hbox) {
			omp_rect_args_set(&m->rect[0], r, r->dst_at, r->src_at);
			return omp_face_rect_args(m->dst, m->src, &m->rect[0], m->dd, m->sd, dep);
		}
		omp_rect_args_set(&m->rect[0], r, m->hregion->dst_at, r->src_at);
		omp_rect_args_set(&m->rect[1], r, r->dst_at, m->hregion->dst_at);
		int rc = omp_face_rect_args(m->hbox, m->src, &m->rect[0], m->host, m->sd, dep);
		return rc ? rc
			  : omp_face_rect_args(m->dst, m->hbox, &m->rect[1], m->dd, m->host, dep);
	}
	omp_face_pack(m->src, r, r->src_at, m->lsrc, false, m->sd, m->sgpu, tok);
	int rc;
	if (!m->hbox) {
		rc = dep ? omp_target_memcpy_async(m->ldst, m->lsrc, m->bytes, 0, 0, m->dd, m->sd,
						   1, dep)
			 : omp_target_memcpy(m->ldst, m->lsrc, m->bytes, 0, 0, m->dd, m->sd);
	} else {
		rc = dep ? omp_target_memcpy_async(m->hbox, m->lsrc, m->bytes, 0, 0, m->host,
						   m->sd, 1, dep)
			 : omp_target_memcpy(m->hbox, m->lsrc, m->bytes, 0, 0, m->host, m->sd);
		if (rc == 0)
			rc = dep ? omp_target_memcpy_async(m->ldst, m->hbox, m->bytes, 0, 0, m->dd,
							   m->host, 1, dep)
				 : omp_target_memcpy(m->ldst, m->hbox, m->bytes, 0, 0, m->dd,
						     m->host);
	}
	if (rc == 0)
		omp_face_pack(m->dst, r, r->dst_at, m->ldst, true, m->dd, m->dgpu, tok);
	return rc;
}

/* Every message of sender \p s, then (async) the wait for them. */
static int sender_step(struct omp_xmsg *m, unsigned n, int s, bool async)
{
	int tok = 0, rc = 0;
	omp_depend_t dep;
	if (async) {
#pragma omp depobj(dep) depend(inout : tok)
	}
	for (unsigned i = 0; i < n && rc == 0; i++)
		if (m[i].sender == s)
			rc = issue(&m[i], async ? &dep : NULL, async ? &tok : NULL);
	if (async) {
#pragma omp taskwait
#pragma omp depobj(dep) destroy
	}
	return rc;
}

int omp_exchange_step(struct omp_xmsg *m, unsigned n, bool async, int *failed_sender)
{
	int senders[OMP_XMSG_MAX];
	unsigned ns = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;
		while (k < ns && senders[k] != m[i].sender)
			k++;
		if (k == ns && ns < OMP_XMSG_MAX)
			senders[ns++] = m[i].sender;
	}
	int rc = 0, who = -1;
#pragma omp parallel num_threads(ns) shared(rc, who)
	{
		/* Fewer threads than senders (OMP_THREAD_LIMIT): each takes several in turn. */
		for (unsigned k = (unsigned)omp_get_thread_num(); k < ns;
		     k += (unsigned)omp_get_num_threads()) {
			int r = sender_step(m, n, senders[k], async);
			if (r) {
#pragma omp critical(omp_exchange_rc)
				if (!rc) {
					rc = r;
					who = senders[k];
				}
			}
		}
	}
	*failed_sender = who;
	return rc;
}
