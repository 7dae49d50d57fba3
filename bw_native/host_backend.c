/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host reference backend: memcpy between host memory regions. It is the native
 * counterpart of LLVM's host offload plugin, whose "devices" are host memory too, and it
 * gives the physical limit of host memory bandwidth.
 *
 *   sync      memcpy on the calling thread
 *   async     memcpy on a helper thread of the transfer, handed over and waited for (the
 *             host analogue of a copy engine: what an asynchronous runtime at least pays)
 *   parallel  one copy split into equal chunks over one thread per online core
 *   chase     a pointer chase on the calling thread through the source (latency per load)
 *
 * "Devices" are four regions of ordinary host memory (posix_memalign), mirroring the host
 * plugin's four devices, so host-to-device, device-to-host, two-device and P2P series line
 * up with the OpenMP ones. They are named the native reference for the host-plugin devices
 * only in a build whose OpenMP offload has the host plugin (a host triple among the offload
 * targets); without offload, or with GPU targets only, there are no such devices and the
 * regions are only the host memory's own reference. Pinned host memory is mmap + mlock
 * (page-locked by the kernel); registered memory is posix_memalign memory locked afterwards
 * with mlock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "nodebw/config.h"
#include "nodebw/hugepage.h"
#include "nodebw/face.h"
#include "nodebw/probe.h"
#include "nodebw/version.h"

#define HOST_DEVICES 4
#define MAX_WORKERS 256
#define CHUNK_ALIGN 4096u

static _Thread_local char last_err[NBW_REASON_LEN];

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The limit that refused an allocation: page-locking is bounded by RLIMIT_MEMLOCK; plain
 * memory by RLIMIT_AS or RLIMIT_DATA when set, else by the machine (and its overcommit
 * policy). */
static void limit_note(char *buf, size_t len, bool locking, int err)
{
	struct rlimit rl;
	buf[0] = '\0';
	if (locking) {
		if (err != ENOMEM && err != EPERM && err != EAGAIN)
			return;
		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			snprintf(buf, len, "; page-locking is limited by RLIMIT_MEMLOCK (ulimit -l) "
				 "to %llu bytes", (unsigned long long)rl.rlim_cur);
		else
			snprintf(buf, len, "; RLIMIT_MEMLOCK is unlimited: the machine could not "
				 "lock that much memory");
		return;
	}
	if (err != ENOMEM)
		return;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, "; the address space is limited by RLIMIT_AS (ulimit -v) to %llu "
			 "bytes", (unsigned long long)rl.rlim_cur);
	else if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, "; data is limited by RLIMIT_DATA (ulimit -d) to %llu bytes",
			 (unsigned long long)rl.rlim_cur);
	else
		snprintf(buf, len, "; no resource limit is set: the machine's memory (or its "
			 "overcommit policy) refused it");
}

static int fail_errno(const char *call, size_t bytes, int err)
{
	char note[160];
	limit_note(note, sizeof(note), strcmp(call, "mlock") == 0, err);
	snprintf(last_err, sizeof(last_err), "%s(%zu bytes): %s (errno %d)%s", call, bytes,
		 strerror(err), err, note);
	return -ENOMEM;
}

/* ---- the all-cores pool ---------------------------------------------------------------- */

struct split_job {
	char *dst;
	const char *src;
	size_t bytes;
	unsigned parts;
};

struct nbw_backend;

struct worker_arg {
	struct nbw_backend *be;
	unsigned part;
};

struct nbw_backend {
	unsigned nworkers;            /* helper threads; the caller takes one part itself */
	pthread_t workers[MAX_WORKERS];
	struct worker_arg args[MAX_WORKERS];
	pthread_mutex_t mu;           /* the pool runs one split copy at a time */
	pthread_mutex_t job_mu;
	pthread_cond_t job_cv, done_cv;
	struct split_job job;
	unsigned gen, pending;
	bool stop;
	/* gate of the gated asynchronous copies */
	pthread_mutex_t gate_mu;
	pthread_cond_t gate_cv;
	unsigned long epoch;
};

static void copy_part(const struct split_job *j, unsigned part)
{
	/* Chunk borders on page boundaries so that no two threads share a cache line. */
	size_t per = (j->bytes / j->parts + CHUNK_ALIGN - 1) / CHUNK_ALIGN * CHUNK_ALIGN;
	size_t lo = (size_t)part * per;
	if (lo >= j->bytes)
		return;
	size_t n = j->bytes - lo < per ? j->bytes - lo : per;
	memcpy(j->dst + lo, j->src + lo, n);
}

