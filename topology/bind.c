/* SPDX-License-Identifier: BSD-3-Clause */
/* Binding helpers for the probe core: which NUMA node a stream uses (local, remote, none),
 * binding the calling thread and a buffer to it (hwloc), and where a buffer's pages really
 * are (move_pages(2) with nodes = NULL). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nodebw/config.h"
#include "topo_int.h"

#if NBW_TOPO_HAVE_LIBNUMA
#include <numaif.h>
#else
static long move_pages(int pid, unsigned long count, void **pages, const int *nodes,
		       int *status, int flags)
{
	return syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
}
#endif

#define WHY(...) do { if (why) snprintf(why, whylen, __VA_ARGS__); } while (0)

static const char *const policy_names[] = { "none", "local", "remote" };

const char *nbw_bind_policy_name(enum nbw_bind_policy p)
{
	return (unsigned)p < 3 ? policy_names[p] : "?";
}

int nbw_bind_policy_parse(const char *s)
{
	for (int i = 0; s && i < 3; i++)
		if (strcasecmp(s, policy_names[i]) == 0)
			return i;
	return -1;
}

static int live(const struct nbw_topo *t, char *why, size_t whylen)
{
	if (!t || !t->hw) {
		WHY("no topology loaded");
		return -1;
	}
	if (t->fixture || !hwloc_topology_is_thissystem(t->hw)) {
		WHY("the topology was loaded from a fixture, not from this machine: cannot bind");
		return -1;
	}
	return 0;
}

static hwloc_obj_t node_obj(const struct nbw_topo *t, int node, char *why, size_t whylen)
{
	hwloc_obj_t o = node >= 0 ? hwloc_get_numanode_obj_by_os_index(t->hw, (unsigned)node) :
		NULL;
	if (!o)
		WHY("no NUMA node %d on this machine", node);
	return o;
}

static bool has_cpus(hwloc_obj_t n)
{
	return n->cpuset && !hwloc_bitmap_iszero(n->cpuset);
}

/* NUMA distance from the firmware (hwloc's "NUMALatency" matrix), or -1. */
static long long distance(const struct nbw_topo *t, hwloc_obj_t a, hwloc_obj_t b)
{
	struct hwloc_distances_s *d[1];
	unsigned nr = 1;
	long long v = -1;
	if (hwloc_distances_get_by_name(t->hw, "NUMALatency", &nr, d, 0) || nr < 1)
		return -1;
	hwloc_uint64_t ab;
	hwloc_uint64_t ba;
	if (hwloc_distances_obj_pair_values(d[0], a, b, &ab, &ba) == 0)
		v = (long long)ab;
	hwloc_distances_release(t->hw, d[0]);
	return v;
}

int nbw_topo_bind_node(const struct nbw_topo *t, const char *dev, enum nbw_bind_policy p,
		       int *node, char *why, size_t whylen)
{
	*node = -1;
	if (why)
		why[0] = '\0';
	if (p == NBW_BIND_NONE)
		return 0;
	if (!t || !t->hw) {
		WHY("no topology loaded");
		return -1;
	}
	int nn = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_NUMANODE);
	hwloc_obj_t first = NULL, local = NULL;
	for (int i = 0; i < nn && !first; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, (unsigned)i);
		if (has_cpus(o))
			first = o;
	}
	if (!first) {
		WHY("no NUMA node with CPUs");
		return -1;
	}
	struct nbw_host_link l;
	nbw_topo_host_link(t, dev, &l);
	if (l.numa_node >= 0)
		local = hwloc_get_numanode_obj_by_os_index(t->hw, (unsigned)l.numa_node);
	if (!local || !has_cpus(local)) {
		local = first;
		WHY("%s: locality unknown, NUMA node %u taken as local",
		    l.host_memory ? "host memory" : dev, first->os_index);
	}
	if (p == NBW_BIND_LOCAL) {
		*node = (int)local->os_index;
		return 0;
	}
	hwloc_obj_t remote = NULL;
	long long best = -1;
	for (int i = 0; i < nn; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, (unsigned)i);
		if (o == local || !has_cpus(o))
			continue;
		long long d = distance(t, local, o);
		if (!remote || d > best) {
			remote = o;
			best = d;
		}
	}
	if (!remote) {
		WHY("no remote NUMA node: this machine has %s NUMA node with CPUs (%u)",
		    nn == 1 ? "one" : "only one", local->os_index);
		return -1;
	}
	*node = (int)remote->os_index;
	return 0;
}

