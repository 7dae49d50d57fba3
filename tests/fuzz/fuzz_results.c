// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target: bytes -> the results reader (nbw_doc_load_buffer, what nbw_doc_load runs
 * on a file's bytes) -> device matching and the gap table, printed. A rejected document
 * must come with a reason. Built with -Dfuzz=true (doc/fuzzing.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "nodebw/gap.h"
#include "nodebw/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024] = "";
	struct nbw_doc *d = nbw_doc_load_buffer("fuzz.json", (const char *)data, size, err,
						sizeof(err));
	if (!d) {
		if (!err[0])
			abort(); /* every refusal says why */
		return 0;
	}
	nbw_gap_match_devices(d->devices);
	json_t *gaps = nbw_gap_compute(d->devices, d->measurements);
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		nbw_gap_print(null, gaps);
		fclose(null);
	}
	json_decref(gaps);
	nbw_doc_free(d);
	return 0;
}