static void *pool_worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct nbw_backend *be = wa->be;
	unsigned seen = 0;
	for (;;) {
		pthread_mutex_lock(&be->job_mu);
		while (be->gen == seen && !be->stop)
			pthread_cond_wait(&be->job_cv, &be->job_mu);
		if (be->stop) {
			pthread_mutex_unlock(&be->job_mu);
			return NULL;
		}
		seen = be->gen;
		struct split_job j = be->job;
		pthread_mutex_unlock(&be->job_mu);
		copy_part(&j, wa->part);
		pthread_mutex_lock(&be->job_mu);
		if (--be->pending == 0)
			pthread_cond_signal(&be->done_cv);
		pthread_mutex_unlock(&be->job_mu);
	}
}

static void split_copy(struct nbw_backend *be, void *dst, const void *src, size_t bytes)
{
	/* Small copies are not worth waking threads for, but the mode stays what it says:
	 * every copy goes through the pool. */
	pthread_mutex_lock(&be->mu);
	struct split_job j = { dst, src, bytes, be->nworkers + 1 };
	pthread_mutex_lock(&be->job_mu);
	be->job = j;
	be->pending = be->nworkers;
	be->gen++;
	pthread_cond_broadcast(&be->job_cv);
	pthread_mutex_unlock(&be->job_mu);
	copy_part(&j, be->nworkers);
	pthread_mutex_lock(&be->job_mu);
	while (be->pending)
		pthread_cond_wait(&be->done_cv, &be->job_mu);
	pthread_mutex_unlock(&be->job_mu);
	pthread_mutex_unlock(&be->mu);
}

/* ---- open / close / devices ------------------------------------------------------------ */

static void hb_close(struct nbw_backend *be);

static int hb_open(struct nbw_backend **out, const struct nbw_backend_opts *opts, char *why,
		     size_t whylen)
{
	(void)opts; /* nothing of it is for this backend */
	struct nbw_backend *be = calloc(1, sizeof(*be));
	if (!be) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (cores < 1)
		cores = 1;
	if (cores > MAX_WORKERS)
		cores = MAX_WORKERS;
	pthread_mutex_init(&be->mu, NULL);
	pthread_mutex_init(&be->job_mu, NULL);
	pthread_cond_init(&be->job_cv, NULL);
	pthread_cond_init(&be->done_cv, NULL);
	pthread_mutex_init(&be->gate_mu, NULL);
	pthread_cond_init(&be->gate_cv, NULL);
	for (unsigned i = 0; i + 1 < (unsigned)cores; i++) {
		be->args[i] = (struct worker_arg){ be, i };
		if (pthread_create(&be->workers[i], NULL, pool_worker, &be->args[i])) {
			snprintf(why, whylen, "pthread_create failed for copy worker %u", i);
			hb_close(be);
			return -EAGAIN;
		}
		be->nworkers++;
	}
	*out = be;
	return 0;
}

static void hb_close(struct nbw_backend *be)
{
	if (!be)
		return;
	pthread_mutex_lock(&be->job_mu);
	be->stop = true;
	pthread_cond_broadcast(&be->job_cv);
	pthread_mutex_unlock(&be->job_mu);
	for (unsigned i = 0; i < be->nworkers; i++)
		pthread_join(be->workers[i], NULL);
	pthread_mutex_destroy(&be->mu);
	pthread_mutex_destroy(&be->job_mu);
	pthread_cond_destroy(&be->job_cv);
	pthread_cond_destroy(&be->done_cv);
	pthread_mutex_destroy(&be->gate_mu);
	pthread_cond_destroy(&be->gate_cv);
	free(be);
}

static int hb_device_count(struct nbw_backend *be)
{
	(void)be;
	return HOST_DEVICES;
}

/*
 * Whether this build's OpenMP offload includes LLVM's host plugin: one of the offload targets
 * is a host triple (x86_64-pc-linux-gnu, aarch64-unknown-linux-gnu, ...), not a GPU
 * architecture (sm_90, gfx90a) or GPU triple (nvptx64-nvidia-cuda, amdgcn-amd-amdhsa).
 */
static bool host_plugin_built(void)
{
	if (!NBW_HAVE_OMP)
		return false;
	static const char targets[] = NBW_OFFLOAD_TARGETS;
	for (const char *t = targets; *t;) {
		size_t n = strcspn(t, ",");
		if (memmem(t, n, "-linux", 6))
			return true;
		t += n + (t[n] == ',');
	}
	return false;
}

