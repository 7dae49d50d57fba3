/* SPDX-License-Identifier: BSD-3-Clause */
/* `nodebw predict`: heat-solver runtimes from a calibration with both models. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-predict.h"
#include "predict_advice.h"
#include "predict_app.h"
#include "predict_measure.h"
#include "nodebw/app.h"
#include "nodebw/app_model.h"
#include "nodebw/cli.h"
#include "nodebw/model.h"

#define MAX_LIST 64

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw predict --calibration FILE --n LIST --gpus LIST [OPTIONS]\n"
		"       nodebw predict --calibration FILE --app APP.json [--gpus LIST] [--json]\n"
		"\n"
		"Predict the heat solver's runtime with the paper's model (Eq. 9 for the\n"
		"host-staged Versions 1-3, Eq. 10 for the P2P Version 4, and Eq. 11/12 for full\n"
		"overlap) and with nodebw's extended models (doc/model.md), each named by\n"
		"what it needs: one-device (the probes and one-device runs only: the slab\n"
		"runs, the co-run probe, the launch probe; no run of Versions 1-4),\n"
		"compute-calibrated (the versions run without their halo copies) and fitted\n"
		"(the compute-calibrated model x what the versions' timed runs at other N\n"
		"showed beyond it, or, without compute-only runs, a fit on their phases).\n"
		"\n"
		"Options:\n"
		"  --calibration FILE  calibration.json written by 'nodebw run' (or by hand:\n"
		"                      k-bar or k samples, beta per path; see doc/model.md)\n"
		"  --n LIST            grid sizes N (the grid is N^3), e.g. 512,640,768\n"
		"  --gpus LIST         device counts G >= 2\n"
		"  --version LIST      v1,v2,v3,v4 or all (default v4, the paper's Figure 8)\n"
		"  --steps N           time steps (default: the calibration's \"steps\")\n"
		"  --kbar-rule RULE    all (mean over every size, Eq. 8; default) or top3 (the\n"
		"                      three largest sizes, as the paper's artifact scripts)\n"
		"  --results FILE      the results.json of the run that wrote the calibration:\n"
		"                      its validation (calibrations from 'nodebw run' hold it;\n"
		"                      older ones do not)\n"
		"  --json              print JSON instead of a table\n"
		"  --measure           first run the one-device runs the calibration lacks for\n"
		"                      these N and G on this node's devices (the slab\n"
		"                      N x N x (ceil((N-2)/G)+2) launched as v1-v4 launch, G of\n"
		"                      them at once, and the launch probe's halo copies at N;\n"
		"                      seconds to minutes, no run of v1-v4), add them to the\n"
		"                      calibration, write it beside FILE as NAME-measured.json,\n"
		"                      then predict from it\n"
		"  --measure-output F  --measure, writing the new calibration to F\n"
		"  --app APP.json      predict an application described by APP.json (schema\n"
		"                      nodebw-app, doc/app.schema.json, doc/model.md): per G\n"
		"                      (default 2,4) and decomposition, the step's compute,\n"
		"                      exchange and launch, the recommended decomposition and\n"
		"                      method, and the commands that measure what the\n"
		"                      calibration lacks; with --measure, first the one-device\n"
		"                      runs of its local boxes (nodebw heat --radius --fields)\n"
		"  -h, --help          this text\n"
		"\n"
		"Times in seconds; bandwidth in GB/s = 1e9 B/s; one halo plane = 8 N^2 bytes.\n"
		"beta is that of the slowest neighbour pair i <-> i+1 (Version 4) or of the\n"
		"slowest device's own HtoD/DtoH (Versions 1-3) among the G devices, where the\n"
		"calibration has per-pair or per-device measurements; a line under each row\n"
		"names it and where its times came from (own sweep, or a matrix estimate).\n"
		"\n"
		"Which model to trust: under each row, the model whose validation against the\n"
		"run's measured solver runtimes had the lowest MAPE for that version and G (the\n"
		"report's accuracy table; the nearest validated G when G was not validated),\n"
		"with its MAPE and the grid sizes it was validated on; without a validation, the\n"
		"model that takes the most of the node's own measurements, and why. The reasons\n"
		"follow the table (\"recommended\" in each JSON row).\n"
		"\n"
		"Outside the calibration: N beyond the calibrated grid sizes, a G the versions\n"
		"were not run on, or a halo plane (8 N^2 bytes) beyond the sizes the version's\n"
		"transfer paths were measured at is a WARNING under the table, with how far and\n"
		"the nodebw command that would measure it (\"outside_calibration\" in JSON). It is\n"
		"a prediction still: the exit status stays 0.\n");
}

static int one_version(const char *t, void *ctx, char *err, size_t errlen)
{
	bool *v = ctx;
	if (strcmp(t, "all") == 0)
		v[1] = v[2] = v[3] = v[4] = true;
	else if (strlen(t) == 2 && t[0] == 'v' && t[1] >= '1' && t[1] <= '4')
		v[t[1] - '0'] = true;
	else if (strlen(t) == 1 && t[0] >= '1' && t[0] <= '4')
		v[t[0] - '0'] = true;
	else {
		snprintf(err, errlen, "--version: unknown version '%s' (v1, v2, v3, v4, all)", t);
		return -1;
	}
	return 0;
}

/* What the command line asks for. */
struct predict_opts {
	const char *file, *results, *measure_out, *app;
	bool measure, gpus_default;
	int ns[MAX_LIST], gs[MAX_LIST], nn, ng, steps;
	bool vers[5], json;
	enum nbw_kbar_rule rule;
};