int nbw_topo_bind_thread(const struct nbw_topo *t, int node, char *why, size_t whylen)
{
	if (live(t, why, whylen))
		return -1;
	hwloc_const_cpuset_t set;
	if (node < 0) {
		set = hwloc_topology_get_allowed_cpuset(t->hw);
	} else {
		hwloc_obj_t o = node_obj(t, node, why, whylen);
		if (!o)
			return -1;
		if (!has_cpus(o)) {
			WHY("NUMA node %d has no CPUs", node);
			return -1;
		}
		set = o->cpuset;
	}
	if (hwloc_set_cpubind(t->hw, set, HWLOC_CPUBIND_THREAD)) {
		WHY("hwloc_set_cpubind(node %d, HWLOC_CPUBIND_THREAD): %s", node, strerror(errno));
		return -1;
	}
	return 0;
}

int nbw_topo_bind_area(const struct nbw_topo *t, void *p, size_t len, int node, char *why,
		       size_t whylen)
{
	if (live(t, why, whylen))
		return -1;
	hwloc_obj_t o = node_obj(t, node, why, whylen);
	if (!o)
		return -1;
	if (hwloc_set_area_membind(t->hw, p, len, o->nodeset, HWLOC_MEMBIND_BIND,
				   HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_MIGRATE)) {
		WHY("hwloc_set_area_membind(node %d, %zu bytes): %s", node, len, strerror(errno));
		return -1;
	}
	return 0;
}

void *nbw_topo_alloc_membind(const struct nbw_topo *t, size_t len, int node, char *why,
			     size_t whylen)
{
	if (live(t, why, whylen))
		return NULL;
	hwloc_obj_t o = node_obj(t, node, why, whylen);
	if (!o)
		return NULL;
	void *p = hwloc_alloc_membind(t->hw, len, o->nodeset, HWLOC_MEMBIND_BIND,
				      HWLOC_MEMBIND_BYNODESET);
	if (!p)
		WHY("hwloc_alloc_membind(%zu bytes, node %d): %s", len, node, strerror(errno));
	return p;
}

void nbw_topo_free_membind(const struct nbw_topo *t, void *p, size_t len)
{
	if (t && t->hw && p)
		hwloc_free(t->hw, p, len);
}

int nbw_page_placement(const void *p, size_t len, struct nbw_page_placement *out, char *why,
		       size_t whylen)
{
	enum { CHUNK = 1024 };
	void *pages[CHUNK];
	int status[CHUNK];
	memset(out, 0, sizeof(*out));
	out->max_node = -1;
	long ps = sysconf(_SC_PAGESIZE);
	out->page_size = ps > 0 ? (size_t)ps : 4096;
	if (!p || len == 0) {
		WHY("no buffer");
		return -1;
	}
	uintptr_t start = (uintptr_t)p & ~(uintptr_t)(out->page_size - 1);
	uintptr_t end = (uintptr_t)p + len;
	for (uintptr_t a = start; a < end;) {
		unsigned long n = 0;
		for (; n < CHUNK && a < end; n++, a += out->page_size)
			pages[n] = (void *)a;
		if (move_pages(0, n, pages, NULL, status, 0)) {
			WHY("move_pages: %s", strerror(errno));
			return -1;
		}
		for (unsigned long i = 0; i < n; i++) {
			out->pages++;
			if (status[i] >= 0 && status[i] < NBW_TOPO_MAX_NUMA) {
				out->on_node[status[i]]++;
				if (status[i] > out->max_node)
					out->max_node = status[i];
			} else if (status[i] == -ENOENT) {
				out->not_present++;
			} else {
				out->failed++;
			}
		}
	}
	return 0;
}

void nbw_page_placement_format(const struct nbw_page_placement *pl, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int n = 0; n <= pl->max_node && n < NBW_TOPO_MAX_NUMA && off < len; n++)
		if (pl->on_node[n])
			off += (size_t)snprintf(buf + off, len - off, "%snode %d: %.1f%% (%zu pages)",
						off ? ", " : "", n,
						100.0 * (double)pl->on_node[n] / (double)pl->pages,
						pl->on_node[n]);
	if (pl->not_present && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%snot present: %zu pages",
					off ? ", " : "", pl->not_present);
	if (pl->failed && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%sunknown: %zu pages",
					off ? ", " : "", pl->failed);
	if (off == 0)
		snprintf(buf, len, "no pages");
}
