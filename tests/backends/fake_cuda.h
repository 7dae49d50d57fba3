/* SPDX-License-Identifier: BSD-3-Clause */
/* Controls of the fake CUDA runtime and driver entry points (fake_cuda.c). */
#ifndef NODEBW_TEST_FAKE_CUDA_H
#define NODEBW_TEST_FAKE_CUDA_H

#include <stdbool.h>
#include <stddef.h>

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
/* What cuModuleLoadDataEx returns (it then writes fake_cuda_jit_log to the error log). */
extern CUresult fake_cuda_module_rc;
extern const char fake_cuda_jit_log[];
void fake_cuda_reset(void);

/* Between fake_cuda.c and fake_cuda_kernels.c: the calling thread's current device, whether
 * device dev's kernels may address [p, p + n) (its own memory, a peer's whose access it has,
 * pinned or registered host memory), whether dev has access to peer's memory, and the
 * kernel driver entry points by name (NULL for another name). */
int fake_cuda_current_device(void);
bool fake_cuda_addressable(int dev, const void *p, size_t n);
bool fake_cuda_peer_on(int dev, int peer);
void *fake_cuda_kernel_entry(const char *symbol);

#endif
