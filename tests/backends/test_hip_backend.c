/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of bw_native/hip_backend.c on the fake HIP runtime (fake_hip.c).
 * - Which copies may start on the gate. A copy that the runtime stages on the host (pageable
 *   memory, a peer copy without peer access) could block in submit() before release(), so
 *   prepare() must decline the gate for it, as the CUDA backend does, and submit() must
 *   refuse it.
 * - A blocking device-to-device copy is complete when transfer() returns (the fake, like a
 *   GPU, returns from hipMemcpyPeer before the copy is done).
 * - open(): no device is a skip (-ENODEV), any other hipGetDeviceCount error an error.
 * - Listing devices (open, device_count, device_info) selects no device and allocates
 *   nothing; the gate is made at the first async prepare(), once.
 * - Kernel and chase modes: compiled once per gcnArchName by hipRTC, loaded on the GPU that
 *   loads (HtoD and P2P the destination, DtoH the source), host memory through its device
 *   address; the bytes arrive and the chase's final index is the chain's; pageable memory,
 *   a P2P without peer access, a DtoH chase and a failing hipRTC are refused with the
 *   reason. */
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
#include "fake_hip.h"
#include "nodebw/face.h"
#include "nodebw/hugepage.h"
#include "nodebw/probe.h"

extern const struct nbw_backend_ops nbw_backend_hip;
static const struct nbw_backend_ops *ops = &nbw_backend_hip;

struct fixture {
	struct nbw_backend *be;
	struct nbw_buf a, b;
	struct nbw_xfer x;
};

static int setup(void **state)
{
	static struct fixture f;
	char why[NBW_REASON_LEN] = "";
	memset(&f, 0, sizeof(f));
	fake_hip_ndev = 2;
	fake_hip_live = 0;
	fake_hip_count_rc = hipSuccess;
	calllog_reset();
	if (ops->open(&f.be, NULL, why, sizeof(why)) != 0)
		fail_msg("open: %s", why);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ops->free(f->be, &f->a);
	ops->free(f->be, &f->b);
	ops->close(f->be);
	assert_int_equal(fake_hip_live, 0);
	return 0;
}

/* An async transfer of 4 KiB from buffer a to buffer b, prepared. */
static void prepare(struct fixture *f, enum nbw_dir dir, enum nbw_loc la, int da, enum nbw_loc lb,
		    int db, enum nbw_peer peer)
{
	f->a = (struct nbw_buf){ .loc = la, .device = da, .bytes = 4096 };
	f->b = (struct nbw_buf){ .loc = lb, .device = db, .bytes = 4096 };
	assert_int_equal(ops->alloc(f->be, &f->a), 0);
	assert_int_equal(ops->alloc(f->be, &f->b), 0);
	f->x = (struct nbw_xfer){ .dir = dir, .mode = NBW_MODE_ASYNC, .src = &f->a, .dst = &f->b,
				  .bytes = 4096, .peer = peer, .device_s = -1 };
	assert_int_equal(ops->prepare(f->be, &f->x), 0);
}

/* The gate is declined up front, and submit() refuses without queueing a wait. */
static void expect_no_gate(struct fixture *f, const char *reason_has)
{
	assert_non_null(f->x.no_gate);
	if (!strstr(f->x.no_gate, reason_has))
		fail_msg("no_gate '%s' does not say '%s'", f->x.no_gate, reason_has);
	calllog_reset();
	assert_int_not_equal(ops->submit(f->be, &f->x), 0);
	assert_int_equal(calllog_count("hipStreamWaitValue32"), 0);
	assert_int_equal(calllog_count("hipMemcpy"), 0);
	ops->unprepare(f->be, &f->x);
}

/* The gate is taken: the wait is queued ahead of the copy, release() opens it. */
static void expect_gate(struct fixture *f, const char *copy_call)
{
	assert_null(f->x.no_gate);
	calllog_reset();
	assert_int_equal(ops->submit(f->be, &f->x), 0);
	assert_true(calllog_before("hipStreamWaitValue32", copy_call));
	assert_int_equal(ops->release(f->be), 0);
	assert_int_equal(ops->complete(f->be, &f->x), 0);
	assert_true(f->x.device_s >= 0);
	ops->unprepare(f->be, &f->x);
}

