/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * P2P matrices and host<->device tables of a results document (include/nodebw/analysis.h).
 *
 * A series is one (api, mode, concurrency, peer_access) of P2P measurements, or one (api,
 * direction, mode, host_mem) of single-stream htod/dtoh measurements. Its bandwidth is read
 * at the run's comparison size (nbw_analysis_comparison_bytes: the same size for every
 * series, device and pair), and the P2P latency at the series' smallest size, so all cells
 * compare the same size, the one every output names; a cell without a measurement of that
 * size is null ("-" when printed) and listed as not measured there, never filled from
 * another size. When a cell was measured twice at one size, the first wins.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "nodebw/analysis.h"
#include "nodebw/bidir.h"

struct series {
	const char *api, *direction, *mode, *host_mem, *concurrency, *peer_access, *bind;
	json_int_t big, small;
	bool host_memory;
};

static bool same_series(const struct series *s, const struct nbw_rv_meas *x, bool p2p)
{
	/* A binding axis (--bind local,remote) makes series of their own: a remote-bound
	 * copy is not a cell or a peer of the local one. */
	if (strcmp(s->api, x->api) || strcmp(s->mode, x->mode) || strcmp(s->bind, x->bind))
		return false;
	if (p2p)
		return !strcmp(s->concurrency, x->concurrency) &&
		       !strcmp(s->peer_access, x->peer_access);
	return !strcmp(s->direction, x->direction) && !strcmp(s->host_mem, x->host_mem);
}

static bool wanted(const struct nbw_rv_meas *x, bool p2p)
{
	if (p2p) /* the ring and all-to-all are many pairs at once: their own table
		  * (nbw_analysis_concurrent) */
		return strcmp(x->direction, "p2p") == 0 && strcmp(x->concurrency, "ring") != 0 &&
		       strcmp(x->concurrency, "a2a") != 0;
	return (strcmp(x->direction, "htod") == 0 || strcmp(x->direction, "dtoh") == 0) &&
	       strcmp(x->concurrency, "single") == 0;
}

/* Measurement \p m into \p x when it is usable (nbw_rv_meas_usable) and of the series kind. */
static bool take(json_t *devices, json_t *m, bool p2p, struct nbw_rv_meas *x)
{
	return nbw_rv_meas_read(devices, m, x) && nbw_rv_meas_usable(x) && wanted(x, p2p);
}

/* The series of the document, each with its largest and smallest size. */
static struct series *find_series(json_t *devices, json_t *ms, bool p2p, long long cmp,
				  size_t *n)
{
	struct series *s = NULL;
	size_t i, ns = 0, cap = 0;
	json_t *m;
	json_array_foreach(ms, i, m) {
		struct nbw_rv_meas x;
		if (!take(devices, m, p2p, &x))
			continue;
		size_t k;
		for (k = 0; k < ns && !same_series(&s[k], &x, p2p); k++)
			;
		if (k == ns) {
			if (ns == cap) {
				cap = cap ? 2 * cap : 16;
				struct series *t = realloc(s, cap * sizeof(*s));
				if (!t)
					break;
				s = t;
			}
			s[ns++] = (struct series){ x.api, x.direction, x.mode, x.host_mem,
						   x.concurrency, x.peer_access, x.bind, x.bytes,
						   x.bytes, false };
		}
		if (x.bytes > s[k].big)
			s[k].big = x.bytes;
		if (x.bytes < s[k].small)
			s[k].small = x.bytes;
		s[k].host_memory = s[k].host_memory || x.host_memory;
	}
	/* The bandwidth size: the run's comparison size (nbw_analysis_comparison_bytes), the
	 * same for every series, so a device or pair swept beyond it (device 0 and the first
	 * pair) is read where its peers are. A series never measured there is left out (its
	 * sweep is in the report's curves). */
	size_t kept = 0;
	for (size_t k = 0; k < ns; k++) {
		bool has = false;
		json_array_foreach(ms, i, m) {
			struct nbw_rv_meas x;
			if (take(devices, m, p2p, &x) && same_series(&s[k], &x, p2p) &&
			    x.bytes == cmp) {
				has = true;
				break;
			}
		}
		if (has) {
			s[kept] = s[k];
			s[kept++].big = cmp;
		}
	}
	ns = kept;
	*n = ns;
	return s;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void add_id(int **ids, size_t *n, size_t *cap, int id)
{
	if (id < 0)
		return;
	for (size_t i = 0; i < *n; i++)
		if ((*ids)[i] == id)
			return;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		int *t = realloc(*ids, c * sizeof(*t));
		if (!t)
			return;
		*ids = t;
		*cap = c;
	}
	(*ids)[(*n)++] = id;
}

/* The devices of a series: every device of its API the document lists, and every device
 * its measurements name; ascending. */
