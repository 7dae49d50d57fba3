/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fake CUDA driver's modules and kernel launches (fake_cuda.c has the rest): what the
 * backend's kernels (bw_native/cuda_kernels.ptx) do, run on host memory at the launch, so
 * that the backend's logic (which kernel, which addresses, which device, peer access) is
 * tested, not the hardware.
 *   cuModuleLoadDataEx   PTX text only (it must say .version and .target), loaded into the
 *                        calling thread's current device; fake_cuda_module_rc fails it and
 *                        writes fake_cuda_jit_log to the error log buffer, as the JIT does
 *   cuModuleGetFunction  finds only the .entry names the loaded text holds
 *   cuLaunchKernel       only in the device the module was loaded in
 *                        (CUDA_ERROR_INVALID_HANDLE otherwise); every address the kernel
 *                        touches must be one that device can address
 *                        (CUDA_ERROR_ILLEGAL_ADDRESS, where a GPU would fault); nbw_copy16
 *                        needs 16-byte aligned addresses (CUDA_ERROR_MISALIGNED_ADDRESS);
 *                        the copy needs at least 16 threads for its byte tail;
 *                        nbw_pack / nbw_unpack walk the region word by word as the PTX
 *                        does (32-bit indices), each word addressable and aligned to its
 *                        size (CUDA_ERROR_MISALIGNED_ADDRESS), shift 0, 2, 3 or 4 only
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calllog.h"
#include "fake_cuda.h"

enum fk_kind { FK_COPY16, FK_COPY1, FK_CHASE, FK_PACK, FK_UNPACK, FK_COUNT };
static const char *const fk_names[FK_COUNT] = { "nbw_copy16", "nbw_copy1", "nbw_chase",
						"nbw_pack", "nbw_unpack" };

struct CUfunc_st {
	enum fk_kind kind;
	int dev;
};
struct CUmod_st {
	int dev;
	bool has[FK_COUNT];
	struct CUfunc_st fn[FK_COUNT];
};

/* The n-th JIT option's value, or NULL. */
static void *jit_option(unsigned n, const CUjit_option *opt, void **val, CUjit_option which)
{
	for (unsigned i = 0; i < n; i++)
		if (opt[i] == which)
			return val[i];
	return NULL;
}

