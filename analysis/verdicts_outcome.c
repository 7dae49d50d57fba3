/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node's outcome from its verdicts (doc/check.md, "Outcome and exit status"). Nothing
 * passes unjudged: a node none of whose paths was judged is "not judged", and so is one
 * where a site rule judged no path (a site that wrote a rule wants it judged), unless a
 * path failed, which comes first. Otherwise a path in a published minimum's warning band
 * makes it "warning", else "pass".
 */
#include <stdio.h>
#include <string.h>

#include "verdicts_priv.h"

json_t *nbw_verdicts_rules_unjudged(const struct nbw_criteria *c, const struct nbw_rule_use *u)
{
	json_t *a = json_array();
	for (size_t k = 0; a && c && k < c->n; k++) {
		if (c->v[k].kind != NBW_CRIT_THRESHOLD || u[k].judged)
			continue;
		char why[200];
		if (!u[k].paths)
			snprintf(why, sizeof(why), "matches no measured path");
		else
			snprintf(why, sizeof(why), "names %zu measured path%s but judged none: the "
				 "measurements it selects were not taken at the comparison size",
				 u[k].paths, u[k].paths == 1 ? "" : "s");
		json_array_append_new(a, json_pack("{s:s, s:I, s:s}", "name", c->v[k].name,
						   "paths", (json_int_t)u[k].paths, "reason", why));
	}
	return a;
}

static json_int_t count(json_t *v, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(v, "counts"), key));
}

void nbw_verdicts_set_outcome(json_t *v)
{
	json_int_t pass = count(v, "pass"), warn = count(v, NBW_VERDICT_WARNING);
	json_int_t failed = json_integer_value(json_object_get(v, "failed"));
	/* A link whose health fails fails the node (analysis/link_health_apply.c adds them). */
	json_int_t lh_failed = json_integer_value(json_object_get(v, "link_health_failed"));
	size_t npaths = json_array_size(json_object_get(v, "paths"));
	size_t nrules = json_array_size(json_object_get(v, "rules_not_judged"));
	const char *o;
	char why[300];
	if (failed > 0 || lh_failed > 0) {
		o = NBW_OUTCOME_FAIL;
		int n = 0;
		why[0] = '\0';
		if (failed > 0)
			n = snprintf(why, sizeof(why), "%lld path%s below a threshold or a reference",
				     (long long)failed, failed == 1 ? " is" : "s are");
		if (lh_failed > 0 && n >= 0 && (size_t)n < sizeof(why))
			snprintf(why + n, sizeof(why) - (size_t)n, "%s%lld link-health entr%s",
				 n ? "; " : "", (long long)lh_failed, lh_failed == 1 ? "y fails" : "ies fail");
	} else if (pass + warn == 0) {
		o = NBW_OUTCOME_NOT_JUDGED;
		if (npaths == 0)
			snprintf(why, sizeof(why), "no path was measured");
		else
			snprintf(why, sizeof(why), "none of the %zu measured path%s was judged: no "
				 "site threshold, published figure or theoretical figure applies%s",
				 npaths, npaths == 1 ? "" : "s",
				 nrules ? " (the site rules that judged no path are listed)" : "");
	} else if (nrules > 0) {
		o = NBW_OUTCOME_NOT_JUDGED;
		snprintf(why, sizeof(why), "%zu site rule%s judged no path (%lld path%s judged "
			 "and none failed)", nrules, nrules == 1 ? "" : "s",
			 (long long)(pass + warn), pass + warn == 1 ? "" : "s");
	} else if (warn > 0) {
		o = NBW_OUTCOME_WARNING;
		snprintf(why, sizeof(why), "%lld path%s in a published minimum's warning band "
			 "(from the minimum to 1.05 x it), none failed", (long long)warn,
			 warn == 1 ? " is" : "s are");
	} else {
		o = NBW_OUTCOME_PASS;
		snprintf(why, sizeof(why), "%lld path%s judged, all pass", (long long)pass,
			 pass == 1 ? "" : "s");
	}
	json_object_set_new(v, "outcome", json_string(o));
	json_object_set_new(v, "outcome_reason", json_string(why));
}

void nbw_verdicts_print_outcome(FILE *f, json_t *v)
{
	const char *o = json_string_value(json_object_get(v, "outcome"));
	const char *why = json_string_value(json_object_get(v, "outcome_reason"));
	if (!o)
		return;
	char up[32];
	size_t i = 0;
	for (; o[i] && i + 1 < sizeof(up); i++)
		up[i] = (char)(o[i] >= 'a' && o[i] <= 'z' ? o[i] - 'a' + 'A' : o[i]);
	up[i] = '\0';
	fprintf(f, "%s: %s\n", up, why ? why : "");
}

void nbw_verdicts_print_rules(FILE *f, json_t *v)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(v, "rules_not_judged"), i, r)
		fprintf(f, "  not judged: the site rule \"%s\" %s\n",
			json_string_value(json_object_get(r, "name")),
			json_string_value(json_object_get(r, "reason")));
}
