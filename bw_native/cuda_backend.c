/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CUDA backend: copies between host memory and NVIDIA GPUs, and between GPUs, through the
 * CUDA runtime API. The runtime is linked statically (libcudart_static) and loads the driver
 * (libcuda.so.1) itself. The runtime says cudaErrorInsufficientDriver both when there is no
 * driver and when the driver is older than the runtime; open() tells them apart (probe.h's
 * contract): no libcuda.so.1 is -ENODEV (CUDA is absent: a skip), an older driver -EPROTO
 * (CUDA is installed but unusable: an error), naming both versions.
 *
 *   sync   cudaMemcpy (HtoD, DtoH, DtoD on one GPU) or cudaMemcpyPeer (two GPUs). A pageable
 *          HtoD copy returns once the bytes are staged and a device-to-device copy returns at
 *          once, so those are followed by cudaDeviceSynchronize.
 *   async  cudaMemcpyAsync / cudaMemcpyPeerAsync on the transfer's own non-blocking stream
 *          between two cudaEvents; the host waits on the stop event and the events give the
 *          time the copy took on the device.
 *   gated  two concurrent async copies: each stream first waits (cuStreamWaitValue32, taken
 *          from the driver with cudaGetDriverEntryPointByVersion) until a 32-bit epoch in
 *          mapped pinned host memory reaches the next value; release() stores that value, so
 *          the copies start together and their enqueue cost stays outside the timing.
 *          The driver may refuse the wait (no stream memory operations on that device or
 *          driver): prepare() tries it once per device, outside the timing, with a value
 *          the flag already has, and where it is refused declines the gate (x->no_gate),
 *          so the core starts those copies on its barrier instead of failing them.
 *   kernel a copy kernel (cuda_kernels.c: PTX embedded in the plugin, loaded with
 *          cuModuleLoadDataEx once per device at the first prepare(), launched with
 *          cuLaunchKernel on the transfer's stream between two cudaEvents, waited for like
 *          async): HtoD/DtoH on the GPU, loading from or storing to mapped pinned or
 *          registered host memory (cudaHostGetDevicePointer; pageable memory is refused: a
 *          kernel cannot reach it without HMM); P2P on the destination GPU, loading the
 *          source GPU's memory through its peer pointer, which needs the destination's
 *          access to the source: with peer access on, prepare() enables that direction too
 *          (the core enabled source to destination) and unprepare() disables what it
 *          enabled; with peer access off the copy is refused with the reason.
 *   chase  one thread of the destination GPU follows the chain (x->chase_loads dependent
 *          ld.volatile.global loads) through mapped pinned host memory (HtoD) or the source
 *          GPU's memory (P2P, as the kernel mode reaches it) and stores the final index at
 *          dst; DtoH is refused (the host cannot load from cudaMalloc memory).
 *
 * How host threads wait for a device (spin, yield, blocking sync) is a flag of its primary
 * context, which the runtime shares with every other user in the process (libomptarget's
 * CUDA plugin asks for blocking sync): sched() reads it (cuDevicePrimaryCtxGetState) for
 * every measurement. opts->cuda_sched ("spin", "yield", "blocking") sets it on every device
 * at open() (cuDevicePrimaryCtxSetFlags, keeping the context's other flags); "auto" leaves it
 * as found. Whether the driver took it, or refused it, is kept for the records.
 *
 * open(), device_count() and device_info() make no context and allocate nothing on a device:
 * they ask the runtime for counts, versions, properties and attributes and read the primary
 * contexts' state (cuDevicePrimaryCtxGetState), none of which creates a context, so
 * `nodebw list` on an 8-GPU node initialises no GPU here. Every call that does (cudaSetDevice
 * creates the device's primary context since CUDA 12, cudaMalloc, streams, the gate's
 * cudaHostAlloc) waits for the first buffer or prepare() of that device.
 *
 * Face probes (--faces): the rectangular copy is cudaMemcpy3D / cudaMemcpy3DPeer (sync, then
 * synchronised as the plain copies are) or cudaMemcpy3DAsync / cudaMemcpy3DPeerAsync on the
 * transfer's stream between its events; both boxes are described as pitched pointers of
 * nx * E bytes per row and ny rows per plane. The pack method gathers a device box's face
 * with the nbw_pack kernel (cuda_kernels.ptx) into a contiguous buffer on the same device,
 * copies that as a plain transfer does, and scatters it with nbw_unpack; each kernel is
 * launched on the device's legacy default stream and waited for (cudaStreamSynchronize), so
 * the executor times pack + copy + unpack whole. prepare() of a pack face copy loads the
 * kernels on the devices of its device boxes, so the JIT stays out of the timed region.
 *
 * Host memory: pageable = posix_memalign, pinned = cudaHostAlloc(Portable | Mapped),
 * registered = posix_memalign + cudaHostRegister(Portable | Mapped) (mapped, so the kernel
 * modes can address them; with unified addressing, every 64-bit CUDA system, pinned memory
 * is mapped anyway); device memory = cudaMalloc. The current CUDA
 * device belongs to the host thread, so every entry point selects its device itself.
 */
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_kernels.h"
#include "nodebw/hugepage.h"
#include "nodebw/probe.h"

/* The CUDA versions whose driver entry points we ask for (hard-coded, as NVIDIA advises):
 * cuStreamWaitValue32 has its current (_v2) form since 11.7, the error texts since 6.0. */
#define WAIT_VALUE_VERSION 11070
#define ERROR_TEXT_VERSION 6000
#define CTX_STATE_VERSION 7000
#define CTX_SET_FLAGS_VERSION 11000
#define HOST_ALIGN 4096

/* Per-transfer state, made by prepare(). */
struct cu_xfer {
	struct cu_xfer *prev, *next;   /* the backend's list of live states */
	int dev;                       /* device whose context issues the copy */
	bool peer;                     /* a copy between two different GPUs */
	bool sync_after;               /* SYNC: the call may return before the copy is done */
	cudaStream_t stream;           /* ASYNC only */
	cudaEvent_t start, stop;
	CUdeviceptr gate;              /* the gate flag on this device; 0: no gate */
	char gate_why[NBW_REASON_LEN]; /* why there is no gate */
	bool pending;                  /* submitted and not yet completed */
	/* KERNEL and CHASE: the addresses the kernel uses (mapped host memory through
	 * cudaHostGetDevicePointer), the GPU's multiprocessors, and the peer access (dev to
	 * peer_src) this state holds a reference to (-1: none). */
	void *kdst;
	const void *ksrc;
	int sms;
	int peer_src;
};

struct nbw_backend {
	int ndev;
	int runtime_version, driver_version;
	PFN_cuStreamWaitValue32_v11070 wait_value32;
	PFN_cuGetErrorName_v6000 drv_error_name;
	PFN_cuGetErrorString_v6000 drv_error_string;
	PFN_cuDevicePrimaryCtxGetState_v7000 ctx_state;
	PFN_cuDevicePrimaryCtxSetFlags_v11000 ctx_set_flags;
	char ctx_state_why[NBW_REASON_LEN]; /* why ctx_state is NULL */
	char ctx_set_why[NBW_REASON_LEN];   /* why ctx_set_flags is NULL */
	char (*sched_note)[NBW_REASON_LEN]; /* per device: how its scheduling came to be */
	const char *sched_asked;            /* opts->cuda_sched: "auto", "spin", ... */
	pthread_mutex_t lock;          /* guards the gate's creation and the list of states */
	char gate_why[NBW_REASON_LEN]; /* why there is no gate (empty: none tried or it works) */
	uint32_t *gate;                /* mapped pinned flag the gated streams wait on */
	uint32_t epoch;                /* last epoch release() opened */
	struct cu_xfer *xfers;
	/* Per device: whether cuStreamWaitValue32 works there (0 not tried yet, 1 yes, -1 no,
	 * with the reason). */
	signed char *wait_ok;
	char (*wait_why)[NBW_REASON_LEN];
	/* The kernel modes: the driver entry points (why they are missing), per device the
	 * module (0 not loaded yet, 1 loaded, -1 failed with the reason), and per ordered pair
	 * [dev * ndev + peer] the transfers using dev's access to peer's memory and whether
	 * this backend enabled it (and so disables it when the last one ends). */
	struct cuk_entries kern;
	char kern_why[NBW_REASON_LEN];
	struct cuk_module *kmod;
	signed char *kmod_state;
	char (*kmod_why)[NBW_REASON_LEN];
	int *kpeer_refs;
	bool *kpeer_ours;
};

static _Thread_local char last_err[NBW_REASON_LEN];

/* "name: cudaErrorX (code): text", where name is the call's source text up to its '('. */
static void cu_format(char *buf, size_t len, cudaError_t rc, const char *call)
{
	snprintf(buf, len, "%.*s: %s (%d): %s", (int)strcspn(call, "("), call,
		 cudaGetErrorName(rc), (int)rc, cudaGetErrorString(rc));
}

/* Every runtime call that can fail goes through here: true (and last_err set) on failure. */
static bool cu_failed(cudaError_t rc, const char *call)
{
	if (rc == cudaSuccess)
		return false;
	cu_format(last_err, sizeof(last_err), rc, call);
	return true;
}

#define CU_FAILED(call) cu_failed((call), #call)

/* The same for the one driver call we make (cuStreamWaitValue32). */
static bool drv_failed(const struct nbw_backend *be, CUresult rc, const char *call)
{
	const char *name = NULL, *text = NULL;
	if (rc == CUDA_SUCCESS)
		return false;
	if (be->drv_error_name)
		be->drv_error_name(rc, &name);
	if (be->drv_error_string)
		be->drv_error_string(rc, &text);
	snprintf(last_err, sizeof(last_err), "%s: %s (%d): %s", call, name ? name : "CUresult",
		 (int)rc, text ? text : "no error text from the driver");
	return true;
}

__attribute__((format(printf, 1, 2))) static void set_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
}

