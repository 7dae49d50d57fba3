/* SPDX-License-Identifier: BSD-3-Clause */
/* The model sections' parts in files of their own (report/model_*.c); the models
 * themselves are nodebw/model.h (models/). */
#ifndef NODEBW_REPORT_MODEL_PRIV_H
#define NODEBW_REPORT_MODEL_PRIV_H

#include "nodebw/model.h"
#include "nodebw/report.h"

/* The evidence table of the physics the paper's model leaves out (report/model_physics.c). */
void nbw_report_model_physics(struct nbw_rdoc *r, const struct nbw_calib *c);

/* The one-device model's measured terms per G and N (report/model_onedev.c). */
void nbw_report_model_onedev(struct nbw_rdoc *r, const struct nbw_calib *c);

#endif
