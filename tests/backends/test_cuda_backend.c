/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of bw_native/cuda_backend.c on a fake CUDA runtime (fake_cuda.c). */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calllog.h"
#include "pack_args.h"
#include "fake_cuda.h"
#include "nodebw/face.h"
#include "nodebw/hugepage.h"
#include "nodebw/probe.h"

extern const struct nbw_backend_ops nbw_backend_cuda;
static const struct nbw_backend_ops *ops = &nbw_backend_cuda;

#define N 4096

struct fixture {
	struct nbw_backend *be;
	struct nbw_buf src[2], dst[2];
	struct nbw_xfer x[2];
};

static struct fixture fx;

static struct nbw_backend *open_sched(const char *cuda_sched)
{
	struct nbw_backend *be = NULL;
	struct nbw_backend_opts o = { .cuda_sched = cuda_sched };
	char why[NBW_REASON_LEN] = "";
	if (ops->open(&be, &o, why, sizeof(why)) != 0)
		fail_msg("open: %s", why);
	return be;
}

static struct nbw_backend *open_ok(void)
{
	return open_sched(NULL);
}

static int setup(void **state)
{
	memset(&fx, 0, sizeof(fx));
	fake_cuda_reset();
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	for (int i = 0; i < 2; i++) {
		if (f->x[i].priv)
			ops->unprepare(f->be, &f->x[i]);
		if (f->be) {
			ops->free(f->be, &f->src[i]);
			ops->free(f->be, &f->dst[i]);
		}
	}
	if (f->be)
		ops->close(f->be);
	assert_int_equal(fake_cuda_live, 0);
	return 0;
}

static void prepare_again(struct fixture *f, int i)
{
	f->x[i] = (struct nbw_xfer){ .dir = NBW_HTOD, .mode = NBW_MODE_ASYNC, .src = &f->src[i],
				     .dst = &f->dst[i], .bytes = N, .peer = NBW_PEER_NA,
				     .device_s = -1 };
	assert_int_equal(ops->prepare(f->be, &f->x[i]), 0);
}

/* Stream i: an async pinned host-to-device copy to device i, prepared. */
static void prepare_htod(struct fixture *f, int i)
{
	f->src[i] = (struct nbw_buf){ .loc = NBW_LOC_HOST_PINNED, .device = i, .bytes = N };
	f->dst[i] = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = i, .bytes = N };
	assert_int_equal(ops->alloc(f->be, &f->src[i]), 0);
	assert_int_equal(ops->alloc(f->be, &f->dst[i]), 0);
	prepare_again(f, i);
}

/* ---- huge-page host memory ---------------------------------------------------------------- */

/* Huge pages are registered as the registered kind is, the whole mapping (the span, so no
 * registration boundary splits a huge page), and unregistered before they are unmapped; the
 * async copy keeps the gate, as for page-locked memory. */
static void test_hugepage_registered(void **state)
{
	struct fixture *f = *state;
	struct nbw_hugepage_sys hs;
	char why[NBW_REASON_LEN] = "";
	nbw_hugepage_sys_read("", &hs);
	if (nbw_hugepage_available(&hs, why, sizeof(why))) {
		print_message("skipped: %s\n", why);
		skip();
	}
	f->be = open_ok();
	assert_int_equal(ops->supports(f->be, NBW_HTOD, NBW_MODE_ASYNC, NBW_HOSTMEM_HUGEPAGE, why,
				       sizeof(why)), 0);
	assert_non_null(strstr(ops->hostmem_note(f->be, NBW_HOSTMEM_HUGEPAGE, 0),
			       "cudaHostRegister"));
	f->src[0] = (struct nbw_buf){ .loc = NBW_LOC_HOST_HUGEPAGE, .device = 0, .bytes = N };
	f->dst[0] = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = 0, .bytes = N };
	assert_int_equal(ops->alloc(f->be, &f->src[0]), 0);
	assert_int_equal(fake_cuda_registered_bytes, nbw_hugepage_span(N));
	assert_true(nbw_hugepage_span(N) >= (size_t)2 << 20);
	assert_int_equal(ops->alloc(f->be, &f->dst[0]), 0);
	memset(f->src[0].ptr, 0x3c, N);
	prepare_again(f, 0);
	assert_null(f->x[0].no_gate);
	assert_int_equal(ops->transfer(f->be, &f->x[0]), 0);
	assert_memory_equal(f->dst[0].ptr, f->src[0].ptr, N);
	ops->unprepare(f->be, &f->x[0]);
	ops->free(f->be, &f->src[0]);
	assert_int_equal(fake_cuda_registered_bytes, 0);
}

/* A refused registration gives the mapping back and says why. */
static void test_hugepage_register_refused(void **state)
{
	struct fixture *f = *state;
	struct nbw_hugepage_sys hs;
	char why[NBW_REASON_LEN] = "";
	nbw_hugepage_sys_read("", &hs);
	if (nbw_hugepage_available(&hs, why, sizeof(why)))
		skip();
	f->be = open_ok();
	fake_cuda_register_rc = cudaErrorMemoryAllocation;
	f->src[0] = (struct nbw_buf){ .loc = NBW_LOC_HOST_HUGEPAGE, .device = 0, .bytes = N };
	assert_int_equal(ops->alloc(f->be, &f->src[0]), -ENOMEM);
	assert_null(f->src[0].ptr);
	assert_non_null(strstr(ops->last_error(f->be), "cudaHostRegister"));
	assert_int_equal(fake_cuda_registered_bytes, 0);
}

