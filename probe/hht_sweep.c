/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hidden-helper sweep (the seed paper's Table 5): libomp reads
 * LIBOMP_NUM_HIDDEN_HELPER_THREADS once, when the runtime starts, so every setting needs a
 * fresh process. Each child is this same executable running "probe" on the async modes with
 * --hidden-helpers N into a private folder; the parent merges the child's measurements.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nodebw/backends.h"
#include "nodebw/config.h"
#include "nodebw/plan.h"
#include "nodebw/results_view.h"
#include "nodebw/runner.h"
#include "nodebw/session.h"

int nbw_merge_child(struct nbw_doc *doc, const char *dir, const char *field, json_t *tag,
		    const char *what, struct nbw_run_status *st)
{
	char path[4200], err[NBW_REASON_LEN];
	snprintf(path, sizeof(path), "%s/results.json", dir);
	struct nbw_doc *child = nbw_doc_load(path, err, sizeof(err));
	if (!child) {
		char why[NBW_REASON_LEN + 64];
		snprintf(why, sizeof(why), "child run gave no results: %s", err);
		nbw_doc_add_skip(doc, "omp", "*", what, why);
		st->skipped++;
		json_decref(tag);
		return -1;
	}
	size_t i;
	json_t *m;
	json_array_foreach(child->measurements, i, m) {
		json_t *c = json_deep_copy(m);
		json_object_set(c, field, tag);
		nbw_doc_add_measurement_json(doc, c);
		st->measurements++;
		struct nbw_rv_meas x;
		nbw_rv_meas_read(NULL, m, &x);
		if (x.error)
			st->errors++;
		else if (!nbw_rv_meas_verified(&x))
			st->verify_failed++;
	}
	/* The child's own skips (too few devices, no P2P nowait) repeat the main run's. */
	nbw_doc_free(child);
	json_decref(tag);
	return 0;
}

/* The settings of the sweep. */
struct hht_setting {
	int hh;
	int threads;    /* 0 = as selected, 1 or 2 = only that */
	const char *label;
};

static const struct hht_setting plan[] = {
	{ 0, 0, "hht-0" },
	{ 1, 1, "hht-per-device" },
	{ 2, 2, "hht-per-device" },
	{ 8, 0, "hht-8" },
};

/* The options of the child that measures setting \p k. */
static void child_opts(const struct nbw_probe_opts *o, const struct hht_setting *k,
		       int omp_devices, struct nbw_probe_opts *c)
{
	*c = *o;
	c->napis = 1;
	snprintf(c->apis[0], sizeof(c->apis[0]), "omp");
	c->modes[NBW_MODE_SYNC] = false;
	c->modes[NBW_MODE_PARALLEL] = false;               /* not an OpenMP mode */
	c->hostmem[NBW_HOSTMEM_REGISTERED] = false;        /* OpenMP cannot register */
	c->hidden_helpers = k->hh;
	/* The solver stages its halos in pinned memory and the models read pinned
	 * curves; the helper count shows in latency and overhead, not at 1 GiB. */
	if (o->hostmem[NBW_HOSTMEM_PINNED] && !o->sizes_given) {
		c->hostmem[NBW_HOSTMEM_PAGEABLE] = false;
		size_t lo, hi;
		nbw_plan_matrix_sizes(&c->sizes, &lo, &hi);
		c->sizes.n = hi + 1;
	}
	c->hht_sweep = false;
	c->quiet = true;
	/* The models take one and two streams; all-at-once is not part of the sweep. */
	c->threads[NBW_THREADS_ALL] = false;
	if (k->threads) {
		c->threads[0] = k->threads == 1;
		c->threads[1] = k->threads == 2;
	}
	/* The sweep gives the curves the models take (device 0 and the pair 0-1), not the
	 * whole-node matrices: unless the user named devices, only those two, each with
	 * the whole sweep. */
	if (c->ndevices == 0) {
		c->ndevices = omp_devices >= 2 ? 2 : 1;
		c->devices[0] = 0;
		c->devices[1] = 1;
	}
}

static void skip_measured(struct nbw_doc *doc, int hh, struct nbw_run_status *st)
{
	char what[64], why[NBW_REASON_LEN];
	snprintf(what, sizeof(what), "hidden-helper sweep with %d", hh);
	snprintf(why, sizeof(why),
		 "the main series ran with LIBOMP_NUM_HIDDEN_HELPER_THREADS=%d (their "
		 "hidden_helpers field says so): not measured twice",
		 hh);
	nbw_doc_add_skip(doc, "omp", "*", what, why);
	st->skipped++;
}

/* Whether setting \p k is one the sweep measures under \p o (its thread count selected; the
 * quick profile: 0 helpers only). */
static bool setting_runs(const struct nbw_probe_opts *o, const struct hht_setting *k)
{
	if (k->threads && !o->threads[k->threads - 1])
		return false;
	return !(o->profile == NBW_PROFILE_QUICK && k->hh != 0);
}

/* The main series ran with this count already. */
static bool already_measured(const struct hht_setting *k)
{
	return k->hh == nbw_effective_hidden_helpers() && k->threads == 0;
}

size_t nbw_hht_sweep_count(const struct nbw_probe_opts *o, int omp_devices)
{
	if ((!o->modes[NBW_MODE_ASYNC] && !o->modes[NBW_MODE_NOWAIT]) || omp_devices < 1 ||
	    !nbw_backend_find("omp"))
		return 0;
	size_t n = 0;
	for (size_t k = 0; k < sizeof(plan) / sizeof(plan[0]); k++) {
		if (!setting_runs(o, &plan[k]) || already_measured(&plan[k]))
			continue;
		struct nbw_probe_opts c;
		child_opts(o, &plan[k], omp_devices, &c);
		n += nbw_probe_child_count(&c);
	}
	return n;
}

static void announce(FILE *progress, const struct hht_setting *k)
{
	if (progress) {
		fprintf(progress, "\nhidden-helper sweep: LIBOMP_NUM_HIDDEN_HELPER_THREADS=%d (%s), async "
		       "modes, %s\n",
		       k->hh, k->label,
		       k->threads == 1   ? "one device"
		       : k->threads == 2 ? "two devices at once"
					      : "all thread counts");
		fflush(progress);
	}
}

int nbw_hht_sweep(const struct nbw_probe_opts *o, struct nbw_doc *doc, const char *outdir,
		  FILE *progress, struct nbw_run_status *st, char *err, size_t errlen)
{
	if (!o->modes[NBW_MODE_ASYNC] && !o->modes[NBW_MODE_NOWAIT]) {
		nbw_doc_add_skip(doc, "omp", "*", "hidden-helper sweep",
				 "no async mode selected (the sweep measures async and nowait)");
		st->skipped++;
		return 0;
	}
	bool omp = o->napis == 0;
	for (int i = 0; i < o->napis; i++)
		omp |= strcmp(o->apis[i], "omp") == 0;
	if (!omp)
		return 0;
	if (!nbw_backend_find("omp")) {
		nbw_doc_add_skip(doc, "omp", "*", "hidden-helper sweep",
				 NBW_HAVE_OMP ? "no OpenMP backend" : NBW_NO_OFFLOAD_REASON);
		st->skipped++;
		return 0;
	}
	json_t *done = json_array();
	nbw_doc_set(doc, "hht_sweep", done); /* filled as children finish, for checkpoints */
	/* The quick profile measures the 0 setting only (the one 'nodebw run' gives the
	 * solver on host-plugin devices); the main series already ran with the runtime's own
	 * count. */
	if (o->profile == NBW_PROFILE_QUICK)
		nbw_doc_set(doc, "hht_sweep_note",
			    json_string("quick profile: the sweep re-ran the async modes with 0 "
					"hidden helpers only; the main series ran with the runtime's "
					"count; --full (or --default) adds one per device and 8"));
	for (size_t k = 0; k < sizeof(plan) / sizeof(plan[0]) && !nbw_stop_requested; k++) {
		if (!setting_runs(o, &plan[k]))
			continue;
		/* The main series ran with 8 helpers already (libomp's default): no second run. */
		if (already_measured(&plan[k])) {
			skip_measured(doc, plan[k].hh, st);
			continue;
		}
		struct nbw_probe_opts c;
		child_opts(o, &plan[k], nbw_doc_api_devices(doc, "omp"), &c);
		snprintf(c.output, sizeof(c.output), "%s/.hht-%d-XXXXXX", outdir, plan[k].hh);
		if (!mkdtemp(c.output)) {
			snprintf(err, errlen, "cannot create a folder in %s: %s", outdir,
				 strerror(errno));
			return -1;
		}
		announce(progress, &plan[k]);
		char **argv = nbw_cli_probe_argv(&c, "nodebw");
		int rc = nbw_run_child(argv);
		nbw_cli_argv_free(argv);
		char child_results[sizeof(c.output) + 16];
		snprintf(child_results, sizeof(child_results), "%s/results.json", c.output);
		/* After Ctrl-C the child keeps what it measured; merge that if it got so far. */
		if (!nbw_stop_requested || access(child_results, F_OK) == 0)
			nbw_merge_child(doc, c.output, "hht_sweep", json_string(plan[k].label),
					"hidden-helper sweep", st);
		nbw_remove_results_dir(c.output);
		if (nbw_stop_requested) {
			st->interrupted = 1;
			nbw_doc_set(doc, "interrupted", json_true());
		} else if (rc != 0) {
			char why[NBW_REASON_LEN];
			snprintf(why, sizeof(why), "child with %d hidden helpers exited with status %d",
				 plan[k].hh, rc);
			nbw_doc_add_skip(doc, "omp", "*", "hidden-helper sweep", why);
			st->skipped++;
		}
		json_array_append_new(done, json_pack("{s:i, s:s, s:i}", "hidden_helpers",
						      plan[k].hh, "label", plan[k].label,
						      "child_exit_status", rc));
		if (nbw_doc_write(doc, outdir, err, errlen))
			return -1;
	}
	return nbw_doc_write(doc, outdir, err, errlen);
}
