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
 *   nbw_pack   a face's gather: grid-stride over the n words (of 1 << shift bytes: shift 0,
 *              2, 3 or 4, i.e. bytes, 4-, 8-byte words or uint4) of a region ex words wide,
 *              ey rows high, n / (ex * ey) planes deep at word (ax, ay, az) of a box nx
 *              words by ny rows; word i goes to lin[i]. 32-bit indices (the launch keeps
 *              the box under 2^31 words; pack_args.h computes the arguments)
 *   nbw_unpack the scatter: the same walk, lin[i] into the box
 * The face kernels run on a non-blocking stream of their own per device, made with the
 * module.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hiprtc.h>

#include "hip_kernels.h"
#include "pack_args.h"

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
	"}\n"
	"__device__ static void nbw_face(unsigned char *box, unsigned char *lin, unsigned n,\n"
	"                                unsigned ex, unsigned ey, unsigned nx, unsigned ny,\n"
	"                                unsigned ax, unsigned ay, unsigned az, unsigned shift,\n"
	"                                bool unpack)\n"
	"{\n"
	"  unsigned stride = gridDim.x * blockDim.x;\n"
	"  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {\n"
	"    unsigned x = i % ex, t = i / ex, y = t % ey, z = t / ey;\n"
	"    unsigned o = ((az + z) * ny + ay + y) * nx + ax + x;\n"
	"    unsigned char *b = box + ((unsigned long long)o << shift);\n"
	"    unsigned char *l = lin + ((unsigned long long)i << shift);\n"
	"    unsigned char *d = unpack ? b : l;\n"
	"    const unsigned char *s = unpack ? l : b;\n"
	"    if (shift == 4) *(uint4 *)d = *(const uint4 *)s;\n"
	"    else if (shift == 3) *(unsigned long long *)d = *(const unsigned long long *)s;\n"
	"    else if (shift == 2) *(unsigned *)d = *(const unsigned *)s;\n"
	"    else *d = *s;\n"
	"  }\n"
	"}\n"
	"extern \"C\" __global__ void nbw_pack(unsigned char *box, unsigned char *lin, unsigned n,\n"
	"                                      unsigned ex, unsigned ey, unsigned nx,\n"
	"                                      unsigned ny, unsigned ax, unsigned ay,\n"
	"                                      unsigned az, unsigned shift)\n"
	"{\n"
	"  nbw_face(box, lin, n, ex, ey, nx, ny, ax, ay, az, shift, false);\n"
	"}\n"
	"extern \"C\" __global__ void nbw_unpack(unsigned char *box, unsigned char *lin,\n"
	"                                        unsigned n, unsigned ex, unsigned ey,\n"
	"                                        unsigned nx, unsigned ny, unsigned ax,\n"
	"                                        unsigned ay, unsigned az, unsigned shift)\n"
	"{\n"
	"  nbw_face(box, lin, n, ex, ey, nx, ny, ax, ay, az, shift, true);\n"
	"}\n";

struct hipk_dev {
	bool compiled;             /* compile tried */
	char arch[256];
	char *code;                /* code object (owned, or NULL when shared) */
	const char *use;           /* the code object this device loads */
	hipModule_t mod;
	hipFunction_t copy, chase, pack, unpack;
	hipStream_t face_stream;   /* the face kernels' stream, made at their first use */
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
		if ((k->dev[d].mod || k->dev[d].face_stream) && hipSetDevice(d) == hipSuccess) {
			if (k->dev[d].face_stream)
				(void)hipStreamDestroy(k->dev[d].face_stream);
			if (k->dev[d].mod)
				(void)hipModuleUnload(k->dev[d].mod);
		}
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
	snprintf(why, len, "hipRTC could not build the copy, chase and face kernels for %s: %s: %s%s",
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
	if (e == hipSuccess) {
		call = "hipModuleGetFunction(nbw_pack)";
		e = hipModuleGetFunction(&v->pack, v->mod, "nbw_pack");
	}
	if (e == hipSuccess) {
		call = "hipModuleGetFunction(nbw_unpack)";
		e = hipModuleGetFunction(&v->unpack, v->mod, "nbw_unpack");
	}
	if (e == hipSuccess)
		return 0;
	snprintf(why, len, "%s on device %d (%s): %s (%d): %s", call, d, v->arch,
		 hipGetErrorName(e), (int)e, hipGetErrorString(e));
	if (v->mod)
		(void)hipModuleUnload(v->mod);
	v->mod = NULL;
	v->copy = v->chase = v->pack = v->unpack = NULL;
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

int hipk_face(struct hipk *k, int dev, hipFunction_t *pack, hipFunction_t *unpack,
	      hipStream_t *stream, char *why, size_t whylen)
{
	hipFunction_t copy, chase;
	if (hipk_functions(k, dev, &copy, &chase, why, whylen))
		return -1;
	pthread_mutex_lock(&k->lock);
	struct hipk_dev *v = &k->dev[dev];
	hipError_t e = hipSuccess;
	if (!v->face_stream) {
		e = hipSetDevice(dev);
		if (e == hipSuccess)
			e = hipStreamCreateWithFlags(&v->face_stream, hipStreamNonBlocking);
		if (e != hipSuccess) {
			v->face_stream = NULL;
			snprintf(why, whylen, "hipStreamCreateWithFlags on device %d: %s (%d): %s",
				 dev, hipGetErrorName(e), (int)e, hipGetErrorString(e));
		}
	}
	*pack = v->pack;
	*unpack = v->unpack;
	*stream = v->face_stream;
	pthread_mutex_unlock(&k->lock);
	return e == hipSuccess ? 0 : -1;
}

hipError_t hipk_launch_face(hipFunction_t f, hipStream_t s, void *box, const struct nbw_region *r,
			    const size_t at[3], void *lin, int cus)
{
	struct nbw_pack_args a;
	if (nbw_pack_args(r, at, box, lin, &a))
		return hipErrorInvalidValue;
	if (!a.n)
		return hipSuccess;
	size_t blocks = (a.n + 255) / 256, cap = (size_t)(cus > 0 ? cus : 1) * 8;
	void *args[] = { &box, &lin, &a.n, &a.ex, &a.ey, &a.nx, &a.ny, &a.ax, &a.ay, &a.az,
			 &a.shift };
	if (blocks > cap)
		blocks = cap;
	return hipModuleLaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, s, args, NULL);
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
