/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A verdict for every measured path (include/nodebw/verdict.h, doc/check.md).
 *
 * Paths: the verified single-stream HtoD and DtoH copies per device, and the verified P2P
 * copies per ordered pair, one at a time ("single") or both directions at once ("bidir").
 * Same-device copies are no peer link and chase measurements give a latency, not a
 * bandwidth: neither is a path here. Each criterion that names the path's device (every
 * device of a P2P pair) selects the path's measurements it speaks of (engine, mode, host
 * memory), takes those at the run's comparison size (nbw_analysis_comparison_bytes: every
 * device and pair has it, so no path is judged at a size its peers lack; at least the
 * criterion's min_bytes) and judges the best median GB/s there. The theoretical figure is
 * judged on the best copy at the comparison size. The path's verdict is the worst of its judgements: below a
 * threshold, below a reference, pass; "not judged" when nothing applied or a site threshold
 * could not be evaluated (no measurement of the kind it names) and nothing failed.
 * Copies made at the same time (each pair during all-to-all, and the aggregates) are paths
 * too: analysis/verdicts_conc.c. A bidirectional path shows both of its figures
 * (include/nodebw/bidir.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "criteria.h"
#include "verdicts_priv.h"
#include "measure.h"
#include "nodebw/analysis.h"
#include "nodebw/bidir.h"
#include "verdicts_conc.h"
#include "nodebw/link_health.h"
#include "nodebw/sizes.h"

#define V_PASS "pass"
#define V_THR "below threshold"
#define V_REF "below reference"
#define V_NJ "not judged"
#define V_WARN NBW_VERDICT_WARNING

struct pmeas {
	struct nbw_rv_meas x;
	char key[96];
	const char *name_src, *name_dst; /* device names ("" for the host) */
	bool aggregate;                  /* every stream of a concurrent set together */
	char where[24];                  /* set for concurrent paths (nbw_vc_where) */
	char pci_src[24], pci_dst[24];   /* PCI IDs ("" unknown or the host) */
};

static int cmp_pmeas(const void *a, const void *b)
{
	const struct pmeas *p = a, *q = b;
	return strcmp(p->key, q->key);
}

static const char *dev_name(json_t *devices, const char *api, int id, char *pci, size_t len)
{
	struct nbw_rv_device d;
	struct nbw_rv_device nat;
	pci[0] = '\0';
	if (id < 0 || !nbw_rv_device_find(devices, api, id, &d))
		return "";
	/* An OpenMP device has the PCI IDs of the native device that is the same hardware. */
	if (!nbw_rv_device_pci_id(&d, pci, len) && d.native_api[0] &&
	    nbw_rv_device_find(devices, d.native_api, d.native_id, &nat))
		nbw_rv_device_pci_id(&nat, pci, len);
	return d.name;
}

/* A measurement that is a path's: fills the sort key. */
static bool take(json_t *devices, json_t *m, struct pmeas *p)
{
	if (!nbw_rv_meas_read(devices, m, &p->x) || !nbw_rv_meas_usable(&p->x) ||
	    p->x.plane_sweep || strcmp(p->x.mode, "chase") == 0 || p->x.same_device)
		return false;
	bool p2p = strcmp(p->x.direction, "p2p") == 0;
	if (!(strcmp(p->x.concurrency, "single") == 0 ||
	      (p2p && strcmp(p->x.concurrency, "bidir") == 0)))
		return false;
	if (!p2p && strcmp(p->x.direction, "htod") && strcmp(p->x.direction, "dtoh"))
		return false;
	snprintf(p->key, sizeof(p->key), "%s|%s|%s|%04d|%04d", p->x.api, p->x.direction,
		 p->x.concurrency, p->x.src + 1, p->x.dst + 1);
	p->name_src = dev_name(devices, p->x.api, p->x.src, p->pci_src, sizeof(p->pci_src));
	p->name_dst = dev_name(devices, p->x.api, p->x.dst, p->pci_dst, sizeof(p->pci_dst));
	return true;
}

/* A path of copies made at the same time (analysis/verdicts_conc.c). */
static void take_conc(json_t *devices, const struct nbw_vc_path *v, struct pmeas *p)
{
	p->x = v->x;
	p->aggregate = v->aggregate;
	nbw_vc_where(v, p->where, sizeof(p->where));
	snprintf(p->key, sizeof(p->key), "%s|%s|%s%s|%04d|%04d", p->x.api, p->x.direction,
		 p->x.concurrency, v->aggregate ? "+" : "", v->aggregate ? 0 : p->x.src + 1,
		 v->aggregate ? 0 : p->x.dst + 1);
	p->name_src = dev_name(devices, p->x.api, p->x.src, p->pci_src, sizeof(p->pci_src));
	p->name_dst = dev_name(devices, p->x.api, p->x.dst, p->pci_dst, sizeof(p->pci_dst));
}

/* Whether \p r speaks of the path of \p p (devices by PCI ID or name, API, direction,
 * concurrency); \p how says how its devices matched. */
static bool names_path(const struct nbw_crit *r, const struct pmeas *p, char *how, size_t len)
{
	char other[64];
	how[0] = '\0';
	if ((r->api[0] && strcmp(r->api, p->x.api)) || strcmp(r->direction, p->x.direction) ||
	    strcmp(r->concurrency, p->x.concurrency) || r->aggregate != p->aggregate)
		return false;
	if (p->x.src >= 0 && !nbw_crit_matches(r, p->name_src, p->pci_src, how, len))
		return false;
	if (p->x.dst >= 0 && !nbw_crit_matches(r, p->name_dst, p->pci_dst,
					       p->x.src >= 0 ? other : how,
					       p->x.src >= 0 ? sizeof(other) : len))
		return false;
	return !r->link_match[0] || strstr(p->x.link, r->link_match);
}

/* Whether \p r selects this measurement of its path (engine, mode, host memory). */
static bool selects(const struct nbw_crit *r, const struct nbw_rv_meas *x)
{
	bool kernel = strcmp(x->mode, "kernel") == 0;
	if (strcmp(r->engine, "copy") == 0 && kernel)
		return false;
	if (strcmp(r->engine, "kernel") == 0 && !kernel)
		return false;
	if (r->mode[0] && strcmp(r->mode, x->mode))
		return false;
	return !r->host_mem[0] || strcmp(r->host_mem, x->host_mem) == 0;
}

static const char *selection_words(const struct nbw_crit *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", strcmp(r->engine, "kernel") == 0 ? "kernel copies"
					 : strcmp(r->engine, "any") == 0 ? "copies"
									 : "copy-engine copies",
		 r->mode[0] ? ", mode " : "", r->mode, r->host_mem[0] ? ", host memory " : "",
		 r->host_mem);
	return buf;
}

