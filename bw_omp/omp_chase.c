/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP backend's pointer chase: dependent loads i = chain[i], each load's address
 * known only when the previous load returned, so their time is the path's load latency.
 * The device form is the initial thread of one target region (no teams, thread_limit(1))
 * with is_device_ptr pointers: nothing is mapped, so the region's only memory traffic is
 * the chain and the final index. Compiled with the offload flags into libnodebw-omp.so.
 */
#include "omp_chase.h"

#include <omp.h>

int nbw_omp_chase_device(int dev, const uint64_t *chain, uint64_t loads, uint64_t *out)
{
#pragma omp target device(dev) is_device_ptr(chain, out) thread_limit(1)
	{
		uint64_t i = 0;
		for (uint64_t l = 0; l < loads; l++)
			i = chain[i];
		out[0] = i;
	}
	return 0;
}

void nbw_omp_chase_host(const uint64_t *chain, uint64_t loads, uint64_t *out)
{
	uint64_t i = 0;
	for (uint64_t l = 0; l < loads; l++)
		i = chain[i];
	out[0] = i;
}