static CUresult CUDAAPI module_load(CUmodule *module, const void *image, unsigned int n,
				    CUjit_option *opt, void **val)
{
	const char *text = image;
	char *log = jit_option(n, opt, val, CU_JIT_ERROR_LOG_BUFFER);
	size_t loglen = (size_t)(uintptr_t)jit_option(n, opt, val,
						      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
	int dev = fake_cuda_current_device();
	calllog_add("cuModuleLoadDataEx(dev %d)", dev);
	*module = NULL;
	if (fake_cuda_module_rc != CUDA_SUCCESS) {
		if (log && loglen)
			snprintf(log, loglen, "%s", fake_cuda_jit_log);
		return fake_cuda_module_rc;
	}
	if (!text || !strstr(text, ".version ") || !strstr(text, ".target "))
		return CUDA_ERROR_INVALID_IMAGE;
	struct CUmod_st *m = calloc(1, sizeof(*m));
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	m->dev = dev;
	for (int k = 0; k < FK_COUNT; k++) {
		char entry[64];
		snprintf(entry, sizeof(entry), ".entry %s(", fk_names[k]);
		m->has[k] = strstr(text, entry) != NULL;
		m->fn[k] = (struct CUfunc_st){ .kind = (enum fk_kind)k, .dev = dev };
	}
	fake_cuda_live++;
	*module = m;
	return CUDA_SUCCESS;
}

static CUresult CUDAAPI module_function(CUfunction *f, CUmodule m, const char *name)
{
	*f = NULL;
	if (!m)
		return CUDA_ERROR_INVALID_HANDLE;
	for (int k = 0; k < FK_COUNT; k++)
		if (m->has[k] && strcmp(name, fk_names[k]) == 0) {
			*f = &m->fn[k];
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

static CUresult CUDAAPI module_unload(CUmodule m)
{
	calllog_add("cuModuleUnload(dev %d)", m ? m->dev : -1);
	if (!m)
		return CUDA_ERROR_INVALID_HANDLE;
	free(m);
	fake_cuda_live--;
	return CUDA_SUCCESS;
}

static CUresult run_copy(const struct CUfunc_st *f, void **params, unsigned threads)
{
	char *dst = *(void **)params[0];
	const char *src = *(const void **)params[1];
	uint64_t n = *(uint64_t *)params[2];
	if (f->kind == FK_COPY16 && (((uintptr_t)dst | (uintptr_t)src) & 15))
		return CUDA_ERROR_MISALIGNED_ADDRESS;
	if (f->kind == FK_COPY16 && n % 16 && threads < 16)
		return CUDA_ERROR_INVALID_VALUE; /* the byte tail would be left out */
	if (!fake_cuda_addressable(f->dev, dst, n) || !fake_cuda_addressable(f->dev, src, n))
		return CUDA_ERROR_ILLEGAL_ADDRESS;
	memmove(dst, src, n);
	return CUDA_SUCCESS;
}

/* As the PTX does: i = chain[i] from 0, `loads` times, stopping at an index outside the
 * chain; every load and the store must be addressable. */
static CUresult run_chase(const struct CUfunc_st *f, void **params)
{
	const uint64_t *chain = *(const void **)params[0];
	uint64_t nelem = *(uint64_t *)params[1], loads = *(uint64_t *)params[2];
	uint64_t *out = *(void **)params[3], i = 0;
	for (uint64_t k = 0; k < loads && i < nelem; k++) {
		if (!fake_cuda_addressable(f->dev, &chain[i], sizeof(*chain)))
			return CUDA_ERROR_ILLEGAL_ADDRESS;
		i = chain[i];
	}
	if (!fake_cuda_addressable(f->dev, out, sizeof(*out)))
		return CUDA_ERROR_ILLEGAL_ADDRESS;
	*out = i;
	return CUDA_SUCCESS;
}

/* As the PTX does: word i of the region (ex words by ey rows by n / (ex * ey) planes at word
 * (ax, ay, az) of a box nx words by ny rows) to lin[i] (pack) or back (unpack), words of
 * 1 << shift bytes. */
static CUresult run_pack(const struct CUfunc_st *f, void **params)
{
	char *box = *(void **)params[0], *lin = *(void **)params[1];
	uint32_t v[9];
	for (int k = 0; k < 9; k++)
		v[k] = *(uint32_t *)params[2 + k];
	uint32_t n = v[0], ex = v[1], ey = v[2], nx = v[3], ny = v[4], ax = v[5], ay = v[6];
	uint32_t az = v[7], shift = v[8];
	if (shift != 0 && shift != 2 && shift != 3 && shift != 4)
		return CUDA_ERROR_INVALID_VALUE;
	if (n && (!ex || !ey))
		return CUDA_ERROR_INVALID_VALUE; /* the GPU's division by zero */
	size_t w = (size_t)1 << shift;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = i % ex, y = (i / ex) % ey, z = i / ex / ey;
		uint32_t o = ((az + z) * ny + ay + y) * nx + ax + x; /* 32-bit, as the PTX */
		char *b = box + ((size_t)o << shift), *l = lin + ((size_t)i << shift);
		if (((uintptr_t)b | (uintptr_t)l) % w)
			return CUDA_ERROR_MISALIGNED_ADDRESS;
		if (!fake_cuda_addressable(f->dev, b, w) || !fake_cuda_addressable(f->dev, l, w))
			return CUDA_ERROR_ILLEGAL_ADDRESS;
		if (f->kind == FK_PACK)
			memcpy(l, b, w);
		else
			memcpy(b, l, w);
	}
	return CUDA_SUCCESS;
}

static CUresult CUDAAPI launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
			       unsigned bx, unsigned by, unsigned bz, unsigned shmem, CUstream s,
			       void **params, void **extra)
{
	(void)shmem;
	(void)s; /* kernels run at once: the kernel modes never queue behind the gate */
	int dev = fake_cuda_current_device();
	if (!f || !params || extra)
		return CUDA_ERROR_INVALID_VALUE;
	calllog_add("cuLaunchKernel(%s, dev %d, grid %ux%ux%u, block %ux%ux%u)",
		    fk_names[f->kind], dev, gx, gy, gz, bx, by, bz);
	if (f->dev != dev)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!gx || !gy || !gz || !bx || !by || !bz || bx * by * bz > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	if (f->kind == FK_CHASE)
		return run_chase(f, params);
	if (f->kind == FK_PACK || f->kind == FK_UNPACK)
		return run_pack(f, params);
	return run_copy(f, params, gx * gy * gz * bx * by * bz);
}

void *fake_cuda_kernel_entry(const char *symbol)
{
	if (strcmp(symbol, "cuModuleLoadDataEx") == 0)
		return (void *)module_load;
	if (strcmp(symbol, "cuModuleGetFunction") == 0)
		return (void *)module_function;
	if (strcmp(symbol, "cuModuleUnload") == 0)
		return (void *)module_unload;
	if (strcmp(symbol, "cuLaunchKernel") == 0)
		return (void *)launch;
	return NULL;
}
