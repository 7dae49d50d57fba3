/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole report of merged results files: a main page that asks one question per section
 * (the verdict and summary, the bandwidth of every device and pair, OpenMP against the native
 * API, the topology, the models), each answered by a picture and a short table and linked to
 * a page with its detail (the whole node, every transfer, the models, the run), and
 * summary.json beside report.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodebw/advice.h"
#include "nodebw/products.h"
#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"
#include "nodebw/rundir.h"
#include "rdoc_priv.h"

/* summary.json beside report.md: the summary for scripts and monitoring. */
static int write_summary(const char *dir, json_t *sum, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	char *text = json_dumps(sum, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = nbw_write_atomic(path, text, strlen(text), err, errlen);
	free(text);
	return rc;
}

/* Place again, side by side, the heat maps and per-device bars the node page drew for file
 * \p f: per API its first device-to-device map (GB/s) and its HtoD and DtoH bars. */
static size_t bandwidth_figures(struct nbw_rdoc *r, const struct nbw_rinput *in, size_t f)
{
	static const char *const apis[] = { "omp", "cuda", "hip", "ze", "host" };
	char tag[32] = "", prefix[96];
	if (in->nfiles > 1)
		snprintf(tag, sizeof(tag), "f%zu-", f);
	size_t placed = 0;
	nbw_rdoc_grid_begin(r);
	for (size_t a = 0; a < sizeof(apis) / sizeof(*apis); a++) {
		snprintf(prefix, sizeof(prefix), "%sp2p-%s-", tag, apis[a]);
		const char *stem = nbw_rdoc_find_figure(r, prefix, "-gbps");
		placed += stem && nbw_rdoc_figure_again(r, stem);
		static const char *const dirs[] = { "htod", "dtoh" };
		for (size_t d = 0; d < 2; d++) {
			snprintf(prefix, sizeof(prefix), "%sdevices-%s-%s", tag, apis[a], dirs[d]);
			placed += nbw_rdoc_figure_again(r, prefix);
		}
	}
	nbw_rdoc_grid_end(r);
	return placed;
}

/* Which model to trust, per version at the largest validated device count: the model
 * `nodebw predict` recommends for it (the lowest MAPE of this run's validation). */
static void trust_items(struct nbw_rdoc *r, json_t *sum)
{
	struct nbw_validation val;
	if (nbw_model_validation(sum, &val) != 0)
		return;
	int g = 0;
	for (size_t i = 0; i < val.n; i++)
		g = val.e[i].g > g ? val.e[i].g : g;
	bool can[NBW_MODEL_COUNT];
	for (int m = 0; m < NBW_MODEL_COUNT; m++)
		can[m] = true;
	for (size_t i = 0; i < val.n; i++) {
		const struct nbw_valid_entry *e = &val.e[i];
		struct nbw_advice adv;
		if (e->g != g || nbw_recommend(&val, "this run", g, e->version, can, &adv) ||
		    !adv.validated)
			continue;
		nbw_rdoc_item(r, "To predict %s on %d devices, trust the %s model: MAPE %.1f %% "
				 "against this run's measured runtimes (%s, N = %d to %d).",
			      e->version, g, nbw_model_name(adv.model), 100.0 * adv.mape,
			      e->measure, e->nn ? e->n[0] : 0, e->nn ? e->n[e->nn - 1] : 0);
	}
	nbw_validation_free(&val);
}

/* The main page: one question per section, each answered by a picture and a short table,
 * each linking to the page with its detail. */
static void main_page(struct nbw_rdoc *r, const struct nbw_rinput *in, json_t *sum)
{
	nbw_rdoc_heading(r, 2, "Summary");
	nbw_report_verdict(r, in);
	nbw_report_summary_section(r, sum);
	nbw_rdoc_link_page(r, "node", "Every path, one row each,",
			   "with its best size, its theoretical figure and its latency.");
	nbw_report_run_compare(r, in); /* two results files: B against A */

	char size[32] = "", head[96];
	const struct nbw_products *p0 = nbw_rinput_products(in, 0);
	if (p0 && p0->comparison_bytes > 0)
		nbw_human_bytes((double)p0->comparison_bytes, size, sizeof(size));
	snprintf(head, sizeof(head), "Bandwidth of every device and pair%s%s",
		 size[0] ? " at " : "", size);
	nbw_rdoc_heading(r, 2, head);
	size_t placed = 0;
	for (size_t f = 0; f < in->nfiles; f++) {
		if (in->nfiles > 1) {
			char h[4200];
			snprintf(h, sizeof(h), "File %zu: %s", f, in->paths[f]);
			nbw_rdoc_heading(r, 3, h);
		}
		placed += bandwidth_figures(r, in, f);
	}
	if (!placed)
		nbw_rdoc_para(r, "No device-to-device map and no per-device bars: these results "
				 "hold no verified measurement of one device or pair at a time.");
	nbw_rdoc_link_page(r, "node", "The whole node in detail:",
			   "every matrix as a table, per-device tables, every device at once, "
			   "the outliers, latency and each verdict.");

	nbw_rdoc_heading(r, 2, "OpenMP against the native API");
	struct nbw_rs_gap g;
	if (nbw_rs_gap(sum, 0, &g))
		nbw_report_summary_gaps(r, sum);
	else
		nbw_rdoc_para(r, "No gap: these results hold no native API's measurement of the "
				 "same devices beside OpenMP's.");
	nbw_rdoc_figure_again(r, "bw-htod-sync");
	nbw_rdoc_link_page(r, "transfers", "Every transfer against its size,",
			   "per direction and mode, the alpha-beta fits and the gap per direction, "
			   "host memory and device count.");

	nbw_rdoc_heading(r, 2, "Topology");
	nbw_report_topology(r, in, 3, false);
	nbw_rdoc_link_page(r, "run", "The run:", "its files, machine and software, devices, "
			   "what failed or was skipped and why, where the topology came from and "
			   "every pair's link, units, disturbance and the machine's own speed.");

	nbw_rdoc_heading(r, 2, "Models");
	struct nbw_rs_speedup sp;
	if (nbw_rs_speedup(sum, 0, &sp))
		nbw_report_summary_models(r, sum);
	else if (nbw_rs_solver_why(sum) && nbw_rs_solver_why(sum)[0])
		nbw_rdoc_para(r, "No solver table here: %s.",
			      nbw_rs_solver_why(sum));
	else
		nbw_rdoc_para(r, "No solver runs: the models are neither calibrated nor validated "
				 "here ('nodebw run' runs the solver).");
	trust_items(r, sum);
	for (int gc = 64; gc >= 2; gc--) {
		char name[64];
		snprintf(name, sizeof(name), "fig6-speedup-model-g%d", gc);
		if (nbw_rdoc_figure_again(r, name))
			break;
	}
	nbw_rdoc_link_page(r, "models", "The models in detail:",
			   "the paper's model, the one-device, compute-calibrated and fitted "
			   "models with their calibrated terms, what the paper's model leaves out, "
			   "and every validated configuration with its plots.");
}

static int write_report(const struct nbw_rinput *in, json_t *summary, const char *dir,
			int *no_image, char *why, size_t whylen, char *err, size_t errlen)
{
	struct nbw_rv_doc doc;
	nbw_rv_doc_read(in->docs[0], &doc);
	char title[256];
	snprintf(title, sizeof(title), "nodebw report: %s%s",
		 *doc.hostname ? doc.hostname : "unknown host",
		 in->nfiles > 1 ? " and more" : "");
	struct nbw_rdoc *r = nbw_rdoc_new(dir, title, err, errlen);
	if (!r)
		return -1;
	json_t *sum = summary ? json_incref(summary) : nbw_report_summary(in);
	if (!sum) {
		snprintf(err, errlen, "out of memory");
		nbw_rdoc_free(r);
		return -1;
	}
	/* The detail pages first: the main page places again the figures they drew. */
	if (nbw_rdoc_page(r, "node", "The whole node in detail")) {
		nbw_rdoc_heading(r, 2, "Every path");
		nbw_report_summary_paths(r, sum, (const char *const *)in->paths, in->nfiles);
		nbw_report_whole_node(r, in);
	}
	if (nbw_rdoc_page(r, "transfers", "Every transfer in detail")) {
		nbw_report_transfers(r, in);
		nbw_report_faces(r, in);
	}
	if (nbw_rdoc_page(r, "models", "The models in detail")) {
		nbw_report_model(r, in);
		nbw_report_app_validation(r, in);
	}
	if (nbw_rdoc_page(r, "run", "The run: files, machine, devices, what was skipped"))
		nbw_report_overview(r, in);
	nbw_rdoc_page(r, NULL, NULL);
	main_page(r, in, sum);
	if (no_image)
		*no_image = nbw_rdoc_plot_failures(r, why, whylen);
	int rc = write_summary(dir, sum, err, errlen);
	json_decref(sum);
	if (rc == 0)
		rc = nbw_rdoc_write(r, err, errlen);
	nbw_rdoc_free(r);
	return rc;
}

int nbw_report_write(const struct nbw_rinput *in, json_t *summary, const char *dir,
		     int *no_image, char *why, size_t whylen, char *err, size_t errlen)
{
	/* Written beside, then put in place (report/stage.c): a report that fails midway (a
	 * full disk) or is interrupted leaves the earlier report, or none, never a partial
	 * folder. */
	char stage[4200];
	int st = nbw_report_stage_open(dir, stage, sizeof(stage), err, errlen);
	if (st < 0)
		return -1;
	if (st == 0)
		return write_report(in, summary, dir, no_image, why, whylen, err, errlen);
	int rc = write_report(in, summary, stage, no_image, why, whylen, err, errlen);
	return nbw_report_stage_close(stage, dir, rc, err, errlen);
}

int nbw_report_build(const struct nbw_rinput *in, json_t *summary, const char *dir, char *err,
		     size_t errlen)
{
	return nbw_report_write(in, summary, dir, NULL, NULL, 0, err, errlen);
}