/* Huge-page host memory is registered as the registered kind is, the whole mapping, and
 * takes the gate as page-locked memory does; a refused registration gives the mapping back. */
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
	fake_hip_register_rc = hipSuccess;
	fake_hip_registered_bytes = 0;
	assert_int_equal(ops->supports(f->be, NBW_HTOD, NBW_MODE_ASYNC, NBW_HOSTMEM_HUGEPAGE, why,
				       sizeof(why)), 0);
	assert_non_null(strstr(ops->hostmem_note(f->be, NBW_HOSTMEM_HUGEPAGE, 0),
			       "hipHostRegister"));
	prepare(f, NBW_HTOD, NBW_LOC_HOST_HUGEPAGE, 0, NBW_LOC_DEVICE, 0, NBW_PEER_NA);
	assert_int_equal(fake_hip_registered_bytes, nbw_hugepage_span(4096));
	expect_gate(f, "hipMemcpy");
	ops->free(f->be, &f->a);
	assert_int_equal(fake_hip_registered_bytes, 0);
	struct nbw_buf h = { .loc = NBW_LOC_HOST_HUGEPAGE, .device = 0, .bytes = 4096 };
	fake_hip_register_rc = hipErrorOutOfMemory;
	assert_int_equal(ops->alloc(f->be, &h), -ENOMEM);
	assert_null(h.ptr);
	assert_non_null(strstr(ops->last_error(f->be), "hipHostRegister"));
	fake_hip_register_rc = hipSuccess;
}

static void test_p2p_peer_disabled(void **state)
{
	struct fixture *f = *state;
	/* The pair could reach each other (the fake says so), but the series runs with peer
	 * access disabled: the runtime stages the copy, so no gate. */
	prepare(f, NBW_P2P, NBW_LOC_DEVICE, 0, NBW_LOC_DEVICE, 1, NBW_PEER_OFF);
	expect_no_gate(f, "without peer access");
}

static void test_p2p_peer_not_set(void **state)
{
	struct fixture *f = *state;
	prepare(f, NBW_P2P, NBW_LOC_DEVICE, 1, NBW_LOC_DEVICE, 0, NBW_PEER_NA);
	expect_no_gate(f, "without peer access");
}

static void test_p2p_peer_enabled(void **state)
{
	struct fixture *f = *state;
	prepare(f, NBW_P2P, NBW_LOC_DEVICE, 0, NBW_LOC_DEVICE, 1, NBW_PEER_ON);
	expect_gate(f, "hipMemcpyPeerAsync(0,1)");
}

static void test_p2p_same_device(void **state)
{
	struct fixture *f = *state;
	prepare(f, NBW_P2P, NBW_LOC_DEVICE, 1, NBW_LOC_DEVICE, 1, NBW_PEER_NA);
	expect_gate(f, "hipMemcpyAsync");
}

static void test_htod_pageable(void **state)
{
	struct fixture *f = *state;
	prepare(f, NBW_HTOD, NBW_LOC_HOST_PAGEABLE, -1, NBW_LOC_DEVICE, 0, NBW_PEER_NA);
	expect_no_gate(f, "pageable");
}

static void test_dtoh_pinned(void **state)
{
	struct fixture *f = *state;
	prepare(f, NBW_DTOH, NBW_LOC_DEVICE, 1, NBW_LOC_HOST_PINNED, 1, NBW_PEER_NA);
	expect_gate(f, "hipMemcpyAsync");
}

/* ---- sync device-to-device copies end when the copy is done ------------------------------ */

/* A blocking copy of 4 KiB from device a to device b: pattern in, destination zeroed. */
static void sync_copy(struct fixture *f, int da, int db, enum nbw_peer peer)
{
	unsigned char pattern[4096], back[4096];
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (unsigned char)(i * 7 + 1);
	memset(back, 0, sizeof(back));
	ops->free(f->be, &f->a); /* a second copy in one test: the first one's buffers go */
	ops->free(f->be, &f->b);
	f->a = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = da, .bytes = 4096 };
	f->b = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = db, .bytes = 4096 };
	assert_int_equal(ops->alloc(f->be, &f->a), 0);
	assert_int_equal(ops->alloc(f->be, &f->b), 0);
	assert_int_equal(ops->write(f->be, &f->a, pattern, sizeof(pattern)), 0);
	assert_int_equal(ops->write(f->be, &f->b, back, sizeof(back)), 0);
	f->x = (struct nbw_xfer){ .dir = NBW_P2P, .mode = NBW_MODE_SYNC, .src = &f->a,
				  .dst = &f->b, .bytes = 4096, .peer = peer, .device_s = -1 };
	assert_int_equal(ops->prepare(f->be, &f->x), 0);
	calllog_reset();
	assert_int_equal(ops->transfer(f->be, &f->x), 0);
	/* Complete on return: nothing still queued, the bytes are there (the device memory of
	 * the fake is host memory, so no read-back call can wait for the copy here). */
	assert_int_equal(fake_hip_pending(), 0);
	assert_memory_equal(f->b.ptr, pattern, sizeof(pattern));
	ops->unprepare(f->be, &f->x);
}