/* ---- the gate's wait, tried at prepare() ------------------------------------------------- */

/* The wait works: prepare() keeps the gate after one untimed trial wait per device that the
 * flag already satisfies; the gated round then queues the real wait ahead of the copy. */
static void test_gate_wait_works(void **state)
{
	struct fixture *f = *state;
	f->be = open_ok();
	prepare_htod(f, 0);
	assert_null(f->x[0].no_gate);
	assert_int_equal(calllog_count("cuStreamWaitValue32(dev 0, 0)"), 1);
	assert_true(calllog_before("cuStreamWaitValue32(dev 0, 0)", "cudaStreamSynchronize(dev 0)"));
	prepare_htod(f, 1);
	assert_null(f->x[1].no_gate);
	calllog_reset();
	/* Tried once per device: a second state on device 0 does not try again. */
	ops->unprepare(f->be, &f->x[0]);
	prepare_again(f, 0);
	assert_int_equal(calllog_count("cuStreamWaitValue32"), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(ops->submit(f->be, &f->x[i]), 0);
	assert_true(calllog_before("cuStreamWaitValue32(dev 0, 1)", "cudaMemcpyAsync(dev 0)"));
	assert_true(calllog_before("cuStreamWaitValue32(dev 1, 1)", "cudaMemcpyAsync(dev 1)"));
	assert_int_equal(ops->release(f->be), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(ops->complete(f->be, &f->x[i]), 0);
}

/* The driver refuses the wait: prepare() still succeeds but declines the gate with the
 * driver's reason, so the core times the copies behind its barrier; submit() refuses. */
static void test_gate_wait_refused(void **state)
{
	struct fixture *f = *state;
	fake_cuda_wait_rc = CUDA_ERROR_NOT_SUPPORTED;
	f->be = open_ok();
	prepare_htod(f, 0);
	prepare_htod(f, 1);
	for (int i = 0; i < 2; i++) {
		assert_non_null(f->x[i].no_gate);
		if (!strstr(f->x[i].no_gate, "cuStreamWaitValue32") ||
		    !strstr(f->x[i].no_gate, "CUDA_ERROR_NOT_SUPPORTED"))
			fail_msg("no_gate: %s", f->x[i].no_gate);
	}
	assert_non_null(strstr(f->x[1].no_gate, "device 1"));
	calllog_reset();
	assert_int_not_equal(ops->submit(f->be, &f->x[0]), 0);
	assert_int_equal(calllog_count("cudaMemcpyAsync"), 0);
	/* The barrier path: plain timed transfers work. */
	assert_int_equal(ops->transfer(f->be, &f->x[0]), 0);
	assert_true(f->x[0].device_s > 0);
}

/* ---- host-wait scheduling of the primary contexts -------------------------------------- */

static void expect_sched(struct nbw_backend *be, int dev, const char *word, const char *note_has)
{
	char w[64] = "x", note[NBW_REASON_LEN] = "";
	assert_int_equal(ops->sched(be, dev, w, sizeof(w), note, sizeof(note)), 0);
	assert_string_equal(w, word);
	if (!strstr(note, note_has))
		fail_msg("device %d: note '%s' does not say '%s'", dev, note, note_has);
}

/* As found: device 0's context was made by someone else (libomptarget asks for blocking
 * sync), device 1's is not active yet; both are reported as they are, also in versions(). */
static void test_sched_as_found(void **state)
{
	struct fixture *f = *state;
	char v[4096] = "";
	fake_cuda_ctx_flags[0] = CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST;
	fake_cuda_ctx_active[0] = 1;
	f->be = open_ok();
	expect_sched(f->be, 0, "blocking", "already active");
	expect_sched(f->be, 1, "auto", "not yet active");
	/* Read when asked, not only at open(): a later change shows. */
	fake_cuda_ctx_flags[1] = CU_CTX_SCHED_YIELD;
	expect_sched(f->be, 1, "yield", "left as found");
	ops->versions(f->be, v, sizeof(v));
	if (!strstr(v, "device0_sched=blocking; left as found") ||
	    !strstr(v, "device1_sched=yield; left as found"))
		fail_msg("versions:\n%s", v);
	char w[64], note[NBW_REASON_LEN];
	assert_int_equal(ops->sched(f->be, 2, w, sizeof(w), note, sizeof(note)), -1);
}

/* A driver without cuDevicePrimaryCtxGetState: sched() fails with the reason. */
static void test_sched_unreadable(void **state)
{
	struct fixture *f = *state;
	char w[64], note[NBW_REASON_LEN] = "", v[4096] = "";
	fake_cuda_missing_entry = "cuDevicePrimaryCtxGetState";
	f->be = open_ok();
	assert_int_equal(ops->sched(f->be, 0, w, sizeof(w), note, sizeof(note)), -1);
	assert_non_null(strstr(note, "cuDevicePrimaryCtxGetState"));
	ops->versions(f->be, v, sizeof(v));
	assert_non_null(strstr(v, "device0_sched=unknown: "));
}

/* --cuda-sched spin on a context libomptarget made with blocking sync (and mapped host
 * memory): the driver takes it, the other flags stay, the records say so. */
static void test_sched_set(void **state)
{
	struct fixture *f = *state;
	char v[4096] = "";
	fake_cuda_ctx_flags[0] = CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST;
	fake_cuda_ctx_active[0] = 1;
	f->be = open_sched("spin");
	assert_int_equal(calllog_count("cuDevicePrimaryCtxSetFlags(0, 0x9)"), 1);
	assert_int_equal(calllog_count("cuDevicePrimaryCtxSetFlags(1, 0x1)"), 1);
	expect_sched(f->be, 0, "spin", "set by --cuda-sched spin (cuDevicePrimaryCtxSetFlags; "
				       "was blocking); primary context already active");
	expect_sched(f->be, 1, "spin", "was auto); primary context not yet active");
	ops->versions(f->be, v, sizeof(v));
	assert_non_null(strstr(v, "cuda_sched=spin\n"));
	assert_non_null(strstr(v, "device0_sched=spin; set by --cuda-sched spin"));
}

/* auto (and NULL options) never touch the contexts. */
static void test_sched_auto(void **state)
{
	struct fixture *f = *state;
	f->be = open_sched("auto");
	ops->close(f->be);
	f->be = open_ok();
	assert_int_equal(calllog_count("cuDevicePrimaryCtxSetFlags"), 0);
	expect_sched(f->be, 0, "auto", "left as found");
}

/* The driver refuses (as drivers before CUDA 11 did for an active context): the context
 * keeps its flags and the note gives the driver's reason and that the context was active. */
static void test_sched_refused(void **state)
{
	struct fixture *f = *state;
	fake_cuda_ctx_flags[0] = CU_CTX_SCHED_BLOCKING_SYNC;
	fake_cuda_ctx_active[0] = 1;
	fake_cuda_setflags_rc = CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE;
	f->be = open_sched("yield");
	expect_sched(f->be, 0, "blocking", "--cuda-sched yield refused by the driver "
					   "(cuDevicePrimaryCtxSetFlags: "
					   "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE (708)");
	expect_sched(f->be, 0, "blocking", "left blocking, primary context already active");
}

/* A driver that says yes and does nothing is not believed. */
static void test_sched_not_taken(void **state)
{
	struct fixture *f = *state;
	fake_cuda_setflags_ignored = 1;
	f->be = open_sched("blocking");
	expect_sched(f->be, 1, "auto", "succeeded, but the context does not report it");
}

/* Without the entry point (a driver before CUDA 11.0) nothing is set, and the note says why. */
static void test_sched_no_entry(void **state)
{
	struct fixture *f = *state;
	fake_cuda_missing_entry = "cuDevicePrimaryCtxSetFlags";
	f->be = open_sched("spin");
	expect_sched(f->be, 0, "auto", "--cuda-sched spin not applied (cudaGetDriverEntryPoint");
}

static void test_sched_bad_value(void **state)
{
	(void)state;
	struct nbw_backend *be = NULL;
	struct nbw_backend_opts o = { .cuda_sched = "fast" };
	char why[NBW_REASON_LEN] = "";
	assert_int_equal(ops->open(&be, &o, why, sizeof(why)), -EINVAL);
	assert_null(be);
	assert_non_null(strstr(why, "'fast'"));
	assert_int_equal(calllog_count("cudaGetDeviceCount"), 0);
}

/* ---- what `nodebw list` costs: open(), device_count(), device_info() --------------------- */

/* Calls that create a context or touch device memory: none of them may run to list devices. */
static const char *const context_calls[] = {
	"cudaSetDevice", "cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaStreamCreate",
	"cudaEventCreate", "cudaMemcpy", "cudaDeviceSynchronize", "cuStreamWaitValue32",
	"cuDevicePrimaryCtxSetFlags", "cuModuleLoadDataEx", "cuLaunchKernel",
};

static void test_list_is_cheap(void **state)
{
	struct fixture *f = *state;
	fake_cuda_ndev = 8;
	f->be = open_ok();
	assert_int_equal(ops->device_count(f->be), 8);
	for (int d = 0; d < 8; d++) {
		struct nbw_device dev;
		char name[64];
		assert_int_equal(ops->device_info(f->be, d, &dev), 0);
		snprintf(name, sizeof(name), "fake CUDA device %d", d);
		assert_string_equal(dev.name, name);
	}
	for (size_t i = 0; i < sizeof(context_calls) / sizeof(context_calls[0]); i++)
		if (calllog_count(context_calls[i]))
			fail_msg("listing 8 devices called %s: %s", context_calls[i], calllog_text());
	/* The first copy of a device is what makes its context. */
	prepare_htod(f, 0);
	assert_int_equal(calllog_count("cudaSetDevice(0)") > 0, 1);
	assert_int_equal(calllog_count("cudaSetDevice(7)"), 0);
}

/* ---- open(): no driver is a skip, an old driver an error --------------------------------- */

static void test_no_device(void **state)
{
	(void)state;
	struct nbw_backend *be = NULL;
	char why[NBW_REASON_LEN] = "";
	fake_cuda_count_rc = cudaErrorNoDevice;
	assert_int_equal(ops->open(&be, NULL, why, sizeof(why)), -ENODEV);
	assert_null(be);
	assert_non_null(strstr(why, "cudaGetDeviceCount: "));
}

/* cudaErrorInsufficientDriver: which one it is depends on the libcuda.so.1 this process can
 * load (none here; the fake one, CUDA 11.8, in the cuda-backend-old-driver test). */
static void test_insufficient_driver(void **state)
{
	(void)state;
	struct nbw_backend *be = NULL;
	char why[NBW_REASON_LEN] = "";
	const char *fake_version = getenv("FAKE_LIBCUDA_VERSION");
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	fake_cuda_count_rc = cudaErrorInsufficientDriver;
	int rc = ops->open(&be, NULL, why, sizeof(why));
	assert_null(be);
	if (!h) {
		if (fake_version)
			fail_msg("the fake libcuda.so.1 is not on the library path");
		assert_int_equal(rc, -ENODEV);
		assert_string_equal(why, "no CUDA driver: libcuda.so.1 not found");
		return;
	}
	int (*get)(int *) = NULL;
	int v = 0;
	*(void **)&get = dlsym(h, "cuDriverGetVersion");
	assert_non_null(get);
	assert_int_equal(get(&v), 0);
	dlclose(h);
	if (fake_version)
		assert_int_equal(v, atoi(fake_version));
	if (v < CUDART_VERSION) {
		char both[128];
		assert_int_equal(rc, -EPROTO);
		snprintf(both, sizeof(both), "CUDA driver %d.%d (cuDriverGetVersion %d) is older than "
			 "the CUDA runtime %d.%d (CUDART_VERSION %d)", v / 1000, v % 1000 / 10, v,
			 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, CUDART_VERSION);
		if (!strstr(why, both))
			fail_msg("why '%s' does not say '%s'", why, both);
		assert_non_null(strstr(why, "cudaErrorInsufficientDriver"));
	} else {
		assert_int_equal(rc, -EIO);
	}
}

/* ---- the kernel and chase modes ----------------------------------------------------------- */

static void alloc_buf(struct fixture *f, struct nbw_buf *b, enum nbw_loc loc, int dev, size_t n)
{
	*b = (struct nbw_buf){ .loc = loc, .device = dev, .bytes = n };
	assert_int_equal(ops->alloc(f->be, b), 0);
}

/* Prepares stream 0's transfer of the given kind on f->src[0] -> f->dst[0]. */
static int prepare_mode(struct fixture *f, enum nbw_dir dir, enum nbw_mode mode, size_t n,
			enum nbw_peer peer)
{
	f->x[0] = (struct nbw_xfer){ .dir = dir, .mode = mode, .src = &f->src[0],
				     .dst = &f->dst[0], .bytes = n, .peer = peer, .device_s = -1 };
	return ops->prepare(f->be, &f->x[0]);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131u + seed);
}

/* A kernel copy of n bytes moves exactly those bytes (and no more) and is timed by events. */
static void check_kernel_copy(struct fixture *f, size_t n)
{
	unsigned char want[N], got[N];
	fill(want, N, 7);
	memset(got, 0xee, sizeof(got));
	assert_int_equal(ops->write(f->be, &f->src[0], want, N), 0);
	assert_int_equal(ops->write(f->be, &f->dst[0], got, N), 0);
	assert_int_equal(ops->transfer(f->be, &f->x[0]), 0);
	assert_true(f->x[0].device_s > 0);
	assert_int_equal(ops->read(f->be, got, &f->dst[0], N), 0);
	assert_memory_equal(got, want, n);
	for (size_t i = n; i < N; i++)
		assert_int_equal(got[i], 0xee);
}

/* HtoD and DtoH kernels over pinned and registered memory: the GPU end's kernel, on mapped
 * host addresses, 16-byte words with the byte tail; the module is loaded once per device. */
static void test_kernel_host(void **state)
{
	struct fixture *f = *state;
	static const enum nbw_loc locs[] = { NBW_LOC_HOST_PINNED, NBW_LOC_HOST_REGISTERED };
	f->be = open_ok();
	for (int l = 0; l < 2; l++) {
		for (int d = 0; d < 2; d++) {
			enum nbw_dir dir = d == 0 ? NBW_HTOD : NBW_DTOH;
			alloc_buf(f, &f->src[0], d == 0 ? locs[l] : NBW_LOC_DEVICE, 1, N);
			alloc_buf(f, &f->dst[0], d == 0 ? NBW_LOC_DEVICE : locs[l], 1, N);
			calllog_reset();
			assert_int_equal(prepare_mode(f, dir, NBW_MODE_KERNEL, N - 5, NBW_PEER_NA), 0);
			assert_int_equal(calllog_count("cudaHostGetDevicePointer"), 1);
			check_kernel_copy(f, N - 5);
			assert_int_equal(calllog_count("cuLaunchKernel(nbw_copy16, dev 1"), 1);
			ops->unprepare(f->be, &f->x[0]);
			ops->free(f->be, &f->src[0]);
			ops->free(f->be, &f->dst[0]);
		}
	}
	/* Loaded at the first kernel transfer of device 1, kept for the others; none on 0. */
	assert_int_equal(calllog_count("cuModuleLoadDataEx"), 0);
	alloc_buf(f, &f->src[0], NBW_LOC_HOST_PINNED, 0, N);
	alloc_buf(f, &f->dst[0], NBW_LOC_DEVICE, 0, N);
	assert_int_equal(prepare_mode(f, NBW_HTOD, NBW_MODE_KERNEL, N, NBW_PEER_NA), 0);
	assert_int_equal(calllog_count("cuModuleLoadDataEx(dev 0)"), 1);
}

/* Buffers not 16-byte aligned take the byte kernel. */
static void test_kernel_unaligned(void **state)
{
	struct fixture *f = *state;
	f->be = open_ok();
	alloc_buf(f, &f->src[1], NBW_LOC_HOST_PINNED, 0, N + 16);
	alloc_buf(f, &f->dst[0], NBW_LOC_DEVICE, 0, N);
	f->src[0] = f->src[1];
	f->src[0].ptr = (char *)f->src[1].ptr + 3;
	f->src[0].bytes = N;
	f->src[0].loc = NBW_LOC_HOST_PAGEABLE; /* plain memcpy for write(); not freed */
	unsigned char want[N], got[N];
	fill(want, N, 3);
	memcpy(f->src[0].ptr, want, N);
	f->src[0].loc = NBW_LOC_HOST_PINNED;
	assert_int_equal(prepare_mode(f, NBW_HTOD, NBW_MODE_KERNEL, N, NBW_PEER_NA), 0);
	assert_int_equal(ops->transfer(f->be, &f->x[0]), 0);
	assert_int_equal(calllog_count("cuLaunchKernel(nbw_copy1, dev 0"), 1);
	assert_int_equal(ops->read(f->be, got, &f->dst[0], N), 0);
	assert_memory_equal(got, want, N);
	f->src[0] = (struct nbw_buf){ 0 };
}

/* P2P: the kernel runs on the destination GPU and loads the source's memory, which needs
 * the destination's access to the source: enabled for the copy where the core (which enables
 * source to destination) had not, and disabled again at unprepare(); none with peer access
 * off, where the copy is refused with the reason. */
static void test_kernel_p2p(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "";
	f->be = open_ok();
	alloc_buf(f, &f->src[0], NBW_LOC_DEVICE, 0, N);
	alloc_buf(f, &f->dst[0], NBW_LOC_DEVICE, 1, N);
	assert_int_equal(ops->peer_access(f->be, 0, 1, true, why, sizeof(why)), 0);
	assert_int_equal(prepare_mode(f, NBW_P2P, NBW_MODE_KERNEL, N, NBW_PEER_ON), 0);
	assert_true(fake_cuda_peer_on(1, 0));
	check_kernel_copy(f, N);
	assert_int_equal(calllog_count("cuLaunchKernel(nbw_copy16, dev 1"), 1);
	ops->unprepare(f->be, &f->x[0]);
	assert_false(fake_cuda_peer_on(1, 0));
	assert_true(fake_cuda_peer_on(0, 1));
	/* Access someone else enabled stays as it was. */
	assert_int_equal(ops->peer_access(f->be, 1, 0, true, why, sizeof(why)), 0);
	assert_int_equal(prepare_mode(f, NBW_P2P, NBW_MODE_KERNEL, N, NBW_PEER_ON), 0);
	ops->unprepare(f->be, &f->x[0]);
	assert_true(fake_cuda_peer_on(1, 0));
	/* Peer access off: refused with the reason, nothing launched. */
	calllog_reset();
	assert_int_equal(prepare_mode(f, NBW_P2P, NBW_MODE_KERNEL, N, NBW_PEER_OFF), -EINVAL);
	assert_null(f->x[0].priv);
	if (!strstr(ops->last_error(f->be), "only through peer access, which is off"))
		fail_msg("last_error: %s", ops->last_error(f->be));
	assert_int_equal(calllog_count("cuLaunchKernel"), 0);
}

/* A chain of nelem uint64_t indices, one cycle (i -> i + 17 mod nelem), and its walk. */
static uint64_t make_chain(uint64_t *chain, uint64_t nelem, uint64_t loads)
{
	uint64_t i = 0;
	for (uint64_t k = 0; k < nelem; k++)
		chain[k] = (k + 17) % nelem;
	for (uint64_t k = 0; k < loads; k++)
		i = chain[i];
	return i;
}

static void check_chase(struct fixture *f, int loaddev)
{
	uint64_t chain[N / 8], got = 0, want = make_chain(chain, N / 8, 1000);
	char launch[96];
	assert_int_equal(ops->write(f->be, &f->src[0], chain, N), 0);
	f->x[0].chase_loads = 1000;
	calllog_reset();
	assert_int_equal(ops->transfer(f->be, &f->x[0]), 0);
	assert_true(f->x[0].device_s > 0);
	snprintf(launch, sizeof(launch),
		 "cuLaunchKernel(nbw_chase, dev %d, grid 1x1x1, block 1x1x1)", loaddev);
	assert_int_equal(calllog_count(launch), 1);
	assert_int_equal(ops->read(f->be, &got, &f->dst[0], sizeof(got)), 0);
	assert_int_equal(got, want);
}

/* The chase: one thread of the destination GPU through mapped pinned host memory (HtoD)
 * and through the source GPU's memory (P2P, peer access on); the final index at dst. */
static void test_chase(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "";
	f->be = open_ok();
	alloc_buf(f, &f->src[0], NBW_LOC_HOST_PINNED, 1, N);
	alloc_buf(f, &f->dst[0], NBW_LOC_DEVICE, 1, N);
	assert_int_equal(prepare_mode(f, NBW_HTOD, NBW_MODE_CHASE, N, NBW_PEER_NA), 0);
	check_chase(f, 1);
	ops->unprepare(f->be, &f->x[0]);
	ops->free(f->be, &f->src[0]);
	ops->free(f->be, &f->dst[0]);
	alloc_buf(f, &f->src[0], NBW_LOC_DEVICE, 1, N);
	alloc_buf(f, &f->dst[0], NBW_LOC_DEVICE, 0, N);
	assert_int_equal(ops->peer_access(f->be, 1, 0, true, why, sizeof(why)), 0);
	assert_int_equal(prepare_mode(f, NBW_P2P, NBW_MODE_CHASE, N, NBW_PEER_ON), 0);
	check_chase(f, 0);
}

/* What cannot be done is refused up front, with the reason. */
static void test_kernel_refusals(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "";
	f->be = open_ok();
	assert_int_equal(ops->supports(f->be, NBW_HTOD, NBW_MODE_KERNEL, NBW_HOSTMEM_PAGEABLE,
				       why, sizeof(why)), -1);
	assert_non_null(strstr(why, "pageable host memory without HMM"));
	assert_int_equal(ops->supports(f->be, NBW_HTOD, NBW_MODE_CHASE, NBW_HOSTMEM_PAGEABLE,
				       why, sizeof(why)), -1);
	assert_int_equal(ops->supports(f->be, NBW_DTOH, NBW_MODE_CHASE, NBW_HOSTMEM_PINNED, why,
				       sizeof(why)), -1);
	assert_non_null(strstr(why, "DtoH chase"));
	assert_null(ops->interface(NBW_DTOH, NBW_MODE_CHASE, why, sizeof(why)));
	for (int m = NBW_HOSTMEM_PINNED; m <= NBW_HOSTMEM_REGISTERED; m++) {
		assert_int_equal(ops->supports(f->be, NBW_HTOD, NBW_MODE_KERNEL, m, why,
					       sizeof(why)), 0);
		assert_int_equal(ops->supports(f->be, NBW_DTOH, NBW_MODE_KERNEL, m, why,
					       sizeof(why)), 0);
		assert_int_equal(ops->supports(f->be, NBW_HTOD, NBW_MODE_CHASE, m, why,
					       sizeof(why)), 0);
	}
	assert_int_equal(ops->supports(f->be, NBW_P2P, NBW_MODE_CHASE, NBW_HOSTMEM_NONE, why,
				       sizeof(why)), 0);
	assert_non_null(strstr(ops->interface(NBW_HTOD, NBW_MODE_KERNEL, why, sizeof(why)),
			       "copy kernel (embedded PTX, cuLaunchKernel)"));
	ops->close(f->be);
	/* A driver without cuLaunchKernel: no kernel mode, and the reason names it. */
	fake_cuda_missing_entry = "cuLaunchKernel";
	f->be = open_ok();
	assert_int_equal(ops->supports(f->be, NBW_P2P, NBW_MODE_KERNEL, NBW_HOSTMEM_NONE, why,
				       sizeof(why)), -1);
	assert_non_null(strstr(why, "cuLaunchKernel"));
}

/* The JIT refuses the PTX: prepare() fails with the driver's words and the JIT log, outside
 * the timed region, and the next prepare() on that device says the same without reloading. */
static void test_module_load_fails(void **state)
{
	struct fixture *f = *state;
	fake_cuda_module_rc = CUDA_ERROR_INVALID_PTX;
	f->be = open_ok();
	alloc_buf(f, &f->src[0], NBW_LOC_HOST_PINNED, 0, N);
	alloc_buf(f, &f->dst[0], NBW_LOC_DEVICE, 0, N);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(prepare_mode(f, NBW_HTOD, NBW_MODE_KERNEL, N, NBW_PEER_NA), -EIO);
		assert_null(f->x[0].priv);
		const char *e = ops->last_error(f->be);
		if (!strstr(e, "cuModuleLoadDataEx on CUDA device 0: CUDA_ERROR_INVALID_PTX (218): "
			       "a PTX JIT compilation failed; JIT log: ptxas fatal"))
			fail_msg("last_error: %s", e);
	}
	assert_int_equal(calllog_count("cuModuleLoadDataEx"), 1);
	assert_int_equal(calllog_count("cuLaunchKernel"), 0);
	/* The copy-engine modes are untouched. */
	assert_int_equal(prepare_mode(f, NBW_HTOD, NBW_MODE_SYNC, N, NBW_PEER_NA), 0);
	assert_int_equal(ops->transfer(f->be, &f->x[0]), 0);
}

