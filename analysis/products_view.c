/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed views of the products' elements (include/nodebw/products.h): the one place, with
 * the analyses that build them, that names the products' keys. The renderers read fields.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/jget.h"
#include "nodebw/gap.h"
#include "nodebw/products.h"
#include "nodebw/verdict.h"



static long long i_of(json_t *o, const char *k, long long dflt)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (long long)json_integer_value(v)
	       : json_is_number(v) ? (long long)json_number_value(v) : dflt;
}

/* An endpoint: a device id, or -1 for "host" (and anything else). */
static int end_of(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

static const char *str_at(json_t *a, size_t i)
{
	const char *s = json_string_value(json_array_get(a, i));
	return s ? s : "";
}

/* ---- matrices -------------------------------------------------------------------- */

bool nbw_pv_matrix(json_t *m, struct nbw_pv_matrix *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(m))
		return false;
	out->api = jstr(m, "api");
	out->direction = jstr(m, "direction");
	out->mode = jstr(m, "mode");
	out->concurrency = jstr(m, "concurrency");
	out->peer_access = jstr(m, "peer_access");
	out->binding = jstr(m, "binding");
	out->bandwidth_bytes = i_of(m, "bandwidth_bytes", -1);
	out->latency_bytes = i_of(m, "latency_bytes", -1);
	out->devices_ = json_object_get(m, "devices");
	out->cells_ = json_object_get(m, "cells");
	out->notes_ = json_object_get(m, "notes");
	out->missing_ = json_object_get(m, "not_at_bandwidth_bytes");
	out->n = json_array_size(out->devices_);
	out->nnotes = json_array_size(out->notes_);
	out->nmissing = json_array_size(out->missing_);
	return true;
}

int nbw_pv_matrix_device(const struct nbw_pv_matrix *m, size_t i)
{
	json_t *v = json_array_get(m->devices_, i);
	return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

bool nbw_pv_matrix_cell(const struct nbw_pv_matrix *m, size_t row, size_t col,
			struct nbw_pv_cell *out)
{
	json_t *c = json_array_get(json_array_get(m->cells_, row), col);
	memset(out, 0, sizeof(*out));
	out->gbps = out->latency_us = out->theoretical_gbps = out->fraction = NAN;
	out->link = "";
	out->src = nbw_pv_matrix_device(m, row);
	out->dst = nbw_pv_matrix_device(m, col);
	if (!json_is_object(c))
		return false;
	out->measured = true;
	out->src = (int)i_of(c, "src", out->src);
	out->dst = (int)i_of(c, "dst", out->dst);
	out->gbps = jnum(c, "gbps");
	out->latency_us = jnum(c, "latency_us");
	out->theoretical_gbps = jnum(c, "theoretical_gbps");
	out->fraction = jnum(c, "fraction");
	out->link = jstr(c, "link");
	out->peer_link = json_is_true(json_object_get(c, "peer_link"));
	return true;
}

const char *nbw_pv_matrix_note(const struct nbw_pv_matrix *m, size_t i)
{
	return str_at(m->notes_, i);
}

const char *nbw_pv_matrix_missing(const struct nbw_pv_matrix *m, size_t i)
{
	return str_at(m->missing_, i);
}

/* ---- per-device tables ------------------------------------------------------------ */

bool nbw_pv_table(json_t *t, struct nbw_pv_table *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(t))
		return false;
	out->api = jstr(t, "api");
	out->direction = jstr(t, "direction");
	out->mode = jstr(t, "mode");
	out->host_mem = jstr(t, "host_mem");
	out->concurrency = jstr(t, "concurrency");
	out->binding = jstr(t, "binding");
	out->bytes = i_of(t, "bytes", -1);
	out->rows_ = json_object_get(t, "rows");
	out->notes_ = json_object_get(t, "notes");
	out->missing_ = json_object_get(t, "not_at_bytes");
	out->nrows = json_array_size(out->rows_);
	out->nnotes = json_array_size(out->notes_);
	out->nmissing = json_array_size(out->missing_);
	return true;
}

