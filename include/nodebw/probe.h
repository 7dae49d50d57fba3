/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The one interface every transfer backend implements.
 *
 * A backend only allocates buffers and moves bytes. The probe core (common/runner.c) owns
 * warm-up, repetitions, timing, statistics, verification, concurrency and all output.
 */
#ifndef NODEBW_PROBE_H
#define NODEBW_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#define NBW_PROBE_ABI 1

enum nbw_dir { NBW_HTOD, NBW_DTOH, NBW_P2P, NBW_DIR_COUNT };

/** How the copy is issued and waited for; each backend names its own interface per mode. */
enum nbw_mode { NBW_MODE_SYNC, NBW_MODE_ASYNC, NBW_MODE_NOWAIT, NBW_MODE_COUNT };

/** Host memory kind of the host side of a HtoD/DtoH copy (NONE for P2P). */
enum nbw_hostmem { NBW_HOSTMEM_PAGEABLE, NBW_HOSTMEM_PINNED, NBW_HOSTMEM_NONE, NBW_HOSTMEM_COUNT };

/** SINGLE: one copy from one host thread. DUAL: two devices, two host threads at once.
 *  BIDIR: P2P a->b and b->a at once from two host threads. */
enum nbw_conc { NBW_CONC_SINGLE, NBW_CONC_DUAL, NBW_CONC_BIDIR, NBW_CONC_COUNT };

/** Where a buffer lives. */
enum nbw_loc { NBW_LOC_HOST_PAGEABLE, NBW_LOC_HOST_PINNED, NBW_LOC_DEVICE };

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
	void *priv;     /**< backend state set by prepare(), freed by unprepare() */
};

#define NBW_NAME_LEN 128
#define NBW_REASON_LEN 256

struct nbw_device {
	int id;                        /**< the API's own device number */
	char kind[32];                 /**< "host-plugin", "cuda", "amdgpu", ... */
	char name[NBW_NAME_LEN];
	char memory[NBW_NAME_LEN];     /**< what "device memory" physically is */
	bool is_gpu;
};

struct nbw_backend;                /* opaque, one per backend */

struct nbw_backend_ops {
	unsigned abi;                  /**< NBW_PROBE_ABI */
	const char *name;              /**< "omp", later "cuda", "hip", "ze", "host" */
	const char *description;
	/** 0 on success; -ENODEV with \p why filled when the API has no device or driver. */
	int (*open)(struct nbw_backend **out, char *why, size_t whylen);
	void (*close)(struct nbw_backend *be);
	int (*device_count)(struct nbw_backend *be);
	int (*device_info)(struct nbw_backend *be, int dev, struct nbw_device *out);
	/** Runtime and library versions, "name=value" lines into \p buf. */
	void (*versions)(struct nbw_backend *be, char *buf, size_t len);
	/** The API call(s) a mode uses for a direction, or NULL with \p why when unsupported. */
	const char *(*interface)(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t whylen);
	/** What the host side of a copy is in this backend (e.g. "plain malloc on the host plugin"). */
	const char *(*hostmem_note)(struct nbw_backend *be, enum nbw_hostmem mem, int dev);
	/** How a copy between two devices travels (peer link, staged through host, ...). */
	const char *(*p2p_path)(struct nbw_backend *be, int src, int dst);
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
	/** Text of the last error of this thread (API name, code, string). */
	const char *(*last_error)(struct nbw_backend *be);
};

const char *nbw_dir_name(enum nbw_dir d);
const char *nbw_mode_name(enum nbw_mode m);
const char *nbw_hostmem_name(enum nbw_hostmem m);
const char *nbw_conc_name(enum nbw_conc c);
/** Parse a name; return the enum value or -1. */
int nbw_dir_parse(const char *s);
int nbw_mode_parse(const char *s);
int nbw_hostmem_parse(const char *s);
int nbw_conc_parse(const char *s);

#endif