/* The best measurement of p[0..n) that \p r selects at the comparison size \p cmp; NULL
 * when none is. With \p any_size, the largest size among them instead (what a "not
 * judged" reason names). */
static const struct pmeas *best_of(const struct pmeas *p, size_t n, const struct nbw_crit *r,
				   long long cmp, bool any_size)
{
	const struct pmeas *best = NULL;
	for (size_t i = 0; i < n; i++) {
		if (r && !selects(r, &p[i].x))
			continue;
		if (!r && strcmp(p[i].x.mode, "kernel") == 0)
			continue; /* the theoretical figure is the link's; copy engines first */
		if (!any_size && p[i].x.bytes != cmp)
			continue;
		if (!best || p[i].x.bytes > best->x.bytes ||
		    (p[i].x.bytes == best->x.bytes && p[i].x.gbps > best->x.gbps))
			best = &p[i];
	}
	return best;
}

static json_t *judgement(const char *against, const char *what, const char *source,
			 double limit, const struct pmeas *b, const char *verdict,
			 const char *reason)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:s?, s:s?, s:o, s:s, s:s}", "against",
			 against, "what", what, "source", source, "limit_gbps",
			 nbw_an_num(limit, true), "gbps", nbw_an_num(b ? b->x.gbps : NAN, true),
			 "mode", b ? b->x.mode : NULL, "host_mem", b ? b->x.host_mem : NULL,
			 "bytes", b ? json_integer(b->x.bytes) : json_null(), "verdict", verdict,
			 "reason", reason);
}

/* A published row's judgement gains its reference, the fraction of it, its minimum's
 * source and how the row matched the device. */
static json_t *with_reference(json_t *j, const struct nbw_crit *r, const struct pmeas *b,
			      const char *how)
{
	json_object_set_new(j, "matched_by", json_string(how));
	if (r->kind != NBW_CRIT_PUBLISHED)
		return j;
	json_object_set_new(j, "reference_gbps", nbw_an_num(r->reference, true));
	json_object_set_new(j, "reference_source", json_string(r->reference_source));
	json_object_set_new(j, "fraction_of_reference",
			    nbw_an_num(b ? b->x.gbps / r->reference : NAN, true));
	if (r->minimum_source[0])
		json_object_set_new(j, "minimum_source", json_string(r->minimum_source));
	return j;
}

