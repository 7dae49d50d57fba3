/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP backend's exchange step (include/nodebw/probe.h, exchange()), issued as an
 * application issues it (the bundled solver's general version, heat/omp_general.c): one
 * parallel region with a host thread per sending device; each thread issues its device's
 * messages and waits for them, and the region's closing barrier ends the step.
 *   async  every call deferred (target nowait depend, omp_target_memcpy[_rect]_async), the
 *          device's messages of one field chained on one depobj (a depobj per field, the
 *          fields' chains independent), then a taskwait: the team's threads run each
 *          other's deferred work where they are idle;
 *   sync   blocking calls (target, omp_target_memcpy[_rect]) in turn.
 * A message: rect, one rectangular copy (host-staged: device box -> host box -> device
 * box); pack, gather kernel -> contiguous copy (host-staged: two) -> scatter kernel on the
 * receiver, launched by the sender's thread.
 *
 * Compiled with the offload flags (bw_omp/meson.build), never sanitised.
 */
#include "omp_exchange.h"

#include <omp.h>

#include "nodebw/face.h"
#include "omp_face.h"

/* The rectangular copies' arrays of message \p m, set before its tasks are issued: they
 * live in the message until the step ends. */
static void rect_args(struct omp_xmsg *m)
{
	const struct nbw_region *r = m->region;
	if (r->method != NBW_FACE_RECT)
		return;
	if (!m->hbox) {
		omp_rect_args_set(&m->rect[0], r, r->dst_at, r->src_at);
		return;
	}
	omp_rect_args_set(&m->rect[0], r, m->hregion->dst_at, r->src_at);
	omp_rect_args_set(&m->rect[1], r, r->dst_at, m->hregion->dst_at);
}

/* One message's calls; \p dep and \p tok: the sender's chain (async), else NULL. */
static int issue(struct omp_xmsg *m, omp_depend_t *dep, int *tok)
{
	const struct nbw_region *r = m->region;
	if (r->method == NBW_FACE_RECT) {
		if (!m->hbox)
			return omp_face_rect_args(m->dst, m->src, &m->rect[0], m->dd, m->sd, dep);
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

/* Every message of sender \p s once per field, a chain per field, then (async) the wait
 * for them. */
static int sender_step(struct omp_xmsg *m, unsigned n, unsigned fields, int s, bool async)
{
	int tok[NBW_FACE_MAX_FIELDS] = { 0 }, rc = 0;
	omp_depend_t dep[NBW_FACE_MAX_FIELDS];
	for (unsigned f = 0; async && f < fields; f++) {
#pragma omp depobj(dep[f]) depend(inout : tok[f])
	}
	for (unsigned f = 0; f < fields && rc == 0; f++)
		for (unsigned i = 0; i < n && rc == 0; i++)
			if (m[i].sender == s)
				rc = issue(&m[i], async ? &dep[f] : NULL, async ? &tok[f] : NULL);
	if (async) {
#pragma omp taskwait
	}
	for (unsigned f = 0; async && f < fields; f++) {
#pragma omp depobj(dep[f]) destroy
	}
	return rc;
}

int omp_exchange_step(struct omp_xmsg *m, unsigned n, unsigned fields, bool async,
		      int *failed_sender)
{
	int senders[OMP_XMSG_MAX];
	unsigned ns = 0;
	if (fields < 1 || fields > NBW_FACE_MAX_FIELDS)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		rect_args(&m[i]);
		unsigned k = 0;
		while (k < ns && senders[k] != m[i].sender)
			k++;
		if (k == ns && ns < OMP_XMSG_MAX)
			senders[ns++] = m[i].sender;
	}
	int rc = 0, who = -1;
	*failed_sender = -1;
	if (ns == 0)
		return 0;
#pragma omp parallel num_threads(ns) shared(rc, who)
	{
		/* Fewer threads than senders (OMP_THREAD_LIMIT): each takes several in turn. */
		for (unsigned k = (unsigned)omp_get_thread_num(); k < ns;
		     k += (unsigned)omp_get_num_threads()) {
			int r = sender_step(m, n, fields, senders[k], async);
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
