/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The results document: one JSON file per run (schema in doc/results-schema.md),
 * with a CSV view of the summaries. Both are written atomically (temporary file + rename).
 */
#ifndef NODEBW_RESULTS_H
#define NODEBW_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nodebw/face.h"
#include "nodebw/probe.h"
#include "nodebw/stats.h"

#define NBW_SCHEMA_NAME "nodebw-results"
#define NBW_SCHEMA_VERSION 2

/** One host thread's copies inside a measurement. */
struct nbw_stream {
	int src_device;             /**< -1 = host */
	int dst_device;             /**< -1 = host */
	double *samples_s;          /**< per repetition, this thread's own duration */
	size_t n;
	double *alone_samples_s;    /**< DUAL/BIDIR: the same copy with the other thread idle */
	size_t n_alone;
	double *device_samples_s;   /**< per repetition, the backend's device timer (or NULL) */
	size_t n_device;
	struct nbw_summary gbps;
	struct nbw_summary alone_gbps;
	struct nbw_summary device_gbps;
};

/** CHASE mode (NBW_MODE_CHASE): the pointer chase's latency. The core times transfers of
 *  \c loads dependent loads (the measurement's samples) and base transfers of \c base_loads
 *  (1) load; the latency per load is the slope between their medians, so the launch and
 *  wait of one transfer, the same in both, drop out (\c overhead_us is what they cost).
 *  doc/results-schema.md. */
struct nbw_chase_result {
	bool has;                   /**< a chase measurement with its figures */
	uint64_t loads;             /**< dependent loads of one timed transfer (samples_s) */
	uint64_t base_loads;        /**< of one base transfer (1) */
	uint64_t slots;             /**< slots of the cycle: the working set / stride_bytes */
	unsigned stride_bytes;      /**< bytes between two slots (NBW_CHASE_STRIDE) */
	uint64_t touched_bytes;     /**< slots the short chain loads x stride: the working set,
				         or a prefix of the cycle when it is too slow to walk whole */
	unsigned base_reps;         /**< timed base transfers */
	double base_median_s;       /**< their median */
	double latency_ns;          /**< ns per dependent load: (median - base median) /
				         (loads - base_loads) */
	double overhead_us;         /**< base median - base_loads x latency: the launch and wait
				         of one transfer */
	char method[256];           /**< how the latency was derived, in words */
};

/** A face probe's shape (--faces; common/results_face.c, doc/results-schema.md "shape"):
 *  the box, its depth and element bytes, the method, and the face of each message (one for
 *  a face copy, one per stream for an exchange). The measurement's bytes are the first
 *  message's face bytes; a step's bytes are the sum over the messages (nbw_face_bytes). */
struct nbw_face_rec {
	bool has;
	struct nbw_face_shape shape;
	enum nbw_face_method method;
	unsigned char faces[NBW_MAX_STREAMS];
	/** exchange-decomp: the decomposition PX, PY, PZ ("decomp": "2x2x1"; else 0) and its
	 *  path ("path": "host-staged" when \p staged, else "device") */
	int decomp[3];
	bool staged;
	int fields;             /**< exchange-decomp: each face sent once per field ("fields") */
};

/** Bytes of stream \p i's message of a face measurement (its face's elements x E). */
uint64_t nbw_face_rec_stream_bytes(const struct nbw_face_rec *f, unsigned i);
/** Bytes of one step: the sum over \p nstreams messages, times the fields. */
uint64_t nbw_face_rec_step_bytes(const struct nbw_face_rec *f, unsigned nstreams);

