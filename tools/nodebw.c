/* SPDX-License-Identifier: BSD-3-Clause */
/* The nodebw command: subcommands list, probe, run, gap, matrix, topo, predict, report, heat,
 * fleet, compare. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd-args.h"
#include "summary.h"
#include "nodebw/backends.h"
#include "nodebw/cli.h"
#include "nodebw/config.h"
#include "nodebw/gap.h"
#include "nodebw/products.h"
#include "nodebw/kernel_cmp.h"
#include "nodebw/heat.h"
#include "nodebw/model.h"
#include "nodebw/plugin_images.h"
#include "nodebw/readfile.h"
#include "nodebw/report.h"
#include "nodebw/results.h"
#include "nodebw/ompenv.h"
#include "nodebw/plan.h"
#include "nodebw/results_view.h"
#include "nodebw/rundir.h"
#include "nodebw/runner.h"
#include "nodebw/session.h"
#include "nodebw/sink.h"
#include "nodebw/topology.h"
#include "nodebw/version.h"
#include "revision.h"
#include "cmd-compare.h"
#include "cmd-check.h"
#include "cmd-matrix.h"
#include "cmd-predict.h"
#include "cmd-report.h"
#include "cmd-topo.h"
#include "cmd-summary.h"
#include "run.h"
#include "run_stages.h"
#include "runterm.h"
#include "fleet.h"
#include "nodebw/fleet.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw [--help] [--version] COMMAND [OPTIONS]\n"
		"       nodebw help COMMAND\n"
		"\n"
		"Characterise the data paths of a GPU node: host-to-device, device-to-host and\n"
		"device-to-device bandwidth and latency through OpenMP offload (LLVM libomptarget)\n"
		"and the native APIs (CUDA, HIP, Level Zero, and a host-memory reference).\n"
		"\n"
		"Options:\n"
		"  -h, --help     this text (nodebw help COMMAND: a command's)\n"
		"  -V, --version  version, git revision, offload targets and build\n"
		"\n"
		"Commands:\n"
		"  list     every device of every built API (with its kind) and the probe catalogue\n"
		"  probe    run transfer probes over a size sweep (see 'nodebw probe --help')\n"
		"  run      the main job: every probe of every available API and the hidden-helper\n"
		"           sweep, into one results folder (see 'nodebw run --help')\n"
		"  gap      the OpenMP-vs-native gap table of a results file\n"
		"  matrix   the whole-node view of a results file: P2P bandwidth/latency matrices,\n"
		"           each device's HtoD/DtoH, outliers (see 'nodebw matrix --help')\n"
		"  check    accept a node: a verdict for every path against site thresholds,\n"
		"           published figures and the links' theoretical figures; exit 1 when a\n"
		"           path fails (see 'nodebw check --help')\n"
		"  summary  the summary probe or run printed at its end, again from a results\n"
		"           file (see 'nodebw summary --help')\n"
		"  topo     the node's topology: NUMA, host links (PCIe), the device-to-device\n"
		"           matrix with theoretical bandwidth (see 'nodebw topo --help')\n"
		"  predict  heat-solver runtimes from a calibration, with the paper's model and\n"
		"           the extended one (see 'nodebw predict --help')\n"
		"  report   a report folder from results files: Markdown and HTML, CSV tables,\n"
		"           plots as PNG and SVG with their gnuplot scripts (see\n"
		"           'nodebw report --help')\n"
		"  heat     the bundled 3D heat solver: serial reference, 1-device baseline and\n"
		"           Versions 1-4 on G devices, verified (see 'nodebw heat --help')\n"
		"  fleet    the node characterisation on every node of an allocation at once,\n"
		"           under srun or mpirun, gathered and compared (see 'nodebw fleet --help')\n"
		"  compare  two runs (A B): this run against the last one, path by path, worse\n"
		"           or better beyond noise; or the nodes of a fleet folder side by side\n"
		"           (see 'nodebw compare --help')\n"
		"\n"
		"Exit status: 0 everything asked for was measured and verified; 1 an error that\n"
		"stopped the command; 2 bad input; 3 the command ran to its end but some\n"
		"measurements or solver runs failed or were not verified; 128 + N stopped by\n"
		"signal N.\n"
		"\n"
		"Bandwidth is reported in GB/s = 1e9 bytes per second. Without a GPU, LLVM's host\n"
		"plugin provides virtual devices whose memory is host memory: nodebw labels them\n"
		"'host-plugin', never as GPUs.\n"
		"\n"
		"Examples:\n"
		"  nodebw list\n"
		"  nodebw probe --api omp --quick\n"
		"  nodebw run --output results/node42\n"
		"  nodebw topo\n"
		"  nodebw matrix results/node42/results.json\n"
		"  nodebw report results/node42/results.json\n");
}

/* `nodebw list [--json]`: every device of every built API, and the probe catalogue. */
static int cmd_list(int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("Usage: nodebw list [--json]\n\nPrint every device of every built API "
			       "with its kind and name, and the probe catalogue.\n\n"
			       "  --json     the same as one JSON object on stdout\n"
			       "  -h, --help this text\n");
			return 0;
		}
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
			continue;
		}
		fprintf(stderr, "nodebw: error: unknown argument '%s' to 'list' (see 'nodebw list "
				"--help')\n", argv[i]);
		return NBW_EXIT_USAGE;
	}
	/* What was found, in C; JSON only for --json. */
	struct listed {
		const char *api;
		struct nbw_device dev;
	} devs[256];
	struct {
		const char *api;
		char why[NBW_REASON_LEN];
	} skips[32];
	size_t ndevs = 0, nskips = 0, n;
