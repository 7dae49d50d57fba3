/* SPDX-License-Identifier: BSD-3-Clause */
/* The host reference backend's devices (bw_native/host_backend.c) are named the native
 * reference for the host-plugin devices only in a build whose OpenMP offload has LLVM's host
 * plugin; a build without offload (-Dopenmp_offload=disabled) or for GPU targets only has no
 * host-plugin device to be the reference for. The expectation comes from the build's own
 * offload targets, so each build (host plugin, GPU only, none) checks its own case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/backends.h"
#include "nodebw/config.h"
#include "nodebw/version.h"

/* A target that is neither a GPU architecture (sm_XX, gfxXXX) nor a GPU triple is the host's. */
static bool targets_have_host_plugin(void)
{
	char list[] = NBW_OFFLOAD_TARGETS, *save = NULL;
	if (!NBW_HAVE_OMP)
		return false;
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bool gpu = strncmp(t, "sm_", 3) == 0 || strncmp(t, "gfx", 3) == 0 ||
			   strncmp(t, "nvptx", 5) == 0 || strncmp(t, "amdgcn", 6) == 0;
		if (!gpu && strcmp(t, "none") != 0)
			return true;
	}
	return false;
}

static void test_device_names(void **state)
{
	(void)state;
	const struct nbw_backend_ops *ops = &nbw_backend_host;
	struct nbw_backend *be = NULL;
	char why[NBW_REASON_LEN] = "";
	bool plugin = targets_have_host_plugin();
	print_message("offload targets '%s': %s\n", NBW_OFFLOAD_TARGETS,
		      plugin ? "host plugin built" : "no host plugin");
	assert_int_equal(ops->open(&be, NULL, why, sizeof(why)), 0);
	assert_int_equal(ops->device_count(be), 4);
	for (int d = 0; d < 4; d++) {
		struct nbw_device dev;
		char region[64], reference[64];
		assert_int_equal(ops->device_info(be, d, &dev), 0);
		snprintf(region, sizeof(region), "host memory region %d (", d);
		snprintf(reference, sizeof(reference), "native reference for host-plugin device %d",
			 d);
		assert_non_null(strstr(dev.name, region));
		assert_string_equal(dev.kind, "host-memory");
		assert_false(dev.is_gpu);
		if (plugin)
			assert_non_null(strstr(dev.name, reference));
		else if (strstr(dev.name, "host-plugin"))
			fail_msg("a build without the host plugin names '%s'", dev.name);
	}
	ops->close(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