bool nbw_pv_table_row(const struct nbw_pv_table *t, size_t i, struct nbw_pv_devrow *out)
{
	json_t *r = json_array_get(t->rows_, i);
	memset(out, 0, sizeof(*out));
	out->device = -1;
	out->gbps = out->theoretical_gbps = out->fraction = out->ci_half_width_pct = NAN;
	out->converged = -1;
	out->link = "";
	if (!json_is_object(r))
		return false;
	out->device = (int)i_of(r, "device", -1);
	out->gbps = jnum(r, "gbps");
	out->theoretical_gbps = jnum(r, "theoretical_gbps");
	out->fraction = jnum(r, "fraction");
	out->ci_half_width_pct = jnum(r, "ci_half_width_pct");
	json_t *c = json_object_get(r, "converged");
	out->converged = json_is_boolean(c) ? json_is_true(c) : -1;
	out->link = jstr(r, "link");
	out->host_memory = json_is_true(json_object_get(r, "host_memory"));
	return true;
}

bool nbw_pv_table_find(const struct nbw_pv_table *t, int id, struct nbw_pv_devrow *out)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (nbw_pv_table_row(t, i, out) && out->device == id)
			return true;
	nbw_pv_table_row(t, t->nrows, out); /* the empty row */
	return false;
}

const char *nbw_pv_table_note(const struct nbw_pv_table *t, size_t i)
{
	return str_at(t->notes_, i);
}

int nbw_pv_table_missing(const struct nbw_pv_table *t, size_t i)
{
	json_t *v = json_array_get(t->missing_, i);
	return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

/* ---- every device at once, outliers, groups, latency ------------------------------ */

bool nbw_pv_conc(json_t *o, struct nbw_pv_conc *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		return false;
	out->pattern = jstr(o, "pattern");
	out->api = jstr(o, "api");
	out->direction = jstr(o, "direction");
	out->mode = jstr(o, "mode");
	out->host_mem = jstr(o, "host_mem");
	out->concurrency = jstr(o, "concurrency");
	out->peer_access = jstr(o, "peer_access");
	out->binding = jstr(o, "binding");
	out->link = jstr(o, "link");
	out->bound = jstr(o, "bound");
	out->verdict = jstr(o, "verdict");
	out->host_limit_host_mem = jstr(o, "host_limit_host_mem");
	out->bytes = i_of(o, "bytes", -1);
	out->ndevices = json_array_size(json_object_get(o, "devices"));
	out->aggregate_gbps = jnum(o, "aggregate_gbps");
	out->alone_sum_gbps = jnum(o, "alone_sum_gbps");
	out->scaling = jnum(o, "scaling");
	out->links_theoretical_gbps = jnum(o, "links_theoretical_gbps");
	out->fraction_of_links = jnum(o, "fraction_of_links");
	out->host_memory_limit_gbps = jnum(o, "host_memory_limit_gbps");
	out->fraction_of_host_limit = jnum(o, "fraction_of_host_limit");
	json_t *sl = json_object_get(o, "slowest");
	out->has_slowest = json_is_object(sl);
	out->slowest_src = end_of(sl, "src");
	out->slowest_dst = end_of(sl, "dst");
	out->slowest_gbps = jnum(sl, "gbps");
	return true;
}

bool nbw_pv_outlier(json_t *o, struct nbw_pv_outlier *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		return false;
	out->what = jstr(o, "what");
	out->where = jstr(o, "where");
	out->api = jstr(o, "api");
	out->direction = jstr(o, "direction");
	out->mode = jstr(o, "mode");
	out->host_mem = jstr(o, "host_mem");
	out->concurrency = jstr(o, "concurrency");
	out->peer_access = jstr(o, "peer_access");
	out->link = jstr(o, "link");
	out->reason = jstr(o, "reason");
	out->gbps = jnum(o, "gbps");
	out->peer_median_gbps = jnum(o, "peer_median_gbps");
	out->theoretical_gbps = jnum(o, "theoretical_gbps");
	out->fraction = jnum(o, "fraction");
	out->peers = (int)i_of(o, "peers", 0);
	size_t k, w = 0;
	json_t *rule;
	json_array_foreach(json_object_get(o, "rules"), k, rule)
		if (w < sizeof(out->rules))
			w += (size_t)snprintf(out->rules + w, sizeof(out->rules) - w, "%s%s",
					      k ? " + " : "",
					      json_string_value(rule) ? json_string_value(rule) : "");
	return true;
}

bool nbw_pv_group(json_t *g, struct nbw_pv_group *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(g))
		return false;
	out->api = jstr(g, "api");
	out->direction = jstr(g, "direction");
	out->mode = jstr(g, "mode");
	out->host_mem = jstr(g, "host_mem");
	out->concurrency = jstr(g, "concurrency");
	out->peer_access = jstr(g, "peer_access");
	out->link = jstr(g, "link");
	out->note = jstr(g, "note");
	out->bytes = i_of(g, "bytes", -1);
	out->members = (int)i_of(g, "members", 0);
	out->median_gbps = jnum(g, "median_gbps");
	out->median_rule = json_is_true(json_object_get(g, "median_rule"));
	return true;
}

