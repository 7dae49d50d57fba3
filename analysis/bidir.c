/* SPDX-License-Identifier: BSD-3-Clause */
/* "Bidirectional", defined once (include/nodebw/bidir.h). */
#include "nodebw/bidir.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"

bool nbw_bidir_figures(const struct nbw_rv_meas *x, struct nbw_bidir *out)
{
	out->sum_gbps = out->dir_gbps[0] = out->dir_gbps[1] = NAN;
	out->src[0] = out->src[1] = out->dst[0] = out->dst[1] = -1;
	if (strcmp(x->concurrency, "bidir") != 0 || x->nstreams != 2)
		return false;
	out->sum_gbps = x->gbps;
	for (int i = 0; i < 2; i++) {
		out->src[i] = x->streams[i].src;
		out->dst[i] = x->streams[i].dst;
		out->dir_gbps[i] = x->streams[i].gbps;
	}
	return true;
}

double nbw_bidir_slower(const struct nbw_bidir *b)
{
	if (!isfinite(b->dir_gbps[0]) || !isfinite(b->dir_gbps[1]))
		return NAN;
	return b->dir_gbps[0] < b->dir_gbps[1] ? b->dir_gbps[0] : b->dir_gbps[1];
}

void nbw_bidir_json(json_t *o, const struct nbw_rv_meas *x)
{
	struct nbw_bidir b;
	if (!nbw_bidir_figures(x, &b))
		return;
	json_t *dirs = json_array();
	for (int i = 0; i < 2; i++)
		json_array_append_new(dirs, json_pack("{s:i, s:i, s:o}", "src", b.src[i], "dst",
						      b.dst[i], "gbps",
						      nbw_an_num(b.dir_gbps[i], true)));
	json_object_set_new(o, "bidir", json_pack("{s:s, s:o, s:o}", "definition",
						  NBW_BIDIR_DEFINITION, "sum_gbps",
						  nbw_an_num(b.sum_gbps, true), "directions",
						  dirs));
}

static void figure(char *buf, size_t len, json_t *v)
{
	if (json_is_number(v))
		snprintf(buf, len, "%.2f", json_number_value(v));
	else
		snprintf(buf, len, "-");
}

void nbw_bidir_words(json_t *bidir, char *buf, size_t len)
{
	json_t *d = json_object_get(bidir, "directions");
	buf[0] = '\0';
	if (!json_is_object(bidir) || json_array_size(d) != 2)
		return;
	char s[32], a[32], b[32];
	figure(s, sizeof(s), json_object_get(bidir, "sum_gbps"));
	json_t *d0 = json_array_get(d, 0), *d1 = json_array_get(d, 1);
	figure(a, sizeof(a), json_object_get(d0, "gbps"));
	figure(b, sizeof(b), json_object_get(d1, "gbps"));
	snprintf(buf, len, "sum %s GB/s; %lld->%lld %s, %lld->%lld %s GB/s", s,
		 (long long)json_integer_value(json_object_get(d0, "src")),
		 (long long)json_integer_value(json_object_get(d0, "dst")), a,
		 (long long)json_integer_value(json_object_get(d1, "src")),
		 (long long)json_integer_value(json_object_get(d1, "dst")), b);
}
