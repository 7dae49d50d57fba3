/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Buffers kept across series and sizes. A fresh allocation costs page faults (and on
 * some virtual machines far more on first use), which must stay out of a sweep: the probe
 * core takes buffers of the largest size from this pool and gives them back after a series.
 */
#ifndef NODEBW_BUFPOOL_H
#define NODEBW_BUFPOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/probe.h"

#define NBW_POOL_SLOTS 16

struct nbw_bufpool {
	const struct nbw_backend_ops *ops;
	struct nbw_backend *be;
	struct nbw_buf slot[NBW_POOL_SLOTS];
	bool busy[NBW_POOL_SLOTS];
	size_t budget;            /**< bytes the pool may hold (0 = no limit) */
};

void nbw_bufpool_init(struct nbw_bufpool *p, const struct nbw_backend_ops *ops,
		      struct nbw_backend *be, size_t budget);
/** A buffer of at least b->bytes at b->loc/b->device: fills b->ptr. 0 or -ENOMEM. */
int nbw_bufpool_get(struct nbw_bufpool *p, struct nbw_buf *b);
/** Give back a buffer obtained from nbw_bufpool_get. */
void nbw_bufpool_put(struct nbw_bufpool *p, const struct nbw_buf *b);
void nbw_bufpool_destroy(struct nbw_bufpool *p);
/** Bytes of the buffers the pool holds idle (reusable, or freed to make room). */
size_t nbw_bufpool_idle_bytes(const struct nbw_bufpool *p);

#endif