static void test_sync_peer_copy_completes(void **state)
{
	struct fixture *f = *state;
	sync_copy(f, 0, 1, NBW_PEER_ON);
	assert_true(calllog_before("hipMemcpyPeer(0,1, dev 0)", "hipDeviceSynchronize(dev 0)"));
	sync_copy(f, 1, 0, NBW_PEER_OFF);
	assert_true(calllog_before("hipMemcpyPeer(1,0, dev 1)", "hipDeviceSynchronize(dev 1)"));
}

static void test_sync_same_device_copy_completes(void **state)
{
	struct fixture *f = *state;
	sync_copy(f, 1, 1, NBW_PEER_NA);
	assert_true(calllog_before("hipMemcpy(DeviceToDevice, dev 1)",
				   "hipDeviceSynchronize(dev 1)"));
	char why[NBW_REASON_LEN];
	const char *iface = ops->interface(NBW_P2P, NBW_MODE_SYNC, why, sizeof(why));
	assert_non_null(iface);
	assert_non_null(strstr(iface, "hipDeviceSynchronize"));
}

/* ---- open(): no device is a skip, a failing runtime an error ----------------------------- */

static void expect_open(int want_rc, const char *why_has)
{
	struct nbw_backend *be = NULL;
	char why[NBW_REASON_LEN] = "";
	calllog_reset();
	assert_int_equal(ops->open(&be, NULL, why, sizeof(why)), want_rc);
	assert_null(be);
	if (!strstr(why, why_has))
		fail_msg("why '%s' does not say '%s'", why, why_has);
}

static void test_open_no_device(void **state)
{
	(void)state;
	fake_hip_ndev = 0;
	fake_hip_count_rc = hipSuccess;
	expect_open(-ENODEV, "hipGetDeviceCount: hipErrorNoDevice (100)");
}

static void test_open_runtime_error(void **state)
{
	(void)state;
	fake_hip_ndev = 2;
	fake_hip_count_rc = hipErrorInitializationError;
	expect_open(-EIO, "hipGetDeviceCount: hipErrorInitializationError (3): initialization "
			  "error");
	fake_hip_count_rc = hipErrorInsufficientDriver;
	expect_open(-EIO, "hipGetDeviceCount: hipErrorInsufficientDriver (35)");
	fake_hip_count_rc = hipSuccess;
}

/* ---- what `nodebw list` costs: open(), device_count(), device_info() --------------------- */

/* Calls that select a device, allocate or copy: none may run to list devices. (A test kernel
 * cannot be launched at all: the fake has no launch call to link against.) */
static const char *const device_calls[] = {
	"hipSetDevice", "hipMalloc", "hipHostMalloc", "hipStreamCreate", "hipEventCreate",
	"hipMemcpy", "hipStreamWaitValue32", "hipDeviceSynchronize",
};

static void test_list_is_cheap(void **state)
{
	(void)state;
	struct nbw_backend *be = NULL;
	char why[NBW_REASON_LEN] = "";
	fake_hip_ndev = 8;
	fake_hip_count_rc = hipSuccess;
	calllog_reset();
	assert_int_equal(ops->open(&be, NULL, why, sizeof(why)), 0);
	assert_int_equal(ops->device_count(be), 8);
	for (int d = 0; d < 8; d++) {
		struct nbw_device dev;
		char name[64];
		assert_int_equal(ops->device_info(be, d, &dev), 0);
		snprintf(name, sizeof(name), "fake HIP device %d", d);
		assert_non_null(strstr(dev.name, name));
	}
	for (size_t i = 0; i < sizeof(device_calls) / sizeof(device_calls[0]); i++)
		if (calllog_count(device_calls[i]))
			fail_msg("listing 8 devices called %s: %s", device_calls[i], calllog_text());
	ops->close(be);
	assert_int_equal(calllog_count("hipHostMalloc"), 0);
}

