/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to analysis/: reading one measurement of a results document (which devices, which
 * link, which figures), shared by the matrices, the device tables and the outlier rule. */
#ifndef NODEBW_ANALYSIS_MEASURE_H
#define NODEBW_ANALYSIS_MEASURE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define NBW_AN_LINK_LEN 96

/* What the analyses read of one measurement. */
struct nbw_an_meas {
	json_t *m;
	const char *api, *direction, *mode, *host_mem, *concurrency, *peer_access;
	const char *bind;       /* binding.policy ("local", "remote", "none"; "" when absent) */
	json_int_t bytes;
	int src, dst;           /* stream 0's ends: a device id, -1 = host */
	int nstreams;
	double gbps;            /* gbps.median, NaN when absent */
	double seconds;         /* seconds.median, NaN when absent */
	double theoretical;     /* theoretical GB/s, < 0 = unknown */
	double ci_half_width_pct; /* median_ci.half_width_pct, NaN when absent */
	int converged;          /* the repetitions met the interval's target: 1, 0, -1 unknown */
	bool same_device;       /* p2p with src = dst */
	bool host_memory;       /* a device involved is host memory (host-plugin, host region) */
	char link[NBW_AN_LINK_LEN];
};

const char *nbw_an_str(json_t *o, const char *key);
/* Verified, no error, not from the hidden-helper sweep. */
bool nbw_an_usable(json_t *m);
/* The device of \p api with \p id in the document's "devices", or NULL. */
json_t *nbw_an_device(json_t *devices, const char *api, int id);
/* Fill \p out from \p m; false when \p m is unusable or has no stream. */
bool nbw_an_read(json_t *devices, json_t *m, struct nbw_an_meas *out);
/* One measurement of a series as the size rule sees it: its size and its device set
 * (stream 0's ends). */
struct nbw_an_point {
	json_int_t bytes;
	int src, dst;
};
/* The one size a series' matrix, table or outlier group is read at, in every output: the
 * largest size measured on every device set (pair, device) of the series; where no size
 * covers them all, the largest of those measured on the most device sets. A set measured
 * several times at one size (the plane-size sweep's processes, a series run twice) counts
 * once. Reorders \p p; \p fallback when n = 0. */
json_int_t nbw_an_series_size(struct nbw_an_point *p, size_t n, json_int_t fallback);
/* Median of \p n values (reorders \p v); NaN when n = 0. */
double nbw_an_median(double *v, size_t n);
/* A JSON number, or null when \p x is not finite or (with \p positive) not > 0. */
json_t *nbw_an_num(double x, bool positive);

#endif
