/* SPDX-License-Identifier: BSD-3-Clause */
/* The source lines of a topology: one per source (hwloc, sysfs-pci, nvml, ...), what it
 * found or why it found nothing, as `nodebw topo` and results.json show them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "topo_int.h"

struct nbw_topo_source *topo_source(struct nbw_topo *t, const char *name, bool ok,
				    const char *fmt, ...)
{
	struct nbw_topo_source *s = NULL;
	for (size_t i = 0; i < t->nsrc; i++)
		if (strcmp(t->src[i].name, name) == 0)
			s = &t->src[i];
	if (!s) {
		if (t->nsrc == TOPO_MAX_SOURCES)
			return NULL;
		s = &t->src[t->nsrc++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", name);
	}
	s->ok = ok;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
	return s;
}

size_t nbw_topo_source_count(const struct nbw_topo *t)
{
	return t ? t->nsrc : 0;
}

const struct nbw_topo_source *nbw_topo_source(const struct nbw_topo *t, size_t i)
{
	return t && i < t->nsrc ? &t->src[i] : NULL;
}

int nbw_topo_note_source(struct nbw_topo *t, const char *name, bool ok, int devices,
			 const char *detail)
{
	struct nbw_topo_source *s = t && name ? topo_source(t, name, ok, "%s", detail ? detail :
							    "") : NULL;
	if (!s)
		return -1;
	s->devices = devices;
	return 0;
}
