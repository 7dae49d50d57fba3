/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The criteria a node is accepted by (include/nodebw/verdict.h): a site's thresholds file
 * and the shipped table of published figures, read into one list. Both files are checked
 * strictly: an unknown key, a wrong type or a value out of range is an error that names the
 * file, the line and column and the field, because a typo in a health-check file would
 * otherwise pass every node silently.
 */
#include "criteria.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/jclean.h"
#include "nodebw/jsonpos.h"
#include "nodebw/readfile.h"

struct nbw_criteria *nbw_criteria_new(void)
{
	struct nbw_criteria *c = calloc(1, sizeof(*c));
	if (c) {
		c->ref_tolerance = NBW_REF_TOLERANCE_DEFAULT;
		c->theoretical_fraction = NBW_THEORETICAL_FRACTION_DEFAULT;
		nbw_lh_limits_default(&c->lh);
	}
	return c;
}

void nbw_criteria_free(struct nbw_criteria *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

void nbw_criteria_set_limits(struct nbw_criteria *c, double ref_tolerance,
			     double theoretical_fraction)
{
	c->ref_tolerance = ref_tolerance;
	c->theoretical_fraction = theoretical_fraction;
}

/* ---- strict field readers: each returns 0, or -1 with "PATH: what" in err ----------- */

static int bad(char *err, size_t errlen, const char *where, const char *key, const char *what)
{
	snprintf(err, errlen, "%s.%s: %s", where, key, what);
	return -1;
}

static int get_str(json_t *o, const char *where, const char *key, bool required, char *out,
		   size_t len, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	if (!v) {
		out[0] = '\0';
		return required ? bad(err, errlen, where, key, "missing (a string)") : 0;
	}
	if (!json_is_string(v) || json_string_length(v) == 0)
		return bad(err, errlen, where, key, "must be a non-empty string");
	if (json_string_length(v) >= len)
		return bad(err, errlen, where, key, "too long");
	snprintf(out, len, "%s", json_string_value(v));
	return 0;
}

static int get_num(json_t *o, const char *where, const char *key, bool required, double lo,
		   double hi, double *out, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	if (!v) {
		if (required)
			return bad(err, errlen, where, key, "missing (a number)");
		return 0;
	}
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if (!isfinite(x) || x < lo || x > hi) {
		char what[96];
		snprintf(what, sizeof(what), "must be a number from %g to %g", lo, hi);
		return bad(err, errlen, where, key, what);
	}
	*out = x;
	return 0;
}

/* \p s must be one of \p words (NULL-terminated); "" (absent) passes. */
static int one_of(const char *s, const char *const *words, const char *where, const char *key,
		  char *err, size_t errlen)
{
	if (!s[0])
		return 0;
	char list[160] = "";
	for (size_t i = 0; words[i]; i++) {
		if (strcmp(s, words[i]) == 0)
			return 0;
		size_t n = strlen(list);
		snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", words[i]);
	}
	char what[200];
	snprintf(what, sizeof(what), "'%s' is not one of %s", s, list);
	return bad(err, errlen, where, key, what);
}

static int only_keys(json_t *o, const char *const *keys, const char *where, char *err,
		     size_t errlen)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		size_t i = 0;
		while (keys[i] && strcmp(keys[i], k))
			i++;
		if (!keys[i])
			return bad(err, errlen, where, k, "unknown key (doc/check.md lists them)");
	}
	return 0;
}

static int get_match(json_t *o, const char *where, const char *key, struct nbw_crit *r,
		     char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		v = json_pack("[O]", v);
	else if (json_is_array(v) && json_array_size(v) > 0 && json_array_size(v) <= NBW_CRIT_MATCHES)
		json_incref(v);
	else
		return bad(err, errlen, where, key,
			   "must be a string or a list of 1 to 8 strings (substrings of the "
			   "device name; \"*\" = every device)");
	size_t i;
	json_t *s;
	int rc = 0;
	json_array_foreach(v, i, s) {
		if (!json_is_string(s) || json_string_length(s) == 0 ||
		    json_string_length(s) >= sizeof(r->match[0])) {
			rc = bad(err, errlen, where, key, "each entry must be a string of 1 to 63 "
							  "characters");
			break;
		}
		snprintf(r->match[i], sizeof(r->match[i]), "%s", json_string_value(s));
	}
	r->nmatch = rc ? 0 : i;
	json_decref(v);
	return rc;
}