static int hb_device_info(struct nbw_backend *be, int dev, struct nbw_device *out)
{
	(void)be;
	if (dev < 0 || dev >= HOST_DEVICES)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->id = dev;
	out->runtime_id = out->id;
	snprintf(out->kind, sizeof(out->kind), "host-memory");
	if (host_plugin_built())
		snprintf(out->name, sizeof(out->name), "host memory region %d (native reference for "
			 "host-plugin device %d)", dev, dev);
	else
		snprintf(out->name, sizeof(out->name), "host memory region %d (memcpy reference "
			 "of the host memory)", dev);
	snprintf(out->memory, sizeof(out->memory), "host memory (posix_memalign), not a GPU");
	out->is_gpu = false;
	return 0;
}

static void hb_versions(struct nbw_backend *be, char *buf, size_t len)
{
	snprintf(buf, len, "copy=glibc memcpy\ncopy_threads=%u\n", be->nworkers + 1);
}

static const char *hb_interface(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t whylen)
{
	(void)dir;
	switch (mode) {
	case NBW_MODE_SYNC:
		return "memcpy on the calling thread";
	case NBW_MODE_ASYNC:
		return "memcpy on the transfer's helper thread, handed over and waited for "
		       "(condition variables); concurrent copies start on a shared gate";
	case NBW_MODE_PARALLEL:
		return "memcpy split into page-aligned chunks over one thread per online core";
	case NBW_MODE_NOWAIT:
		snprintf(why, whylen, "nowait is an OpenMP construct (target update nowait)");
		return NULL;
	case NBW_MODE_KERNEL:
		snprintf(why, whylen,
			 "the host reference has no copy kernel: its copies are CPU memcpy (sync, "
			 "async on a helper thread); the parallel mode is its all-cores copy");
		return NULL;
	case NBW_MODE_CHASE:
		return "host thread: i = chain[i] through the source's host memory (the host "
		       "memory latency, the reference of the other APIs' chases)";
	default:
		break;
	}
	snprintf(why, whylen, "unknown mode");
	return NULL;
}

static const char *hb_hostmem_note(struct nbw_backend *be, enum nbw_hostmem mem, int dev)
{
	(void)be;
	(void)dev;
	switch (mem) {
	case NBW_HOSTMEM_PAGEABLE:
		return "pageable: posix_memalign";
	case NBW_HOSTMEM_PINNED:
		return "pinned: mmap + mlock (page-locked by the kernel)";
	case NBW_HOSTMEM_REGISTERED:
		return "registered: posix_memalign, then mlock";
	case NBW_HOSTMEM_HUGEPAGE:
		return "huge pages: mmap(MAP_HUGETLB), else THP-advised mmap (MADV_HUGEPAGE), "
		       "touched, then mlock of the whole mapping";
	default:
		return "";
	}
}

static const char *hb_p2p_path(struct nbw_backend *be, int src, int dst)
{
	(void)be;
	if (src == dst)
		return "memcpy inside one host memory region (no device, no link)";
	return "memcpy between two host memory regions (no device, no peer link)";
}

/* ---- buffers ----------------------------------------------------------------------------- */

/* Huge pages, then page-locked as the registered kind is: the whole mapping, so that a lock
 * boundary never splits a transparent huge page. */
static int huge_alloc(struct nbw_buf *b)
{
	char why[NBW_REASON_LEN];
	int rc = nbw_hugepage_alloc(b->bytes, &b->ptr, NULL, why, sizeof(why));
	if (rc) {
		b->ptr = NULL;
		snprintf(last_err, sizeof(last_err), "%s", why);
		return rc;
	}
	size_t span = nbw_hugepage_span(b->bytes);
	if (mlock(b->ptr, span)) {
		int e = errno;
		nbw_hugepage_free(b->ptr, b->bytes);
		b->ptr = NULL;
		return fail_errno("mlock", span, e);
	}
	return 0;
}

