/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake HIP runtime for the HIP backend's unit tests: the calls bw_native/hip_backend.c makes,
 * on host memory, with every call logged (calllog.h), among them every call that selects a
 * device or allocates (hipSetDevice, hipMalloc, hipHostMalloc, streams, events). hipRTC
 * "compiles" the backend's kernel source into a fake code object naming its target (after
 * checking that the source defines nbw_copy, nbw_chase, nbw_pack and nbw_unpack), and
 * hipModuleLaunchKernel runs those kernels on host memory, as the device would (the face
 * kernels word by word with 32-bit indices, each word aligned to its size;
 * fake_hip_rtc_rc makes the compile fail, with a log). Copies are done at once with memcpy,
 * except the device-to-device copies of the blocking calls, which (as on a GPU) may still
 * run when the call returns: they run at hipDeviceSynchronize, a later blocking host copy
 * of the same device, or hipFree. fake_hip_ndev devices, all able to reach each other.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include <hip/hiprtc.h>

#include "calllog.h"
#include "fake_hip.h"

hiprtcResult fake_hip_rtc_rc = HIPRTC_SUCCESS;

int fake_hip_ndev = 2;
int fake_hip_live; /* streams + events not destroyed yet */
hipError_t fake_hip_count_rc = hipSuccess;
hipError_t fake_hip_register_rc = hipSuccess;
size_t fake_hip_registered_bytes;

#define MAX_PENDING 16
static struct pending {
	int dev;
	void *dst;
	const void *src;
	size_t n;
} pending[MAX_PENDING];
static int npending;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

struct ihipStream_t {
	int dev;
};
struct ihipEvent_t {
	int unused;
};

static _Thread_local int current;

int fake_hip_pending(void)
{
	pthread_mutex_lock(&pending_lock);
	int n = npending;
	pthread_mutex_unlock(&pending_lock);
	return n;
}

/* Queue a device-to-device copy issued from the current device; run at once when full. */
static void defer_copy(void *dst, const void *src, size_t n)
{
	pthread_mutex_lock(&pending_lock);
	if (npending < MAX_PENDING)
		pending[npending++] = (struct pending){ current, dst, src, n };
	else
		memcpy(dst, src, n);
	pthread_mutex_unlock(&pending_lock);
}

/* Run the queued copies of device dev (-1: of every device), in order. */
static void run_pending(int dev)
{
	pthread_mutex_lock(&pending_lock);
	int kept = 0;
	for (int i = 0; i < npending; i++) {
		if (dev < 0 || pending[i].dev == dev)
			memcpy(pending[i].dst, pending[i].src, pending[i].n);
		else
			pending[kept++] = pending[i];
	}
	npending = kept;
	pthread_mutex_unlock(&pending_lock);
}

hipError_t hipGetDeviceCount(int *count)
{
	calllog_add("hipGetDeviceCount");
	*count = 0;
	if (fake_hip_ndev <= 0)
		return hipErrorNoDevice;
	if (fake_hip_count_rc != hipSuccess)
		return fake_hip_count_rc;
	*count = fake_hip_ndev;
	return hipSuccess;
}

hipError_t hipDeviceSynchronize(void)
{
	calllog_add("hipDeviceSynchronize(dev %d)", current);
	run_pending(current);
	return hipSuccess;
}

hipError_t hipSetDevice(int deviceId)
{
	calllog_add("hipSetDevice(%d)", deviceId);
	if (deviceId < 0 || deviceId >= fake_hip_ndev)
		return hipErrorInvalidDevice;
	current = deviceId;
	return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)
{
	(void)attr;
	(void)deviceId;
	*pi = 1; /* hipDeviceAttributeCanUseStreamWaitValue and the rest */
	return hipSuccess;
}

hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId)
{
	calllog_add("hipDeviceCanAccessPeer(%d,%d)", deviceId, peerDeviceId);
	*canAccessPeer = 1;
	return hipSuccess;
}

hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags)
{
	(void)flags;
	calllog_add("hipDeviceEnablePeerAccess(%d)", peerDeviceId);
	return hipSuccess;
}

hipError_t hipDeviceDisablePeerAccess(int peerDeviceId)
{
	calllog_add("hipDeviceDisablePeerAccess(%d)", peerDeviceId);
	return hipSuccess;
}

hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
	snprintf(pciBusId, (size_t)len, "0000:%02X:00.0", 0x10 + device);
	return hipSuccess;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId)
{
	memset(prop, 0, sizeof(*prop));
	snprintf(prop->name, sizeof(prop->name), "fake HIP device %d", deviceId);
	snprintf(prop->gcnArchName, sizeof(prop->gcnArchName), "gfx90a:sramecc+:xnack-");
	return hipSuccess;
}