static const char *const dirs[] = { "htod", "dtoh", "p2p", NULL };
static const char *const concs[] = { "single", "bidir", "a2a", "all", NULL };
static const char *const bidir_figures[] = { "sum", "per_direction", NULL };
static const char *const engines[] = { "copy", "kernel", "any", NULL };
static const char *const mems[] = { "pageable", "pinned", "registered", "hugepage", "none", NULL };
static const char *const modes[] = { "sync", "async", "nowait", "parallel", "kernel", NULL };
static const char *const apis[] = { "omp", "cuda", "hip", "ze", "host", NULL };

/* Copies at the same time: "a2a" (P2P, each pair during all-to-all, or with "aggregate"
 * true all of them together), "all" (host-to-all, all-to-host: the aggregate); and which
 * figure of a bidirectional pair a rule gives, "bidir_figure": "sum" (the default) or
 * "per_direction" (include/nodebw/bidir.h). */
static int read_concurrent(json_t *o, const char *where, struct nbw_crit *r, char *err,
			   size_t errlen)
{
	char conc[16], fig[16];
	json_t *ag = json_object_get(o, "aggregate");
	if (ag && !json_is_boolean(ag))
		return bad(err, errlen, where, "aggregate", "must be true or false");
	if (get_str(o, where, "concurrency", false, conc, sizeof(conc), err, errlen) ||
	    get_str(o, where, "bidir_figure", false, fig, sizeof(fig), err, errlen) ||
	    one_of(fig, bidir_figures, where, "bidir_figure", err, errlen))
		return -1;
	bool p2p = json_is_string(json_object_get(o, "direction")) &&
		   strcmp(json_string_value(json_object_get(o, "direction")), "p2p") == 0;
	r->aggregate = json_is_true(ag) || strcmp(conc, "all") == 0;
	r->bidir_per_direction = strcmp(fig, "per_direction") == 0;
	if (strcmp(conc, "a2a") == 0 && !p2p)
		return bad(err, errlen, where, "concurrency",
			   "a2a (every ordered pair at once) is a P2P concurrency");
	if (strcmp(conc, "all") == 0 && p2p)
		return bad(err, errlen, where, "concurrency",
			   "all (every device at once) is a host-to-device or device-to-host "
			   "concurrency; P2P has a2a");
	if (strcmp(conc, "all") == 0 && json_is_false(ag))
		return bad(err, errlen, where, "aggregate",
			   "every device at once (all) is judged as its aggregate");
	if (ag && strcmp(conc, "a2a") && strcmp(conc, "all"))
		return bad(err, errlen, where, "aggregate",
			   "only copies at the same time (a2a, all) have an aggregate");
	if (fig[0] && strcmp(conc, "bidir"))
		return bad(err, errlen, where, "bidir_figure",
			   "only a bidirectional (bidir) rule says which of its figures it gives");
	return 0;
}

