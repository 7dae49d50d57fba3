/* SPDX-License-Identifier: BSD-3-Clause */
/* Controls of the fake HIP runtime (fake_hip.c). */
#ifndef NODEBW_TEST_FAKE_HIP_H
#define NODEBW_TEST_FAKE_HIP_H

extern int fake_hip_ndev;  /* devices hipGetDeviceCount reports (0: hipErrorNoDevice) */
extern int fake_hip_live;  /* streams and events created and not destroyed */

#endif