hipError_t hipDriverGetVersion(int *driverVersion)
{
	*driverVersion = 50000000;
	return hipSuccess;
}

hipError_t hipRuntimeGetVersion(int *runtimeVersion)
{
	*runtimeVersion = 50000000;
	return hipSuccess;
}

hipError_t hipExtGetLinkTypeAndHopCount(int device1, int device2, uint32_t *linktype,
					uint32_t *hopcount)
{
	(void)device1;
	(void)device2;
	*linktype = 4;
	*hopcount = 1;
	return hipSuccess;
}

static const struct {
	hipError_t e;
	const char *name, *text;
} errors[] = {
	{ hipSuccess, "hipSuccess", "no error" },
	{ hipErrorInitializationError, "hipErrorInitializationError", "initialization error" },
	{ hipErrorInsufficientDriver, "hipErrorInsufficientDriver",
	  "driver version is insufficient for runtime version" },
	{ hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected" },
	{ hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal" },
};

const char *hipGetErrorName(hipError_t hip_error)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].e == hip_error)
			return errors[i].name;
	return "hipErrorFake";
}

const char *hipGetErrorString(hipError_t hip_error)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].e == hip_error)
			return errors[i].text;
	return "fake error";
}

hipError_t hipGetLastError(void)
{
	return hipSuccess;
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
	(void)flags;
	calllog_add("hipHostMalloc");
	*ptr = calloc(1, size ? size : 1);
	return *ptr ? hipSuccess : hipErrorOutOfMemory;
}

hipError_t hipHostFree(void *ptr)
{
	run_pending(-1); /* as the runtime, which waits for the devices before freeing */
	free(ptr);
	return hipSuccess;
}

hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags)
{
	(void)flags;
	calllog_add("hipHostGetDevicePointer");
	*devPtr = hstPtr;
	return hipSuccess;
}

/* Registrations alive: registering twice or unregistering what was never registered fails,
 * as the runtime does. */
static struct {
	void *ptr;
	size_t size;
} registered[16];

hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags)
{
	(void)flags;
	if (fake_hip_register_rc != hipSuccess)
		return fake_hip_register_rc;
	int free_slot = -1;
	for (int i = 0; i < 16; i++) {
		if (registered[i].ptr == hostPtr)
			return hipErrorHostMemoryAlreadyRegistered;
		if (!registered[i].ptr && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return hipErrorOutOfMemory;
	registered[free_slot].ptr = hostPtr;
	registered[free_slot].size = sizeBytes;
	fake_hip_registered_bytes += sizeBytes;
	return hipSuccess;
}

hipError_t hipHostUnregister(void *hostPtr)
{
	for (int i = 0; i < 16; i++)
		if (registered[i].ptr == hostPtr) {
			fake_hip_registered_bytes -= registered[i].size;
			registered[i].ptr = NULL;
			return hipSuccess;
		}
	return hipErrorHostMemoryNotRegistered;
}

hipError_t hipMalloc(void **ptr, size_t size)
{
	calllog_add("hipMalloc(dev %d)", current);
	*ptr = malloc(size ? size : 1);
	return *ptr ? hipSuccess : hipErrorOutOfMemory;
}

hipError_t hipFree(void *ptr)
{
	run_pending(-1);
	free(ptr);
	return hipSuccess;
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	if (kind == hipMemcpyDeviceToDevice) {
		calllog_add("hipMemcpy(DeviceToDevice, dev %d)", current);
		defer_copy(dst, src, sizeBytes);
		return hipSuccess;
	}
	/* A blocking host copy runs behind the device's earlier work on its null stream. */
	run_pending(current);
	memcpy(dst, src, sizeBytes);
	return hipSuccess;
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
			  hipStream_t stream)
{
	(void)kind;
	(void)stream;
	calllog_add("hipMemcpyAsync");
	memcpy(dst, src, sizeBytes);
	return hipSuccess;
}

/* The 3-D copies: every row of the extent (pitched pointers, byte x positions). */
static hipError_t copy_3d(const struct hipMemcpy3DParms *p)
{
	struct hipPitchedPtr sp = p->srcPtr, dp = p->dstPtr;
	struct hipPos s = p->srcPos, d = p->dstPos;
	struct hipExtent e = p->extent;
	if (!sp.ptr || !dp.ptr || s.x + e.width > sp.pitch || d.x + e.width > dp.pitch ||
	    s.y + e.height > sp.ysize || d.y + e.height > dp.ysize)
		return hipErrorInvalidValue;
	for (size_t z = 0; z < e.depth; z++)
		for (size_t y = 0; y < e.height; y++)
			memcpy((char *)dp.ptr + ((d.z + z) * dp.ysize + d.y + y) * dp.pitch + d.x,
			       (const char *)sp.ptr + ((s.z + z) * sp.ysize + s.y + y) * sp.pitch + s.x,
			       e.width);
	return hipSuccess;
}

hipError_t hipMemcpy3D(const struct hipMemcpy3DParms *p)
{
	calllog_add("hipMemcpy3D(kind %d, dev %d)", (int)p->kind, current);
	return copy_3d(p);
}

hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms *p, hipStream_t stream)
{
	(void)stream;
	calllog_add("hipMemcpy3DAsync(kind %d, dev %d)", (int)p->kind, current);
	return copy_3d(p);
}

hipError_t hipMemcpyPeer(void *dst, int dstDeviceId, const void *src, int srcDeviceId,
			 size_t sizeBytes)
{
	calllog_add("hipMemcpyPeer(%d,%d, dev %d)", srcDeviceId, dstDeviceId, current);
	defer_copy(dst, src, sizeBytes);
	return hipSuccess;
}

hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice,
			      size_t sizeBytes, hipStream_t stream)
{
	(void)stream;
	calllog_add("hipMemcpyPeerAsync(%d,%d)", srcDevice, dstDeviceId);
	memcpy(dst, src, sizeBytes);
	return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
	(void)flags;
	calllog_add("hipStreamCreate(dev %d)", current);
	*stream = calloc(1, sizeof(**stream));
	if (!*stream)
		return hipErrorOutOfMemory;
	(*stream)->dev = current;
	fake_hip_live++;
	return hipSuccess;
}