static int hb_alloc(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	b->ptr = NULL;
	if (b->loc == NBW_LOC_HOST_HUGEPAGE)
		return huge_alloc(b);
	if (b->loc == NBW_LOC_HOST_PINNED) {
		void *p = mmap(NULL, b->bytes ? b->bytes : 1, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return fail_errno("mmap", b->bytes, errno);
		if (mlock(p, b->bytes ? b->bytes : 1)) {
			int e = errno;
			munmap(p, b->bytes ? b->bytes : 1);
			return fail_errno("mlock", b->bytes, e);
		}
		b->ptr = p;
		return 0;
	}
	int rc = posix_memalign(&b->ptr, 4096, b->bytes ? b->bytes : 1);
	if (rc) {
		b->ptr = NULL;
		return fail_errno("posix_memalign", b->bytes, rc);
	}
	if (b->loc == NBW_LOC_HOST_REGISTERED && mlock(b->ptr, b->bytes ? b->bytes : 1)) {
		int e = errno;
		free(b->ptr);
		b->ptr = NULL;
		return fail_errno("mlock", b->bytes, e);
	}
	return 0;
}

static void hb_free(struct nbw_backend *be, struct nbw_buf *b)
{
	(void)be;
	if (!b->ptr)
		return;
	size_t n = b->bytes ? b->bytes : 1;
	if (b->loc == NBW_LOC_HOST_PINNED) {
		munmap(b->ptr, n);
	} else if (b->loc == NBW_LOC_HOST_HUGEPAGE) {
		munlock(b->ptr, nbw_hugepage_span(b->bytes));
		nbw_hugepage_free(b->ptr, b->bytes);
	} else {
		if (b->loc == NBW_LOC_HOST_REGISTERED)
			munlock(b->ptr, n);
		free(b->ptr);
	}
	b->ptr = NULL;
}

static int hb_write(struct nbw_backend *be, struct nbw_buf *dst, const void *host, size_t n)
{
	(void)be;
	memcpy(dst->ptr, host, n);
	return 0;
}

static int hb_read(struct nbw_backend *be, void *host, const struct nbw_buf *src, size_t n)
{
	(void)be;
	memcpy(host, src->ptr, n);
	return 0;
}

/* ---- the asynchronous helper of one transfer --------------------------------------------- */

struct helper {
	struct nbw_backend *be;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct nbw_xfer *x;
	unsigned long want_epoch;     /* 0: start at once; else wait for the gate */
	double copy_s;
	bool busy, quit;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (!h->busy && !h->quit)
			pthread_cond_wait(&h->cv, &h->mu);
		if (h->quit)
			break;
		struct nbw_xfer *x = h->x;
		unsigned long want = h->want_epoch;
		pthread_mutex_unlock(&h->mu);
		if (want) {
			struct nbw_backend *be = h->be;
			pthread_mutex_lock(&be->gate_mu);
			while (be->epoch < want)
				pthread_cond_wait(&be->gate_cv, &be->gate_mu);
			pthread_mutex_unlock(&be->gate_mu);
		}
		double t0 = now_s();
		if (x->region)
			nbw_region_copy_host(x->dst->ptr, x->src->ptr, x->region);
		else
			memcpy(x->dst->ptr, x->src->ptr, x->bytes);
		double t1 = now_s();
		pthread_mutex_lock(&h->mu);
		h->copy_s = t1 - t0;
		h->busy = false;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static int hb_prepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	x->priv = NULL;
	if (x->mode != NBW_MODE_ASYNC)
		return 0;
	struct helper *h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(last_err, sizeof(last_err), "out of memory for the copy helper");
		return -ENOMEM;
	}
	h->be = be;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	if (pthread_create(&h->thread, NULL, helper_main, h)) {
		snprintf(last_err, sizeof(last_err), "pthread_create failed for the copy helper");
		pthread_mutex_destroy(&h->mu);
		pthread_cond_destroy(&h->cv);
		free(h);
		return -EAGAIN;
	}
	x->priv = h;
	return 0;
}

static void hb_unprepare(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	struct helper *h = x->priv;
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->quit = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->thread, NULL);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h);
	x->priv = NULL;
}