struct nbw_measurement {
	char api[16];
	char probe[32];             /**< catalogue name, e.g. "omp-htod" */
	char interface[160];        /**< API calls used */
	enum nbw_dir dir;
	enum nbw_mode mode;
	enum nbw_hostmem hostmem;
	enum nbw_conc conc;
	enum nbw_peer peer;         /**< P2P: peer access enabled, disabled, or not controllable */
	char start[256];            /**< how concurrent copies were started together */
	char device_timer[80];      /**< the backend's device timer, "" when none */
	/** How host threads wait for the device (the backend's sched(), e.g. "blocking" for a
	 *  CUDA primary context with CU_CTX_SCHED_BLOCKING_SYNC) and how it came to be so; ""
	 *  when the backend has no such setting. */
	char sched[64];
	char sched_note[320];
	/* What the path could give (topology): per measurement, aggregate like gbps. */
	double theoretical_gbps;    /**< < 0: unknown (host memory has no link) */
	char link[64];              /**< "PCIe Gen5 x16", "NV18", "host memory, no link" */
	char theoretical_basis[256];
	/* NUMA binding of the host threads and host buffers, and where the pages really are. */
	char bind_policy[8];        /**< "local", "remote", "none" */
	int bind_node;              /**< -1: not bound */
	char host_pages[128];       /**< actual placement of the host buffers, "" if none */
	char path[512];             /**< what was between source and destination */
	char host_mem_note[160];
	/** Huge-page host memory (NBW_HOSTMEM_HUGEPAGE) only, else "": what the kernel gave the
	 *  host buffers, read from /proc/self/smaps after the repetitions ("hugetlb 2 MiB
	 *  pages: ...", "THP: 4.0 MiB of 4.0 MiB resident in huge pages ...", "THP advised, no
	 *  huge pages given ..."); per stream when the streams differ. */
	char huge_pages[320];
	uint64_t bytes;             /**< bytes of one transfer */
	/** "sweep": this device set ran the whole size sweep; "matrix": only the sweep's
	 *  smallest and largest size, for the whole-node matrices (include/nodebw/plan.h). */
	char size_set[8];
	int halo_n;
	char bytes_counting[256];
	int hidden_helpers;         /**< helper threads libomp used (8 when unset); -1: not OpenMP */
	unsigned warmup;
	unsigned reps;
	double *samples_s;          /**< per repetition: wall time of the repetition (all streams) */
	size_t n;
	struct nbw_summary gbps;    /**< of total bytes / wall time per repetition */
	struct nbw_summary seconds;
	/** The distribution-free confidence interval of the median of samples_s (order
	 *  statistics, nbw_median_ci), and so of the median GB/s; filled by
	 *  nbw_measurement_summarize from the samples (ci.n == 0: no samples). */
	struct nbw_median_ci ci;
	/** Why the repetitions stopped: "interval within +-1 %", "time cap 0.5 s", "max
	 *  repetitions 20" or "fixed --reps"; "" when unknown (an error, an older document). */
	char stop[48];
	/** The interval meets the target (nbw_ci_converged); meaningful when stop is set. */
	bool converged;
	/** The repetitions ended at the size's time cap (settings.max_time_s) before the
	 *  interval met the target: stop is "time cap ..."; meaningful when stop is set. */
	bool time_capped;
	/** Wall time of the first timed repetition (0: unknown). */
	double first_rep_s;
	/** Minor page faults of the process per timed repetition (getrusage ru_minflt from
	 *  before the first to after the last, checks between them included, divided by the
	 *  repetitions); < 0: unknown. */
	double minor_faults_per_rep;
	unsigned nstreams;
	struct nbw_stream streams[NBW_MAX_STREAMS];
	/* Overlap of concurrent copies (nstreams == 2). */
	bool has_overlap;
	double serial_estimate_s;   /**< sum of the streams' alone medians */
	double concurrent_s;        /**< median wall time with both at once */
	double overlap_speedup;     /**< serial_estimate_s / concurrent_s: 2 = perfect, 1 = serialised */
	double overlap_lo, overlap_hi; /**< the speedup from the quartiles: serial 25th
					    percentile / concurrent 75th, and 75th / 25th */
	char overlap_verdict[16];   /**< "overlapped", "partial", "serialized", "noisy", or
				         "unclear" when the range spans two of them */
	/* Verification of the destination bytes, outside the timed region. */
	char verify_status[16];     /**< "passed", "failed", "not-run" */
	uint64_t verify_bytes;
	char verify_detail[160];
	/** The repetitions whose destination was checked, 1-based ranges ("1-20", "1,8",
	 *  "1,7-8,12"); empty when none was (an error) or the document predates the field. */
	char verify_reps[96];
	char error[256];            /**< empty on success */
	struct nbw_chase_result chase; /**< CHASE mode only (chase.has) */
	struct nbw_face_rec face;   /**< face probes only (face.has) */
	/** Wall time this measurement cost, warm-up, repetitions, reference runs and
	 *  verification included (what a run spends; 0 when unknown). */
	double elapsed_s;
};

void nbw_measurement_free(struct nbw_measurement *m);
/** Fill the summaries from the samples. */
void nbw_measurement_summarize(struct nbw_measurement *m);
json_t *nbw_measurement_to_json(const struct nbw_measurement *m);
/** 0, or -1 with a message naming the first bad field. */
int nbw_measurement_from_json(json_t *j, struct nbw_measurement *m, char *err, size_t errlen);

struct nbw_doc {
	json_t *root;
	json_t *devices, *skipped, *measurements;
	/* results.csv as it grows: one row appended per measurement added (private). */
	FILE *csv;
	char *csv_buf;
	size_t csv_len;
};