/* A driver function by name and version; NULL (and last_err) when the driver lacks it. */
static void *driver_entry(const char *symbol, unsigned version)
{
	void *fn = NULL;
	enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
	if (CU_FAILED(cudaGetDriverEntryPointByVersion(symbol, &fn, version, cudaEnableDefault,
						      &status)))
		return NULL;
	if (!fn || status != cudaDriverEntryPointSuccess) {
		set_err("cudaGetDriverEntryPointByVersion(%s, %u): %s", symbol, version,
			status == cudaDriverEntryPointVersionNotSufficent
				? "the driver is too old for this version"
				: "the driver has no such symbol");
		return NULL;
	}
	return fn;
}

static void find_driver_entries(struct nbw_backend *be)
{
	be->drv_error_name = (PFN_cuGetErrorName_v6000)driver_entry("cuGetErrorName",
								     ERROR_TEXT_VERSION);
	be->drv_error_string = (PFN_cuGetErrorString_v6000)driver_entry("cuGetErrorString",
									 ERROR_TEXT_VERSION);
	be->wait_value32 = (PFN_cuStreamWaitValue32_v11070)driver_entry("cuStreamWaitValue32",
									 WAIT_VALUE_VERSION);
	if (!be->wait_value32)
		snprintf(be->gate_why, sizeof(be->gate_why), "%s", last_err);
	be->ctx_state = (PFN_cuDevicePrimaryCtxGetState_v7000)driver_entry(
		"cuDevicePrimaryCtxGetState", CTX_STATE_VERSION);
	if (!be->ctx_state)
		snprintf(be->ctx_state_why, sizeof(be->ctx_state_why), "%s", last_err);
	be->ctx_set_flags = (PFN_cuDevicePrimaryCtxSetFlags_v11000)driver_entry(
		"cuDevicePrimaryCtxSetFlags", CTX_SET_FLAGS_VERSION);
	if (!be->ctx_set_flags)
		snprintf(be->ctx_set_why, sizeof(be->ctx_set_why), "%s", last_err);
	be->kern.load = (PFN_cuModuleLoadDataEx_v2010)driver_entry("cuModuleLoadDataEx",
								    CUK_LOAD_VERSION);
	if (be->kern.load)
		be->kern.function = (PFN_cuModuleGetFunction_v2000)driver_entry(
			"cuModuleGetFunction", CUK_FUNCTION_VERSION);
	if (be->kern.function)
		be->kern.launch = (PFN_cuLaunchKernel_v4000)driver_entry("cuLaunchKernel",
									 CUK_LAUNCH_VERSION);
	if (be->kern.launch)
		be->kern.unload = (PFN_cuModuleUnload_v2000)driver_entry("cuModuleUnload",
									 CUK_UNLOAD_VERSION);
	if (!be->kern.unload)
		snprintf(be->kern_why, sizeof(be->kern_why), "%s", last_err);
}

/* The flags of device dev's primary context and whether it is active: 0, or -1 (last_err). */
static int ctx_get(struct nbw_backend *be, int dev, unsigned *flags, int *active)
{
	*flags = 0;
	*active = 0;
	if (!be->ctx_state) {
		set_err("%s", be->ctx_state_why);
		return -1;
	}
	return drv_failed(be, be->ctx_state((CUdevice)dev, flags, active),
			  "cuDevicePrimaryCtxGetState") ? -1 : 0;
}

/* CU_CTX_SCHED_* as the word the results use; NULL for a combination the driver never sets. */
static const char *sched_word(unsigned flags)
{
	switch (flags & CU_CTX_SCHED_MASK) {
	case CU_CTX_SCHED_AUTO:
		return "auto";
	case CU_CTX_SCHED_SPIN:
		return "spin";
	case CU_CTX_SCHED_YIELD:
		return "yield";
	case CU_CTX_SCHED_BLOCKING_SYNC:
		return "blocking";
	default:
		return NULL;
	}
}

/* opts->cuda_sched as CU_CTX_SCHED_* flags; -1 for "auto" (leave as found), -2 when unknown. */
static int sched_request(const struct nbw_backend_opts *opts)
{
	static const struct {
		const char *name;
		int flags;
	} names[] = { { "auto", -1 }, { "spin", CU_CTX_SCHED_SPIN },
		      { "yield", CU_CTX_SCHED_YIELD }, { "blocking", CU_CTX_SCHED_BLOCKING_SYNC } };
	if (!opts || !opts->cuda_sched || !opts->cuda_sched[0])
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(opts->cuda_sched, names[i].name) == 0)
			return names[i].flags;
	return -2;
}

/*
 * Each device's scheduling as open() finds it (before this backend made any context of its
 * own), set to \p want where that is not -1, and how it came to be so, for the records. The
 * context's other flags are kept.
 */
static void sched_setup(struct nbw_backend *be, int want)
{
	for (int d = 0; d < be->ndev; d++) {
		unsigned flags, now;
		int active, still;
		char *note = be->sched_note[d];
		if (ctx_get(be, d, &flags, &active)) {
			snprintf(note, NBW_REASON_LEN, "cannot be read: %s", last_err);
			continue;
		}
		const char *was = sched_word(flags) ? sched_word(flags) : "unknown flags";
		const char *ctx = active ? "primary context already active at open (made by "
					   "another user in this process, e.g. libomptarget's "
					   "CUDA plugin)"
					 : "primary context not yet active at open";
		const char *asked = want >= 0 ? sched_word((unsigned)want) : "auto";
		if (want < 0) {
			snprintf(note, NBW_REASON_LEN, "left as found; %s", ctx);
		} else if (!be->ctx_set_flags) {
			snprintf(note, NBW_REASON_LEN, "--cuda-sched %s not applied (%s); left %s, %s",
				 asked, be->ctx_set_why, was, ctx);
		} else if (drv_failed(be,
				      be->ctx_set_flags((CUdevice)d,
							(flags & ~(unsigned)CU_CTX_SCHED_MASK) |
								(unsigned)want),
				      "cuDevicePrimaryCtxSetFlags")) {
			snprintf(note, NBW_REASON_LEN, "--cuda-sched %s refused by the driver (%s); "
				 "left %s, %s", asked, last_err, was, ctx);
		} else if (ctx_get(be, d, &now, &still) ||
			   (now & CU_CTX_SCHED_MASK) != (unsigned)want) {
			snprintf(note, NBW_REASON_LEN, "--cuda-sched %s: cuDevicePrimaryCtxSetFlags "
				 "succeeded, but the context does not report it; %s", asked, ctx);
		} else {
			snprintf(note, NBW_REASON_LEN, "set by --cuda-sched %s "
				 "(cuDevicePrimaryCtxSetFlags; was %s); %s", asked, was, ctx);
		}
	}
}

/*
 * cudaErrorInsufficientDriver from the runtime: no driver at all (libcuda.so.1 cannot be
 * loaded), -ENODEV; or a driver older than this runtime (cuDriverGetVersion of the
 * libcuda.so.1 that loads < CUDART_VERSION), -EPROTO with both versions; anything else with a
 * driver that loads is an error too (-EIO), with the runtime's words.
 */
