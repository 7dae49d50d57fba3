/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP-versus-native gap table (see include/nodebw/gap.h). Works on the JSON of a
 * results document, so the same code serves a finished run and a recorded results file.
 *
 * A row pairs one OpenMP measurement with the native measurement of the same direction,
 * host memory kind, concurrency, size and (matched) devices; the native mode is the same
 * as OpenMP's, and OpenMP's nowait is held against the native asynchronous copy. For P2P
 * the native series with peer access enabled is used when there is one (libomptarget
 * enables peer access itself where the pair allows it). Only verified measurements without
 * an error take part; the hidden-helper sweep's re-runs are left out.
 */
#include "nodebw/gap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/probe.h"

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static int integer(json_t *o, const char *key, int dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static const char *native_api_for(const char *kind)
{
	if (strcmp(kind, "cuda") == 0)
		return "cuda";
	if (strcmp(kind, "amdgpu") == 0)
		return "hip";
	if (strcmp(kind, "level-zero") == 0 || strcmp(kind, "spirv") == 0)
		return "ze";
	return NULL;
}

/* The index-th device (in id order) of \p api, or NULL. */
static json_t *nth_device(json_t *devices, const char *api, int index)
{
	size_t i;
	json_t *d;
	int k = 0;
	json_array_foreach(devices, i, d) {
		if (strcmp(str(d, "api"), api) != 0)
			continue;
		if (k++ == index)
			return d;
	}
	return NULL;
}

static void set_native(json_t *omp_dev, json_t *native, const char *by)
{
	json_object_set_new(omp_dev, "native",
			    json_pack("{s:s, s:i, s:s}", "api", str(native, "api"), "id",
				      integer(native, "id", -1), "by", by));
}

int nbw_gap_match_devices(json_t *devices)
{
	size_t i, j;
	json_t *d, *n;
	int matched = 0, order[8] = { 0 };
	json_array_foreach(devices, i, d) {
		if (strcmp(str(d, "api"), "omp") != 0)
			continue;
		const char *kind = str(d, "kind"), *bus = str(d, "pci_bus_id");
		if (strcmp(kind, "host-plugin") == 0) {
			/* host-plugin device d is host memory: the host backend's region d. */
			json_t *h = nth_device(devices, "host", integer(d, "id", -1));
			if (h) {
				set_native(d, h, "host-plugin device id = host memory region id");
				matched++;
			}
			continue;
		}
		json_t *found = NULL;
		if (*bus) {
			json_array_foreach(devices, j, n) {
				if (strcmp(str(n, "api"), "omp") != 0 &&
				    strcmp(str(n, "pci_bus_id"), bus) == 0) {
					found = n;
					break;
				}
			}
			if (found) {
				set_native(d, found, "PCI bus id");
				matched++;
			}
			continue;
		}
		const char *api = native_api_for(kind);
		if (!api)
			continue;
		/* OpenMP cannot name the bus id: libomptarget's plugins number devices in the
		 * vendor runtime's order (same *_VISIBLE_DEVICES), so the k-th device of a kind
		 * is that runtime's device k. Recorded as an inference. */
		int slot = api[0] == 'c' ? 0 : api[0] == 'h' ? 1 : 2;
		found = nth_device(devices, api, order[slot]++);
		if (found) {
			const char *nbus = str(found, "pci_bus_id");
			if (*nbus)
				json_object_set_new(d, "pci_bus_id", json_string(nbus));
			set_native(d, found, "inferred: the plugin's device order equals the "
					     "vendor runtime's");
			matched++;
		}
	}
	return matched;
}

/* Map an OpenMP device to its native (api, id); 0 on success. */
static int native_of(json_t *devices, int omp_id, const char **api, int *id)
{
	size_t i;
	json_t *d;
	json_array_foreach(devices, i, d) {
		if (strcmp(str(d, "api"), "omp") != 0 || integer(d, "id", -2) != omp_id)
			continue;
		json_t *n = json_object_get(d, "native");
		if (!json_is_object(n))
			return -1;
		*api = str(n, "api");
		*id = integer(n, "id", -1);
		return 0;
	}
	return -1;
}

static bool usable(json_t *m)
{
	json_t *ver = json_object_get(m, "verification");
	return json_is_null(json_object_get(m, "error")) &&
	       strcmp(str(ver, "status"), "passed") == 0 && !json_object_get(m, "hht_sweep");
}

static double median_of(json_t *m, const char *key)
{
	json_t *s = json_object_get(json_object_get(m, key), "median");
	return json_is_number(s) ? json_number_value(s) : NAN;
}

/* Device reference of a stream end: -1 for host, else the id. */
static int endpoint(json_t *stream, const char *key)
{
	json_t *v = json_object_get(stream, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

/* Do the native measurement's streams run between the native counterparts of the OpenMP
 * measurement's devices? */
static bool same_devices(json_t *devices, json_t *omp_m, json_t *nat_m, const char *api)
{
	json_t *a = json_object_get(omp_m, "streams"), *b = json_object_get(nat_m, "streams");
	if (json_array_size(a) != json_array_size(b) || json_array_size(a) == 0)
		return false;
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *sa = json_array_get(a, i), *sb = json_array_get(b, i);
		const char *keys[] = { "src", "dst" };
		for (int k = 0; k < 2; k++) {
			int od = endpoint(sa, keys[k]), nd = endpoint(sb, keys[k]);
			if (od < 0 || nd < 0) {
				if (od != nd)
					return false;
				continue;
			}
			const char *napi;
			int nid;
			if (native_of(devices, od, &napi, &nid) || strcmp(napi, api) != 0 ||
			    nid != nd)
				return false;
		}
	}
	return true;
}

static const char *native_mode(const char *omp_mode)
{
	return strcmp(omp_mode, "nowait") == 0 ? "async" : omp_mode;
}

/* The native measurements by what pairs them (direction, mode, host memory, concurrency,
 * size), sorted, so that finding the partner of an OpenMP measurement is a binary search
 * instead of a scan of the whole document. */
struct cand {
	char *key;
	size_t pos;                   /* index in the measurements: the scan's order */
	json_t *m;
};

/* Length-prefixed fields, so that no two different tuples give the same key. */
static char *pair_key(json_t *m, const char *mode)
{
	const char *d = str(m, "direction"), *h = str(m, "host_mem"), *c = str(m, "concurrency");
	char *k = NULL;
	if (asprintf(&k, "%zu:%s%zu:%s%zu:%s%zu:%s%lld", strlen(d), d, strlen(mode), mode,
		     strlen(h), h, strlen(c), c,
		     (long long)json_integer_value(json_object_get(m, "bytes"))) < 0)
		return NULL;
	return k;
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);
	return c ? c : a->pos < b->pos ? -1 : a->pos > b->pos;
}

static void cands_free(struct cand *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].key);
	free(v);
}