/* One face copy with the 3-D copy: the destination box holds the source's face in its halo
 * and nothing else changed; the call the backend made is the expected 3-D form. */
static void face_copy(struct fixture *f, enum nbw_dir dir, enum nbw_mode mode, enum nbw_face face,
		      const char *call)
{
	struct nbw_face_shape sh;
	char err[256];
	assert_int_equal(nbw_face_shape_parse("12x10x9:2:4", &sh, err, sizeof(err)), 0);
	size_t box = (size_t)nbw_face_box_bytes(&sh);
	struct nbw_region r;
	nbw_face_region(&sh, face, true, NBW_FACE_RECT, &r);
	alloc_buf(f, &f->src[0], dir == NBW_HTOD ? NBW_LOC_HOST_PINNED : NBW_LOC_DEVICE, 0, box);
	alloc_buf(f, &f->dst[0], dir == NBW_DTOH ? NBW_LOC_HOST_PINNED : NBW_LOC_DEVICE,
		  dir == NBW_P2P ? 1 : 0, box);
	unsigned char *want = malloc(box), *got = malloc(box);
	assert_non_null(want);
	assert_non_null(got);
	fill(want, box, 7);
	memset(got, 0xA5, box);
	memcpy(f->src[0].ptr, want, box); /* the fake's device memory is host memory */
	memcpy(f->dst[0].ptr, got, box);
	assert_int_equal(prepare_mode(f, dir, mode, (size_t)nbw_region_bytes(&r), NBW_PEER_NA), 0);
	f->x[0].region = &r;
	calllog_reset();
	assert_int_equal(ops->copy_rect(f->be, &f->x[0]), 0);
	if (calllog_count(call) != 1)
		fail_msg("expected %s once: %s", call, calllog_text());
	char where[32];
	assert_int_equal(nbw_region_check(want, f->dst[0].ptr, &r, 0xA5, where, sizeof(where)), box);
	if (mode == NBW_MODE_ASYNC)
		assert_true(f->x[0].device_s >= 0.0);
	ops->unprepare(f->be, &f->x[0]);
	ops->free(f->be, &f->src[0]);
	ops->free(f->be, &f->dst[0]);
	free(want);
	free(got);
}