/* The gate's flag comes with the first async prepare(), and only once. */
static void test_gate_made_on_first_use(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(calllog_count("hipHostMalloc"), 0); /* not by open() */
	f->a = (struct nbw_buf){ .loc = NBW_LOC_HOST_PINNED, .device = 0, .bytes = 4096 };
	f->b = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = 0, .bytes = 4096 };
	assert_int_equal(ops->alloc(f->be, &f->a), 0);
	assert_int_equal(ops->alloc(f->be, &f->b), 0);
	calllog_reset();
	for (int i = 0; i < 2; i++) {
		f->x = (struct nbw_xfer){ .dir = NBW_HTOD, .mode = NBW_MODE_ASYNC, .src = &f->a,
					  .dst = &f->b, .bytes = 4096, .device_s = -1 };
		assert_int_equal(ops->prepare(f->be, &f->x), 0);
		assert_null(f->x.no_gate);
		ops->unprepare(f->be, &f->x);
	}
	assert_int_equal(calllog_count("hipHostMalloc"), 1);
}

/* ---- kernel and chase modes ------------------------------------------------------------ */

/* A kernel-mode transfer of \p n bytes from (la, da) to (lb, db), \p src's bytes written
 * first: prepared, run and unprepared; returns prepare()'s status (the rest only on 0). */
static int kernel_run(struct fixture *f, enum nbw_mode mode, enum nbw_dir dir, enum nbw_loc la,
		      int da, enum nbw_loc lb, int db, enum nbw_peer peer, const void *src,
		      size_t n, uint64_t loads)
{
	f->a = (struct nbw_buf){ .loc = la, .device = da, .bytes = n };
	f->b = (struct nbw_buf){ .loc = lb, .device = db, .bytes = n };
	assert_int_equal(ops->alloc(f->be, &f->a), 0);
	assert_int_equal(ops->alloc(f->be, &f->b), 0);
	assert_int_equal(ops->write(f->be, &f->a, src, n), 0);
	f->x = (struct nbw_xfer){ .dir = dir, .mode = mode, .src = &f->a, .dst = &f->b,
				  .bytes = n, .peer = peer, .device_s = -1, .chase_loads = loads };
	calllog_reset();
	int rc = ops->prepare(f->be, &f->x);
	if (rc)
		return rc;
	assert_int_equal(ops->transfer(f->be, &f->x), 0);
	assert_true(f->x.device_s >= 0);
	ops->unprepare(f->be, &f->x);
	return 0;
}

static void expect_launch(const char *kernel, int dev)
{
	char call[96];
	snprintf(call, sizeof(call), "hipModuleLaunchKernel(%s, dev %d, stream dev %d", kernel,
		 dev, dev);
	if (calllog_count(call) != 1)
		fail_msg("expected %s: %s", call, calllog_text());
}

static void kernel_copy_case(struct fixture *f, enum nbw_dir dir, enum nbw_loc la, int da,
			     enum nbw_loc lb, int db, int launch_dev)
{
	unsigned char pattern[4099], back[4099];
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (unsigned char)(i * 31 + 7);
	ops->free(f->be, &f->a);
	ops->free(f->be, &f->b);
	assert_int_equal(kernel_run(f, NBW_MODE_KERNEL, dir, la, da, lb, db, NBW_PEER_ON, pattern,
				    sizeof(pattern), 0), 0);
	expect_launch("nbw_copy", launch_dev);
	if (dir != NBW_P2P)
		assert_int_equal(calllog_count("hipHostGetDevicePointer"), 1);
	assert_int_equal(ops->read(f->be, back, &f->b, sizeof(back)), 0);
	assert_memory_equal(back, pattern, sizeof(pattern));
}

static void test_kernel_copies(void **state)
{
	struct fixture *f = *state;
	const enum nbw_loc P = NBW_LOC_HOST_PINNED, R = NBW_LOC_HOST_REGISTERED, D = NBW_LOC_DEVICE;
	kernel_copy_case(f, NBW_HTOD, P, 1, D, 1, 1);
	/* compiled once, for the device's own target, and loaded on the launching device */
	assert_int_equal(calllog_count("hiprtcCompileProgram(gfx90a:sramecc+:xnack-)"), 1);
	assert_int_equal(calllog_count("hipModuleLoadData(dev 1"), 1);
	kernel_copy_case(f, NBW_HTOD, R, 0, D, 0, 0);
	kernel_copy_case(f, NBW_DTOH, D, 1, P, 1, 1);
	kernel_copy_case(f, NBW_P2P, D, 0, D, 1, 1);
	kernel_copy_case(f, NBW_P2P, D, 1, D, 0, 0);
	kernel_copy_case(f, NBW_P2P, D, 1, D, 1, 1);
}

