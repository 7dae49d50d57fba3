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
/** Kernel copies against the same API's sync copies (include/nodebw/kernel_cmp.h): per API,
 *  direction and host memory the median ratio of the small and the large sizes; false when
 *  no kernel copy pairs with a sync copy. */
bool nbw_findings_kernel_vs_copy(json_t *devices, json_t *measurements, char *out, size_t len);

#endif