static int insufficient_driver(cudaError_t rc, char *why, size_t whylen)
{
	static const char not_found[] = "libcuda.so.1: cannot open shared object file";
	char runtime[NBW_REASON_LEN];
	CUresult (*get_version)(int *);
	int v = 0;
	cu_format(runtime, sizeof(runtime), rc, "cudaGetDeviceCount");
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		if (!e || strncmp(e, not_found, sizeof(not_found) - 1) == 0)
			snprintf(why, whylen, "no CUDA driver: libcuda.so.1 not found");
		else
			snprintf(why, whylen, "no CUDA driver: libcuda.so.1 cannot be loaded: %s", e);
		return -ENODEV;
	}
	*(void **)&get_version = dlsym(h, "cuDriverGetVersion");
	CUresult vrc = get_version ? get_version(&v) : CUDA_ERROR_NOT_FOUND;
	dlclose(h);
	if (vrc != CUDA_SUCCESS) {
		snprintf(why, whylen, "%s; libcuda.so.1 loads but cuDriverGetVersion %s (%d)",
			 runtime, get_version ? "fails" : "is missing", (int)vrc);
		return -EIO;
	}
	if (v < CUDART_VERSION) {
		snprintf(why, whylen,
			 "CUDA driver %d.%d (cuDriverGetVersion %d) is older than the CUDA runtime "
			 "%d.%d (CUDART_VERSION %d) nodebw was built with: %s",
			 v / 1000, v % 1000 / 10, v, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10,
			 CUDART_VERSION, runtime);
		return -EPROTO;
	}
	snprintf(why, whylen, "%s, although libcuda.so.1 loads and supports CUDA %d.%d "
		 "(cuDriverGetVersion %d), not older than the runtime's %d.%d", runtime,
		 v / 1000, v % 1000 / 10, v, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
	return -EIO;
}

static void backend_free(struct nbw_backend *be)
{
	free(be->wait_ok);
	free(be->wait_why);
	free(be->sched_note);
	free(be->kmod);
	free(be->kmod_state);
	free(be->kmod_why);
	free(be->kpeer_refs);
	free(be->kpeer_ours);
	free(be);
}

/* The backend's state for n devices, everything zero; NULL when out of memory. */
static struct nbw_backend *backend_new(int n)
{
	struct nbw_backend *be = calloc(1, sizeof(*be));
	size_t nd = (size_t)n;
	if (!be)
		return NULL;
	be->ndev = n;
	be->wait_ok = calloc(nd, sizeof(*be->wait_ok));
	be->wait_why = calloc(nd, sizeof(*be->wait_why));
	be->sched_note = calloc(nd, sizeof(*be->sched_note));
	be->kmod = calloc(nd, sizeof(*be->kmod));
	be->kmod_state = calloc(nd, sizeof(*be->kmod_state));
	be->kmod_why = calloc(nd, sizeof(*be->kmod_why));
	be->kpeer_refs = calloc(nd * nd, sizeof(*be->kpeer_refs));
	be->kpeer_ours = calloc(nd * nd, sizeof(*be->kpeer_ours));
	if (!be->wait_ok || !be->wait_why || !be->sched_note || !be->kmod || !be->kmod_state ||
	    !be->kmod_why || !be->kpeer_refs || !be->kpeer_ours) {
		backend_free(be);
		return NULL;
	}
	return be;
}

static int cb_open(struct nbw_backend **out, const struct nbw_backend_opts *opts, char *why,
		     size_t whylen)
{
	int n = 0, want = sched_request(opts);
	if (want == -2) {
		snprintf(why, whylen, "unknown cuda_sched '%s' (spin, yield, blocking, auto)",
			 opts->cuda_sched);
		return -EINVAL;
	}
	cudaError_t rc = cudaGetDeviceCount(&n);
	if (rc == cudaErrorInsufficientDriver)
		return insufficient_driver(rc, why, whylen);
	if (rc != cudaSuccess) {
		cu_format(why, whylen, rc, "cudaGetDeviceCount");
		/* Only the toolkit's link-time stub of the driver, or no device: CUDA is absent
		 * here. Anything else: present but failing. */
		if (rc == cudaErrorNoDevice || rc == cudaErrorStubLibrary)
			return -ENODEV;
		return -EIO;
	}
	if (n <= 0) {
		snprintf(why, whylen, "cudaGetDeviceCount: %d devices", n);
		return -ENODEV;
	}
	struct nbw_backend *be = backend_new(n);
	if (!be)
		return -ENOMEM;
	pthread_mutex_init(&be->lock, NULL);
	if (CU_FAILED(cudaRuntimeGetVersion(&be->runtime_version)))
		be->runtime_version = 0;
	if (CU_FAILED(cudaDriverGetVersion(&be->driver_version)))
		be->driver_version = 0;
	find_driver_entries(be);
	be->sched_asked = want >= 0 ? sched_word((unsigned)want) : "auto";
	sched_setup(be, want);
	*out = be;
	return 0;
}

/* Open the gate: every stream waiting for the next epoch starts. */
static void gate_open(struct nbw_backend *be)
{
	uint32_t e = __atomic_add_fetch(&be->epoch, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(be->gate, e, __ATOMIC_SEQ_CST);
}

static bool kernel_mode(enum nbw_mode m)
{
	return m == NBW_MODE_KERNEL || m == NBW_MODE_CHASE;
}

/* Drops the state's reference to its device's access to peer_src's memory; the last one
 * disables the access where this backend enabled it. */
static void kpeer_release(struct nbw_backend *be, struct cu_xfer *st)
{
	if (st->peer_src < 0)
		return;
	size_t k = (size_t)st->dev * (size_t)be->ndev + (size_t)st->peer_src;
	pthread_mutex_lock(&be->lock);
	if (--be->kpeer_refs[k] == 0 && be->kpeer_ours[k]) {
		be->kpeer_ours[k] = false;
		if (!CU_FAILED(cudaSetDevice(st->dev)))
			(void)CU_FAILED(cudaDeviceDisablePeerAccess(st->peer_src));
	}
	pthread_mutex_unlock(&be->lock);
	st->peer_src = -1;
}

/*
 * The access of the state's device (current in this thread) to device src's memory, which a
 * kernel there needs to load src's buffer through its peer pointer: a reference taken, and
 * the access enabled where it was not (the core enabled src's access to the destination,
 * the copy engines' direction). 0, or -1 with last_err.
 */
static int kpeer_take(struct nbw_backend *be, struct cu_xfer *st, int src)
{
	int can = 0, rc = 0;
	size_t k = (size_t)st->dev * (size_t)be->ndev + (size_t)src;
	if (CU_FAILED(cudaDeviceCanAccessPeer(&can, st->dev, src)))
		return -1;
	if (!can) {
		set_err("cudaDeviceCanAccessPeer(%d, %d) = 0: device %d's kernels cannot load "
			"device %d's memory", st->dev, src, st->dev, src);
		return -1;
	}
	pthread_mutex_lock(&be->lock);
	if (be->kpeer_refs[k] == 0) {
		cudaError_t e = cudaDeviceEnablePeerAccess(src, 0);
		if (e == cudaErrorPeerAccessAlreadyEnabled)
			(void)cudaGetLastError(); /* enabled by someone else: theirs to keep */
		else if (cu_failed(e, "cudaDeviceEnablePeerAccess"))
			rc = -1;
		else
			be->kpeer_ours[k] = true;
	}
	if (rc == 0) {
		be->kpeer_refs[k]++;
		st->peer_src = src;
	}
	pthread_mutex_unlock(&be->lock);
	return rc;
}

/* The kernels in device dev's primary context (current in this thread), loaded at its first
 * use; a failed load is kept with its reason. 0, or -1 with last_err (the driver's words
 * and the JIT compiler's log). */
static int kmod_get(struct nbw_backend *be, int dev)
{
	char log[1024], call[96];
	const char *what = "cuModuleLoadDataEx";
	int state;
	pthread_mutex_lock(&be->lock);
	if (be->kmod_state[dev] == 0) {
		CUresult rc = cuk_load(&be->kern, &be->kmod[dev], &what, log, sizeof(log));
		snprintf(call, sizeof(call), "%s on CUDA device %d", what, dev);
		if (drv_failed(be, rc, call)) {
			snprintf(be->kmod_why[dev], sizeof(be->kmod_why[0]), "%s%s%s", last_err,
				 log[0] ? "; JIT log: " : "", log);
			be->kmod_state[dev] = -1;
		} else {
			be->kmod_state[dev] = 1;
		}
	}
	state = be->kmod_state[dev];
	if (state < 0)
		set_err("%s", be->kmod_why[dev]);
	pthread_mutex_unlock(&be->lock);
	return state > 0 ? 0 : -1;
}

static void state_destroy(struct nbw_backend *be, struct cu_xfer *st)
{
	(void)CU_FAILED(cudaSetDevice(st->dev));
	kpeer_release(be, st);
	if (st->pending) {
		/* A submitted copy still waits behind the gate: let it run and drain. */
		gate_open(be);
		(void)CU_FAILED(cudaStreamSynchronize(st->stream));
	}
	if (st->start)
		(void)CU_FAILED(cudaEventDestroy(st->start));
	if (st->stop)
		(void)CU_FAILED(cudaEventDestroy(st->stop));
	if (st->stream)
		(void)CU_FAILED(cudaStreamDestroy(st->stream));
	free(st);
}

static void state_link(struct nbw_backend *be, struct cu_xfer *st)
{
	pthread_mutex_lock(&be->lock);
	st->prev = NULL;
	st->next = be->xfers;
	if (be->xfers)
		be->xfers->prev = st;
	be->xfers = st;
	pthread_mutex_unlock(&be->lock);
}

static void state_unlink(struct nbw_backend *be, struct cu_xfer *st)
{
	pthread_mutex_lock(&be->lock);
	if (st->prev)
		st->prev->next = st->next;
	else
		be->xfers = st->next;
	if (st->next)
		st->next->prev = st->prev;
	pthread_mutex_unlock(&be->lock);
}

static void cb_close(struct nbw_backend *be)
{
	if (!be)
		return;
	while (be->xfers) {
		struct cu_xfer *st = be->xfers;
		state_unlink(be, st);
		state_destroy(be, st);
	}
	if (be->gate)
		(void)CU_FAILED(cudaFreeHost(be->gate));
	for (int d = 0; d < be->ndev; d++)
		if (be->kmod_state[d] > 0 && !CU_FAILED(cudaSetDevice(d)))
			cuk_unload(&be->kern, &be->kmod[d]);
	pthread_mutex_destroy(&be->lock);
	backend_free(be);
}

static int cb_device_count(struct nbw_backend *be)
{
	return be->ndev;
}

/* CUDA cannot name the memory technology; the bus width tells it: every HBM GPU has at least
 * one 1024-bit stack, GDDR buses are at most 512 bits wide. */
static void describe_memory(char *buf, size_t len, int dev, size_t bytes)
{
	int integrated = 0, width = 0;
	double gb = (double)bytes / 1e9;
	if (CU_FAILED(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, dev)))
		integrated = 0;
	if (CU_FAILED(cudaDeviceGetAttribute(&width, cudaDevAttrGlobalMemoryBusWidth, dev)))
		width = 0;
	if (integrated)
		snprintf(buf, len, "integrated GPU: host memory, %.1f GB usable", gb);
	else if (width >= 1024)
		snprintf(buf, len, "HBM (%d-bit bus), %.1f GB device memory", width, gb);
	else if (width > 0)
		snprintf(buf, len, "GDDR (%d-bit bus), %.1f GB device memory", width, gb);
	else
		snprintf(buf, len, "%.1f GB device memory", gb);
}

