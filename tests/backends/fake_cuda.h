/* SPDX-License-Identifier: BSD-3-Clause */
/* Controls of the fake CUDA runtime and driver entry points (fake_cuda.c). */
#ifndef NODEBW_TEST_FAKE_CUDA_H
#define NODEBW_TEST_FAKE_CUDA_H

#include <cuda.h>
#include <cuda_runtime_api.h>

extern int fake_cuda_ndev;               /* devices cudaGetDeviceCount reports */
extern cudaError_t fake_cuda_count_rc;   /* what cudaGetDeviceCount returns */
extern CUresult fake_cuda_wait_rc;       /* what cuStreamWaitValue32 returns */
extern int fake_cuda_live;               /* streams, events and host allocations alive */
/* Each device's primary context: its flags and whether it is active. */
extern unsigned fake_cuda_ctx_flags[8];
extern int fake_cuda_ctx_active[8];
/* What cuDevicePrimaryCtxSetFlags returns; on success it sets the flags unless
 * fake_cuda_setflags_ignored (a driver that says yes and does nothing). */
extern CUresult fake_cuda_setflags_rc;
extern int fake_cuda_setflags_ignored;
/* A driver entry point cudaGetDriverEntryPointByVersion reports missing (NULL: none). */
extern const char *fake_cuda_missing_entry;
/* cudaHostRegister: what it returns (cudaSuccess: registers), and the bytes registered now. */
extern cudaError_t fake_cuda_register_rc;
extern size_t fake_cuda_registered_bytes;
void fake_cuda_reset(void);

#endif