static int *series_ids(json_t *devices, json_t *ms, const struct series *s, bool p2p,
		       size_t *n)
{
	int *ids = NULL;
	size_t cap = 0, i;
	json_t *d;
	*n = 0;
	json_array_foreach(devices, i, d) {
		struct nbw_rv_device dv;
		if (nbw_rv_device_read(d, &dv) && strcmp(dv.api, s->api) == 0)
			add_id(&ids, n, &cap, dv.id);
	}
	json_array_foreach(ms, i, d) {
		struct nbw_rv_meas x;
		if (take(devices, d, p2p, &x) && same_series(s, &x, p2p)) {
			add_id(&ids, n, &cap, x.src);
			add_id(&ids, n, &cap, x.dst);
		}
	}
	if (*n)
		qsort(ids, *n, sizeof(*ids), cmp_int);
	return ids;
}

static int index_of(const int *ids, size_t n, int id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return (int)i;
	return -1;
}

/* The interval of the median GB/s (nbw_rv_meas_ci_gbps), where there is one. */
static void set_interval(json_t *o, const struct nbw_rv_meas *x)
{
	double lo, hi;
	if (!nbw_rv_meas_ci_gbps(x, &lo, &hi))
		return;
	json_object_set_new(o, "ci_lo_gbps", json_real(lo));
	json_object_set_new(o, "ci_hi_gbps", json_real(hi));
}

static json_t *new_cell(const struct nbw_rv_meas *x)
{
	return json_pack("{s:i, s:i, s:n, s:n, s:s, s:o, s:n, s:b}", "src", x->src, "dst", x->dst,
			 "gbps", "latency_us", "link", x->link, "theoretical_gbps",
			 nbw_an_num(x->theoretical, true), "fraction", "peer_link",
			 !x->same_device && !x->host_memory);
}

static json_t *matrix_notes(const struct series *s)
{
	json_t *notes = json_array();
	json_array_append_new(notes, json_string(
		"GB/s = 1e9 B/s: median GB/s at bandwidth_bytes, the run's comparison size (the "
		"one size every device and pair is compared at); latency = median time of one transfer at the smallest size, in "
		"microseconds"));
	if (strcmp(s->concurrency, "bidir") == 0)
		json_array_append_new(notes, json_string(
			NBW_BIDIR_DEFINITION "; gbps is the sum, bidir.directions each direction's "
			"own; cell (a, b) is the run whose first stream goes a -> b; its latency "
			"is the wall time of both transfers"));
	json_array_append_new(notes, json_string(
		"a diagonal cell is a copy within one device: " NBW_SAME_DEVICE_LABEL));
	if (s->host_memory)
		json_array_append_new(notes, json_string(
			"these devices are host memory (host-plugin devices or host regions): "
			"copies within host memory, not peer links, with no theoretical figure"));
	return notes;
}

json_t *nbw_analysis_matrices(json_t *devices, json_t *measurements)
{
	return nbw_analysis_matrices_at(devices, measurements,
					nbw_analysis_comparison_bytes(devices, measurements));
}

