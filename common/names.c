/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "nodebw/probe.h"

static const char *const dirs[] = { "htod", "dtoh", "p2p" };
static const char *const modes[] = { "sync", "async", "nowait" };
static const char *const mems[] = { "pageable", "pinned", "none" };
static const char *const concs[] = { "single", "dual", "bidir" };

#define NAME_OF(tab, v) ((unsigned)(v) < sizeof(tab) / sizeof(tab[0]) ? tab[v] : "?")

const char *nbw_dir_name(enum nbw_dir d) { return NAME_OF(dirs, d); }
const char *nbw_mode_name(enum nbw_mode m) { return NAME_OF(modes, m); }
const char *nbw_hostmem_name(enum nbw_hostmem m) { return NAME_OF(mems, m); }
const char *nbw_conc_name(enum nbw_conc c) { return NAME_OF(concs, c); }

static int lookup(const char *const *tab, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (strcmp(tab[i], s) == 0)
			return i;
	return -1;
}

int nbw_dir_parse(const char *s) { return lookup(dirs, 3, s); }
int nbw_mode_parse(const char *s) { return lookup(modes, 3, s); }
int nbw_hostmem_parse(const char *s) { return lookup(mems, 3, s); }
int nbw_conc_parse(const char *s) { return lookup(concs, 3, s); }