/* What thresholds and published rows share: the path they select. */
static int read_path(json_t *o, const char *where, struct nbw_crit *r, char *err, size_t errlen)
{
	double mb = 0;
	if (get_str(o, where, "api", false, r->api, sizeof(r->api), err, errlen) ||
	    one_of(r->api, apis, where, "api", err, errlen) ||
	    get_str(o, where, "direction", true, r->direction, sizeof(r->direction), err, errlen) ||
	    one_of(r->direction, dirs, where, "direction", err, errlen) ||
	    get_str(o, where, "concurrency", false, r->concurrency, sizeof(r->concurrency), err,
		    errlen) ||
	    one_of(r->concurrency, concs, where, "concurrency", err, errlen) ||
	    get_str(o, where, "engine", false, r->engine, sizeof(r->engine), err, errlen) ||
	    one_of(r->engine, engines, where, "engine", err, errlen) ||
	    get_str(o, where, "host_mem", false, r->host_mem, sizeof(r->host_mem), err, errlen) ||
	    one_of(r->host_mem, mems, where, "host_mem", err, errlen) ||
	    get_str(o, where, "mode", false, r->mode, sizeof(r->mode), err, errlen) ||
	    one_of(r->mode, modes, where, "mode", err, errlen) ||
	    get_num(o, where, "min_bytes", false, 0, 1e15, &mb, err, errlen) ||
	    read_concurrent(o, where, r, err, errlen))
		return -1;
	if (!r->concurrency[0])
		snprintf(r->concurrency, sizeof(r->concurrency), "single");
	if (!r->engine[0])
		snprintf(r->engine, sizeof(r->engine), "%s", strcmp(r->mode, "kernel") ? "copy" : "kernel");
	if (strcmp(r->concurrency, "bidir") == 0 && strcmp(r->direction, "p2p"))
		return bad(err, errlen, where, "concurrency",
			   "bidir (both directions at once) is a P2P concurrency");
	/* A rule that can match no path of its kind would judge nothing and let the node pass:
	 * a copy between devices touches no host memory, a copy to or from the host does. */
	bool p2p = strcmp(r->direction, "p2p") == 0;
	if (r->host_mem[0] && p2p && strcmp(r->host_mem, "none"))
		return bad(err, errlen, where, "host_mem",
			   "a device-to-device (p2p) copy has no host memory: only \"none\" matches");
	if (!p2p && strcmp(r->host_mem, "none") == 0)
		return bad(err, errlen, where, "host_mem",
			   "\"none\" is the host memory of device-to-device copies only");
	if (r->mode[0] && (strcmp(r->mode, "kernel") == 0) != (strcmp(r->engine, "kernel") == 0) &&
	    strcmp(r->engine, "any"))
		return bad(err, errlen, where, "mode", "contradicts engine");
	r->min_bytes = (long long)mb;
	return 0;
}

static int add(struct nbw_criteria *c, const struct nbw_crit *r, char *err, size_t errlen)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		struct nbw_crit *v = realloc(c->v, cap * sizeof(*v));
		if (!v) {
			snprintf(err, errlen, "out of memory reading the criteria");
			return -1;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *r;
	return 0;
}

static int read_threshold(json_t *o, const char *where, struct nbw_crit *r, char *err,
			  size_t errlen)
{
	static const char *const keys[] = { "name", "gpu", "api", "direction", "concurrency",
		"aggregate", "bidir_figure", "engine", "host_mem", "mode", "min_bytes", "min_gbps",
		"note", "pci_ids", NULL };
	memset(r, 0, sizeof(*r));
	r->kind = NBW_CRIT_THRESHOLD;
	r->minimum = r->reference = NAN;
	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s: must be an object", where);
		return -1;
	}
	if (only_keys(o, keys, where, err, errlen) ||
	    get_str(o, where, "name", false, r->name, sizeof(r->name), err, errlen) ||
	    get_match(o, where, "gpu", r, err, errlen) || read_path(o, where, r, err, errlen) ||
	    nbw_crit_read_pci(o, where, "pci_ids", r, err, errlen) ||
	    get_num(o, where, "min_gbps", true, 1e-9, 1e6, &r->lo, err, errlen))
		return -1;
	r->minimum = r->lo;
	json_t *n = json_object_get(o, "note");
	if (n && !json_is_string(n))
		return bad(err, errlen, where, "note", "must be a string");
	r->hi = r->lo;
	if (!r->name[0])
		snprintf(r->name, sizeof(r->name), "%s %s %s >= %g GB/s", r->match[0],
			 r->direction, r->concurrency, r->lo);
	return 0;
}

