/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Only in the fake CUDA plugin (nodebw-cuda.so built from cuda_backend.c on fake_cuda.c, for
 * running the real nodebw core without a GPU): the fake's controls from the environment,
 * read when the plugin is loaded.
 *   FAKE_CUDA_NDEV         devices (default 2)
 *   FAKE_CUDA_COUNT_RC     cudaError_t of cudaGetDeviceCount (default 0)
 *   FAKE_CUDA_WAIT_RC      CUresult of cuStreamWaitValue32 (default 0)
 *   FAKE_CUDA_CTX_FLAGS    primary context flags per device, "4,0"
 *   FAKE_CUDA_CTX_ACTIVE   primary context active per device, "1,0"
 *   FAKE_CUDA_SETFLAGS_RC  CUresult of cuDevicePrimaryCtxSetFlags (default 0)
 *   FAKE_CUDA_MODULE_RC    CUresult of cuModuleLoadDataEx (default 0)
 *   FAKE_CALLLOG_DIR       where the call log goes at exit (cuda.log)
 */
#include <stdlib.h>
#include <string.h>

#include "calllog.h"
#include "fake_cuda.h"

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);
	return v && *v ? (int)strtol(v, NULL, 0) : def;
}

static void env_list(const char *name, void (*set)(int i, long v))
{
	const char *v = getenv(name);
	char *end;
	for (int i = 0; v && *v && i < 8; i++) {
		set(i, strtol(v, &end, 0));
		v = *end == ',' ? end + 1 : NULL;
	}
}

static void set_flags(int i, long v)
{
	fake_cuda_ctx_flags[i] = (unsigned)v;
}

static void set_active(int i, long v)
{
	fake_cuda_ctx_active[i] = (int)v;
}

__attribute__((constructor)) static void fake_cuda_from_env(void)
{
	fake_cuda_reset();
	fake_cuda_ndev = env_int("FAKE_CUDA_NDEV", 2);
	fake_cuda_count_rc = (cudaError_t)env_int("FAKE_CUDA_COUNT_RC", 0);
	fake_cuda_wait_rc = (CUresult)env_int("FAKE_CUDA_WAIT_RC", 0);
	env_list("FAKE_CUDA_CTX_FLAGS", set_flags);
	env_list("FAKE_CUDA_CTX_ACTIVE", set_active);
	fake_cuda_setflags_rc = (CUresult)env_int("FAKE_CUDA_SETFLAGS_RC", 0);
	fake_cuda_module_rc = (CUresult)env_int("FAKE_CUDA_MODULE_RC", 0);
	calllog_save_at_exit("cuda");
}
