/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Only in the fake HIP plugin (nodebw-hip.so built from hip_backend.c on fake_hip.c, for
 * running the real nodebw core without a GPU): the fake's controls from the environment,
 * read when the plugin is loaded.
 *   FAKE_HIP_NDEV      devices (default 2; 0: hipGetDeviceCount says hipErrorNoDevice)
 *   FAKE_HIP_COUNT_RC  hipError_t of hipGetDeviceCount when there are devices (default 0)
 *   FAKE_CALLLOG_DIR   where the call log goes at exit (hip.log)
 */
#include <stdlib.h>

#include "calllog.h"
#include "fake_hip.h"

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);
	return v && *v ? (int)strtol(v, NULL, 0) : def;
}

__attribute__((constructor)) static void fake_hip_from_env(void)
{
	fake_hip_ndev = env_int("FAKE_HIP_NDEV", 2);
	fake_hip_count_rc = (hipError_t)env_int("FAKE_HIP_COUNT_RC", 0);
	calllog_save_at_exit("hip");
}
