/* SPDX-License-Identifier: BSD-3-Clause */
/* A fake CUDA driver library (libcuda.so.1) with nothing but cuDriverGetVersion, which
 * reports $FAKE_LIBCUDA_VERSION (default 11080, CUDA 11.8): for the CUDA backend's tests of
 * a driver older than the runtime. Only ever on LD_LIBRARY_PATH of those tests. */
#include <stdlib.h>

int cuDriverGetVersion(int *version);

int cuDriverGetVersion(int *version)
{
	const char *v = getenv("FAKE_LIBCUDA_VERSION");
	*version = v && *v ? atoi(v) : 11080;
	return 0; /* CUDA_SUCCESS */
}
