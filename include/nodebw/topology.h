/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Node topology: host (packages, NUMA nodes, cores), every device's host link (PCIe
 * generation and width, NUMA node, local CPUs), the device-to-device matrix in the style of
 * `nvidia-smi topo -m` with theoretical bandwidth, and NUMA binding helpers.
 *
 * Sources (one file each under topology/): hwloc (host and PCI tree), sysfs (PCIe link
 * speed and width, under a configurable root), NVML, ROCm SMI and Level Zero (all three
 * loaded with dlopen at run time), or a recorded/synthetic machine (a fixture folder: see
 * doc/topology.md). A vendor source that finds nothing says why (nbw_topo_source()).
 *
 * All bandwidth here is **theoretical, per direction, in GB/s = 1e9 bytes/s**; a negative
 * value means "unknown" (null in JSON). Nothing in this module measures anything.
 *
 * ## How the probe core uses it
 *
 *     struct nbw_topo *t;
 *     if (nbw_topo_load(&t, NULL, err, sizeof(err)))        // live machine, once per run
 *             ... record err; topology is optional, go on without it ...
 *     nbw_doc_set(doc, "topology", nbw_topo_to_json(t));  // results.json key "topology"
 *
 *     // per device (dev from backend->device_info); registering it first makes the
 *     // JSON list which APIs saw each device:
 *     nbw_topo_add_api_device(t, ops->name, &dev);
 *     struct nbw_host_link hl;
 *     nbw_topo_host_link(t, dev.pci_bus_id, &hl);   // "" = host memory: hl.host_memory
 *     // hl.theoretical_gbps: the ceiling of a HtoD/DtoH copy (< 0: unknown)
 *
 *     // per P2P pair:
 *     struct nbw_topo_pair p;
 *     nbw_topo_pair(t, a.pci_bus_id, b.pci_bus_id, &p);  // p.label "NV18", p.theoretical_gbps
 *
 *     // --bind local|remote|none, per stream, in the stream's own host thread, before the
 *     // host buffer is allocated or touched:
 *     int node;
 *     if (nbw_topo_bind_node(t, dev.pci_bus_id, NBW_BIND_REMOTE, &node, why, len))
 *             ... skip the series, record why ("no remote NUMA node: ...") ...
 *     nbw_topo_bind_thread(t, node, why, len);          // thread runs on the node's CPUs
 *     nbw_topo_bind_area(t, buf, bytes, node, why, len); // before first touch / pinning
 *     ... first touch (pattern fill), pin/register, measure ...
 *     struct nbw_page_placement pl;                      // outside the timed region
 *     nbw_page_placement(buf, bytes, &pl, why, len);     // where the pages really are
 *     nbw_page_placement_format(&pl, text, sizeof(text)); // "node 0: 100.0% (256 pages)"
 *     // record nbw_page_placement_to_json(&pl) beside the measurement
 *
 * With NBW_BIND_NONE the node is -1: leave the thread and the memory alone. The buffer pool
 * (probe/bufpool.c) allocates once per run: bind its buffers once, per stream, before the
 * pattern is first written.
 * Pinning (cudaHostRegister, hipHostRegister, mlock) does not move pages, so bind before
 * the first touch. libomp's hidden helper threads are not bound by this: they follow
 * `KMP_HIDDEN_HELPER_AFFINITY`. A topology loaded from a fixture is not this machine, so
 * the binding functions refuse it.
 *
 * Thread safety: a loaded topology is read-only; lookups and binding calls may run from
 * several threads at once. nbw_topo_add_api_device() must not race with anything.
 */
#ifndef NODEBW_TOPOLOGY_H
#define NODEBW_TOPOLOGY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nodebw/probe.h"

/** A device reference: "dddd:bb:dd.f" (a whole PCI device), "dddd:bb:dd.f/T" (tile T of a
 *  multi-tile device, e.g. a Level Zero subdevice), or "api:N" for a device without a PCI
 *  address (host-plugin devices, host memory regions). */
#define NBW_TOPO_ID_LEN 32
#define NBW_TOPO_CPUSET_LEN 256
#define NBW_TOPO_NOTE_LEN 256
#define NBW_TOPO_MAX_NUMA 256

struct nbw_topo; /* opaque */

/** Where to read from. NULL options = the live machine with sysfs at "/sys". */
struct nbw_topo_opts {
	/** Folder of a recorded or synthetic machine: hwloc.xml (hwloc's XML), sys/ (a
	 *  sysfs-like PCI tree) and links.json (stands in for NVML/ROCm SMI/Level Zero). */
	const char *fixture_dir;
	/** Root of the sysfs PCI tree on the live machine ("/sys" when NULL). */
	const char *sysfs_root;
	/** Skip the vendor libraries (NVML, ROCm SMI, Level Zero) on the live machine. */
	bool no_vendor;
};

