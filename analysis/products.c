/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every derived product of a results document in one call (include/nodebw/products.h): the
 * one place a run's matrices, tables, aggregates, outliers, latency, gaps, kernel-vs-copy
 * comparison and headlines are computed, each from the document's own measurements, all at
 * the one comparison size derived here.
 */
#include <stdlib.h>
#include <string.h>

#include "nodebw/analysis.h"
#include "nodebw/gap.h"
#include "nodebw/kernel_cmp.h"
#include "nodebw/products.h"
#include "nodebw/results_view.h"

static json_t *gaps_of(json_t *devices, json_t *measurements)
{
	/* The gap table pairs each OpenMP device with the native device of the same
	 * hardware: matched on a copy, the document stays as it was read. */
	json_t *devs = json_deep_copy(devices ? devices : json_array());
	if (!devs)
		return NULL;
	nbw_gap_match_devices(devs);
	json_t *g = nbw_gap_compute(devs, measurements);
	json_decref(devs);
	return g;
}

int nbw_products_derive(json_t *root, struct nbw_products *out)
{
	struct nbw_rv_doc d;
	nbw_rv_doc_read(root, &d);
	return nbw_products_derive_at(root, nbw_analysis_comparison_bytes(d.devices,
									   d.measurements), out);
}

int nbw_products_derive_at(json_t *root, long long cmp, struct nbw_products *out)
{
	memset(out, 0, sizeof(*out));
	struct nbw_rv_doc d;
	nbw_rv_doc_read(root, &d);
	json_t *devs = d.devices, *ms = d.measurements;
	out->comparison_bytes = cmp;
	out->matrices = nbw_analysis_matrices_at(devs, ms, cmp);
	out->device_tables = nbw_analysis_device_tables_at(devs, ms, cmp);
	out->all_at_once = nbw_analysis_concurrent_at(devs, ms, cmp);
	out->outliers = nbw_analysis_outliers_at(devs, ms, cmp, &out->outlier_groups);
	out->latency = nbw_analysis_latency(devs, ms);
	out->gaps = gaps_of(devs, ms);
	out->kernel_vs_copy = nbw_kernel_compare(devs, ms);
	if (!out->matrices || !out->device_tables || !out->all_at_once || !out->outliers ||
	    !out->outlier_groups || !out->latency || !out->gaps || !out->kernel_vs_copy) {
		nbw_products_release(out);
		return -1;
	}
	out->nheadlines = nbw_headlines(devs, out->device_tables, out->matrices,
					out->all_at_once, out->headlines,
					NBW_PRODUCTS_MAX_HEADLINES);
	return 0;
}

struct nbw_products *nbw_products_new(json_t *root)
{
	struct nbw_products *p = malloc(sizeof(*p));
	if (p && nbw_products_derive(root, p) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

void nbw_products_release(struct nbw_products *p)
{
	if (!p)
		return;
	json_decref(p->matrices);
	json_decref(p->device_tables);
	json_decref(p->all_at_once);
	json_decref(p->outliers);
	json_decref(p->outlier_groups);
	json_decref(p->latency);
	json_decref(p->kernel_vs_copy);
	json_decref(p->gaps);
	memset(p, 0, sizeof(*p));
}

void nbw_products_free(struct nbw_products *p)
{
	nbw_products_release(p);
	free(p);
}
