/* SPDX-License-Identifier: BSD-3-Clause */
/* Controls of the fake HIP runtime (fake_hip.c). */
#ifndef NODEBW_TEST_FAKE_HIP_H
#define NODEBW_TEST_FAKE_HIP_H

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

extern int fake_hip_ndev;  /* devices hipGetDeviceCount reports (0: hipErrorNoDevice) */
extern int fake_hip_live;  /* streams and events created and not destroyed */
/* What hipGetDeviceCount returns when there are devices (hipSuccess by default): a runtime
 * that fails to initialise, e.g. hipErrorInitializationError. */
extern hipError_t fake_hip_count_rc;
/* hipHostRegister: what it returns (hipSuccess: registers), and the bytes registered now. */
extern hipError_t fake_hip_register_rc;
extern size_t fake_hip_registered_bytes;
/* Device-to-device copies of the blocking calls (hipMemcpy DeviceToDevice, hipMemcpyPeer)
 * that have not run yet: like a GPU, the fake returns before such a copy is done and runs
 * it at hipDeviceSynchronize (of the issuing device), a later blocking host copy of that
 * device, or hipFree. */
int fake_hip_pending(void);
/* What hiprtcCompileProgram returns (HIPRTC_SUCCESS by default; e.g. HIPRTC_ERROR_COMPILATION,
 * with a log whose first line is "nodebw_kernels.hip:1:1: error: fake compile failure"). */
#include <hip/hiprtc.h>
extern hiprtcResult fake_hip_rtc_rc;

#endif
