/* SPDX-License-Identifier: BSD-3-Clause */
/* results.csv: one summary row per measurement, kept as measurements are added or made
 * from the JSON of a loaded document (doc/results-schema.md, "The CSV view"). */
#include "nodebw/results.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/csvcell.h"
#include "nodebw/results_view.h"
#include "results_priv.h"

static void csv_field(FILE *f, const char *s)
{
	nbw_csv_cell(f, s, true);
}

/* results.csv: one row per measurement, a header of machine names with their units
 * (_bytes, _gbps = GB/s = 1e9 B/s, _s = seconds) and nothing else, so that
 * pandas.read_csv(path) reads it as it is; what the columns mean is in
 * doc/results-schema.md ("The CSV view"), how bytes are counted in results.json. */
static const char *const csv_columns[] = {
	"api", "probe", "direction", "mode", "host_mem", "concurrency", "src", "dst",
	"device_kind", "bytes", "halo_n", "size_set", "hidden_helpers", "hht_sweep",
	"peer_access", "bind_policy", "bind_node", "repetitions", "median_gbps", "min_gbps",
	"max_gbps", "mean_gbps", "cv", "median_s", "ci_lo_gbps", "ci_hi_gbps",
	"ci_half_width_pct", "ci_coverage", "converged", "stop", "device_timer_median_gbps",
	"theoretical_gbps", "fraction_of_theoretical", "link", "overlap_speedup",
	"verification", "error", "interface", "plane_process", "chase_latency_ns",
};

static void csv_header(FILE *f)
{
	for (size_t i = 0; i < sizeof(csv_columns) / sizeof(csv_columns[0]); i++)
		fprintf(f, "%s%s", i ? "," : "", csv_columns[i]);
	fputc('\n', f);
}

static void endpoint_list(const struct nbw_measurement *x, bool dst, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned s = 0; s < x->nstreams; s++) {
		int dev = dst ? x->streams[s].dst_device : x->streams[s].src_device;
		size_t l = strlen(buf);
		if (dev < 0)
			snprintf(buf + l, len - l, "%shost", s ? "+" : "");
		else
			snprintf(buf + l, len - l, "%s%d", s ? "+" : "", dev);
	}
}

/* The kind of the devices a measurement touched ("host-plugin", "gpu", ...; "mixed" when
 * they differ; "host" for host-only copies), from the document's device list. */
static void device_kind(json_t *devices, const struct nbw_measurement *x, char *buf,
			size_t len)
{
	snprintf(buf, len, "host");
	bool any = false;
	for (unsigned s = 0; s < x->nstreams; s++)
		for (int e = 0; e < 2; e++) {
			int dev = e ? x->streams[s].dst_device : x->streams[s].src_device;
			if (dev < 0)
				continue;
			struct nbw_rv_device d;
			const char *k = nbw_rv_device_find(devices, x->api, dev, &d) && d.kind[0]
						? d.kind
						: "unknown";
			if (any && strcmp(buf, k) != 0)
				snprintf(buf, len, "mixed");
			else if (!any)
				snprintf(buf, len, "%s", k);
			any = true;
		}
}

static void csv_number(FILE *f, double v, const char *fmt)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, fmt, v);
}