static void helper_start(struct helper *h, struct nbw_xfer *x, unsigned long want_epoch)
{
	pthread_mutex_lock(&h->mu);
	h->x = x;
	h->want_epoch = want_epoch;
	h->busy = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

static void helper_wait(struct helper *h, struct nbw_xfer *x)
{
	pthread_mutex_lock(&h->mu);
	while (h->busy)
		pthread_cond_wait(&h->cv, &h->mu);
	x->device_s = h->copy_s;
	pthread_mutex_unlock(&h->mu);
}

/* The pointer chase: dependent loads, each address known only when the previous load
 * returned; the final index at the start of dst (struct nbw_xfer.chase_loads). */
static void chase(const uint64_t *chain, uint64_t loads, uint64_t *out)
{
	uint64_t i = 0;
	for (uint64_t l = 0; l < loads; l++)
		i = chain[i];
	out[0] = i;
}

static int hb_transfer(struct nbw_backend *be, struct nbw_xfer *x)
{
	switch (x->mode) {
	case NBW_MODE_SYNC:
		memcpy(x->dst->ptr, x->src->ptr, x->bytes);
		return 0;
	case NBW_MODE_PARALLEL:
		split_copy(be, x->dst->ptr, x->src->ptr, x->bytes);
		return 0;
	case NBW_MODE_CHASE:
		chase(x->src->ptr, x->chase_loads, x->dst->ptr);
		return 0;
	case NBW_MODE_ASYNC:
		if (!x->priv) {
			snprintf(last_err, sizeof(last_err), "transfer was not prepared");
			return -EINVAL;
		}
		helper_start(x->priv, x, 0);
		helper_wait(x->priv, x);
		return 0;
	default:
		snprintf(last_err, sizeof(last_err), "mode %d is not supported", (int)x->mode);
		return -EINVAL;
	}
}

static int hb_submit(struct nbw_backend *be, struct nbw_xfer *x)
{
	if (x->mode != NBW_MODE_ASYNC || !x->priv) {
		snprintf(last_err, sizeof(last_err), "gated start needs a prepared async transfer");
		return -EINVAL;
	}
	pthread_mutex_lock(&be->gate_mu);
	unsigned long want = be->epoch + 1;
	pthread_mutex_unlock(&be->gate_mu);
	helper_start(x->priv, x, want);
	return 0;
}

static int hb_release(struct nbw_backend *be)
{
	pthread_mutex_lock(&be->gate_mu);
	be->epoch++;
	pthread_cond_broadcast(&be->gate_cv);
	pthread_mutex_unlock(&be->gate_mu);
	return 0;
}

static int hb_complete(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	helper_wait(x->priv, x);
	return 0;
}

/* ---- face probes: the reference (every row by memcpy) ---------------------------- */

static const char *hb_face_interface(struct nbw_backend *be, enum nbw_dir dir,
				     enum nbw_face_method method, enum nbw_mode mode, char *why,
				     size_t whylen)
{
	(void)be;
	(void)dir;
	if (mode != NBW_MODE_SYNC && mode != NBW_MODE_ASYNC) {
		snprintf(why, whylen, "face copies run in the sync and async modes");
		return NULL;
	}
	if (method == NBW_FACE_RECT)
		return mode == NBW_MODE_SYNC
			       ? "memcpy of each contiguous row of the face (the reference)"
			       : "memcpy of each contiguous row of the face on a helper thread, "
				 "waited for";
	return mode == NBW_MODE_SYNC
		       ? "pack loop (memcpy per row) -> memcpy -> unpack loop (memcpy per row)"
		       : "pack loop (memcpy per row) -> memcpy on a helper thread -> unpack loop";
}

static int hb_copy_rect(struct nbw_backend *be, struct nbw_xfer *x)
{
	(void)be;
	if (x->mode == NBW_MODE_ASYNC && x->priv) {
		helper_start(x->priv, x, 0);
		helper_wait(x->priv, x);
		return 0;
	}
	nbw_region_copy_host(x->dst->ptr, x->src->ptr, x->region);
	return 0;
}

static int hb_pack(struct nbw_backend *be, const struct nbw_buf *box, const struct nbw_region *r,
		   const size_t at[3], struct nbw_buf *lin, bool unpack)
{
	(void)be;
	nbw_region_pack_host(box->ptr, r, at, lin->ptr, unpack);
	return 0;
}

static const char *hb_last_error(struct nbw_backend *be)
{
	(void)be;
	return last_err;
}

const struct nbw_backend_ops nbw_backend_host = {
	.abi = NBW_PROBE_ABI,
	.name = "host",
	.description = "host memory reference: memcpy from one thread, a helper thread, or all "
		       "cores",
	.open = hb_open,
	.close = hb_close,
	.device_count = hb_device_count,
	.device_info = hb_device_info,
	.versions = hb_versions,
	.interface = hb_interface,
	.hostmem_note = hb_hostmem_note,
	.p2p_path = hb_p2p_path,
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
	.device_timer = "CLOCK_MONOTONIC on the copying helper thread",
	.last_error = hb_last_error,
	.face_interface = hb_face_interface,
	.copy_rect = hb_copy_rect,
	.pack = hb_pack,
};
