/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP offload backend: LLVM libomptarget's data-movement API.
 *
 *   sync    omp_target_memcpy (returns when the copy is complete)
 *   async   omp_target_memcpy_async with one depobj, then taskwait (as in the seed paper);
 *           in LLVM this is a hidden-helper task around a blocking copy
 *   nowait  target update to/from ... nowait, then taskwait: libomptarget's non-blocking
 *           task path; the host buffer is bound to our device buffer with
 *           omp_target_associate_ptr so that every mode copies into the same memory
 *   kernel  a target teams distribute parallel for copy loop on the device that loads or
 *           stores the other side (bw_omp/omp_kernel.c)
 *
 *   chase   one thread follows a pointer chain (omp_chase.c): a target region on the
 *           loading device, or the host thread for DtoH
 *
 * Device numbers: nodebw numbers the devices GPUs first, in the runtime's order, then the
 * rest (host plugin). libomptarget numbers them in the order the offload images were linked,
 * so in a build for x86_64-pc-linux-gnu,sm_90 the GPU would be runtime device 4; nodebw
 * device 0 is still the GPU, and its runtime number is recorded (nbw_device.runtime_id).
 *
 * This file is compiled with the offload flags and built into a shared library that is
 * never sanitised (LLVM 19 cannot link the sanitizer runtime into the device image).
 */
#include <errno.h>
#include <link.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/backends.h"
#include "nodebw/devorder.h"
#include "nodebw/face.h"
#include "nodebw/hugepage.h"
#include "nodebw/probe.h"
#include "omp_exchange.h"
#include "omp_face.h"
#include "omp_kernel.h"
#include "omp_chase.h"

/* Exported by libomptarget but not declared in LLVM 19's omp.h. */
void *llvm_omp_target_alloc_host(size_t size, int device_num);
void llvm_omp_target_free_host(void *ptr, int device_num);

enum omp_dev_kind { KIND_UNKNOWN, KIND_HOST_PLUGIN, KIND_NVPTX, KIND_AMDGCN };

struct nbw_backend {
	int ndev;
	int host;                 /* omp_get_initial_device() */
	/* Indexed by nodebw's device number: */
	enum omp_dev_kind *kind;
	int *arch;                /* sm_XX number for nvptx */
	int *rt;                  /* the runtime's device number */
};

static _Thread_local char last_err[NBW_REASON_LEN];

struct omp_xfer_state {
	omp_depend_t dep;
	int token;
	int associated_dev;       /* -1 when nothing was associated */
	void *associated_host;
};

/* Ask the device itself what it was compiled for: each offload target defines its own
 * architecture macros in the device pass, so the answer cannot come from the host side. */
static void query_kind(int dev, enum omp_dev_kind *kind, int *arch)
{
	int k = KIND_UNKNOWN, a = 0;
#pragma omp target device(dev) map(from : k, a)
	{
#if defined(__NVPTX__)
		k = KIND_NVPTX;
#if defined(__CUDA_ARCH__)
		a = __CUDA_ARCH__ / 10;
#endif
#elif defined(__AMDGCN__) || defined(__AMDGPU__)
		k = KIND_AMDGCN;
#elif defined(__x86_64__) || defined(__aarch64__) || defined(__powerpc64__)
		k = KIND_HOST_PLUGIN;
#endif
	}
	*kind = (enum omp_dev_kind)k;
	*arch = a;
}

static void ob_close(struct nbw_backend *be);