#if !NBW_HAVE_OMP
	skips[nskips].api = "omp";
	snprintf(skips[nskips++].why, sizeof(skips[0].why), "%s", NBW_NO_OFFLOAD_REASON);
#endif
	const struct nbw_backend_ops *const *all = nbw_backends(&n);
	for (size_t i = 0; i < n; i++) {
		struct nbw_backend *be = NULL;
		char why[NBW_REASON_LEN] = "";
		if (all[i]->open(&be, NULL, why, sizeof(why))) {
			if (nskips < sizeof(skips) / sizeof(skips[0])) {
				skips[nskips].api = all[i]->name;
				snprintf(skips[nskips++].why, sizeof(skips[0].why), "%s", why);
			}
			continue;
		}
		int nd = all[i]->device_count(be);
		for (int d = 0; d < nd && ndevs < sizeof(devs) / sizeof(devs[0]); d++)
			if (all[i]->device_info(be, d, &devs[ndevs].dev) == 0)
				devs[ndevs++].api = all[i]->name;
		all[i]->close(be);
	}
	struct nbw_probe_info cat[64];
	size_t nc = nbw_probe_catalogue(cat, 64);
	if (json) {
		json_t *jd = json_array(), *js = json_array(), *jp = json_array();
		for (size_t i = 0; i < ndevs; i++) {
			const struct nbw_device *d = &devs[i].dev;
			json_array_append_new(jd, json_pack(
				"{s:s, s:i, s:i, s:s, s:s, s:s, s:s}", "api", devs[i].api, "id", d->id,
				"runtime_id", d->runtime_id, "kind", d->kind, "name", d->name,
				"memory", d->memory, "pci_bus_id", d->pci_bus_id));
		}
		for (size_t i = 0; i < nskips; i++)
			json_array_append_new(js, json_pack("{s:s, s:s}", "api", skips[i].api,
							    "reason", skips[i].why));
		for (size_t i = 0; i < nc; i++)
			json_array_append_new(jp, json_pack("{s:s, s:s}", "name", cat[i].name,
							    "description", cat[i].description));
		json_t *out = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "version", NBW_VERSION,
					"revision", NBW_REVISION, "offload_targets",
					NBW_OFFLOAD_TARGETS, "devices", jd, "skipped", js, "probes",
					jp);
		if (!out) {
			fprintf(stderr, "nodebw: error: out of memory\n");
			return 1;
		}
		json_dumpf(out, stdout, JSON_INDENT(1));
		printf("\n");
		json_decref(out);
		return 0;
	}
	printf("nodebw %s; offload targets: %s\n", NBW_VERSION, NBW_OFFLOAD_TARGETS);
	printf("\nDevices:\n");
	for (size_t i = 0; i < nskips; i++)
		printf("  %-6s skipped: %s\n", skips[i].api, skips[i].why);
	if (n == 0)
		printf("  no backend was built\n");
	for (size_t i = 0; i < ndevs; i++) {
		const struct nbw_device *d = &devs[i].dev;
		char rt[48] = "";
		if (d->runtime_id != d->id)
			snprintf(rt, sizeof(rt), " (the runtime's device %d)", d->runtime_id);
		printf("  %-6s %2d  %-12s %s; memory: %s%s%s%s\n", devs[i].api, d->id, d->kind,
		       d->name, d->memory, d->pci_bus_id[0] ? "; PCI " : "", d->pci_bus_id, rt);
	}
	printf("\nProbes:\n");
	for (size_t i = 0; i < nc; i++)
		printf("  %-10s %s\n", cat[i].name, cat[i].description);
	return 0;
}