/* cudaDeviceGetPCIBusId in the "dddd:bb:dd.f" lower-case form, "" when unknown. */
static void pci_bus_id(char *buf, size_t len, int dev)
{
	char id[64];
	unsigned dom = 0, bus = 0, slot = 0, fn = 0;
	buf[0] = '\0';
	if (CU_FAILED(cudaDeviceGetPCIBusId(id, (int)sizeof(id), dev)))
		return;
	if (sscanf(id, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) < 3)
		return;
	snprintf(buf, len, "%04x:%02x:%02x.%x", dom, bus, slot, fn);
}

static int cb_device_info(struct nbw_backend *be, int dev, struct nbw_device *out)
{
	struct cudaDeviceProp prop;
	if (dev < 0 || dev >= be->ndev)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->id = dev;
	out->runtime_id = out->id;
	out->is_gpu = true;
	snprintf(out->kind, sizeof(out->kind), "cuda");
	if (CU_FAILED(cudaGetDeviceProperties(&prop, dev))) {
		snprintf(out->name, sizeof(out->name), "CUDA device %d", dev);
		snprintf(out->memory, sizeof(out->memory), "unknown");
		return -EIO;
	}
	snprintf(out->name, sizeof(out->name), "%.*s", (int)sizeof(out->name) - 1, prop.name);
	describe_memory(out->memory, sizeof(out->memory), dev, prop.totalGlobalMem);
	pci_bus_id(out->pci_bus_id, sizeof(out->pci_bus_id), dev);
	return 0;
}

/* The driver library the runtime loaded, resolved to its versioned file name. */
static void driver_library(char *buf, size_t len)
{
	struct link_map *map = NULL;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	snprintf(buf, len, "not loaded");
	if (!h)
		return;
	if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
		char *real = realpath(map->l_name, NULL);
		snprintf(buf, len, "%s", real ? real : map->l_name);
		free(real);
	}
	dlclose(h);
}

static int cb_sched(struct nbw_backend *be, int dev, char *word, size_t wlen, char *note,
		    size_t nlen)
{
	unsigned flags;
	int active;
	const char *w;
	word[0] = '\0';
	if (dev < 0 || dev >= be->ndev) {
		snprintf(note, nlen, "no CUDA device %d", dev);
		return -1;
	}
	if (ctx_get(be, dev, &flags, &active)) {
		snprintf(note, nlen, "%s", last_err);
		return -1;
	}
	w = sched_word(flags);
	if (w)
		snprintf(word, wlen, "%s", w);
	else
		snprintf(word, wlen, "CU_CTX_SCHED flags 0x%x", flags & CU_CTX_SCHED_MASK);
	snprintf(note, nlen, "%s", be->sched_note[dev]);
	return 0;
}

static void cb_versions(struct nbw_backend *be, char *buf, size_t len)
{
	char drv[512];
	size_t off;
	driver_library(drv, sizeof(drv));
	snprintf(buf, len,
		 "cuda_runtime=%d.%d\ncuda_driver=%d.%d\n"
		 "cudart=libcudart_static (CUDART_VERSION %d)\nlibcuda=%s\n"
		 "stream_wait_value32=%s\ndevices=%d\ncuda_sched=%s\n",
		 be->runtime_version / 1000, be->runtime_version % 1000 / 10,
		 be->driver_version / 1000, be->driver_version % 1000 / 10, CUDART_VERSION,
		 drv,
		 be->wait_value32 ? "cuStreamWaitValue32 (cudaGetDriverEntryPointByVersion 11070)"
				  : be->gate_why,
		 be->ndev, be->sched_asked);
	for (int d = 0; d < be->ndev; d++) {
		char word[64], note[NBW_REASON_LEN];
		off = strlen(buf);
		if (cb_sched(be, d, word, sizeof(word), note, sizeof(note)))
			snprintf(buf + off, len - off, "device%d_sched=unknown: %s\n", d, note);
		else
			snprintf(buf + off, len - off, "device%d_sched=%s; %s\n", d, word, note);
	}
}

static const char *cb_interface(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t whylen)
{
	static const char *const sync_if[NBW_DIR_COUNT] = {
		[NBW_HTOD] = "cudaMemcpy HostToDevice (+ cudaDeviceSynchronize for a pageable "
			     "source, which returns once staged)",
		[NBW_DTOH] = "cudaMemcpy DeviceToHost (returns when complete)",
		[NBW_P2P] = "cudaMemcpyPeer (one GPU: cudaMemcpy DeviceToDevice) + "
			    "cudaDeviceSynchronize (both return before the copy is done)",
	};
	static const char *const async_if[NBW_DIR_COUNT] = {
		[NBW_HTOD] = "cudaMemcpyAsync HostToDevice on a non-blocking stream, cudaEvent "
			     "timing; concurrent copies gated with cuStreamWaitValue32",
		[NBW_DTOH] = "cudaMemcpyAsync DeviceToHost on a non-blocking stream, cudaEvent "
			     "timing; concurrent copies gated with cuStreamWaitValue32",
		[NBW_P2P] = "cudaMemcpyPeerAsync (one GPU: cudaMemcpyAsync DeviceToDevice) on a "
			    "non-blocking stream, cudaEvent timing; concurrent copies gated with "
			    "cuStreamWaitValue32",
	};
	static const char *const kernel_if[NBW_DIR_COUNT] = {
		[NBW_HTOD] = "copy kernel (embedded PTX, cuLaunchKernel), device reads mapped "
			     "pinned host memory (cudaHostGetDevicePointer), 16-byte loads, "
			     "cudaEvent timing",
		[NBW_DTOH] = "copy kernel (embedded PTX, cuLaunchKernel), device writes mapped "
			     "pinned host memory (cudaHostGetDevicePointer), 16-byte stores, "
			     "cudaEvent timing",
		[NBW_P2P] = "copy kernel (embedded PTX, cuLaunchKernel) on the destination GPU, "
			    "reading the source GPU's memory through its peer pointer (peer access "
			    "on; one GPU: a device-memory copy kernel), cudaEvent timing",
	};
	static const char *const chase_if[NBW_DIR_COUNT] = {
		[NBW_HTOD] = "pointer chase (embedded PTX, cuLaunchKernel): one device thread "
			     "follows dependent ld.volatile.global loads through mapped pinned "
			     "host memory, cudaEvent timing",
		[NBW_P2P] = "pointer chase (embedded PTX, cuLaunchKernel): one thread of the "
			    "destination GPU follows dependent ld.volatile.global loads through "
			    "the source GPU's memory via its peer pointer (peer access on; one "
			    "GPU: its own memory), cudaEvent timing",
	};
	if ((unsigned)dir >= NBW_DIR_COUNT) {
		snprintf(why, whylen, "unknown direction");
		return NULL;
	}
	switch (mode) {
	case NBW_MODE_SYNC:
		return sync_if[dir];
	case NBW_MODE_ASYNC:
		return async_if[dir];
	case NBW_MODE_KERNEL:
		return kernel_if[dir];
	case NBW_MODE_CHASE:
		if (chase_if[dir])
			return chase_if[dir];
		snprintf(why, whylen, "a DtoH chase needs a host thread loading device memory, "
				      "and CUDA gives the host no load access to cudaMalloc memory");
		return NULL;
	case NBW_MODE_NOWAIT:
		snprintf(why, whylen, "nowait is OpenMP's target update nowait; the CUDA "
				      "non-blocking copy is the async mode");
		return NULL;
	case NBW_MODE_PARALLEL:
		snprintf(why, whylen, "parallel splits a copy over the host cores (host "
				      "backend); a CUDA copy is done by the GPU's copy engines");
		return NULL;
	default:
		break;
	}
	snprintf(why, whylen, "unknown mode");
	return NULL;
}