static int ob_open(struct nbw_backend **out, const struct nbw_backend_opts *opts, char *why,
		     size_t whylen)
{
	(void)opts; /* nothing of it is for this backend */
	int n = omp_get_num_devices();
	if (n <= 0) {
		const char *pol = getenv("OMP_TARGET_OFFLOAD");
		snprintf(why, whylen,
			 "libomptarget reports no offload device (omp_get_num_devices() = %d%s%s)",
			 n, pol ? ", OMP_TARGET_OFFLOAD=" : "", pol ? pol : "");
		return -ENODEV;
	}
	struct nbw_backend *be = calloc(1, sizeof(*be));
	if (!be)
		return -ENOMEM;
	be->ndev = n;
	be->host = omp_get_initial_device();
	be->kind = calloc((size_t)n, sizeof(*be->kind));
	be->arch = calloc((size_t)n, sizeof(*be->arch));
	be->rt = calloc((size_t)n, sizeof(*be->rt));
	enum omp_dev_kind *rkind = calloc((size_t)n, sizeof(*rkind));
	int *rarch = calloc((size_t)n, sizeof(*rarch));
	bool *isgpu = calloc((size_t)n, sizeof(*isgpu));
	if (!be->kind || !be->arch || !be->rt || !rkind || !rarch || !isgpu) {
		free(rkind);
		free(rarch);
		free(isgpu);
		ob_close(be);
		return -ENOMEM;
	}
	for (int r = 0; r < n; r++) {
		query_kind(r, &rkind[r], &rarch[r]);
		isgpu[r] = rkind[r] == KIND_NVPTX || rkind[r] == KIND_AMDGCN;
	}
	/* libomp starts its hidden helper threads at the first asynchronous target task and
	 * aborts the process ("OMP: Error #34") when it cannot: under an address-space limit
	 * (ulimit -v) that happened in the middle of a run, once the buffers had taken the room
	 * the threads' stacks need. Starting them here, before any buffer, makes such a limit
	 * an allocation error of the measurement that meets it instead. */
	int started = 0;
#pragma omp target nowait device(0) map(tofrom : started)
	started = 1;
#pragma omp taskwait
	(void)started;
	nbw_order_gpus_first(n, isgpu, be->rt);
	free(isgpu);
	for (int d = 0; d < n; d++) {
		be->kind[d] = rkind[be->rt[d]];
		be->arch[d] = rarch[be->rt[d]];
	}
	free(rkind);
	free(rarch);
	*out = be;
	return 0;
}

static void ob_close(struct nbw_backend *be)
{
	if (!be)
		return;
	free(be->kind);
	free(be->arch);
	free(be->rt);
	free(be);
}

static int ob_device_count(struct nbw_backend *be)
{
	return be->ndev;
}

static int ob_device_info(struct nbw_backend *be, int dev, struct nbw_device *out)
{
	if (dev < 0 || dev >= be->ndev)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->id = dev;
	out->runtime_id = be->rt[dev];
	switch (be->kind[dev]) {
	case KIND_HOST_PLUGIN:
		snprintf(out->kind, sizeof(out->kind), "host-plugin");
		snprintf(out->name, sizeof(out->name),
			 "libomptarget host plugin device %d (x86_64 CPU, not a GPU)", be->rt[dev]);
		snprintf(out->memory, sizeof(out->memory), "host memory (plain malloc)");
		break;
	case KIND_NVPTX:
		snprintf(out->kind, sizeof(out->kind), "cuda");
		snprintf(out->name, sizeof(out->name), "NVIDIA GPU (nvptx sm_%d)", be->arch[dev]);
		snprintf(out->memory, sizeof(out->memory), "GPU device memory");
		out->is_gpu = true;
		break;
	case KIND_AMDGCN:
		snprintf(out->kind, sizeof(out->kind), "amdgpu");
		snprintf(out->name, sizeof(out->name), "AMD GPU (amdgcn)");
		snprintf(out->memory, sizeof(out->memory), "GPU device memory");
		out->is_gpu = true;
		break;
	default:
		snprintf(out->kind, sizeof(out->kind), "unknown");
		snprintf(out->name, sizeof(out->name), "offload device %d of unknown kind",
			 be->rt[dev]);
		snprintf(out->memory, sizeof(out->memory), "unknown");
		break;
	}
	return 0;
}

struct lib_search {
	const char *needle;
	char path[512];
};

static int find_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct lib_search *s = data;
	if (info->dlpi_name && strstr(info->dlpi_name, s->needle)) {
		char *real = realpath(info->dlpi_name, NULL);
		snprintf(s->path, sizeof(s->path), "%s", real ? real : info->dlpi_name);
		free(real);
		return 1;
	}
	return 0;
}

static void ob_versions(struct nbw_backend *be, char *buf, size_t len)
{
	struct lib_search tgt = { .needle = "libomptarget.so" }, rt = { .needle = "libomp.so" };
	dl_iterate_phdr(find_lib, &tgt);
	dl_iterate_phdr(find_lib, &rt);
	/* The version is the soname's suffix: libomptarget.so.19.1 -> 19.1. */
	const char *ver = strstr(tgt.path, ".so.");
	snprintf(buf, len,
		 "openmp_macro=%d\nlibomptarget=%s\nlibomptarget_version=%s\nlibomp=%s\n"
		 "num_devices=%d\ninitial_device=%d\n",
		 _OPENMP, tgt.path[0] ? tgt.path : "not loaded", ver ? ver + 4 : "unknown",
		 rt.path[0] ? rt.path : "not loaded", be->ndev, be->host);
}