/** Load the topology. 0, or -1 with \p err: a fixture problem names the file (and the
 *  line where the parser gives one), e.g. "DIR/links.json:7: ...". A vendor library that
 *  is missing is not an error: that source records why it found nothing. */
int nbw_topo_load(struct nbw_topo **out, const struct nbw_topo_opts *o, char *err,
		  size_t errlen);
void nbw_topo_free(struct nbw_topo *t);
/** True when loaded from a fixture (not this machine: binding is refused). */
bool nbw_topo_is_fixture(const struct nbw_topo *t);

/* ---- sources ------------------------------------------------------------------------ */

struct nbw_topo_source {
	char name[16];          /**< "hwloc", "sysfs-pci", "nvml", "rocm-smi", "level-zero",
				     "fixture", "apis" */
	bool ok;                /**< it answered (possibly with zero devices) */
	int devices;            /**< devices it reported */
	char detail[NBW_TOPO_NOTE_LEN * 2]; /**< what it found, or why it found nothing (the
					       dlerror text, the API's own error) */
};
size_t nbw_topo_source_count(const struct nbw_topo *t);
const struct nbw_topo_source *nbw_topo_source(const struct nbw_topo *t, size_t i);
/** Add (or replace) a source line, e.g. "apis" with what each backend reported. 0 or -1. */
int nbw_topo_note_source(struct nbw_topo *t, const char *name, bool ok, int devices,
			 const char *detail);

/* ---- host ---------------------------------------------------------------------------- */

struct nbw_topo_host {
	unsigned packages, numa_nodes, cores, pus;
	char hostname[64];
	char cpu_model[NBW_NAME_LEN];
};
void nbw_topo_host(const struct nbw_topo *t, struct nbw_topo_host *out);

struct nbw_topo_numa {
	int os_index;
	unsigned long long memory_bytes;
	char cpuset[NBW_TOPO_CPUSET_LEN]; /**< "0-55,112-167"; "" for a memory-only node */
	int package;                      /**< OS index of its package, -1 if none/several */
};
/** NUMA node \p i (0 ... numa_nodes-1, in OS index order); -1 when out of range. */
int nbw_topo_numa(const struct nbw_topo *t, unsigned i, struct nbw_topo_numa *out);

/* ---- PCIe arithmetic ----------------------------------------------------------------- */

/** One PCIe link state. Theoretical bandwidth per direction:
 *      GB/s = GT/s x encoding efficiency / 8 bits x width
 *  with 8b/10b for Gen1-2 and 128b/130b from Gen3; per lane 0.25, 0.5, 0.985, 1.969,
 *  3.938, 7.877 GB/s for Gen1...Gen6 (Gen6 with the 128b/130b factor, see
 *  doc/topology.md). */
struct nbw_pcie {
	int gen;                /**< 1..6; 0 = unknown */
	double gt_s;            /**< transfer rate per lane, GT/s; 0 = unknown */
	int width;              /**< lanes; 0 = unknown */
	double gbps;            /**< theoretical per direction; < 0 = unknown */
};
/** PCIe generation of a per-lane rate in GT/s (2.5 -> 1 ... 64 -> 6), 0 if none. */
int nbw_pcie_gen(double gt_s);
/** Theoretical GB/s per lane per direction for a generation; < 0 when unknown. */
double nbw_pcie_lane_gbps(int gen);
/** Fill gen and gbps of \p p from gt_s and width. */
void nbw_pcie_fill(struct nbw_pcie *p);
/** Parse a sysfs link speed ("16.0 GT/s PCIe", "8 GT/s", "Unknown") into GT/s; 0 if none. */
double nbw_pcie_parse_speed(const char *s);

/* ---- devices ------------------------------------------------------------------------- */

/** How a device reaches host memory. */
struct nbw_host_link {
	bool host_memory;        /**< no PCI address: the device is host memory, no link */
	bool found;              /**< the PCI address is known to hwloc or sysfs */
	struct nbw_pcie current; /**< as trained now (GPUs slow the link down when idle) */
	struct nbw_pcie max;     /**< the device's maximum */
	struct nbw_pcie port_max;/**< the maximum of the port above it (slot), if known */
	/** Per direction: min(device max, port max) in rate and width, i.e. what the link can
	 *  train to; < 0 unknown. This is the ceiling of a HtoD or DtoH copy. */
	double theoretical_gbps;
	int numa_node;           /**< OS index; -1 unknown */
	char cpuset[NBW_TOPO_CPUSET_LEN]; /**< CPUs local to the device, "0-55,112-167" */
	char note[NBW_TOPO_NOTE_LEN];     /**< "host memory, no link", why something is
					     unknown, or that the link runs below its maximum */
};