/* One option \p ch of getopt_long (its value in optarg) into \p o. 0, or -1 with \p err. */
static int parse_option(int ch, char **argv, struct predict_opts *o, bool *any_version,
			char *err, size_t errlen)
{
	switch (ch) {
	case 'c':
		o->file = optarg;
		return 0;
	case 'n':
		return nbw_cli_parse_int_list(optarg, 3, NBW_GRID_MAX_SIDE, o->ns, MAX_LIST, &o->nn,
					      "--n", err, errlen);
	case 'g':
		return nbw_cli_parse_int_list(optarg, 2, NBW_MAX_DEVICES, o->gs, MAX_LIST, &o->ng,
					      "--gpus", err, errlen);
	case 'v':
		*any_version = true;
		return nbw_cli_each_item(optarg, "--version", one_version, o->vers, err, errlen);
	case 's': {
		long v;
		if (nbw_cli_parse_int(optarg, 1, NBW_STEPS_MAX, &v, "--steps", err, errlen))
			return -1;
		o->steps = (int)v;
		return 0;
	}
	case 'r':
		if (strcmp(optarg, "all") == 0)
			o->rule = NBW_KBAR_ALL;
		else if (strcmp(optarg, "top3") == 0)
			o->rule = NBW_KBAR_TOP3;
		else {
			snprintf(err, errlen, "--kbar-rule: '%s' (all or top3)", optarg);
			return -1;
		}
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case 'R':
		o->results = optarg;
		return 0;
	case 'M':
		o->measure = true;
		return 0;
	case 'A':
		o->app = optarg;
		return 0;
	case 'O':
		o->measure = true;
		o->measure_out = optarg;
		return 0;
	case ':':
		snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		return -1;
	default:
		snprintf(err, errlen, "unknown option '%s' (see 'nodebw predict --help')",
			 argv[optind - 1]);
		return -1;
	}
}

/* The command line into \p o: 0, 1 when the help was printed, -1 with \p err. */
static int parse_args(int argc, char **argv, struct predict_opts *o, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{"calibration", required_argument, NULL, 'c'}, {"n", required_argument, NULL, 'n'},
		{"gpus", required_argument, NULL, 'g'},    {"version", required_argument, NULL, 'v'},
		{"steps", required_argument, NULL, 's'},   {"kbar-rule", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},          {"help", no_argument, NULL, 'h'},
		{"results", required_argument, NULL, 'R'}, {"measure", no_argument, NULL, 'M'},
		{"measure-output", required_argument, NULL, 'O'}, {"app", required_argument, NULL, 'A'},
		{NULL, 0, NULL, 0}};
	memset(o, 0, sizeof(*o));
	o->rule = NBW_KBAR_ALL;
	bool any_version = false;
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (ch == 'h') {
			usage(stdout);
			return 1;
		}
		if (parse_option(ch, argv, o, &any_version, err, errlen))
			return -1;
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->app && o->file && !o->nn) {
		if (!o->ng) { /* G = 2 and 4, or the app's own decomposition's */
			o->gs[o->ng++] = 2;
			o->gs[o->ng++] = 4;
			o->gpus_default = true;
		}
		return 0;
	}
	if (o->app) {
		snprintf(err, errlen, "--app takes --calibration FILE and --gpus LIST (not --n; "
				      "see 'nodebw predict --help')");
		return -1;
	}
	if (!o->file || !o->nn || !o->ng) {
		snprintf(err, errlen, "predict needs --calibration FILE, --n LIST and --gpus "
				      "LIST (see 'nodebw predict --help')");
		return -1;
	}
	if (!any_version)
		o->vers[4] = true;
	return 0;
}

