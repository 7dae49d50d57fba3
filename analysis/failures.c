/* SPDX-License-Identifier: BSD-3-Clause */
/* What a run did not measure: every measurement that ended with an error or without passing
 * verification, every solver run that failed verification or whose child failed, and every
 * skipped entry, each with its reason (include/nodebw/analysis.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "nodebw/analysis.h"
#include "nodebw/sizes.h"

/* "omp htod async pinned, dual, host->0+host->1, 1048576 B" */
static void label(const struct nbw_rv_meas *x, char *buf, size_t len)
{
	size_t w = (size_t)snprintf(buf, len, "%s %s %s %s, %s, ", x->api, x->direction, x->mode,
				    x->host_mem, x->concurrency);
	for (int i = 0; i < x->nstreams && w < len; i++) {
		const struct nbw_rv_stream *s = &x->streams[i];
		char a[24], b[24];
		snprintf(a, sizeof(a), s->src >= 0 ? "%d" : "host", s->src);
		snprintf(b, sizeof(b), s->dst >= 0 ? "%d" : "host", s->dst);
		w += (size_t)snprintf(buf + w, len - w, "%s%s->%s", i ? "+" : "", a, b);
	}
	char sz[32];
	if (w < len)
		snprintf(buf + w, len - w, "%s%s", w ? ", " : "",
			 nbw_size_label(x->bytes > 0 ? (uint64_t)x->bytes : 0, sz, sizeof(sz)));
}

static void add(json_t *out, const char *kind, const char *what, const char *reason)
{
	json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "kind", kind, "what", what,
					      "reason", reason && *reason ? reason : "no reason given"));
}

json_t *nbw_analysis_failures(json_t *root)
{
	json_t *out = json_array();
	size_t i;
	json_t *m;
	char what[400];
	struct nbw_rv_doc doc;
	nbw_rv_doc_read(root, &doc);
	json_array_foreach(doc.measurements, i, m) {
		struct nbw_rv_meas x;
		nbw_rv_meas_read(doc.devices, m, &x);
		if ((!x.error || !*x.error) && strcmp(x.verify_status, "passed") == 0)
			continue;
		label(&x, what, sizeof(what));
		if (x.error && *x.error)
			add(out, "error", what, x.error);
		else if (strcmp(x.verify_status, "failed") == 0)
			add(out, "verification failed", what, x.verify_detail);
		else
			add(out, "not verified", what, x.verify_detail);
	}
	json_array_foreach(doc.solver_runs, i, m) {
		struct nbw_rv_solver_run r;
		nbw_rv_solver_read(m, &r);
		if (strcmp(r.verify_status, "failed") != 0)
			continue;
		snprintf(what, sizeof(what), "solver %s, %dx%dx%d, G = %d", r.version, r.nx, r.ny,
			 r.nz, r.g);
		add(out, "verification failed", what, r.verify_detail);
	}
	json_array_foreach(doc.solver_children, i, m) {
		struct nbw_rv_child c;
		nbw_rv_child_read(m, &c);
		if (c.exit_status == 0)
			continue;
		char why[64];
		snprintf(what, sizeof(what), "solver round %d (%s)", c.round, c.purpose);
		snprintf(why, sizeof(why), "the child process ended with status %d", c.exit_status);
		add(out, "error", what, why);
	}
	json_array_foreach(doc.skipped, i, m) {
		struct nbw_rv_skip k;
		nbw_rv_skip_read(m, &k);
		snprintf(what, sizeof(what), "%s %s: %s", k.api, k.probe, k.what);
		add(out, "skipped", what, k.reason);
	}
	return out;
}

size_t nbw_analysis_failure_count(json_t *failures)
{
	size_t n = 0, i;
	json_t *f;
	json_array_foreach(failures, i, f)
		n += strcmp(jstr(f, "kind"), "skipped") != 0;
	return n;
}