/* The kernel and chase modes: the driver's module and launch entry points, and for host
 * memory a kind the GPU can address (mapped) on every device. 0, or -1 with the reason. */
static int kernel_supports(struct nbw_backend *be, enum nbw_dir dir, enum nbw_hostmem mem,
			   char *why, size_t whylen)
{
	if (be && !be->kern.unload) {
		snprintf(why, whylen, "no kernel launch through this driver: %s", be->kern_why);
		return -1;
	}
	if (dir == NBW_P2P)
		return 0;
	if (mem == NBW_HOSTMEM_PAGEABLE) {
		snprintf(why, whylen, "a kernel cannot load or store pageable host memory without "
				      "HMM; the kernel modes need mapped pinned or registered memory");
		return -1;
	}
	if (mem == NBW_HOSTMEM_HUGEPAGE) {
		snprintf(why, whylen, "the kernel and chase modes run over pinned and registered "
				      "memory only; huge-page buffers are measured with the API's copies");
		return -1;
	}
	for (int d = 0; be && d < be->ndev; d++) {
		int ok = 0;
		if (CU_FAILED(cudaDeviceGetAttribute(&ok, cudaDevAttrCanMapHostMemory, d))) {
			snprintf(why, whylen, "%s", last_err);
			return -1;
		}
		if (!ok) {
			snprintf(why, whylen, "cudaDevAttrCanMapHostMemory = 0 on device %d: its "
					      "kernels cannot address host memory", d);
			return -1;
		}
	}
	return 0;
}

static int cb_supports(struct nbw_backend *be, enum nbw_dir dir, enum nbw_mode mode,
		       enum nbw_hostmem mem, char *why, size_t whylen)
{
	if (!cb_interface(dir, mode, why, whylen))
		return -1;
	if (dir == NBW_P2P && mem != NBW_HOSTMEM_NONE) {
		snprintf(why, whylen, "a device-to-device copy has no host memory side");
		return -1;
	}
	if (dir != NBW_P2P && (mem < NBW_HOSTMEM_PAGEABLE || mem > NBW_HOSTMEM_HUGEPAGE)) {
		snprintf(why, whylen, "a host<->device copy needs pageable, pinned, "
				      "registered or huge-page host memory");
		return -1;
	}
	if ((mode == NBW_MODE_KERNEL || mode == NBW_MODE_CHASE) &&
	    kernel_supports(be, dir, mem, why, whylen))
		return -1;
	if ((mem != NBW_HOSTMEM_REGISTERED && mem != NBW_HOSTMEM_HUGEPAGE) || !be)
		return 0;
	for (int d = 0; d < be->ndev; d++) {
		int ok = 0;
		if (CU_FAILED(cudaDeviceGetAttribute(&ok, cudaDevAttrHostRegisterSupported, d))) {
			snprintf(why, whylen, "%s", last_err);
			return -1;
		}
		if (!ok) {
			snprintf(why, whylen, "cudaDevAttrHostRegisterSupported = 0 on device %d",
				 d);
			return -1;
		}
	}
	return 0;
}

static const char *cb_hostmem_note(struct nbw_backend *be, enum nbw_hostmem mem, int dev)
{
	(void)be;
	(void)dev;
	switch (mem) {
	case NBW_HOSTMEM_PAGEABLE:
		return "posix_memalign: pageable; the CUDA driver stages it through its own "
		       "pinned buffers";
	case NBW_HOSTMEM_PINNED:
		return "cudaHostAlloc(cudaHostAllocPortable | cudaHostAllocMapped): page-locked, "
		       "portable to every device, copied by DMA directly, mapped for kernels";
	case NBW_HOSTMEM_REGISTERED:
		return "posix_memalign + cudaHostRegister(cudaHostRegisterPortable | "
		       "cudaHostRegisterMapped): page-locked in place, portable to every device, "
		       "mapped for kernels";
	case NBW_HOSTMEM_HUGEPAGE:
		return "huge pages (mmap MAP_HUGETLB, else THP-advised mmap) + cudaHostRegister"
		       "(cudaHostRegisterPortable) of the whole mapping: page-locked in place";
	default:
		return "";
	}
}

static const char *cb_p2p_path(struct nbw_backend *be, int src, int dst)
{
	static _Thread_local char path[NBW_REASON_LEN + 64];
	int access = 0, rank = 0, atomics = 0;
	if (src == dst)
		return "same-GPU copy in device memory, not a peer link";
	if (src < 0 || dst < 0 || src >= be->ndev || dst >= be->ndev)
		return "no such pair of CUDA devices";
	if (CU_FAILED(cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, src,
						dst)) ||
	    CU_FAILED(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, src, dst)) ||
	    CU_FAILED(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported,
						src, dst))) {
		snprintf(path, sizeof(path), "unknown: %s", last_err);
		return path;
	}
	if (!access)
		snprintf(path, sizeof(path),
			 "no peer access (cudaDeviceGetP2PAttribute(%d, %d) access supported 0): "
			 "the driver stages the copy through host memory", src, dst);
	else
		snprintf(path, sizeof(path),
			 "peer access supported (cudaDeviceGetP2PAttribute(%d, %d): performance "
			 "rank %d, native atomics %d); with peer access off the driver stages the "
			 "copy through host memory", src, dst, rank, atomics);
	return path;
}

