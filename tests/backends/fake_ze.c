/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake Level Zero loader for the ze backend's unit tests: one driver with fake_ze_ndev GPU
 * devices, each with the queue groups of fake_ze_layout (one copy-only group by default, or
 * those of a Data Center GPU Max: compute, main copy, link copy, or a copy group and a compute
 * group); a command list on a group or queue the device does not have is refused, and each
 * copy's log line names the queue group ordinal of its list. Memory is host memory. A copy appended with
 * a wait event that is not signalled is queued and runs when the host signals that event,
 * as a device would; every other copy runs at once and signals its event. Calls are logged
 * (calllog.h). One lock guards the queue and the events, so the real core's threads can run
 * on it (the fake plugin).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <level_zero/ze_api.h>
#include <level_zero/loader/ze_loader.h>

#include "calllog.h"
#include "fake_ze.h"

int fake_ze_ndev = 2;
enum fake_ze_layout fake_ze_layout = FAKE_ZE_ONE_COPY_GROUP;

#define COPY ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY
#define COMPUTE (ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | COPY | \
		 ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS | \
		 ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS)
static const struct group {
	ze_command_queue_group_property_flags_t flags;
	uint32_t queues;
} layouts[][4] = {
	[FAKE_ZE_ONE_COPY_GROUP] = { { COPY, 1 } },
	[FAKE_ZE_PVC] = { { COMPUTE, 4 }, { COPY, 1 }, { COPY, 7 } },
	[FAKE_ZE_PVC_LINK_FIRST] = { { COMPUTE, 4 }, { COPY, 7 }, { COPY, 1 } },
	[FAKE_ZE_COMPUTE_ONLY] = { { COMPUTE, 2 } },
	[FAKE_ZE_COPY_AND_COMPUTE] = { { COPY, 1 }, { COMPUTE, 1 } },
};

static uint32_t ngroups(void)
{
	uint32_t n = 0;
	while (n < 4 && layouts[fake_ze_layout][n].queues)
		n++;
	return n;
}
int fake_ze_hangs;
int fake_ze_busy_destroys;

struct _ze_driver_handle_t {
	int unused;
};
struct _ze_device_handle_t {
	int id;
};
struct _ze_context_handle_t {
	int unused;
};
struct _ze_event_pool_handle_t {
	int events;
};
struct _ze_event_handle_t {
	bool signalled;
	int id;
};
struct _ze_command_list_handle_t {
	int dev;
	uint32_t ordinal;
};

static struct _ze_driver_handle_t driver;
static struct _ze_device_handle_t devices[8];
static int next_event_id;

#define MAX_QUEUED 32
static struct queued {
	ze_command_list_handle_t list;
	void *dst;
	const void *src;
	size_t n;
	ze_event_handle_t signal, wait;
} queued[MAX_QUEUED];
static int nqueued;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t signalled = PTHREAD_COND_INITIALIZER; /* an event was host-signalled */

void fake_ze_reset(void)
{
	fake_ze_hangs = fake_ze_busy_destroys = 0;
	fake_ze_layout = FAKE_ZE_ONE_COPY_GROUP;
	nqueued = 0;
	calllog_reset();
}

int fake_ze_pending(void)
{
	pthread_mutex_lock(&lock);
	int n = nqueued;
	pthread_mutex_unlock(&lock);
	return n;
}

/* The "device": run every queued copy whose wait event is signalled. */
static void run_ready(void)
{
	for (int i = 0; i < nqueued;) {
		struct queued *q = &queued[i];
		if (!q->wait->signalled) {
			i++;
			continue;
		}
		memcpy(q->dst, q->src, q->n);
		if (q->signal)
			q->signal->signalled = true;
		queued[i] = queued[--nqueued];
	}
}

