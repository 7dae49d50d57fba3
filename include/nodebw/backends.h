/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The registry of compiled-in backends and the probe catalogue built from it.
 * common/registry.c is the only file that knows which backends were built: OpenMP and the
 * host reference are built in, the vendor backends are plugins loaded at run time.
 */
#ifndef NODEBW_BACKENDS_H
#define NODEBW_BACKENDS_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>

#include "nodebw/probe.h"

/** Why there is no OpenMP backend in a build without offload (said at the start of a run,
 *  in the skipped list and by every command that needs OpenMP). */
#define NBW_NO_OFFLOAD_REASON                                                               \
	"this build of nodebw has no OpenMP offload (configured with "                       \
	"-Dopenmp_offload=disabled): no OpenMP probes and no heat solver; rebuild with the "  \
	"default options to measure them"

extern const struct nbw_backend_ops nbw_backend_omp;
extern const struct nbw_backend_ops nbw_backend_host;

/** A plugin that was built but could not be loaded, and why. */
struct nbw_backend_missing {
	char name[16];
	char reason[NBW_REASON_LEN * 2];
};

/** All compiled-in backends, in run order. */
const struct nbw_backend_ops *const *nbw_backends(size_t *n);
/** Built plugins that could not be loaded (recorded as skipped backends). */
const struct nbw_backend_missing *nbw_backends_missing(size_t *n);
/** A backend name nodebw knows, whether or not it was built here. */
bool nbw_backend_known(const char *name);
/** A backend by name, or NULL. */
const struct nbw_backend_ops *nbw_backend_find(const char *name);
/** The folders a plugin may be in, in search order: $NODEBW_PLUGIN_DIR, the build tree's
 *  \p build_sub beside the executable's folder, lib/nodebw beside it (the bundle), the
 *  install folder, and for the offload libraries ("bw_omp", "heat") the build tree's
 *  \p build_sub. Returns how many (at most \p max). */
size_t nbw_plugin_dirs(const char *build_sub, char dirs[][PATH_MAX], size_t max);
#define NBW_PLUGIN_DIRS_MAX 5
/** dlopen(\p flags) of \p file from the first of nbw_plugin_dirs(\p build_sub) that has it;
 *  NULL with one line in \p why when it is in none or cannot be loaded. \p found says
 *  whether a file was there. */
void *nbw_plugin_open(const char *build_sub, const char *file, int flags, bool *found,
		      char *why, size_t whylen);

/** Enable or disable peer access of the pair (a, b) in both directions (a -> b, then
 *  b -> a), outside any timed region. 0, or -1 with \p why from the backend. A backend
 *  without peer_access, or a == b: nothing to do, 0. */
int nbw_peer_access_pair(const struct nbw_backend_ops *ops, struct nbw_backend *be, int a,
			 int b, bool enable, char *why, size_t whylen);

struct nbw_probe_info {
	char name[48];            /**< "<api>-<direction>", e.g. "omp-htod" */
	const struct nbw_backend_ops *ops;
	enum nbw_dir dir;
	char description[512];
};

/** The probe catalogue: one entry per backend and direction. Returns the count. */
size_t nbw_probe_catalogue(struct nbw_probe_info *out, size_t max);

#endif
