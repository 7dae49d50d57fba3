/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/backends.h"

#include <stdio.h>
#include <string.h>

#include "nodebw/config.h"

static const struct nbw_backend_ops *const registry[] = {
#if NBW_HAVE_OMP
	&nbw_backend_omp,
#endif
	NULL,
};

const struct nbw_backend_ops *const *nbw_backends(size_t *n)
{
	*n = sizeof(registry) / sizeof(registry[0]) - 1;
	return registry;
}

const struct nbw_backend_ops *nbw_backend_find(const char *name)
{
	size_t n;
	const struct nbw_backend_ops *const *all = nbw_backends(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

static const char *const dir_text[NBW_DIR_COUNT] = {
	[NBW_HTOD] = "host to device: sync, async, nowait; pageable and pinned host memory; "
		     "one device, or two devices from two host threads at once",
	[NBW_DTOH] = "device to host: sync, async, nowait; pageable and pinned host memory; "
		     "one device, or two devices from two host threads at once",
	[NBW_P2P] = "device a to device b from one host thread; both directions at once from "
		    "two host threads (sync, async)",
};

size_t nbw_probe_catalogue(struct nbw_probe_info *out, size_t max)
{
	size_t n, k = 0;
	const struct nbw_backend_ops *const *all = nbw_backends(&n);
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < NBW_DIR_COUNT && k < max; d++, k++) {
			snprintf(out[k].name, sizeof(out[k].name), "%s-%s", all[i]->name,
				 nbw_dir_name((enum nbw_dir)d));
			out[k].ops = all[i];
			out[k].dir = (enum nbw_dir)d;
			snprintf(out[k].description, sizeof(out[k].description), "%s", dir_text[d]);
		}
	return k;
}
