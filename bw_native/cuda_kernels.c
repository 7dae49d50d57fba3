/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CUDA backend's device code: PTX written by hand (cuda_kernels.ptx, embedded at build
 * time by meson/embed_text.py), loaded into a device's primary context with
 * cuModuleLoadDataEx (the driver JIT-compiles it for that GPU) and launched with
 * cuLaunchKernel, all driver entry points the backend takes with
 * cudaGetDriverEntryPointByVersion, so the plugin needs no nvcc and no libcuda at link time.
 * The backend loads the module once per device, outside the timed region, and launches on
 * the transfer's own stream between its two cudaEvents.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cuda_kernels.h"
#include "cuda_kernels_ptx.h"
#include "pack_args.h"

CUresult cuk_load(const struct cuk_entries *e, struct cuk_module *m, const char **call,
		  char *log, size_t loglen)
{
	CUjit_option opt[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *val[2] = { log, (void *)(uintptr_t)loglen };
	CUresult rc;
	memset(m, 0, sizeof(*m));
	if (loglen)
		log[0] = '\0';
	*call = "cuModuleLoadDataEx";
	rc = e->load(&m->mod, nbw_cuda_ptx, loglen ? 2 : 0, opt, val);
	if (loglen)
		log[loglen - 1] = '\0';
	if (rc != CUDA_SUCCESS) {
		m->mod = NULL;
		return rc;
	}
	*call = "cuModuleGetFunction(nbw_copy16)";
	rc = e->function(&m->copy16, m->mod, "nbw_copy16");
	if (rc == CUDA_SUCCESS) {
		*call = "cuModuleGetFunction(nbw_copy1)";
		rc = e->function(&m->copy1, m->mod, "nbw_copy1");
	}
	if (rc == CUDA_SUCCESS) {
		*call = "cuModuleGetFunction(nbw_chase)";
		rc = e->function(&m->chase, m->mod, "nbw_chase");
	}
	if (rc == CUDA_SUCCESS) {
		*call = "cuModuleGetFunction(nbw_pack)";
		rc = e->function(&m->pack, m->mod, "nbw_pack");
	}
	if (rc == CUDA_SUCCESS) {
		*call = "cuModuleGetFunction(nbw_unpack)";
		rc = e->function(&m->unpack, m->mod, "nbw_unpack");
	}
	if (rc != CUDA_SUCCESS)
		cuk_unload(e, m);
	return rc;
}

void cuk_unload(const struct cuk_entries *e, struct cuk_module *m)
{
	if (m->mod && e->unload)
		(void)e->unload(m->mod);
	memset(m, 0, sizeof(*m));
}

unsigned cuk_copy_blocks(size_t n, bool words16, int sms)
{
	size_t items = words16 ? n / 16 : n;
	size_t need = (items + CUK_COPY_THREADS - 1) / CUK_COPY_THREADS;
	size_t most = (size_t)(sms > 0 ? sms : 1) * CUK_COPY_BLOCKS_PER_SM;
	if (need > most)
		need = most;
	return need ? (unsigned)need : 1;
}

CUresult cuk_copy(const struct cuk_entries *e, const struct cuk_module *m, CUstream s,
		  void *dst, const void *src, size_t n, int sms)
{
	bool words16 = (((uintptr_t)dst | (uintptr_t)src) & 15) == 0;
	uint64_t bytes = n;
	void *params[3] = { &dst, &src, &bytes };
	return e->launch(words16 ? m->copy16 : m->copy1, cuk_copy_blocks(n, words16, sms), 1, 1,
			 CUK_COPY_THREADS, 1, 1, 0, s, params, NULL);
}

CUresult cuk_chase(const struct cuk_entries *e, const struct cuk_module *m, CUstream s,
		   const void *chain, uint64_t nelem, uint64_t loads, void *out)
{
	void *params[4] = { &chain, &nelem, &loads, &out };
	return e->launch(m->chase, 1, 1, 1, 1, 1, 1, 0, s, params, NULL);
}

CUresult cuk_pack(const struct cuk_entries *e, const struct cuk_module *m, CUstream s,
		  void *box, const struct nbw_region *r, const size_t at[3], void *lin,
		  bool unpack, int sms)
{
	struct nbw_pack_args a;
	if (nbw_pack_args(r, at, box, lin, &a))
		return CUDA_ERROR_INVALID_VALUE;
	if (!a.n)
		return CUDA_SUCCESS;
	void *params[11] = { &box, &lin, &a.n, &a.ex, &a.ey, &a.nx, &a.ny, &a.ax, &a.ay, &a.az,
			     &a.shift };
	return e->launch(unpack ? m->unpack : m->pack, cuk_copy_blocks(a.n, false, sms), 1, 1,
			 CUK_COPY_THREADS, 1, 1, 0, s, params, NULL);
}
