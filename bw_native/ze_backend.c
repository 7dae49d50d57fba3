/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Level Zero backend: copies issued through the oneAPI Level Zero loader (Debian's
 * libze-dev 1.8, API 1.4).
 *
 * Every device of every driver that zeDriverGet reports is one nodebw device, and each driver
 * gets one context. A copy runs on the copy engines of one device: the GPU end of a host copy,
 * the source device of a device-to-device copy. Which engines (queue group ordinal, queue
 * index) depends on the direction, as the hardware means them (pick_engines):
 *
 *   htod, dtoh  the main copy engine: the copy-only queue group with one queue (the first
 *               copy-only group when none has one queue), queue 0
 *   p2p         the link copy engines where the device has them: a copy-only group of
 *               several queues that is not the main one (on Data Center GPU Max, "PVC", the
 *               link engines BCS1-BCS7/8 beside the main BCS0), queue (destination device
 *               mod queues), so copies to different peers use different engines; else the
 *               main copy engine, queue 0
 *
 * A device without a copy-only group copies on its first compute group, queue 0 (said in the
 * interface and the path). The choice is recorded per device in versions()
 * (device<N>_queue_group, device<N>_p2p_queue_group, device<N>_compute_queue_group) and per
 * pair in p2p_path().
 *
 *   sync    zeCommandListAppendMemoryCopy on an immediate command list in synchronous mode:
 *           the append returns when the copy is done
 *   async   the same append on an asynchronous immediate command list, signalling an event
 *           from a kernel-timestamp pool; zeEventHostSynchronize waits for it and the event's
 *           global start/end ticks give the device time of the copy
 *   kernel  the same append as async (timestamped event, zeEventHostSynchronize), but on
 *           queue 0 of the device's first compute queue group (FLAG_COMPUTE), where the
 *           driver runs the copy as a blit kernel on the compute engine, beside the copy
 *           engines of the other modes. Only for a device that has a copy-only group: on
 *           one without, the other modes copy on that compute group already, and kernel
 *           mode is refused rather than measuring the same thing twice
 *   chase   refused: dependent loads need a SPIR-V kernel, which nodebw does not ship
 *   gated   (submit/release/complete) the async copy also waits on a gate event of its
 *           driver, which release() signals from the host; unprepare() of a copy that was
 *           submitted and never completed opens its gate if release() never came and waits
 *           for the copy before the command list and event go
 *
 * open() only asks (zeInit, the drivers' and devices' properties and queue groups): the
 * context of a driver and its gate events are made when the first buffer, command list or
 * copy needs them (drv_ready), so `nodebw list` creates no context and no event pool.
 *
 * Pinned host memory is zeMemAllocHost (USM host memory of the driver's context). Level Zero
 * 1.8 cannot page-lock existing memory, so registered host memory is not supported. Peer
 * access needs no enabling in Level Zero, so peer_access is NULL.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/ze_api.h>
#include <level_zero/loader/ze_loader.h>

#include "nodebw/hugepage.h"
#include "nodebw/probe.h"

struct ze_drv {
	ze_driver_handle_t h;
	ze_context_handle_t ctx;
	ze_api_version_t api;
	uint32_t version;               /* ze_driver_properties_t.driverVersion */
	bool bw_ext;                    /* ZE_experimental_bandwidth_properties */
	/* Two host-signalled gate events, used in turn by successive gated rounds. */
	ze_event_pool_handle_t gate_pool;
	ze_event_handle_t gate[2];
	char gate_err[NBW_REASON_LEN];  /* why the gate cannot work; "" when it can */
	/* The context and the gate are made on first use (drv_ready): whether that was tried,
	 * and why it failed ("" when it worked). */
	bool ready_tried;
	char ready_err[NBW_REASON_LEN];
};

/* A queue group of a device that copies run on. */
struct ze_engine {
	uint32_t ordinal;               /* queue group ordinal */
	uint32_t nqueues;               /* its queues */
	bool copy_only;                 /* false: no copy-only group, a compute group is used */
};

struct ze_dev {
	ze_device_handle_t h;
	struct ze_drv *drv;
	ze_device_properties_t props;
	struct ze_engine main;          /* host copies (and write()/read()): the main copy engine */
	struct ze_engine link;          /* device-to-device copies: link copy engines, or = main */
	bool has_link;                  /* the device has link copy engines */
	struct ze_engine compute;       /* kernel mode: the first compute queue group */
	bool has_compute;               /* the device has a compute queue group */
	double ns_per_tick;             /* kernel timestamp period */
	uint64_t ts_mask;               /* valid bits of a kernel timestamp */
	pthread_mutex_t lock;           /* serialises the helper list of write()/read() */
	bool lock_init;
	ze_command_list_handle_t helper;
};

struct nbw_backend {
	uint32_t ndrv;
	struct ze_drv *drv;
	int ndev;
	struct ze_dev *dev;
	atomic_uint gate_slot;          /* gate event the next gated round waits on */
	pthread_mutex_t gate_lock;      /* release() and the draining of unprepare() */
	bool gate_lock_init;
	pthread_mutex_t ready_lock;     /* the drivers' contexts, made on first use */
	bool ready_lock_init;
};

/* Per-transfer state: the command list (and for async the timestamped signal event). */
struct ze_xfer {
	struct ze_dev *dev;
	uint32_t ordinal, index;        /* the queue group and queue the copy runs on */
	ze_command_list_handle_t list;
	ze_event_pool_handle_t pool;
	ze_event_handle_t done;
	ze_event_handle_t gate;         /* submitted and not completed: the gate it waits on */
};

static _Thread_local char last_err[NBW_REASON_LEN];
static _Thread_local char path_buf[2 * NBW_REASON_LEN];

/* Set once open() found a device without a copy-only queue group, or one with link copy
 * engines; interface() has no backend. */
static atomic_bool compute_fallback;
static atomic_bool link_engines;
/* The compute queue group ordinal of kernel mode when every device of the last open() has
 * the same one (COMPUTE_ORD_NONE before any, COMPUTE_ORD_MIXED when they differ), so that
 * interface() can name it. */
#define COMPUTE_ORD_NONE (-1)
#define COMPUTE_ORD_MIXED (-2)
static atomic_int compute_ordinal = COMPUTE_ORD_NONE;

struct ze_code {
	ze_result_t r;
	const char *name;
	const char *text;
};

#define ZE_CODE(c, t) { c, #c, t }

static const struct ze_code ze_codes[] = {
	ZE_CODE(ZE_RESULT_SUCCESS, "success"),
	ZE_CODE(ZE_RESULT_NOT_READY, "not signalled yet, or the wait timed out"),
	ZE_CODE(ZE_RESULT_ERROR_DEVICE_LOST, "the device hung, was reset or removed"),
	ZE_CODE(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "host memory exhausted"),
	ZE_CODE(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "device memory exhausted"),
	ZE_CODE(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "module build failed"),
	ZE_CODE(ZE_RESULT_ERROR_MODULE_LINK_FAILURE, "module link failed"),
	ZE_CODE(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET, "the device needs a reset"),
	ZE_CODE(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE, "the device is in a low-power state"),
	ZE_CODE(ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX, "device is not a fabric vertex"),
	ZE_CODE(ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE, "fabric vertex is not a device"),
	ZE_CODE(ZE_RESULT_EXP_ERROR_REMOTE_DEVICE, "fabric vertex is a remote device"),
	ZE_CODE(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS, "permission denied"),
	ZE_CODE(ZE_RESULT_ERROR_NOT_AVAILABLE, "resource busy or removed"),
	ZE_CODE(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE, "a required external component is missing"),
	ZE_CODE(ZE_RESULT_WARNING_DROPPED_DATA, "data may have been dropped"),
	ZE_CODE(ZE_RESULT_ERROR_UNINITIALIZED,
		"no Level Zero driver is initialised (none installed, or none found a device)"),
	ZE_CODE(ZE_RESULT_ERROR_UNSUPPORTED_VERSION, "version not supported"),
	ZE_CODE(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "not supported by this driver or device"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_ARGUMENT, "invalid argument"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "null handle"),
	ZE_CODE(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "the device still uses the object"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "null pointer"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_SIZE, "invalid size"),
	ZE_CODE(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "size not supported by the device"),
	ZE_CODE(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, "alignment not supported"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "event or fence in a bad state"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_ENUMERATION, "invalid enumerator"),
	ZE_CODE(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION, "enumerator not supported by the device"),
	ZE_CODE(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT, "image format not supported"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "native binary not supported"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME, "global variable not found"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_KERNEL_NAME, "kernel not found"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME, "function not found"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "invalid group size"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION, "invalid global width"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX, "invalid kernel argument index"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, "invalid kernel argument size"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE, "invalid kernel attribute"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED, "module not linked"),
	ZE_CODE(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE, "command list and queue types differ"),
	ZE_CODE(ZE_RESULT_ERROR_OVERLAPPING_REGIONS, "source and destination overlap"),
	ZE_CODE(ZE_RESULT_WARNING_ACTION_REQUIRED, "an action is required"),
	ZE_CODE(ZE_RESULT_ERROR_UNKNOWN, "unknown or internal driver error"),
};

static const struct ze_code *ze_code_of(ze_result_t r)
{
	for (size_t i = 0; i < sizeof(ze_codes) / sizeof(ze_codes[0]); i++)
		if (ze_codes[i].r == r)
			return &ze_codes[i];
	return NULL;
}

__attribute__((format(printf, 1, 2))) static void set_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
}