/* The chase (omp_chase.c): who follows the chain through which memory. */
static const char *chase_interface(enum nbw_dir dir)
{
	if (dir == NBW_HTOD)
		return "target region, 1 thread of the device: i = chain[i] through host memory "
		       "(is_device_ptr)";
	if (dir == NBW_P2P)
		return "target region, 1 thread of the destination device: i = chain[i] through "
		       "the source device's memory (is_device_ptr)";
	return "host thread: i = chain[i] through the device's memory";
}

/* Whether any device is a GPU (the chase's paths differ; GPU and host-plugin targets are
 * not mixed in one build by default). */
static bool any_gpu(const struct nbw_backend *be)
{
	for (int d = 0; be && d < be->ndev; d++)
		if (be->kind[d] == KIND_NVPTX || be->kind[d] == KIND_AMDGCN)
			return true;
	return false;
}

/* What a chase can load on GPUs: LLVM 19's omp.h has no query of whether a device can
 * address host memory or another device's memory, so only the documented case runs. */
static int chase_supports(struct nbw_backend *be, enum nbw_dir dir, enum nbw_hostmem mem,
			  char *why, size_t whylen)
{
	if (!any_gpu(be))
		return 0; /* host plugin: every buffer is host memory, addressable everywhere */
	if (dir == NBW_HTOD && mem == NBW_HOSTMEM_PINNED)
		return 0; /* llvm_omp_target_alloc_host: page-locked, mapped for the device */
	if (dir == NBW_HTOD)
		snprintf(why, whylen,
			 "a GPU thread can load host memory only where it is mapped for the device "
			 "(llvm_omp_target_alloc_host, the pinned kind); pageable memory is not");
	else if (dir == NBW_P2P)
		snprintf(why, whylen,
			 "LLVM 19's OpenMP API cannot say whether a GPU can address another GPU's "
			 "memory (no peer-access query or enable in omp.h), so no chase through it");
	else
		snprintf(why, whylen,
			 "a host thread cannot load GPU memory from omp_target_alloc (not mapped "
			 "into the host's address space)");
	return -1;
}

static const char *ob_interface(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t whylen)
{
	switch (mode) {
	case NBW_MODE_SYNC:
		return "omp_target_memcpy";
	case NBW_MODE_ASYNC:
		return "omp_target_memcpy_async (1 depobj inout) + taskwait";
	case NBW_MODE_NOWAIT:
		if (dir == NBW_HTOD)
			return "target update to(...) nowait + taskwait (omp_target_associate_ptr)";
		if (dir == NBW_DTOH)
			return "target update from(...) nowait + taskwait (omp_target_associate_ptr)";
		snprintf(why, whylen,
			 "OpenMP has no non-blocking device-to-device construct: target update "
			 "moves data between host and device only");
		return NULL;
	case NBW_MODE_PARALLEL:
		snprintf(why, whylen,
			 "an all-cores host memcpy is the host backend's reference, not an OpenMP "
			 "transfer");
		return NULL;
	case NBW_MODE_KERNEL:
		return omp_kernel_interface(dir);
	case NBW_MODE_CHASE:
		return chase_interface(dir);
	default:
		break;
	}
	snprintf(why, whylen, "unknown mode");
	return NULL;
}

static int ob_supports(struct nbw_backend *be, enum nbw_dir dir, enum nbw_mode mode,
		       enum nbw_hostmem mem, char *why, size_t whylen)
{
	if (mode == NBW_MODE_CHASE && chase_supports(be, dir, mem, why, whylen))
		return -1;
	if (mem == NBW_HOSTMEM_REGISTERED) {
		snprintf(why, whylen,
			 "OpenMP has no portable call to page-lock existing host memory "
			 "(llvm_omp_target_lock_mem does nothing in LLVM 19's CUDA plugin)");
		return -1;
	}
	if (mode == NBW_MODE_KERNEL) {
		struct omp_kernel_devs k = { .ndev = be->ndev, .ngpu = 0 };
		for (int d = 0; d < be->ndev; d++)
			k.ngpu += be->kind[d] != KIND_HOST_PLUGIN;
		return omp_kernel_supports(&k, dir, mem, why, whylen);
	}
	return 0;
}