/* The code object is built once for both devices (one gcnArchName), modules once each. */
static void test_kernel_compiled_once(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "";
	assert_int_equal(ops->supports(f->be, NBW_HTOD, NBW_MODE_KERNEL, NBW_HOSTMEM_PINNED, why,
				       sizeof(why)), 0);
	assert_int_equal(calllog_count("hiprtcCompileProgram(gfx90a:sramecc+:xnack-)"), 1);
	assert_int_equal(calllog_count("hipModuleLoadData"), 0); /* not before a prepare() */
	assert_int_equal(ops->supports(f->be, NBW_P2P, NBW_MODE_CHASE, NBW_HOSTMEM_NONE, why,
				       sizeof(why)), 0);
	assert_int_equal(calllog_count("hiprtcCompileProgram"), 1);
	unsigned char x[64] = { 0 };
	for (int i = 0; i < 2; i++) {
		ops->free(f->be, &f->a);
		ops->free(f->be, &f->b);
		assert_int_equal(kernel_run(f, NBW_MODE_KERNEL, NBW_HTOD, NBW_LOC_HOST_PINNED, 0,
					    NBW_LOC_DEVICE, 0, NBW_PEER_NA, x, sizeof(x), 0), 0);
		assert_int_equal(calllog_count("hipModuleLoadData(dev 0, fake code object for "
					       "gfx90a:sramecc+:xnack-)"), i == 0);
	}
}

/* A single cycle through n elements (i -> (i * 37 + 11) mod n with n a power of two is one
 * cycle), and the index after \p loads steps, walked on the host. */
static uint64_t make_chain(uint64_t *chain, size_t n, uint64_t loads)
{
	for (size_t i = 0; i < n; i++)
		chain[i] = (i * 37 + 11) % n;
	uint64_t i = 0;
	for (uint64_t k = 0; k < loads; k++)
		i = chain[i];
	return i;
}

static void chase_case(struct fixture *f, enum nbw_dir dir, enum nbw_loc la, int da, int db,
		       uint64_t loads)
{
	uint64_t chain[512], got = UINT64_MAX;
	uint64_t want = make_chain(chain, 512, loads);
	ops->free(f->be, &f->a);
	ops->free(f->be, &f->b);
	assert_int_equal(kernel_run(f, NBW_MODE_CHASE, dir, la, da, NBW_LOC_DEVICE, db,
				    NBW_PEER_ON, chain, sizeof(chain), loads), 0);
	expect_launch("nbw_chase", db);
	assert_int_equal(ops->read(f->be, &got, &f->b, sizeof(got)), 0);
	assert_true(got == want);
}

static void test_chase(void **state)
{
	struct fixture *f = *state;
	chase_case(f, NBW_HTOD, NBW_LOC_HOST_PINNED, 0, 1, 1000);
	chase_case(f, NBW_HTOD, NBW_LOC_HOST_REGISTERED, 1, 1, 7);
	chase_case(f, NBW_P2P, NBW_LOC_DEVICE, 0, 1, 513);
	chase_case(f, NBW_P2P, NBW_LOC_DEVICE, 1, 1, 0);
}

static void expect_refused(struct fixture *f, enum nbw_mode mode, enum nbw_dir dir,
			   enum nbw_loc la, int da, enum nbw_loc lb, int db, enum nbw_peer peer,
			   const char *reason_has)
{
	uint64_t chain[8] = { 1, 2, 3, 4, 5, 6, 7, 0 };
	ops->free(f->be, &f->a);
	ops->free(f->be, &f->b);
	assert_int_not_equal(kernel_run(f, mode, dir, la, da, lb, db, peer, chain, sizeof(chain),
					3), 0);
	assert_null(f->x.priv);
	assert_int_equal(calllog_count("hipModuleLaunchKernel"), 0);
	if (!strstr(ops->last_error(f->be), reason_has))
		fail_msg("'%s' does not say '%s'", ops->last_error(f->be), reason_has);
}

