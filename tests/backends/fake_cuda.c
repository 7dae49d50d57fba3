/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake CUDA runtime for the CUDA backend's unit tests: the runtime calls
 * bw_native/cuda_backend.c makes, on host memory, and the driver entry points it asks
 * cudaGetDriverEntryPointByVersion for, with every interesting call logged (calllog.h), among
 * them every call that creates a context or uses device memory (cudaSetDevice, cudaMalloc,
 * streams, events, cudaHostAlloc, modules and kernel launches).
 * Kernels (the driver entry points cuModuleLoadDataEx, cuModuleGetFunction, cuLaunchKernel,
 * cuModuleUnload, fake_cuda_kernels.c): a module is loaded into the calling thread's current
 * device from PTX text, and a launch of the backend's kernels does on host memory what the
 * kernel does, where a GPU would fault when it could not (fake_cuda_kernels.c says which).
 * Copies are done with memcpy: at once, or, on a stream that waits on the gate
 * (cuStreamWaitValue32 on mapped host memory), when the host synchronises with the stream
 * and the gate has reached the value, as a device would run them.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calllog.h"
#include "fake_cuda.h"

int fake_cuda_ndev = 2;
cudaError_t fake_cuda_count_rc = cudaSuccess;
CUresult fake_cuda_wait_rc = CUDA_SUCCESS;
int fake_cuda_live;
cudaError_t fake_cuda_register_rc = cudaSuccess;
size_t fake_cuda_registered_bytes;

/* Registrations alive: pointer and size; registering twice or unregistering what was never
 * registered fails, as the runtime does. */
static struct {
	void *ptr;
	size_t size;
} registered[16];

unsigned fake_cuda_ctx_flags[8];
int fake_cuda_ctx_active[8];
const char *fake_cuda_missing_entry;
CUresult fake_cuda_module_rc = CUDA_SUCCESS;
const char fake_cuda_jit_log[] = "ptxas fatal   : fake JIT log: unknown target";

/* Every allocation a kernel may address: device memory (dev >= 0) and pinned or registered
 * host memory (dev -1). */
#define MAX_ALLOCS 512
static struct {
	const char *p;
	size_t n;
	int dev;
} allocs[MAX_ALLOCS];
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
/* peer_on[a][b]: device a may address device b's memory. */
static bool peer_on[8][8];

static void alloc_add(const void *p, size_t n, int dev)
{
	pthread_mutex_lock(&alloc_lock);
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (!allocs[i].p) {
			allocs[i].p = p;
			allocs[i].n = n;
			allocs[i].dev = dev;
			break;
		}
	pthread_mutex_unlock(&alloc_lock);
}

static void alloc_del(const void *p)
{
	pthread_mutex_lock(&alloc_lock);
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (allocs[i].p == p)
			allocs[i].p = NULL;
	pthread_mutex_unlock(&alloc_lock);
}

bool fake_cuda_addressable(int dev, const void *p, size_t n)
{
	const char *c = p;
	bool ok = false;
	pthread_mutex_lock(&alloc_lock);
	for (int i = 0; i < MAX_ALLOCS && !ok; i++) {
		if (!allocs[i].p || c < allocs[i].p || c + n > allocs[i].p + allocs[i].n)
			continue;
		ok = allocs[i].dev < 0 || allocs[i].dev == dev ||
		     (dev >= 0 && dev < 8 && allocs[i].dev < 8 && peer_on[dev][allocs[i].dev]);
	}
	pthread_mutex_unlock(&alloc_lock);
	return ok;
}

bool fake_cuda_peer_on(int dev, int peer)
{
	return dev >= 0 && dev < 8 && peer >= 0 && peer < 8 && peer_on[dev][peer];
}
CUresult fake_cuda_setflags_rc = CUDA_SUCCESS;
int fake_cuda_setflags_ignored;

#define MAX_QUEUED 8

struct CUstream_st {
	int dev;
	const uint32_t *wait_addr;     /* a wait not yet satisfied: the flag and the value */
	uint32_t wait_value;
	struct {
		void *dst;
		const void *src;
		size_t n;
	} q[MAX_QUEUED];               /* copies queued behind the wait */
	int nq;
};
struct CUevent_st {
	cudaStream_t stream;
};

static bool reached(const uint32_t *addr, uint32_t value)
{
	return (int32_t)(__atomic_load_n(addr, __ATOMIC_ACQUIRE) - value) >= 0;
}

/* The "device" side of a stream: wait until its gate opens (polling host memory, as the GPU
 * does), then run the queued copies. A wait that never ends would hang a real run: abort. */
