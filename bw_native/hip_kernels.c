/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HIP backend's kernels, as HIP C++ source compiled at run time by hipRTC (part of
 * libamdhip64 in ROCm 5.2, Debian's libamdhip64-5; it needs libamd_comgr and
 * libhiprtc-builtins at run time, and says so through its error when they are missing).
 * A code object is made for the device's own target (--gpu-architecture=<gcnArchName>),
 * once per distinct gcnArchName, then loaded on each device (hipModuleLoadData).
 *
 *   nbw_copy   every thread copies 16-byte words (uint4) strided over the grid when both
 *              addresses are 16-byte aligned, then the tail bytewise; the launch caps the
 *              grid at 8 blocks of 256 threads per compute unit
 *   nbw_chase  one thread: i = 0, then i = chain[i] `loads` times through volatile loads
 *              (each depends on the one before), then *out = i
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hiprtc.h>

#include "hip_kernels.h"

static const char kernel_src[] =
	"extern \"C\" __global__ void nbw_copy(const unsigned char *src, unsigned char *dst,\n"
	"                                      unsigned long long n)\n"
	"{\n"
	"  unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x, i, w = 0;\n"
	"  if ((((unsigned long long)src | (unsigned long long)dst) & 15) == 0) {\n"
	"    const uint4 *s = (const uint4 *)src; uint4 *d = (uint4 *)dst;\n"
	"    w = n / 16;\n"
	"    for (i = t; i < w; i += stride) d[i] = s[i];\n"
	"  }\n"
	"  for (i = w * 16 + t; i < n; i += stride) dst[i] = src[i];\n"
	"}\n"
	"extern \"C\" __global__ void nbw_chase(const unsigned long long *chain,\n"
	"                                       unsigned long long *out, unsigned long long loads)\n"
	"{\n"
	"  const volatile unsigned long long *c = chain;\n"
	"  unsigned long long i = 0;\n"
	"  for (unsigned long long k = 0; k < loads; k++) i = c[i];\n"
	"  *out = i;\n"
	"}\n";

struct hipk_dev {
	bool compiled;             /* compile tried */
	char arch[256];
	char *code;                /* code object (owned, or NULL when shared) */
	const char *use;           /* the code object this device loads */
	hipModule_t mod;
	hipFunction_t copy, chase;
};

struct hipk {
	pthread_mutex_t lock;
	int ndev;
	bool tried;
	char why[512];             /* why compiling failed, "" when it worked */
	struct hipk_dev *dev;
};

struct hipk *hipk_new(int ndev)
{
	struct hipk *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->dev = calloc((size_t)ndev, sizeof(*k->dev));
	if (!k->dev) {
		free(k);
		return NULL;
	}
	k->ndev = ndev;
	pthread_mutex_init(&k->lock, NULL);
	return k;
}

void hipk_free(struct hipk *k)
{
	if (!k)
		return;
	for (int d = 0; d < k->ndev; d++) {
		if (k->dev[d].mod && hipSetDevice(d) == hipSuccess)
			(void)hipModuleUnload(k->dev[d].mod);
		free(k->dev[d].code);
	}
	pthread_mutex_destroy(&k->lock);
	free(k->dev);
	free(k);
}

/* hipRTC's error and the first line of its log into why. */
static void rtc_why(char *why, size_t len, const char *call, const char *arch, hiprtcResult r,
		    hiprtcProgram p)
{
	char line[200] = "";
	size_t n = 0;
	if (p && hiprtcGetProgramLogSize(p, &n) == HIPRTC_SUCCESS && n > 1) {
		char *log = malloc(n);
		if (log && hiprtcGetProgramLog(p, log) == HIPRTC_SUCCESS)
			snprintf(line, sizeof(line), ": %.*s", (int)strcspn(log, "\n"), log);
		free(log);
	}
	snprintf(why, len, "hipRTC could not build the copy and chase kernels for %s: %s: %s%s",
		 arch, call, hiprtcGetErrorString(r), line);
}