ze_result_t zeInit(ze_init_flags_t flags)
{
	(void)flags;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers)
{
	if (phDrivers && *pCount >= 1)
		phDrivers[0] = &driver;
	*pCount = 1;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version)
{
	(void)hDriver;
	*version = ZE_API_VERSION_1_0;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGetProperties(ze_driver_handle_t hDriver, ze_driver_properties_t *p)
{
	(void)hDriver;
	p->driverVersion = 1;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
					   ze_driver_extension_properties_t *p)
{
	(void)hDriver;
	(void)p;
	*pCount = 0;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
			    ze_context_handle_t *phContext)
{
	(void)hDriver;
	(void)desc;
	calllog_add("zeContextCreate");
	*phContext = calloc(1, sizeof(**phContext));
	return *phContext ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

ze_result_t zeContextDestroy(ze_context_handle_t hContext)
{
	free(hContext);
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
			ze_device_handle_t *phDevices)
{
	(void)hDriver;
	uint32_t n = fake_ze_ndev < 0 ? 0 : fake_ze_ndev > 8 ? 8 : (uint32_t)fake_ze_ndev;
	if (phDevices) {
		n = *pCount < n ? *pCount : n;
		for (uint32_t i = 0; i < n; i++) {
			devices[i].id = (int)i;
			phDevices[i] = &devices[i];
		}
	}
	*pCount = n;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *p)
{
	p->type = ZE_DEVICE_TYPE_GPU;
	p->timerResolution = 1;
	p->kernelTimestampValidBits = 32;
	snprintf(p->name, sizeof(p->name), "fake Level Zero GPU %d", hDevice->id);
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t hDevice, uint32_t *pCount,
						   ze_command_queue_group_properties_t *p)
{
	(void)hDevice;
	uint32_t n = ngroups();
	if (p) {
		n = *pCount < n ? *pCount : n;
		for (uint32_t i = 0; i < n; i++) {
			p[i].flags = layouts[fake_ze_layout][i].flags;
			p[i].numQueues = layouts[fake_ze_layout][i].queues;
			p[i].maxMemoryFillPatternSize = 4;
		}
	}
	*pCount = n;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
					ze_device_memory_properties_t *p)
{
	(void)hDevice;
	if (p && *pCount >= 1) {
		snprintf(p[0].name, sizeof(p[0].name), "HBM");
		p[0].totalSize = 64000000000ull;
	}
	*pCount = 1;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetP2PProperties(ze_device_handle_t hDevice, ze_device_handle_t hPeer,
				     ze_device_p2p_properties_t *p)
{
	(void)hDevice;
	(void)hPeer;
	p->flags = ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeer,
				  ze_bool_t *value)
{
	(void)hDevice;
	(void)hPeer;
	*value = 1;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice, ze_pci_ext_properties_t *p)
{
	p->address.domain = 0;
	p->address.bus = 0x20 + (uint32_t)hDevice->id;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
					 const ze_command_queue_desc_t *desc,
					 ze_command_list_handle_t *phList)
{
	(void)hContext;
	calllog_add("zeCommandListCreateImmediate(dev %d, ordinal %u, index %u)", hDevice->id,
		    desc->ordinal, desc->index);
	if (desc->ordinal >= ngroups() ||
	    desc->index >= layouts[fake_ze_layout][desc->ordinal].queues)
		return ZE_RESULT_ERROR_INVALID_ARGUMENT;
	*phList = calloc(1, sizeof(**phList));
	if (!*phList)
		return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
	(*phList)->dev = hDevice->id;
	(*phList)->ordinal = desc->ordinal;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListDestroy(ze_command_list_handle_t hList)
{
	calllog_add("zeCommandListDestroy(dev %d)", hList->dev);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nqueued; i++)
		if (queued[i].list == hList) {
			fake_ze_busy_destroys++;
			queued[i--] = queued[--nqueued];
		}
	pthread_mutex_unlock(&lock);
	free(hList);
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t hList, void *dst,
					  const void *src, size_t size, ze_event_handle_t hSignal,
					  uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents)
{
	calllog_add("zeCommandListAppendMemoryCopy(dev %d, wait %u, ordinal %u)", hList->dev,
		    numWaitEvents, hList->ordinal);
	if (numWaitEvents > 1)
		return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; /* the fake waits on one event */
	ze_result_t r = ZE_RESULT_SUCCESS;
	pthread_mutex_lock(&lock);
	if (numWaitEvents == 1 && !phWaitEvents[0]->signalled) {
		if (nqueued >= MAX_QUEUED)
			r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
		else
			queued[nqueued++] = (struct queued){ hList, dst, src, size, hSignal,
							     phWaitEvents[0] };
	} else {
		memcpy(dst, src, size);
		if (hSignal)
			hSignal->signalled = true;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

/* The region copy: every row of the region, at once (the face probes do not queue behind a
 * gate). */
ze_result_t zeCommandListAppendMemoryCopyRegion(ze_command_list_handle_t hList, void *dst,
						const ze_copy_region_t *dr, uint32_t dpitch,
						uint32_t dslice, const void *src,
						const ze_copy_region_t *sr, uint32_t spitch,
						uint32_t sslice, ze_event_handle_t hSignal,
						uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents)
{
	(void)phWaitEvents;
	calllog_add("zeCommandListAppendMemoryCopyRegion(dev %d, %ux%ux%u)", hList->dev, sr->width,
		    sr->height, sr->depth);
	if (numWaitEvents || sr->width != dr->width || sr->height != dr->height ||
	    sr->depth != dr->depth || sr->originX + sr->width > spitch ||
	    dr->originX + dr->width > dpitch)
		return ZE_RESULT_ERROR_INVALID_ARGUMENT;
	for (uint32_t z = 0; z < sr->depth; z++)
		for (uint32_t y = 0; y < sr->height; y++)
			memcpy((char *)dst + (size_t)(dr->originZ + z) * dslice +
				       (size_t)(dr->originY + y) * dpitch + dr->originX,
			       (const char *)src + (size_t)(sr->originZ + z) * sslice +
				       (size_t)(sr->originY + y) * spitch + sr->originX,
			       sr->width);
	if (hSignal)
		hSignal->signalled = true;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
			      uint32_t numDevices, ze_device_handle_t *phDevices,
			      ze_event_pool_handle_t *phPool)
{
	(void)hContext;
	(void)numDevices;
	(void)phDevices;
	calllog_add("zeEventPoolCreate(%u events)", desc->count);
	*phPool = calloc(1, sizeof(**phPool));
	if (!*phPool)
		return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
	(*phPool)->events = (int)desc->count;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t hPool)
{
	free(hPool);
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventCreate(ze_event_pool_handle_t hPool, const ze_event_desc_t *desc,
			  ze_event_handle_t *phEvent)
{
	(void)hPool;
	(void)desc;
	*phEvent = calloc(1, sizeof(**phEvent));
	if (!*phEvent)
		return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
	(*phEvent)->id = next_event_id++;
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventDestroy(ze_event_handle_t hEvent)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nqueued; i++)
		if (queued[i].signal == hEvent || queued[i].wait == hEvent)
			fake_ze_busy_destroys++;
	pthread_mutex_unlock(&lock);
	free(hEvent);
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventHostSignal(ze_event_handle_t hEvent)
{
	calllog_add("zeEventHostSignal(%d)", hEvent->id);
	pthread_mutex_lock(&lock);
	hEvent->signalled = true;
	run_ready();
	pthread_cond_broadcast(&signalled);
	pthread_mutex_unlock(&lock);
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventHostReset(ze_event_handle_t hEvent)
{
	calllog_add("zeEventHostReset(%d)", hEvent->id);
	pthread_mutex_lock(&lock);
	hEvent->signalled = false;
	pthread_mutex_unlock(&lock);
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventQueryStatus(ze_event_handle_t hEvent)
{
	calllog_add("zeEventQueryStatus(%d)", hEvent->id);
	pthread_mutex_lock(&lock);
	bool done = hEvent->signalled;
	pthread_mutex_unlock(&lock);
	return done ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

ze_result_t zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout)
{
	calllog_add("zeEventHostSynchronize(%d)", hEvent->id);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	pthread_mutex_lock(&lock);
	run_ready();
	/* An endless wait may be ended by another thread's zeEventHostSignal (the real core's
	 * release()); none within 2 s counts as a wait that would never end. */
	while (!hEvent->signalled && timeout == UINT64_MAX &&
	       pthread_cond_timedwait(&signalled, &lock, &until) == 0)
		run_ready();
	bool done = hEvent->signalled;
	if (!done && timeout == UINT64_MAX)
		fake_ze_hangs++;
	pthread_mutex_unlock(&lock);
	return done ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

ze_result_t zeEventQueryKernelTimestamp(ze_event_handle_t hEvent,
					ze_kernel_timestamp_result_t *dst)
{
	(void)hEvent;
	memset(dst, 0, sizeof(*dst));
	dst->global.kernelEnd = 1000; /* 1000 ticks of 1 ns */
	return ZE_RESULT_SUCCESS;
}

ze_result_t zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *desc,
			   size_t size, size_t alignment, void **pptr)
{
	(void)hContext;
	(void)desc;
	(void)alignment;
	calllog_add("zeMemAllocHost");
	*pptr = malloc(size);
	return *pptr ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

ze_result_t zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *desc,
			     size_t size, size_t alignment, ze_device_handle_t hDevice, void **pptr)
{
	(void)hContext;
	(void)desc;
	(void)alignment;
	calllog_add("zeMemAllocDevice(dev %d)", hDevice->id);
	*pptr = malloc(size);
	return *pptr ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
}

ze_result_t zeMemFree(ze_context_handle_t hContext, void *ptr)
{
	(void)hContext;
	free(ptr);
	return ZE_RESULT_SUCCESS;
}

ze_result_t zelLoaderGetVersions(size_t *num_elems, zel_component_version_t *versions)
{
	(void)versions;
	*num_elems = 0;
	return ZE_RESULT_SUCCESS;
}
