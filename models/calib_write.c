/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibrations written as JSON (the schema nodebw-calibration, doc/model.md); read back
 * by calib_read.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/model.h"
#include "nodebw/advice.h"
#include "calib_priv.h"

static json_t *ks_json(const struct nbw_ksample *k, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:i, s:i, s:f}", "n", k[i].n, "planes",
						   k[i].planes, "k", k[i].k));
	return a;
}

static json_t *end_json(int dev)
{
	return dev < 0 ? json_string("host") : json_integer(dev);
}

static json_t *xpath_json(const struct nbw_xpath *p)
{
	json_t *o = json_object();
	if (p->ends_known) {
		json_object_set_new(o, "src", end_json(p->src));
		json_object_set_new(o, "dst", end_json(p->dst));
	}
	if (p->alpha_s >= 0.0)
		json_object_set_new(o, "alpha_s", json_real(p->alpha_s));
	if (p->beta_gbps > 0.0)
		json_object_set_new(o, "beta_gbps", json_real(p->beta_gbps));
	json_t *pts = json_array();
	for (size_t j = 0; j < p->n; j++)
		json_array_append_new(pts, json_pack("[f, f]", p->bytes[j], p->seconds[j]));
	json_object_set_new(o, "points", pts);
	if (p->nplanes) {
		json_t *a = json_array();
		for (size_t j = 0; j < p->nplanes; j++) {
			const struct nbw_xplane *q = &p->planes[j];
			json_t *e = json_pack("{s:f, s:i, s:f, s:f}", "bytes", q->bytes, "processes",
					      q->processes, "fastest_s", q->fastest_s, "slowest_s",
					      q->slowest_s);
			if (q->main_s > 0.0)
				json_object_set_new(e, "main_run_s", json_real(q->main_s));
			json_array_append_new(a, e);
		}
		json_object_set_new(o, "plane_sweep", a);
	}
	return o;
}

/* "transfer_sets": one object per device or ordered pair; "ratio" marks a matrix
 * estimate. A key older readers ignore, so the schema stays at version 1. */