static json_t *judge_crit(const struct nbw_criteria *c, const struct nbw_crit *r,
			  const struct pmeas *p, size_t n, long long cmp, const char *how)
{
	char reason[900], sel[160], src[1500], csz[32], sz[32];
	nbw_size_label(cmp > 0 ? (uint64_t)cmp : 0, csz, sizeof(csz));
	const struct pmeas *b = best_of(p, n, r, cmp, false);
	bool thr = r->kind == NBW_CRIT_THRESHOLD;
	const char *against = thr ? "threshold" : "published";
	snprintf(src, sizeof(src), "%s%s%s", thr ? c->thr_file : r->source,
		 !thr && r->url[0] ? " " : "", thr ? "" : r->url);
	if (!b) {
		if (best_of(p, n, r, cmp, true))
			snprintf(reason, sizeof(reason), "%s on this path were not measured at %s, "
				 "the comparison size (no figure is taken from another size)",
				 selection_words(r, sel, sizeof(sel)), csz);
		else
			snprintf(reason, sizeof(reason), "no verified measurement of %s on this path",
				 selection_words(r, sel, sizeof(sel)));
		return with_reference(judgement(against, r->name, src, r->lo, NULL, V_NJ, reason),
				      r, NULL, how);
	}
	/* A per-direction figure is met by the slower direction of a bidirectional pair
	 * (include/nodebw/bidir.h); the sum by the measurement's own figure. */
	struct pmeas slower;
	struct nbw_bidir bd;
	bool per_dir = r->bidir_per_direction && nbw_bidir_figures(&b->x, &bd);
	if (per_dir) {
		slower = *b;
		slower.x.gbps = nbw_bidir_slower(&bd);
		b = &slower;
	}
	long long need = r->min_bytes;
	if (!thr && need > NBW_CRIT_SATURATED_BYTES)
		need = NBW_CRIT_SATURATED_BYTES;
	if (need > 0 && b->x.bytes < need) {
		nbw_size_label((uint64_t)need, sz, sizeof(sz));
		snprintf(reason, sizeof(reason), "the comparison size, %s, is below the %s the "
			 "figure needs", csz, sz);
		return with_reference(judgement(against, r->name, src, r->lo, b, V_NJ, reason), r,
				      b, how);
	}
	/* The minimum: a threshold's, a published row's own (a health check's), else derived
	 * from the published figure (tolerance; spec-only: the theoretical fraction). */
	bool own_min = !thr && !isnan(r->minimum);
	double limit = thr ? r->lo : own_min ? r->minimum
		       : r->spec_only ? c->theoretical_fraction * r->lo
				      : (1.0 - c->ref_tolerance) * r->lo;
	bool ok = b->x.gbps >= limit;
	/* A published minimum's warning band: [minimum, 1.05 x minimum), as Azure's checks. */
	bool warn = ok && own_min && b->x.gbps < NBW_WARN_BAND * limit;
	if (thr)
		snprintf(reason, sizeof(reason), "%.2f GB/s%s at %s (%s %s) %s the site threshold "
			 "%.2f GB/s", b->x.gbps, per_dir ? " (the slower direction)" : "", csz,
			 b->x.mode, b->x.host_mem, ok ? ">=" : "<", limit);
	else if (own_min)
		snprintf(reason, sizeof(reason), "%.2f GB/s%s at %s (%s %s) = %.0f %% of the "
			 "reference %g GB/s; %s the published minimum %g GB/s%s (matched by %s)",
			 b->x.gbps, per_dir ? " (the slower direction)" : "", csz, b->x.mode,
			 b->x.host_mem, 100.0 * b->x.gbps / r->reference, r->reference,
			 ok ? ">=" : "<", limit, warn ? ", below 1.05 x it (warning band)" : "", how);
	else
		snprintf(reason, sizeof(reason), "%.2f GB/s%s at %s (%s %s) = %.0f %% of the "
			 "reference %g GB/s; %s %.2f GB/s = %.0f %% of the %s %g GB/s (matched by %s)",
			 b->x.gbps, per_dir ? " (the slower direction)" : "", csz, b->x.mode,
			 b->x.host_mem, 100.0 * b->x.gbps / r->reference, r->reference,
			 ok ? ">=" : "<", limit, 100.0 * limit / r->lo,
			 r->spec_only ? "datasheet's" : "published", r->lo, how);
	return with_reference(judgement(against, r->name, src, limit, b,
					warn ? V_WARN : ok ? V_PASS : thr ? V_THR : V_REF, reason),
			      r, b, how);
}

