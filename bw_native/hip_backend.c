/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HIP backend: AMD GPUs through the HIP runtime (Debian's libamdhip64 5.2, used from C).
 *
 *   sync    hipMemcpy for HtoD/DtoH; P2P with hipMemcpyPeer, or hipMemcpy DeviceToDevice
 *           when both buffers are on one device. A device-to-device copy of these blocking
 *           calls may return before the copy is done (as cudaMemcpy's does), so it is
 *           followed by hipDeviceSynchronize on the issuing device, as in the CUDA backend
 *   async   the same copies as hipMemcpyAsync / hipMemcpyPeerAsync on the transfer's own
 *           non-blocking stream between two hipEvents, then hipEventSynchronize; the events
 *           give device_s (hipEventElapsedTime)
 *   kernel  a copy kernel (hip_kernels.c: HIP C++ compiled by hipRTC for the device's
 *           gcnArchName, loaded with hipModuleLoadData, launched with hipModuleLaunchKernel
 *           on the transfer's own stream between two hipEvents): HtoD on the destination
 *           GPU reading mapped pinned (or registered) host memory through its device address
 *           (hipHostGetDevicePointer), DtoH on the source GPU writing it, P2P on the
 *           destination GPU reading the source's buffer through the peer pointer, only with
 *           peer access on. Pageable memory has no device address: refused
 *   chase   the same module's chase kernel, one thread of the destination GPU following
 *           the chain through mapped host memory (HtoD) or the peer's memory (P2P, peer on);
 *           DtoH refused (a host thread cannot load HIP device memory)
 *           The code objects are compiled at the first supports() of these modes (once per
 *           gcnArchName) and loaded at the first prepare() on each device, never timed;
 *           when hipRTC cannot build them, both modes are refused with its error
 *   gated   submit() queues hipStreamWaitValue32 on a 32-bit flag in mapped, coherent pinned
 *           host memory ahead of the events and the copy; release() raises the flag by one,
 *           so every copy waiting for "flag >= epoch + 1" starts at once
 *
 * Face probes (--faces): rect is hipMemcpy3D(Async); pack gathers a device box's face with
 * the module's nbw_pack kernel into a contiguous buffer on the same device, copies it as the
 * mode's plain copy does, and scatters it with nbw_unpack; each kernel runs on the device's
 * face stream and is waited for (hipStreamSynchronize), so the executor times the whole.
 * prepare() of a pack copy loads the module and makes the stream, outside the timed region.
 *
 * open() only asks: the device count and each device's CanUseStreamWaitValue attribute.
 * It selects no device and allocates nothing, so `nodebw list` on an 8-GPU node costs no
 * allocation; the gate's pinned flag (hipHostMalloc, mapped into every GPU) is made at the
 * first async prepare(), which is the first copy that can need it.
 *
 * open() tells an absent HIP from a failing one (probe.h's contract): hipErrorNoDevice from
 * hipGetDeviceCount (no GPU, no /dev/kfd, or none visible) is -ENODEV, a skip; any other
 * error (the runtime cannot initialise, a driver too old, ...) is -EIO, an error of the run
 * that names the HIP error, as the CUDA backend does with everything but cudaErrorNoDevice
 * and the toolkit's stub driver.
 *
 * Host memory: pageable = posix_memalign, pinned = hipHostMalloc(Portable | Mapped),
 * registered = posix_memalign + hipHostRegister(Portable). A copy is issued from the device
 * that owns its device side: the destination for HtoD, the source for DtoH and P2P. Every
 * operation selects that device in the calling thread, since hipSetDevice is per thread.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include "hip_kernels.h"
#include "nodebw/hugepage.h"
#include "nodebw/probe.h"

/* hipHostMalloc flags for pinned buffers: what hipHostMalloc always sets. In ROCclr the Mapped
 * flag makes the allocation fine-grained (coherent) whatever HIP_HOST_COHERENT says. */
#define PINNED_FLAGS (hipHostMallocPortable | hipHostMallocMapped)
/* The gate is polled by the device while the host writes it: it must be coherent. */
#define GATE_FLAGS (hipHostMallocPortable | hipHostMallocMapped | hipHostMallocCoherent)

struct nbw_backend {
	int ndev;
	bool *can_wait;            /* hipDeviceAttributeCanUseStreamWaitValue per device */
	int *cus;                  /* hipDeviceAttributeMultiprocessorCount per device */
	struct hipk *kern;         /* the kernel modes' code objects, compiled on first use */
	pthread_mutex_t lock;      /* the gate's creation, at the first async prepare() */
	bool gate_tried;           /* gate_init() ran (gate or gate_why is set) */
	uint32_t *gate;            /* host address of the gate flag, NULL when there is none */
	void *gate_dev;            /* its device address (hipHostGetDevicePointer) */
	char gate_why[NBW_REASON_LEN];
};

/* Per-transfer state of the async mode. */
struct hip_xfer {
	int dev;                   /* the device whose stream issues the copy */
	hipStream_t stream;
	hipEvent_t start, stop;
	uint32_t wait_for;         /* gate value a submitted copy waits for; 0 when none is */
	hipFunction_t fn;          /* kernel and chase modes: the kernel, and its addresses */
	const void *ksrc;
	void *kdst;
	char gate_why[NBW_REASON_LEN]; /* why this copy cannot start on the gate */
};

static _Thread_local char last_err[NBW_REASON_LEN];
static _Thread_local char path_text[NBW_REASON_LEN];

/* "call: hipErrorName (code): error string"; the call text is cut at its '('. */
static void hip_describe(char *buf, size_t len, const char *call, hipError_t e)
{
	int n = (int)strcspn(call, "(");
	snprintf(buf, len, "%.*s: %s (%d): %s", n, call, hipGetErrorName(e), (int)e,
		 hipGetErrorString(e));
}

/* The one place a failed HIP call is turned into last_error. */
static int hip_check(hipError_t e, const char *call)
{
	if (e == hipSuccess)
		return 0;
	hip_describe(last_err, sizeof(last_err), call, e);
	return -EIO;
}

#define HIP_TRY(expr) hip_check((expr), #expr)

static int use_device(int dev)
{
	return HIP_TRY(hipSetDevice(dev));
}

static bool valid_device(const struct nbw_backend *be, int dev)
{
	return dev >= 0 && dev < be->ndev;
}

/* The gate lives in pinned host memory that every device can poll. It is optional: without
 * it (or with the CP-wait variant, which needs signal memory) submit() says why. */
static void gate_init(struct nbw_backend *be)
{
	const char *cp = getenv("GPU_STREAMOPS_CP_WAIT");
	void *host = NULL, *dev = NULL;

	if (cp && (*cp == '1' || *cp == 't' || *cp == 'T')) {
		snprintf(be->gate_why, sizeof(be->gate_why),
			 "GPU_STREAMOPS_CP_WAIT=%s: hipStreamWaitValue32 then needs "
			 "hipMallocSignalMemory, not a flag in host memory", cp);
		return;
	}
	if (use_device(0) || HIP_TRY(hipHostMalloc(&host, 64, GATE_FLAGS))) {
		snprintf(be->gate_why, sizeof(be->gate_why), "%s", last_err);
		return;
	}
	if (HIP_TRY(hipHostGetDevicePointer(&dev, host, 0))) {
		snprintf(be->gate_why, sizeof(be->gate_why), "%s", last_err);
		(void)HIP_TRY(hipHostFree(host));
		return;
	}
	be->gate = host;
	be->gate_dev = dev;
	__atomic_store_n(be->gate, 0, __ATOMIC_SEQ_CST);
}

/* The gate, made once, when the first async transfer is prepared (never at open()). */
static void gate_ensure(struct nbw_backend *be)
{
	pthread_mutex_lock(&be->lock);
	if (!be->gate_tried) {
		be->gate_tried = true;
		gate_init(be);
	}
	pthread_mutex_unlock(&be->lock);
}

static int hb_open(struct nbw_backend **out, const struct nbw_backend_opts *opts, char *why,
		     size_t whylen)
{
	(void)opts; /* nothing of it is for this backend */
	int n = 0;
	hipError_t e = hipGetDeviceCount(&n);

	if (e != hipSuccess) {
		hip_describe(why, whylen, "hipGetDeviceCount", e);
		return e == hipErrorNoDevice ? -ENODEV : -EIO;
	}
	if (n <= 0) {
		snprintf(why, whylen, "hipGetDeviceCount: %d devices", n);
		return -ENODEV;
	}
	struct nbw_backend *be = calloc(1, sizeof(*be));
	if (!be)
		return -ENOMEM;
	be->ndev = n;
	be->can_wait = calloc((size_t)n, sizeof(*be->can_wait));
	be->cus = calloc((size_t)n, sizeof(*be->cus));
	be->kern = hipk_new(n);
	if (!be->can_wait || !be->cus || !be->kern) {
		hipk_free(be->kern);
		free(be->cus);
		free(be->can_wait);
		free(be);
		return -ENOMEM;
	}
	for (int d = 0; d < n; d++) {
		int v = 0;
		if (!HIP_TRY(hipDeviceGetAttribute(&v, hipDeviceAttributeCanUseStreamWaitValue, d)))
			be->can_wait[d] = v != 0;
		(void)HIP_TRY(hipDeviceGetAttribute(&be->cus[d],
						    hipDeviceAttributeMultiprocessorCount, d));
	}
	pthread_mutex_init(&be->lock, NULL);
	*out = be;
	return 0;
}

static void hb_close(struct nbw_backend *be)
{
	if (!be)
		return;
	if (be->gate)
		(void)HIP_TRY(hipHostFree(be->gate));
	pthread_mutex_destroy(&be->lock);
	hipk_free(be->kern);
	free(be->cus);
	free(be->can_wait);
	free(be);
}

static int hb_device_count(struct nbw_backend *be)
{
	return be->ndev;
}

static void lower_case(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static int hb_device_info(struct nbw_backend *be, int dev, struct nbw_device *out)
{
	hipDeviceProp_t p;

	if (!valid_device(be, dev))
		return -EINVAL;
	if (HIP_TRY(hipGetDeviceProperties(&p, dev)))
		return -EIO;
	memset(out, 0, sizeof(*out));
	out->id = dev;
	out->runtime_id = out->id;
	out->is_gpu = true;
	snprintf(out->kind, sizeof(out->kind), "amdgpu");
	snprintf(out->name, sizeof(out->name), "%.80s (%.40s)", p.name[0] ? p.name : "AMD GPU",
		 p.gcnArchName);

	double gb = (double)p.totalGlobalMem / 1e9;
	if (p.integrated)
		snprintf(out->memory, sizeof(out->memory),
			 "system memory shared with the host (APU), %.1f GB", gb);
	else if (p.memoryBusWidth >= 1024)
		snprintf(out->memory, sizeof(out->memory),
			 "HBM (%d-bit bus), %.1f GB device memory", p.memoryBusWidth, gb);
	else
		snprintf(out->memory, sizeof(out->memory),
			 "%d-bit memory bus, %.1f GB device memory", p.memoryBusWidth, gb);

	char bus[sizeof(out->pci_bus_id)];
	if (!HIP_TRY(hipDeviceGetPCIBusId(bus, (int)sizeof(bus), dev))) {
		lower_case(bus);
		snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%s", bus);
	}
	return 0;
}

static void hb_versions(struct nbw_backend *be, char *buf, size_t len)
{
	int rt = -1, drv = -1;
	const char *lib = "unknown";
	char *real = NULL;
	Dl_info info;

	(void)HIP_TRY(hipRuntimeGetVersion(&rt));
	(void)HIP_TRY(hipDriverGetVersion(&drv));
	if (dladdr((void *)(uintptr_t)hipRuntimeGetVersion, &info) && info.dli_fname) {
		real = realpath(info.dli_fname, NULL);
		lib = real ? real : info.dli_fname;
	}
	/* HIP_VERSION = major * 10^7 + minor * 10^5 + patch */
	snprintf(buf, len,
		 "hip_runtime=%d.%d.%d\nhip_driver=%d\nhip_headers=%d.%d.%d\nlibamdhip64=%s\n"
		 "devices=%d\n",
		 rt / 10000000, rt / 100000 % 100, rt % 100000, drv, HIP_VERSION_MAJOR,
		 HIP_VERSION_MINOR, HIP_VERSION_PATCH, lib, be ? be->ndev : 0);
	free(real);
}

static const char *kernel_interface(enum nbw_dir dir, enum nbw_mode mode, char *why,
				    size_t whylen)
{
	static const char *const text[NBW_DIR_COUNT][2] = {
		[NBW_HTOD] = {
			"copy kernel (hipRTC, hipModuleLaunchKernel) on the destination GPU reading "
			"mapped pinned host memory (hipHostGetDevicePointer), hipEvent timing",
			"chase kernel (hipRTC): one thread of the destination GPU follows the chain "
			"in mapped pinned host memory, dependent loads, hipEvent timing",
		},
		[NBW_DTOH] = {
			"copy kernel (hipRTC, hipModuleLaunchKernel) on the source GPU writing mapped "
			"pinned host memory (hipHostGetDevicePointer), hipEvent timing",
			NULL,
		},
		[NBW_P2P] = {
			"copy kernel (hipRTC, hipModuleLaunchKernel) on the destination GPU reading "
			"the source's memory through the peer pointer (peer access on), hipEvent timing",
			"chase kernel (hipRTC): one thread of the destination GPU follows the chain "
			"in the source GPU's memory through the peer pointer, hipEvent timing",
		},
	};
	const char *t = text[dir][mode == NBW_MODE_CHASE];

	if (!t)
		snprintf(why, whylen,
			 "a DtoH chase needs a host thread loading device memory, which HIP does "
			 "not map into the host");
	return t;
}

static const char *hb_interface(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t whylen)
{
	static const char *const text[NBW_DIR_COUNT][2] = {
		[NBW_HTOD] = {
			"hipMemcpy (hipMemcpyHostToDevice)",
			"hipMemcpyAsync (hipMemcpyHostToDevice) on a non-blocking stream, hipEvent "
			"timing; concurrent copies gated with hipStreamWaitValue32",
		},
		[NBW_DTOH] = {
			"hipMemcpy (hipMemcpyDeviceToHost)",
			"hipMemcpyAsync (hipMemcpyDeviceToHost) on a non-blocking stream, hipEvent "
			"timing; concurrent copies gated with hipStreamWaitValue32",
		},
		[NBW_P2P] = {
			"hipMemcpyPeer (one device: hipMemcpy hipMemcpyDeviceToDevice) + "
			"hipDeviceSynchronize (both may return before the copy is done)",
			"hipMemcpyPeerAsync (one device: hipMemcpyAsync hipMemcpyDeviceToDevice) "
			"on a non-blocking stream of the source device, hipEvent timing; "
			"concurrent copies gated with hipStreamWaitValue32",
		},
	};

	if ((unsigned)dir >= NBW_DIR_COUNT) {
		snprintf(why, whylen, "unknown direction %d", (int)dir);
		return NULL;
	}
	switch (mode) {
	case NBW_MODE_SYNC:
		return text[dir][0];
	case NBW_MODE_ASYNC:
		return text[dir][1];
	case NBW_MODE_KERNEL:
	case NBW_MODE_CHASE:
		return kernel_interface(dir, mode, why, whylen);
	case NBW_MODE_NOWAIT:
		snprintf(why, whylen,
			 "nowait is OpenMP's target update nowait; HIP's stream copy is the async "
			 "mode");
		return NULL;
	case NBW_MODE_PARALLEL:
		snprintf(why, whylen,
			 "parallel splits one copy over host cores (host backend); HIP copies are "
			 "done by the GPU's DMA engines");
		return NULL;
	default:
		break;
	}
	snprintf(why, whylen, "unknown mode %d", (int)mode);
	return NULL;
}

static int hb_supports(struct nbw_backend *be, enum nbw_dir dir, enum nbw_mode mode,
		       enum nbw_hostmem mem, char *why, size_t whylen)
{
	if (!hb_interface(dir, mode, why, whylen))
		return -1;
	if (dir == NBW_P2P && mem != NBW_HOSTMEM_NONE) {
		snprintf(why, whylen, "a device-to-device copy has no host memory side");
		return -1;
	}
	if (dir != NBW_P2P && (unsigned)mem >= NBW_HOSTMEM_NONE) {
		snprintf(why, whylen,
			 "a host-device copy needs pageable, pinned, registered or huge-page "
			 "memory");
		return -1;
	}
	if (mode != NBW_MODE_KERNEL && mode != NBW_MODE_CHASE)
		return 0;
	if (dir != NBW_P2P && mem == NBW_HOSTMEM_PAGEABLE) {
		snprintf(why, whylen,
			 "a device thread can only reach page-locked host memory mapped into the "
			 "GPU (pinned, registered); pageable memory has no device address");
		return -1;
	}
	if (dir != NBW_P2P && mem == NBW_HOSTMEM_HUGEPAGE) {
		snprintf(why, whylen,
			 "the kernel and chase modes run over pinned and registered memory only; "
			 "huge-page buffers are measured with the API's copies");
		return -1;
	}
	return hipk_compile_all(be->kern, why, whylen) ? -1 : 0;
}

static const char *hb_hostmem_note(struct nbw_backend *be, enum nbw_hostmem mem, int dev)
{
	switch (mem) {
	case NBW_HOSTMEM_PAGEABLE:
		return "posix_memalign: pageable; the HIP runtime stages it through its own pinned "
		       "buffers (or pins it piece by piece) for each copy";
	case NBW_HOSTMEM_PINNED:
		return "hipHostMalloc(Portable|Mapped): page-locked, mapped into every GPU; "
		       "coherent (fine-grained), as Mapped selects it whatever HIP_HOST_COHERENT "
		       "says";
	case NBW_HOSTMEM_REGISTERED:
		return "posix_memalign + hipHostRegister(Portable): page-locked in place for "
		       "every GPU; fine-grained (coarse-grained only with "
		       "hipExtHostRegisterCoarseGrained)";
	case NBW_HOSTMEM_HUGEPAGE:
		return "huge pages (mmap MAP_HUGETLB, else THP-advised mmap) + hipHostRegister"
		       "(Portable) of the whole mapping: page-locked in place for every GPU";
	default:
		return "no host memory: device-to-device copy";
	}
}

/* hsa_amd_link_info_type_t, the link type hipExtGetLinkTypeAndHopCount reports. */
static const char *link_name(uint32_t type)
{
	static const char *const names[] = { "HyperTransport", "QPI", "PCIe", "InfiniBand",
					     "XGMI" };
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

static const char *hb_p2p_path(struct nbw_backend *be, int src, int dst)
{
	uint32_t type = 0, hops = 0;
	int can = 0;

	if (src == dst)
		return "same-GPU copy in device memory, not a peer link";
	if (!valid_device(be, src) || !valid_device(be, dst)) {
		snprintf(path_text, sizeof(path_text), "no such device pair (%d, %d)", src, dst);
		return path_text;
	}
	if (HIP_TRY(hipExtGetLinkTypeAndHopCount(src, dst, &type, &hops)) ||
	    HIP_TRY(hipDeviceCanAccessPeer(&can, src, dst))) {
		snprintf(path_text, sizeof(path_text), "unknown: %.200s", last_err);
		return path_text;
	}
	const char *name = link_name(type);
	char other[24];
	snprintf(other, sizeof(other), "link type %u", type);
	snprintf(path_text, sizeof(path_text),
		 "%s, %u hop%s (hipExtGetLinkTypeAndHopCount); "
		 "hipDeviceCanAccessPeer(%d, %d) = %d%s",
		 name ? name : other, hops, hops == 1 ? "" : "s", src, dst, can,
		 can ? "" : ": the runtime stages the copy through host memory");
	return path_text;
}

static int hb_peer_access(struct nbw_backend *be, int src, int dst, bool enable, char *why,
			  size_t whylen)
{
	hipError_t e;
	int can = 0;

	if (src == dst || !valid_device(be, src) || !valid_device(be, dst)) {
		snprintf(why, whylen, "peer access needs two distinct devices (got %d, %d)", src,
			 dst);
		return -1;
	}
	if (HIP_TRY(hipDeviceCanAccessPeer(&can, src, dst)))
		goto fail;
	if (!can) {
		snprintf(why, whylen, "hipDeviceCanAccessPeer(%d, %d) = 0", src, dst);
		return -1;
	}
	if (use_device(src))
		goto fail;
	if (enable) {
		e = hipDeviceEnablePeerAccess(dst, 0);
		if (e == hipErrorPeerAccessAlreadyEnabled)
			e = hipSuccess;
	} else {
		e = hipDeviceDisablePeerAccess(dst);
		if (e == hipErrorPeerAccessNotEnabled)
			e = hipSuccess;
	}
	/* Clear the thread's sticky error left by an "already (not) enabled" answer. */
	(void)hipGetLastError();
	if (hip_check(e, enable ? "hipDeviceEnablePeerAccess" : "hipDeviceDisablePeerAccess"))
		goto fail;
	return 0;
fail:
	snprintf(why, whylen, "%s", last_err);
	return -1;
}

static int alloc_host(struct nbw_buf *b)
{
	if (posix_memalign(&b->ptr, 4096, b->bytes)) {
		b->ptr = NULL;
		snprintf(last_err, sizeof(last_err), "posix_memalign(%zu bytes) failed", b->bytes);
		return -ENOMEM;
	}
	return 0;
}

static int hb_alloc(struct nbw_backend *be, struct nbw_buf *b)
{
	b->ptr = NULL;
	if (b->loc == NBW_LOC_HOST_PAGEABLE)
		return alloc_host(b);
	/* Device buffers need a device; pinned memory may be for none (-1). */
	bool host_any = b->loc != NBW_LOC_DEVICE && b->device == -1;
	if (!host_any && !valid_device(be, b->device)) {
		snprintf(last_err, sizeof(last_err), "no HIP device %d", b->device);
		return -ENOMEM;
	}
	if (b->device >= 0 && use_device(b->device))
		return -ENOMEM;
	switch (b->loc) {
	case NBW_LOC_HOST_PINNED:
		if (HIP_TRY(hipHostMalloc(&b->ptr, b->bytes, PINNED_FLAGS)))
			break;
		return 0;
	case NBW_LOC_HOST_REGISTERED:
		if (alloc_host(b))
			return -ENOMEM;
		if (!HIP_TRY(hipHostRegister(b->ptr, b->bytes, hipHostRegisterPortable)))
			return 0;
		free(b->ptr);
		break;
	case NBW_LOC_HOST_HUGEPAGE: {
		/* Huge pages (common/hugepage.c), registered as REGISTERED is: the whole
		 * mapping, so that registration never splits a transparent huge page. */
		int rc = nbw_hugepage_alloc(b->bytes, &b->ptr, NULL, last_err, sizeof(last_err));
		if (rc) {
			b->ptr = NULL;
			return rc;
		}
		if (!HIP_TRY(hipHostRegister(b->ptr, nbw_hugepage_span(b->bytes),
					     hipHostRegisterPortable)))
			return 0;
		nbw_hugepage_free(b->ptr, b->bytes);
		break;
	}
	case NBW_LOC_DEVICE:
		if (HIP_TRY(hipMalloc(&b->ptr, b->bytes)))
			break;
		return 0;
	default:
		snprintf(last_err, sizeof(last_err), "unknown buffer location %d", (int)b->loc);
		break;
	}
	b->ptr = NULL;
	return -ENOMEM;
}

static void hb_free(struct nbw_backend *be, struct nbw_buf *b)
{
	if (!b->ptr)
		return;
	switch (b->loc) {
	case NBW_LOC_HOST_PAGEABLE:
		free(b->ptr);
		break;
	case NBW_LOC_HOST_PINNED:
		(void)HIP_TRY(hipHostFree(b->ptr));
		break;
	case NBW_LOC_HOST_REGISTERED:
		(void)HIP_TRY(hipHostUnregister(b->ptr));
		free(b->ptr);
		break;
	case NBW_LOC_HOST_HUGEPAGE:
		(void)HIP_TRY(hipHostUnregister(b->ptr));
		nbw_hugepage_free(b->ptr, b->bytes);
		break;
	case NBW_LOC_DEVICE:
		if (!use_device(b->device))
			(void)HIP_TRY(hipFree(b->ptr));
		break;
	}
	b->ptr = NULL;
}

static int hb_write(struct nbw_backend *be, struct nbw_buf *dst, const void *host, size_t n)
{
	if (dst->loc != NBW_LOC_DEVICE) {
		memcpy(dst->ptr, host, n);
		return 0;
	}
	if (use_device(dst->device) ||
	    HIP_TRY(hipMemcpy(dst->ptr, host, n, hipMemcpyHostToDevice)))
		return -EIO;
	return 0;
}

static int hb_read(struct nbw_backend *be, void *host, const struct nbw_buf *src, size_t n)
{
	if (src->loc != NBW_LOC_DEVICE) {
		memcpy(host, src->ptr, n);
		return 0;
	}
	if (use_device(src->device) ||
	    HIP_TRY(hipMemcpy(host, src->ptr, n, hipMemcpyDeviceToHost)))
		return -EIO;
	return 0;
}

/* The device that owns the device side of a copy issues it. */
static int issuing_device(const struct nbw_xfer *x)
{
	return x->dir == NBW_HTOD ? x->dst->device : x->src->device;
}

static bool same_device(const struct nbw_xfer *x)
{
	return x->src->device == x->dst->device;
}

static int copy_sync(const struct nbw_xfer *x)
{
	void *dst = x->dst->ptr;
	const void *src = x->src->ptr;

	switch (x->dir) {
	case NBW_HTOD:
		return HIP_TRY(hipMemcpy(dst, src, x->bytes, hipMemcpyHostToDevice));
	case NBW_DTOH:
		return HIP_TRY(hipMemcpy(dst, src, x->bytes, hipMemcpyDeviceToHost));
	default:
		if (same_device(x))
			return HIP_TRY(hipMemcpy(dst, src, x->bytes, hipMemcpyDeviceToDevice));
		return HIP_TRY(hipMemcpyPeer(dst, x->dst->device, src, x->src->device, x->bytes));
	}
}

static int copy_async(const struct nbw_xfer *x, hipStream_t s)
{
	void *dst = x->dst->ptr;
	const void *src = x->src->ptr;

	switch (x->dir) {
	case NBW_HTOD:
		return HIP_TRY(hipMemcpyAsync(dst, src, x->bytes, hipMemcpyHostToDevice, s));
	case NBW_DTOH:
		return HIP_TRY(hipMemcpyAsync(dst, src, x->bytes, hipMemcpyDeviceToHost, s));
	default:
		if (same_device(x))
			return HIP_TRY(hipMemcpyAsync(dst, src, x->bytes,
						      hipMemcpyDeviceToDevice, s));
		return HIP_TRY(hipMemcpyPeerAsync(dst, x->dst->device, src, x->src->device,
						  x->bytes, s));
	}
}

static void destroy_state(struct hip_xfer *st)
{
	if (st->stop)
		(void)HIP_TRY(hipEventDestroy(st->stop));
	if (st->start)
		(void)HIP_TRY(hipEventDestroy(st->start));
	if (st->stream)
		(void)HIP_TRY(hipStreamDestroy(st->stream));
	free(st);
}

static int gate_refusal(struct nbw_backend *be, const struct nbw_xfer *x,
			const struct hip_xfer *st);

static bool kernel_mode(const struct nbw_xfer *x)
{
	return x->mode == NBW_MODE_KERNEL || x->mode == NBW_MODE_CHASE;
}

/* The device address of one side of a kernel-mode copy: device buffers as they are, host
 * buffers through hipHostGetDevicePointer (pinned and registered memory are mapped). */
static int kernel_address(const struct nbw_buf *b, void **out)
{
	if (b->loc == NBW_LOC_DEVICE) {
		*out = b->ptr;
		return 0;
	}
	if (b->loc == NBW_LOC_HOST_PAGEABLE) {
		snprintf(last_err, sizeof(last_err),
			 "kernel mode: pageable host memory has no device address");
		return -EINVAL;
	}
	return HIP_TRY(hipHostGetDevicePointer(out, b->ptr, 0));
}

/* Kernel and chase modes, outside the timed region: the checks, the module on the device
 * that runs the kernel, the device addresses of both sides. */
static int kernel_setup(struct nbw_backend *be, const struct nbw_xfer *x, struct hip_xfer *st)
{
	hipFunction_t copy = NULL, chase = NULL;
	void *src = NULL;

	if (x->dir == NBW_P2P && !same_device(x) && x->peer != NBW_PEER_ON) {
		snprintf(last_err, sizeof(last_err),
			 "%s mode reads the source GPU's memory through the peer pointer, which "
			 "needs peer access (%s for this series)", x->mode == NBW_MODE_CHASE ? "chase" : "kernel",
			 x->peer == NBW_PEER_OFF ? "disabled" : "not enabled");
		return -EINVAL;
	}
	if (x->mode == NBW_MODE_CHASE && (x->dir == NBW_DTOH || x->bytes < sizeof(uint64_t) ||
					  x->dst->bytes < sizeof(uint64_t))) {
		snprintf(last_err, sizeof(last_err),
			 x->dir == NBW_DTOH ? "chase: a DtoH chase needs a host thread loading "
					      "device memory, which HIP does not map into the host"
					    : "chase: needs at least one 8-byte element");
		return -EINVAL;
	}
	if (hipk_functions(be->kern, st->dev, &copy, &chase, last_err, sizeof(last_err)))
		return -EIO;
	st->fn = x->mode == NBW_MODE_CHASE ? chase : copy;
	if (kernel_address(x->src, &src) || kernel_address(x->dst, &st->kdst))
		return -EIO;
	st->ksrc = src;
	return 0;
}

/* A pack face copy, outside the timed region: the face kernels loaded, and their stream
 * made, on the device of each device box. 0, or -EIO with last_err. */
static int pack_prepare(struct nbw_backend *be, const struct nbw_xfer *x)
{
	const struct nbw_buf *side[2] = { x->src, x->dst };
	for (int i = 0; i < 2; i++) {
		hipFunction_t pack, unpack;
		hipStream_t s;
		if (side[i]->loc == NBW_LOC_DEVICE &&
		    hipk_face(be->kern, side[i]->device, &pack, &unpack, &s, last_err,
			      sizeof(last_err)))
			return -EIO;
	}
	return 0;
}

static int hb_prepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	x->priv = NULL;
	if (x->region && x->region->method == NBW_FACE_PACK && pack_prepare(be, x))
		return -EIO;
	if (x->mode != NBW_MODE_ASYNC && !kernel_mode(x))
		return 0;
	struct hip_xfer *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	/* A kernel runs on the GPU that loads: the destination, except DtoH's source. */
	st->dev = kernel_mode(x) && x->dir != NBW_DTOH ? x->dst->device : issuing_device(x);
	if (use_device(st->dev) ||
	    HIP_TRY(hipStreamCreateWithFlags(&st->stream, hipStreamNonBlocking)) ||
	    HIP_TRY(hipEventCreateWithFlags(&st->start, hipEventDefault)) ||
	    HIP_TRY(hipEventCreateWithFlags(&st->stop, hipEventDefault))) {
		destroy_state(st);
		return -EIO;
	}
	if (kernel_mode(x)) {
		int rc = kernel_setup(be, x, st);
		if (rc) {
			destroy_state(st);
			return rc;
		}
		x->priv = st;
		return 0;
	}
	gate_ensure(be);
	/* Tell the core up front when submit() would refuse: it then uses a barrier. */
	if (gate_refusal(be, x, st)) {
		snprintf(st->gate_why, sizeof(st->gate_why), "%s", last_err);
		x->no_gate = st->gate_why;
	}
	x->priv = st;
	return 0;
}

/* start event, copy, stop event on the transfer's stream; returns without waiting. */
static int launch(const struct nbw_xfer *x, struct nbw_backend *be, struct hip_xfer *st)
{
	if (x->mode == NBW_MODE_CHASE)
		return HIP_TRY(hipk_launch_chase(st->fn, st->stream, st->ksrc, st->kdst,
						 x->chase_loads));
	return HIP_TRY(hipk_launch_copy(st->fn, st->stream, st->ksrc, st->kdst, x->bytes,
					be->cus[st->dev]));
}

static int enqueue_timed(const struct nbw_xfer *x, struct nbw_backend *be, struct hip_xfer *st)
{
	if (HIP_TRY(hipEventRecord(st->start, st->stream)) ||
	    (kernel_mode(x) ? launch(x, be, st) : copy_async(x, st->stream)) ||
	    HIP_TRY(hipEventRecord(st->stop, st->stream)))
		return -EIO;
	return 0;
}

static int wait_timed(struct nbw_xfer *x, struct hip_xfer *st)
{
	float ms = 0;

	if (HIP_TRY(hipEventSynchronize(st->stop)) ||
	    HIP_TRY(hipEventElapsedTime(&ms, st->start, st->stop)))
		return -EIO;
	x->device_s = ms / 1e3;
	return 0;
}

static int hb_transfer(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct hip_xfer *st = x->priv;

	switch (x->mode) {
	case NBW_MODE_SYNC:
		if (use_device(issuing_device(x)) || copy_sync(x))
			return -EIO;
		/* A device-to-device hipMemcpy / hipMemcpyPeer may return before the copy is
		 * done: wait for the issuing device, so the timing covers the whole copy. */
		if (x->dir == NBW_P2P && HIP_TRY(hipDeviceSynchronize()))
			return -EIO;
		return 0;
	case NBW_MODE_ASYNC:
	case NBW_MODE_KERNEL:
	case NBW_MODE_CHASE:
		if (!st) {
			snprintf(last_err, sizeof(last_err), "%s transfer without prepare()",
				 x->mode == NBW_MODE_ASYNC ? "async" : "kernel-mode");
			return -EINVAL;
		}
		if (use_device(st->dev) || enqueue_timed(x, be, st))
			return -EIO;
		return wait_timed(x, st);
	default:
		snprintf(last_err, sizeof(last_err), "mode %d is not a HIP mode", (int)x->mode);
		return -EINVAL;
	}
}

/* Copies that the runtime runs partly on the submitting thread would block there behind the
 * closed gate, before release() can open it: refuse them, with the reason. */
static int gate_refusal(struct nbw_backend *be, const struct nbw_xfer *x,
			const struct hip_xfer *st)
{
	if (x->mode != NBW_MODE_ASYNC || !st) {
		snprintf(last_err, sizeof(last_err),
			 "gated start needs an async transfer set up by prepare()");
		return -1;
	}
	if (!be->gate) {
		snprintf(last_err, sizeof(last_err), "no gate flag: %.200s", be->gate_why);
		return -1;
	}
	if (!valid_device(be, st->dev) || !be->can_wait[st->dev]) {
		snprintf(last_err, sizeof(last_err),
			 "hipDeviceAttributeCanUseStreamWaitValue of device %d is 0: it cannot "
			 "wait on a flag", st->dev);
		return -1;
	}
	const struct nbw_buf *h = x->dir == NBW_HTOD ? x->src : x->dst;
	if (x->dir != NBW_P2P && h->loc == NBW_LOC_HOST_PAGEABLE) {
		snprintf(last_err, sizeof(last_err),
			 "hipMemcpyAsync stages pageable memory on the calling thread, which would "
			 "wait behind the closed gate");
		return -1;
	}
	/* What counts is whether the core enabled peer access for this series, not whether the
	 * pair could have it: a copy between two GPUs without it is staged through host memory
	 * and can block submit() before release() (the CUDA backend's rule). */
	if (x->dir == NBW_P2P && !same_device(x) && x->peer != NBW_PEER_ON) {
		snprintf(last_err, sizeof(last_err),
			 "a peer copy without peer access (%s) is staged by the runtime through "
			 "host memory and may wait on the host for the gated stream",
			 x->peer == NBW_PEER_OFF ? "disabled for this series" : "not enabled");
		return -1;
	}
	return 0;
}

static int hb_submit(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct hip_xfer *st = x->priv;

	if (gate_refusal(be, x, st))
		return -1;
	if (use_device(st->dev))
		return -EIO;
	uint32_t target = __atomic_load_n(be->gate, __ATOMIC_ACQUIRE) + 1;
	if (HIP_TRY(hipStreamWaitValue32(st->stream, be->gate_dev, target, hipStreamWaitValueGte,
					 0xffffffffu)))
		return -EIO;
	st->wait_for = target;
	return enqueue_timed(x, be, st);
}

static int hb_release(struct nbw_backend *be)
{
	if (!be->gate) {
		snprintf(last_err, sizeof(last_err), "no gate flag: %.200s",
			 be->gate_tried ? be->gate_why : "no async transfer was prepared");
		return -1;
	}
	__atomic_fetch_add(be->gate, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static int hb_complete(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct hip_xfer *st = x->priv;

	if (!st || !st->wait_for) {
		snprintf(last_err, sizeof(last_err), "complete() without a submitted copy");
		return -EINVAL;
	}
	st->wait_for = 0;
	if (use_device(st->dev))
		return -EIO;
	return wait_timed(x, st);
}

static void hb_unprepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct hip_xfer *st = x->priv;

	if (!st)
		return;
	x->priv = NULL;
	if (st->wait_for) {
		/* Submitted but never completed: open the gate if it is still closed for this
		 * copy, so that the stream drains before it is destroyed. */
		if (__atomic_load_n(be->gate, __ATOMIC_ACQUIRE) < st->wait_for)
			hb_release(be);
		if (!use_device(st->dev))
			(void)HIP_TRY(hipStreamSynchronize(st->stream));
	}
	destroy_state(st);
}

/* ---- face probes: the 3-D copies (include/nodebw/face.h) ------------------------------ */

static const char *hb_face_interface(struct nbw_backend *be, enum nbw_dir dir,
				     enum nbw_face_method method, enum nbw_mode mode, char *why,
				     size_t whylen)
{
	if (mode != NBW_MODE_SYNC && mode != NBW_MODE_ASYNC) {
		snprintf(why, whylen, "face copies run in the sync and async modes");
		return NULL;
	}
	if (method == NBW_FACE_PACK) {
		/* hipRTC builds the face kernels with the copy and chase kernels. */
		if (hipk_compile_all(be->kern, why, whylen))
			return NULL;
		/* Each kernel: hipModuleLaunchKernel on the device's face stream +
		 * hipStreamSynchronize. */
		if (dir == NBW_P2P)
			return mode == NBW_MODE_SYNC
				       ? "pack kernel (nbw_pack, hipRTC) -> hipMemcpyPeer (one GPU: "
					 "hipMemcpy DeviceToDevice) + hipDeviceSynchronize -> unpack "
					 "kernel (nbw_unpack)"
				       : "pack kernel (nbw_pack, hipRTC) -> hipMemcpyPeerAsync (one "
					 "GPU: hipMemcpyAsync DeviceToDevice) on a non-blocking stream "
					 "-> unpack kernel (nbw_unpack)";
		if (dir == NBW_HTOD)
			return mode == NBW_MODE_SYNC
				       ? "host pack loop -> hipMemcpy HostToDevice -> unpack kernel "
					 "(nbw_unpack, hipRTC)"
				       : "host pack loop -> hipMemcpyAsync HostToDevice on a "
					 "non-blocking stream -> unpack kernel (nbw_unpack, hipRTC)";
		return mode == NBW_MODE_SYNC
			       ? "pack kernel (nbw_pack, hipRTC) -> hipMemcpy DeviceToHost -> host "
				 "unpack loop"
			       : "pack kernel (nbw_pack, hipRTC) -> hipMemcpyAsync DeviceToHost on a "
				 "non-blocking stream -> host unpack loop";
	}
	if (dir == NBW_P2P)
		return mode == NBW_MODE_SYNC
			       ? "hipMemcpy3D hipMemcpyDeviceToDevice (HIP has no 3-D peer form; "
				 "unified addressing names both devices' memory) + "
				 "hipDeviceSynchronize"
			       : "hipMemcpy3DAsync hipMemcpyDeviceToDevice (HIP has no 3-D peer "
				 "form) on a non-blocking stream, hipEvent timing";
	return mode == NBW_MODE_SYNC ? "hipMemcpy3D"
				     : "hipMemcpy3DAsync on a non-blocking stream, hipEvent timing";
}

static int copy_3d(const struct nbw_xfer *x, hipStream_t s, bool async)
{
	const struct nbw_region *r = x->region;
	size_t pitch = r->dims[0] * r->elem;
	struct hipMemcpy3DParms p;
	memset(&p, 0, sizeof(p));
	p.srcPtr = (struct hipPitchedPtr){ .ptr = x->src->ptr, .pitch = pitch, .xsize = pitch,
					   .ysize = r->dims[1] };
	p.dstPtr = (struct hipPitchedPtr){ .ptr = x->dst->ptr, .pitch = pitch, .xsize = pitch,
					   .ysize = r->dims[1] };
	p.srcPos = (struct hipPos){ .x = r->src_at[0] * r->elem, .y = r->src_at[1],
				    .z = r->src_at[2] };
	p.dstPos = (struct hipPos){ .x = r->dst_at[0] * r->elem, .y = r->dst_at[1],
				    .z = r->dst_at[2] };
	p.extent = (struct hipExtent){ .width = r->extent[0] * r->elem, .height = r->extent[1],
				       .depth = r->extent[2] };
	p.kind = x->dir == NBW_HTOD   ? hipMemcpyHostToDevice
		 : x->dir == NBW_DTOH ? hipMemcpyDeviceToHost
				      : hipMemcpyDeviceToDevice;
	return async ? HIP_TRY(hipMemcpy3DAsync(&p, s)) : HIP_TRY(hipMemcpy3D(&p));
}

static int hb_copy_rect(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	struct hip_xfer *st = x->priv;
	if (!x->region) {
		snprintf(last_err, sizeof(last_err), "copy_rect() without a region");
		return -EINVAL;
	}
	if (x->mode == NBW_MODE_SYNC) {
		if (use_device(issuing_device(x)) || copy_3d(x, NULL, false))
			return -EIO;
		if (x->dir == NBW_P2P && HIP_TRY(hipDeviceSynchronize()))
			return -EIO;
		return 0;
	}
	if (!st) {
		snprintf(last_err, sizeof(last_err), "async face copy without prepare()");
		return -EINVAL;
	}
	if (use_device(st->dev) || HIP_TRY(hipEventRecord(st->start, st->stream)) ||
	    copy_3d(x, st->stream, true) || HIP_TRY(hipEventRecord(st->stop, st->stream)))
		return -EIO;
	return wait_timed(x, st);
}

/* The face's gather or scatter on the device of the box (lin on the same device), waited
 * for: the executor times pack + copy + unpack as one. */
static int hb_pack(struct nbw_backend *be, const struct nbw_buf *box, const struct nbw_region *r,
		   const size_t at[3], struct nbw_buf *lin, bool unpack)
{
	hipFunction_t fpack, funpack;
	hipStream_t s;
	int dev = box->device;
	if (box->loc != NBW_LOC_DEVICE || lin->loc != NBW_LOC_DEVICE || lin->device != dev) {
		snprintf(last_err, sizeof(last_err),
			 "the pack kernels gather and scatter between buffers of one device");
		return -EINVAL;
	}
	if (hipk_face(be->kern, dev, &fpack, &funpack, &s, last_err, sizeof(last_err)) ||
	    use_device(dev) ||
	    HIP_TRY(hipk_launch_face(unpack ? funpack : fpack, s, box->ptr, r, at, lin->ptr,
				     be->cus[dev])) ||
	    HIP_TRY(hipStreamSynchronize(s)))
		return -EIO;
	return 0;
}

static const char *hb_last_error(struct nbw_backend *be)
{
	return last_err;
}

const struct nbw_backend_ops nbw_backend_hip = {
	.abi = NBW_PROBE_ABI,
	.name = "hip",
	.description = "HIP runtime (AMD GPUs): hipMemcpy, hipMemcpyAsync on streams, peer copies",
	.open = hb_open,
	.close = hb_close,
	.device_count = hb_device_count,
	.device_info = hb_device_info,
	.versions = hb_versions,
	.interface = hb_interface,
	.supports = hb_supports,
	.hostmem_note = hb_hostmem_note,
	.p2p_path = hb_p2p_path,
	.peer_access = hb_peer_access,
	.alloc = hb_alloc,
	.free = hb_free,
	.write = hb_write,
	.read = hb_read,
	.prepare = hb_prepare,
	.unprepare = hb_unprepare,
	.transfer = hb_transfer,
	.submit = hb_submit,
	.release = hb_release,
	.complete = hb_complete,
	.device_timer = "hipEventElapsedTime",
	.last_error = hb_last_error,
	.face_interface = hb_face_interface,
	.copy_rect = hb_copy_rect,
	.pack = hb_pack,
};
