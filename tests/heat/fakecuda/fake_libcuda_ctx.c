/* SPDX-License-Identifier: BSD-3-Clause */
/* A fake CUDA driver library (soname libcuda.so.1) with the two calls heat/cuda_sched.c
 * makes: cuDevicePrimaryCtxGetState reports the flags listed in $FAKE_CUDA_SCHED ("4,1":
 * device 0 blocking sync, device 1 spin), every context active; cuDeviceGetByPCIBusId finds
 * a device by its place in $FAKE_CUDA_BUSES (comma-separated PCI addresses). Only ever
 * loaded by the heat unit test, by its full path. */
#include <stdlib.h>
#include <string.h>

int cuDevicePrimaryCtxGetState(int dev, unsigned *flags, int *active);
int cuDeviceGetByPCIBusId(int *dev, const char *bus_id);

static const char *nth(const char *list, int n)
{
	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (n-- == 0)
			return p;
	return NULL;
}

int cuDevicePrimaryCtxGetState(int dev, unsigned *flags, int *active)
{
	const char *s = nth(getenv("FAKE_CUDA_SCHED") ? getenv("FAKE_CUDA_SCHED") : "", dev);
	if (dev < 0 || !s || !*s)
		return 101; /* CUDA_ERROR_INVALID_DEVICE */
	*flags = (unsigned)strtoul(s, NULL, 0);
	*active = 1;
	return 0;
}

int cuDeviceGetByPCIBusId(int *dev, const char *bus_id)
{
	const char *list = getenv("FAKE_CUDA_BUSES") ? getenv("FAKE_CUDA_BUSES") : "";
	size_t len = strlen(bus_id);
	for (int i = 0; nth(list, i); i++)
		if (strncmp(nth(list, i), bus_id, len) == 0) {
			*dev = i;
			return 0;
		}
	return 101;
}
