/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The one interface every transfer backend implements.
 *
 * A backend only allocates buffers and moves bytes. The probe core (probe/runner.c) owns
 * warm-up, repetitions, timing, statistics, verification, concurrency and all output.
 */
#ifndef NODEBW_PROBE_H
#define NODEBW_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NBW_PROBE_ABI 6

enum nbw_dir { NBW_HTOD, NBW_DTOH, NBW_P2P, NBW_DIR_COUNT };

/** How the copy is issued and waited for; each backend names its own interface per mode. */
/** SYNC: a blocking copy call. ASYNC: issued on a stream/queue (or to a helper) and waited
 *  for. NOWAIT: OpenMP `target update nowait`. PARALLEL: one copy split over all host cores
 *  (the host backend's physical limit of host memory). KERNEL: a copy kernel, device
 *  threads loading the source and storing the destination (CUDA/HIP: a kernel over mapped
 *  pinned host memory or peer pointers; Level Zero: the compute-engine queue group; OpenMP:
 *  a target teams distribute parallel for loop), beside the copy engine's copies of the
 *  other modes. CHASE: latency, not bandwidth: one device thread follows a chain of
 *  dependent loads through the source buffer (pointer chase); the time per load is the
 *  path's load latency (x->chase_loads). */
enum nbw_mode { NBW_MODE_SYNC, NBW_MODE_ASYNC, NBW_MODE_NOWAIT, NBW_MODE_PARALLEL,
		NBW_MODE_KERNEL, NBW_MODE_CHASE, NBW_MODE_COUNT };

/** Host memory kind of the host side of a HtoD/DtoH copy (NONE for P2P). PINNED: allocated
 *  page-locked by the API (cudaMallocHost, ...); REGISTERED: ordinary memory page-locked
 *  afterwards (cudaHostRegister, ...). HUGEPAGE: huge-page host memory (MAP_HUGETLB, or
 *  THP-advised when the kernel has no huge pages reserved), then page-locked as REGISTERED
 *  is; what the kernel really gave is recorded. */
enum nbw_hostmem { NBW_HOSTMEM_PAGEABLE, NBW_HOSTMEM_PINNED, NBW_HOSTMEM_REGISTERED,
		   NBW_HOSTMEM_HUGEPAGE, NBW_HOSTMEM_NONE, NBW_HOSTMEM_COUNT };

/** Peer access of a device-to-device copy: NA when the API gives no control over it (or for
 *  a same-device copy), ON/OFF when the core enabled or disabled it for the series. */
enum nbw_peer { NBW_PEER_NA, NBW_PEER_ON, NBW_PEER_OFF, NBW_PEER_COUNT };

/** SINGLE: one copy from one host thread. DUAL: two devices, two host threads at once.
 *  BIDIR: P2P a->b and b->a at once from two host threads. ALL: HtoD/DtoH with every device
 *  at once (host-to-all, all-to-host), one host thread per device. RING: P2P with every
 *  device sending to its ring neighbour (i -> i+1 mod n) at once, one host thread per pair.
 *  include/nodebw/series.h describes each kind. */
enum nbw_conc { NBW_CONC_SINGLE, NBW_CONC_DUAL, NBW_CONC_BIDIR, NBW_CONC_ALL, NBW_CONC_RING,
		NBW_CONC_A2A, NBW_CONC_FACE, NBW_CONC_XLINE, NBW_CONC_XGRID, NBW_CONC_XDECOMP,
		NBW_CONC_COUNT };

/** The face probes' kinds (`--faces`): FACE one face of a box copied once, XLINE the
 *  neighbour exchange of a line of devices, XGRID of a 2 x G/2 grid, XDECOMP of a PX x PY x
 *  PZ decomposition (--faces-decomp), device to device or host-staged (include/nodebw/face.h). */
static inline int nbw_conc_is_face(enum nbw_conc c)
{
	return c == NBW_CONC_FACE || c == NBW_CONC_XLINE || c == NBW_CONC_XGRID ||
	       c == NBW_CONC_XDECOMP;
}

/** Which face of a box: Z (nx*ny*R elements, one contiguous block), Y (R rows of nx per
 *  plane, strided), X (R elements per row, strided); x is the fastest index. */
enum nbw_face { NBW_FACE_Z, NBW_FACE_Y, NBW_FACE_X, NBW_FACE_COUNT };
/** How a face is copied: RECT the API's rectangular (3-D) copy; PACK a gather into a
 *  contiguous buffer on the source side, one contiguous copy, a scatter on the destination
 *  side (device kernels for device buffers, host loops for host buffers). */