static void test_face_rect(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "";
	f->be = open_ok();
	/* Every face, every direction, both modes: the runtime's 3-D calls. */
	for (int face = 0; face < NBW_FACE_COUNT; face++) {
		face_copy(f, NBW_HTOD, NBW_MODE_SYNC, (enum nbw_face)face, "cudaMemcpy3D(kind 1");
		face_copy(f, NBW_DTOH, NBW_MODE_ASYNC, (enum nbw_face)face,
			  "cudaMemcpy3DAsync(kind 2");
		face_copy(f, NBW_P2P, NBW_MODE_SYNC, (enum nbw_face)face, "cudaMemcpy3DPeer(0,1)");
		face_copy(f, NBW_P2P, NBW_MODE_ASYNC, (enum nbw_face)face,
			  "cudaMemcpy3DPeerAsync(0,1)");
	}
	/* The interfaces name those calls. */
	assert_non_null(strstr(ops->face_interface(f->be, NBW_P2P, NBW_FACE_RECT, NBW_MODE_ASYNC,
						   why, sizeof(why)),
			       "cudaMemcpy3DPeerAsync"));
	assert_null(ops->face_interface(f->be, NBW_HTOD, NBW_FACE_RECT, NBW_MODE_KERNEL, why,
					sizeof(why)));
	memset(&f->src[0], 0, sizeof(f->src[0]));
	memset(&f->dst[0], 0, sizeof(f->dst[0]));
}

