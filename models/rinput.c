/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Results files merged for the models and the report: each file's devices, measurements
 * and solver runs in one array each (every element tagged with "file": its file's index),
 * and the transfer curves of all of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/curves.h"
#include "nodebw/model.h"
#include "nodebw/products.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"

/* Append shallow copies of \p from's elements, each with "file": \p file, to \p to. */
static int merge_array(json_t *to, json_t *from, int file)
{
	size_t i;
	json_t *e;
	json_array_foreach(from, i, e) {
		json_t *c = json_is_object(e) ? json_copy(e) : NULL;
		if (!c || json_object_set_new(c, "file", json_integer(file)) ||
		    json_array_append_new(to, c))
			return -1;
	}
	return 0;
}

int nbw_rinput_load(struct nbw_rinput *in, const char *const *paths, size_t n, char *err,
		    size_t errlen)
{
	memset(in, 0, sizeof(*in));
	if (n == 0) {
		snprintf(err, errlen, "no results file given");
		return -1;
	}
	in->paths = calloc(n, sizeof(*in->paths));
	in->docs = calloc(n, sizeof(*in->docs));
	in->products = calloc(n, sizeof(*in->products)); /* derived when asked, once per file */
	in->devices = json_array();
	in->measurements = json_array();
	in->solver_runs = json_array();
	if (!in->paths || !in->docs || !in->products || !in->devices || !in->measurements || !in->solver_runs)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		in->paths[i] = strdup(paths[i]);
		if (!in->paths[i])
			goto oom;
		in->nfiles = i + 1;
		struct nbw_doc *d = nbw_doc_load(paths[i], err, errlen);
		if (!d)
			goto fail;
		in->docs[i] = json_incref(d->root);
		nbw_doc_free(d);
		struct nbw_rv_doc doc;
		nbw_rv_doc_read(in->docs[i], &doc);
		json_t *ms = doc.measurements, *runs = doc.solver_runs;
		if (doc.solver_runs_malformed) {
			snprintf(err, errlen, "%s: 'solver_runs' must be an array", paths[i]);
			goto fail;
		}
		if (json_array_size(ms) == 0 && json_array_size(runs) == 0) {
			snprintf(err, errlen, "%s: neither measurements nor solver runs: nothing to "
					      "report", paths[i]);
			goto fail;
		}
		if (merge_array(in->devices, doc.devices, (int)i) ||
		    merge_array(in->measurements, ms, (int)i) ||
		    (runs && merge_array(in->solver_runs, runs, (int)i)) ||
		    nbw_curves_add(&in->curves, ms, (int)i))
			goto oom;
	}
	if (nbw_rinput_calibrate(in))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	nbw_rinput_free(in);
	return -1;
}

void nbw_rinput_uncalibrate(struct nbw_rinput *in)
{
	if (in->calib)
		nbw_calib_free(in->calib);
	free(in->calib);
	in->calib = NULL;
	in->calib_err[0] = '\0';
}

int nbw_rinput_calibrate(struct nbw_rinput *in)
{
	nbw_rinput_uncalibrate(in);
	in->calib = calloc(1, sizeof(*in->calib));
	if (!in->calib)
		return -1;
	if (nbw_calib_from_results(in, in->calib, in->calib_err, sizeof(in->calib_err))) {
		free(in->calib); /* nbw_calib_from_results frees what it built */
		in->calib = NULL;
		if (!in->calib_err[0])
			snprintf(in->calib_err, sizeof(in->calib_err), "no calibration");
		return strstr(in->calib_err, "out of memory") ? -1 : 0;
	}
	return 0;
}

void nbw_rinput_free(struct nbw_rinput *in)
{
	nbw_rinput_uncalibrate(in);
	for (size_t i = 0; i < in->nfiles; i++) {
		free((char *)in->paths[i]);
		if (in->docs)
			json_decref(in->docs[i]);
		if (in->products)
			nbw_products_free(in->products[i]);
	}
	free(in->products);
	free(in->paths);
	free(in->docs);
	json_decref(in->devices);
	json_decref(in->measurements);
	json_decref(in->solver_runs);
	nbw_curves_free(&in->curves);
	memset(in, 0, sizeof(*in));
}

const struct nbw_products *nbw_rinput_products(const struct nbw_rinput *in, size_t f)
{
	if (f >= in->nfiles || !in->products)
		return NULL;
	if (!in->products[f])
		in->products[f] = nbw_products_new(in->docs[f]);
	return in->products[f];
}