hipError_t hipStreamDestroy(hipStream_t stream)
{
	free(stream);
	fake_hip_live--;
	return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
	calllog_add("hipStreamSynchronize(dev %d)", stream ? stream->dev : -1);
	return hipSuccess;
}

hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
				uint32_t mask)
{
	(void)ptr;
	(void)flags;
	(void)mask;
	calllog_add("hipStreamWaitValue32(dev %d, %u)", stream->dev, value);
	return hipSuccess;
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
	(void)flags;
	calllog_add("hipEventCreate");
	*event = calloc(1, sizeof(**event));
	if (!*event)
		return hipErrorOutOfMemory;
	fake_hip_live++;
	return hipSuccess;
}

hipError_t hipEventDestroy(hipEvent_t event)
{
	free(event);
	fake_hip_live--;
	return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
	(void)event;
	(void)stream;
	return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t event)
{
	(void)event;
	return hipSuccess;
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
	(void)start;
	(void)stop;
	*ms = 1.0f;
	return hipSuccess;
}

/* ---- hipRTC and modules ------------------------------------------------------------------- */

struct _hiprtcProgram {
	const char *src;
	char code[300];
	const char *log;
};
struct ihipModule_t {
	int dev;
};
enum fk_kind { FK_COPY, FK_CHASE, FK_PACK, FK_UNPACK, FK_COUNT };
static const char *const fk_names[FK_COUNT] = { "nbw_copy", "nbw_chase", "nbw_pack",
						"nbw_unpack" };
struct ihipModuleSymbol_t {
	int dev;
	enum fk_kind kind;
};

const char *hiprtcGetErrorString(hiprtcResult result)
{
	return result == HIPRTC_SUCCESS ? "HIPRTC_SUCCESS"
	       : result == HIPRTC_ERROR_COMPILATION ? "HIPRTC_ERROR_COMPILATION"
						    : "HIPRTC_ERROR_FAKE";
}