/* Add context (sizes, device numbers) to the error a failed call just recorded. */
__attribute__((format(printf, 1, 2))) static void add_err(const char *fmt, ...)
{
	size_t used = strlen(last_err);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err + used, sizeof(last_err) - used, fmt, ap);
	va_end(ap);
}

/* Every Level Zero call goes through here: true on success, else last_err names the call. */
static bool ze_ok(ze_result_t r, const char *call)
{
	const struct ze_code *c;

	if (r == ZE_RESULT_SUCCESS)
		return true;
	c = ze_code_of(r);
	set_err("%s: %s (0x%08x): %s", call, c ? c->name : "unlisted ze_result_t", (unsigned)r,
		c ? c->text : "not a result code of the 1.8 headers");
	return false;
}

#define ZE_CALL(fn, ...) ze_ok(fn(__VA_ARGS__), #fn)

/* printf into buf at *off, never past len. */
__attribute__((format(printf, 4, 5))) static void buf_add(char *buf, size_t len, size_t *off,
							  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

static bool has_extension(ze_driver_handle_t h, const char *name)
{
	ze_driver_extension_properties_t *ext;
	uint32_t n = 0;
	bool found = false;

	if (!ZE_CALL(zeDriverGetExtensionProperties, h, &n, NULL) || n == 0)
		return false;
	ext = calloc(n, sizeof(*ext));
	if (!ext)
		return false;
	if (ZE_CALL(zeDriverGetExtensionProperties, h, &n, ext))
		for (uint32_t i = 0; i < n && !found; i++)
			found = strcmp(ext[i].name, name) == 0;
	free(ext);
	return found;
}

/* The gate of a driver: two host-visible events, visible to all devices of the context. */
static void open_gate(struct ze_drv *d)
{
	ze_event_pool_desc_t pd = {
		.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
		.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
		.count = 2,
	};
	bool ok = ZE_CALL(zeEventPoolCreate, d->ctx, &pd, 0, NULL, &d->gate_pool);

	for (uint32_t i = 0; ok && i < 2; i++) {
		ze_event_desc_t ed = {
			.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
			.index = i,
			.signal = ZE_EVENT_SCOPE_FLAG_HOST,
			.wait = ZE_EVENT_SCOPE_FLAG_HOST,
		};
		ok = ZE_CALL(zeEventCreate, d->gate_pool, &ed, &d->gate[i]);
	}
	if (!ok)
		snprintf(d->gate_err, sizeof(d->gate_err), "no gate event: %.200s",
			 last_err);
}

/* What open() learns of a driver: queries only, no context. */
static int open_driver(struct ze_drv *d, ze_driver_handle_t h)
{
	ze_driver_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES };

	d->h = h;
	if (!ZE_CALL(zeDriverGetApiVersion, h, &d->api) || !ZE_CALL(zeDriverGetProperties, h, &p))
		return -EIO;
	d->version = p.driverVersion;
	d->bw_ext = has_extension(h, ZE_BANDWIDTH_PROPERTIES_EXP_NAME);
	return 0;
}

/*
 * The driver's context and gate events, made once, by the first call that needs them (a
 * buffer, a command list); never by open(), device_count() or device_info(). 0, or -EIO
 * with last_err naming the failed call (the same answer on every later call).
 */
static int drv_ready(struct nbw_backend *be, struct ze_drv *d)
{
	ze_context_desc_t cd = { .stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC };

	pthread_mutex_lock(&be->ready_lock);
	if (!d->ready_tried) {
		d->ready_tried = true;
		if (ZE_CALL(zeContextCreate, d->h, &cd, &d->ctx))
			open_gate(d);
		else
			snprintf(d->ready_err, sizeof(d->ready_err), "%s", last_err);
	}
	pthread_mutex_unlock(&be->ready_lock);
	if (d->ready_err[0]) {
		set_err("%s", d->ready_err);
		return -EIO;
	}
	return 0;
}

/* A driver whose gate events exist and work (made by drv_ready). */
static bool gate_usable(const struct ze_drv *d)
{
	return d->gate[0] && d->gate[1] && !d->gate_err[0];
}

static int open_drivers(struct nbw_backend *be)
{
	ze_driver_handle_t *h;
	uint32_t n = 0;
	int rc = 0;

	if (!ZE_CALL(zeDriverGet, &n, NULL))
		return -ENODEV;
	if (n == 0) {
		set_err("zeDriverGet: zeInit succeeded but the loader reports 0 drivers");
		return -ENODEV;
	}
	h = calloc(n, sizeof(*h));
	be->drv = calloc(n, sizeof(*be->drv));
	if (!h || !be->drv) {
		free(h);
		set_err("out of host memory");
		return -ENOMEM;
	}
	if (!ZE_CALL(zeDriverGet, &n, h)) {
		free(h);
		return -EIO;
	}
	be->ndrv = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = open_driver(&be->drv[i], h[i]);
	free(h);
	return rc;
}

/*
 * Kernel timestamps count ticks of the device timer. With the 1.0 property structure its
 * resolution is whole nanoseconds per tick; the 1.2 structure gives ticks per second, which
 * is exact for clocks like 19.2 MHz (52.083 ns), so prefer it where the driver has it.
 */