/* libomp reads the hidden-helper count once, at start-up: restart with it set. */
static void reexec_for_hidden_helpers(const struct nbw_probe_opts *o, char **argv)
{
	nbw_reexec_hidden_helpers(o->hidden_helpers, argv);
}

/* --json: the results document as written (the file is the one truth), on stdout. */
static int print_results_file(const char *dir, char *err, size_t errlen)
{
	char *path = NULL, *text = NULL;
	size_t len = 0;
	if (asprintf(&path, "%s/results.json", dir) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = nbw_readfile(path, 0, &text, &len, err, errlen);
	free(path);
	if (rc)
		return -1;
	rc = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "writing the results document to stdout failed");
	free(text);
	return rc;
}

/* The options of probe or run into \p o and \p ro: 0 to go on, else the exit status
 * (--help: 0 through \p done). */
static int probe_options(int argc, char **argv, bool is_run, bool for_check,
			 struct nbw_probe_opts *o, struct nbw_run_opts *ro,
			 struct nbw_check_opts *co, bool *done)
{
	char err[NBW_REASON_LEN * 2];
	*done = false;
	memset(ro, 0, sizeof(*ro));
	/* A copy of the arguments for the probe parser (run's own options taken out); kept in
	 * a static so that every return path leaves it reachable. */
	static char **pargv;
	pargv = calloc((size_t)argc + 1, sizeof(char *));
	if (!pargv) {
		*done = true;
		return 1;
	}
	memcpy(pargv, argv, (size_t)argc * sizeof(char *));
	if ((is_run && nbw_run_extract_opts(&argc, pargv, ro, err, sizeof(err))) ||
	    nbw_check_extract(&argc, pargv, true, co, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		*done = true;
		return NBW_EXIT_USAGE;
	}
	/* nodebw check measuring (no results file named): its errors point to its own help. */
	if (for_check)
		pargv[0] = "check";
	int rc = nbw_cli_parse_probe(argc, pargv, o, err, sizeof(err));
	if (rc == 1)
		nbw_cli_usage_probe(stdout, pargv[0]);
	else if (rc)
		fprintf(stderr, "nodebw: error: %s\n", err);
	if (rc) {
		nbw_cli_opts_free(o);
		*done = true;
		return rc == 1 ? 0 : NBW_EXIT_USAGE;
	}
	/* probe has none of run's stages; its own options stay off. */
	if (!is_run)
		ro->quiet = o->quiet;
	return 0;
}

/* The document, the probes' context and the terminal sink of \p c; 0 or -1. */
static int stages_open(struct nbw_stage_ctx *c, int full_argc, char **full_argv,
		       struct nbw_sink **status)
{
	c->doc = nbw_doc_new(full_argc, full_argv);
	/* The git revision of this build, beside the version: what nodebw compare names. */
	if (c->doc)
		nbw_doc_set_revision(c->doc, NBW_REVISION);
	c->pctx = nbw_probe_ctx_new();
	/* Progress goes with the tables on a terminal, to stderr when stdout is a file. */
	struct nbw_runterm *rt = c->is_run ? c->ro->term : NULL;
	struct nbw_term_opts to = { .no_offload = !NBW_HAVE_OMP, .verbose = c->o->verbose,
				    .progress = isatty(STDOUT_FILENO) ? NULL : stderr,
				    .t0 = c->t0,
				    .label = c->is_run ? "nodebw run" : "nodebw probe" };
	/* A run: one line per series into run.log (and on the terminal when shown), the
	 * time so far at its start; the status line has the progress. */
	if (rt) {
		to.verbose = false;
		to.progress = rt->live || c->o->quiet ? NULL : stderr;
	}
	/* The comparison size the plan gives (include/nodebw/analysis.h): its matrix cells'
	 * large size; with devices named every set sweeps, and the largest size not above
	 * the cells' cap is the one every set has. */
	size_t lo, hi;
	nbw_plan_matrix_sizes_upto(&c->o->sizes, c->o->ndevices ? NBW_MATRIX_MAX_BYTES
								  : nbw_plan_matrix_max_bytes(c->o),
				   &lo, &hi);
	to.cmp_bytes = c->o->sizes.n ? c->o->sizes.v[hi].bytes : 0;
	if (rt)
		c->term = nbw_sink_terminal(rt->detail, &to);
	else
		c->term = c->o->quiet ? NULL : nbw_sink_terminal(stdout, &to);
	if (!c->doc || !c->pctx || ((rt || !c->o->quiet) && !c->term))
		return -1;
	if (c->term)
		nbw_probe_ctx_add_sink(c->pctx, c->term);
	if (rt) {
		*status = nbw_runterm_sink(rt);
		if (!*status)
			return -1;
		nbw_probe_ctx_add_sink(c->pctx, *status);
	}
	return 0;
}

/* The exit status of the walk: the probes' (bad input, a failure), else with a run's later
 * stages and a signal. */
static int stages_exit(const struct nbw_stage_ctx *c)
{
	int rc = c->probe_rc;
	if (c->is_run && c->measured)
		rc = nbw_stop_requested	       ? nbw_stop_status()
		     : rc == 1 || c->after_rc == 1 ? 1
		     : rc			       ? rc
						       : c->after_rc;
	return rc;
}

/* The criteria of the verdicts: --check's (bad input: NULL with *rc = 2), else for a run's
 * report the published figures when they can be read. */
static struct nbw_criteria *probe_criteria(const struct nbw_check_opts *co, bool is_run, int *rc)
{
	char err[1024], note[300];
	*rc = 0;
	if (!co->on && !is_run)
		return NULL;
	struct nbw_criteria *cr = nbw_check_criteria(co, note, sizeof(note), err, sizeof(err));
	if (!cr && co->on) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		*rc = NBW_EXIT_USAGE;
	} else if (!cr) { /* a run's report: the shipped table is there but cannot be read */
		fprintf(stderr, "nodebw: note: the report's verdicts judge by the theoretical "
				"figures only: %s\n", err);
	} else if (note[0] && co->on) {
		fprintf(stderr, "nodebw: note: %s\n", note);
	}
	return cr;
}