bool nbw_pv_latency(json_t *r, struct nbw_pv_latency *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(r))
		return false;
	out->api = jstr(r, "api");
	out->direction = jstr(r, "direction");
	out->host_mem = jstr(r, "host_mem");
	out->src = (int)i_of(r, "src", -1);
	out->dst = (int)i_of(r, "dst", -1);
	out->copy_us = jnum(r, "copy_us");
	out->copy_us_bytes = jnum(r, "copy_us_bytes");
	out->chase_small_ns = jnum(r, "chase_small_ns");
	out->chase_small_ns_bytes = jnum(r, "chase_small_ns_bytes");
	out->chase_large_ns = jnum(r, "chase_large_ns");
	out->chase_large_ns_bytes = jnum(r, "chase_large_ns_bytes");
	out->chase_large_touched_bytes = jnum(r, "chase_large_touched_bytes");
	return true;
}

/* ---- verdicts ------------------------------------------------------------------------ */

bool nbw_pv_verdicts(json_t *v, struct nbw_pv_verdicts *out)
{
	memset(out, 0, sizeof(*out));
	out->rule = out->thresholds_file = out->references_file = "";
	out->outcome = out->outcome_reason = "";
	if (!json_is_object(v))
		return false;
	out->rule = jstr(v, "rule");
	out->thresholds_file = jstr(v, "thresholds_file");
	out->references_file = jstr(v, "references_file");
	json_t *c = json_object_get(v, "counts");
	out->pass = (int)i_of(c, "pass", 0);
	out->below_threshold = (int)i_of(c, "below threshold", 0);
	out->below_reference = (int)i_of(c, "below reference", 0);
	out->not_judged = (int)i_of(c, "not judged", 0);
	out->warning = (int)i_of(c, "warning", 0);
	out->outcome = jstr(v, "outcome");
	out->outcome_reason = jstr(v, "outcome_reason");
	out->nrules_not_judged = json_array_size(json_object_get(v, "rules_not_judged"));
	out->paths_ = json_object_get(v, "paths");
	out->npaths = json_array_size(out->paths_);
	return true;
}

bool nbw_pv_vpath(const struct nbw_pv_verdicts *v, size_t i, struct nbw_pv_vpath *out)
{
	json_t *p = json_array_get(v->paths_, i);
	memset(out, 0, sizeof(*out));
	out->api = out->direction = out->concurrency = out->where = out->device = "";
	out->link = out->verdict = out->reason = "";
	if (!json_is_object(p))
		return false;
	out->api = jstr(p, "api");
	out->direction = jstr(p, "direction");
	out->concurrency = jstr(p, "concurrency");
	out->where = jstr(p, "where");
	out->device = jstr(p, "device");
	out->link = jstr(p, "link");
	out->verdict = jstr(p, "verdict");
	out->reason = jstr(p, "reason");
	out->bytes = i_of(p, "bytes", -1);
	out->aggregate = json_is_true(json_object_get(p, "aggregate"));
	json_t *b = json_object_get(p, "bidir"), *d = json_object_get(b, "directions");
	out->bidir_sum_gbps = jnum(b, "sum_gbps");
	for (size_t k = 0; k < 2; k++) {
		json_t *e = json_array_get(d, k);
		out->bidir_dir_gbps[k] = jnum(e, "gbps");
		out->bidir_src[k] = (int)i_of(e, "src", -1);
		out->bidir_dst[k] = (int)i_of(e, "dst", -1);
	}
	out->judgements_ = json_object_get(p, "judgements");
	out->njudgements = json_array_size(out->judgements_);
	return true;
}