/* A side of the pack method as the executor does it (probe/exec_face.c): the backend's kernel
 * for a device box, the host loop for a host box. */
static void pack_side(struct fixture *f, struct nbw_buf *box, const struct nbw_region *r,
		      const size_t at[3], struct nbw_buf *lin, bool unpack)
{
	if (box->loc == NBW_LOC_DEVICE)
		assert_int_equal(ops->pack(f->be, box, r, at, lin, unpack), 0);
	else
		nbw_region_pack_host(box->ptr, r, at, lin->ptr, unpack);
}

/* One face copy by the pack method: the kernels are loaded by prepare(), gather the face into
 * a contiguous buffer on the source side, the contiguous copy moves it and the scatter lands
 * it in the destination's halo; every other byte of the destination box is still the poison. */
static void face_pack(struct fixture *f, const char *shape, enum nbw_dir dir, enum nbw_mode mode,
		      enum nbw_face face, bool up)
{
	struct nbw_face_shape sh;
	char err[256];
	assert_int_equal(nbw_face_shape_parse(shape, &sh, err, sizeof(err)), 0);
	size_t box = (size_t)nbw_face_box_bytes(&sh);
	struct nbw_region r;
	nbw_face_region(&sh, face, up, NBW_FACE_PACK, &r);
	size_t fb = (size_t)nbw_region_bytes(&r);
	enum nbw_loc sl = dir == NBW_HTOD ? NBW_LOC_HOST_PINNED : NBW_LOC_DEVICE;
	enum nbw_loc dl = dir == NBW_DTOH ? NBW_LOC_HOST_PINNED : NBW_LOC_DEVICE;
	int dd = dir == NBW_P2P ? 1 : 0;
	alloc_buf(f, &f->src[0], sl, 0, box);
	alloc_buf(f, &f->dst[0], dl, dd, box);
	alloc_buf(f, &f->src[1], sl, 0, fb);
	alloc_buf(f, &f->dst[1], dl, dd, fb);
	unsigned char *want = malloc(box);
	assert_non_null(want);
	fill(want, box, 11);
	memcpy(f->src[0].ptr, want, box); /* the fake's device memory is host memory */
	memset(f->dst[0].ptr, 0xA5, box);
	calllog_reset();
	f->x[0] = (struct nbw_xfer){ .dir = dir, .mode = mode, .src = &f->src[0],
				     .dst = &f->dst[0], .bytes = fb, .peer = NBW_PEER_NA,
				     .device_s = -1, .region = &r };
	assert_int_equal(ops->prepare(f->be, &f->x[0]), 0);
	f->x[1] = (struct nbw_xfer){ .dir = dir, .mode = mode, .src = &f->src[1],
				     .dst = &f->dst[1], .bytes = fb, .peer = NBW_PEER_NA,
				     .device_s = -1 };
	assert_int_equal(ops->prepare(f->be, &f->x[1]), 0);
	/* prepare() loaded the kernels (the JIT stays out of the timed part) and ran none. */
	assert_int_equal(calllog_count("cuLaunchKernel"), 0);
	calllog_reset();
	pack_side(f, &f->src[0], &r, r.src_at, &f->src[1], false);
	assert_int_equal(ops->transfer(f->be, &f->x[1]), 0);
	pack_side(f, &f->dst[0], &r, r.dst_at, &f->dst[1], true);
	char where[32];
	size_t bad = nbw_region_check(want, f->dst[0].ptr, &r, 0xA5, where, sizeof(where));
	if (bad != box)
		fail_msg("%s direction %d face %d: destination wrong %s at byte %zu", shape,
			 (int)dir, face, where, bad);
	int packs = calllog_count("cuLaunchKernel(nbw_pack"),
	    unpacks = calllog_count("cuLaunchKernel(nbw_unpack");
	assert_int_equal(packs, sl == NBW_LOC_DEVICE ? 1 : 0);
	assert_int_equal(unpacks, dl == NBW_LOC_DEVICE ? 1 : 0);
	assert_int_equal(calllog_count("cuModuleLoadDataEx"), 0);
	ops->unprepare(f->be, &f->x[0]);
	ops->unprepare(f->be, &f->x[1]);
	for (int i = 0; i < 2; i++) {
		ops->free(f->be, &f->src[i]);
		ops->free(f->be, &f->dst[i]);
		memset(&f->src[i], 0, sizeof(f->src[i]));
		memset(&f->dst[i], 0, sizeof(f->dst[i]));
	}
	free(want);
}