/* One code object for \p arch, or NULL with why. */
static char *compile_for(const char *arch, char *why, size_t len)
{
	hiprtcProgram p = NULL;
	char opt[300];
	const char *opts[] = { opt };
	size_t size = 0;
	char *code = NULL;
	hiprtcResult r = hiprtcCreateProgram(&p, kernel_src, "nodebw_kernels.hip", 0, NULL, NULL);

	if (r != HIPRTC_SUCCESS) {
		rtc_why(why, len, "hiprtcCreateProgram", arch, r, NULL);
		return NULL;
	}
	snprintf(opt, sizeof(opt), "--gpu-architecture=%s", arch);
	r = hiprtcCompileProgram(p, 1, opts);
	if (r != HIPRTC_SUCCESS)
		rtc_why(why, len, "hiprtcCompileProgram", arch, r, p);
	else if ((r = hiprtcGetCodeSize(p, &size)) != HIPRTC_SUCCESS || size == 0)
		rtc_why(why, len, "hiprtcGetCodeSize", arch, r, p);
	else if (!(code = malloc(size)))
		snprintf(why, len, "out of host memory for a %zu-byte code object", size);
	else if ((r = hiprtcGetCode(p, code)) != HIPRTC_SUCCESS) {
		rtc_why(why, len, "hiprtcGetCode", arch, r, p);
		free(code);
		code = NULL;
	}
	(void)hiprtcDestroyProgram(&p);
	return code;
}

static int compile_dev(struct hipk *k, int d, char *why, size_t len)
{
	struct hipk_dev *v = &k->dev[d];
	hipDeviceProp_t prop;
	hipError_t e = hipGetDeviceProperties(&prop, d);

	if (e != hipSuccess) {
		snprintf(why, len, "hipGetDeviceProperties(%d): %s", d, hipGetErrorString(e));
		return -1;
	}
	snprintf(v->arch, sizeof(v->arch), "%s", prop.gcnArchName);
	for (int o = 0; o < d; o++)
		if (k->dev[o].use && !strcmp(k->dev[o].arch, v->arch)) {
			v->use = k->dev[o].use;
			return 0;
		}
	v->code = compile_for(v->arch, why, len);
	v->use = v->code;
	return v->code ? 0 : -1;
}

int hipk_compile_all(struct hipk *k, char *why, size_t whylen)
{
	pthread_mutex_lock(&k->lock);
	if (!k->tried) {
		k->tried = true;
		for (int d = 0; d < k->ndev && !k->why[0]; d++)
			if (compile_dev(k, d, k->why, sizeof(k->why)) && !k->why[0])
				snprintf(k->why, sizeof(k->why), "hipRTC failed for device %d", d);
	}
	int rc = k->why[0] ? -1 : 0;
	if (rc)
		snprintf(why, whylen, "%s", k->why);
	pthread_mutex_unlock(&k->lock);
	return rc;
}

static int load_dev(struct hipk_dev *v, int d, char *why, size_t len)
{
	hipError_t e = hipSetDevice(d);
	const char *call = "hipSetDevice";

	if (e == hipSuccess) {
		call = "hipModuleLoadData";
		e = hipModuleLoadData(&v->mod, v->use);
	}
	if (e == hipSuccess) {
		call = "hipModuleGetFunction(nbw_copy)";
		e = hipModuleGetFunction(&v->copy, v->mod, "nbw_copy");
	}
	if (e == hipSuccess) {
		call = "hipModuleGetFunction(nbw_chase)";
		e = hipModuleGetFunction(&v->chase, v->mod, "nbw_chase");
	}
	if (e == hipSuccess)
		return 0;
	snprintf(why, len, "%s on device %d (%s): %s (%d): %s", call, d, v->arch,
		 hipGetErrorName(e), (int)e, hipGetErrorString(e));
	if (v->mod)
		(void)hipModuleUnload(v->mod);
	v->mod = NULL;
	v->copy = v->chase = NULL;
	return -1;
}

int hipk_functions(struct hipk *k, int dev, hipFunction_t *copy, hipFunction_t *chase,
		   char *why, size_t whylen)
{
	if (dev < 0 || dev >= k->ndev) {
		snprintf(why, whylen, "no HIP device %d", dev);
		return -1;
	}
	if (hipk_compile_all(k, why, whylen))
		return -1;
	pthread_mutex_lock(&k->lock);
	struct hipk_dev *v = &k->dev[dev];
	int rc = v->mod ? 0 : load_dev(v, dev, why, whylen);
	*copy = v->copy;
	*chase = v->chase;
	pthread_mutex_unlock(&k->lock);
	return rc;
}

hipError_t hipk_launch_copy(hipFunction_t f, hipStream_t s, const void *src, void *dst,
			    size_t n, int cus)
{
	unsigned long long bytes = n;
	size_t words = n / 16 + 1, blocks = (words + 255) / 256;
	size_t cap = (size_t)(cus > 0 ? cus : 1) * 8;
	void *args[] = { &src, &dst, &bytes };

	if (blocks > cap)
		blocks = cap;
	return hipModuleLaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, s, args, NULL);
}

hipError_t hipk_launch_chase(hipFunction_t f, hipStream_t s, const void *chain, void *out,
			     unsigned long long loads)
{
	void *args[] = { &chain, &out, &loads };

	return hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, args, NULL);
}