static json_t *judge_theoretical(const struct nbw_criteria *c, const struct pmeas *p, size_t n,
				 long long cmp)
{
	const struct pmeas *b = best_of(p, n, NULL, cmp, false);
	if (!b || !(b->x.theoretical > 0))
		return NULL;
	double f = c ? c->theoretical_fraction : NBW_THEORETICAL_FRACTION_DEFAULT;
	double limit = f * b->x.theoretical;
	bool ok = b->x.gbps >= limit;
	char what[160], reason[400], csz[32];
	nbw_size_label((uint64_t)b->x.bytes, csz, sizeof(csz));
	snprintf(what, sizeof(what), "%s, theoretical %.1f GB/s", b->x.link, b->x.theoretical);
	snprintf(reason, sizeof(reason), "%.2f GB/s at %s (%s %s) %s %.0f %% of the link's "
		 "theoretical %.1f GB/s (%s)", b->x.gbps, csz, b->x.mode, b->x.host_mem, ok ? ">=" : "<",
		 100.0 * f, b->x.theoretical, b->x.link);
	return judgement("theoretical", what, "the topology (results' theoretical figure)", limit,
			 b, ok ? V_PASS : V_REF, reason);
}

static int rank(const char *v)
{
	return !strcmp(v, V_THR) ? 4 : !strcmp(v, V_REF) ? 3 : !strcmp(v, V_WARN) ? 2
	       : !strcmp(v, V_NJ) ? 1 : 0;
}

/* The path's verdict from its judgements: the worst failure; else "not judged" when a
 * site threshold could not be evaluated or nothing judged it; else pass. */
static void settle(json_t *path, json_t *js, const struct pmeas *p)
{
	const char *verdict = V_NJ, *reason = NULL;
	int worst = -1;
	bool thr_unjudged = false;
	size_t i;
	json_t *j;
	json_array_foreach(js, i, j) {
		const char *v = json_string_value(json_object_get(j, "verdict"));
		int r = rank(v);
		if (r == 1 && strcmp(json_string_value(json_object_get(j, "against")), "threshold") == 0)
			thr_unjudged = true;
		if (r == 1)
			continue;
		if (r > worst) {
			worst = r;
			verdict = v;
			reason = json_string_value(json_object_get(j, "reason"));
		}
	}
	char buf[600];
	if (worst < 3 && thr_unjudged) {
		verdict = V_NJ;
		reason = "a site threshold names this path but its measurements were not taken "
			 "(see the threshold's judgement)";
	} else if (worst < 0) {
		if (p->x.host_memory)
			reason = "host memory (a host-plugin device or host region): no link, no GPU "
				 "model and no theoretical figure; only a site threshold that names "
				 "it judges it";
		else {
			snprintf(buf, sizeof(buf), "no site threshold or published figure for %s, "
				 "and no theoretical figure for its link (%s)",
				 p->name_src[0] ? p->name_src : p->name_dst, p->x.link);
			reason = buf;
		}
	}
	json_object_set_new(path, "verdict", json_string(verdict));
	json_object_set_new(path, "reason", json_string(reason ? reason : ""));
}

static json_t *judge_path(const struct nbw_criteria *c, const struct pmeas *p, size_t n,
			  struct nbw_rule_use *used, long long cmp)
{
	json_t *js = json_array();
	char how[96];
	for (size_t k = 0; c && k < c->n; k++) {
		if (!names_path(&c->v[k], p, how, sizeof(how)))
			continue;
		json_t *j = judge_crit(c, &c->v[k], p, n, cmp, how);
		used[k].paths++;
		used[k].judged += strcmp(json_string_value(json_object_get(j, "verdict")), V_NJ) != 0;
		json_array_append_new(js, j);
	}
	json_t *t = judge_theoretical(c, p, n, cmp);
	if (t)
		json_array_append_new(js, t);
	const struct pmeas *b = best_of(p, n, NULL, cmp, false);
	if (!b)
		b = p;
	char where[32];
	bool p2p = strcmp(p->x.direction, "p2p") == 0;
	if (p->where[0])
		snprintf(where, sizeof(where), "%s", p->where);
	else if (p2p)
		snprintf(where, sizeof(where), "%d%s%d", p->x.src,
			 strcmp(p->x.concurrency, "bidir") ? "->" : "<->", p->x.dst);
	else
		snprintf(where, sizeof(where), "%d", p->x.src >= 0 ? p->x.src : p->x.dst);
	json_t *path = json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:I, s:o}", "api",
				 p->x.api, "direction", p->x.direction, "concurrency",
				 p->x.concurrency, "src", p->x.src, "dst", p->x.dst, "where", where,
				 "device", p->name_src[0] ? p->name_src : p->name_dst, "link",
				 b->x.link, "bytes", (json_int_t)cmp, "judgements", js);
	json_object_set_new(path, "aggregate", json_boolean(p->aggregate));
	nbw_bidir_json(path, &b->x);
	settle(path, js, p);
	return path;
}

