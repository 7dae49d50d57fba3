/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/bufpool.h"

#include <errno.h>
#include <string.h>

void nbw_bufpool_init(struct nbw_bufpool *p, const struct nbw_backend_ops *ops,
		      struct nbw_backend *be, size_t budget)
{
	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->be = be;
	p->budget = budget;
}

static size_t held(const struct nbw_bufpool *p)
{
	size_t n = 0;
	for (int i = 0; i < NBW_POOL_SLOTS; i++)
		if (p->slot[i].ptr)
			n += p->slot[i].bytes;
	return n;
}

static void release(struct nbw_bufpool *p, int i)
{
	p->ops->free(p->be, &p->slot[i]);
	memset(&p->slot[i], 0, sizeof(p->slot[i]));
}

size_t nbw_bufpool_idle_bytes(const struct nbw_bufpool *p)
{
	size_t n = 0;
	for (int i = 0; i < NBW_POOL_SLOTS; i++)
		if (p->slot[i].ptr && !p->busy[i])
			n += p->slot[i].bytes;
	return n;
}

int nbw_bufpool_get(struct nbw_bufpool *p, struct nbw_buf *b)
{
	for (int i = 0; i < NBW_POOL_SLOTS; i++) {
		struct nbw_buf *s = &p->slot[i];
		if (!p->busy[i] && s->ptr && s->loc == b->loc && s->device == b->device &&
		    s->bytes >= b->bytes) {
			p->busy[i] = true;
			b->ptr = s->ptr;
			return 0;
		}
	}
	/* Make room: drop idle buffers that are too small or of another kind. */
	for (int i = 0; i < NBW_POOL_SLOTS; i++)
		if (!p->busy[i] && p->slot[i].ptr &&
		    ((p->budget && held(p) + b->bytes > p->budget) ||
		     (p->slot[i].loc == b->loc && p->slot[i].device == b->device)))
			release(p, i);
	int free_slot = -1;
	for (int i = 0; i < NBW_POOL_SLOTS && free_slot < 0; i++)
		if (!p->slot[i].ptr)
			free_slot = i;
	int rc = p->ops->alloc(p->be, b);
	if (rc)
		return rc;
	if (free_slot >= 0) {
		p->slot[free_slot] = *b;
		p->busy[free_slot] = true;
	}
	return 0;
}

void nbw_bufpool_put(struct nbw_bufpool *p, const struct nbw_buf *b)
{
	for (int i = 0; i < NBW_POOL_SLOTS; i++)
		if (p->slot[i].ptr == b->ptr && p->busy[i]) {
			p->busy[i] = false;
			if (p->budget && held(p) > p->budget)
				release(p, i);
			return;
		}
	/* Not pooled (no free slot at the time): free it now. */
	struct nbw_buf copy = *b;
	p->ops->free(p->be, &copy);
}

void nbw_bufpool_destroy(struct nbw_bufpool *p)
{
	for (int i = 0; i < NBW_POOL_SLOTS; i++)
		if (p->slot[i].ptr)
			release(p, i);
}