struct nbw_topo_device {
	char id[NBW_TOPO_ID_LEN];  /**< see NBW_TOPO_ID_LEN */
	char pci_bus_id[24];       /**< "" for host memory */
	int tile;                  /**< tile (subdevice) index, -1 for a whole device */
	char kind[32];             /**< "gpu", "gpu-tile", "host-plugin", "host", ... */
	char vendor[16];           /**< "nvidia", "amd", "intel", "" */
	char name[NBW_NAME_LEN];
	char seen_by[96];          /**< comma-separated: "nvml,cuda,omp", "pci" */
	struct nbw_host_link link;
};
size_t nbw_topo_device_count(const struct nbw_topo *t);
const struct nbw_topo_device *nbw_topo_device(const struct nbw_topo *t, size_t i);

/** Host link of a device by PCI bus id (any case, 4- or 8-digit domain; a "/T" tile suffix
 *  is allowed; tiles share their device's link). NULL or "" = host memory: 0 with
 *  host_memory set, note "host memory, no link", theoretical_gbps < 0. Any PCI device of
 *  the machine may be asked, not only listed ones. On the live machine sysfs is read anew,
 *  so a call right after a transfer shows the link as trained under load. 0, or -1 when
 *  the address is malformed or unknown to hwloc and sysfs (\p out->note says which). */
int nbw_topo_host_link(const struct nbw_topo *t, const char *bus_id, struct nbw_host_link *out);

/** Register a device an API reported (backend device_info). Merged with a known device of
 *  the same PCI bus id (its seen_by gains \p api); without a bus id it is added as host
 *  memory with id "api:N". Returns the device index, or -1. */
int nbw_topo_add_api_device(struct nbw_topo *t, const char *api, const struct nbw_device *d);

/* ---- device pairs -------------------------------------------------------------------- */

enum nbw_link_kind {
	NBW_LINK_SELF,      /**< "X" */
	NBW_LINK_NVLINK,    /**< "NV#": # bonded NVLinks (direct or through NVSwitch) */
	NBW_LINK_XGMI,      /**< "XGMI#": # xGMI (Infinity Fabric) links; "XGMI" multi-hop */
	NBW_LINK_XELINK,    /**< "XL#": # Xe Links (Intel) */
	NBW_LINK_MDF,       /**< "MDF": two tiles of one package (Intel multi-die fabric) */
	NBW_LINK_PIX,       /**< at most one PCIe switch */
	NBW_LINK_PXB,       /**< several PCIe bridges, no host bridge */
	NBW_LINK_PHB,       /**< through a PCIe host bridge (root complex) */
	NBW_LINK_NODE,      /**< between host bridges within one NUMA node */
	NBW_LINK_SYS,       /**< across the SMP interconnect between NUMA nodes */
	NBW_LINK_HOST,      /**< "HOST": a side is host memory, no link */
	NBW_LINK_UNKNOWN,   /**< "?" */
	NBW_LINK_KIND_COUNT
};
const char *nbw_link_kind_name(enum nbw_link_kind k);  /**< "nvlink", "pix", ... */
const char *nbw_link_kind_legend(enum nbw_link_kind k); /**< one line for the legend */

struct nbw_topo_pair {
	enum nbw_link_kind kind;
	char label[16];          /**< "X", "NV18", "XGMI4", "XL2", "MDF", "PIX", ..., "SYS",
				      "HOST", "?" */
	int links;               /**< bonded links; 0 = not applicable or unknown */
	int hops;                /**< 1 = direct; > 1 multi-hop (theoretical unknown) */
	double theoretical_gbps; /**< per direction; < 0 unknown (null in JSON) */
	char basis[NBW_TOPO_NOTE_LEN]; /**< how the figure was reached, or why it is unknown */
	char source[64];         /**< where theoretical_gbps comes from: "nvml", "rocm-smi",
				      "hwloc XML NVLinkBandwidth (MB/s)", "PCIe host links" */
	/** Cross-check: when a vendor API (or links.json) and hwloc's GPU distance matrix both
	 *  give the pair a figure, the vendor one is theoretical_gbps and hwloc's is here;
	 *  < 0 when there is nothing to compare. */
	double hwloc_gbps;
	char hwloc_source[64];
	bool disagree;           /**< the two differ by more than 10 % of hwloc's figure */
};
/** The link between two devices (bus ids or device ids as above). A whole device with
 *  tiles against another device: the best of its tile pairs, and the basis says so.
 *  0, or -1 when an id is malformed or unknown (label "?", basis says which). */
