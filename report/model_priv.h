/* SPDX-License-Identifier: BSD-3-Clause */
/* The model sections' parts in files of their own (report/model_*.c). */
#ifndef NODEBW_REPORT_MODEL_PRIV_H
#define NODEBW_REPORT_MODEL_PRIV_H

#include "nodebw/model.h"
#include "nodebw/report.h"

/* The launch probe's step of the form a version launches with ("one-thread" for the v2
 * form, "per-device" for the v3 form) on \p g devices; 0 when not measured (model.c). */
double nbw_calib_launch_step(const struct nbw_calib *c, bool per_device, int g);

/* The evidence table of the physics the paper's model leaves out (report/model_physics.c). */
void nbw_report_model_physics(struct nbw_rdoc *r, const struct nbw_calib *c);

#endif