static void drain(cudaStream_t s)
{
	struct timespec nap = { 0, 20000 };
	long waited = 0;
	if (!s || !s->wait_addr)
		return;
	while (!reached(s->wait_addr, s->wait_value)) {
		nanosleep(&nap, NULL);
		if (++waited > 500000) {
			fprintf(stderr, "fake CUDA: a stream waited 10 s for its gate: deadlock\n");
			abort();
		}
	}
	for (int i = 0; i < s->nq; i++)
		memcpy(s->q[i].dst, s->q[i].src, s->q[i].n);
	s->nq = 0;
	s->wait_addr = NULL;
}

static cudaError_t copy_on(cudaStream_t s, void *dst, const void *src, size_t n)
{
	if (s && s->wait_addr && !reached(s->wait_addr, s->wait_value)) {
		if (s->nq >= MAX_QUEUED)
			return cudaErrorLaunchOutOfResources;
		s->q[s->nq].dst = dst;
		s->q[s->nq].src = src;
		s->q[s->nq++].n = n;
		return cudaSuccess;
	}
	memcpy(dst, src, n);
	return cudaSuccess;
}

static _Thread_local int current;

void fake_cuda_reset(void)
{
	fake_cuda_ndev = 2;
	fake_cuda_count_rc = cudaSuccess;
	fake_cuda_wait_rc = CUDA_SUCCESS;
	fake_cuda_live = 0;
	memset(fake_cuda_ctx_flags, 0, sizeof(fake_cuda_ctx_flags));
	memset(fake_cuda_ctx_active, 0, sizeof(fake_cuda_ctx_active));
	fake_cuda_missing_entry = NULL;
	fake_cuda_module_rc = CUDA_SUCCESS;
	memset(peer_on, 0, sizeof(peer_on));
	fake_cuda_setflags_rc = CUDA_SUCCESS;
	fake_cuda_setflags_ignored = 0;
	fake_cuda_register_rc = cudaSuccess;
	fake_cuda_registered_bytes = 0;
	memset(registered, 0, sizeof(registered));
	calllog_reset();
}

/* ---- driver entry points ---------------------------------------------------------------- */

static CUresult CUDAAPI wait_value32(CUstream s, CUdeviceptr addr, cuuint32_t value,
				     unsigned int flags)
{
	(void)flags; /* GEQ, as the backend asks */
	calllog_add("cuStreamWaitValue32(dev %d, %u)", s ? s->dev : -1, value);
	if (fake_cuda_wait_rc != CUDA_SUCCESS)
		return fake_cuda_wait_rc;
	if (s && s->nq == 0 && !s->wait_addr) {
		s->wait_addr = (const uint32_t *)(uintptr_t)addr; /* mapped = host address */
		s->wait_value = value;
	}
	return CUDA_SUCCESS;
}

static CUresult CUDAAPI ctx_get_state(CUdevice dev, unsigned int *flags, int *active)
{
	if (dev < 0 || dev >= fake_cuda_ndev)
		return CUDA_ERROR_INVALID_DEVICE;
	*flags = fake_cuda_ctx_flags[dev];
	*active = fake_cuda_ctx_active[dev];
	return CUDA_SUCCESS;
}

static CUresult CUDAAPI ctx_set_flags(CUdevice dev, unsigned int flags)
{
	calllog_add("cuDevicePrimaryCtxSetFlags(%d, 0x%x)", dev, flags);
	if (dev < 0 || dev >= fake_cuda_ndev)
		return CUDA_ERROR_INVALID_DEVICE;
	if (fake_cuda_setflags_rc == CUDA_SUCCESS && !fake_cuda_setflags_ignored)
		fake_cuda_ctx_flags[dev] = flags;
	return fake_cuda_setflags_rc;
}