/* One CSV row from the measurement itself (no JSON round trip). */
void nbw_doc_csv_row(FILE *f, json_t *devices, const struct nbw_measurement *x,
		    const char *hht_label, int plane_process)
{
	char src[NBW_MAX_STREAMS * 6], dst[NBW_MAX_STREAMS * 6], kind[32];
	endpoint_list(x, false, src, sizeof(src));
	endpoint_list(x, true, dst, sizeof(dst));
	device_kind(devices, x, kind, sizeof(kind));
	fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,", x->api, x->probe, nbw_dir_name(x->dir),
		nbw_mode_name(x->mode), nbw_hostmem_name(x->hostmem), nbw_conc_name(x->conc), src,
		dst);
	csv_field(f, kind);
	fprintf(f, ",%llu,", (unsigned long long)x->bytes);
	if (x->halo_n)
		fprintf(f, "%d", x->halo_n);
	fprintf(f, ",%s,%d,", x->size_set, x->hidden_helpers);
	csv_field(f, hht_label ? hht_label : "");
	fprintf(f, ",%s,%s,", nbw_peer_name(x->peer), x->bind_policy);
	if (x->bind_policy[0] && x->bind_node >= 0)
		fprintf(f, "%d", x->bind_node);
	fprintf(f, ",%u", x->reps);
	/* A chase's GB/s would be working-set bytes over a latency-bound time: not a
	 * bandwidth, so its rate columns stay empty and chase_latency_ns holds its figure. */
	bool ok = x->reps > 0 && !x->error[0] && x->mode != NBW_MODE_CHASE;
	csv_number(f, ok ? x->gbps.median : NAN, "%.6g");
	csv_number(f, ok ? x->gbps.min : NAN, "%.6g");
	csv_number(f, ok ? x->gbps.max : NAN, "%.6g");
	csv_number(f, ok ? x->gbps.mean : NAN, "%.6g");
	csv_number(f, ok ? x->gbps.cv : NAN, "%.4f");
	csv_number(f, ok ? x->seconds.median : NAN, "%.6g");
	/* The interval of the median (GB/s: the same order statistics of the rates). */
	bool ci = ok && x->ci.n && x->ci.lo > 0.0 && isfinite(x->ci.half_width);
	double total = (double)x->bytes * (x->nstreams ? x->nstreams : 1);
	csv_number(f, ci ? total / x->ci.hi / 1e9 : NAN, "%.6g");
	csv_number(f, ci ? total / x->ci.lo / 1e9 : NAN, "%.6g");
	csv_number(f, ci ? 100.0 * x->ci.half_width : NAN, "%.3f");
	csv_number(f, ci ? x->ci.coverage : NAN, "%.4f");
	fprintf(f, ",%s,", ok && x->stop[0] ? (x->converged ? "true" : "false") : "");
	csv_field(f, ok ? x->stop : "");
	/* The device timer's figure: stream 0's (each stream has its own in the JSON). */
	csv_number(f, ok && x->nstreams && x->streams[0].n_device ? x->streams[0].device_gbps.median
								   : NAN,
		   "%.6g");
	bool th = x->theoretical_gbps > 0.0;
	csv_number(f, th ? x->theoretical_gbps : NAN, "%.6g");
	csv_number(f, th && ok ? x->gbps.median / x->theoretical_gbps : NAN, "%.4f");
	fputc(',', f);
	csv_field(f, x->link);
	csv_number(f, x->has_overlap ? x->overlap_speedup : NAN, "%.3f");
	fprintf(f, ",%s,", x->verify_status);
	csv_field(f, x->error);
	fputc(',', f);
	csv_field(f, x->interface);
	if (plane_process > 0)
		fprintf(f, ",%d", plane_process);
	else
		fputc(',', f);
	csv_number(f, x->chase.has && !x->error[0] ? x->chase.latency_ns : NAN, "%.6g");
	fputc('\n', f);
}

void nbw_doc_csv_row_json(FILE *f, json_t *devices, json_t *m)
{
	char e[NBW_REASON_LEN];
	struct nbw_measurement x;
	if (nbw_measurement_from_json(m, &x, e, sizeof(e)))
		return;
	json_t *label = json_object_get(m, "hht_sweep");
	json_t *pp = json_object_get(json_object_get(m, "plane_sweep"), "process");
	nbw_doc_csv_row(f, devices, &x, json_is_string(label) ? json_string_value(label) : NULL,
		json_is_integer(pp) ? (int)json_integer_value(pp) : 0);
	nbw_measurement_free(&x);
}

/* The CSV rows of a document: kept as the measurements are added (a new document), or
 * made once from the JSON on the first write (a loaded one). */
int nbw_doc_csv_ensure(struct nbw_doc *d)
{
	if (d->csv)
		return 0;
	d->csv = open_memstream(&d->csv_buf, &d->csv_len);
	if (!d->csv)
		return -1;
	csv_header(d->csv);
	size_t i;
	json_t *m;
	json_array_foreach(d->measurements, i, m)
		nbw_doc_csv_row_json(d->csv, d->devices, m);
	return 0;
}

int nbw_doc_write_csv(struct nbw_doc *d, const char *path, char *err, size_t errlen)
{
	if (nbw_doc_csv_ensure(d) || fflush(d->csv)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return nbw_write_atomic(path, d->csv_buf, d->csv_len, err, errlen);
}