static int read_reference(json_t *o, const char *where, struct nbw_crit *r, char *err,
			  size_t errlen)
{
	static const char *const keys[] = { "gpu", "match", "api", "direction", "concurrency",
		"aggregate", "bidir_figure", "engine", "link", "link_match", "host_mem", "mode",
		"gbps_low", "gbps_high", "min_bytes", "basis", "source", "url", "note", "pci_ids",
		"minimum_gbps", "minimum_source", "reference_gbps", "reference_source",
		"pci_ids_source", NULL };
	static const char *const bases[] = { "measured", "floor", "spec-only", NULL };
	char basis[16];
	memset(r, 0, sizeof(*r));
	r->kind = NBW_CRIT_PUBLISHED;
	r->minimum = r->reference = NAN;
	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s: must be an object", where);
		return -1;
	}
	if (only_keys(o, keys, where, err, errlen) ||
	    get_str(o, where, "gpu", true, r->gpu, sizeof(r->gpu), err, errlen) ||
	    get_match(o, where, "match", r, err, errlen) || read_path(o, where, r, err, errlen) ||
	    get_str(o, where, "link", false, r->link, sizeof(r->link), err, errlen) ||
	    get_num(o, where, "gbps_low", true, 1e-9, 1e6, &r->lo, err, errlen) ||
	    get_num(o, where, "gbps_high", true, 1e-9, 1e6, &r->hi, err, errlen) ||
	    get_str(o, where, "basis", true, basis, sizeof(basis), err, errlen) ||
	    one_of(basis, bases, where, "basis", err, errlen) ||
	    get_str(o, where, "source", true, r->source, sizeof(r->source), err, errlen) ||
	    get_str(o, where, "url", false, r->url, sizeof(r->url), err, errlen) ||
	    nbw_crit_read_pci(o, where, "pci_ids", r, err, errlen) ||
	    get_num(o, where, "minimum_gbps", false, 1e-9, 1e6, &r->minimum, err, errlen) ||
	    get_str(o, where, "minimum_source", !isnan(r->minimum), r->minimum_source,
		    sizeof(r->minimum_source), err, errlen) ||
	    get_num(o, where, "reference_gbps", true, 1e-9, 1e6, &r->reference, err, errlen) ||
	    get_str(o, where, "reference_source", true, r->reference_source,
		    sizeof(r->reference_source), err, errlen))
		return -1;
	json_t *lm = json_object_get(o, "link_match");
	if (lm && !json_is_string(lm))
		return bad(err, errlen, where, "link_match", "must be a string");
	snprintf(r->link_match, sizeof(r->link_match), "%s", lm ? json_string_value(lm) : "");
	if (r->hi < r->lo)
		return bad(err, errlen, where, "gbps_high", "is below gbps_low");
	/* Every published bidirectional figure says which it is (include/nodebw/bidir.h). */
	if (strcmp(r->concurrency, "bidir") == 0 && !json_object_get(o, "bidir_figure"))
		return bad(err, errlen, where, "bidir_figure",
			   "missing: a bidirectional row gives the sum or each direction's figure "
			   "(\"sum\" or \"per_direction\")");
	r->spec_only = strcmp(basis, "spec-only") == 0;
	r->floor = strcmp(basis, "floor") == 0;
	if (r->floor && isnan(r->minimum))
		return bad(err, errlen, where, "minimum_gbps",
			   "missing: a floor row states the health check's minimum");
	if (!isnan(r->minimum) && r->minimum > r->reference)
		return bad(err, errlen, where, "minimum_gbps", "is above reference_gbps");
	if (!isnan(r->minimum) && json_object_get(o, "minimum_source") == NULL)
		return bad(err, errlen, where, "minimum_source", "missing (a string)");
	snprintf(r->name, sizeof(r->name), "%s %s %s%s", r->gpu, r->link[0] ? r->link : r->direction,
		 r->concurrency, r->spec_only ? " (spec only)" : r->floor ? " (published floor)" : "");
	return 0;
}