static const char *ob_hostmem_note(struct nbw_backend *be, enum nbw_hostmem mem, int dev)
{
	enum omp_dev_kind kind = dev >= 0 && dev < be->ndev ? be->kind[dev] : KIND_UNKNOWN;
	switch (mem) {
	case NBW_HOSTMEM_PAGEABLE:
		return "pageable: posix_memalign";
	case NBW_HOSTMEM_PINNED:
		if (kind == KIND_HOST_PLUGIN)
			return "pinned: llvm_omp_target_alloc_host (host plugin: plain malloc, not "
			       "page-locked)";
		if (kind == KIND_AMDGCN)
			return "pinned: llvm_omp_target_alloc_host (fine-grained host pool)";
		return "pinned: llvm_omp_target_alloc_host (page-locked, cuMemAllocHost)";
	case NBW_HOSTMEM_HUGEPAGE:
		return "huge pages but pageable: mmap(MAP_HUGETLB), else THP-advised mmap "
		       "(MADV_HUGEPAGE); OpenMP cannot page-lock existing host memory";
	default:
		return "";
	}
}

static const char *ob_p2p_path(struct nbw_backend *be, int src, int dst)
{
	if (src == dst)
		return "same device: a copy inside one device's memory, not a peer link";
	enum omp_dev_kind a = be->kind[src], b = be->kind[dst];
	if (a != b)
		return "host-staged: the devices belong to different plugins, libomptarget "
		       "copies through a malloc buffer";
	if (a == KIND_HOST_PLUGIN)
		return "host-staged: host plugin devices are host memory; libomptarget copies "
		       "device -> malloc buffer -> device (not a peer link)";
	if (a == KIND_NVPTX)
		return "CUDA plugin: cuMemcpyPeerAsync when cuDeviceCanAccessPeer allows, else "
		       "driver-staged cuMemcpyDtoDAsync";
	if (a == KIND_AMDGCN)
		return "AMDGPU plugin: hsa_amd_memory_async_copy between agents";
	return "unknown";
}

static int ob_alloc(struct nbw_backend *be, struct nbw_buf *b)
{
	b->ptr = NULL;
	switch (b->loc) {
	case NBW_LOC_HOST_PAGEABLE:
		if (posix_memalign(&b->ptr, 4096, b->bytes))
			b->ptr = NULL;
		break;
	case NBW_LOC_HOST_PINNED:
		if (b->device < 0 || b->device >= be->ndev)
			return -EINVAL;
		b->ptr = llvm_omp_target_alloc_host(b->bytes, be->rt[b->device]);
		break;
	case NBW_LOC_DEVICE:
		if (b->device < 0 || b->device >= be->ndev)
			return -EINVAL;
		b->ptr = omp_target_alloc(b->bytes, be->rt[b->device]);
		break;
	case NBW_LOC_HOST_REGISTERED:
		snprintf(last_err, sizeof(last_err), "registered host memory is not supported");
		return -EINVAL;
	case NBW_LOC_HOST_HUGEPAGE: {
		int rc = nbw_hugepage_alloc(b->bytes, &b->ptr, NULL, last_err, sizeof(last_err));
		if (rc)
			b->ptr = NULL;
		return rc;
	}
	}
	if (!b->ptr) {
		snprintf(last_err, sizeof(last_err), "%s(%zu bytes) failed",
			 b->loc == NBW_LOC_DEVICE	 ? "omp_target_alloc"
			 : b->loc == NBW_LOC_HOST_PINNED ? "llvm_omp_target_alloc_host"
							 : "posix_memalign",
			 b->bytes);
		return -ENOMEM;
	}
	return 0;
}

static void ob_free(struct nbw_backend *be, struct nbw_buf *b)
{
	if (!b->ptr)
		return;
	switch (b->loc) {
	case NBW_LOC_HOST_PAGEABLE:
		free(b->ptr);
		break;
	case NBW_LOC_HOST_PINNED:
		llvm_omp_target_free_host(b->ptr, b->device >= 0 && b->device < be->ndev
							   ? be->rt[b->device] : 0);
		break;
	case NBW_LOC_DEVICE:
		if (b->device >= 0 && b->device < be->ndev)
			omp_target_free(b->ptr, be->rt[b->device]);
		break;
	case NBW_LOC_HOST_REGISTERED:
		break;
	case NBW_LOC_HOST_HUGEPAGE:
		nbw_hugepage_free(b->ptr, b->bytes);
		break;
	}
	b->ptr = NULL;
}

static int dev_of(struct nbw_backend *be, const struct nbw_buf *b)
{
	return b->loc == NBW_LOC_DEVICE ? be->rt[b->device] : be->host;
}

