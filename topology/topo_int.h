/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to topology/: the model every source fills and the matrix reads. */
#ifndef NODEBW_TOPO_INT_H
#define NODEBW_TOPO_INT_H

#include <hwloc.h>
#include <limits.h>
#include <stdarg.h>

#include "nodebw/link_health.h"
#include "nodebw/topology.h"

#define TOPO_MAX_SOURCES 8
#define TOPO_MAX_CHAIN 16

/* The PCI path of a device: its root complex and the bridges from the root port down to
 * the device's parent. Only paths from the same origin (hwloc or sysfs) are compared. */
struct topo_pci_path {
	char origin;                  /* 'h' hwloc, 's' sysfs, 0 none */
	char root[32];                /* host bridge identity */
	int n;
	char bridge[TOPO_MAX_CHAIN][16];
};

struct topo_dev {
	struct nbw_topo_device pub;
	int nvlink_version;           /* NVLink major version (1 ... 5); 0 none */
	int switch_links;             /* active NVLinks to NVSwitches */
	int orig;                     /* scratch: index before sorting */
	char name_source[48];         /* who gave the name: "pci", "nvml", "hwloc GPUModel" */
	/* its PCI paths, resolved once when the device is added (not per pair): what
	 * topo_pci_path gives, and the sysfs one alone (origin 0 when not found) */
	struct topo_pci_path path, sys_path;
	/* what the vendor APIs (or links.json) answered about its links' health; the sysfs
	 * part is read when asked (health_sysfs.c) */
	struct nbw_link_health health;
};

/* A device pair (lo < hi) in a sorted index of links or hwloc figures (index.c). */
struct topo_pairkey {
	int lo, hi;
	bool hint;
	int idx;
};

/* A GPU pair's figure from one of hwloc's GPU distance matrices (hwloc_gpu.c), by bus id
 * (whole devices only, so it survives topo_finalize's sorting). */
struct topo_hwfig {
	char a[24], b[24];
	enum nbw_link_kind kind;      /* NVLINK, XGMI or XELINK */
	double gbps;                  /* per direction: the maximum flow (fabric.c); 0 when
					 both reach switches but no switch path joins them */
	double direct_gbps;           /* the pair's own entry */
	int nswitch;                  /* switches the flow crosses */
	int paths;                    /* augmenting paths (parallel routes) */
	int tiers;                    /* most switches in series on one path (1: one tier) */
	double narrowest_gbps, widest_gbps; /* the paths' bottlenecks */
	bool unjoined;                /* gbps 0: switches on both sides, none joining them */
	char matrix[24];              /* "NVLinkBandwidth" */
};

/* fabric.c: the maximum flow from object s to t over a matrix of capacities (n x n,
 * cap[i * n + j] from i to j, MB/s; the diagonal ignored), only relays (switches) passing
 * traffic on. -1 on bad arguments or no memory. */
struct topo_flow {
	double mbps;                  /* the flow: the pair's figure */
	int paths;                    /* augmenting paths found */
	int tiers;                    /* most relays in series on a path */
	int switches;                 /* relays that carry some of the flow */
	double narrowest_mbps;        /* the smallest path bottleneck; < 0 no path */
	double widest_mbps;           /* the largest path bottleneck */
};
int topo_fabric_flow(const double *cap, unsigned n, const bool *relay, unsigned s,
		     unsigned t, struct topo_flow *out);

/* A link between two devices as an API answered it (or a fixture stands in for it). Kinds
 * PIX ... SYS are hints (NVML's common ancestor), used when the PCI tree cannot tell. */
struct topo_link {
	int a, b;
	enum nbw_link_kind kind;
	int count;                    /* bonded links, 0 unknown */
	int hops;                     /* 1 direct */
	int version;                  /* NVLink major version */
	double api_gbps;              /* per direction as the API reported it; < 0 none */
	double link_gbps;             /* per link per direction; < 0 from the rate table */
	char source[16];
};

struct nbw_topo {
	bool fixture;
	bool no_sysfs;                /* a bare hwloc XML fixture: no sysfs tree beside it */
	char fixture_dir[PATH_MAX];
	char sysroot[PATH_MAX];       /* sysfs root ("/sys" or DIR/sys) */
	hwloc_topology_t hw;
	struct nbw_topo_source src[TOPO_MAX_SOURCES];
	size_t nsrc;
	struct topo_dev *dev;
	size_t ndev, capdev;
	struct topo_link *link;
	size_t nlink, caplink;
	struct topo_hwfig *hwfig;
	size_t nhwfig, caphwfig;
	/* index.c: device ids hashed (open addressing, -1 empty); links and figures by pair */
	int *idtab;
	size_t idcap, idn;
	struct topo_pairkey *linkidx, *figidx;
	size_t nlinkidx, nfigidx, figidx_ndev;
	bool linkidx_valid, figidx_valid;
};