static int cb_peer_access(struct nbw_backend *be, int src, int dst, bool enable, char *why,
			  size_t whylen)
{
	int can = 0;
	cudaError_t rc;
	if (src == dst)
		return 0;
	if (src < 0 || dst < 0 || src >= be->ndev || dst >= be->ndev) {
		snprintf(why, whylen, "no such pair of CUDA devices (%d, %d)", src, dst);
		return -1;
	}
	if (CU_FAILED(cudaDeviceCanAccessPeer(&can, src, dst))) {
		snprintf(why, whylen, "%s", last_err);
		return -1;
	}
	if (!can) {
		snprintf(why, whylen, "cudaDeviceCanAccessPeer(%d, %d) = 0", src, dst);
		return -1;
	}
	if (CU_FAILED(cudaSetDevice(src))) {
		snprintf(why, whylen, "%s", last_err);
		return -1;
	}
	rc = enable ? cudaDeviceEnablePeerAccess(dst, 0) : cudaDeviceDisablePeerAccess(dst);
	if (rc == (enable ? cudaErrorPeerAccessAlreadyEnabled : cudaErrorPeerAccessNotEnabled)) {
		(void)cudaGetLastError(); /* benign: already in the wanted state */
		return 0;
	}
	if (cu_failed(rc, enable ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess")) {
		snprintf(why, whylen, "%s", last_err);
		return -1;
	}
	return 0;
}

static bool select_device(int dev)
{
	return dev < 0 || !CU_FAILED(cudaSetDevice(dev));
}

/* Huge pages (common/hugepage.c), then registered as NBW_LOC_HOST_REGISTERED is: the whole
 * mapping, so that registration never splits a transparent huge page. */
static int huge_alloc(struct nbw_buf *b)
{
	char why[NBW_REASON_LEN];
	int rc = nbw_hugepage_alloc(b->bytes, &b->ptr, NULL, why, sizeof(why));
	if (rc) {
		b->ptr = NULL;
		set_err("%s", why);
		return rc;
	}
	if (!select_device(b->device) ||
	    CU_FAILED(cudaHostRegister(b->ptr, nbw_hugepage_span(b->bytes),
				       cudaHostRegisterPortable))) {
		nbw_hugepage_free(b->ptr, b->bytes);
		b->ptr = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int cb_alloc(struct nbw_backend *be, struct nbw_buf *b)
{
	b->ptr = NULL;
	switch (b->loc) {
	case NBW_LOC_HOST_PAGEABLE:
	case NBW_LOC_HOST_REGISTERED:
		if (posix_memalign(&b->ptr, HOST_ALIGN, b->bytes)) {
			b->ptr = NULL;
			set_err("posix_memalign(%zu bytes) failed", b->bytes);
			return -ENOMEM;
		}
		if (b->loc == NBW_LOC_HOST_PAGEABLE)
			return 0;
		if (!select_device(b->device) ||
		    CU_FAILED(cudaHostRegister(b->ptr, b->bytes,
					       cudaHostRegisterPortable | cudaHostRegisterMapped))) {
			free(b->ptr);
			b->ptr = NULL;
			return -ENOMEM;
		}
		return 0;
	case NBW_LOC_HOST_HUGEPAGE:
		return huge_alloc(b);
	case NBW_LOC_HOST_PINNED:
		if (!select_device(b->device) ||
		    CU_FAILED(cudaHostAlloc(&b->ptr, b->bytes,
					    cudaHostAllocPortable | cudaHostAllocMapped))) {
			b->ptr = NULL;
			return -ENOMEM;
		}
		return 0;
	case NBW_LOC_DEVICE:
		if (b->device < 0 || b->device >= be->ndev) {
			set_err("cudaMalloc: no CUDA device %d", b->device);
			return -ENOMEM;
		}
		if (CU_FAILED(cudaSetDevice(b->device)) ||
		    CU_FAILED(cudaMalloc(&b->ptr, b->bytes))) {
			b->ptr = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	set_err("unknown buffer location %d", (int)b->loc);
	return -ENOMEM;
}

static void cb_free(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	if (!b->ptr)
		return;
	switch (b->loc) {
	case NBW_LOC_HOST_PAGEABLE:
		free(b->ptr);
		break;
	case NBW_LOC_HOST_REGISTERED:
		(void)CU_FAILED(cudaHostUnregister(b->ptr));
		free(b->ptr);
		break;
	case NBW_LOC_HOST_HUGEPAGE:
		(void)CU_FAILED(cudaHostUnregister(b->ptr));
		nbw_hugepage_free(b->ptr, b->bytes);
		break;
	case NBW_LOC_HOST_PINNED:
		(void)CU_FAILED(cudaFreeHost(b->ptr));
		break;
	case NBW_LOC_DEVICE:
		if (!CU_FAILED(cudaSetDevice(b->device)))
			(void)CU_FAILED(cudaFree(b->ptr));
		break;
	}
	b->ptr = NULL;
}

/* Untimed: a pageable HtoD cudaMemcpy may return before the bytes arrive, hence the sync. */
static int cb_write(struct nbw_backend *be, struct nbw_buf *dst, const void *host, size_t n)
{
	(void)be;
	if (dst->loc != NBW_LOC_DEVICE) {
		memcpy(dst->ptr, host, n);
		return 0;
	}
	if (CU_FAILED(cudaSetDevice(dst->device)) ||
	    CU_FAILED(cudaMemcpy(dst->ptr, host, n, cudaMemcpyHostToDevice)) ||
	    CU_FAILED(cudaDeviceSynchronize()))
		return -EIO;
	return 0;
}

static int cb_read(struct nbw_backend *be, void *host, const struct nbw_buf *src, size_t n)
{
	(void)be;
	if (src->loc != NBW_LOC_DEVICE) {
		memcpy(host, src->ptr, n);
		return 0;
	}
	if (CU_FAILED(cudaSetDevice(src->device)) ||
	    CU_FAILED(cudaMemcpy(host, src->ptr, n, cudaMemcpyDeviceToHost)))
		return -EIO;
	return 0;
}

/* The device whose context issues the copy: the GPU end, the source GPU for P2P. */
static int xfer_device(const struct nbw_xfer *x)
{
	if (x->dir == NBW_P2P && kernel_mode(x->mode))
		return x->dst->device; /* the kernel runs where the loads are made */
	return x->dir == NBW_HTOD ? x->dst->device : x->src->device;
}

/* A host buffer's address for a kernel (mapped memory); 0, or -1 with last_err. */
static int mapped_address(const struct nbw_buf *b, void **out)
{
	*out = b->ptr;
	if (b->loc == NBW_LOC_DEVICE)
		return 0;
	if (b->loc == NBW_LOC_HOST_PAGEABLE) {
		set_err("a kernel cannot address pageable host memory without HMM");
		return -1;
	}
	return CU_FAILED(cudaHostGetDevicePointer(out, b->ptr, 0)) ? -1 : 0;
}

/* KERNEL and CHASE, outside the timed region: the stream and events, the device's kernels,
 * the peer access a P2P kernel needs, the addresses the kernel uses. 0 or -errno. */
static int prepare_kernel(struct nbw_backend *be, struct nbw_xfer *x, struct cu_xfer *st)
{
	void *d = NULL, *s = NULL;
	if (st->peer && x->peer != NBW_PEER_ON) {
		set_err("a %s kernel on device %d loads device %d's memory only through peer "
			"access, which is off for this copy",
			x->mode == NBW_MODE_CHASE ? "chase" : "copy", st->dev, x->src->device);
		return -EINVAL;
	}
	if (x->mode == NBW_MODE_CHASE && (x->dst->bytes < sizeof(uint64_t) ||
					  x->src->bytes < sizeof(uint64_t))) {
		set_err("a chase needs a chain of at least one uint64_t and 8 bytes for its result");
		return -EINVAL;
	}
	if (CU_FAILED(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking)) ||
	    CU_FAILED(cudaEventCreateWithFlags(&st->start, cudaEventDefault)) ||
	    CU_FAILED(cudaEventCreateWithFlags(&st->stop, cudaEventDefault)) ||
	    CU_FAILED(cudaDeviceGetAttribute(&st->sms, cudaDevAttrMultiProcessorCount, st->dev)))
		return -EIO;
	if (kmod_get(be, st->dev) || (st->peer && kpeer_take(be, st, x->src->device)))
		return -EIO;
	if (mapped_address(x->src, &s) || mapped_address(x->dst, &d))
		return -EIO;
	st->ksrc = s;
	st->kdst = d;
	return 0;
}

/* Start event, the kernel, stop event on the transfer's stream. */
static int enqueue_kernel(struct nbw_backend *be, struct cu_xfer *st, const struct nbw_xfer *x)
{
	CUresult rc;
	if (CU_FAILED(cudaEventRecord(st->start, st->stream)))
		return -EIO;
	if (x->mode == NBW_MODE_CHASE)
		rc = cuk_chase(&be->kern, &be->kmod[st->dev], st->stream, st->ksrc,
			       x->src->bytes / sizeof(uint64_t), x->chase_loads, st->kdst);
	else
		rc = cuk_copy(&be->kern, &be->kmod[st->dev], st->stream, st->kdst, st->ksrc,
			      x->bytes, st->sms);
	if (drv_failed(be, rc, "cuLaunchKernel") || CU_FAILED(cudaEventRecord(st->stop, st->stream)))
		return -EIO;
	return 0;
}

/* Give the state the gate (created on first use), or say in st->gate_why why it has none. */
static void gate_attach(struct nbw_backend *be, struct cu_xfer *st)
{
	int can_map = 0;
	void *dptr = NULL;
	pthread_mutex_lock(&be->lock);
	if (!be->gate && !be->gate_why[0]) {
		void *p = NULL;
		if (CU_FAILED(cudaHostAlloc(&p, sizeof(uint32_t),
					    cudaHostAllocMapped | cudaHostAllocPortable))) {
			snprintf(be->gate_why, sizeof(be->gate_why), "%s", last_err);
		} else {
			be->gate = p;
			__atomic_store_n(be->gate, __atomic_load_n(&be->epoch, __ATOMIC_ACQUIRE),
					 __ATOMIC_SEQ_CST);
		}
	}
	if (!be->gate)
		snprintf(st->gate_why, sizeof(st->gate_why), "%s", be->gate_why);
	pthread_mutex_unlock(&be->lock);
	if (!be->gate)
		return;
	if (CU_FAILED(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, st->dev)))
		snprintf(st->gate_why, sizeof(st->gate_why), "%s", last_err);
	else if (!can_map)
		snprintf(st->gate_why, sizeof(st->gate_why),
			 "cudaDevAttrCanMapHostMemory = 0 on device %d", st->dev);
	else if (CU_FAILED(cudaHostGetDevicePointer(&dptr, be->gate, 0)))
		snprintf(st->gate_why, sizeof(st->gate_why), "%s", last_err);
	else
		st->gate = (CUdeviceptr)(uintptr_t)dptr;
}

/*
 * Whether the device accepts the gate's wait: tried once per device on this state's stream,
 * outside the timed region, with the value the flag already holds (so it never blocks), and
 * synchronised so that an error the driver reports late shows too. Where it is refused the
 * state drops the gate with the reason, and the core starts the copies on its barrier.
 */
static void gate_probe(struct nbw_backend *be, struct cu_xfer *st)
{
	pthread_mutex_lock(&be->lock);
	if (!be->wait_ok[st->dev]) {
		uint32_t now = __atomic_load_n(be->gate, __ATOMIC_ACQUIRE);
		if (drv_failed(be, be->wait_value32(st->stream, st->gate, now,
						    CU_STREAM_WAIT_VALUE_GEQ),
			       "cuStreamWaitValue32") ||
		    CU_FAILED(cudaStreamSynchronize(st->stream))) {
			be->wait_ok[st->dev] = -1;
			snprintf(be->wait_why[st->dev], sizeof(be->wait_why[0]),
				 "the wait was refused on device %d: %s", st->dev, last_err);
		} else {
			be->wait_ok[st->dev] = 1;
		}
	}
	if (be->wait_ok[st->dev] < 0) {
		st->gate = 0;
		snprintf(st->gate_why, sizeof(st->gate_why), "%s", be->wait_why[st->dev]);
	}
	pthread_mutex_unlock(&be->lock);
}

/* A pack face copy, outside the timed region: the kernels loaded on the device of each
 * device box (pack and unpack run there). 0, or -1 with last_err. */
static int pack_prepare(struct nbw_backend *be, const struct nbw_xfer *x)
{
	const struct nbw_buf *side[2] = { x->src, x->dst };
	for (int i = 0; i < 2; i++) {
		if (side[i]->loc != NBW_LOC_DEVICE)
			continue;
		if (!be->kern.unload) {
			set_err("no pack kernel launch through this driver: %s", be->kern_why);
			return -1;
		}
		if (CU_FAILED(cudaSetDevice(side[i]->device)) || kmod_get(be, side[i]->device))
			return -1;
	}
	return 0;
}

static int cb_prepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	char why[NBW_REASON_LEN];
	if (!cb_interface(x->dir, x->mode, why, sizeof(why))) {
		set_err("%s", why);
		return -EINVAL;
	}
	struct cu_xfer *st = calloc(1, sizeof(*st));
	if (!st) {
		set_err("out of host memory for the transfer state");
		return -ENOMEM;
	}
	st->dev = xfer_device(x);
	st->peer_src = -1;
	st->peer = x->dir == NBW_P2P && x->src->device != x->dst->device;
	st->sync_after = x->dir == NBW_P2P ||
			 (x->dir == NBW_HTOD && x->src->loc == NBW_LOC_HOST_PAGEABLE);
	if (x->region && x->region->method == NBW_FACE_PACK && pack_prepare(be, x)) {
		state_destroy(be, st);
		return -EIO;
	}
	if (CU_FAILED(cudaSetDevice(st->dev)))
		goto fail;
	if (kernel_mode(x->mode)) {
		int rc = prepare_kernel(be, x, st);
		if (rc) {
			state_destroy(be, st);
			return rc;
		}
	}
	if (x->mode == NBW_MODE_ASYNC) {
		if (CU_FAILED(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking)) ||
		    CU_FAILED(cudaEventCreateWithFlags(&st->start, cudaEventDefault)) ||
		    CU_FAILED(cudaEventCreateWithFlags(&st->stop, cudaEventDefault)))
			goto fail;
		gate_attach(be, st);
		if (st->gate)
			gate_probe(be, st);
		/* Tell the core up front when submit() would refuse: it then uses a barrier. */
		if (!st->gate)
			x->no_gate = st->gate_why;
		else if (x->src->loc == NBW_LOC_HOST_PAGEABLE ||
			 x->dst->loc == NBW_LOC_HOST_PAGEABLE)
			x->no_gate = "pageable host memory: cudaMemcpyAsync stages it on the host "
				     "and would wait behind the closed gate";
		else if (st->peer && x->peer != NBW_PEER_ON)
			x->no_gate = "a peer copy without peer access is staged by the driver "
				     "through host memory and may wait on the host";
	}
	state_link(be, st);
	x->priv = st;
	return 0;
fail:
	state_destroy(be, st);
	return -EIO;
}

static void cb_unprepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct cu_xfer *st = x->priv;
	if (!st)
		return;
	state_unlink(be, st);
	state_destroy(be, st);
	x->priv = NULL;
}