hiprtcResult hiprtcCreateProgram(hiprtcProgram *prog, const char *src, const char *name,
				 int numHeaders, const char **headers, const char **includeNames)
{
	(void)name;
	(void)numHeaders;
	(void)headers;
	(void)includeNames;
	*prog = calloc(1, sizeof(**prog));
	if (!*prog)
		return HIPRTC_ERROR_OUT_OF_MEMORY;
	(*prog)->src = src;
	return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions, const char **options)
{
	const char *arch = NULL;
	for (int i = 0; i < numOptions; i++)
		if (!strncmp(options[i], "--gpu-architecture=", 19))
			arch = options[i] + 19;
	calllog_add("hiprtcCompileProgram(%s)", arch ? arch : "no target");
	if (fake_hip_rtc_rc != HIPRTC_SUCCESS) {
		prog->log = "nodebw_kernels.hip:1:1: error: fake compile failure\nmore";
		return fake_hip_rtc_rc;
	}
	if (!arch || !strstr(prog->src, "void nbw_copy(") || !strstr(prog->src, "void nbw_chase(") ||
	    !strstr(prog->src, "void nbw_pack(") || !strstr(prog->src, "void nbw_unpack("))
		return HIPRTC_ERROR_INVALID_INPUT;
	snprintf(prog->code, sizeof(prog->code), "fake code object for %s", arch);
	return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t *logSizeRet)
{
	*logSizeRet = prog->log ? strlen(prog->log) + 1 : 1;
	return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char *log)
{
	strcpy(log, prog->log ? prog->log : "");
	return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t *codeSizeRet)
{
	*codeSizeRet = strlen(prog->code) + 1;
	return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcGetCode(hiprtcProgram prog, char *code)
{
	strcpy(code, prog->code);
	return HIPRTC_SUCCESS;
}

hiprtcResult hiprtcDestroyProgram(hiprtcProgram *prog)
{
	free(*prog);
	*prog = NULL;
	return HIPRTC_SUCCESS;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
	calllog_add("hipModuleLoadData(dev %d, %s)", current, (const char *)image);
	if (strncmp(image, "fake code object for gfx", 24))
		return hipErrorInvalidImage;
	*module = calloc(1, sizeof(**module));
	if (!*module)
		return hipErrorOutOfMemory;
	(*module)->dev = current;
	fake_hip_live++;
	return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t module)
{
	free(module);
	fake_hip_live--;
	return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *kname)
{
	static struct ihipModuleSymbol_t fns[64][FK_COUNT];
	for (int k = 0; k < FK_COUNT; k++)
		if (!strcmp(kname, fk_names[k])) {
			fns[module->dev % 64][k] = (struct ihipModuleSymbol_t){ module->dev,
										 (enum fk_kind)k };
			*function = &fns[module->dev % 64][k];
			return hipSuccess;
		}
	return hipErrorNotFound;
}

/* As the kernel does: word i of the region (ex words by ey rows by n / (ex * ey) planes at
 * word (ax, ay, az) of a box nx words by ny rows) to lin[i] (pack) or back (unpack), words
 * of 1 << shift bytes, 32-bit indices. */
static hipError_t run_face(enum fk_kind kind, void **params)
{
	char *box = *(void **)params[0], *lin = *(void **)params[1];
	uint32_t v[9];
	for (int k = 0; k < 9; k++)
		v[k] = *(uint32_t *)params[2 + k];
	uint32_t n = v[0], ex = v[1], ey = v[2], nx = v[3], ny = v[4], ax = v[5], ay = v[6];
	uint32_t az = v[7], shift = v[8];
	if ((shift != 0 && shift != 2 && shift != 3 && shift != 4) || (n && (!ex || !ey)))
		return hipErrorInvalidValue;
	size_t w = (size_t)1 << shift;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = i % ex, y = (i / ex) % ey, z = i / ex / ey;
		uint32_t o = ((az + z) * ny + ay + y) * nx + ax + x;
		char *b = box + ((size_t)o << shift), *l = lin + ((size_t)i << shift);
		if (((uintptr_t)b | (uintptr_t)l) % w)
			return hipErrorIllegalAddress; /* a misaligned word faults on the GPU */
		if (kind == FK_PACK)
			memcpy(l, b, w);
		else
			memcpy(b, l, w);
	}
	return hipSuccess;
}

/* The kernels, run on host memory with the launch's arguments. */
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
				 unsigned int gridDimZ, unsigned int blockDimX,
				 unsigned int blockDimY, unsigned int blockDimZ,
				 unsigned int sharedMemBytes, hipStream_t stream,
				 void **kernelParams, void **extra)
{
	(void)gridDimY;
	(void)gridDimZ;
	(void)blockDimY;
	(void)blockDimZ;
	(void)sharedMemBytes;
	(void)extra;
	calllog_add("hipModuleLaunchKernel(%s, dev %d, stream dev %d, %ux%u)",
		    fk_names[f->kind], current, stream ? stream->dev : -1, gridDimX, blockDimX);
	if (!stream || f->dev != current || stream->dev != current)
		return hipErrorInvalidDeviceFunction;
	if (f->kind == FK_PACK || f->kind == FK_UNPACK)
		return run_face(f->kind, kernelParams);
	const void *src = *(const void **)kernelParams[0];
	void *dst = *(void **)kernelParams[1];
	unsigned long long n = *(unsigned long long *)kernelParams[2];
	if (f->kind == FK_COPY) {
		memcpy(dst, src, n);
		return hipSuccess;
	}
	const uint64_t *chain = src;
	uint64_t i = 0;
	for (unsigned long long k = 0; k < n; k++)
		i = chain[i];
	memcpy(dst, &i, sizeof(i));
	return hipSuccess;
}