/* The usable native measurements, sorted; NULL when memory runs out. */
static struct cand *cands_build(json_t *measurements, size_t *n)
{
	struct cand *v = malloc((json_array_size(measurements) + 1) * sizeof(*v));
	size_t i, k = 0;
	json_t *m;
	if (!v)
		return NULL;
	json_array_foreach(measurements, i, m) {
		if (strcmp(str(m, "api"), "omp") == 0 || !usable(m))
			continue;
		v[k] = (struct cand){ pair_key(m, str(m, "mode")), i, m };
		if (!v[k].key) {
			cands_free(v, k);
			return NULL;
		}
		k++;
	}
	qsort(v, k, sizeof(*v), cand_cmp);
	*n = k;
	return v;
}

/* The native measurement paired with \p m, or NULL: among those of the same key, in the
 * document's order, the first with peer access enabled, else the first other. */
static json_t *find_native(json_t *devices, const struct cand *v, size_t nv, json_t *m)
{
	char *key = pair_key(m, native_mode(str(m, "mode")));
	json_t *best = NULL;
	if (!key)
		return NULL;
	size_t lo = 0, hi = nv;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < nv && strcmp(v[i].key, key) == 0; i++) {
		json_t *n = v[i].m;
		const char *api = str(n, "api");
		if (!same_devices(devices, m, n, api))
			continue;
		const char *peer = str(n, "peer_access");
		if (strcmp(peer, "disabled") == 0 && best)
			continue;
		best = n;
		if (strcmp(peer, "enabled") == 0)
			break;
	}
	free(key);
	return best;
}

struct acc {
	json_t *key;
	double abs_gap, rel_gap, extra_us;
	int n;
};

static struct acc *acc_find(struct acc *a, size_t *na, size_t max, json_t *key)
{
	for (size_t i = 0; i < *na; i++)
		if (json_equal(a[i].key, key)) {
			json_decref(key);
			return &a[i];
		}
	if (*na >= max) {
		json_decref(key);
		return NULL;
	}
	a[*na] = (struct acc){ .key = key };
	return &a[(*na)++];
}

static void acc_add(struct acc *a, double gap, double rel, double extra_us)
{
	if (!a)
		return;
	a->abs_gap += fabs(gap);
	a->rel_gap += fabs(rel);
	a->extra_us += extra_us;
	a->n++;
}

#define MAX_GROUPS 512