static void test_kernel_refusals(void **state)
{
	struct fixture *f = *state;
	const enum nbw_loc D = NBW_LOC_DEVICE;
	char why[NBW_REASON_LEN] = "";
	for (int m = 0; m < 2; m++) {
		enum nbw_mode mode = m ? NBW_MODE_CHASE : NBW_MODE_KERNEL;
		expect_refused(f, mode, NBW_P2P, D, 0, D, 1, NBW_PEER_OFF,
			       "through the peer pointer, which needs peer access (disabled");
		expect_refused(f, mode, NBW_P2P, D, 1, D, 0, NBW_PEER_NA, "needs peer access");
		expect_refused(f, mode, NBW_HTOD, NBW_LOC_HOST_PAGEABLE, -1, D, 0, NBW_PEER_NA,
			       "pageable host memory has no device address");
		assert_int_equal(ops->supports(f->be, NBW_HTOD, mode, NBW_HOSTMEM_PAGEABLE, why,
					       sizeof(why)), -1);
		assert_non_null(strstr(why, "pageable memory has no device address"));
		for (int d = 0; d < NBW_DIR_COUNT; d++) {
			const char *t = ops->interface((enum nbw_dir)d, mode, why, sizeof(why));
			if (mode == NBW_MODE_CHASE && d == NBW_DTOH) {
				assert_null(t);
				assert_non_null(strstr(why, "DtoH chase needs a host thread"));
			} else {
				assert_non_null(t);
				assert_true(strlen(t) < 160);
			}
		}
	}
	expect_refused(f, NBW_MODE_CHASE, NBW_DTOH, D, 0, NBW_LOC_HOST_PINNED, 0, NBW_PEER_NA,
		       "DtoH chase");
	assert_int_equal(ops->supports(f->be, NBW_DTOH, NBW_MODE_CHASE, NBW_HOSTMEM_PINNED, why,
				       sizeof(why)), -1);
}

/* hipRTC fails: both modes refused with its error, its log's first line and the target. */
static void test_kernel_no_hiprtc(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "";
	fake_hip_rtc_rc = HIPRTC_ERROR_COMPILATION;
	int rc = ops->supports(f->be, NBW_HTOD, NBW_MODE_KERNEL, NBW_HOSTMEM_PINNED, why,
			       sizeof(why));
	fake_hip_rtc_rc = HIPRTC_SUCCESS;
	assert_int_equal(rc, -1);
	const char *want = "hipRTC could not build the copy, chase and face kernels for "
			   "gfx90a:sramecc+:xnack-: hiprtcCompileProgram: HIPRTC_ERROR_COMPILATION: "
			   "nodebw_kernels.hip:1:1: error: fake compile failure";
	assert_string_equal(why, want);
	/* said once, not tried again */
	why[0] = 0;
	assert_int_equal(ops->supports(f->be, NBW_P2P, NBW_MODE_CHASE, NBW_HOSTMEM_NONE, why,
				       sizeof(why)), -1);
	assert_string_equal(why, want);
	assert_int_equal(calllog_count("hiprtcCompileProgram"), 1);
	assert_int_equal(ops->supports(f->be, NBW_HTOD, NBW_MODE_SYNC, NBW_HOSTMEM_PINNED, why,
				       sizeof(why)), 0);
	/* The pack face method needs the same kernels: skipped with the same reason. */
	why[0] = 0;
	assert_null(ops->face_interface(f->be, NBW_P2P, NBW_FACE_PACK, NBW_MODE_SYNC, why,
					sizeof(why)));
	assert_string_equal(why, want);
	assert_non_null(ops->face_interface(f->be, NBW_P2P, NBW_FACE_RECT, NBW_MODE_SYNC, why,
					    sizeof(why)));
}

/* The face copies through hipMemcpy3D(Async): every face of a box, HtoD, DtoH and between
 * the two devices; the destination holds the face and nothing else changed. */
