/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The models page's application-model validation (doc/model.md, "Validating the
 * application model"): per configuration the generalised solver ran in nodebw run, the
 * prediction from the probes, the one-device runs and the app description only, the
 * measured time and the compute-only baseline, as results.json "app_validation" holds them
 * (computed once, by nodebw run; read here through its typed view).
 */
#include <math.h>
#include <stdio.h>

#include "nodebw/report.h"
#include "nodebw/results_view_app.h"

static void num(struct nbw_rtable *t, double v, const char *fmt)
{
	if (isfinite(v))
		nbw_rtable_cellv(t, v, fmt, v);
	else
		nbw_rtable_cell(t, "-");
}

void nbw_report_app_validation(struct nbw_rdoc *r, const struct nbw_rinput *in)
{
	for (size_t f = 0; f < in->nfiles; f++) {
		json_t *doc = in->docs[f];
		const char *skipped = nbw_rv_appval_skipped(doc);
		struct nbw_rv_appval v;
		if (!skipped && !nbw_rv_appval_row(doc, 0, &v))
			continue;
		nbw_rdoc_heading(r, 3, "The application model against the generalised solver");
		if (skipped) {
			nbw_rdoc_para(r, "Not validated: %s.", skipped);
			continue;
		}
		nbw_rdoc_para(r, "Each configuration predicted from the probes, the one-device runs "
				 "of its local box and the app description only (no run of it on "
				 "several devices), against its measured time (the fastest round) in "
				 "%s; beside it the compute-only baseline (the same model without the "
				 "exchange). Times in seconds for the whole run.", in->paths[f]);
		static const char *const h[] = {"configuration", "decomp", "radius", "fields",
						"exchange", "copy", "measured (s)", "predicted (s)",
						"error (%)", "compute-only (s)", "compute-only error (%)"};
		struct nbw_rtable *t = nbw_rtable_new("app-validation", 11, h);
		nbw_rtable_csv_names(t, (const char *const[]){"configuration", "decomp", "radius",
							      "fields", "exchange", "copy",
							      "measured_s", "predicted_s",
							      "error_pct", "compute_only_s",
							      "compute_only_error_pct"});
		for (size_t i = 0; nbw_rv_appval_row(doc, i, &v); i++) {
			nbw_rtable_cell(t, "%s", v.name);
			nbw_rtable_cell(t, "%s", v.decomp);
			nbw_rtable_cell(t, "%d", v.radius);
			nbw_rtable_cell(t, "%d", v.fields);
			nbw_rtable_cell(t, "%s", v.exchange);
			nbw_rtable_cell(t, "%s", v.copy);
			num(t, v.measured_s, "%.4g");
			num(t, v.predicted_s, "%.4g");
			num(t, v.error_pct, "%.1f");
			num(t, v.compute_only_s, "%.4g");
			num(t, v.compute_only_error_pct, "%.1f");
			nbw_rtable_end_row(t);
		}
		nbw_rdoc_table(r, t, "The application model per configuration: predicted against "
				     "measured, with the compute-only baseline");
		for (size_t i = 0; nbw_rv_appval_row(doc, i, &v); i++)
			if (v.not_predicted[0])
				nbw_rdoc_item(r, "%s: not predicted: %s", v.name, v.not_predicted);
	}
}