/* The document's head and its list of rules or rows. */
static int read_doc(struct nbw_criteria *c, json_t *j, bool thresholds, char *err,
		    size_t errlen)
{
	const char *schema = thresholds ? NBW_THRESHOLDS_SCHEMA : NBW_REFERENCES_SCHEMA;
	const char *list = thresholds ? "rules" : "rows";
	if (!json_is_object(j) || strcmp(json_string_value(json_object_get(j, "schema")) ?
					 json_string_value(json_object_get(j, "schema")) : "",
					 schema)) {
		snprintf(err, errlen, "schema: not a %s file (\"schema\": \"%s\" expected)",
			 thresholds ? "thresholds" : "references", schema);
		return -1;
	}
	if (json_integer_value(json_object_get(j, "version")) != 1) {
		snprintf(err, errlen, "version: only version 1 is known");
		return -1;
	}
	/* Every top-level key is known and of its type: a misspelt one is refused, not
	 * ignored (doc/check.md). */
	static const char *const thr_keys[] = { "schema", "version", "site", "note", "rules",
						"link_health", NULL };
	static const char *const ref_keys[] = { "schema", "version", "note", "rows", NULL };
	const char *k;
	json_t *v;
	json_object_foreach(j, k, v) {
		const char *const *keys = thresholds ? thr_keys : ref_keys;
		size_t i = 0;
		while (keys[i] && strcmp(keys[i], k))
			i++;
		if (!keys[i]) {
			snprintf(err, errlen, "%s: unknown key (doc/check.md lists them)", k);
			return -1;
		}
		if ((!strcmp(k, "site") || !strcmp(k, "note")) && !json_is_string(v)) {
			snprintf(err, errlen, "%s: must be a string", k);
			return -1;
		}
	}
	if (thresholds && json_object_get(j, "link_health") &&
	    nbw_lh_limits_parse(json_object_get(j, "link_health"), &c->lh, err, errlen))
		return -1;
	json_t *a = json_object_get(j, list);
	if (!json_is_array(a)) {
		snprintf(err, errlen, "%s: missing (a list)", list);
		return -1;
	}
	size_t i;
	json_t *o;
	json_array_foreach(a, i, o) {
		char where[48];
		struct nbw_crit r;
		snprintf(where, sizeof(where), "%s[%zu]", list, i);
		if ((thresholds ? read_threshold(o, where, &r, err, errlen)
				: read_reference(o, where, &r, err, errlen)) ||
		    add(c, &r, err, errlen))
			return -1;
	}
	return 0;
}

static int add_buffer(struct nbw_criteria *c, const char *path, const char *text, size_t len,
		      bool thresholds, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j = nbw_json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		nbw_json_parse_error(path, &je, len, err, errlen);
		return -1;
	}
	char e[400];
	size_t n0 = c->n;
	int rc = read_doc(c, j, thresholds, e, sizeof(e));
	json_decref(j);
	if (rc) {
		c->n = n0; /* nothing of a bad file is kept */
		nbw_json_check_error(path, text, len, e, err, errlen);
		return -1;
	}
	snprintf(thresholds ? c->thr_file : c->ref_file, sizeof(c->thr_file), "%s", path);
	return 0;
}

static int add_file(struct nbw_criteria *c, const char *path, bool thresholds, char *err,
		    size_t errlen)
{
	char *text;
	size_t len;
	if (nbw_readfile(path, 0, &text, &len, err, errlen))
		return -1;
	int rc = add_buffer(c, path, text, len, thresholds, err, errlen);
	free(text);
	return rc;
}

int nbw_criteria_add_thresholds(struct nbw_criteria *c, const char *path, char *err,
				size_t errlen)
{
	return add_file(c, path, true, err, errlen);
}

int nbw_criteria_add_references(struct nbw_criteria *c, const char *path, char *err,
				size_t errlen)
{
	return add_file(c, path, false, err, errlen);
}