static int copy_sync(const struct nbw_xfer *x)
{
	void *dst = x->dst->ptr;
	const void *src = x->src->ptr;
	size_t n = x->bytes;
	bool failed;
	if (x->dir == NBW_HTOD)
		failed = CU_FAILED(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice));
	else if (x->dir == NBW_DTOH)
		failed = CU_FAILED(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost));
	else if (x->src->device == x->dst->device)
		failed = CU_FAILED(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice));
	else
		failed = CU_FAILED(cudaMemcpyPeer(dst, x->dst->device, src, x->src->device, n));
	return failed ? -EIO : 0;
}

static int copy_async(const struct nbw_xfer *x, cudaStream_t s)
{
	void *dst = x->dst->ptr;
	const void *src = x->src->ptr;
	size_t n = x->bytes;
	bool failed;
	if (x->dir == NBW_HTOD)
		failed = CU_FAILED(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s));
	else if (x->dir == NBW_DTOH)
		failed = CU_FAILED(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s));
	else if (x->src->device == x->dst->device)
		failed = CU_FAILED(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, s));
	else
		failed = CU_FAILED(cudaMemcpyPeerAsync(dst, x->dst->device, src, x->src->device,
						       n, s));
	return failed ? -EIO : 0;
}

/* Start event, copy, stop event on the transfer's stream (behind whatever is queued). */
static int enqueue_timed(struct cu_xfer *st, const struct nbw_xfer *x)
{
	if (CU_FAILED(cudaEventRecord(st->start, st->stream)) || copy_async(x, st->stream) ||
	    CU_FAILED(cudaEventRecord(st->stop, st->stream)))
		return -EIO;
	return 0;
}

static int wait_timed(struct cu_xfer *st, struct nbw_xfer *x)
{
	float ms = 0;
	if (CU_FAILED(cudaEventSynchronize(st->stop)) ||
	    CU_FAILED(cudaEventElapsedTime(&ms, st->start, st->stop)))
		return -EIO;
	x->device_s = (double)ms * 1e-3;
	return 0;
}

static int cb_transfer(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct cu_xfer *st = x->priv;
	if (!st) {
		set_err("transfer() without prepare()");
		return -EINVAL;
	}
	if (CU_FAILED(cudaSetDevice(st->dev)))
		return -EIO;
	if (x->mode == NBW_MODE_SYNC) {
		int rc = copy_sync(x);
		if (rc == 0 && st->sync_after && CU_FAILED(cudaDeviceSynchronize()))
			rc = -EIO;
		return rc;
	}
	int rc = kernel_mode(x->mode) ? enqueue_kernel(be, st, x) : enqueue_timed(st, x);
	if (rc)
		return rc;
	return wait_timed(st, x);
}

static int cb_submit(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct cu_xfer *st = x->priv;
	if (!st || x->mode != NBW_MODE_ASYNC) {
		set_err("gated start is for prepared async transfers only");
		return -1;
	}
	if (!st->gate) {
		set_err("no start gate on CUDA device %d: %s", st->dev, st->gate_why);
		return -1;
	}
	/* Behind a closed gate these would block submit() itself, and release() never came. */
	if (x->src->loc == NBW_LOC_HOST_PAGEABLE || x->dst->loc == NBW_LOC_HOST_PAGEABLE) {
		set_err("no gated start with pageable host memory: cudaMemcpyAsync stages it on "
			"the host and would wait for the gated stream");
		return -1;
	}
	if (st->peer && x->peer != NBW_PEER_ON) {
		set_err("no gated start for a peer copy without peer access: the driver stages "
			"it through host memory and may wait on the host for the gated stream");
		return -1;
	}
	uint32_t want = __atomic_load_n(&be->epoch, __ATOMIC_ACQUIRE) + 1;
	if (CU_FAILED(cudaSetDevice(st->dev)))
		return -EIO;
	if (drv_failed(be, be->wait_value32(st->stream, st->gate, want, CU_STREAM_WAIT_VALUE_GEQ),
		       "cuStreamWaitValue32"))
		return -EIO;
	/* From here the stream holds the wait: unprepare() must open the gate to drain it. */
	st->pending = true;
	return enqueue_timed(st, x);
}

static int cb_release(struct nbw_backend *be)
{
	if (!be->gate) {
		set_err("release() without a start gate: %s", be->gate_why);
		return -1;
	}
	gate_open(be);
	return 0;
}