/** New document with schema header, tool version, time, command line, machine, software
 *  and environment. */
struct nbw_doc *nbw_doc_new(int argc, char **argv);
void nbw_doc_free(struct nbw_doc *d);
/** Record the git revision of the build that writes \p d (tool.revision). */
void nbw_doc_set_revision(struct nbw_doc *d, const char *revision);
void nbw_doc_add_device(struct nbw_doc *d, const char *api, const struct nbw_device *dev);
/** The PCI vendor, device and subsystem IDs sysfs gives for PCI bus id \p bus
 *  (\p sysroot/bus/pci/devices/BUS/{vendor,device,subsystem_vendor,subsystem_device};
 *  \p sysroot NULL = "/sys"): {"vendor", "device"[, "subsystem_vendor",
 *  "subsystem_device"]}, four lower-case hex digits each; NULL when \p bus is empty or
 *  sysfs has no such device (a host-plugin device has no bus id). New reference. */
json_t *nbw_results_pci_id(const char *sysroot, const char *bus);
/** Set a device object's "pci_id" from its "pci_bus_id" (nbw_results_pci_id); nothing when
 *  there is none. nbw_doc_add_device calls it with "/sys". */
void nbw_results_device_set_pci_id(json_t *dev, const char *sysroot);
/** A loaded device's "pci_id", when present, is {"vendor", "device"[, "subsystem_vendor",
 *  "subsystem_device"]} of four hex digits each: 0, or -1 with \p e ("pci_id: ..."). */
int nbw_results_check_pci_id(json_t *dev, char *e, size_t elen);
/** How many of the document's devices are the API \p api's. */
int nbw_doc_api_devices(const struct nbw_doc *d, const char *api);
void nbw_doc_add_skip(struct nbw_doc *d, const char *api, const char *probe, const char *what,
		      const char *reason);
void nbw_doc_add_measurement(struct nbw_doc *d, const struct nbw_measurement *m);
/** Add a measurement already in JSON form (e.g. a child process's), taking the reference. */
void nbw_doc_add_measurement_json(struct nbw_doc *d, json_t *m);
void nbw_doc_set(struct nbw_doc *d, const char *key, json_t *value);
/** Records appended to the document's own blocks by their writers, so that no writer reads
 *  the document's keys back: a backend's version information in "software"; a stage of
 *  the "disturbance" record and a speed-reference point (the method named once); whether
 *  the run records its disturbance at all; the plane-size sweep's list of children (a new
 *  record with \p processes and \p hidden_helpers when \p restart or when there is none).
 *  Each takes the reference to \p value. */
void nbw_doc_set_backend_software(struct nbw_doc *d, const char *api, json_t *value);
bool nbw_doc_records_disturbance(const struct nbw_doc *d);
void nbw_doc_add_disturb_stage(struct nbw_doc *d, json_t *value);
void nbw_doc_add_speed_reference(struct nbw_doc *d, json_t *value, const char *method);
json_t *nbw_doc_plane_sweep_children(struct nbw_doc *d, bool restart, int processes,
				     int hidden_helpers);
/** The run's state, in the document from the first checkpoint on: "running", "complete",
 *  "interrupted" (by a signal, \p detail names it), "failed" (\p detail says why) or
 *  "killed" (set by a later nodebw, common/rundir.c). Also sets "interrupted". */
void nbw_doc_set_state(struct nbw_doc *d, const char *state, const char *detail);

/** Write \p dir/results.json and \p dir/results.csv atomically; 0 or -1 with \p err. */
int nbw_doc_write(struct nbw_doc *d, const char *dir, char *err, size_t errlen);
/** Load and check a results file; error text names file, line and column. */
struct nbw_doc *nbw_doc_load(const char *path, char *err, size_t errlen);
/** The same on a document already in memory (\p len bytes; \p path names it in errors):
 * what nbw_doc_load runs once nbw_readfile has read the file, and what the fuzz target feeds. */
struct nbw_doc *nbw_doc_load_buffer(const char *path, const char *text, size_t len, char *err,
				    size_t errlen);
/** The CSV view of the measurement summaries. */
int nbw_doc_write_csv(struct nbw_doc *d, const char *path, char *err, size_t errlen);

/** \p path for a one-line message: itself, or "..." and its last 100 characters when it is
 *  long (in \p buf), so that the reason after it is never cut off. */
const char *nbw_short_path(const char *path, char *buf, size_t len);

/** Write \p len bytes to \p path through a temporary file in the same folder + rename. */
int nbw_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);

#endif
