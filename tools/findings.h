/* SPDX-License-Identifier: BSD-3-Clause */
/* Findings of the summary read from the measurements themselves (tools/findings.c). */
#ifndef NODEBW_TOOLS_FINDINGS_H
#define NODEBW_TOOLS_FINDINGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/** How many measurements did not converge, why, and the largest of them, as one sentence
 *  into \p out; false when every measurement converged (or none says). */
bool nbw_findings_not_converged(json_t *measurements, char *out, size_t len);
/** The hidden-helper sweep's largest effect: the same OpenMP point with different hidden
 *  helper counts, when one median time is twice the other or more; false otherwise. */
bool nbw_findings_hidden_helpers(json_t *measurements, char *out, size_t len);

#endif