/* The three models' predictions of one (N, G, version). */
struct predict_row {
	int n, g, v, steps;
	char vn[4];
	struct nbw_paper_pred p;
	struct nbw_ext_pred e, ap, od;
	int erc, arc, orc;        /* fitted, compute-calibrated, one-device: 0, or why not */
	char ewhy[400], awhy[400], owhy[400];
};

/* A model built on a measured compute (one-device, compute-calibrated) as JSON. */
static json_t *measured_compute_json(const struct nbw_ext_pred *m, int rc, const char *why)
{
	if (rc)
		return json_pack("{s:s}", "not_available", why);
	json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:b, s:f, s:f, s:s}", "total_s",
			      m->total_s, "compute_s", m->compute_s, "transfer_s", m->transfer_s,
			      "concurrency", m->busy, "contention", m->contention, "overlap",
			      m->overlap, "launch_s", m->launch_s, "oversub", m->oversub,
			      "transfer_from", m->copy_probe ? "copy probe" : "transfer curves");
	if (m->compute_from[0])
		json_object_set_new(o, "compute_from", json_string(m->compute_from));
	return o;
}

/* The row as the JSON object of `nodebw predict --json`. */
static json_t *row_json(const struct predict_row *r)
{
	const struct nbw_paper_pred *p = &r->p;
	const struct nbw_ext_pred *e = &r->e;
	json_t *o = json_pack("{s:i, s:i, s:s, s:i, s:{s:s, s:f, s:f, s:f, s:f, s:f, s:f}}",
			      "n", r->n, "G", r->g, "version", r->vn, "steps", r->steps,
			      "paper", "equation", p->equation, "kbar", p->kbar,
			      "compute_s", p->compute_s, "transfer_s", p->transfer_s,
			      "beta_gbps", p->beta_gbps[0], "total_s", p->total_s,
			      "overlap_s", p->overlap_s);
	json_t *jp = json_object_get(o, "paper");
	if (r->v < 4)
		json_object_set_new(jp, "beta_dtoh_gbps", json_real(p->beta_gbps[1]));
	json_object_set_new(jp, "beta_from", json_string(p->bound));
	json_object_set_new(
		o, "extended",
		r->erc ? json_pack("{s:s}", "missing", r->ewhy)
		       : json_pack("{s:f, s:f, s:f, s:f, s:f, s:i, s:f, s:b}", "total_s",
				   e->total_s, "compute_s", e->compute_s, "transfer_s",
				   e->transfer_s, "overhead_s", e->overhead_s, "k_slab", e->k_slab,
				   "transfers_per_step", e->xfers, "contention", e->contention,
				   "overlap", e->overlap));
	if (!r->erc) {
		json_t *je = json_object_get(o, "extended");
		json_object_set_new(je, "transfers_from", json_string(e->bound));
		json_object_set_new(je, "interaction",
				    e->interaction > 0.0 ? json_real(e->interaction) : json_null());
		json_object_set_new(je, "interaction_step_s",
				    e->interaction > 0.0 ? json_real(e->interaction_step_s)
							 : json_null());
	}
	json_object_set_new(o, "one_device", measured_compute_json(&r->od, r->orc, r->owhy));
	json_object_set_new(o, "compute_calibrated",
			    measured_compute_json(&r->ap, r->arc, r->awhy));
	return o;
}

