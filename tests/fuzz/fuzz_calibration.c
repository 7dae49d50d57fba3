// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target: bytes -> the calibration reader (nbw_calib_load_buffer, what
 * nbw_calib_load runs on a file's bytes) -> both models' predictions (the paper's and the
 * extended one) for a few N, G and versions. A rejected calibration must come with a
 * reason; an accepted one's numbers are in physical bounds, so the paper model's times are
 * finite and >= 0 and the extended model's finite. Built with -Dfuzz=true
 * (doc/fuzzing.md). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "nodebw/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024] = "";
	struct nbw_calib c;
	if (nbw_calib_load_buffer("fuzz.json", (const char *)data, size, &c, err, sizeof(err))) {
		if (!err[0])
			abort(); /* every refusal says why */
		return 0;
	}
	static const int ns[] = { 2, 130, 512 }, gs[] = { 1, 2, 4 };
	static const char *const vs[] = { "v1", "v2", "v3", "v4" };
	int steps = c.steps > 0 && c.steps < 100000 ? c.steps : 10;
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 3; j++)
			for (size_t v = 0; v < 4; v++) {
				struct nbw_paper_pred p;
				struct nbw_ext_pred e;
				char why[400];
				for (int r = 0; r < 2; r++)
					if (nbw_predict_paper(&c, r ? NBW_KBAR_TOP3 : NBW_KBAR_ALL,
							      ns[i], gs[j], vs[v], steps, &p, why,
							      sizeof(why)) == 0 &&
					    !(isfinite(p.total_s) && p.total_s >= 0.0 &&
					      isfinite(p.overlap_s) && p.overlap_s >= 0.0))
						abort(); /* a number past its bounds */
				if (nbw_predict_ext(&c, ns[i], gs[j], vs[v], steps, 0, &e, why,
						    sizeof(why)) == 0 &&
				    !isfinite(e.total_s))
					abort();
				/* The one-device model on what a file gives (co-run, launch). */
				if (nbw_predict_onedev(&c, ns[i], gs[j], vs[v], steps, &e, why,
						       sizeof(why)) == 0 &&
				    !(isfinite(e.total_s) && e.total_s >= 0.0))
					abort();
			}
	nbw_calib_free(&c);
	return 0;
}
