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
#include "nodebw/jget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/probe.h"
#include "nodebw/results_view.h"
#include "nodebw/sizes.h"

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

/* The index-th device (in id order) of \p api into \p out; false when there is none. */
static bool nth_device(json_t *devices, const char *api, int index, struct nbw_rv_device *out)
{
	size_t i;
	json_t *d;
	int k = 0;
	json_array_foreach(devices, i, d) {
		if (!nbw_rv_device_read(d, out) || strcmp(out->api, api) != 0)
			continue;
		if (k++ == index)
			return true;
	}
	return false;
}

static void set_native(json_t *omp_dev, const struct nbw_rv_device *native, const char *by)
{
	json_object_set_new(omp_dev, "native",
			    json_pack("{s:s, s:i, s:s}", "api", native->api, "id", native->id,
				      "by", by));
}

int nbw_gap_match_devices(json_t *devices)
{
	size_t i, j;
	json_t *d, *n;
	int matched = 0, order[8] = { 0 };
	json_array_foreach(devices, i, d) {
		struct nbw_rv_device o, found;
		if (!nbw_rv_device_read(d, &o) || strcmp(o.api, "omp") != 0)
			continue;
		if (strcmp(o.kind, "host-plugin") == 0) {
			/* host-plugin device d is host memory: the host backend's region d. */
			if (nth_device(devices, "host", o.id, &found)) {
				set_native(d, &found,
					   "host-plugin device id = host memory region id");
				matched++;
			}
			continue;
		}
		if (*o.pci_bus_id) {
			bool seen = false;
			json_array_foreach(devices, j, n) {
				if (nbw_rv_device_read(n, &found) &&
				    strcmp(found.api, "omp") != 0 &&
				    strcmp(found.pci_bus_id, o.pci_bus_id) == 0) {
					seen = true;
					break;
				}
			}
			if (seen) {
				set_native(d, &found, "PCI bus id");
				matched++;
			}
			continue;
		}
		const char *api = native_api_for(o.kind);
		if (!api)
			continue;
		/* OpenMP cannot name the bus id: libomptarget's plugins number devices in the
		 * vendor runtime's order (same *_VISIBLE_DEVICES), so the k-th device of a kind
		 * is that runtime's device k. Recorded as an inference. */
		int slot = api[0] == 'c' ? 0 : api[0] == 'h' ? 1 : 2;
		if (nth_device(devices, api, order[slot]++, &found)) {
			if (*found.pci_bus_id)
				json_object_set_new(d, "pci_bus_id", json_string(found.pci_bus_id));
			set_native(d, &found, "inferred: the plugin's device order equals the "
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
		struct nbw_rv_device o;
		if (!nbw_rv_device_read(d, &o) || strcmp(o.api, "omp") != 0 || o.id != omp_id)
			continue;
		if (!o.native_api[0])
			return -1;
		*api = o.native_api;
		*id = o.native_id;
		return 0;
	}
	return -1;
}

/* Measurement \p m into \p x when it takes part: verified, no error, not a point of the
 * hidden-helper or the plane-size sweep, not a chase (a latency, not a bandwidth). */
static bool usable(json_t *devices, json_t *m, struct nbw_rv_meas *x)
{
	return nbw_rv_meas_read(devices, m, x) && nbw_rv_meas_verified(x) && !x->hht_sweep[0] &&
	       !x->plane_sweep && !x->chase && !x->face;
}

/* The measurement's interval of its median GB/s (median_ci); false when it has none (an
 * older document). */
static bool ci_of(const struct nbw_rv_meas *x, double *lo, double *hi)
{
	*lo = x->ci_lo_gbps;
	*hi = x->ci_hi_gbps;
	return isfinite(*lo) && isfinite(*hi) && *lo <= *hi;
}

/* Do the native measurement's streams run between the native counterparts of the OpenMP
 * measurement's devices? */
static bool same_devices(json_t *devices, const struct nbw_rv_meas *a,
			 const struct nbw_rv_meas *b, const char *api)
{
	if (a->nstreams != b->nstreams || a->nstreams == 0)
		return false;
	for (int i = 0; i < a->nstreams; i++) {
		const struct nbw_rv_stream *sa = &a->streams[i], *sb = &b->streams[i];
		for (int k = 0; k < 2; k++) {
			int od = k ? sa->dst : sa->src, nd = k ? sb->dst : sb->src;
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
	struct nbw_rv_meas x;
};

/* Length-prefixed fields, so that no two different tuples give the same key. */
static char *pair_key(const struct nbw_rv_meas *x, const char *mode)
{
	const char *d = x->direction, *h = x->host_mem, *c = x->concurrency;
	char *k = NULL;
	if (asprintf(&k, "%zu:%s%zu:%s%zu:%s%zu:%s%lld", strlen(d), d, strlen(mode), mode,
		     strlen(h), h, strlen(c), c, x->bytes) < 0)
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
static struct cand *cands_build(json_t *devices, json_t *measurements, size_t *n)
{
	struct cand *v = malloc((json_array_size(measurements) + 1) * sizeof(*v));
	size_t i, k = 0;
	json_t *m;
	if (!v)
		return NULL;
	json_array_foreach(measurements, i, m) {
		struct nbw_rv_meas *x = &v[k].x;
		if (!usable(devices, m, x) || strcmp(x->api, "omp") == 0)
			continue;
		v[k].key = pair_key(x, x->mode);
		v[k].pos = i;
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
static const struct nbw_rv_meas *find_native(json_t *devices, const struct cand *v, size_t nv,
					     const struct nbw_rv_meas *m)
{
	char *key = pair_key(m, native_mode(m->mode));
	const struct nbw_rv_meas *best = NULL;
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
		const struct nbw_rv_meas *n = &v[i].x;
		if (!same_devices(devices, m, n, n->api))
			continue;
		const char *peer = n->peer_access;
		if (strcmp(peer, "disabled") == 0 && best)
			continue;
		best = n;
		if (strcmp(peer, "enabled") == 0)
			break;
	}
	free(key);
	return best;
}

/* One summary group: its key and every paired row (size, gaps, and whether the gap is
 * larger than the two intervals: 1 yes, 0 no, -1 unknown, no intervals). */
struct acc {
	json_t *key;
	struct {
		uint64_t bytes;
		double gap, rel, extra_us;
		int measurable;
	} *v;
	size_t n, cap;
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

static void acc_add(struct acc *a, uint64_t bytes, double gap, double rel, double extra_us,
		    int measurable)
{
	if (!a)
		return;
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 16;
		void *nv = realloc(a->v, nc * sizeof(*a->v));
		if (!nv)
			return;
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n].bytes = bytes;
	a->v[a->n].gap = gap;
	a->v[a->n].rel = rel;
	a->v[a->n].extra_us = extra_us;
	a->v[a->n].measurable = measurable;
	a->n++;
}

const char *nbw_gap_verdict(double rel)
{
	return !isfinite(rel) ? "n/a" : rel > NBW_GAP_CLEAR ? "OpenMP slower"
				  : rel < -NBW_GAP_CLEAR ? "OpenMP faster" : "no clear gap";
}

const char *nbw_gap_band_verdict(json_t *band)
{
	const char *v = json_string_value(json_object_get(band, "verdict"));
	json_t *r = json_object_get(band, "median_relative_gap");
	return v ? v : nbw_gap_verdict(json_is_number(r) ? json_number_value(r) : NAN);
}

bool nbw_gap_measurable(json_t *band)
{
	const char *v = json_string_value(json_object_get(band, "verdict"));
	return !v || strcmp(v, NBW_GAP_NOT_MEASURABLE) != 0;
}

/* A band's verdict: no measurable gap when more than half of its sizes had one within the
 * two measurements' intervals, else the verdict of its median relative gap. */
static const char *band_verdict(double rel, size_t sizes, size_t unmeasurable)
{
	return 2 * unmeasurable > sizes ? NBW_GAP_NOT_MEASURABLE : nbw_gap_verdict(rel);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The group's summary: the means over all its rows (|gap| as before), the signed means of
 * the latency and bandwidth bands with their verdicts, and the sizes where the sign of the
 * mean relative gap per size changes (sizes within +-NBW_GAP_CLEAR take no side). */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of the \p n values of \p v (sorted in place); NaN when none. */
static double median_inplace(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The group's summary: the means over all its rows (|gap| as before), the signed medians of
 * the latency and bandwidth bands with their verdicts (medians: one disturbed size must not
 * turn a band's sign), and the sizes where the sign of the mean relative gap per size
 * changes (sizes within +-NBW_GAP_CLEAR take no side). */
static void acc_summary(const struct acc *a, json_t *s)
{
	double abs_gap = 0, abs_rel = 0, extra = 0;
	size_t nlat = 0, nbw = 0, cnt = a->n ? a->n : 1, lat_un = 0, bw_un = 0;
	double *lat_rel = malloc(cnt * sizeof(double)), *lat_us = malloc(cnt * sizeof(double));
	double *bw_gap = malloc(cnt * sizeof(double)), *bw_rel = malloc(cnt * sizeof(double));
	if (!lat_rel || !lat_us || !bw_gap || !bw_rel) {
		free(lat_rel), free(lat_us), free(bw_gap), free(bw_rel);
		return;
	}
	for (size_t k = 0; k < a->n; k++) {
		abs_gap += fabs(a->v[k].gap);
		abs_rel += fabs(a->v[k].rel);
		extra += a->v[k].extra_us;
		if (a->v[k].bytes <= NBW_GAP_LATENCY_MAX_BYTES) {
			lat_rel[nlat] = a->v[k].rel;
			lat_us[nlat++] = a->v[k].extra_us;
			lat_un += a->v[k].measurable == 0;
		} else if (a->v[k].bytes >= NBW_GAP_BANDWIDTH_MIN_BYTES) {
			bw_gap[nbw] = a->v[k].gap;
			bw_rel[nbw++] = a->v[k].rel;
			bw_un += a->v[k].measurable == 0;
		}
	}
	json_object_set_new(s, "sizes", json_integer((json_int_t)a->n));
	json_object_set_new(s, "mean_abs_gap_gbps", json_real(abs_gap / (double)a->n));
	json_object_set_new(s, "mean_abs_relative_gap", json_real(abs_rel / (double)a->n));
	json_object_set_new(s, "mean_extra_us", json_real(extra / (double)a->n));
	json_t *lat = json_pack("{s:I, s:I}", "max_bytes", (json_int_t)NBW_GAP_LATENCY_MAX_BYTES,
				"sizes", (json_int_t)nlat);
	if (nlat) {
		double r = median_inplace(lat_rel, nlat);
		json_object_set_new(lat, "median_relative_gap", json_real(r));
		json_object_set_new(lat, "median_extra_us", json_real(median_inplace(lat_us, nlat)));
		json_object_set_new(lat, "unmeasurable_sizes", json_integer((json_int_t)lat_un));
		json_object_set_new(lat, "verdict", json_string(band_verdict(r, nlat, lat_un)));
	}
	json_object_set_new(s, "latency_band", lat);
	json_t *bw = json_pack("{s:I, s:I}", "min_bytes",
			       (json_int_t)NBW_GAP_BANDWIDTH_MIN_BYTES, "sizes", (json_int_t)nbw);
	if (nbw) {
		double r = median_inplace(bw_rel, nbw);
		json_object_set_new(bw, "median_gap_gbps", json_real(median_inplace(bw_gap, nbw)));
		json_object_set_new(bw, "median_relative_gap", json_real(r));
		json_object_set_new(bw, "unmeasurable_sizes", json_integer((json_int_t)bw_un));
		json_object_set_new(bw, "verdict", json_string(band_verdict(r, nbw, bw_un)));
	}
	json_object_set_new(s, "bandwidth_band", bw);
	free(lat_rel), free(lat_us), free(bw_gap), free(bw_rel);
	/* Sign changes over the sizes in ascending order (the mean per size first: an "all"
	 * group has several rows of one size; a gap within the intervals takes no side). */
	uint64_t *sz = malloc((a->n ? a->n : 1) * sizeof(*sz));
	json_t *changes = json_array();
	if (sz) {
		for (size_t k = 0; k < a->n; k++)
			sz[k] = a->v[k].bytes;
		qsort(sz, a->n, sizeof(*sz), cmp_u64);
		int side = 0;
		for (size_t k = 0; k < a->n; k++) {
			if (k && sz[k] == sz[k - 1])
				continue;
			double r = 0;
			size_t c = 0;
			for (size_t q = 0; q < a->n; q++)
				if (a->v[q].bytes == sz[k] && a->v[q].measurable != 0) {
					r += a->v[q].rel;
					c++;
				}
			r = c ? r / (double)c : 0.0;
			int now = r > NBW_GAP_CLEAR ? 1 : r < -NBW_GAP_CLEAR ? -1 : 0;
			if (now && side && now != side)
				json_array_append_new(changes, json_integer((json_int_t)sz[k]));
			if (now)
				side = now;
		}
		free(sz);
	}
	json_object_set_new(s, "sign_changes_at_bytes", changes);
}

#define MAX_GROUPS 512

json_t *nbw_gap_compute(json_t *devices, json_t *measurements)
{
	json_t *rows = json_array(), *summary = json_array(), *m;
	struct acc *groups = calloc(MAX_GROUPS, sizeof(*groups));
	size_t ng = 0, i;
	size_t nc = 0;
	struct cand *cands = groups ? cands_build(devices, measurements, &nc) : NULL;
	if (!cands) {
		free(groups);
		return json_pack("{s:s, s:o, s:o}", "definition", "out of memory", "rows", rows,
				 "summary", summary);
	}
	json_array_foreach(measurements, i, m) {
		struct nbw_rv_meas x;
		if (!usable(devices, m, &x) || strcmp(x.api, "omp") != 0)
			continue;
		const struct nbw_rv_meas *n = find_native(devices, cands, nc, &x);
		if (!n)
			continue;
		double og = x.gbps, ng_ = n->gbps, os = x.seconds, ns = n->seconds;
		if (!isfinite(og) || !isfinite(ng_) || ng_ <= 0.0)
			continue;
		double gap = ng_ - og, rel = gap / ng_, extra_us = (os - ns) * 1e6;
		int ndev = x.nstreams > 1 ? 2 : 1;
		json_t *row = json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f,"
			" s:i}",
			"native_api", n->api, "direction", x.direction, "omp_mode", x.mode,
			"native_mode", n->mode, "host_mem", x.host_mem, "devices", ndev, "bytes",
			(json_int_t)x.bytes, "concurrency", x.concurrency, "omp_gbps", og,
			"native_gbps", ng_, "gap_gbps", gap, "relative_gap", rel, "omp_s", os,
			"native_s", ns, "extra_us", extra_us, "hidden_helpers", x.hidden_helpers);
		json_object_set_new(row, "native_peer_access", json_string(n->peer_access));
		/* A gap no larger than the two intervals of the medians combined (they overlap)
		 * is no measurable gap. */
		double olo, ohi, nlo, nhi;
		int measurable = -1;
		if (ci_of(&x, &olo, &ohi) && ci_of(n, &nlo, &nhi)) {
			measurable = !(olo <= nhi && nlo <= ohi);
			json_object_set_new(row, "omp_ci_gbps", json_pack("[f, f]", olo, ohi));
			json_object_set_new(row, "native_ci_gbps", json_pack("[f, f]", nlo, nhi));
			json_object_set_new(row, "measurable", json_boolean(measurable));
		}
		json_array_append_new(rows, row);
		json_t *key = json_pack("{s:s, s:s, s:s, s:s, s:i}", "native_api", n->api,
					"direction", x.direction, "omp_mode", x.mode, "host_mem",
					x.host_mem, "devices", ndev);
		uint64_t bytes = (uint64_t)x.bytes;
		acc_add(acc_find(groups, &ng, MAX_GROUPS, key), bytes, gap, rel, extra_us,
			measurable);
		/* The paper's annotation: per mode and device count, over directions, memory
		 * kinds and sizes. */
		key = json_pack("{s:s, s:s, s:s, s:s, s:i}", "native_api", n->api, "direction",
				"all", "omp_mode", x.mode, "host_mem", "all", "devices", ndev);
		acc_add(acc_find(groups, &ng, MAX_GROUPS, key), bytes, gap, rel, extra_us,
			measurable);
	}
	for (size_t g = 0; g < ng; g++) {
		if (groups[g].n) {
			acc_summary(&groups[g], groups[g].key);
			json_array_append_new(summary, groups[g].key);
		} else {
			json_decref(groups[g].key);
		}
		free(groups[g].v);
	}
	free(groups);
	cands_free(cands, nc);
	return json_pack(
		"{s:s, s:o, s:o}", "definition",
		"gap_gbps = native median GB/s - OpenMP median GB/s (positive: OpenMP is slower); "
		"relative_gap = gap_gbps / native GB/s; extra_us = OpenMP median time - native "
		"median time per transfer; OpenMP nowait is paired with the native async mode; "
		"summary rows give signed medians per size band, latency_band (bytes <= 64 KiB: "
		"relative gap and extra time) and bandwidth_band (bytes >= 1 MiB: gap in GB/s and "
		"relative), each with a verdict (OpenMP slower / faster beyond +-3 %, else no clear "
		"gap; no measurable gap where more than half of the band's sizes have a gap within "
		"the two medians' 95 % intervals, i.e. the intervals overlap: measurable false in "
		"the row), the sizes where the per-size sign changes, and the mean |gap| over all "
		"sizes "
		"(direction/host_mem 'all': over those too, the paper's Figure 4 annotation); "
		"GB/s = 1e9 B/s",
		"rows", rows, "summary", summary);
}

static double band_num(json_t *s, const char *band, const char *key)
{
	json_t *v = json_object_get(json_object_get(s, band), key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "at 256 KiB, 4 MiB" or "none". */
static void sign_changes(json_t *s, char *buf, size_t len)
{
	json_t *a = json_object_get(s, "sign_changes_at_bytes"), *x;
	size_t i, w = 0;
	snprintf(buf, len, "none");
	json_array_foreach(a, i, x) {
		char b[32];
		nbw_size_label((uint64_t)json_integer_value(x), b, sizeof(b));
		int n = snprintf(buf + w, len - w, "%s%s", i ? ", " : "at ", b);
		if (n < 0 || (size_t)n >= len - w)
			break;
		w += (size_t)n;
	}
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
	fprintf(f, "\nOpenMP vs native gap (gap = native - OpenMP, signed: + OpenMP slower; "
		   "medians over the sizes of each band; small: <= 64 KiB, relative gap and extra "
		   "time per transfer; large: >= 1 MiB, GB/s = 1e9 B/s; within +-3 %%: no clear "
		   "gap; within the medians' 95 %% intervals at most sizes: %s)\n",
		NBW_GAP_NOT_MEASURABLE);
	fprintf(f, "  %-6s %-5s %-7s %-9s %4s %5s | %-32s | %-33s | %-12s %s\n", "native", "dir",
		"mode", "host mem", "devs", "sizes", "small sizes: rel gap, extra time",
		"large sizes: gap, rel gap", "sign change", "mean |gap| GB/s");
	json_array_foreach(summary, i, s) {
		char small[64] = "not measured", large[64] = "not measured", chg[96];
		json_t *lb = json_object_get(s, "latency_band");
		json_t *bb = json_object_get(s, "bandwidth_band");
		double lr = band_num(s, "latency_band", "median_relative_gap");
		if (isfinite(lr) && !nbw_gap_measurable(lb))
			snprintf(small, sizeof(small), "%s", NBW_GAP_NOT_MEASURABLE);
		else if (isfinite(lr))
			snprintf(small, sizeof(small), "%+6.1f %% %+9.2f us %s", 100.0 * lr,
				 band_num(s, "latency_band", "median_extra_us"),
				 nbw_gap_band_verdict(lb));
		double br = band_num(s, "bandwidth_band", "median_relative_gap");
		if (isfinite(br) && !nbw_gap_measurable(bb))
			snprintf(large, sizeof(large), "%s", NBW_GAP_NOT_MEASURABLE);
		else if (isfinite(br))
			snprintf(large, sizeof(large), "%+8.3f GB/s %+6.1f %% %s",
				 band_num(s, "bandwidth_band", "median_gap_gbps"), 100.0 * br,
				 nbw_gap_band_verdict(bb));
		sign_changes(s, chg, sizeof(chg));
		fprintf(f, "  %-6s %-5s %-7s %-9s %4d %5d | %-32s | %-33s | %-12s %.3f\n",
			jstr(s, "native_api"), jstr(s, "direction"), jstr(s, "omp_mode"),
			jstr(s, "host_mem"), jint(s, "devices", 0), jint(s, "sizes", 0), small,
			large, chg, json_number_value(json_object_get(s, "mean_abs_gap_gbps")));
		n++;
	}
	return n;
}