int nbw_topo_pair(const struct nbw_topo *t, const char *a, const char *b,
		  struct nbw_topo_pair *out);

/** The PCIe path alone between two devices (PIX, PXB, PHB, NODE, SYS, with the slower host
 *  link as theoretical GB/s), whatever NVLink, xGMI or Xe Link they also have: the route of
 *  a copy staged through the host or of P2P without the fabric. Same ids and returns. */
int nbw_topo_pcie_pair(const struct nbw_topo *t, const char *a, const char *b,
		       struct nbw_topo_pair *out);

/* ---- JSON and text -------------------------------------------------------------------- */

/** The "topology" object of results.json (shape in doc/topology.md). New reference. */
json_t *nbw_topo_to_json(const struct nbw_topo *t);
/** The `nodebw topo` text: host, sources, devices, matrix, legend. */
void nbw_topo_print(const struct nbw_topo *t, FILE *f);
/** Record this machine as a fixture folder (hwloc.xml, sys/, links.json). 0 or -1 + err. */
int nbw_topo_export(const struct nbw_topo *t, const char *dir, char *err, size_t errlen);

/* ---- binding (topology/bind.c) ------------------------------------------------------- */

enum nbw_bind_policy { NBW_BIND_NONE, NBW_BIND_LOCAL, NBW_BIND_REMOTE };
const char *nbw_bind_policy_name(enum nbw_bind_policy p); /**< "none", "local", "remote" */
int nbw_bind_policy_parse(const char *s);                 /**< the policy, or -1 */

/** The NUMA node (OS index) a stream for device \p dev should use. LOCAL: the device's node
 *  (host memory or unknown locality: the first node with CPUs, and \p why says so); REMOTE:
 *  the farthest other node with CPUs (by the firmware's NUMA distances when hwloc has them,
 *  else the next one); NONE: *node = -1. 0, or -1 with \p why, e.g. "no remote NUMA node:
 *  this machine has one NUMA node (0)". */
int nbw_topo_bind_node(const struct nbw_topo *t, const char *dev, enum nbw_bind_policy p,
		       int *node, char *why, size_t whylen);
/** Bind the calling thread to the CPUs of NUMA node \p node (hwloc_set_cpubind with
 *  HWLOC_CPUBIND_THREAD); node -1 = every allowed CPU again. 0 or -1 with \p why. */
int nbw_topo_bind_thread(const struct nbw_topo *t, int node, char *why, size_t whylen);
/** Bind the pages of [p, p+len) to node \p node (hwloc_set_area_membind, BIND, migrating
 *  pages already touched). Call before the first touch. 0 or -1 with \p why. */
int nbw_topo_bind_area(const struct nbw_topo *t, void *p, size_t len, int node, char *why,
		       size_t whylen);
/** Allocate \p len bytes bound to node \p node (hwloc_alloc_membind); not touched yet.
 *  Free with nbw_topo_free_membind(). NULL with \p why on failure. */
void *nbw_topo_alloc_membind(const struct nbw_topo *t, size_t len, int node, char *why,
			     size_t whylen);
void nbw_topo_free_membind(const struct nbw_topo *t, void *p, size_t len);

/** Where the pages of a buffer actually are (move_pages(2) with nodes = NULL). */
struct nbw_page_placement {
	size_t pages;                    /**< pages asked about */
	size_t not_present;              /**< not touched yet (-ENOENT) */
	size_t failed;                   /**< any other per-page error */
	size_t on_node[NBW_TOPO_MAX_NUMA];
	int max_node;                    /**< highest node with a page, -1 when none */
	size_t page_size;
};
/** Fill \p out for [p, p+len). Needs no topology. 0 or -1 with \p why. */
int nbw_page_placement(const void *p, size_t len, struct nbw_page_placement *out, char *why,
		       size_t whylen);
/** "node 0: 100.0% (256 pages)", with not-present and failed pages when there are any. */
void nbw_page_placement_format(const struct nbw_page_placement *pl, char *buf, size_t len);
/** The placement histogram as JSON {"page_size":..., "pages":..., "nodes": {"0": 256},
 *  "not_present":0, "failed":0}. New reference. */
json_t *nbw_page_placement_to_json(const struct nbw_page_placement *pl);

#endif