static int memcpy_rc(int rc, const char *what)
{
	if (rc == 0)
		return 0;
	snprintf(last_err, sizeof(last_err), "%s returned %d", what, rc);
	return -EIO;
}

static int ob_write(struct nbw_backend *be, struct nbw_buf *dst, const void *host, size_t n)
{
	return memcpy_rc(omp_target_memcpy(dst->ptr, host, n, 0, 0, dev_of(be, dst), be->host),
			 "omp_target_memcpy");
}

static int ob_read(struct nbw_backend *be, void *host, const struct nbw_buf *src, size_t n)
{
	return memcpy_rc(omp_target_memcpy(host, src->ptr, n, 0, 0, be->host, dev_of(be, src)),
			 "omp_target_memcpy");
}

static int ob_prepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct omp_xfer_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->associated_dev = -1;
	if (x->mode == NBW_MODE_ASYNC) {
#pragma omp depobj(st->dep) depend(inout : st->token)
	} else if (x->mode == NBW_MODE_NOWAIT) {
		struct nbw_buf *h = x->dir == NBW_HTOD ? x->src : x->dst;
		struct nbw_buf *d = x->dir == NBW_HTOD ? x->dst : x->src;
		int rc = omp_target_associate_ptr(h->ptr, d->ptr, x->bytes, 0, dev_of(be, d));
		if (rc) {
			snprintf(last_err, sizeof(last_err),
				 "omp_target_associate_ptr returned %d", rc);
			free(st);
			return -EIO;
		}
		st->associated_dev = dev_of(be, d);
		st->associated_host = h->ptr;
	}
	x->priv = st;
	return 0;
}

static void ob_unprepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	struct omp_xfer_state *st = x->priv;
	if (!st)
		return;
	if (x->mode == NBW_MODE_ASYNC) {
#pragma omp depobj(st->dep) destroy
	}
	if (st->associated_dev >= 0)
		omp_target_disassociate_ptr(st->associated_host, st->associated_dev);
	free(st);
	x->priv = NULL;
}

static int ob_transfer(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct omp_xfer_state *st = x->priv;
	int sd = dev_of(be, x->src), dd = dev_of(be, x->dst);
	switch (x->mode) {
	case NBW_MODE_SYNC:
		return memcpy_rc(omp_target_memcpy(x->dst->ptr, x->src->ptr, x->bytes, 0, 0, dd, sd),
				 "omp_target_memcpy");
	case NBW_MODE_ASYNC: {
		int rc = omp_target_memcpy_async(x->dst->ptr, x->src->ptr, x->bytes, 0, 0, dd, sd,
						 1, &st->dep);
#pragma omp taskwait
		return memcpy_rc(rc, "omp_target_memcpy_async");
	}
	case NBW_MODE_NOWAIT: {
		char *h = x->dir == NBW_HTOD ? x->src->ptr : x->dst->ptr;
		size_t n = x->bytes;
		int dev = x->dir == NBW_HTOD ? dd : sd;
		if (x->dir == NBW_HTOD) {
#pragma omp target update to(h[0 : n]) device(dev) nowait
		} else {
#pragma omp target update from(h[0 : n]) device(dev) nowait
		}
#pragma omp taskwait
		return 0;
	}
	case NBW_MODE_KERNEL:
		/* The device that loads the other side: DtoH the source, else the destination. */
		omp_kernel_copy(x->dst->ptr, x->src->ptr, x->bytes, x->dir == NBW_DTOH ? sd : dd);
		return 0;
	case NBW_MODE_CHASE:
		if (x->dir == NBW_DTOH) {
			nbw_omp_chase_host(x->src->ptr, x->chase_loads, x->dst->ptr);
			return 0;
		}
		return nbw_omp_chase_device(dd, x->src->ptr, x->chase_loads, x->dst->ptr);
	default:
		break;
	}
	snprintf(last_err, sizeof(last_err), "unsupported mode");
	return -EINVAL;
}

/* ---- face probes (omp_face.c) --------------------------------------------------------- */

static const char *ob_face_interface(struct nbw_backend *be, enum nbw_dir dir,
				     enum nbw_face_method method, enum nbw_mode mode, char *why,
				     size_t whylen)
{
	(void)be;
	(void)dir;
	return omp_face_interface(method, mode, why, whylen);
}

static bool is_gpu(const struct nbw_backend *be, const struct nbw_buf *b)
{
	return b->loc == NBW_LOC_DEVICE &&
	       (be->kind[b->device] == KIND_NVPTX || be->kind[b->device] == KIND_AMDGCN);
}