json_t *nbw_gap_compute(json_t *devices, json_t *measurements)
{
	json_t *rows = json_array(), *summary = json_array(), *m;
	struct acc *groups = calloc(MAX_GROUPS, sizeof(*groups));
	size_t ng = 0, i;
	size_t nc = 0;
	struct cand *cands = groups ? cands_build(measurements, &nc) : NULL;
	if (!cands) {
		free(groups);
		return json_pack("{s:s, s:o, s:o}", "definition", "out of memory", "rows", rows,
				 "summary", summary);
	}
	json_array_foreach(measurements, i, m) {
		if (strcmp(str(m, "api"), "omp") != 0 || !usable(m))
			continue;
		json_t *n = find_native(devices, cands, nc, m);
		if (!n)
			continue;
		double og = median_of(m, "gbps"), ng_ = median_of(n, "gbps");
		double os = median_of(m, "seconds"), ns = median_of(n, "seconds");
		if (!isfinite(og) || !isfinite(ng_) || ng_ <= 0.0)
			continue;
		double gap = ng_ - og, rel = gap / ng_, extra_us = (os - ns) * 1e6;
		int ndev = json_array_size(json_object_get(m, "streams")) > 1 ? 2 : 1;
		json_t *row = json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f,"
			" s:i}",
			"native_api", str(n, "api"), "direction", str(m, "direction"), "omp_mode",
			str(m, "mode"), "native_mode", str(n, "mode"), "host_mem",
			str(m, "host_mem"), "devices", ndev, "bytes",
			json_integer_value(json_object_get(m, "bytes")), "concurrency",
			str(m, "concurrency"), "omp_gbps", og, "native_gbps", ng_, "gap_gbps", gap,
			"relative_gap", rel, "omp_s", os, "native_s", ns, "extra_us", extra_us,
			"hidden_helpers", integer(m, "hidden_helpers", -1));
		json_object_set_new(row, "native_peer_access", json_string(str(n, "peer_access")));
		json_array_append_new(rows, row);
		json_t *key = json_pack("{s:s, s:s, s:s, s:s, s:i}", "native_api", str(n, "api"),
					"direction", str(m, "direction"), "omp_mode", str(m, "mode"),
					"host_mem", str(m, "host_mem"), "devices", ndev);
		acc_add(acc_find(groups, &ng, MAX_GROUPS, key), gap, rel, extra_us);
		/* The paper's annotation: per mode and device count, over directions, memory
		 * kinds and sizes. */
		key = json_pack("{s:s, s:s, s:s, s:s, s:i}", "native_api", str(n, "api"),
				"direction", "all", "omp_mode", str(m, "mode"), "host_mem", "all",
				"devices", ndev);
		acc_add(acc_find(groups, &ng, MAX_GROUPS, key), gap, rel, extra_us);
	}
	for (size_t g = 0; g < ng; g++) {
		json_t *s = groups[g].key;
		json_object_set_new(s, "sizes", json_integer(groups[g].n));
		json_object_set_new(s, "mean_abs_gap_gbps",
				    json_real(groups[g].abs_gap / groups[g].n));
		json_object_set_new(s, "mean_abs_relative_gap",
				    json_real(groups[g].rel_gap / groups[g].n));
		json_object_set_new(s, "mean_extra_us", json_real(groups[g].extra_us / groups[g].n));
		json_array_append_new(summary, s);
	}
	free(groups);
	cands_free(cands, nc);
	return json_pack(
		"{s:s, s:o, s:o}", "definition",
		"gap_gbps = native median GB/s - OpenMP median GB/s (positive: OpenMP is slower); "
		"relative_gap = gap_gbps / native GB/s; extra_us = OpenMP median time - native "
		"median time per transfer; OpenMP nowait is paired with the native async mode; "
		"summary rows average |gap| over sizes (direction/host_mem 'all': over those too, "
		"the paper's Figure 4 annotation); GB/s = 1e9 B/s",
		"rows", rows, "summary", summary);
}

size_t nbw_gap_print(FILE *f, json_t *gaps)
{
	json_t *summary = json_object_get(gaps, "summary"), *s;
	size_t i, n = 0;
	if (json_array_size(summary) == 0) {
		fprintf(f, "\nOpenMP vs native gap: no size was measured by both OpenMP and a "
			   "native API on matching devices\n");
		return 0;
	}
	fprintf(f, "\nOpenMP vs native gap (GB/s = 1e9 B/s; gap = native - OpenMP, mean of |gap| "
		   "over sizes)\n");
	fprintf(f, "  %-6s %-5s %-7s %-10s %4s %6s %14s %14s %14s\n", "native", "dir", "mode",
		"host mem", "devs", "sizes", "mean |gap| GB/s", "mean |rel gap|", "mean extra us");
	json_array_foreach(summary, i, s) {
		fprintf(f, "  %-6s %-5s %-7s %-10s %4d %6d %14.3f %13.1f%% %14.2f\n",
			str(s, "native_api"), str(s, "direction"), str(s, "omp_mode"),
			str(s, "host_mem"), integer(s, "devices", 0), integer(s, "sizes", 0),
			json_number_value(json_object_get(s, "mean_abs_gap_gbps")),
			100.0 * json_number_value(json_object_get(s, "mean_abs_relative_gap")),
			json_number_value(json_object_get(s, "mean_extra_us")));
		n++;
	}
	return n;
}