/* The pack method through the backend's kernels: every face, both senses, every direction
 * and both modes, elements of 1 to 16 bytes (bytes, 4-, 8- and 16-byte words). */
static void test_face_pack(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "";
	f->be = open_ok();
	static const char *const shapes[] = { "12x10x9:2:4", "12x10x9:2:8", "7x6x5:1:16",
					      "9x8x7:2:3", "10x9x8:3:1", "6x5x4:1:2", "6x5x4:2:24" };
	static const enum nbw_dir dirs[] = { NBW_HTOD, NBW_DTOH, NBW_P2P };
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		for (int face = 0; face < NBW_FACE_COUNT; face++)
			for (int d = 0; d < 3; d++) {
				face_pack(f, shapes[k], dirs[d], NBW_MODE_SYNC,
					  (enum nbw_face)face, true);
				face_pack(f, shapes[k], dirs[d], NBW_MODE_ASYNC,
					  (enum nbw_face)face, false);
			}
	/* The interface names the kernels and the copy between them. */
	const char *i = ops->face_interface(f->be, NBW_P2P, NBW_FACE_PACK, NBW_MODE_ASYNC, why,
					    sizeof(why));
	assert_non_null(i);
	assert_non_null(strstr(i, "pack kernel (nbw_pack) -> cudaMemcpyPeerAsync"));
	assert_non_null(strstr(i, "unpack kernel (nbw_unpack)"));
	i = ops->face_interface(f->be, NBW_HTOD, NBW_FACE_PACK, NBW_MODE_SYNC, why, sizeof(why));
	assert_non_null(strstr(i, "host pack loop -> cudaMemcpy HostToDevice -> unpack kernel"));
	assert_null(ops->face_interface(f->be, NBW_P2P, NBW_FACE_PACK, NBW_MODE_KERNEL, why,
					sizeof(why)));
	/* A pack between two devices' buffers is refused. */
	struct nbw_face_shape sh;
	struct nbw_region r;
	char err[256];
	assert_int_equal(nbw_face_shape_parse("6x5x4:1:8", &sh, err, sizeof(err)), 0);
	nbw_face_region(&sh, NBW_FACE_X, true, NBW_FACE_PACK, &r);
	alloc_buf(f, &f->src[0], NBW_LOC_DEVICE, 0, (size_t)nbw_face_box_bytes(&sh));
	alloc_buf(f, &f->dst[0], NBW_LOC_DEVICE, 1, (size_t)nbw_region_bytes(&r));
	assert_int_equal(ops->pack(f->be, &f->src[0], &r, r.src_at, &f->dst[0], false), -EINVAL);
	assert_non_null(strstr(ops->last_error(f->be), "buffers of one device"));
}