static int cb_complete(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct cu_xfer *st = x->priv;
	(void)be;
	if (!st || !st->pending) {
		set_err("complete() without a submitted copy");
		return -1;
	}
	if (CU_FAILED(cudaSetDevice(st->dev)))
		return -EIO;
	int rc = wait_timed(st, x);
	if (rc == 0)
		st->pending = false;
	return rc;
}

/* ---- face probes: the 3-D copies (include/nodebw/face.h) ------------------------------ */

static const char *cb_face_interface(struct nbw_backend *be, enum nbw_dir dir,
				     enum nbw_face_method method, enum nbw_mode mode, char *why,
				     size_t whylen)
{
	bool p2p = dir == NBW_P2P;
	if (method == NBW_FACE_PACK && (mode == NBW_MODE_SYNC || mode == NBW_MODE_ASYNC)) {
		if (!be->kern.unload) {
			snprintf(why, whylen, "no pack kernel launch through this driver: %s",
				 be->kern_why);
			return NULL;
		}
		/* Each kernel: cuLaunchKernel on the legacy default stream + cudaStreamSynchronize. */
		if (mode == NBW_MODE_SYNC)
			return p2p ? "pack kernel (nbw_pack) -> cudaMemcpyPeer (one GPU: cudaMemcpy "
				     "DeviceToDevice) + cudaDeviceSynchronize -> unpack kernel "
				     "(nbw_unpack)"
			       : dir == NBW_HTOD ? "host pack loop -> cudaMemcpy HostToDevice -> "
						   "unpack kernel (nbw_unpack)"
						 : "pack kernel (nbw_pack) -> cudaMemcpy DeviceToHost "
						   "-> host unpack loop";
		return p2p ? "pack kernel (nbw_pack) -> cudaMemcpyPeerAsync (one GPU: "
			     "cudaMemcpyAsync DeviceToDevice) on a non-blocking stream -> unpack "
			     "kernel (nbw_unpack)"
		       : dir == NBW_HTOD ? "host pack loop -> cudaMemcpyAsync HostToDevice on a "
					   "non-blocking stream -> unpack kernel (nbw_unpack)"
					 : "pack kernel (nbw_pack) -> cudaMemcpyAsync DeviceToHost "
					   "on a non-blocking stream -> host unpack loop";
	}
	if (mode == NBW_MODE_SYNC)
		return p2p ? "cudaMemcpy3DPeer (one GPU: cudaMemcpy3D DeviceToDevice) + "
			     "cudaDeviceSynchronize"
		       : dir == NBW_HTOD ? "cudaMemcpy3D HostToDevice (+ cudaDeviceSynchronize "
					   "for a pageable source)"
					 : "cudaMemcpy3D DeviceToHost";
	if (mode == NBW_MODE_ASYNC)
		return p2p ? "cudaMemcpy3DPeerAsync (one GPU: cudaMemcpy3DAsync DeviceToDevice) on "
			     "a non-blocking stream, cudaEvent timing"
			   : "cudaMemcpy3DAsync on a non-blocking stream, cudaEvent timing";
	snprintf(why, whylen, "face copies run in the sync and async modes");
	return NULL;
}

static int copy_3d(const struct nbw_xfer *x, cudaStream_t s, bool async)
{
	const struct nbw_region *r = x->region;
	size_t pitch = r->dims[0] * r->elem;
	struct cudaPitchedPtr sp = { .ptr = x->src->ptr, .pitch = pitch, .xsize = pitch,
				     .ysize = r->dims[1] };
	struct cudaPitchedPtr dp = { .ptr = x->dst->ptr, .pitch = pitch, .xsize = pitch,
				     .ysize = r->dims[1] };
	struct cudaPos spos = { .x = r->src_at[0] * r->elem, .y = r->src_at[1], .z = r->src_at[2] };
	struct cudaPos dpos = { .x = r->dst_at[0] * r->elem, .y = r->dst_at[1], .z = r->dst_at[2] };
	struct cudaExtent ext = { .width = r->extent[0] * r->elem, .height = r->extent[1],
				  .depth = r->extent[2] };
	if (x->dir == NBW_P2P && x->src->device != x->dst->device) {
		struct cudaMemcpy3DPeerParms p;
		memset(&p, 0, sizeof(p));
		p.srcPtr = sp, p.srcPos = spos, p.srcDevice = x->src->device;
		p.dstPtr = dp, p.dstPos = dpos, p.dstDevice = x->dst->device;
		p.extent = ext;
		return (async ? CU_FAILED(cudaMemcpy3DPeerAsync(&p, s)) : CU_FAILED(cudaMemcpy3DPeer(&p)))
			       ? -EIO
			       : 0;
	}
	struct cudaMemcpy3DParms p;
	memset(&p, 0, sizeof(p));
	p.srcPtr = sp, p.srcPos = spos, p.dstPtr = dp, p.dstPos = dpos, p.extent = ext;
	p.kind = x->dir == NBW_HTOD ? cudaMemcpyHostToDevice
		 : x->dir == NBW_DTOH ? cudaMemcpyDeviceToHost
				      : cudaMemcpyDeviceToDevice;
	return (async ? CU_FAILED(cudaMemcpy3DAsync(&p, s)) : CU_FAILED(cudaMemcpy3D(&p))) ? -EIO
											  : 0;
}

static int cb_copy_rect(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	struct cu_xfer *st = x->priv;
	if (!st || !x->region) {
		set_err("copy_rect() without prepare() or a region");
		return -EINVAL;
	}
	if (CU_FAILED(cudaSetDevice(st->dev)))
		return -EIO;
	if (x->mode == NBW_MODE_SYNC) {
		int rc = copy_3d(x, NULL, false);
		if (rc == 0 && st->sync_after && CU_FAILED(cudaDeviceSynchronize()))
			rc = -EIO;
		return rc;
	}
	if (CU_FAILED(cudaEventRecord(st->start, st->stream)) || copy_3d(x, st->stream, true) ||
	    CU_FAILED(cudaEventRecord(st->stop, st->stream)))
		return -EIO;
	return wait_timed(st, x);
}

/* The face's gather or scatter on the device of the box (lin on the same device), waited
 * for: the executor times pack + copy + unpack as one. */
static int cb_pack(struct nbw_backend *be, const struct nbw_buf *box, const struct nbw_region *r,
		   const size_t at[3], struct nbw_buf *lin, bool unpack)
{
	int dev = box->device, sms = 0;
	if (box->loc != NBW_LOC_DEVICE || lin->loc != NBW_LOC_DEVICE || lin->device != dev) {
		set_err("the pack kernels gather and scatter between buffers of one device");
		return -EINVAL;
	}
	if (!be->kern.unload) {
		set_err("no pack kernel launch through this driver: %s", be->kern_why);
		return -EIO;
	}
	if (CU_FAILED(cudaSetDevice(dev)) ||
	    CU_FAILED(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
	    kmod_get(be, dev))
		return -EIO;
	CUresult rc = cuk_pack(&be->kern, &be->kmod[dev], NULL, box->ptr, r, at, lin->ptr, unpack,
			       sms);
	if (drv_failed(be, rc, unpack ? "cuLaunchKernel(nbw_unpack)" : "cuLaunchKernel(nbw_pack)") ||
	    CU_FAILED(cudaStreamSynchronize(NULL)))
		return -EIO;
	return 0;
}

static const char *cb_last_error(struct nbw_backend *be)
{
	(void)be;
	return last_err;
}

const struct nbw_backend_ops nbw_backend_cuda = {
	.abi = NBW_PROBE_ABI,
	.name = "cuda",
	.description = "CUDA runtime API (cudaMemcpy, cudaMemcpyAsync, cudaMemcpyPeer; copy, "
		       "pointer-chase and face pack kernels from embedded PTX through the driver's "
		       "cuModuleLoadDataEx and cuLaunchKernel), libcudart_static",
	.open = cb_open,
	.close = cb_close,
	.device_count = cb_device_count,
	.device_info = cb_device_info,
	.versions = cb_versions,
	.interface = cb_interface,
	.supports = cb_supports,
	.hostmem_note = cb_hostmem_note,
	.p2p_path = cb_p2p_path,
	.peer_access = cb_peer_access,
	.alloc = cb_alloc,
	.free = cb_free,
	.write = cb_write,
	.read = cb_read,
	.prepare = cb_prepare,
	.unprepare = cb_unprepare,
	.transfer = cb_transfer,
	.submit = cb_submit,
	.release = cb_release,
	.complete = cb_complete,
	.device_timer = "cudaEventElapsedTime",
	.last_error = cb_last_error,
	.sched = cb_sched,
	.face_interface = cb_face_interface,
	.copy_rect = cb_copy_rect,
	.pack = cb_pack,
};
