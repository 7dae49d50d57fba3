// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target: bytes -> a topology fixture's links.json reader (topo_links_from_buffer,
 * what topo_fixture_load runs on the file's bytes) -> topo_finalize, every pair of the
 * device matrix, and the printed topology. hwloc's own XML parser is not fuzzed here. A
 * rejected file must come with a reason. Built with -Dfuzz=true (doc/fuzzing.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nbw_topo *t = calloc(1, sizeof(*t));
	if (!t)
		return 0;
	t->fixture = true;
	snprintf(t->sysroot, sizeof(t->sysroot), "/nonexistent-nodebw-fuzz");
	char err[1024] = "";
	if (topo_links_from_buffer(t, "links.json", (const char *)data, size, err,
				   sizeof(err))) {
		if (!err[0])
			abort(); /* every refusal says why */
		nbw_topo_free(t);
		return 0;
	}
	topo_finalize(t);
	size_t n = t->ndev < 64 ? t->ndev : 64;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			struct nbw_topo_pair p;
			topo_pair_idx(t, (int)i, (int)j, &p);
			topo_pcie_idx(t, (int)i, (int)j, &p);
		}
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		if (t->ndev <= 64) {
			nbw_topo_print(t, null);
			json_decref(nbw_topo_to_json(t));
		}
		fclose(null);
	}
	json_decref(topo_links_to_json(t));
	nbw_topo_free(t);
	return 0;
}