static json_t *sets_json(const struct nbw_calib *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->nsets; i++) {
		const struct nbw_xset *s = &c->sets[i];
		struct nbw_xpath own = s->own;
		own.ends_known = false;
		if (s->estimate) {
			own.alpha_s = -1.0;
			own.beta_gbps = 0.0;
		}
		json_t *o = xpath_json(&own);
		json_object_set_new(o, "path", json_string(s->path));
		json_object_set_new(o, "src", end_json(s->src));
		json_object_set_new(o, "dst", end_json(s->dst));
		json_object_set_new(o, "size_set", json_string(s->estimate ? "matrix" : "sweep"));
		if (s->estimate) {
			json_t *r = json_array();
			for (size_t j = 0; j < s->nratio; j++)
				json_array_append_new(r, json_pack("[f, f]", s->ratio_bytes[j],
								   s->ratio[j]));
			json_object_set_new(o, "ratio", r);
			json_object_set_new(o, "ratio_to", json_string(s->ratio_to));
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* Which model each term comes from, and whether this calibration has it (doc/model.md). */
static json_t *models_json(const struct nbw_calib *c)
{
	const char *xfer = "transfer: the busiest host thread's planes at the probes' time of one "
			   "8 N^2-byte copy on the version's path (transfers, transfer_sets), the "
			   "bandwidth term x contention (the dual/bidir probes)";
	const char *copies =
		"copies (Versions 3-4): the launch probe's staged-copy (v3) or direct-copy (v4) "
		"step less its per-device step on G devices, at N (linear in the plane's bytes "
		"between measured N); outside the measured N the transfer curves x "
		"oversubscription (on host-plugin devices x G / host_cpus where G > host_cpus)";
	const char *overlap = "overlap: boundary + max(interior, transfer) where the devices run "
			      "asynchronously (device_kind, hidden_helpers)";
	return json_pack(
		"{s:{s:b, s:s, s:[s, s]}, s:{s:b, s:s, s:[s, s, s, s, s]},"
		" s:{s:b, s:s, s:[s, s, s, s, s]}, s:{s:b, s:s, s:[s, s, s, s]}}",
		"paper", "available", c->nk > 0 || c->kbar_given > 0.0, "needs",
		"one-device N^3 runs (k) and the transfer probes",
		"terms", "compute: k-bar (k.samples: one-device N^3 runs) x (N-2)^3 / G",
		"transfer: one plane at beta HtoD + DtoH or beta P2P measured at the plane size",
		"one-device", "available", c->nslab > 0, "needs",
		"one-device runs only: the slab runs (k_slab), the co-run probe (corun), the launch "
		"probe (launch) and the transfer probes; no run of Versions 1-4",
		"terms",
		"compute, one host thread (v1-v2): the co-run of G devices driven by one thread + "
		"(2G - 2) x the one-thread launch probe's step / 2G; without corun: G x the slab "
		"step on host-plugin devices without hidden helpers, else the slab step",
		"compute, a thread per device (v3-v4): the co-run of min(G, host_cpus) devices x G "
		"/ that number + the per-device launch probe's step; without corun: the slab step "
		"instead of the co-run's",
		xfer, copies, overlap,
		"compute-calibrated", "available", c->ncs > 0, "needs",
		"the versions' compute-only runs (compute_only: v1-v4 on G devices without the halo "
		"copies)",
		"terms",
		"compute: compute_only (one host thread for v1-v2, a thread per device for v3-v4, "
		"without the halo copies); a version's own paired_with runs where measured, else "
		"the form's; at another N carried over by the slab runs with the launch probe's "
		"step kept apart",
		xfer, copies, overlap, "overhead: none beyond compute_only",
		"fitted", "available", c->nvs > 0, "needs",
		"the versions' timed runs (versions: measured_step_s) at other N, and "
		"compute_only",
		"terms",
		"interaction: the mean of the compute-calibrated step x the other sizes' median "
		"measured / compute-calibrated ratio and the compute-calibrated step + their "
		"median difference (versions: measured_step_s; measured_paired: the "
		"speed-matched step of --paired runs)",
		"without compute_only: compute = k_slab (one-device runs of the slab shape) x busy "
		"(versions: instrumented v1-v4 runs, least squares over the sizes)",
		xfer, "overhead: the interaction's difference, or the intercept of that fit");
}

json_t *nbw_calib_to_json(const struct nbw_calib *c)
{
	json_t *paths = json_object();
	for (size_t i = 0; i < c->npaths; i++)
		json_object_set_new(paths, c->paths[i].name, xpath_json(&c->paths[i]));
	json_t *vs = json_array();
	for (size_t i = 0; i < c->nvs; i++) {
		const struct nbw_vsample *v = &c->vs[i];
		json_t *o = json_pack("{s:s, s:i, s:i, s:f}", "version", v->version, "G", v->g,
				      "n", v->n, "busy", v->busy);
		if (v->measured_s > 0.0)
			json_object_set_new(o, "measured_step_s", json_real(v->measured_s));
		if (v->measured_s > 0.0 && v->paired)
			json_object_set_new(o, "measured_paired", json_true());
		if (v->x_s > 0.0) {
			json_object_set_new(o, "slab_compute_s", json_real(v->x_s));
			json_object_set_new(o, "step_s", json_real(v->y_s));
		} else {
			json_object_set_new(o, "overhead_s", json_real(v->overhead_s));
		}
		json_array_append_new(vs, o);
	}
	json_t *k = json_pack("{s:o}", "samples", ks_json(c->k, c->nk));
	if (c->kbar_given > 0.0)
		json_object_set_new(k, "kbar", json_real(c->kbar_given));
	json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:i, s:i, s:s, s:o, s:o, s:o, s:o}", "schema",
			      NBW_CALIB_SCHEMA, "schema_version", NBW_CALIB_VERSION, "source",
			      c->source, "device_kind", c->device_kind, "hidden_helpers",
			      c->hidden_helpers, "steps", c->steps, "units",
			      "seconds, bytes, GB/s = 1e9 B/s; k in seconds per interior point and "
			      "step; one halo plane = 8 N^2 bytes",
			      "k", k, "k_slab", ks_json(c->slab, c->nslab), "transfers", paths,
			      "versions", vs);
	if (c->host_cpus > 0)
		json_object_set_new(j, "host_cpus", json_integer(c->host_cpus));
	if (c->nsets)
		json_object_set_new(j, "transfer_sets", sets_json(c));
	if (c->ncs) {
		json_t *a = json_array();
		for (size_t i = 0; i < c->ncs; i++) {
			json_t *o = json_pack("{s:s, s:i, s:i, s:f}", "host_threads",
					      c->cs[i].per_device ? "per-device" : "one", "G",
					      c->cs[i].g, "n", c->cs[i].n, "step_s", c->cs[i].step_s);
			if (c->cs[i].paired[0])
				json_object_set_new(o, "paired_with", json_string(c->cs[i].paired));
			json_array_append_new(a, o);
		}
		json_object_set_new(j, "compute_only", a);
	}
	if (c->nlaunch) {
		json_t *a = json_array();
		for (size_t i = 0; i < c->nlaunch; i++) {
			const struct nbw_lsample *l = &c->launch[i];
			json_t *o = json_pack("{s:s, s:i, s:f, s:i}", "form", l->form, "G", l->g,
					      "step_s", l->step_s, "rounds", l->rounds);
			if (l->n)
				json_object_set_new(o, "N", json_integer(l->n));
			if (l->ci_hi_s > 0.0) {
				json_object_set_new(o, "ci_lo_s", json_real(l->ci_lo_s));
				json_object_set_new(o, "ci_hi_s", json_real(l->ci_hi_s));
			}
			json_array_append_new(a, o);
		}
		json_object_set_new(j, "launch", a);
	}
	if (c->ncorun) {
		json_t *a = json_array();
		for (size_t i = 0; i < c->ncorun; i++) {
			const struct nbw_corun *r = &c->corun[i];
			json_array_append_new(a, json_pack("{s:s, s:i, s:i, s:i, s:f}", "form",
							   r->per_device ? "per-device"
									 : "one-thread",
							   "G", r->g, "at_once", r->at_once, "n",
							   r->n, "step_s", r->step_s));
		}
		json_object_set_new(j, "corun", a);
	}
	if (c->nboxes)
		json_object_set_new(j, "local_boxes", nbw_calib_boxes_json(c));
	if (c->nboxcoruns)
		json_object_set_new(j, "local_box_coruns", nbw_calib_box_coruns_json(c));
	if (c->nfaces)
		json_object_set_new(j, "faces", nbw_calib_faces_json(c));
	if (c->valid)
		json_object_set_new(j, "validation", nbw_validation_json(c->valid));
	json_object_set_new(j, "models", models_json(c));
	return j;
}

/* Reading: every field is checked; a bad one is named by its JSON path. */