static void test_face_rect(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "", where[32];
	struct nbw_face_shape sh;
	assert_int_equal(nbw_face_shape_parse("11x9x8:2:8", &sh, why, sizeof(why)), 0);
	size_t box = (size_t)nbw_face_box_bytes(&sh);
	static const struct {
		enum nbw_dir dir;
		enum nbw_mode mode;
		const char *call;
	} cases[] = {
		{ NBW_HTOD, NBW_MODE_SYNC, "hipMemcpy3D(kind 1" },
		{ NBW_DTOH, NBW_MODE_ASYNC, "hipMemcpy3DAsync(kind 2" },
		{ NBW_P2P, NBW_MODE_ASYNC, "hipMemcpy3DAsync(kind 3" },
		{ NBW_P2P, NBW_MODE_SYNC, "hipMemcpy3D(kind 3" },
	};
	unsigned char *want = malloc(box);
	assert_non_null(want);
	for (size_t i = 0; i < box; i++)
		want[i] = (unsigned char)(i * 29u + 3u);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int face = 0; face < NBW_FACE_COUNT; face++) {
			struct nbw_region r;
			nbw_face_region(&sh, (enum nbw_face)face, face != 1, NBW_FACE_RECT, &r);
			f->a = (struct nbw_buf){ .loc = cases[c].dir == NBW_HTOD ? NBW_LOC_HOST_PINNED
									 : NBW_LOC_DEVICE,
						 .device = 0, .bytes = box };
			f->b = (struct nbw_buf){ .loc = cases[c].dir == NBW_DTOH ? NBW_LOC_HOST_PINNED
									 : NBW_LOC_DEVICE,
						 .device = cases[c].dir == NBW_P2P ? 1 : 0,
						 .bytes = box };
			assert_int_equal(ops->alloc(f->be, &f->a), 0);
			assert_int_equal(ops->alloc(f->be, &f->b), 0);
			memcpy(f->a.ptr, want, box); /* the fake's device memory is host memory */
			memset(f->b.ptr, 0xA5, box);
			f->x = (struct nbw_xfer){ .dir = cases[c].dir, .mode = cases[c].mode,
						  .src = &f->a, .dst = &f->b,
						  .bytes = (size_t)nbw_region_bytes(&r),
						  .peer = NBW_PEER_NA, .device_s = -1, .region = &r };
			assert_int_equal(ops->prepare(f->be, &f->x), 0);
			calllog_reset();
			assert_int_equal(ops->copy_rect(f->be, &f->x), 0);
			if (calllog_count(cases[c].call) != 1)
				fail_msg("expected %s: %s", cases[c].call, calllog_text());
			assert_int_equal(nbw_region_check(want, f->b.ptr, &r, 0xA5, where,
							  sizeof(where)),
					 box);
			ops->unprepare(f->be, &f->x);
			ops->free(f->be, &f->a);
			ops->free(f->be, &f->b);
			memset(&f->a, 0, sizeof(f->a));
			memset(&f->b, 0, sizeof(f->b));
		}
	free(want);
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

/* One face copy by the pack method: prepare() loads the kernels, the gather fills a
 * contiguous buffer on the source side, the contiguous copy moves it, the scatter lands it in
 * the destination's halo; every other byte of the destination box is still the poison. */
static void face_pack(struct fixture *f, const char *shape, enum nbw_dir dir, enum nbw_mode mode,
		      enum nbw_face face, bool up)
{
	char err[256], where[32];
	struct nbw_face_shape sh;
	struct nbw_region r;
	assert_int_equal(nbw_face_shape_parse(shape, &sh, err, sizeof(err)), 0);
	size_t box = (size_t)nbw_face_box_bytes(&sh);
	nbw_face_region(&sh, face, up, NBW_FACE_PACK, &r);
	size_t fb = (size_t)nbw_region_bytes(&r);
	enum nbw_loc sl = dir == NBW_HTOD ? NBW_LOC_HOST_PINNED : NBW_LOC_DEVICE;
	enum nbw_loc dl = dir == NBW_DTOH ? NBW_LOC_HOST_PINNED : NBW_LOC_DEVICE;
	int dd = dir == NBW_P2P ? 1 : 0;
	struct nbw_buf ls = { .loc = sl, .device = 0, .bytes = fb };
	struct nbw_buf ld = { .loc = dl, .device = dd, .bytes = fb };
	f->a = (struct nbw_buf){ .loc = sl, .device = 0, .bytes = box };
	f->b = (struct nbw_buf){ .loc = dl, .device = dd, .bytes = box };
	assert_int_equal(ops->alloc(f->be, &f->a), 0);
	assert_int_equal(ops->alloc(f->be, &f->b), 0);
	assert_int_equal(ops->alloc(f->be, &ls), 0);
	assert_int_equal(ops->alloc(f->be, &ld), 0);
	unsigned char *want = malloc(box);
	assert_non_null(want);
	for (size_t i = 0; i < box; i++)
		want[i] = (unsigned char)(i * 29u + 5u);
	memcpy(f->a.ptr, want, box); /* the fake's device memory is host memory */
	memset(f->b.ptr, 0xA5, box);
	f->x = (struct nbw_xfer){ .dir = dir, .mode = mode, .src = &f->a, .dst = &f->b,
				  .bytes = fb, .peer = NBW_PEER_NA, .device_s = -1, .region = &r };
	assert_int_equal(ops->prepare(f->be, &f->x), 0);
	struct nbw_xfer lx = { .dir = dir, .mode = mode, .src = &ls, .dst = &ld, .bytes = fb,
			       .peer = NBW_PEER_NA, .device_s = -1 };
	assert_int_equal(ops->prepare(f->be, &lx), 0);
	calllog_reset();
	pack_side(f, &f->a, &r, r.src_at, &ls, false);
	assert_int_equal(ops->transfer(f->be, &lx), 0);
	pack_side(f, &f->b, &r, r.dst_at, &ld, true);
	size_t bad = nbw_region_check(want, f->b.ptr, &r, 0xA5, where, sizeof(where));
	if (bad != box)
		fail_msg("%s direction %d face %d: destination wrong %s at byte %zu", shape,
			 (int)dir, face, where, bad);
	assert_int_equal(calllog_count("hipModuleLaunchKernel(nbw_pack"),
			 sl == NBW_LOC_DEVICE ? 1 : 0);
	assert_int_equal(calllog_count("hipModuleLaunchKernel(nbw_unpack"),
			 dl == NBW_LOC_DEVICE ? 1 : 0);
	/* The module was loaded by prepare(), never in the timed part. */
	assert_int_equal(calllog_count("hipModuleLoadData"), 0);
	assert_int_equal(calllog_count("hiprtcCompileProgram"), 0);
	ops->unprepare(f->be, &f->x);
	ops->unprepare(f->be, &lx);
	ops->free(f->be, &ls);
	ops->free(f->be, &ld);
	ops->free(f->be, &f->a);
	ops->free(f->be, &f->b);
	memset(&f->a, 0, sizeof(f->a));
	memset(&f->b, 0, sizeof(f->b));
	free(want);
}

