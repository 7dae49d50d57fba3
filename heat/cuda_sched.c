/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the CUDA host threads of a solver run waited for their GPUs: the scheduling flags of
 * each device's primary context, which libomptarget's CUDA plugin uses (it asks for
 * blocking sync, so a host thread sleeps in the driver instead of spinning). Read after the
 * run from the driver the process already loaded (libcuda.so.1, never loaded here), with
 * cuDevicePrimaryCtxGetState, which creates no context. The words are those of the probes'
 * "sched" (bw_native/cuda_backend.c): auto, spin, yield, blocking.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/heat.h"
#include "nodebw/probe.h"

#define SCHED_MASK 0x07u

typedef int (*ctx_state_fn)(int dev, unsigned *flags, int *active);
typedef int (*by_bus_fn)(int *dev, const char *bus_id);

static const char *sched_word(unsigned flags)
{
	switch (flags & SCHED_MASK) {
	case 0:
		return "auto";
	case 1:
		return "spin";
	case 2:
		return "yield";
	case 4:
		return "blocking";
	default:
		return "unknown";
	}
}

/* The CUDA ordinal of a device: by its PCI address when it has one, else libomptarget's own
 * number (a GPU-only build numbers the CUDA devices as the driver does). */
static int cuda_ordinal(by_bus_fn by_bus, const struct nbw_device *d)
{
	int ord = -1;
	if (by_bus && d->pci_bus_id[0] && by_bus(&ord, d->pci_bus_id) == 0)
		return ord;
	return d->runtime_id;
}

void nbw_heat_cuda_sched(const struct nbw_device *info, int n, char *word, size_t wlen,
			 char *note, size_t nlen)
{
	word[0] = '\0';
	note[0] = '\0';
	int ncuda = 0;
	for (int i = 0; i < n; i++)
		ncuda += strcmp(info[i].kind, "cuda") == 0;
	if (ncuda == 0)
		return; /* not a CUDA run: the record says null */
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	ctx_state_fn state = h ? (ctx_state_fn)dlsym(h, "cuDevicePrimaryCtxGetState") : NULL;
	by_bus_fn by_bus = h ? (by_bus_fn)dlsym(h, "cuDeviceGetByPCIBusId") : NULL;
	if (!state) {
		snprintf(word, wlen, "unknown");
		snprintf(note, nlen, "%s", h ? "the driver lacks cuDevicePrimaryCtxGetState"
					      : "libcuda.so.1 is not loaded in this process");
		if (h)
			dlclose(h);
		return;
	}
	size_t off = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(info[i].kind, "cuda") != 0)
			continue;
		unsigned flags = 0;
		int active = 0, ord = cuda_ordinal(by_bus, &info[i]);
		int rc = state(ord, &flags, &active);
		const char *w = rc == 0 ? sched_word(flags) : "unknown";
		if (!word[0])
			snprintf(word, wlen, "%s", w);
		else if (strcmp(word, w) != 0)
			snprintf(word, wlen, "mixed");
		int k = rc == 0 ? snprintf(note + off, nlen - off,
					   "%sCUDA device %d: flags %#x (%s), context %s", off ? "; " : "",
					   ord, flags, w, active ? "active" : "inactive")
				: snprintf(note + off, nlen - off, "%sCUDA device %d: CUresult %d",
					   off ? "; " : "", ord, rc);
		if (k > 0 && (size_t)k < nlen - off)
			off += (size_t)k;
	}
	dlclose(h);
}
