/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP backend's exchange step (bw_omp/omp_exchange.c); private to bw_omp/. */
#ifndef NODEBW_OMP_EXCHANGE_H
#define NODEBW_OMP_EXCHANGE_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/probe.h"
#include "omp_face.h"

#define OMP_XMSG_MAX NBW_MAX_STREAMS

/* One message in runtime terms: pointers, runtime device numbers, kernel forms. */
struct omp_xmsg {
	const struct nbw_region *region, *hregion;
	void *src, *dst, *lsrc, *ldst, *hbox;   /* hbox NULL: device to device */
	int sd, dd, host;                       /* runtime device numbers */
	int sender;                             /* the backend's index of the sending device */
	bool sgpu, dgpu;                        /* the pack kernels' form on each side */
	size_t bytes;                           /* the face's bytes (the packed copy) */
	struct omp_rect_args rect[2];           /* the rectangular copies' arrays (filled by
						   the step; read when their tasks run) */
};

/* One step: a host thread per sender, each issuing its messages once per field (\p async:
 * deferred, chained per field, then waited for; else blocking in turn). 0, or the first
 * failing call's return code with its sender in \p failed_sender. */
int omp_exchange_step(struct omp_xmsg *m, unsigned n, unsigned fields, bool async,
		      int *failed_sender);

#endif