static const struct {
	CUresult rc;
	const char *name, *text;
} drv_errors[] = {
	{ CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
	{ CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
	  "primary context active" },
	{ CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed" },
	{ CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
	  "an illegal memory access was encountered" },
	{ CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
};

static CUresult CUDAAPI error_name(CUresult rc, const char **s)
{
	*s = "CUDA_ERROR_FAKE";
	for (size_t i = 0; i < sizeof(drv_errors) / sizeof(drv_errors[0]); i++)
		if (drv_errors[i].rc == rc)
			*s = drv_errors[i].name;
	return CUDA_SUCCESS;
}

static CUresult CUDAAPI error_string(CUresult rc, const char **s)
{
	*s = "fake driver error";
	for (size_t i = 0; i < sizeof(drv_errors) / sizeof(drv_errors[0]); i++)
		if (drv_errors[i].rc == rc)
			*s = drv_errors[i].text;
	return CUDA_SUCCESS;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
					     unsigned int cudaVersion, unsigned long long flags,
					     enum cudaDriverEntryPointQueryResult *driverStatus)
{
	(void)cudaVersion;
	(void)flags;
	*funcPtr = NULL;
	if (strcmp(symbol, "cuStreamWaitValue32") == 0)
		*funcPtr = (void *)wait_value32;
	else if (strcmp(symbol, "cuGetErrorName") == 0)
		*funcPtr = (void *)error_name;
	else if (strcmp(symbol, "cuGetErrorString") == 0)
		*funcPtr = (void *)error_string;
	else if (strcmp(symbol, "cuDevicePrimaryCtxGetState") == 0)
		*funcPtr = (void *)ctx_get_state;
	else if (strcmp(symbol, "cuDevicePrimaryCtxSetFlags") == 0)
		*funcPtr = (void *)ctx_set_flags;
	else
		*funcPtr = fake_cuda_kernel_entry(symbol);
	if (fake_cuda_missing_entry && strcmp(symbol, fake_cuda_missing_entry) == 0)
		*funcPtr = NULL;
	if (driverStatus)
		*driverStatus = *funcPtr ? cudaDriverEntryPointSuccess
					 : cudaDriverEntryPointSymbolNotFound;
	return cudaSuccess;
}

/* ---- runtime ---------------------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *count)
{
	calllog_add("cudaGetDeviceCount");
	*count = fake_cuda_count_rc == cudaSuccess ? fake_cuda_ndev : 0;
	return fake_cuda_count_rc;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
	*runtimeVersion = CUDART_VERSION;
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
	*driverVersion = CUDART_VERSION;
	return cudaSuccess;
}

const char *cudaGetErrorName(cudaError_t error)
{
	return error == cudaSuccess		   ? "cudaSuccess"
	       : error == cudaErrorInsufficientDriver ? "cudaErrorInsufficientDriver"
						      : "cudaErrorFake";
}

const char *cudaGetErrorString(cudaError_t error)
{
	return error == cudaSuccess ? "no error" : "fake runtime error";
}

cudaError_t cudaGetLastError(void)
{
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	calllog_add("cudaSetDevice(%d)", device);
	if (device < 0 || device >= fake_cuda_ndev)
		return cudaErrorInvalidDevice;
	current = device;
	return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
	calllog_add("cudaDeviceSynchronize(dev %d)", current);
	return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	(void)device;
	*value = attr == cudaDevAttrGlobalMemoryBusWidth ? 5120 : 1;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int srcDevice,
				      int dstDevice)
{
	(void)attr;
	(void)srcDevice;
	(void)dstDevice;
	*value = 1;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
	snprintf(pciBusId, (size_t)len, "0000:%02X:00.0", 0x30 + device);
	return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	memset(prop, 0, sizeof(*prop));
	snprintf(prop->name, sizeof(prop->name), "fake CUDA device %d", device);
	return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
	(void)device;
	(void)peerDevice;
	*canAccessPeer = 1;
	return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
	(void)flags;
	calllog_add("cudaDeviceEnablePeerAccess(%d -> %d)", current, peerDevice);
	if (peerDevice < 0 || peerDevice >= fake_cuda_ndev || peerDevice == current)
		return cudaErrorInvalidDevice;
	if (peer_on[current][peerDevice])
		return cudaErrorPeerAccessAlreadyEnabled;
	peer_on[current][peerDevice] = true;
	return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
	calllog_add("cudaDeviceDisablePeerAccess(%d -> %d)", current, peerDevice);
	if (peerDevice < 0 || peerDevice >= fake_cuda_ndev || peerDevice == current)
		return cudaErrorInvalidDevice;
	if (!peer_on[current][peerDevice])
		return cudaErrorPeerAccessNotEnabled;
	peer_on[current][peerDevice] = false;
	return cudaSuccess;
}

int fake_cuda_current_device(void)
{
	return current;
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	(void)flags;
	calllog_add("cudaHostAlloc");
	*pHost = calloc(1, size ? size : 1);
	if (!*pHost)
		return cudaErrorMemoryAllocation;
	alloc_add(*pHost, size, -1);
	fake_cuda_live++;
	return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr)
{
	alloc_del(ptr);
	free(ptr);
	fake_cuda_live--;
	return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	(void)flags;
	calllog_add("cudaHostGetDevicePointer");
	if (!fake_cuda_addressable(-1, pHost, 1))
		return cudaErrorInvalidValue; /* not pinned or registered host memory */
	*pDevice = pHost;
	return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	(void)flags;
	if (fake_cuda_register_rc != cudaSuccess)
		return fake_cuda_register_rc;
	int free_slot = -1;
	for (int i = 0; i < 16; i++) {
		if (registered[i].ptr == ptr)
			return cudaErrorHostMemoryAlreadyRegistered;
		if (!registered[i].ptr && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return cudaErrorMemoryAllocation;
	registered[free_slot].ptr = ptr;
	registered[free_slot].size = size;
	fake_cuda_registered_bytes += size;
	fake_cuda_live++;
	alloc_add(ptr, size, -1);
	return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
	for (int i = 0; i < 16; i++)
		if (registered[i].ptr == ptr) {
			fake_cuda_registered_bytes -= registered[i].size;
			registered[i].ptr = NULL;
			fake_cuda_live--;
			alloc_del(ptr);
			return cudaSuccess;
		}
	return cudaErrorHostMemoryNotRegistered;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	calllog_add("cudaMalloc(dev %d)", current);
	*devPtr = malloc(size ? size : 1);
	if (!*devPtr)
		return cudaErrorMemoryAllocation;
	alloc_add(*devPtr, size, current);
	return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr)
{
	calllog_add("cudaFree");
	alloc_del(devPtr);
	free(devPtr);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	calllog_add("cudaMemcpy(kind %d, dev %d)", (int)kind, current);
	memcpy(dst, src, count);
	return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
			    cudaStream_t stream)
{
	(void)kind;
	calllog_add("cudaMemcpyAsync(dev %d)", stream ? stream->dev : -1);
	return copy_on(stream, dst, src, count);
}

/* The 3-D copies: every row of the extent, as the runtime describes them (pitched pointers,
 * byte x positions); a bad description is refused the way the runtime refuses it. */
static cudaError_t copy_3d(struct cudaPitchedPtr sp, struct cudaPos spos, struct cudaPitchedPtr dp,
			   struct cudaPos dpos, struct cudaExtent e)
{
	if (!sp.ptr || !dp.ptr || e.width > sp.pitch || e.width > dp.pitch ||
	    spos.x + e.width > sp.pitch || dpos.x + e.width > dp.pitch ||
	    spos.y + e.height > sp.ysize || dpos.y + e.height > dp.ysize)
		return cudaErrorInvalidValue;
	for (size_t z = 0; z < e.depth; z++)
		for (size_t y = 0; y < e.height; y++)
			memcpy((char *)dp.ptr + ((dpos.z + z) * dp.ysize + dpos.y + y) * dp.pitch + dpos.x,
			       (const char *)sp.ptr + ((spos.z + z) * sp.ysize + spos.y + y) * sp.pitch +
				       spos.x,
			       e.width);
	return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
	calllog_add("cudaMemcpy3D(kind %d, dev %d, %zux%zux%zu)", (int)p->kind, current,
		    p->extent.width, p->extent.height, p->extent.depth);
	return copy_3d(p->srcPtr, p->srcPos, p->dstPtr, p->dstPos, p->extent);
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
	calllog_add("cudaMemcpy3DAsync(kind %d, dev %d, %zux%zux%zu)", (int)p->kind,
		    stream ? stream->dev : -1, p->extent.width, p->extent.height, p->extent.depth);
	return copy_3d(p->srcPtr, p->srcPos, p->dstPtr, p->dstPos, p->extent);
}

cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
	calllog_add("cudaMemcpy3DPeer(%d,%d)", p->srcDevice, p->dstDevice);
	return copy_3d(p->srcPtr, p->srcPos, p->dstPtr, p->dstPos, p->extent);
}

cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream)
{
	(void)stream;
	calllog_add("cudaMemcpy3DPeerAsync(%d,%d)", p->srcDevice, p->dstDevice);
	return copy_3d(p->srcPtr, p->srcPos, p->dstPtr, p->dstPos, p->extent);
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
	(void)dstDevice;
	(void)srcDevice;
	memcpy(dst, src, count);
	return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
				size_t count, cudaStream_t stream)
{
	calllog_add("cudaMemcpyPeerAsync(%d,%d)", srcDevice, dstDevice);
	return copy_on(stream, dst, src, count);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
	(void)flags;
	calllog_add("cudaStreamCreate(dev %d)", current);
	*pStream = calloc(1, sizeof(**pStream));
	if (!*pStream)
		return cudaErrorMemoryAllocation;
	(*pStream)->dev = current;
	fake_cuda_live++;
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	if (stream->nq)
		calllog_add("cudaStreamDestroy with %d copies queued", stream->nq);
	free(stream);
	fake_cuda_live--;
	return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	calllog_add("cudaStreamSynchronize(dev %d)", stream ? stream->dev : -1);
	drain(stream);
	return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	(void)flags;
	calllog_add("cudaEventCreate");
	*event = calloc(1, sizeof(**event));
	if (!*event)
		return cudaErrorMemoryAllocation;
	fake_cuda_live++;
	return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	free(event);
	fake_cuda_live--;
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	event->stream = stream;
	return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	drain(event->stream);
	return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	(void)start;
	(void)end;
	*ms = 1.0f;
	return cudaSuccess;
}