static int ob_copy_rect(struct nbw_backend *be, struct nbw_xfer *x)
{
	struct omp_xfer_state *st = x->priv;
	bool async = x->mode == NBW_MODE_ASYNC;
	if (async && !st) {
		snprintf(last_err, sizeof(last_err), "the face copy was not prepared");
		return -EINVAL;
	}
	int rc = omp_face_rect(x->dst->ptr, x->src->ptr, x->region, dev_of(be, x->dst),
			       dev_of(be, x->src), async, async ? &st->dep : NULL);
	return memcpy_rc(rc, async ? "omp_target_memcpy_rect_async" : "omp_target_memcpy_rect");
}

static int ob_pack(struct nbw_backend *be, const struct nbw_buf *box, const struct nbw_region *r,
		   const size_t at[3], struct nbw_buf *lin, bool unpack)
{
	omp_face_pack(box->ptr, r, at, lin->ptr, unpack, dev_of(be, box), is_gpu(be, box), NULL);
	return 0;
}

static int ob_exchange(struct nbw_backend *be, const struct nbw_exchange_msg *m, unsigned n,
		       unsigned fields, enum nbw_mode mode)
{
	struct omp_xmsg x[OMP_XMSG_MAX];
	if (n > OMP_XMSG_MAX || fields < 1 || fields > NBW_FACE_MAX_FIELDS ||
	    (mode != NBW_MODE_SYNC && mode != NBW_MODE_ASYNC)) {
		snprintf(last_err, sizeof(last_err), "an exchange step of %u messages and %u "
			 "fields (at most %d and %d, in the sync and async modes)", n, fields,
			 OMP_XMSG_MAX, NBW_FACE_MAX_FIELDS);
		return -EINVAL;
	}
	for (unsigned i = 0; i < n; i++) {
		bool pack = m[i].region->method == NBW_FACE_PACK;
		x[i] = (struct omp_xmsg){
			.region = m[i].region, .hregion = m[i].hregion,
			.src = m[i].src->ptr, .dst = m[i].dst->ptr,
			.lsrc = pack ? m[i].lsrc->ptr : NULL, .ldst = pack ? m[i].ldst->ptr : NULL,
			.hbox = m[i].hbox ? m[i].hbox->ptr : NULL,
			.sd = dev_of(be, m[i].src), .dd = dev_of(be, m[i].dst), .host = be->host,
			.sender = m[i].src->device, .sgpu = is_gpu(be, m[i].src),
			.dgpu = is_gpu(be, m[i].dst), .bytes = m[i].bytes,
		};
	}
	int who = -1;
	int rc = omp_exchange_step(x, n, fields, mode == NBW_MODE_ASYNC, &who);
	if (rc == 0)
		return 0;
	snprintf(last_err, sizeof(last_err), "a copy of device %d's messages returned %d", who,
		 rc);
	return -EIO;
}

static const char *ob_exchange_interface(struct nbw_backend *be, enum nbw_mode mode)
{
	(void)be;
	return mode == NBW_MODE_ASYNC
		       ? "a parallel region with a host thread per sending device; each enqueues "
			 "its messages (target nowait depend kernels, omp_target_memcpy[_rect]_"
			 "async) chained on one depobj, then a taskwait"
		       : "a parallel region with a host thread per sending device; each makes its "
			 "messages' blocking calls in turn";
}

static const char *ob_last_error(struct nbw_backend *be)
{
	(void)be;
	return last_err;
}

const struct nbw_backend_ops nbw_backend_omp = {
	.abi = NBW_PROBE_ABI,
	.name = "omp",
	.description = "OpenMP offload through LLVM libomptarget",
	.open = ob_open,
	.close = ob_close,
	.device_count = ob_device_count,
	.device_info = ob_device_info,
	.versions = ob_versions,
	.interface = ob_interface,
	.supports = ob_supports,
	.hostmem_note = ob_hostmem_note,
	.p2p_path = ob_p2p_path,
	.alloc = ob_alloc,
	.free = ob_free,
	.write = ob_write,
	.read = ob_read,
	.prepare = ob_prepare,
	.unprepare = ob_unprepare,
	.transfer = ob_transfer,
	.last_error = ob_last_error,
	.face_interface = ob_face_interface,
	.copy_rect = ob_copy_rect,
	.pack = ob_pack,
	.exchange = ob_exchange,
	.exchange_interface = ob_exchange_interface,
};
