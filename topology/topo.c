/* SPDX-License-Identifier: BSD-3-Clause */
/* Loading a topology: the host from hwloc (live) or from a fixture, then every source of
 * topo_sources (sources.c) in turn, then the model numbered (model.c). */
#include <stdio.h>
#include <stdlib.h>

#include "topo_int.h"

/* Run every source that applies: a fixture has no vendor API (its links.json stands for
 * them) and, when it is a bare hwloc XML file, no sysfs tree. */
static void run_sources(struct nbw_topo *t, bool no_vendor)
{
	for (const struct topo_source_ops *const *s = topo_sources; *s; s++) {
		if ((*s)->vendor && (no_vendor || t->fixture))
			continue;
		if ((*s)->needs_sysfs && t->no_sysfs)
			continue;
		(*s)->discover(t);
	}
}

int nbw_topo_load(struct nbw_topo **out, const struct nbw_topo_opts *o, char *err,
		  size_t errlen)
{
	struct nbw_topo *t = calloc(1, sizeof(*t));
	*out = NULL;
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc;
	if (o && o->fixture_dir) {
		rc = topo_fixture_load(t, o->fixture_dir, err, errlen);
	} else {
		snprintf(t->sysroot, sizeof(t->sysroot), "%s",
			 o && o->sysfs_root ? o->sysfs_root : "/sys");
		rc = topo_hwloc_load(t, NULL, NULL, 0, err, errlen);
	}
	if (rc == 0)
		run_sources(t, o && o->no_vendor);
	if (rc == 0 && t->fixture)
		rc = topo_fixture_links(t, err, errlen);
	if (rc) {
		nbw_topo_free(t);
		return -1;
	}
	topo_finalize(t);
	*out = t;
	return 0;
}

void nbw_topo_free(struct nbw_topo *t)
{
	if (!t)
		return;
	if (t->hw)
		hwloc_topology_destroy(t->hw);
	free(t->dev);
	free(t->link);
	free(t->hwfig);
	free(t->idtab);
	free(t->linkidx);
	free(t->figidx);
	free(t);
}
