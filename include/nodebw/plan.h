/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The planner: turns the options, a backend's capabilities and its device list into
 *  the list of series to run, as data, before anything runs (unit-tested without backends).
 *
 * Device sets per kind (include/nodebw/series.h):
 *  - HtoD/DtoH single: each device alone. Dual: the first two devices at once. All: every
 *    device at once (host-to-all, all-to-host).
 *  - P2P single: every ordered pair (a -> b, a != b), or the same-device copy when there is
 *    one device. Bidir: every unordered pair, both directions at once. Ring: every device
 *    sends to the next one (i -> i+1 mod n) at once, n >= 3.
 * Sizes: device 0, and the first pair of each kind of link (the first pair when the caller
 * gives no link classes), run the whole size sweep, as does every set when the user named
 * the devices; the others run the sweep's smallest and largest size only (the latency and
 * bandwidth matrices), so the time grows linearly with the number of devices and pairs at
 * two sizes. All-at-once and ring sets run the two sizes unless devices were named.
 */
#ifndef NODEBW_PLAN_H
#define NODEBW_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/cli.h"
#include "nodebw/probe.h"
#include "nodebw/series.h"
#include "nodebw/topology.h"

/** The matrix cells' large size: the largest size of the sweep up to this, in every profile
 *  (the quick sweep ends there; the default and --full sweeps measure device 0 and the
 *  first pair of each kind of link beyond it). 64 MiB is past the knee of every link's
 *  curve (CUDA's p2pBandwidthLatencyTest copies 40 MB) and keeps the cells comparable
 *  between profiles; a cell of 1 GiB would cost seconds, and a node has hundreds. Several
 *  streams at once stop here too unless sizes are named. */
#define NBW_MATRIX_MAX_BYTES (64ull << 20)

/** Indices into the (ascending) sizes \p v of the matrix cells' two sizes: the smallest,
 *  and the largest not above NBW_MATRIX_MAX_BYTES (the largest of all when none is above
 *  the smallest). */
void nbw_plan_matrix_sizes(const struct nbw_sizes *v, size_t *small, size_t *large);
/** The same with \p max_bytes in place of NBW_MATRIX_MAX_BYTES. */
void nbw_plan_matrix_sizes_upto(const struct nbw_sizes *v, uint64_t max_bytes, size_t *small,
				size_t *large);

/** The quick profile's matrix size: every matrix cell (each device, each device pair, all
 *  devices at once) and several streams at once stop here, while device 0 and the first
 *  pair alone still sweep to the profile's largest size (64 MiB). A 64 MiB cell costs its
 *  buffers' initialisation and two checks, and on host-plugin devices libomptarget stages
 *  every device-to-device copy through a host buffer it allocates per call (above glibc's
 *  32 MiB mmap threshold: fresh pages that fault in on every copy), so a P2P cell costs
 *  seconds; four devices have twelve ordered pairs per mode. */
#define NBW_QUICK_MATRIX_MAX_BYTES (8ull << 20)

/** The matrix cells' large size under \p o: NBW_QUICK_MATRIX_MAX_BYTES in the quick profile
 *  when no sizes were named, else NBW_MATRIX_MAX_BYTES. */
uint64_t nbw_plan_matrix_max_bytes(const struct nbw_probe_opts *o);

/** With --mode chase named among \p o's modes and --sizes named, what a chase will walk when that is not each size
 *  named: true with \p buf "--mode chase walks one working set, 4 KiB, not 1 B and 7 B: ..."
 *  (the working sets nbw_exec walks: the sweep's smallest size and the matrix cells' large
 *  size, each rounded up to whole NBW_CHASE_GRAIN pages). */
bool nbw_plan_chase_note(const struct nbw_probe_opts *o, char *buf, size_t len);

/** One device set of a series: its streams' endpoints (-1 = host memory). */
struct nbw_plan_set {
	unsigned nstreams;
	int src[NBW_MAX_STREAMS], dst[NBW_MAX_STREAMS];
	enum nbw_conc conc;
	bool matrix_only;         /**< smallest and largest size only */
};

/** The devices a backend's series run on. */
struct nbw_plan_devices {
	const int *devs;          /**< in the user's order (or 0..n-1) */
	int nd;
	bool named;               /**< the user listed them: every set runs the whole sweep */
	/** Class of the link between devices a and b (same value = same kind of link, e.g.
	 *  "NV18" or "PCIe Gen5 x16"); the first pair of each class runs the whole sweep. NULL:
	 *  one class. */
	int (*pair_class)(void *ctx, int a, int b);
	void *ctx;
};

/** Fill \p out (room for \p max) with the device sets of kind \p k. Returns the count (0
 *  when there are fewer devices than the kind needs). */
size_t nbw_plan_sets(const struct nbw_series_kind *k, const struct nbw_plan_devices *d,
		     struct nbw_plan_set *out, size_t max);