/* The row as a line of the table, and where its betas came from when \p sets. */
static void row_text(FILE *tf, const struct predict_row *r, bool sets)
{
	const struct nbw_paper_pred *p = &r->p;
	const struct nbw_ext_pred *e = &r->e;
	char ext[48], terms[160];
	if (r->erc) {
		snprintf(ext, sizeof(ext), "%11s", "n/a");
		snprintf(terms, sizeof(terms), "missing: %s", r->ewhy);
	} else if (e->interaction > 0.0) {
		snprintf(ext, sizeof(ext), "%11.6g", e->total_s);
		snprintf(terms, sizeof(terms),
			 "compute-calibrated x %.3f %c %.3g us/step (interaction over %d size%s)",
			 e->interaction, e->interaction_step_s < 0.0 ? '-' : '+',
			 fabs(e->interaction_step_s) * 1e6, e->interaction_sizes,
			 e->interaction_sizes == 1 ? "" : "s");
	} else {
		snprintf(ext, sizeof(ext), "%11.6g", e->total_s);
		snprintf(terms, sizeof(terms), "%.4g + %.4g + %.4g%s; %d plane%s/step x%.2f",
			 e->compute_s, e->transfer_s, e->overhead_s,
			 e->overlap ? " (overlapped)" : "", e->xfers, e->xfers == 1 ? "" : "s",
			 e->contention);
	}
	char apr[48], one[48];
	if (r->arc)
		snprintf(apr, sizeof(apr), "%11s", "-");
	else
		snprintf(apr, sizeof(apr), "%11.6g", r->ap.total_s);
	if (r->orc)
		snprintf(one, sizeof(one), "%11s", "-");
	else
		snprintf(one, sizeof(one), "%11.6g", r->od.total_s);
	fprintf(tf, "%5d %3d %3s %7s %11.5g %9.4g %11.6g %11.6g %s %s %s  %s\n", r->n, r->g,
		r->vn, p->equation, p->kbar, p->beta_gbps[0], p->total_s, p->overlap_s, one, apr,
		ext, terms);
	if (!r->orc)
		fprintf(tf, "%14s compute from %s; copies from %s\n", "one-device:",
			r->od.compute_from,
			r->od.copy_probe ? "the copy probe" : "the transfer curves");
	if (!sets)
		return;
	double b = 8.0 * r->n * r->n;
	if (r->v == 4)
		fprintf(tf, "%14s beta_P2P %.4g GB/s at %.0f B: %s\n", "beta:", p->beta_gbps[0], b,
			p->bound);
	else
		fprintf(tf, "%14s beta_HtoD %.4g, beta_DtoH %.4g GB/s at %.0f B: %s\n", "beta:",
			p->beta_gbps[0], p->beta_gbps[1], b, p->bound);
	if (!r->erc)
		fprintf(tf, "%14s %s\n", "extended:", e->bound);
}

/* The table's head: the calibration, the rule and the columns, and what it lacks. */
static void table_head(FILE *tf, const struct predict_opts *o, const struct nbw_calib *c)
{
	fprintf(tf, "nodebw predict: %s (%s); %d steps; k-bar rule: %s; times in s, GB/s = "
		    "1e9 B/s, one plane = 8 N^2 B\n"
		    "%5s %3s %3s %7s %11s %9s %11s %11s %11s %11s %11s  %s\n",
		o->file, c->source[0] ? c->source : "no source given", o->steps,
		o->rule == NBW_KBAR_TOP3 ? "three largest sizes" : "mean over all sizes", "N", "G",
		"ver", "eq", "k-bar", "beta", "paper", "overlap", "one-device", "comp.-cal.",
		"fitted", "fitted terms (compute-calibrated x interaction, or compute + "
			  "transfer + overhead)");
	/* What each model takes from the calibration, and which it lacks. */
	fprintf(tf, "%14s k (one-device N^3 runs) and the transfer probes\n", "paper:");
	fprintf(tf, "%14s one-device runs and probes only: slab runs (%s), co-run probe "
		    "(%s), launch probe (%s), transfer probes; no run of v1-v4\n",
		"one-device:", c->nslab ? "k_slab" : "not in this calibration: k of N^3 runs",
		c->ncorun ? "corun" : "not in this calibration: the device kind's rule",
		c->nlaunch ? "launch" : "not in this calibration");
	if (c->ncs == 0)
		fprintf(tf, "%14s not in this calibration: it needs v1-v4 run without the "
			    "halo exchange (compute_only; nodebw run measures them)\n",
			"comp.-cal.:");
	else
		fprintf(tf, "%14s the versions' compute-only runs (compute_only) and the "
			    "probes\n", "comp.-cal.:");
	fprintf(tf, "%14s %s\n", "fitted:",
		c->nvs ? "the versions' timed runs at the other N (versions) on top of "
			 "compute-calibrated"
		       : "not in this calibration: it needs the versions' timed runs (versions)");
	/* Where beta comes from: per row when the calibration has per-device or per-pair
	 * measurements, else once (the paths stand for every device and pair). */
	if (c->nsets == 0)
		fprintf(tf, "%14s the calibration's paths stand for every device and pair (it has "
			    "no per-device or per-pair measurements)\n", "beta:");
}

