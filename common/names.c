/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "nodebw/probe.h"

static const char *const dirs[] = { "htod", "dtoh", "p2p" };
static const char *const modes[] = { "sync", "async", "nowait", "parallel", "kernel", "chase" };
static const char *const mems[] = { "pageable", "pinned", "registered", "hugepage", "none" };
static const char *const concs[] = { "single", "dual", "bidir", "all", "ring", "a2a", "face",
					"exchange-line", "exchange-grid", "exchange-decomp" };
static const char *const faces[] = { "z", "y", "x" };
static const char *const methods[] = { "rect", "pack" };
static const char *const peers[] = { "n/a", "enabled", "disabled" };

#define NAME_OF(tab, v) ((unsigned)(v) < sizeof(tab) / sizeof(tab[0]) ? tab[v] : "?")

const char *nbw_dir_name(enum nbw_dir d) { return NAME_OF(dirs, d); }
const char *nbw_mode_name(enum nbw_mode m) { return NAME_OF(modes, m); }
const char *nbw_hostmem_name(enum nbw_hostmem m) { return NAME_OF(mems, m); }
const char *nbw_conc_name(enum nbw_conc c) { return NAME_OF(concs, c); }
const char *nbw_peer_name(enum nbw_peer p) { return NAME_OF(peers, p); }
const char *nbw_face_name(enum nbw_face f) { return NAME_OF(faces, f); }
const char *nbw_face_method_name(enum nbw_face_method m) { return NAME_OF(methods, m); }

static int lookup(const char *const *tab, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (strcmp(tab[i], s) == 0)
			return i;
	return -1;
}

#define COUNT(tab) ((int)(sizeof(tab) / sizeof(tab[0])))

int nbw_dir_parse(const char *s) { return lookup(dirs, COUNT(dirs), s); }
int nbw_mode_parse(const char *s) { return lookup(modes, COUNT(modes), s); }
int nbw_hostmem_parse(const char *s) { return lookup(mems, COUNT(mems), s); }
int nbw_conc_parse(const char *s) { return lookup(concs, COUNT(concs), s); }
int nbw_peer_parse(const char *s) { return lookup(peers, COUNT(peers), s); }
int nbw_face_parse(const char *s) { return lookup(faces, COUNT(faces), s); }
int nbw_face_method_parse(const char *s) { return lookup(methods, COUNT(methods), s); }