/* index.c */
void topo_id_rebuild(struct nbw_topo *t);
void topo_id_insert(struct nbw_topo *t, int i);
int topo_id_lookup(const struct nbw_topo *t, const char *id);
/* Sort the links and hwloc figures by device pair (after topo_finalize numbered them). */
void topo_pairs_rebuild(struct nbw_topo *t);

/* ---- the sources (sources.c lists them; topo.c walks the list) ---------------------- */

/* One source of the topology. discover adds its source line (topo_source) and the devices
 * and links it finds to the model; it never fails the load (a source that finds nothing
 * says why in its line). */
struct topo_source_ops {
	const char *name;       /* its source line: "sysfs-pci", "hwloc-gpu", "nvml", ... */
	const char *provides;   /* what it adds to the model */
	bool vendor;            /* a vendor API loaded at run time: live only (a fixture has its
				   answers in links.json), left out with --no-vendor */
	bool needs_sysfs;       /* reads the sysfs tree: not on a bare hwloc XML fixture */
	void (*discover)(struct nbw_topo *t);
};

/* Each source's operations, in its own file. */
extern const struct topo_source_ops topo_source_sysfs_pci;   /* sysfs_pci.c */
extern const struct topo_source_ops topo_source_hwloc_pci;   /* hwloc_gpu.c */
extern const struct topo_source_ops topo_source_hwloc_gpu;   /* hwloc_gpu.c */
extern const struct topo_source_ops topo_source_nvml;        /* nvml.c */
extern const struct topo_source_ops topo_source_rocm;        /* rocm.c */
extern const struct topo_source_ops topo_source_ze;          /* ze_links.c */

/* The sources in the order they run, NULL-terminated (sources.c): the host's PCI tree
 * first, then hwloc's GPUs, then the vendor APIs, whose names win over the PCI database's. */
extern const struct topo_source_ops *const topo_sources[];