/* Every (N, G, version) asked for: rows of the table on \p tf, or objects of \p out with
 * --json. 0, or 2 with \p err when the paper's model cannot predict one. */
/* A prediction is a finite time >= 0: a calibration whose numbers give anything else (an
 * overflow, a denormal bandwidth) is bad input, named, never printed as nan or inf. */
static bool row_finite(const struct predict_row *r, char *err, size_t errlen)
{
	const struct {
		const char *what;
		double x;
		bool used;
	} t[] = {
		{"the paper model's compute time", r->p.compute_s, true},
		{"the paper model's transfer time", r->p.transfer_s, true},
		{"the paper model's total", r->p.total_s, true},
		{"the paper model's overlapped total", r->p.overlap_s, true},
		{"the extended model's total", r->e.total_s, r->erc == 0},
		{"the compute-calibrated total", r->ap.total_s, r->arc == 0},
		{"the one-device total", r->od.total_s, r->orc == 0},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].used && !(isfinite(t[i].x) && t[i].x >= 0.0)) {
			snprintf(err, errlen, "N=%d G=%d %s: the calibration gives %s of %g s, not a "
				 "finite time >= 0 (check its k-bar, betas and times)", r->n, r->g,
				 r->vn, t[i].what, t[i].x);
			return false;
		}
	return true;
}

/* After nodebw predict --measure: at an N where the calibration has the one-device slab run
 * and its co-run of exactly this G (the one-device model's own measurements) but no run of
 * the versions (the compute-calibrated and fitted models carry their terms over from other
 * sizes, as their validation did not), the one-device model is the one measured here. */
static void measured_here(const struct nbw_calib *c, const struct predict_row *r,
			  struct nbw_advice *adv)
{
	if (r->orc || adv->model == NBW_MODEL_ONEDEV)
		return;
	int planes = (r->n - 2 + r->g - 1) / r->g;
	bool slab = false, corun = false;
	for (size_t i = 0; i < c->nslab; i++)
		slab |= c->slab[i].n == r->n && c->slab[i].planes == planes;
	for (size_t i = 0; i < c->ncorun; i++)
		corun |= c->corun[i].n == r->n && c->corun[i].g == r->g &&
			 c->corun[i].per_device == (r->v >= 3);
	for (size_t i = 0; i < c->ncs; i++)
		if (c->cs[i].n == r->n)
			return;
	for (size_t i = 0; i < c->nvs; i++)
		if (c->vs[i].n == r->n)
			return;
	if (!slab || !corun)
		return;
	enum nbw_model_id was = adv->model;
	adv->model = NBW_MODEL_ONEDEV;
	adv->validated = adv->on && !isnan(adv->on->mape[NBW_MODEL_ONEDEV]);
	adv->mape = adv->validated ? adv->on->mape[NBW_MODEL_ONEDEV] : NAN;
	snprintf(adv->why, sizeof(adv->why), "N=%d: the calibration has the one-device run of "
		 "this slab and its co-run (nodebw predict --measure) but no run of the versions, "
		 "so the %s model would carry its terms over from other sizes; the one-device "
		 "model is the one measured at this N", r->n, nbw_model_name(was));
}

/* The model to trust for \p r and the range warnings of its (N, G, version). */
static void advise(const struct nbw_calib *c, const char *val_from, const struct predict_row *r,
		   struct predict_advice *a)
{
	memset(a, 0, sizeof(*a));
	a->n = r->n;
	a->g = r->g;
	snprintf(a->v, sizeof(a->v), "%s", r->vn);
	const bool can[NBW_MODEL_COUNT] = {true, r->orc == 0, r->arc == 0, r->erc == 0};
	nbw_recommend(c->valid, val_from, r->g, r->vn, can, &a->adv);
	const double t[NBW_MODEL_COUNT] = {r->p.total_s, r->od.total_s, r->ap.total_s,
					   r->e.total_s};
	measured_here(c, r, &a->adv);
	a->total_s = t[a->adv.model];
	a->nwarn = nbw_range_check(c, r->n, r->g, r->vn, a->warn);
}