enum nbw_face_method { NBW_FACE_RECT, NBW_FACE_PACK, NBW_FACE_METHOD_COUNT };

/** A region of one box copied into another box of the same shape: \p extent elements
 *  ([0] = x, the fastest) from \p src_at in the source to \p dst_at in the destination;
 *  both boxes are dims[0] x dims[1] x dims[2] elements of \p elem bytes, densely stored. */
struct nbw_region {
	size_t dims[3];
	size_t elem;
	size_t extent[3];
	size_t src_at[3], dst_at[3];
	enum nbw_face_method method;
};

/** Where a buffer lives. HOST_HUGEPAGE: huge-page host memory (include/nodebw/hugepage.h:
 *  MAP_HUGETLB or THP-advised), page-locked for \p device where the API can register
 *  existing memory (as HOST_REGISTERED), else pageable. */
enum nbw_loc { NBW_LOC_HOST_PAGEABLE, NBW_LOC_HOST_PINNED, NBW_LOC_HOST_REGISTERED,
	       NBW_LOC_DEVICE, NBW_LOC_HOST_HUGEPAGE };

struct nbw_buf {
	enum nbw_loc loc;
	int device;     /**< owning device (device buffers) or the device pinned memory is for */
	size_t bytes;
	void *ptr;
};

/** One transfer as the core hands it to a backend. */
struct nbw_xfer {
	enum nbw_dir dir;
	enum nbw_mode mode;
	struct nbw_buf *src, *dst;
	size_t bytes;
	enum nbw_peer peer;
	/** Set by the backend when a device timer (events, timestamps) timed the copy: seconds
	 *  on the device. The core sets it to -1 before each call. */
	double device_s;
	/** Set by prepare() when this copy cannot start on the backend's gate (e.g. pageable
	 *  memory is staged on the host, which would block submit(), or the driver refuses the
	 *  gate's wait, which prepare() tries once outside the timed region): the reason. The
	 *  core then starts the streams with a barrier, as for a backend without a gate, and
	 *  records the reason. A submit() that fails after prepare() kept the gate is an error
	 *  of the measurement. */
	const char *no_gate;
	void *priv;     /**< backend state set by prepare(), freed by unprepare() */
	/** CHASE mode only (0 otherwise): the dependent loads one transfer() makes. The
	 *  contract: src holds a chain of uint64_t element indices written by the core (untimed,
	 *  through write() for device buffers), a single cycle through the buffer; transfer()
	 *  starts at index 0, follows i = chain[i] exactly chase_loads times on the side that
	 *  loads (HtoD: a thread of the destination device reads host memory; P2P: a thread of
	 *  the destination device reads the source device's memory; DtoH: a host thread reads
	 *  device memory, only where the host can address it), and stores the final index as one
	 *  uint64_t at the start of dst. The core checks it against its own walk of the chain,
	 *  outside the timed region. A backend that cannot make a path's loads says so in
	 *  supports(). */
	uint64_t chase_loads;
	/** Face probes only (NULL otherwise): src and dst are whole boxes and the copy is this
	 *  region of them (copy_rect()); x->bytes is then the region's bytes. */
	const struct nbw_region *region;
};

/** Streams of one measurement: one per device for host-to-all / all-to-host and the ring. */
#define NBW_MAX_STREAMS 64

#define NBW_NAME_LEN 128
#define NBW_REASON_LEN 256

struct nbw_device {
	int id;                        /**< the API's own device number */
	char kind[32];                 /**< "host-plugin", "cuda", "amdgpu", ... */
	char name[NBW_NAME_LEN];
	char memory[NBW_NAME_LEN];     /**< what "device memory" physically is */
	bool is_gpu;
	/** PCI address "dddd:bb:dd.f" in lower case, "" when the device has none (host-plugin
	 *  devices, host memory). Devices are matched across APIs by this, never by index. */
	char pci_bus_id[24];
	/** The runtime's own number of this device. nodebw numbers the OpenMP devices GPUs
	 *  first (libomptarget numbers them in the order the images were linked, which can put
	 *  host-plugin devices before a GPU), so for OpenMP it may differ from \p id; every
	 *  other backend sets it equal to \p id. */
	int runtime_id;
};

struct nbw_backend;                /* opaque, one per backend */

