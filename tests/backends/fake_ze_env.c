/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Only in the fake Level Zero plugin (nodebw-ze.so built from ze_backend.c on fake_ze.c, for
 * running the real nodebw core without a GPU): the fake's controls from the environment,
 * read when the plugin is loaded.
 *   FAKE_ZE_NDEV      devices of the one driver (default 2, at most 8)
 *   FAKE_ZE_LAYOUT    their command queue groups, enum fake_ze_layout (default 0; 1: as a
 *                     Data Center GPU Max, with link copy engines; 4: a copy-only group and
 *                     a compute group, for kernel mode)
 *   FAKE_CALLLOG_DIR  where the call log goes at exit (ze.log)
 */
#include <stdlib.h>

#include "calllog.h"
#include "fake_ze.h"

__attribute__((constructor)) static void fake_ze_from_env(void)
{
	const char *v = getenv("FAKE_ZE_NDEV");
	fake_ze_reset();
	if (v && *v)
		fake_ze_ndev = (int)strtol(v, NULL, 0);
	v = getenv("FAKE_ZE_LAYOUT");
	if (v && *v && strtol(v, NULL, 0) >= 0 && strtol(v, NULL, 0) <= FAKE_ZE_COMPUTE_ONLY)
		fake_ze_layout = (enum fake_ze_layout)strtol(v, NULL, 0);
	calllog_save_at_exit("ze");
}