json_t *nbw_verdicts(json_t *devices, json_t *measurements, const struct nbw_criteria *c)
{
	size_t nm = json_array_size(measurements), n = 0;
	struct pmeas *p = calloc(nm ? nm : 1, sizeof(*p));
	struct nbw_rule_use *used = calloc(c && c->n ? c->n : 1, sizeof(*used));
	json_t *paths = json_array(), *counts = json_object(), *unmatched = json_array();
	if (!p || !used || !paths || !counts || !unmatched) {
		free(p);
		free(used);
		json_decref(paths);
		json_decref(counts);
		json_decref(unmatched);
		return NULL;
	}
	for (size_t i = 0; i < nm; i++)
		n += take(devices, json_array_get(measurements, i), &p[n]);
	struct nbw_vc_path *cv = NULL;
	size_t ncv = nbw_vc_paths(devices, measurements, &cv);
	struct pmeas *grown = ncv ? realloc(p, (n + ncv) * sizeof(*p)) : p;
	for (size_t i = 0; grown && i < ncv; i++) {
		p = grown;
		memset(&p[n], 0, sizeof(p[n]));
		take_conc(devices, &cv[i], &p[n++]);
	}
	free(cv);
	long long cmp = nbw_analysis_comparison_bytes(devices, measurements);
	char csz[32];
	nbw_size_label(cmp > 0 ? (uint64_t)cmp : 0, csz, sizeof(csz));
	qsort(p, n, sizeof(*p), cmp_pmeas);
	const char *const names[] = { V_PASS, V_WARN, V_THR, V_REF, V_NJ };
	for (size_t i = 0; i < 5; i++)
		json_object_set_new(counts, names[i], json_integer(0));
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && strcmp(p[j].key, p[i].key) == 0; j++)
			;
		json_t *path = judge_path(c, &p[i], j - i, used, cmp);
		const char *v = json_string_value(json_object_get(path, "verdict"));
		json_object_set_new(counts, v, json_integer(json_integer_value(
							   json_object_get(counts, v)) + 1));
		json_array_append_new(paths, path);
	}
	for (size_t k = 0; c && k < c->n; k++)
		if (!used[k].paths && c->v[k].kind == NBW_CRIT_THRESHOLD)
			json_array_append_new(unmatched, json_string(c->v[k].name));
	json_t *rules = nbw_verdicts_rules_unjudged(c, used);
	free(p);
	free(used);
	json_int_t failed = json_integer_value(json_object_get(counts, V_THR)) +
			    json_integer_value(json_object_get(counts, V_REF));
	char rule[600];
	snprintf(rule, sizeof(rule), "each path at %s, the comparison size (every device and "
		 "pair has it), the best of the measurements a criterion selects (each pair during "
		 "all-to-all by its own stream, the aggregates by all streams' bytes / wall time): "
		 "site threshold (>= min_gbps), published "
		 "figure (>= the row's minimum, a warning below %.2f x it; a row without one: >= "
		 "%.0f %% of its low end; spec-only rows and the link's theoretical figure: >= "
		 "%.0f %%)", csz, NBW_WARN_BAND,
		 100.0 * (1.0 - (c ? c->ref_tolerance : NBW_REF_TOLERANCE_DEFAULT)),
		 100.0 * (c ? c->theoretical_fraction : NBW_THEORETICAL_FRACTION_DEFAULT));
	json_t *v = json_pack("{s:s, s:s, s:s?, s:s?, s:o, s:I, s:o, s:o, s:o}", "units",
			      "GB/s = 1e9 bytes per second", "rule", rule, "thresholds_file",
			      c && c->thr_file[0] ? c->thr_file : NULL, "references_file",
			      c && c->ref_file[0] ? c->ref_file : NULL, "counts", counts, "failed",
			      failed, "paths", paths, "unmatched_thresholds", unmatched,
			      "rules_not_judged", rules ? rules : json_array());
	nbw_verdicts_set_outcome(v);
	return v;
}