/** What the user asked of the backends at open(). NULL, or a member left NULL, means the
 *  default; each backend reads the members meant for it and ignores the others. */
struct nbw_backend_opts {
	/** CUDA: how host threads wait for the GPU in each device's primary context: "spin",
	 *  "yield" or "blocking" set it (CU_CTX_SCHED_*) before anything is measured; "auto"
	 *  (or NULL) leaves the contexts as found. */
	const char *cuda_sched;
};

/** One message of an exchange step (exchange()): the face \p region (at src_at in the box
 *  \p src, at dst_at in the box \p dst). Pack: gathered into \p lsrc (on the sender's
 *  device), copied to \p ldst (on the receiver's), scattered from there. Host-staged
 *  (\p hbox set): through that host buffer, the whole box (rect: the face at \p hregion's
 *  dst_at) or the packed face (pack). The method is the region's. */
struct nbw_exchange_msg {
	const struct nbw_buf *src, *dst;
	const struct nbw_region *region;
	struct nbw_buf *lsrc, *ldst;
	struct nbw_buf *hbox;
	const struct nbw_region *hregion;
	size_t bytes;                  /**< the face's bytes */
};

struct nbw_backend_ops {
	unsigned abi;                  /**< NBW_PROBE_ABI */
	const char *name;              /**< "omp", later "cuda", "hip", "ze", "host" */
	const char *description;
	/** 0 on success, else a negative errno with \p why filled. The contract:
	 *  -ENODEV means the API is absent here: no driver, or no device (a skip, not a
	 *  failure of the run). Any other negative code means the API is present but unusable
	 *  (e.g. -EPROTO: a driver older than the runtime the backend was built with; -EIO: the
	 *  runtime fails; -EINVAL: bad \p opts), which is an error. \p opts may be NULL (the
	 *  defaults). */
	int (*open)(struct nbw_backend **out, const struct nbw_backend_opts *opts, char *why,
		    size_t whylen);
	void (*close)(struct nbw_backend *be);
	int (*device_count)(struct nbw_backend *be);
	int (*device_info)(struct nbw_backend *be, int dev, struct nbw_device *out);
	/** Runtime and library versions, "name=value" lines into \p buf. */
	void (*versions)(struct nbw_backend *be, char *buf, size_t len);
	/** The API call(s) a mode uses for a direction, or NULL with \p why when unsupported. */
	const char *(*interface)(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t whylen);
	/** 0 when this backend can run (dir, mode, host memory) at all, else -1 with \p why
	 *  (e.g. OpenMP cannot register existing memory). NULL: every combination is possible
	 *  for which interface() names a call. */
	int (*supports)(struct nbw_backend *be, enum nbw_dir dir, enum nbw_mode mode,
			enum nbw_hostmem mem, char *why, size_t whylen);
	/** What the host side of a copy is in this backend (e.g. "plain malloc on the host plugin"). */
	const char *(*hostmem_note)(struct nbw_backend *be, enum nbw_hostmem mem, int dev);
	/** How a copy between two devices travels (peer link, staged through host, ...). */
	const char *(*p2p_path)(struct nbw_backend *be, int src, int dst);
	/** Enable (or disable) access of device \p src to \p dst's memory, for P2P with and
	 *  without peer access. NULL when the API decides itself. 0, or -1 with \p why (e.g. the
	 *  pair cannot reach each other directly). Called outside the timed region. */
	int (*peer_access)(struct nbw_backend *be, int src, int dst, bool enable, char *why,
			   size_t whylen);
	int (*alloc)(struct nbw_backend *be, struct nbw_buf *b);   /**< 0 or -ENOMEM */
	void (*free)(struct nbw_backend *be, struct nbw_buf *b);
	/** Untimed helpers for initialisation and verification of device buffers. */
	int (*write)(struct nbw_backend *be, struct nbw_buf *dst, const void *host, size_t n);
	int (*read)(struct nbw_backend *be, void *host, const struct nbw_buf *src, size_t n);
	/** Per-measurement setup outside the timed region (may be NULL). */
	int (*prepare)(struct nbw_backend *be, struct nbw_xfer *x);
	void (*unprepare)(struct nbw_backend *be, struct nbw_xfer *x);
	/** Move x->bytes; the copy is complete when this returns. Timed by the core. */
	int (*transfer)(struct nbw_backend *be, struct nbw_xfer *x);
	/** Gated start of concurrent asynchronous copies (all three or none; ASYNC mode only):
	 *  submit() enqueues the copy behind the backend's closed gate and returns at once;
	 *  release() opens the gate, so every submitted copy starts together and enqueue cost
	 *  is not timed; complete() waits for one submitted copy (and sets x->device_s). The
	 *  gate is closed again for the next submit. Called from the streams' host threads;
	 *  release() from one of them after every submit() returned. */
	int (*submit)(struct nbw_backend *be, struct nbw_xfer *x);
	int (*release)(struct nbw_backend *be);
	int (*complete)(struct nbw_backend *be, struct nbw_xfer *x);
	/** The device timer behind x->device_s (e.g. "cudaEventElapsedTime"), or NULL. */
	const char *device_timer;
	/** Text of the last error of this thread (API name, code, string). */
	const char *(*last_error)(struct nbw_backend *be);
	/** How host threads wait for device \p dev's work as the API has it set now, one word
	 *  into \p word ("spin", "yield", "blocking" or "auto"; CUDA: the CU_CTX_SCHED_* flags
	 *  of the primary context), and how it came to be so (left as found, set at open() as
	 *  nbw_backend_opts asked, or why the driver refused that) into \p note. 0, or -1 with
	 *  the reason in \p note when it cannot be read. NULL: the API has no such setting.
	 *  Called outside the timed region. */
	int (*sched)(struct nbw_backend *be, int dev, char *word, size_t wlen, char *note,
		     size_t nlen);
	/* ---- face probes (optional; NULL: the backend has none, and they are skipped) ---- */
	/** The API call(s) that copy a face of (direction, method, mode): the rectangular copy,
	 *  or the pack kernel + contiguous copy + unpack kernel; NULL with \p why when the
	 *  backend cannot. */
	const char *(*face_interface)(struct nbw_backend *be, enum nbw_dir dir,
				      enum nbw_face_method method, enum nbw_mode mode, char *why,
				      size_t whylen);
	/** Copy x->region from the box x->src to the box x->dst with the API's rectangular
	 *  copy (SYNC: the blocking call; ASYNC: its asynchronous form, waited for); complete
	 *  when it returns. Timed by the core. */
	int (*copy_rect)(struct nbw_backend *be, struct nbw_xfer *x);
	/** A device kernel on the device of \p box: gather (\p unpack false) the region of
	 *  r->extent elements at \p at of \p box into the contiguous \p lin (same device), or
	 *  scatter \p lin into it (\p unpack true); complete when it returns. Host buffers are
	 *  packed by the core itself. */
	int (*pack)(struct nbw_backend *be, const struct nbw_buf *box, const struct nbw_region *r,
		    const size_t at[3], struct nbw_buf *lin, bool unpack);
	/** One step of a decomposition's exchange as an application issues it (optional; NULL:
	 *  the core runs one host thread per message, one field): a host thread per sending
	 *  device, all in one team, each issuing its device's messages of \p m once per field
	 *  (\p fields >= 1; every field's from the message's own buffers). ASYNC: enqueued
	 *  without waiting, a device's messages of one field chained one after another, the
	 *  fields' chains independent, then waited for; SYNC: blocking calls in turn. Complete
	 *  when it returns. Timed by the core. */
	int (*exchange)(struct nbw_backend *be, const struct nbw_exchange_msg *m, unsigned n,
			unsigned fields, enum nbw_mode mode);
	/** The API calls and host threads of exchange() for \p mode, one line. */
	const char *(*exchange_interface)(struct nbw_backend *be, enum nbw_mode mode);
};

const char *nbw_dir_name(enum nbw_dir d);
const char *nbw_mode_name(enum nbw_mode m);
const char *nbw_hostmem_name(enum nbw_hostmem m);
const char *nbw_conc_name(enum nbw_conc c);
const char *nbw_peer_name(enum nbw_peer p);
const char *nbw_face_name(enum nbw_face f);            /**< "z", "y", "x" */
const char *nbw_face_method_name(enum nbw_face_method m); /**< "rect", "pack" */
/** Parse a name; return the enum value or -1. */
int nbw_dir_parse(const char *s);
int nbw_mode_parse(const char *s);
int nbw_hostmem_parse(const char *s);
int nbw_conc_parse(const char *s);
int nbw_peer_parse(const char *s);
int nbw_face_parse(const char *s);
int nbw_face_method_parse(const char *s);

#endif
