/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to analysis/verdicts*.c: what each criterion judged, and the node's outcome. */
#ifndef NODEBW_ANALYSIS_VERDICTS_PRIV_H
#define NODEBW_ANALYSIS_VERDICTS_PRIV_H

#include <jansson.h>
#include <stdio.h>

#include "criteria.h"

/* Per criterion: the paths it named and how many of them it judged (a verdict other than
 * "not judged"). */
struct nbw_rule_use {
	size_t paths, judged;
};

/* The site rules that judged no path: [{"name", "paths", "reason"}]; NULL when out of
 * memory. */
json_t *nbw_verdicts_rules_unjudged(const struct nbw_criteria *c, const struct nbw_rule_use *u);
/* Set "outcome" and "outcome_reason" of the verdicts \p v from its counts and rules. */
void nbw_verdicts_set_outcome(json_t *v);
/* The outcome as the first line of the text ("NOT JUDGED: ..."). */
void nbw_verdicts_print_outcome(FILE *f, json_t *v);
/* Each site rule that judged nothing, by name, with why. */
void nbw_verdicts_print_rules(FILE *f, json_t *v);

#endif
