/* SPDX-License-Identifier: BSD-3-Clause */
/* The stage bodies the table of tools/run_stages.c points to (tools/stage_probe.c,
 * tools/stage_after.c). */
#ifndef NODEBW_TOOLS_STAGES_H
#define NODEBW_TOOLS_STAGES_H

#include "run_stages.h"

enum nbw_stage_next nbw_stage_prerun(struct nbw_stage_ctx *c);
enum nbw_stage_next nbw_stage_probes(struct nbw_stage_ctx *c);
bool nbw_stage_hht_wanted(const struct nbw_stage_ctx *c);
enum nbw_stage_next nbw_stage_hht(struct nbw_stage_ctx *c);
enum nbw_stage_next nbw_stage_analyses(struct nbw_stage_ctx *c);
bool nbw_stage_solver_wanted(const struct nbw_stage_ctx *c);
enum nbw_stage_next nbw_stage_plane(struct nbw_stage_ctx *c);
enum nbw_stage_next nbw_stage_solver(struct nbw_stage_ctx *c);
enum nbw_stage_next nbw_stage_report(struct nbw_stage_ctx *c);
enum nbw_stage_next nbw_stage_summary(struct nbw_stage_ctx *c);
/** Mark the results failed: an API asked for could not run, or is unusable (the reason). */
void nbw_stage_unavailable_state(struct nbw_stage_ctx *c);

#endif
