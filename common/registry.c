/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry: the backends built into the core (OpenMP when offload was built, the host
 * reference always) and the vendor plugins (CUDA, HIP, Level Zero) loaded with dlopen from
 * $NODEBW_PLUGIN_DIR, the build tree beside the executable, lib/nodebw/ beside its folder (a
 * relocated install, the portable bundle), or the install folder. A plugin
 * that cannot be loaded is reported with dlopen's reason, and the run goes on.
 */
#include "nodebw/backends.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/config.h"
#include "nodebw/plugin_images.h"
#include "nodebw/series.h"

#define MAX_BACKENDS 8

static const struct nbw_backend_ops *registry[MAX_BACKENDS + 1];
static size_t nregistry;
static struct nbw_backend_missing missing[MAX_BACKENDS];
static size_t nmissing;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void add_missing(const char *name, const char *fmt, const char *a, const char *b)
{
	if (nmissing >= MAX_BACKENDS)
		return;
	struct nbw_backend_missing *m = &missing[nmissing++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->reason, sizeof(m->reason), fmt, a, b);
}

size_t nbw_plugin_dirs(const char *build_sub, char dirs[][PATH_MAX], size_t max)
{
	size_t n = 0;
	const char *env = getenv("NODEBW_PLUGIN_DIR");
	if (env && *env && n < max)
		snprintf(dirs[n++], PATH_MAX, "%s", env);
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0 && n < max) {
		exe[len] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* build tree: build/tools/nodebw next to build/bw_native/ */
			snprintf(dirs[n++], PATH_MAX, "%s/../%s", exe, build_sub);
			/* a relocated install or the portable bundle: libexec/nodebw (or
			 * bin/nodebw) next to lib/nodebw/ */
			if (n < max)
				snprintf(dirs[n++], PATH_MAX, "%s/../lib/nodebw", exe);
		}
	}
	if (n < max)
		snprintf(dirs[n++], PATH_MAX, "%s", NBW_PLUGIN_DIR);
	/* The offload libraries (bw_omp, heat) also in the build tree itself, for programs that
	 * are not tools/nodebw (tests, benchmarks), as a build-tree RUNPATH would find them;
	 * a vendor plugin only where the user or the layout puts it. */
	if (n < max && (strcmp(build_sub, "bw_omp") == 0 || strcmp(build_sub, "heat") == 0))
		snprintf(dirs[n++], PATH_MAX, "%s/%s", NBW_BUILD_ROOT, build_sub);
	return n;
}

void *nbw_plugin_open(const char *build_sub, const char *file, int flags, bool *found,
		      char *why, size_t whylen)
{
	*found = false;
	char dirs[NBW_PLUGIN_DIRS_MAX][PATH_MAX], path[PATH_MAX + 64];
	size_t nd = nbw_plugin_dirs(build_sub, dirs, NBW_PLUGIN_DIRS_MAX);
	for (size_t i = 0; i < nd; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], file);
		if (access(path, F_OK) != 0)
			continue;
		*found = true;
		void *h = dlopen(path, flags);
		if (!h) /* found but not loadable: usually a runtime library is missing */
			snprintf(why, whylen, "cannot load %s: %s", path, dlerror());
		return h;
	}
	snprintf(why, whylen, "plugin %s not found (set NODEBW_PLUGIN_DIR)", file);
	return NULL;
}

/* A backend table from a plugin: the vendor plugins (bw_native/nodebw-<api>.so) and the
 * OpenMP backend (bw_omp/libnodebw-omp.so), which is loaded only when the backends are
 * first asked for: its device images register with libomptarget, which then sets up every
 * device (a context per GPU), and `nodebw --version` or `heat --help` need none of that. A
 * program that links the library (the tests) has the table already. */
static void load_plugin(const char *name, const char *sub, const char *file, int scope)
{
	char sym[64], why[PATH_MAX + 512];
	snprintf(sym, sizeof(sym), "nbw_backend_%s", name);
	const struct nbw_backend_ops *ops = dlsym(RTLD_DEFAULT, sym);
	void *h = NULL;
	bool found;
	if (!ops) {
		h = nbw_plugin_open(sub, file, RTLD_NOW | scope, &found, why, sizeof(why));
		if (h && scope == RTLD_GLOBAL)
			nbw_plugin_images_after_dlopen(); /* the offload library's images */
		if (!h) {
			add_missing(name, "%s%s", why, "");
			return;
		}
		ops = dlsym(h, sym);
	}
	if (!ops || ops->abi != NBW_PROBE_ABI) {
		add_missing(name, "plugin %s %s", file,
			    ops ? "was built for another probe ABI" : "lacks its backend table");
		if (h)
			dlclose(h);
		return;
	}
	if (nregistry < MAX_BACKENDS)
		registry[nregistry++] = ops;
	/* stays loaded for the life of the process */
}

static void load_all(void)
{
#if NBW_HAVE_OMP
	/* RTLD_GLOBAL: libomp finds libomptarget's entry points (omp_get_num_devices, ...)
	 * with dlsym(RTLD_DEFAULT), which does not see a library loaded RTLD_LOCAL. */
	load_plugin("omp", "bw_omp", "libnodebw-omp.so", RTLD_GLOBAL);
#endif
	char list[] = NBW_PLUGINS;
	char *save = NULL;
	for (char *p = strtok_r(list, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		char file[64];
		snprintf(file, sizeof(file), "nodebw-%s.so", p);
		load_plugin(p, "bw_native", file, RTLD_LOCAL);
	}
	registry[nregistry++] = &nbw_backend_host;
	registry[nregistry] = NULL;
}

const struct nbw_backend_ops *const *nbw_backends(size_t *n)
{
	pthread_once(&loaded, load_all);
	*n = nregistry;
	return registry;
}

const struct nbw_backend_missing *nbw_backends_missing(size_t *n)
{
	pthread_once(&loaded, load_all);
	*n = nmissing;
	return missing;
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

bool nbw_backend_known(const char *name)
{
	static const char *const names[] = { "omp", "host", "cuda", "hip", "ze" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static const char *const dir_text[NBW_DIR_COUNT] = {
	[NBW_HTOD] = "host to device", [NBW_DTOH] = "device to host",
	[NBW_P2P] = "device to device",
};

/* "threads 1: one device, one host thread; threads 2: ..." from the table of series kinds. */
static void kinds_text(enum nbw_dir d, char *buf, size_t len)
{
	size_t nk, l = 0;
	const struct nbw_series_kind *k = nbw_series_kinds(&nk);
	buf[0] = '\0';
	for (size_t i = 0; i < nk && l < len; i++)
		if (k[i].dir == d && !nbw_conc_is_face(k[i].conc))
			l += (size_t)snprintf(buf + l, len - l, "; threads %s: %s",
					      nbw_threads_name(k[i].threads), k[i].label);
}

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
			char modes[96] = "", why[NBW_REASON_LEN];
			for (int m = 0; m < NBW_MODE_COUNT; m++)
				if (all[i]->interface((enum nbw_dir)d, (enum nbw_mode)m, why,
						      sizeof(why))) {
					size_t l = strlen(modes);
					snprintf(modes + l, sizeof(modes) - l, "%s%s", l ? ", " : "",
						 nbw_mode_name((enum nbw_mode)m));
				}
			char kinds[400];
			kinds_text((enum nbw_dir)d, kinds, sizeof(kinds));
			snprintf(out[k].description, sizeof(out[k].description), "%s (modes: %s)%s",
				 dir_text[d], modes, kinds);
		}
	return k;
}
