/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer access of a device pair, set both ways. A P2P series with peer access "on" or "off"
 * must leave the pair in that state in both directions: a bidirectional "on" series enables
 * a->b and b->a, and a later unidirectional "off" series that disabled only a->b would
 * leave b->a enabled (nvbandwidth, too, enables and disables each pair both ways).
 */
#include "nodebw/backends.h"

int nbw_peer_access_pair(const struct nbw_backend_ops *ops, struct nbw_backend *be, int a,
			 int b, bool enable, char *why, size_t whylen)
{
	if (!ops->peer_access || a == b)
		return 0;
	if (ops->peer_access(be, a, b, enable, why, whylen))
		return -1;
	return ops->peer_access(be, b, a, enable, why, whylen);
}