/* The verdicts at the end of a probe or run with --check (or of nodebw check): printed,
 * saved as check.json beside the results, a failing path makes the exit status 1. */
static int probe_verdicts(const struct nbw_stage_ctx *c, const struct nbw_criteria *cr,
			  const struct nbw_check_opts *co, bool json, int rc)
{
	char err[1024];
	if (!co->on || !c->measured || !cr)
		return rc;
	if (!json)
		printf("\n==== Verdicts ====\n");
	int v = nbw_check_results(c->doc->root, cr, co, json, stdout, c->dir, err, sizeof(err));
	if (v < 0)
		fprintf(stderr, "nodebw: error: %s\n", err);
	/* A probe that failed fails the check (1); the verdicts' status otherwise (0 pass, 1
	 * fail, 3 not judged: doc/check.md). */
	return rc == NBW_EXIT_PARTIAL ? 1 : rc ? rc : v < 0 ? 1 : v;
}

int nbw_cmd_probe(int argc, char **argv, char **full_argv, int full_argc,
		  const struct nbw_check_opts *check, bool verdict_json)
{
	struct nbw_probe_opts o;
	struct nbw_run_opts ro;
	struct nbw_check_opts co;
	bool is_run = strcmp(argv[0], "run") == 0, done;
	int rc = probe_options(argc, argv, is_run, check != NULL, &o, &ro, &co, &done);
	if (done)
		return rc;
	if (check && !co.on)
		co = *check;
	else if (check) {
		fprintf(stderr, "nodebw: error: 'check' takes --thresholds, not --check\n");
		nbw_cli_opts_free(&o);
		return NBW_EXIT_USAGE;
	}
	struct nbw_stage_ctx c = { .is_run = is_run, .ro = &ro, .o = &o };
	struct nbw_criteria *cr = probe_criteria(&co, is_run, &rc);
	if (rc) {
		nbw_cli_opts_free(&o);
		return rc;
	}
	char note[512];
	if (nbw_plan_chase_note(&o, note, sizeof(note)))
		fprintf(stderr, "nodebw: note: %s\n", note);
	if (ro.list_stages) { /* the plan of a run that would start: its input checked as one */
		rc = nbw_rundir_check(o.output, o.replace, c.err, sizeof(c.err));
		if (rc)
			fprintf(stderr, "nodebw: error: %s\n", c.err);
		else
			nbw_stages_list(stdout, &c);
		nbw_criteria_free(cr);
		nbw_cli_opts_free(&o);
		return rc;
	}
	ro.criteria = cr;
	reexec_for_hidden_helpers(&o, full_argv);
	struct nbw_rundir rd;
	rc = nbw_rundir_open(o.output, o.replace, &rd, c.err, sizeof(c.err));
	if (rc) {
		fprintf(stderr, "nodebw: error: %s\n", c.err);
		nbw_cli_opts_free(&o);
		nbw_criteria_free(cr);
		return rc == NBW_EXIT_USAGE ? NBW_EXIT_USAGE : 1;
	}
	c.dir = rd.path;
	if (rd.recovered[0])
		fprintf(stderr, "nodebw: note: %s held the results of a killed run: %s\n", c.dir,
			rd.recovered);
	nbw_handle_stop_signals();
	c.t0 = nbw_now();
	if (is_run) /* the probes' own first line comes first (e.g. a build without offload) */
		nbw_run_clock_start();
	struct nbw_runterm rt;
	struct nbw_sink *status = NULL;
	bool tty = isatty(STDOUT_FILENO);
	if (is_run && nbw_runterm_open(&rt, c.dir, tty, o.verbose, ro.json, ro.quiet && !ro.json,
				       c.t0, nbw_run_time_limit(&ro), c.err, sizeof(c.err))) {
		fprintf(stderr, "nodebw: error: %s\n", c.err);
		nbw_rundir_close(&rd, false);
		nbw_criteria_free(cr);
		nbw_cli_opts_free(&o);
		return 1;
	}
	if (is_run)
		ro.term = &rt;
	if (stages_open(&c, full_argc, full_argv, &status)) {
		fprintf(stderr, "nodebw: error: out of memory\n");
		if (is_run)
			nbw_runterm_close(&rt);
		free(status);
		nbw_rundir_close(&rd, false);
		nbw_criteria_free(cr);
		return 1;
	}
	/* The plan's count: the measurements the stages will make, known before they start. */
	if (is_run)
		nbw_stages_count(&c);
	/* The plan for a person at a terminal (and in run.log): elsewhere bad input that the
	 * probes find stays the one line on stderr. */
	if (is_run && tty)
		nbw_stages_plan_line(&c);
	nbw_stages_walk(&c);
	if (is_run)
		nbw_runterm_close(&rt);
	rc = stages_exit(&c);
	json_decref(c.summary);
	nbw_products_free(c.products);
	if (c.measured) {
		nbw_print_failures(stderr, c.doc);
		if (o.json && print_results_file(c.dir, c.err, sizeof(c.err))) {
			fprintf(stderr, "nodebw: error: %s\n", c.err);
			rc = 1;
		}
	}
	rc = probe_verdicts(&c, cr, &co, verdict_json, rc);
	nbw_criteria_free(cr);
	nbw_probe_ctx_free(c.pctx);
	nbw_sink_terminal_free(c.term);
	free(status);
	nbw_rundir_close(&rd, c.usage_error);
	nbw_doc_free(c.doc);
	nbw_cli_opts_free(&o);
	return rc;
}