/** What a backend can do, as the planner asks it (the backend's ops, or a test's table). */
struct nbw_plan_caps {
	/** The API call(s) of (dir, mode), or NULL with \p why. */
	const char *(*interface)(enum nbw_dir dir, enum nbw_mode mode, char *why, size_t len);
	/** 0, or -1 with \p why when (dir, mode, memory) cannot run; NULL: all can. */
	int (*supports)(void *ctx, enum nbw_dir dir, enum nbw_mode mode, enum nbw_hostmem mem,
			char *why, size_t len);
	void *ctx;
	bool peer_control;        /**< the API lets a program enable/disable peer access */
	/** The API call(s) of a face copy (direction, method, mode), or NULL with \p why
	 *  (the backend's face_interface); NULL: the backend has no face copies. */
	const char *(*face_interface)(void *ctx, enum nbw_dir dir, enum nbw_face_method method,
				      enum nbw_mode mode, char *why, size_t len);
	/** The backend issues a decomposition's exchange step itself (its exchange()): the
	 *  only way it sends each message once per field (--faces-fields). */
	bool exchange_step;
};

/** A face series (--faces): the box, the method, and each stream's face and side. */
struct nbw_face_plan {
	bool on;
	struct nbw_face_shape shape;
	enum nbw_face_method method;
	unsigned char face[NBW_MAX_STREAMS];   /**< enum nbw_face of each stream's message */
	unsigned char up[NBW_MAX_STREAMS];     /**< sent to the neighbour above (else below) */
	int decomp[3];            /**< exchange-decomp: PX, PY, PZ (else 0) */
	/** exchange-decomp: each message sent once per field (>= 1), every field's from the
	 *  message's boxes, by the backend's exchange step */
	int fields;
	/** exchange-decomp: every message staged through a host box of the series' host
	 *  memory (device -> host -> device) instead of device to device */
	bool staged;
};

/** One planned series: a device set with its mode, memory, peer access and binding; or a
 *  combination that cannot run (\p skip set, \p set empty). */
struct nbw_series_plan {
	const struct nbw_series_kind *kind;
	enum nbw_mode mode;
	enum nbw_hostmem mem;
	enum nbw_peer peer;
	enum nbw_bind_policy bind;
	const char *interface;         /**< NULL when skipped */
	struct nbw_plan_set set;
	char what[96];                 /**< "async pinned single": the label of skips */
	char skip[NBW_REASON_LEN];     /**< why it cannot run; "" when it runs */
	struct nbw_face_plan face;     /**< face series only (face.on) */
};

struct nbw_plan {
	struct nbw_series_plan *v;
	size_t n, cap;
};

/** Plan every series of one backend for direction \p dir under the options \p o (modes, host
 *  memory, --threads, peer access, binding). 0, or -1 when out of memory. */
int nbw_plan_series(const struct nbw_probe_opts *o, enum nbw_dir dir,
		    const struct nbw_plan_caps *caps, const struct nbw_plan_devices *d,
		    struct nbw_plan *out);
void nbw_plan_free(struct nbw_plan *p);
/** The face series of \p o->faces for direction \p dir (probe/plan_faces.c): per shape,
 *  mode (sync, async) and method (rect, pack), host memory for HtoD/DtoH, the z-, y- and
 *  x-face on the first device (HtoD/DtoH) or the first pair (P2P; the same-device copy with
 *  one device), and for P2P the exchange of a line (>= 2 devices) and of a 2 x G/2 grid
 *  (>= 4 devices; an odd last device left out), and of each --faces-decomp decomposition,
 *  device to device and host-staged (probe/plan_xdecomp.c); every one a single point (the
 *  box). */
int nbw_plan_faces(const struct nbw_probe_opts *o, enum nbw_dir dir,
		   const struct nbw_plan_caps *caps, const struct nbw_plan_devices *d,
		   struct nbw_plan *out);
/** The device set of a line exchange of \p nd devices \p devs (2(nd-1) messages) or of a
 *  2 x nd/2 grid (\p grid), with each message's face and side. Returns the streams. */
unsigned nbw_plan_exchange(const int *devs, int nd, bool grid, struct nbw_plan_set *set,
			   struct nbw_face_plan *fp);
/** The device set of the exchange of decomposition \p decomp (PX x PY x PZ devices of
 *  \p devs, numbered as the solver numbers them: device d at x = d % PX, y = (d / PX) % PY,
 *  z = d / (PX PY)): each neighbour pair both ways, x-faces between x neighbours first, then
 *  y-faces, then z-faces (probe/plan_xdecomp.c); \p fields: each message's sends per
 *  step (plan->fields; the streams are the messages). The caller checks the decomposition
 *  (nbw_face_decomp_invalid). Returns the streams. */
unsigned nbw_plan_decomp(const int *devs, const int decomp[3], int fields,
			 struct nbw_plan_set *set, struct nbw_face_plan *fp);
/** Measurements the plan will record with \p nsizes sizes in the sweep. */
size_t nbw_plan_measurements(const struct nbw_plan *p, size_t nsizes);
/** Whether series \p p runs size \p k of \p o's sweep (the executor asks the same). */
bool nbw_plan_runs_size(const struct nbw_series_plan *p, const struct nbw_probe_opts *o,
			size_t k);
/** The measurements series \p p records under \p o when it runs to its end: the sizes it
 *  runs (a chase: its one or two working sets); 0 for a skipped series. */
size_t nbw_plan_points(const struct nbw_series_plan *p, const struct nbw_probe_opts *o);

#endif