/* source_lines.c: add or replace the source line \p name. */
struct nbw_topo_source *topo_source(struct nbw_topo *t, const char *name, bool ok,
				    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* model.c: devices, links, host links */
/* Normalise "0:18:0.0", "00000000:18:00.0", "0000:18:00.0/1" -> "0000:18:00.0" and tile 1
 * (-1 without suffix). 0, or -1 when it is not a PCI address. */
int topo_busid_parse(const char *in, char out[24], int *tile);
/* The device with this id (bus id [+ tile], or "api:N"), or -1. */
int topo_find(const struct nbw_topo *t, const char *id);
/* Add (or find) a GPU or tile by bus id; returns its index or -1. */
int topo_add_gpu(struct nbw_topo *t, const char *bus_id, int tile, const char *vendor,
		 const char *name, const char *seen_by);
void topo_seen_by(struct topo_dev *d, const char *who);
int topo_add_link(struct nbw_topo *t, const struct topo_link *l);
const struct topo_link *topo_find_link(const struct nbw_topo *t, int a, int b, bool hints);
/* Resolve a device's host link (numa, cpuset, PCIe) from hwloc and sysfs. */
int topo_resolve_link(const struct nbw_topo *t, const char *bus_id, struct nbw_host_link *o);
/* The PCI path of a bus id (hwloc first, sysfs second). */
void topo_pci_path(const struct nbw_topo *t, const char *bus_id, struct topo_pci_path *p);
/* Once every source has run: tiles stand for their device, devices sorted by bus id and
 * tile, links renumbered, every host link resolved. */
void topo_finalize(struct nbw_topo *t);

/* hwloc_host.c */
/* Live (xml_path NULL) or from the hwloc XML text \p xml of \p xml_len bytes, NUL-terminated
 * (a fixture's hwloc.xml as nbw_readfile read it; \p xml_path names it in messages). */
int topo_hwloc_load(struct nbw_topo *t, const char *xml_path, const char *xml, size_t xml_len,
		    char *err, size_t errlen);
hwloc_obj_t topo_hwloc_pcidev(const struct nbw_topo *t, const char *bus_id);
void topo_hwloc_path(hwloc_obj_t pcidev, struct topo_pci_path *p);
/* Locality of a PCI object: NUMA node (-1 when not exactly one) and CPU list. */
void topo_hwloc_locality(const struct nbw_topo *t, hwloc_obj_t o, int *numa, char *cpus,
			 size_t len);
int topo_hwloc_numa_cpus(const struct nbw_topo *t, int node, char *cpus, size_t len);

/* hwloc_gpu.c: the sources hwloc-pci (the PCI GPUs it sees) and hwloc-gpu (GPU names,
 * GPUModel, and the NVLinkBandwidth, XGMIBandwidth and XeLinkBandwidth matrices of an
 * hwloc built with its GPU components, live or XML). */
const struct topo_hwfig *topo_find_hwfig(const struct nbw_topo *t, int a, int b);
/* "hwloc XML NVLinkBandwidth (MB/s)" (fixture) or "hwloc NVLinkBandwidth (MB/s)" (live) */
void topo_hwfig_source(const struct nbw_topo *t, const struct topo_hwfig *h, char *buf,
		       size_t len);

/* sysfs_pci.c */
struct topo_sysfs {
	bool found;
	unsigned cls, vendor, device;
	int numa_node;                /* -1 unknown */
	struct nbw_pcie cur, max, port_max;
	struct topo_pci_path path;
};
int topo_sysfs_read(const char *root, const char *bus_id, struct topo_sysfs *out);
/* The bus path alone (no file read); origin 0 when the device is not there. */
void topo_sysfs_path(const char *root, const char *bus_id, struct topo_pci_path *p);

/* current_ or max_ (\p prefix) link speed and width of the device folder \p dir. */
void topo_sysfs_read_link(const char *dir, const char *prefix, struct nbw_pcie *p);

/* health_sysfs.c: the PCIe chain (device, bridges, root port) with AER counters */
long long topo_aer_parse(const char *text);
/** The text of sysfs file DIR/NAME (at most 64 KiB) in *text, to free; 0, or -1 when absent,
 *  unreadable or not a regular file (a fixture's sys/ is the user's: a FIFO there must not
 *  hang the command). */
int topo_sysfs_file(const char *dir, const char *name, char **text);
void topo_health_sysfs(const char *root, const char *bus_id, struct nbw_link_health *h);
/* health_json.c: a device's "link_health" object (topology JSON), and the vendor answers
 * of links.json devices[].health (read and written) */
json_t *topo_health_to_json(const struct nbw_topo *t, size_t i);
int topo_health_from_links(struct topo_dev *d, json_t *o, const char *file, const char *where,
			   char *err, size_t errlen);
json_t *topo_health_to_links(const struct topo_dev *d);

/* pcie.c: link rates */
/* NVLink per link per direction (GB/s) for a major version; < 0 unknown. */
double topo_nvlink_gbps(int version);
/* NVML's nvmlNvlinkVersion_t -> NVLink major version (A100: 5 -> 3). */
int topo_nvml_version_major(unsigned nvml_enum);

/* fixture.c: the fixture's hwloc XML and its source line (before the sources run), then
 * its links.json in place of the vendor APIs (after). */
int topo_fixture_load(struct nbw_topo *t, const char *dir, char *err, size_t errlen);
int topo_fixture_links(struct nbw_topo *t, char *err, size_t errlen);
/* links.json (also written by export): devices, links, vendor source answers. */
int topo_links_from_json(struct nbw_topo *t, json_t *root, const char *file, char *err,
			 size_t errlen);
json_t *topo_links_to_json(const struct nbw_topo *t);
/* links.json from its text (\p file names it in messages): what topo_fixture_load runs on
 * the bytes nbw_readfile read, and what the fuzz target feeds. */
int topo_links_from_buffer(struct nbw_topo *t, const char *file, const char *text, size_t len,
			   char *err, size_t errlen);

/* matrix.c */
void topo_pair_idx(const struct nbw_topo *t, int i, int j, struct nbw_topo_pair *out);
/* The PCIe path alone (PIX ... SYS), whatever NVLink/xGMI/Xe Link the pair also has. */
void topo_pcie_idx(const struct nbw_topo *t, int i, int j, struct nbw_topo_pair *out);
const char *topo_kind_from_name(const char *s, enum nbw_link_kind *k);

/* small helpers (model.c) */
void topo_fmt_gbps(char *buf, size_t len, double gbps);

#endif