static void gap_usage(FILE *f)
{
	fprintf(f, "Usage: nodebw gap [--json] RESULTS.json\n\nRecompute the OpenMP-vs-native gap "
		   "table from a results file: per direction, mode, host memory and device count "
		   "the mean absolute gap in GB/s (1e9 B/s), the relative gap and the extra time "
		   "per transfer; then the kernel copies (mode kernel) beside the same API's "
		   "blocking copy call (mode sync) on the same path and size, with the ratio.\n\n"
		   "Options:\n"
		   "  --json     the gap table as JSON (the comparison under \"kernel_vs_copy\")\n"
		   "  -h, --help this text\n");
}

static int cmd_gap(int argc, char **argv)
{
	bool json;
	const char *file;
	struct nbw_doc *doc;
	int rc = nbw_cmd_one_results_file(argc, argv, gap_usage, &json, &file, &doc);
	if (rc)
		return rc == 1 ? 0 : rc;
	struct nbw_products *p = nbw_products_new(doc->root);
	if (!p) {
		fprintf(stderr, "nodebw: error: out of memory deriving the gap table of %s\n", file);
		nbw_doc_free(doc);
		return 1;
	}
	json_t *gaps = json_incref(p->gaps), *kc = json_incref(p->kernel_vs_copy);
	nbw_products_free(p);
	if (json) {
		json_object_set(gaps, "kernel_vs_copy", kc);
		json_dumpf(gaps, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
		printf("\n");
	} else {
		nbw_gap_print(stdout, gaps);
		nbw_kernel_compare_print(stdout, kc, true);
	}
	json_decref(kc);
	json_decref(gaps);
	nbw_doc_free(doc);
	return 0;
}

/* Whatever device was first used after the last cleanup (heat's devices, a backend opened
 * by a command) leaves no image file in /tmp either. */
static void unlink_images_at_exit(void)
{
	nbw_unlink_plugin_images();
}

/* Under an address-space limit (ulimit -v), every thread's malloc arena (64 MiB reserved
 * each, and nodebw runs a thread per stream plus libomp's) would take the room the buffers
 * need: with a limit set, threads share two arenas. */
static void fit_malloc_to_limits(void)
{
	struct rlimit as, data;
	if ((getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
	    (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY))
		mallopt(M_ARENA_MAX, 2);
}

static int dispatch(int argc, char **argv);

/* What a command printed must have reached its destination: a full disk or /dev/full on
 * stdout is an error (exit 1, one line), not a silent exit 0. */
static int close_stdout(int rc)
{
	errno = 0;
	bool bad = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;
	if (fclose(stdout) != 0 && !bad) {
		bad = true;
		e = errno;
	}
	if (!bad)
		return rc;
	fprintf(stderr, "nodebw: error: writing the output failed: %s (what was printed is "
			"incomplete)\n", e ? strerror(e) : "write error");
	return rc ? rc : 1;
}

int main(int argc, char **argv)
{
	atexit(unlink_images_at_exit);
	fit_malloc_to_limits();
	/* A file-size limit fails the write (EFBIG), which every command reports, instead of
	 * killing the process with a half-written file. */
	signal(SIGXFSZ, SIG_IGN);
	return close_stdout(dispatch(argc, argv));
}

static const char *env_of(const char *name)
{
	return getenv(name);
}

/* The commands that start the OpenMP runtime (the backend, the solver, the fleet's runs)
 * refuse first an environment the runtime would abort or hang on. */
static bool omp_env_ok(const char *cmd)
{
	static const char *const starts[] = {"list", "probe", "run", "heat", "fleet", "check"};
	bool any = false;
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		any |= strcmp(cmd, starts[i]) == 0;
	struct nbw_ompenv_limits l;
	char err[400];
	nbw_ompenv_machine(&l);
	/* run (and the fleet's runs) measure again with 8 hidden helpers. */
	l.helpers_min = strcmp(cmd, "run") == 0 || strcmp(cmd, "fleet") == 0 ? 8 : 0;
	if (!any || nbw_ompenv_check(env_of, &l, err, sizeof(err)) == 0)
		return true;
	fprintf(stderr, "nodebw: error: %s\n", err);
	return false;
}

/* argv[1] is the command. */
static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "nodebw: error: no command given (see 'nodebw --help')\n");
		return NBW_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "help") == 0 && argc > 2) {
		/* nodebw help CMD = nodebw CMD --help */
		if (argc > 3) {
			fprintf(stderr, "nodebw: error: 'help' takes one command ('%s')\n", argv[3]);
			return NBW_EXIT_USAGE;
		}
		if (strcmp(argv[2], "help") == 0 || argv[2][0] == '-') {
			usage(stdout);
			return 0;
		}
		char *hargv[] = { argv[0], argv[2], "--help", NULL };
		return dispatch(3, hargv);
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("nodebw %s, revision %s (offload targets: %s; %s)\n", NBW_VERSION,
		       NBW_REVISION, NBW_OFFLOAD_TARGETS, NBW_BUILD_INFO);
		return 0;
	}
	if (!omp_env_ok(cmd))
		return NBW_EXIT_USAGE;
	if (strcmp(cmd, "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (strcmp(cmd, "gap") == 0)
		return cmd_gap(argc - 1, argv + 1);
	if (strcmp(cmd, "matrix") == 0)
		return nbw_matrix_main(argc - 1, argv + 1);
	if (strcmp(cmd, "summary") == 0)
		return nbw_summary_main(argc - 1, argv + 1);
	if (strcmp(cmd, "predict") == 0)
		return nbw_predict_main(argc - 1, argv + 1);
	if (strcmp(cmd, "report") == 0)
		return nbw_report_main(argc - 1, argv + 1);
	if (strcmp(cmd, "topo") == 0)
		return nbw_topo_main(argc - 1, argv + 1);
	if (strcmp(cmd, "fleet") == 0)
		return nbw_fleet_main(argc - 1, argv + 1);
	if (strcmp(cmd, "compare") == 0)
		return nbw_fleet_compare_main(argc - 1, argv + 1);
	if (strcmp(cmd, "probe") == 0 || strcmp(cmd, "run") == 0)
		return nbw_cmd_probe(argc - 1, argv + 1, argv, argc, NULL, false);
	if (strcmp(cmd, "check") == 0)
		return nbw_check_main(argc - 1, argv + 1);
#if NBW_HAVE_OMP
	if (strcmp(cmd, "heat") == 0)
		return nbw_heat_main(argc - 1, argv + 1);
#else
	if (strcmp(cmd, "heat") == 0) {
		fprintf(stderr, "nodebw: error: %s\n", NBW_NO_OFFLOAD_REASON);
		return 1;
	}
#endif
	if (cmd[0] == '-')
		fprintf(stderr, "nodebw: error: unknown option '%s' (see 'nodebw --help')\n", cmd);
	else
		fprintf(stderr, "nodebw: error: unknown command '%s' (see 'nodebw --help')\n", cmd);
	return NBW_EXIT_USAGE;
}