static int predict_all(const struct predict_opts *o, const struct nbw_calib *c,
		       const char *val_from, FILE *tf, json_t *out, struct predict_advice *adv,
		       size_t *nadv, char *err, size_t errlen)
{
	for (int i = 0; i < o->nn; i++)
		for (int j = 0; j < o->ng; j++)
			for (int v = 1; v <= 4; v++) {
				if (!o->vers[v])
					continue;
				struct predict_row r = {.n = o->ns[i], .g = o->gs[j], .v = v,
							.steps = o->steps};
				snprintf(r.vn, sizeof(r.vn), "v%d", v);
				char why[400];
				if (nbw_predict_paper(c, o->rule, r.n, r.g, r.vn, r.steps, &r.p, why,
						      sizeof(why))) {
					snprintf(err, errlen, "N=%d G=%d %s: %s", r.n, r.g, r.vn, why);
					return 2;
				}
				r.erc = nbw_predict_ext(c, r.n, r.g, r.vn, r.steps, 0, &r.e, r.ewhy,
							sizeof(r.ewhy));
				r.arc = nbw_predict_compcal(c, r.n, r.g, r.vn, r.steps, &r.ap, r.awhy,
							    sizeof(r.awhy));
				r.orc = nbw_predict_onedev(c, r.n, r.g, r.vn, r.steps, &r.od, r.owhy,
							   sizeof(r.owhy));
				if (!row_finite(&r, err, errlen))
					return 2;
				struct predict_advice *a = &adv[(*nadv)++];
				advise(c, val_from, &r, a);
				if (o->json) {
					json_t *row = row_json(&r);
					nbw_predict_advice_json(row, a, val_from);
					json_array_append_new(out, row);
				} else {
					row_text(tf, &r, c->nsets > 0);
					nbw_predict_advice_row(tf, a);
				}
			}
	return 0;
}

/* predict --measure --app: the one-device runs of the busiest local box of every
 * decomposition asked for (nodebw-heat as the compute) and the faces of those boxes the
 * calibration has no probe of, measured and added. */
static int measure_app(struct nbw_calib *c, const struct nbw_app *a, const struct predict_opts *o,
		       char *err, size_t errlen)
{
	struct nbw_measure_box boxes[MAX_LIST * 4];
	int nb = 0, nfaces = 0;
	char faces[1024] = "";
	for (int j = 0; j < o->ng; j++) {
		int d[NBW_APP_MAX_DECOMPS][3];
		int nd = nbw_app_decomps(a, o->gs[j], d, NBW_APP_MAX_DECOMPS);
		for (int i = 0; i < nd; i++) {
			/* Its faces, where the calibration has no probe of their shape (at most
			 * the shapes one --faces list holds). */
			struct nbw_app_pred p;
			char one[64];
			if (nbw_app_predict(c, a, d[i], a->exchange, a->copy, &p, NULL, 0) == 0 &&
			    (!p.exchange_probed || !p.exchange_fields) && !p.paper_version &&
			    nfaces < NBW_MAX_FACE_SHAPES) {
				nbw_app_faces_arg(a, &p, one, sizeof(one));
				size_t w = strlen(one);
				snprintf(one + w, sizeof(one) - w, "@%dx%dx%d@%d", d[i][0], d[i][1],
					 d[i][2], a->fields);
				size_t at = strlen(faces);
				if (!strstr(faces, one) &&
				    snprintf(faces + at, sizeof(faces) - at, "%s%s", at ? "," : "",
					     one) > 0)
					nfaces++;
			}
			if (a->compute != NBW_APP_COMPUTE_KERNEL ||
			    nb >= (int)(sizeof(boxes) / sizeof(boxes[0])))
				continue;
			long in[3];
			struct nbw_measure_box *b = &boxes[nb++];
			b->radius = a->radius;
			b->fields = a->fields;
			b->g = o->gs[j]; /* co-run on G devices at once (G >= 2) */
			nbw_app_local_box(a, d[i], (const int[3]){0, 0, 0}, in, b->box);
		}
	}
	struct nbw_measure_req mr = {.calib_path = o->file, .out_path = o->measure_out,
				     .boxes = boxes, .nboxes = nb, .faces = faces,
				     .steps = c->steps ? c->steps : (int)fmin(a->steps, 100.0),
				     .log = stderr};
	char written[4096];
	return nbw_predict_measure(c, &mr, written, sizeof(written), err, errlen);
}

