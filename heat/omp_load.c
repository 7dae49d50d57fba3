/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The solver's offload half (libnodebw-heat-omp.so) is opened when a heat command first needs
 * it, not linked into nodebw: its device images register with libomptarget as it loads,
 * which then sets up every device (a context per GPU), and `nodebw --version`, `list` or
 * `report` need none of that. A program that links the library (the tests, the benchmarks)
 * has the functions already and uses them.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "heat_omp.h"
#include "nodebw/backends.h"
#include "nodebw/plugin_images.h"

static struct nbw_heat_omp_fns fns;
static char load_why[NBW_REASON_LEN * 2];
static bool loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = RTLD_DEFAULT;
	if (!dlsym(h, "nbw_heat_omp_run")) {
		/* RTLD_GLOBAL, as the OpenMP backend (common/registry.c): libomp looks up
		 * libomptarget's entry points with dlsym(RTLD_DEFAULT). */
		bool found;
		h = nbw_plugin_open("heat", "libnodebw-heat-omp.so", RTLD_NOW | RTLD_GLOBAL,
				    &found, load_why, sizeof(load_why));
		if (!h)
			return;
		nbw_plugin_images_after_dlopen();
	}
	*(void **)&fns.run = dlsym(h, "nbw_heat_omp_run");
	*(void **)&fns.triad = dlsym(h, "nbw_heat_omp_triad");
	*(void **)&fns.launch = dlsym(h, "nbw_heat_omp_launch");
	if (!fns.run || !fns.triad || !fns.launch) {
		snprintf(load_why, sizeof(load_why),
			 "libnodebw-heat-omp.so lacks the solver's entry points (another build?)");
		return;
	}
	loaded = true; /* stays loaded for the life of the process */
}

const struct nbw_heat_omp_fns *nbw_heat_omp_fns(char *why, size_t whylen)
{
	pthread_once(&once, load);
	if (!loaded)
		snprintf(why, whylen, "the heat solver's offload library: %s", load_why);
	return loaded ? &fns : NULL;
}