int nbw_verdicts_failed(json_t *v)
{
	return (int)json_integer_value(json_object_get(v, "failed")) + nbw_link_health_failed(v);
}

static void print_path(FILE *f, json_t *p)
{
	const char *dir = json_string_value(json_object_get(p, "direction"));
	fprintf(f, "  %-15s %-5s %s %-6s %-9s %-22.22s %s\n",
		json_string_value(json_object_get(p, "verdict")),
		json_string_value(json_object_get(p, "api")), dir,
		json_string_value(json_object_get(p, "concurrency")),
		json_string_value(json_object_get(p, "where")),
		json_string_value(json_object_get(p, "link")),
		json_string_value(json_object_get(p, "reason")));
	char both[160];
	nbw_bidir_words(json_object_get(p, "bidir"), both, sizeof(both));
	if (both[0])
		fprintf(f, "  %-15s both directions at once: %s\n", "", both);
}

/* The paths not judged, one line per reason (with --all each is listed instead). */
static void print_unjudged(FILE *f, json_t *paths)
{
	size_t n = json_array_size(paths);
	bool *done = calloc(n ? n : 1, sizeof(*done));
	if (!done)
		return;
	for (size_t i = 0; i < n; i++) {
		json_t *p = json_array_get(paths, i);
		if (done[i] || strcmp(json_string_value(json_object_get(p, "verdict")), V_NJ))
			continue;
		const char *why = json_string_value(json_object_get(p, "reason"));
		size_t count = 0;
		for (size_t k = i; k < n; k++) {
			json_t *q = json_array_get(paths, k);
			if (!done[k] && !strcmp(json_string_value(json_object_get(q, "verdict")), V_NJ) &&
			    !strcmp(json_string_value(json_object_get(q, "reason")), why)) {
				done[k] = true;
				count++;
			}
		}
		fprintf(f, "  not judged: %zu path%s (first %s %s %s): %s\n", count,
			count == 1 ? "" : "s", json_string_value(json_object_get(p, "api")),
			json_string_value(json_object_get(p, "direction")),
			json_string_value(json_object_get(p, "where")), why);
	}
	free(done);
}

void nbw_verdicts_print(FILE *f, json_t *v, bool all)
{
	json_t *c = json_object_get(v, "counts"), *paths = json_object_get(v, "paths");
	nbw_verdicts_print_outcome(f, v);
	fprintf(f, "Verdicts (GB/s = 1e9 B/s): %zu paths: %lld pass, %lld warning, %lld below "
		   "threshold, %lld below reference, %lld not judged\n", json_array_size(paths),
		(long long)json_integer_value(json_object_get(c, V_PASS)),
		(long long)json_integer_value(json_object_get(c, V_WARN)),
		(long long)json_integer_value(json_object_get(c, V_THR)),
		(long long)json_integer_value(json_object_get(c, V_REF)),
		(long long)json_integer_value(json_object_get(c, V_NJ)));
	fprintf(f, "  rule: %s\n", json_string_value(json_object_get(v, "rule")));
	const char *tf = json_string_value(json_object_get(v, "thresholds_file"));
	const char *rf = json_string_value(json_object_get(v, "references_file"));
	fprintf(f, "  thresholds: %s; published figures: %s\n", tf ? tf : "none given",
		rf ? rf : "none");
	size_t i, shown = 0;
	json_t *p;
	json_array_foreach(paths, i, p) {
		int r = rank(json_string_value(json_object_get(p, "verdict")));
		if (!all && r < 2)
			continue;
		if (!shown++)
			fprintf(f, "  %-15s %-5s %s %-6s %-9s %-22s %s\n", "verdict", "api", "dir",
				"conc.", "path", "link", "reason");
		print_path(f, p);
	}
	if (!all)
		print_unjudged(f, paths);
	size_t passed = (size_t)json_integer_value(json_object_get(c, V_PASS));
	if (!all && passed)
		fprintf(f, "  %zu path%s pass (--all lists every path with its reason)\n", passed,
			passed == 1 ? "" : "s");
	nbw_verdicts_print_rules(f, v);
	nbw_link_health_print(f, v, all);
}