bool nbw_pv_judgement(const struct nbw_pv_vpath *p, size_t i, struct nbw_pv_judgement *out)
{
	json_t *j = json_array_get(p->judgements_, i);
	memset(out, 0, sizeof(*out));
	if (!json_is_object(j))
		return false;
	out->against = jstr(j, "against");
	out->what = jstr(j, "what");
	out->source = jstr(j, "source");
	out->mode = jstr(j, "mode");
	out->host_mem = jstr(j, "host_mem");
	out->verdict = jstr(j, "verdict");
	out->reason = jstr(j, "reason");
	out->gbps = jnum(j, "gbps");
	out->limit_gbps = jnum(j, "limit_gbps");
	out->bytes = i_of(j, "bytes", -1);
	return true;
}

/* ---- the gap table --------------------------------------------------------------------- */

static void gap_band(json_t *b, bool small, struct nbw_pv_gap_band *out)
{
	memset(out, 0, sizeof(*out));
	out->sizes = (int)i_of(b, "sizes", 0);
	out->present = json_is_object(b) && out->sizes > 0;
	out->edge_bytes = i_of(b, small ? "max_bytes" : "min_bytes", -1);
	out->unmeasurable_sizes = (int)i_of(b, "unmeasurable_sizes", 0);
	out->median_relative_gap = jnum(b, "median_relative_gap");
	out->median_extra_us = jnum(b, "median_extra_us");
	out->median_gap_gbps = jnum(b, "median_gap_gbps");
	out->verdict = json_is_object(b) ? nbw_gap_band_verdict(b) : "";
	out->measurable = nbw_gap_measurable(b);
}

bool nbw_pv_gap(json_t *gaps, size_t i, struct nbw_pv_gap *out)
{
	json_t *s = json_array_get(json_object_get(gaps, "summary"), i);
	memset(out, 0, sizeof(*out));
	if (!json_is_object(s))
		return false;
	out->native_api = jstr(s, "native_api");
	out->direction = jstr(s, "direction");
	out->omp_mode = jstr(s, "omp_mode");
	out->host_mem = jstr(s, "host_mem");
	out->devices = (int)i_of(s, "devices", 0);
	out->sizes = (int)i_of(s, "sizes", 0);
	out->mean_abs_gap_gbps = jnum(s, "mean_abs_gap_gbps");
	out->mean_abs_relative_gap = jnum(s, "mean_abs_relative_gap");
	out->mean_extra_us = jnum(s, "mean_extra_us");
	gap_band(json_object_get(s, "latency_band"), true, &out->small);
	gap_band(json_object_get(s, "bandwidth_band"), false, &out->large);
	out->row = s;
	out->sign_changes_ = json_object_get(s, "sign_changes_at_bytes");
	out->nsign_changes = json_array_size(out->sign_changes_);
	return true;
}

long long nbw_pv_gap_sign_change(const struct nbw_pv_gap *g, size_t i)
{
	json_t *v = json_array_get(g->sign_changes_, i);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* ---- failures ------------------------------------------------------------------------ */

bool nbw_pv_failure(json_t *failures, size_t i, struct nbw_pv_failure *out)
{
	json_t *x = json_array_get(failures, i);
	memset(out, 0, sizeof(*out));
	out->kind = out->what = out->reason = "";
	if (!json_is_object(x))
		return false;
	out->kind = jstr(x, "kind");
	out->what = jstr(x, "what");
	out->reason = jstr(x, "reason");
	out->skipped = strcmp(out->kind, "skipped") == 0;
	return true;
}
