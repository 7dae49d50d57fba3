/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake CUDA runtime for the CUDA backend's unit tests: the runtime calls
 * bw_native/cuda_backend.c makes, on host memory, and the driver entry points it asks
 * cudaGetDriverEntryPointByVersion for. Copies are done at once with memcpy; a stream wait
 * on the gate is only logged (calllog.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calllog.h"
#include "fake_cuda.h"

int fake_cuda_ndev = 2;
cudaError_t fake_cuda_count_rc = cudaSuccess;
CUresult fake_cuda_wait_rc = CUDA_SUCCESS;
int fake_cuda_live;

struct CUstream_st {
	int dev;
};
struct CUevent_st {
	int unused;
};

static _Thread_local int current;

void fake_cuda_reset(void)
{
	fake_cuda_ndev = 2;
	fake_cuda_count_rc = cudaSuccess;
	fake_cuda_wait_rc = CUDA_SUCCESS;
	fake_cuda_live = 0;
	calllog_reset();
}

/* ---- driver entry points ---------------------------------------------------------------- */

static CUresult CUDAAPI wait_value32(CUstream s, CUdeviceptr addr, cuuint32_t value,
				     unsigned int flags)
{
	(void)addr;
	(void)flags;
	calllog_add("cuStreamWaitValue32(dev %d, %u)", s ? s->dev : -1, value);
	return fake_cuda_wait_rc;
}

static CUresult CUDAAPI error_name(CUresult rc, const char **s)
{
	*s = rc == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED" : "CUDA_ERROR_FAKE";
	return CUDA_SUCCESS;
}

static CUresult CUDAAPI error_string(CUresult rc, const char **s)
{
	*s = rc == CUDA_ERROR_NOT_SUPPORTED ? "operation not supported" : "fake driver error";
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
	if (device < 0 || device >= fake_cuda_ndev)
		return cudaErrorInvalidDevice;
	current = device;
	return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
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
	(void)peerDevice;
	(void)flags;
	return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
	(void)peerDevice;
	return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	(void)flags;
	*pHost = calloc(1, size ? size : 1);
	if (!*pHost)
		return cudaErrorMemoryAllocation;
	fake_cuda_live++;
	return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr)
{
	free(ptr);
	fake_cuda_live--;
	return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	(void)flags;
	*pDevice = pHost;
	return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	(void)ptr;
	(void)size;
	(void)flags;
	return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
	(void)ptr;
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	*devPtr = malloc(size ? size : 1);
	return *devPtr ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *devPtr)
{
	free(devPtr);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	(void)kind;
	memcpy(dst, src, count);
	return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
			    cudaStream_t stream)
{
	(void)kind;
	calllog_add("cudaMemcpyAsync(dev %d)", stream ? stream->dev : -1);
	memcpy(dst, src, count);
	return cudaSuccess;
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
	(void)stream;
	calllog_add("cudaMemcpyPeerAsync(%d,%d)", srcDevice, dstDevice);
	memcpy(dst, src, count);
	return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
	(void)flags;
	*pStream = calloc(1, sizeof(**pStream));
	if (!*pStream)
		return cudaErrorMemoryAllocation;
	(*pStream)->dev = current;
	fake_cuda_live++;
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	free(stream);
	fake_cuda_live--;
	return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	calllog_add("cudaStreamSynchronize(dev %d)", stream ? stream->dev : -1);
	return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	(void)flags;
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
	(void)event;
	(void)stream;
	return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	(void)event;
	return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	(void)start;
	(void)end;
	*ms = 1.0f;
	return cudaSuccess;
}