json_t *nbw_analysis_matrices_at(json_t *devices, json_t *measurements, long long cmp)
{
	json_t *out = json_array();
	size_t ns, i;
	struct series *s = find_series(devices, measurements, true, cmp, &ns);
	for (size_t k = 0; k < ns; k++) {
		size_t n;
		int *ids = series_ids(devices, measurements, &s[k], true, &n);
		json_t *cells = json_array(), *idj = json_array(), *m;
		for (size_t r = 0; r < n; r++) {
			json_t *row = json_array();
			for (size_t c = 0; c < n; c++)
				json_array_append_new(row, json_null());
			json_array_append_new(cells, row);
			json_array_append_new(idj, json_integer(ids[r]));
		}
		json_array_foreach(measurements, i, m) {
			struct nbw_rv_meas x;
			if (!take(devices, m, true, &x) || !same_series(&s[k], &x, true) ||
			    (x.bytes != s[k].big && x.bytes != s[k].small))
				continue;
			int r = index_of(ids, n, x.src), c = index_of(ids, n, x.dst);
			if (r < 0 || c < 0)
				continue;
			json_t *row = json_array_get(cells, (size_t)r);
			json_t *cell = json_array_get(row, (size_t)c);
			if (json_is_null(cell)) {
				cell = new_cell(&x);
				json_array_set_new(row, (size_t)c, cell);
			}
			if (x.bytes == s[k].big && json_is_null(json_object_get(cell, "gbps"))) {
				json_object_set_new(cell, "gbps", nbw_an_num(x.gbps, false));
				nbw_bidir_json(cell, &x); /* both figures of both at once */
				set_interval(cell, &x);
				json_object_set_new(cell, "fraction",
						    x.theoretical > 0.0
							    ? nbw_an_num(x.gbps / x.theoretical, false)
							    : json_null());
			}
			if (x.bytes == s[k].small &&
			    json_is_null(json_object_get(cell, "latency_us")))
				json_object_set_new(cell, "latency_us",
						    nbw_an_num(x.seconds * 1e6, false));
		}
		/* Pairs of the series measured, but not at the comparison size: said, never
		 * filled from another size. */
		json_t *missing = json_array();
		json_array_foreach(measurements, i, m) {
			struct nbw_rv_meas x;
			if (!take(devices, m, true, &x) || !same_series(&s[k], &x, true) ||
			    x.bytes == s[k].big || x.src == x.dst)
				continue;
			int r = index_of(ids, n, x.src), c = index_of(ids, n, x.dst);
			json_t *cell = r < 0 || c < 0 ? NULL
					: json_array_get(json_array_get(cells, (size_t)r), (size_t)c);
			if (json_is_object(cell) && json_is_number(json_object_get(cell, "gbps")))
				continue;
			char pair[32];
			snprintf(pair, sizeof(pair), "%d->%d", x.src, x.dst);
			bool seen = false;
			for (size_t q = 0; q < json_array_size(missing); q++)
				seen = seen || !strcmp(json_string_value(json_array_get(missing, q)), pair);
			if (!seen)
				json_array_append_new(missing, json_string(pair));
		}
		json_array_append_new(
			out, json_pack("{s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:o}",
				       "not_at_bandwidth_bytes", missing,
				       "api", s[k].api, "direction", "p2p", "mode", s[k].mode,
				       "concurrency", s[k].concurrency, "peer_access",
				       s[k].peer_access, "binding", s[k].bind,
				       "bandwidth_bytes", s[k].big, "latency_bytes", s[k].small,
				       "devices", idj, "notes", matrix_notes(&s[k]), "cells", cells));
		free(ids);
	}
	free(s);
	return out;
}

json_t *nbw_analysis_device_tables(json_t *devices, json_t *measurements)
{
	return nbw_analysis_device_tables_at(devices, measurements,
					     nbw_analysis_comparison_bytes(devices, measurements));
}

json_t *nbw_analysis_device_tables_at(json_t *devices, json_t *measurements, long long cmp)
{
	json_t *out = json_array();
	size_t ns, i;
	struct series *s = find_series(devices, measurements, false, cmp, &ns);
	for (size_t k = 0; k < ns; k++) {
		size_t n;
		int *ids = series_ids(devices, measurements, &s[k], false, &n);
		json_t *rows = json_array(), *missing = json_array(), *m;
		for (size_t r = 0; r < n; r++) {
			json_t *found = NULL;
			json_array_foreach(measurements, i, m) {
				struct nbw_rv_meas x;
				int dev;
				if (!take(devices, m, false, &x) ||
				    !same_series(&s[k], &x, false) || x.bytes != s[k].big)
					continue;
				dev = strcmp(x.direction, "htod") == 0 ? x.dst : x.src;
				if (dev != ids[r])
					continue;
				found = json_pack(
					"{s:i, s:o, s:s, s:o, s:o, s:b}", "device", dev, "gbps",
					nbw_an_num(x.gbps, false), "link", x.link, "theoretical_gbps",
					nbw_an_num(x.theoretical, true), "fraction",
					x.theoretical > 0.0 ? nbw_an_num(x.gbps / x.theoretical, false)
							    : json_null(),
					"host_memory", x.host_memory);
				set_interval(found, &x);
				/* The median's 95 % interval (+- % of it), where the document has
				 * one. */
				if (isfinite(x.ci_half_width_pct))
					json_object_set_new(found, "ci_half_width_pct",
							    json_real(x.ci_half_width_pct));
				if (x.converged >= 0)
					json_object_set_new(found, "converged",
							    json_boolean(x.converged));
				break;
			}
			if (found)
				json_array_append_new(rows, found);
			else /* measured at other sizes only: said, never filled from another size */
				json_array_append_new(missing, json_integer(ids[r]));
		}
		json_t *notes = json_array();
		json_array_append_new(notes, json_string(
			"GB/s = 1e9 B/s: median GB/s of one stream at bytes, the run's comparison "
			"size (the one size every device and pair is compared at)"));
		if (s[k].host_memory)
			json_array_append_new(notes, json_string(
				"host-plugin devices and host regions are host memory: these are "
				"host-to-host copies, not GPU figures"));
		json_array_append_new(
			out, json_pack("{s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:o}",
				       "not_at_bytes", missing, "api",
				       s[k].api, "direction", s[k].direction, "mode", s[k].mode,
				       "host_mem", s[k].host_mem, "concurrency", "single", "binding",
				       s[k].bind, "bytes", s[k].big,
				       "notes", notes, "rows", rows));
		free(ids);
	}
	free(s);
	return out;
}