static void set_timer(struct ze_dev *v)
{
	uint32_t bits = v->props.kernelTimestampValidBits;

	v->ts_mask = bits == 0 || bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	v->ns_per_tick = (double)v->props.timerResolution;
	if (v->drv->api >= ZE_API_VERSION_1_2) {
		ze_device_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 };

		if (ZE_CALL(zeDeviceGetProperties, v->h, &p) && p.timerResolution)
			v->ns_per_tick = 1e9 / (double)p.timerResolution;
	}
}

static bool copy_only(ze_command_queue_group_property_flags_t f)
{
	return (f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY) &&
	       !(f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
}

static void set_engine(struct ze_engine *e, const ze_command_queue_group_properties_t *g,
		       int ordinal, bool is_copy_only)
{
	e->ordinal = (uint32_t)ordinal;
	e->nqueues = g[ordinal].numQueues ? g[ordinal].numQueues : 1;
	e->copy_only = is_copy_only;
}

/*
 * The main copy engine: the copy-only group with one queue, else the first copy-only group,
 * else the first compute group. The link copy engines: a copy-only group of several queues
 * other than the main one. -1 when the device has none of them (last_err says so).
 */
static int pick_engines(struct ze_dev *v, const ze_command_queue_group_properties_t *g,
			uint32_t n)
{
	int single = -1, copy = -1, compute = -1, link = -1, primary;

	for (uint32_t i = 0; i < n; i++) {
		if (copy_only(g[i].flags)) {
			if (copy < 0)
				copy = (int)i;
			if (single < 0 && g[i].numQueues == 1)
				single = (int)i;
		} else if (compute < 0 &&
			   (g[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)) {
			compute = (int)i;
		}
	}
	primary = single >= 0 ? single : copy >= 0 ? copy : compute;
	if (primary < 0) {
		set_err("zeDeviceGetCommandQueueGroupProperties: %s has neither a copy nor a "
			"compute queue group (%u groups)", v->props.name, n);
		return -1;
	}
	for (uint32_t i = 0; i < n && link < 0; i++)
		if ((int)i != primary && copy_only(g[i].flags) && g[i].numQueues > 1)
			link = (int)i;
	set_engine(&v->main, g, primary, copy >= 0);
	v->has_compute = compute >= 0;
	if (v->has_compute) {
		int seen = COMPUTE_ORD_NONE;

		set_engine(&v->compute, g, compute, false);
		if (copy >= 0 && !atomic_compare_exchange_strong(&compute_ordinal, &seen, compute) &&
		    seen != compute)
			atomic_store(&compute_ordinal, COMPUTE_ORD_MIXED);
	}
	v->has_link = link >= 0;
	if (v->has_link)
		set_engine(&v->link, g, link, true);
	else
		v->link = v->main;
	if (!v->main.copy_only)
		atomic_store(&compute_fallback, true);
	if (v->has_link)
		atomic_store(&link_engines, true);
	return 0;
}

/* The device's queue groups, and the engines picked from them. */
static int pick_queue_groups(struct ze_dev *v)
{
	ze_command_queue_group_properties_t *g;
	uint32_t n = 0;
	int rc = 0;

	if (!ZE_CALL(zeDeviceGetCommandQueueGroupProperties, v->h, &n, NULL))
		return -EIO;
	g = calloc(n ? n : 1, sizeof(*g));
	if (!g) {
		set_err("out of host memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		g[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
	if (!ZE_CALL(zeDeviceGetCommandQueueGroupProperties, v->h, &n, g))
		rc = -EIO;
	else if (pick_engines(v, g, n))
		rc = -EIO;
	free(g);
	return rc;
}

/* The queue group and queue a copy of direction dir to device dst (P2P) runs on. */
static void copy_queue(const struct ze_dev *v, enum nbw_dir dir, int dst, uint32_t *ordinal,
		       uint32_t *index)
{
	const struct ze_engine *e = dir == NBW_P2P ? &v->link : &v->main;

	*ordinal = e->ordinal;
	*index = dir == NBW_P2P && v->has_link && dst >= 0 ? (uint32_t)dst % e->nqueues : 0;
}

static int open_device(struct ze_dev *v, struct ze_drv *d, ze_device_handle_t h)
{
	int rc;

	v->h = h;
	v->drv = d;
	v->props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
	if (!ZE_CALL(zeDeviceGetProperties, h, &v->props))
		return -EIO;
	set_timer(v);
	rc = pick_queue_groups(v);
	if (rc)
		return rc;
	rc = pthread_mutex_init(&v->lock, NULL);
	if (rc) {
		set_err("pthread_mutex_init: %s", strerror(rc));
		return -rc;
	}
	v->lock_init = true;
	return 0;
}

static int open_devices(struct nbw_backend *be)
{
	ze_device_handle_t *h;
	uint32_t total = 0, n;
	int rc = 0;

	for (uint32_t i = 0; i < be->ndrv; i++) {
		n = 0;
		if (!ZE_CALL(zeDeviceGet, be->drv[i].h, &n, NULL))
			return -EIO;
		total += n;
	}
	if (total == 0) {
		set_err("zeDeviceGet: %u Level Zero driver(s) but no GPU device", be->ndrv);
		return -ENODEV;
	}
	be->dev = calloc(total, sizeof(*be->dev));
	h = calloc(total, sizeof(*h));
	if (!be->dev || !h) {
		free(h);
		set_err("out of host memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < be->ndrv && !rc; i++) {
		n = total - (uint32_t)be->ndev;
		if (!ZE_CALL(zeDeviceGet, be->drv[i].h, &n, h)) {
			rc = -EIO;
			break;
		}
		for (uint32_t k = 0; k < n && !rc; k++) {
			rc = open_device(&be->dev[be->ndev], &be->drv[i], h[k]);
			be->ndev++;
		}
	}
	free(h);
	return rc;
}

static void zb_close(struct nbw_backend *be)
{
	if (!be)
		return;
	for (int i = 0; i < be->ndev; i++) {
		struct ze_dev *v = &be->dev[i];

		if (v->helper)
			ZE_CALL(zeCommandListDestroy, v->helper);
		if (v->lock_init)
			pthread_mutex_destroy(&v->lock);
	}
	for (uint32_t i = 0; i < be->ndrv; i++) {
		struct ze_drv *d = &be->drv[i];

		for (int k = 0; k < 2; k++)
			if (d->gate[k])
				ZE_CALL(zeEventDestroy, d->gate[k]);
		if (d->gate_pool)
			ZE_CALL(zeEventPoolDestroy, d->gate_pool);
		if (d->ctx)
			ZE_CALL(zeContextDestroy, d->ctx);
	}
	if (be->gate_lock_init)
		pthread_mutex_destroy(&be->gate_lock);
	if (be->ready_lock_init)
		pthread_mutex_destroy(&be->ready_lock);
	free(be->dev);
	free(be->drv);
	free(be);
}

static int zb_open(struct nbw_backend **out, const struct nbw_backend_opts *opts, char *why,
		     size_t whylen)
{
	(void)opts; /* nothing of it is for this backend */
	struct nbw_backend *be;
	int rc;

	*out = NULL;
	atomic_store(&compute_ordinal, COMPUTE_ORD_NONE);
	if (!ZE_CALL(zeInit, ZE_INIT_FLAG_GPU_ONLY)) {
		snprintf(why, whylen, "%s", last_err);
		return -ENODEV;
	}
	be = calloc(1, sizeof(*be));
	if (!be) {
		snprintf(why, whylen, "out of host memory");
		return -ENOMEM;
	}
	rc = pthread_mutex_init(&be->gate_lock, NULL);
	if (rc) {
		snprintf(why, whylen, "pthread_mutex_init: %s", strerror(rc));
		free(be);
		return -rc;
	}
	be->gate_lock_init = true;
	rc = pthread_mutex_init(&be->ready_lock, NULL);
	if (rc) {
		snprintf(why, whylen, "pthread_mutex_init: %s", strerror(rc));
		zb_close(be);
		return -rc;
	}
	be->ready_lock_init = true;
	rc = open_drivers(be);
	if (!rc)
		rc = open_devices(be);
	if (rc) {
		snprintf(why, whylen, "%s", last_err);
		zb_close(be);
		return rc;
	}
	*out = be;
	return 0;
}

static int zb_device_count(struct nbw_backend *be)
{
	return be->ndev;
}

static void describe_memory(const struct ze_dev *v, char *buf, size_t len)
{
	ze_device_memory_properties_t *m;
	uint32_t n = 0;
	unsigned long long total = 0, gb10;
	char name[64] = "";

	if (!ZE_CALL(zeDeviceGetMemoryProperties, v->h, &n, NULL) || n == 0) {
		snprintf(buf, len, "unknown (zeDeviceGetMemoryProperties reports no memory)");
		return;
	}
	m = calloc(n, sizeof(*m));
	if (!m) {
		snprintf(buf, len, "unknown");
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		m[i].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
	if (ZE_CALL(zeDeviceGetMemoryProperties, v->h, &n, m)) {
		for (uint32_t i = 0; i < n; i++)
			total += m[i].totalSize;
		snprintf(name, sizeof(name), "%.63s", m[0].name);
	}
	free(m);
	/* Decimal GB with one decimal, rounded: 139.8 GB. */
	gb10 = (total + 50000000) / 100000000;
	if (v->props.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED)
		snprintf(buf, len, "integrated GPU: host memory shared with the CPU, %llu.%llu GB",
			 gb10 / 10, gb10 % 10);
	else
		snprintf(buf, len, "%s%s%llu.%llu GB device memory", name, name[0] ? ", " : "",
			 gb10 / 10, gb10 % 10);
}

static void pci_bus_id(const struct ze_dev *v, char *buf, size_t len)
{
	ze_pci_ext_properties_t p = { .stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES };

	buf[0] = '\0';
	if (ZE_CALL(zeDevicePciGetPropertiesExt, v->h, &p))
		snprintf(buf, len, "%04x:%02x:%02x.%x", p.address.domain, p.address.bus & 0xff,
			 p.address.device & 0x1f, p.address.function & 0x7);
}

static int zb_device_info(struct nbw_backend *be, int dev, struct nbw_device *out)
{
	const struct ze_dev *v;

	if (dev < 0 || dev >= be->ndev)
		return -EINVAL;
	v = &be->dev[dev];
	memset(out, 0, sizeof(*out));
	out->id = dev;
	out->runtime_id = out->id;
	snprintf(out->kind, sizeof(out->kind), "level-zero");
	if (v->props.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE)
		snprintf(out->name, sizeof(out->name), "%.100s (tile %u)", v->props.name,
			 v->props.subdeviceId);
	else
		snprintf(out->name, sizeof(out->name), "%.127s", v->props.name);
	out->is_gpu = v->props.type == ZE_DEVICE_TYPE_GPU;
	describe_memory(v, out->memory, sizeof(out->memory));
	pci_bus_id(v, out->pci_bus_id, sizeof(out->pci_bus_id));
	return 0;
}

static bool any_kernel_device(struct nbw_backend *be);

/* The compute group ordinal of kernel mode shared by every device, COMPUTE_ORD_NONE when no
 * device can run kernel mode, COMPUTE_ORD_MIXED otherwise. */
static int kernel_ordinal_all(const struct nbw_backend *be)
{
	int ord = COMPUTE_ORD_NONE;

	for (int i = 0; i < be->ndev; i++) {
		const struct ze_dev *v = &be->dev[i];
		int o = v->has_compute && v->main.copy_only ? (int)v->compute.ordinal
							    : COMPUTE_ORD_NONE;

		if (i > 0 && o != ord)
			return COMPUTE_ORD_MIXED;
		ord = o;
	}
	return ord;
}

static void kernel_group_line(char *buf, size_t len, size_t *off, const struct ze_dev *v,
			      int i)
{
	if (v->has_compute && v->main.copy_only)
		buf_add(buf, len, off, "device%d_kernel_queue_group=ordinal %u, queue 0\n", i,
			v->compute.ordinal);
	else
		buf_add(buf, len, off, "device%d_kernel_queue_group=none\n", i);
}

static void zb_versions(struct nbw_backend *be, char *buf, size_t len)
{
	zel_component_version_t comp[8];
	size_t off = 0, n = 0;

	buf_add(buf, len, &off, "ze_headers_api=%u.%u\n",
		ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT),
		ZE_MINOR_VERSION(ZE_API_VERSION_CURRENT));
	/* Loader components (loader, validation/tracing layers) with their library versions. */
	if (!ZE_CALL(zelLoaderGetVersions, &n, NULL))
		n = 0;
	if (n > sizeof(comp) / sizeof(comp[0]))
		n = sizeof(comp) / sizeof(comp[0]);
	if (n > 0 && ZE_CALL(zelLoaderGetVersions, &n, comp)) {
		for (size_t i = 0; i < n; i++) {
			const zel_version_t *v = &comp[i].component_lib_version;

			buf_add(buf, len, &off, "ze_%.63s=%d.%d.%d\n", comp[i].component_name,
				v->major, v->minor, v->patch);
		}
	}
	/* Kernel mode's queue group: one line when every device has the same (short: the
	 * core keeps 4 KiB of versions), else one per device. */
	int kernel_ord = kernel_ordinal_all(be);
	if (kernel_ord >= 0)
		buf_add(buf, len, &off, "kernel_queue_group=ordinal %d, queue 0 on every device\n",
			kernel_ord);
	else if (kernel_ord == COMPUTE_ORD_NONE && !any_kernel_device(be))
		buf_add(buf, len, &off, "kernel_queue_group=none: %s\n", last_err);
	buf_add(buf, len, &off, "drivers=%u\n", be->ndrv);
	for (uint32_t i = 0; i < be->ndrv; i++) {
		const struct ze_drv *d = &be->drv[i];

		buf_add(buf, len, &off, "driver%u_api=%u.%u\ndriver%u_version=%u\n", i,
			ZE_MAJOR_VERSION((unsigned)d->api), ZE_MINOR_VERSION((unsigned)d->api), i,
			d->version);
	}
	for (int i = 0; i < be->ndev; i++) {
		const struct ze_dev *v = &be->dev[i];

		/* short: 16 devices (8 GPUs of 2 tiles) must fit the core's 4 KiB of versions */
		buf_add(buf, len, &off, "device%d_queue_group=ordinal %u (%u queue%s), %s, queue 0\n",
			i, v->main.ordinal, v->main.nqueues, v->main.nqueues == 1 ? "" : "s",
			v->main.copy_only ? "copy-only: main copy engine"
					  : "compute (no copy-only group)");
		if (v->has_link)
			buf_add(buf, len, &off,
				"device%d_p2p_queue_group=ordinal %u (%u queues), copy-only: link "
				"copy engines, queue = destination mod %u\n",
				i, v->link.ordinal, v->link.nqueues, v->link.nqueues);
		else
			buf_add(buf, len, &off, "device%d_p2p_queue_group=ordinal %u, queue 0 (no "
				"link copy engines)\n", i, v->main.ordinal);
		if (kernel_ord == COMPUTE_ORD_MIXED)
			kernel_group_line(buf, len, &off, v, i);
		buf_add(buf, len, &off, "device%d_timer=%.4f ns/tick, %u valid bits\n", i,
			v->ns_per_tick, v->props.kernelTimestampValidBits);
	}
}

/*
 * The interface texts, static: the core keeps the pointer for every series it plans (all
 * before the first runs), so each (direction, mode) needs its own lasting string. Which
 * engines: [p2p][has link engines][has a compute fallback]; each text fits the 159
 * characters a measurement keeps of it.
 */
#define ZE_SYNC(e) "zeCommandListAppendMemoryCopy on a synchronous immediate command list (" e ")"
#define ZE_ASYNC(e)                                                                          \
	"zeCommandListAppendMemoryCopy, async immediate list (" e "), zeEventHostSynchronize; "  \
	"gated by zeEventHostSignal"
#define ZE_ENGINES(F)                                                                         \
	{ { { F("main copy engine"), F("main copy engine, else a compute group") },          \
	    { F("main copy engine"), F("main copy engine, else a compute group") } },        \
	  { { F("source's main copy engine"),                                                \
	      F("source's main copy engine, else a compute group") },                        \
	    { F("source's link copy engines, else main copy engine"),                        \
	      F("source's link copy engines, else main or compute") } } }
static const char *const sync_text[2][2][2] = ZE_ENGINES(ZE_SYNC);
static const char *const async_text[2][2][2] = ZE_ENGINES(ZE_ASYNC);

/* Kernel mode: the compute queue group, by its ordinal where every device has the same one. */
#define ZE_KERNEL(o)                                                                          \
	"zeCommandListAppendMemoryCopy on the compute queue group (" o "), queue 0, beside "  \
	"the copy-engine group of the other modes; zeEventHostSynchronize"
static const char *const kernel_text[] = {
	ZE_KERNEL("ordinal 0"), ZE_KERNEL("ordinal 1"), ZE_KERNEL("ordinal 2"),
	ZE_KERNEL("ordinal 3"), ZE_KERNEL("ordinal 4"), ZE_KERNEL("ordinal 5"),
	ZE_KERNEL("ordinal 6"), ZE_KERNEL("ordinal 7"),
};
static const char *const kernel_text_mixed = ZE_KERNEL("ordinal per device");

static const char *kernel_interface(void)
{
	int o = atomic_load(&compute_ordinal);

	if (o >= 0 && (size_t)o < sizeof(kernel_text) / sizeof(kernel_text[0]))
		return kernel_text[o];
	return kernel_text_mixed;
}

static const char *zb_interface(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t whylen)
{
	int p2p = dir == NBW_P2P, link = atomic_load(&link_engines) ? 1 : 0;
	int fallback = atomic_load(&compute_fallback) ? 1 : 0;

	if ((unsigned)dir >= NBW_DIR_COUNT) {
		snprintf(why, whylen, "unknown direction");
		return NULL;
	}
	switch (mode) {
	case NBW_MODE_SYNC:
		return sync_text[p2p][link][fallback];
	case NBW_MODE_ASYNC:
		return async_text[p2p][link][fallback];
	case NBW_MODE_NOWAIT:
		snprintf(why, whylen,
			 "nowait is OpenMP's target update nowait, not a Level Zero call (the "
			 "asynchronous immediate command list is async mode)");
		return NULL;
	case NBW_MODE_PARALLEL:
		snprintf(why, whylen,
			 "parallel splits one copy over host threads (host backend only), not a "
			 "Level Zero call");
		return NULL;
	case NBW_MODE_KERNEL:
		return kernel_interface();
	case NBW_MODE_CHASE:
		snprintf(why, whylen,
			 "a pointer chase needs a device kernel of dependent loads, and Level Zero "
			 "runs only SPIR-V or native modules (zeModuleCreate), which nodebw does "
			 "not ship");
		return NULL;
	default:
		break;
	}
	snprintf(why, whylen, "unknown mode");
	return NULL;
}

/* Why device v cannot run kernel mode (into last_err), or 0 when it can. */
static int kernel_refusal(const struct ze_dev *v, int dev)
{
	if (!v->has_compute) {
		set_err("kernel mode: device %d (%s) has no compute queue group", dev,
			v->props.name);
		return -1;
	}
	if (!v->main.copy_only) {
		set_err("kernel mode: device %d (%s) has no copy-only queue group, so its sync "
			"and async copies run on the compute queue group (ordinal %u) already",
			dev, v->props.name, v->compute.ordinal);
		return -1;
	}
	return 0;
}

/* Whether some device can run kernel mode; when none can, last_err says why (the first's). */
static bool any_kernel_device(struct nbw_backend *be)
{
	char first[NBW_REASON_LEN] = "";

	for (int i = 0; be && i < be->ndev; i++) {
		if (!kernel_refusal(&be->dev[i], i))
			return true;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", last_err);
	}
	set_err("%s", first[0] ? first : "kernel mode: no Level Zero device");
	return false;
}

static int zb_supports(struct nbw_backend *be, enum nbw_dir dir, enum nbw_mode mode,
		       enum nbw_hostmem mem, char *why, size_t whylen)
{
	if (!zb_interface(dir, mode, why, whylen))
		return -1;
	if (mode == NBW_MODE_KERNEL && !any_kernel_device(be)) {
		snprintf(why, whylen, "%s", last_err);
		return -1;
	}
	if (mem == NBW_HOSTMEM_REGISTERED) {
		snprintf(why, whylen,
			 "registered host memory is not available in Level Zero 1.8: no call "
			 "page-locks existing memory (only zeMemAllocHost allocates it)");
		return -1;
	}
	return 0;
}

static const char *zb_hostmem_note(struct nbw_backend *be, enum nbw_hostmem mem, int dev)
{
	switch (mem) {
	case NBW_HOSTMEM_PAGEABLE:
		return "posix_memalign: pageable, not a Level Zero allocation; the driver makes "
		       "it reachable for the copy itself (imports or stages it)";
	case NBW_HOSTMEM_PINNED:
		return "zeMemAllocHost: USM host memory of the driver's context, page-locked and "
		       "directly accessible by its devices";
	case NBW_HOSTMEM_REGISTERED:
		return "not available: Level Zero 1.8 cannot page-lock existing host memory";
	case NBW_HOSTMEM_HUGEPAGE:
		return "huge pages but pageable: mmap(MAP_HUGETLB), else THP-advised mmap; Level "
		       "Zero 1.8 cannot page-lock existing memory (the driver imports or stages it)";
	default:
		return "";
	}
}

static const char *bw_unit(ze_bandwidth_unit_t u)
{
	switch (u) {
	case ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC:
		return "bytes/ns";
	case ZE_BANDWIDTH_UNIT_BYTES_PER_CLOCK:
		return "bytes/clock";
	default:
		return "(unit unknown)";
	}
}

static const char *lat_unit(ze_latency_unit_t u)
{
	switch (u) {
	case ZE_LATENCY_UNIT_NANOSEC:
		return "ns";
	case ZE_LATENCY_UNIT_CLOCK:
		return "clocks";
	case ZE_LATENCY_UNIT_HOP:
		return "hops";
	default:
		return "(unit unknown)";
	}
}

/* "device D's link copy engines: queue group ordinal 2 (7 queues), queue 1" for a copy from
 * device src (v) to device dst, into path_buf at *off. */
static void add_engine(const struct ze_dev *v, int src, int dst, size_t *off)
{
	const struct ze_engine *e = v->has_link ? &v->link : &v->main;
	uint32_t ordinal, index;

	copy_queue(v, NBW_P2P, dst, &ordinal, &index);
	buf_add(path_buf, sizeof(path_buf), off, "device %d's %s: queue group ordinal %u (%u "
		"queue%s), queue %u%s", src,
		v->has_link	      ? "link copy engines"
		: e->copy_only ? "main copy engine"
			       : "compute engine (no copy-only queue group)",
		ordinal, e->nqueues, e->nqueues == 1 ? "" : "s", index,
		v->has_link || !e->copy_only ? "" : "; the device has no link copy engines");
}

static const char *zb_p2p_path(struct nbw_backend *be, int src, int dst)
{
	ze_device_p2p_bandwidth_exp_properties_t bw = {
		.stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_BANDWIDTH_EXP_PROPERTIES,
	};
	ze_device_p2p_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES };
	const struct ze_dev *a, *b;
	size_t len = sizeof(path_buf), off = 0;
	ze_bool_t can = 0;

	if (src < 0 || src >= be->ndev || dst < 0 || dst >= be->ndev) {
		snprintf(path_buf, len, "invalid device pair (%d, %d)", src, dst);
		return path_buf;
	}
	a = &be->dev[src];
	b = &be->dev[dst];
	if (src == dst) {
		buf_add(path_buf, len, &off, "same-GPU copy in device memory, not a peer link (on ");
		add_engine(a, src, dst, &off);
		buf_add(path_buf, len, &off, ")");
		return path_buf;
	}
	if (a->drv != b->drv) {
		snprintf(path_buf, len,
			 "devices %d and %d belong to different Level Zero drivers (separate "
			 "contexts): no copy path between them", src, dst);
		return path_buf;
	}
	/* The engine first: the core keeps the first 255 characters of the path. */
	buf_add(path_buf, len, &off, "on ");
	add_engine(a, src, dst, &off);
	if (!ZE_CALL(zeDeviceCanAccessPeer, a->h, b->h, &can)) {
		buf_add(path_buf, len, &off, "; %s", last_err);
		return path_buf;
	}
	buf_add(path_buf, len, &off, "; zeDeviceCanAccessPeer(%d, %d) = %u%s", src, dst, can,
		can ? " (Level Zero grants peer access implicitly: no enable call)" :
		      " (no direct access: the driver must stage the copy or fail it)");
	if (a->drv->bw_ext)
		p.pNext = &bw;
	if (ZE_CALL(zeDeviceGetP2PProperties, a->h, b->h, &p)) {
		buf_add(path_buf, len, &off, "; zeDeviceGetP2PProperties: access %s, atomics %s",
			p.flags & ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS ? "yes" : "no",
			p.flags & ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS ? "yes" : "no");
		if (a->drv->bw_ext)
			buf_add(path_buf, len, &off,
				", link design bandwidth %u logical / %u physical %s, latency %u "
				"logical / %u physical %s", bw.logicalBandwidth,
				bw.physicalBandwidth, bw_unit(bw.bandwidthUnit), bw.logicalLatency,
				bw.physicalLatency, lat_unit(bw.latencyUnit));
	} else {
		buf_add(path_buf, len, &off, "; %s", last_err);
	}
	return path_buf;
}

/* Context for host memory meant for \p dev (-1: the first device's driver). */
static struct ze_drv *host_drv(struct nbw_backend *be, int dev)
{
	if (dev >= be->ndev)
		return NULL;
	return be->dev[dev < 0 ? 0 : dev].drv;
}

static int zb_alloc(struct nbw_backend *be, struct nbw_buf *b)
{
	size_t n = b->bytes ? b->bytes : 1;
	ze_host_mem_alloc_desc_t hd = { .stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC };
	ze_device_mem_alloc_desc_t dd = { .stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC };
	struct ze_drv *d;
	struct ze_dev *v;

	b->ptr = NULL;
	switch (b->loc) {
	case NBW_LOC_HOST_PAGEABLE:
		if (posix_memalign(&b->ptr, 4096, n)) {
			b->ptr = NULL;
			set_err("posix_memalign(%zu bytes) failed", n);
			return -ENOMEM;
		}
		return 0;
	case NBW_LOC_HOST_PINNED:
		d = host_drv(be, b->device);
		if (!d) {
			set_err("pinned memory for invalid device %d", b->device);
			return -EINVAL;
		}
		if (drv_ready(be, d))
			return -ENOMEM;
		if (!ZE_CALL(zeMemAllocHost, d->ctx, &hd, n, 4096, &b->ptr)) {
			add_err(" (%zu bytes)", n);
			b->ptr = NULL;
			return -ENOMEM;
		}
		return 0;
	case NBW_LOC_HOST_REGISTERED:
		set_err("registered host memory is not available in Level Zero 1.8");
		return -ENOMEM;
	case NBW_LOC_HOST_HUGEPAGE: {
		char why[NBW_REASON_LEN];
		int rc = nbw_hugepage_alloc(b->bytes, &b->ptr, NULL, why, sizeof(why));
		if (rc) {
			b->ptr = NULL;
			set_err("%s", why);
		}
		return rc;
	}
	case NBW_LOC_DEVICE:
		if (b->device < 0 || b->device >= be->ndev) {
			set_err("device memory on invalid device %d", b->device);
			return -EINVAL;
		}
		v = &be->dev[b->device];
		if (drv_ready(be, v->drv))
			return -ENOMEM;
		if (!ZE_CALL(zeMemAllocDevice, v->drv->ctx, &dd, n, 4096, v->h, &b->ptr)) {
			add_err(" (%zu bytes on device %d)", n, b->device);
			b->ptr = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	set_err("unknown buffer location %d", (int)b->loc);
	return -EINVAL;
}

static void zb_free(struct nbw_backend *be, struct nbw_buf *b)
{
	struct ze_drv *d = NULL;

	if (!b->ptr)
		return;
	switch (b->loc) {
	case NBW_LOC_HOST_PAGEABLE:
		free(b->ptr);
		break;
	case NBW_LOC_HOST_HUGEPAGE:
		nbw_hugepage_free(b->ptr, b->bytes);
		break;
	case NBW_LOC_HOST_PINNED:
		d = host_drv(be, b->device);
		break;
	case NBW_LOC_DEVICE:
		if (b->device >= 0 && b->device < be->ndev)
			d = be->dev[b->device].drv;
		break;
	default:
		break;
	}
	if (d)
		ZE_CALL(zeMemFree, d->ctx, b->ptr);
	b->ptr = NULL;
}

/* An immediate command list on queue \p index of queue group \p ordinal of the device. */
static bool make_list(struct nbw_backend *be, struct ze_dev *v, ze_command_queue_mode_t mode,
		      uint32_t ordinal, uint32_t index, ze_command_list_handle_t *list)
{
	ze_command_queue_desc_t qd = {
		.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
		.ordinal = ordinal,
		.index = index,
		.mode = mode,
		.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL,
	};

	return drv_ready(be, v->drv) == 0 &&
	       ZE_CALL(zeCommandListCreateImmediate, v->drv->ctx, v->h, &qd, list);
}

/* Untimed blocking copy on the device's own synchronous helper list. */
static int helper_copy(struct nbw_backend *be, int dev, void *dst, const void *src, size_t n)
{
	struct ze_dev *v;
	int rc = 0;

	if (dev < 0 || dev >= be->ndev) {
		set_err("copy on invalid device %d", dev);
		return -EINVAL;
	}
	v = &be->dev[dev];
	pthread_mutex_lock(&v->lock);
	if (!v->helper && !make_list(be, v, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, v->main.ordinal, 0,
				     &v->helper))
		rc = -EIO;
	if (!rc && !ZE_CALL(zeCommandListAppendMemoryCopy, v->helper, dst, src, n, NULL, 0, NULL))
		rc = -EIO;
	pthread_mutex_unlock(&v->lock);
	return rc;
}

static int zb_write(struct nbw_backend *be, struct nbw_buf *dst, const void *host, size_t n)
{
	if (dst->loc != NBW_LOC_DEVICE) {
		memcpy(dst->ptr, host, n);
		return 0;
	}
	return helper_copy(be, dst->device, dst->ptr, host, n);
}

static int zb_read(struct nbw_backend *be, void *host, const struct nbw_buf *src, size_t n)
{
	if (src->loc != NBW_LOC_DEVICE) {
		memcpy(host, src->ptr, n);
		return 0;
	}
	return helper_copy(be, src->device, host, src->ptr, n);
}

/* The device whose queue runs the copy: the GPU end of a host copy, the source of a P2P. */
static int exec_device(const struct nbw_xfer *x)
{
	switch (x->dir) {
	case NBW_HTOD:
		return x->dst->loc == NBW_LOC_DEVICE ? x->dst->device : -1;
	case NBW_DTOH:
	case NBW_P2P:
		return x->src->loc == NBW_LOC_DEVICE ? x->src->device : -1;
	default:
		return -1;
	}
}

static void free_xfer(struct ze_xfer *st)
{
	if (st->done)
		ZE_CALL(zeEventDestroy, st->done);
	if (st->pool)
		ZE_CALL(zeEventPoolDestroy, st->pool);
	if (st->list)
		ZE_CALL(zeCommandListDestroy, st->list);
	free(st);
}

/* The copy's signal event, from a pool with kernel timestamps that the host can wait on. */
static int make_done_event(struct ze_xfer *st)
{
	ze_event_pool_desc_t pd = {
		.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
		.flags = ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
		.count = 1,
	};
	ze_event_desc_t ed = {
		.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
		.index = 0,
		.signal = ZE_EVENT_SCOPE_FLAG_HOST,
		.wait = ZE_EVENT_SCOPE_FLAG_HOST,
	};

	if (!ZE_CALL(zeEventPoolCreate, st->dev->drv->ctx, &pd, 1, &st->dev->h, &st->pool) ||
	    !ZE_CALL(zeEventCreate, st->pool, &ed, &st->done))
		return -EIO;
	return 0;
}

static int zb_prepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct ze_xfer *st;
	int d = exec_device(x), rc;

	x->priv = NULL;
	if (x->mode != NBW_MODE_SYNC && x->mode != NBW_MODE_ASYNC && x->mode != NBW_MODE_KERNEL) {
		set_err("mode %d is not a Level Zero mode", (int)x->mode);
		return -EINVAL;
	}
	if (d < 0 || d >= be->ndev) {
		set_err("transfer without a valid device buffer (device %d)", d);
		return -EINVAL;
	}
	if (x->mode == NBW_MODE_KERNEL && kernel_refusal(&be->dev[d], d))
		return -EINVAL;
	if (x->dir == NBW_P2P) {
		int t = x->dst->device;

		if (x->dst->loc != NBW_LOC_DEVICE || t < 0 || t >= be->ndev) {
			set_err("P2P destination is not a device buffer");
			return -EINVAL;
		}
		if (be->dev[d].drv != be->dev[t].drv) {
			set_err("P2P between devices %d and %d of different Level Zero drivers "
				"(separate contexts) is not possible", d, t);
			return -EINVAL;
		}
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		set_err("out of host memory");
		return -ENOMEM;
	}
	st->dev = &be->dev[d];
	if (x->mode == NBW_MODE_KERNEL) {
		st->ordinal = st->dev->compute.ordinal;
		st->index = 0;
	} else {
		copy_queue(st->dev, x->dir, x->dst->device, &st->ordinal, &st->index);
	}
	rc = make_list(be, st->dev, x->mode == NBW_MODE_SYNC ? ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS :
							    ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
		       st->ordinal, st->index, &st->list) ? 0 : -EIO;
	if (!rc && x->mode != NBW_MODE_SYNC)
		rc = make_done_event(st);
	if (rc) {
		free_xfer(st);
		return rc;
	}
	x->priv = st;
	return 0;
}

/*
 * A copy submitted behind the gate and never completed (the measurement failed, or release()
 * never came): open its gate if it is still closed, wait until the copy is done, and close
 * that gate again, so the command list and event are idle when they are destroyed and the
 * next round still starts behind a closed gate. Under the gate lock, so that two streams
 * draining at once cannot close the gate between the other's opening and its copy's start:
 * whoever finds it closed opens it again.
 */
static void drain(struct nbw_backend *be, struct ze_xfer *st)
{
	ze_result_t status;
	bool opened;

	pthread_mutex_lock(&be->gate_lock);
	status = zeEventQueryStatus(st->gate);
	opened = status != ZE_RESULT_SUCCESS;
	if (opened)
		ZE_CALL(zeEventHostSignal, st->gate);
	ZE_CALL(zeEventHostSynchronize, st->done, UINT64_MAX);
	if (opened)
		ZE_CALL(zeEventHostReset, st->gate);
	pthread_mutex_unlock(&be->gate_lock);
	st->gate = NULL;
}

static void zb_unprepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct ze_xfer *st = x->priv;

	if (!st)
		return;
	if (st->gate)
		drain(be, st);
	free_xfer(st);
	x->priv = NULL;
}

/* Global (wall-clock) ticks between the start and end of the copy, in seconds. */
static double ticks_to_s(const struct ze_dev *v, const ze_kernel_timestamp_result_t *ts)
{
	uint64_t ticks = (ts->global.kernelEnd - ts->global.kernelStart) & v->ts_mask;

	if (v->ns_per_tick <= 0)
		return -1;
	return (double)ticks * v->ns_per_tick * 1e-9;
}

/* Wait for the copy's event, then time it from the event's kernel timestamps. */
static int finish(struct ze_xfer *st, struct nbw_xfer *x)
{
	ze_kernel_timestamp_result_t ts;

	if (!ZE_CALL(zeEventHostSynchronize, st->done, UINT64_MAX) ||
	    !ZE_CALL(zeEventQueryKernelTimestamp, st->done, &ts))
		return -EIO;
	x->device_s = ticks_to_s(st->dev, &ts);
	return 0;
}

static int zb_transfer(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct ze_xfer *st = x->priv;

	if (!st) {
		set_err("transfer without prepare");
		return -EINVAL;
	}
	if (x->mode == NBW_MODE_SYNC)
		return ZE_CALL(zeCommandListAppendMemoryCopy, st->list, x->dst->ptr, x->src->ptr,
			       x->bytes, NULL, 0, NULL) ? 0 : -EIO;
	if (!ZE_CALL(zeEventHostReset, st->done) ||
	    !ZE_CALL(zeCommandListAppendMemoryCopy, st->list, x->dst->ptr, x->src->ptr, x->bytes,
		     st->done, 0, NULL))
		return -EIO;
	return finish(st, x);
}

/* ---- face probes: the region copy (include/nodebw/face.h) ----------------------------- */

static const char *zb_face_interface(struct nbw_backend *be, enum nbw_dir dir,
				     enum nbw_face_method method, enum nbw_mode mode, char *why,
				     size_t whylen)
{
	(void)be;
	(void)dir;
	if (method == NBW_FACE_PACK) {
		snprintf(why, whylen, "the gather and scatter are device kernels, and Level Zero "
				      "runs only SPIR-V or native modules (zeModuleCreate), of "
				      "which nodebw ships none; the region copy "
				      "(zeCommandListAppendMemoryCopyRegion) is measured");
		return NULL;
	}
	if (mode == NBW_MODE_SYNC)
		return "zeCommandListAppendMemoryCopyRegion (3-D: origins, width in bytes, rows, "
		       "slices; pitch and slice pitch of both boxes) on a synchronous immediate "
		       "command list";
	if (mode == NBW_MODE_ASYNC)
		return "zeCommandListAppendMemoryCopyRegion (3-D) on an asynchronous immediate "
		       "command list, zeEventHostSynchronize; event kernel timestamps";
	snprintf(why, whylen, "face copies run in the sync and async modes");
	return NULL;
}

static int copy_region(struct ze_xfer *st, const struct nbw_xfer *x, ze_event_handle_t done)
{
	const struct nbw_region *r = x->region;
	uint32_t pitch = (uint32_t)(r->dims[0] * r->elem);
	uint32_t slice = (uint32_t)(r->dims[0] * r->dims[1] * r->elem);
	ze_copy_region_t sr = { .originX = (uint32_t)(r->src_at[0] * r->elem),
				.originY = (uint32_t)r->src_at[1],
				.originZ = (uint32_t)r->src_at[2],
				.width = (uint32_t)(r->extent[0] * r->elem),
				.height = (uint32_t)r->extent[1],
				.depth = (uint32_t)r->extent[2] };
	ze_copy_region_t dr = sr;
	dr.originX = (uint32_t)(r->dst_at[0] * r->elem);
	dr.originY = (uint32_t)r->dst_at[1];
	dr.originZ = (uint32_t)r->dst_at[2];
	return ZE_CALL(zeCommandListAppendMemoryCopyRegion, st->list, x->dst->ptr, &dr, pitch,
		       slice, x->src->ptr, &sr, pitch, slice, done, 0, NULL)
		       ? 0
		       : -EIO;
}

static int zb_copy_rect(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	struct ze_xfer *st = x->priv;
	if (!st || !x->region) {
		set_err("copy_rect without prepare or a region");
		return -EINVAL;
	}
	if (x->mode == NBW_MODE_SYNC)
		return copy_region(st, x, NULL);
	if (!ZE_CALL(zeEventHostReset, st->done) || copy_region(st, x, st->done))
		return -EIO;
	return finish(st, x);
}

/* Enqueue the copy behind the current gate event of its driver and return at once. */
static int zb_submit(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct ze_xfer *st = x->priv;
	struct ze_drv *d;
	unsigned slot;

	if (!st || !st->done) {
		set_err("submit needs an async transfer prepared by the ze backend");
		return -1;
	}
	d = st->dev->drv;
	if (!gate_usable(d)) {
		set_err("%s", d->gate_err[0] ? d->gate_err : "no gate event on this driver");
		return -1;
	}
	slot = atomic_load(&be->gate_slot);
	if (!ZE_CALL(zeEventHostReset, st->done) ||
	    !ZE_CALL(zeCommandListAppendMemoryCopy, st->list, x->dst->ptr, x->src->ptr, x->bytes,
		     st->done, 1, &d->gate[slot]))
		return -EIO;
	/* From here the copy waits on that gate: unprepare() must drain it. */
	st->gate = d->gate[slot];
	return 0;
}

/*
 * Open the gate of every driver, then close the other gate for the next round. Resetting it
 * is safe here: each worker completed its copy of the previous round (which waited on that
 * gate) before it submitted to this round, and every submit of this round has returned.
 */
static int zb_release(struct nbw_backend *be)
{
	unsigned slot;
	int rc = 0;

	pthread_mutex_lock(&be->gate_lock);
	slot = atomic_load(&be->gate_slot);
	for (uint32_t i = 0; i < be->ndrv; i++)
		if (gate_usable(&be->drv[i]) &&
		    !ZE_CALL(zeEventHostSignal, be->drv[i].gate[slot]))
			rc = -EIO;
	for (uint32_t i = 0; i < be->ndrv; i++)
		if (gate_usable(&be->drv[i]) &&
		    !ZE_CALL(zeEventHostReset, be->drv[i].gate[slot ^ 1]))
			rc = -EIO;
	atomic_store(&be->gate_slot, slot ^ 1);
	pthread_mutex_unlock(&be->gate_lock);
	return rc;
}

static int zb_complete(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct ze_xfer *st = x->priv;
	int rc;

	if (!st || !st->done || !st->gate) {
		set_err("complete without a submitted async transfer");
		return -EINVAL;
	}
	rc = finish(st, x);
	if (rc == 0)
		st->gate = NULL;
	return rc;
}

static const char *zb_last_error(struct nbw_backend *be)
{
	return last_err;
}

const struct nbw_backend_ops nbw_backend_ze = {
	.abi = NBW_PROBE_ABI,
	.name = "ze",
	.description = "oneAPI Level Zero copies on copy-only queue groups (loader 1.8, API 1.4)",
	.open = zb_open,
	.close = zb_close,
	.device_count = zb_device_count,
	.device_info = zb_device_info,
	.versions = zb_versions,
	.interface = zb_interface,
	.supports = zb_supports,
	.hostmem_note = zb_hostmem_note,
	.p2p_path = zb_p2p_path,
	.peer_access = NULL,
	.alloc = zb_alloc,
	.free = zb_free,
	.write = zb_write,
	.read = zb_read,
	.prepare = zb_prepare,
	.unprepare = zb_unprepare,
	.transfer = zb_transfer,
	.submit = zb_submit,
	.release = zb_release,
	.complete = zb_complete,
	.device_timer = "zeEventQueryKernelTimestamp (global start/end ticks of the copy)",
	.last_error = zb_last_error,
	.face_interface = zb_face_interface,
	.copy_rect = zb_copy_rect,
};