int nbw_predict_main(int argc, char **argv)
{
	struct predict_opts o;
	char err[1200];
	int prc = parse_args(argc, argv, &o, err, sizeof(err));
	if (prc > 0)
		return 0;
	if (prc < 0)
		goto usage_error;
	struct nbw_calib c;
	if (nbw_calib_load(o.file, &c, err, sizeof(err)))
		goto usage_error;
	if (o.app) {
		struct nbw_app app;
		int arc = nbw_app_load(o.app, &app, err, sizeof(err));
		if (arc == 0 && !nbw_app_decomp_open(&app) && o.gpus_default) {
			/* the default G: the app's own */
			o.gs[0] = app.decomp[0] * app.decomp[1] * app.decomp[2];
			o.ng = 1;
		}
		if (arc == 0 && o.measure && measure_app(&c, &app, &o, err, sizeof(err))) {
			nbw_calib_free(&c);
			fprintf(stderr, "nodebw: error: %s\n", err);
			return 1;
		}
		if (arc == 0)
			arc = nbw_predict_app(&c, &app, o.app, o.file, o.gs, o.ng, o.json, stdout, err,
					      sizeof(err));
		nbw_calib_free(&c);
		if (arc)
			goto usage_error;
		return 0;
	}
	if (!o.steps)
		o.steps = c.steps;
	if (!o.steps) {
		snprintf(err, sizeof(err), "%s has no \"steps\": give --steps", o.file);
		nbw_calib_free(&c);
		goto usage_error;
	}
	if (o.measure) {
		struct nbw_measure_req mr = {.calib_path = o.file, .out_path = o.measure_out,
					     .ns = o.ns, .nn = o.nn, .gs = o.gs, .ng = o.ng,
					     .steps = c.steps ? c.steps : o.steps, .log = stderr};
		memcpy(mr.vers, o.vers, sizeof(mr.vers));
		char written[4096];
		if (nbw_predict_measure(&c, &mr, written, sizeof(written), err, sizeof(err))) {
			nbw_calib_free(&c);
			fprintf(stderr, "nodebw: error: %s\n", err);
			return 1;
		}
	}
	/* The validation to recommend by: the calibration's own, or --results'. */
	char val_from[1200];
	snprintf(val_from, sizeof(val_from), "stored in %s", o.file);
	if (o.results && nbw_predict_validation_from_results(o.results, &c, val_from,
							     sizeof(val_from), err, sizeof(err))) {
		nbw_calib_free(&c);
		goto usage_error;
	}
	size_t nrows = (size_t)o.nn * (size_t)o.ng * 4, nadv = 0;
	struct predict_advice *adv = calloc(nrows, sizeof(*adv));
	if (!adv) {
		nbw_calib_free(&c);
		return 1;
	}
	json_t *out = json_array();
	/* The table goes to a buffer first: on an error nothing but the message is printed. */
	char *table = NULL;
	size_t table_len = 0;
	FILE *tf = open_memstream(&table, &table_len);
	if (!tf) {
		json_decref(out);
		free(adv);
		nbw_calib_free(&c);
		return 1;
	}
	if (!o.json)
		table_head(tf, &o, &c);
	int rc = predict_all(&o, &c, val_from, tf, out, adv, &nadv, err, sizeof(err));
	if (rc == 0 && !o.json)
		nbw_predict_advice_block(tf, adv, nadv);
	fclose(tf);
	free(adv);
	if (o.json && rc == 0) {
		json_dumpf(out, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
		printf("\n");
	} else if (rc == 0) {
		fwrite(table, 1, table_len, stdout);
	}
	free(table);
	json_decref(out);
	nbw_calib_free(&c);
	if (rc)
		goto usage_error;
	return 0;
usage_error:
	fprintf(stderr, "nodebw: error: %s\n", err);
	return NBW_EXIT_USAGE;
}