/* The word the kernels move: the largest of 16, 8 and 4 bytes dividing the element with
 * both addresses aligned to it, else bytes. */
static void test_pack_shift(void **state)
{
	(void)state;
	_Alignas(16) static char buf[64];
	assert_int_equal(nbw_pack_shift(16, buf, buf + 32), 4);
	assert_int_equal(nbw_pack_shift(32, buf, buf + 16), 4);
	assert_int_equal(nbw_pack_shift(16, buf, buf + 8), 3);
	assert_int_equal(nbw_pack_shift(8, buf, buf + 16), 3);
	assert_int_equal(nbw_pack_shift(24, buf, buf + 16), 3);
	assert_int_equal(nbw_pack_shift(12, buf, buf + 16), 2);
	assert_int_equal(nbw_pack_shift(8, buf + 4, buf), 2);
	assert_int_equal(nbw_pack_shift(4, buf, buf), 2);
	assert_int_equal(nbw_pack_shift(2, buf, buf), 0);
	assert_int_equal(nbw_pack_shift(3, buf, buf), 0);
	assert_int_equal(nbw_pack_shift(4, buf + 1, buf), 0);
	assert_int_equal(nbw_pack_shift(1, buf, buf), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_face_rect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_face_pack, setup, teardown),
		cmocka_unit_test(test_pack_shift),
		cmocka_unit_test_setup_teardown(test_hugepage_registered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hugepage_register_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_wait_works, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_wait_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sched_as_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sched_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sched_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sched_auto, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sched_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sched_not_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sched_no_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sched_bad_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_is_cheap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insufficient_driver, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_unaligned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_p2p, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_module_load_fails, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