/* The pack method through the hipRTC kernels: every face, both senses, every direction and
 * both modes, elements of 1 to 24 bytes (bytes, 4-, 8- and 16-byte words). */
static void test_face_pack(void **state)
{
	struct fixture *f = *state;
	char why[NBW_REASON_LEN] = "";
	static const char *const shapes[] = { "11x9x8:2:8", "12x10x9:2:4", "7x6x5:1:16",
					      "9x8x7:2:3", "10x9x8:3:1", "6x5x4:2:24" };
	static const enum nbw_dir dirs[] = { NBW_HTOD, NBW_DTOH, NBW_P2P };
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		for (int face = 0; face < NBW_FACE_COUNT; face++)
			for (int d = 0; d < 3; d++) {
				face_pack(f, shapes[k], dirs[d], NBW_MODE_SYNC,
					  (enum nbw_face)face, true);
				face_pack(f, shapes[k], dirs[d], NBW_MODE_ASYNC,
					  (enum nbw_face)face, false);
			}
	const char *i = ops->face_interface(f->be, NBW_P2P, NBW_FACE_PACK, NBW_MODE_ASYNC, why,
					    sizeof(why));
	assert_non_null(i);
	assert_non_null(strstr(i, "pack kernel (nbw_pack, hipRTC) -> hipMemcpyPeerAsync"));
	assert_non_null(strstr(i, "unpack kernel (nbw_unpack)"));
	assert_null(ops->face_interface(f->be, NBW_P2P, NBW_FACE_PACK, NBW_MODE_KERNEL, why,
					sizeof(why)));
	/* A pack between two devices' buffers is refused. */
	struct nbw_face_shape sh;
	struct nbw_region r;
	assert_int_equal(nbw_face_shape_parse("6x5x4:1:8", &sh, why, sizeof(why)), 0);
	nbw_face_region(&sh, NBW_FACE_X, true, NBW_FACE_PACK, &r);
	f->a = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = 0,
				 .bytes = (size_t)nbw_face_box_bytes(&sh) };
	f->b = (struct nbw_buf){ .loc = NBW_LOC_DEVICE, .device = 1,
				 .bytes = (size_t)nbw_region_bytes(&r) };
	assert_int_equal(ops->alloc(f->be, &f->a), 0);
	assert_int_equal(ops->alloc(f->be, &f->b), 0);
	assert_int_equal(ops->pack(f->be, &f->a, &r, r.src_at, &f->b, false), -EINVAL);
	assert_non_null(strstr(ops->last_error(f->be), "buffers of one device"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_face_rect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_face_pack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hugepage_registered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_p2p_peer_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_p2p_peer_not_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_p2p_peer_enabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_p2p_same_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_htod_pageable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dtoh_pinned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_peer_copy_completes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_same_device_copy_completes, setup,
						teardown),
		cmocka_unit_test(test_list_is_cheap),
		cmocka_unit_test_setup_teardown(test_gate_made_on_first_use, setup, teardown),
		cmocka_unit_test(test_open_no_device),
		cmocka_unit_test(test_open_runtime_error),
		cmocka_unit_test_setup_teardown(test_kernel_copies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_compiled_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_no_hiprtc, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
