// SPDX-License-Identifier: BSD-3-Clause
/* Application descriptions (common/app.c): what is accepted, each error's one line (file,
 * line and column, field), the decomposition's local boxes and the round trip to JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/app.h"

#define GOOD                                                                               \
	"{\n  \"schema\": \"nodebw-app\",\n  \"version\": 1,\n  \"name\": \"25-point\",\n"  \
	"  \"grid\": [104, 104, 104],\n  \"decomp\": [2, 2, 1],\n  \"radius\": 4,\n"          \
	"  \"fields\": 3,\n  \"element_bytes\": 4,\n  \"exchange\": \"device\",\n"             \
	"  \"copy\": \"pack\",\n  \"overlap\": true,\n  \"steps\": 500,\n"                     \
	"  \"compute\": {\"kernel\": \"nodebw-heat\"}\n}\n"

static int load_text(const char *text, struct nbw_app *a, char *err, size_t errlen)
{
	char path[] = "/tmp/nbw-test-app-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	int rc = nbw_app_load(path, a, err, errlen);
	unlink(path);
	return rc;
}

/* GOOD with the first occurrence of \p from replaced by \p to. */
static int load_edit(const char *from, const char *to, struct nbw_app *a, char *err,
		     size_t errlen)
{
	char text[2048];
	const char *p = strstr(GOOD, from);
	assert_non_null(p);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(p - GOOD), GOOD, to, p + strlen(from));
	return load_text(text, a, err, errlen);
}

static void good(void **state)
{
	(void)state;
	struct nbw_app a;
	char err[512] = "";
	assert_int_equal(load_text(GOOD, &a, err, sizeof(err)), 0);
	assert_string_equal(a.name, "25-point");
	assert_int_equal(a.grid[2], 104);
	assert_int_equal(a.decomp[0], 2);
	assert_int_equal(a.decomp[2], 1);
	assert_int_equal(a.radius, 4);
	assert_int_equal(a.fields, 3);
	assert_int_equal(a.element_bytes, 4);
	assert_int_equal(a.exchange, NBW_APP_DEVICE);
	assert_int_equal(a.copy, NBW_APP_PACK);
	assert_true(a.overlap);
	assert_int_equal(a.steps, 500);
	assert_int_equal(a.compute, NBW_APP_COMPUTE_KERNEL);
	assert_false(nbw_app_decomp_open(&a));

	/* The round trip keeps every field. */
	json_t *j = nbw_app_to_json(&a);
	struct nbw_app b;
	assert_int_equal(nbw_app_from_json(j, "mem", &b, err, sizeof(err)), 0);
	json_decref(j);
	assert_memory_equal(&a, &b, sizeof(a));

	assert_int_equal(load_edit("[2, 2, 1]", "\"open\"", &a, err, sizeof(err)), 0);
	assert_true(nbw_app_decomp_open(&a));
	assert_int_equal(load_edit("{\"kernel\": \"nodebw-heat\"}",
				   "{\"seconds_per_step\": 0.02, \"box\": [60, 60, 112]}", &a, err,
				   sizeof(err)),
			 0);
	assert_int_equal(a.compute, NBW_APP_COMPUTE_SUBDOMAIN);
	assert_int_equal(a.compute_box[2], 112);
}

static void expect_error(const char *from, const char *to, const char *want)
{
	struct nbw_app a;
	char err[512] = "";
	assert_int_equal(load_edit(from, to, &a, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	assert_null(strchr(err, '\n'));
}

static void errors(void **state)
{
	(void)state;
	expect_error("\"nodebw-app\"", "\"nodebw-thresholds\"", "schema: must be \"nodebw-app\"");
	expect_error("\"version\": 1", "\"version\": 2", "version: must be 1");
	expect_error("\"radius\": 4", "\"radius\": 5", ":7:13: radius: must be an integer from 1 to 4");
	expect_error("[104, 104, 104]", "[104, 8, 104]", "grid[1]: must be an integer from 9");
	expect_error("[2, 2, 1]", "[2, 2]", "decomp: must be an array of three integers");
	expect_error("[2, 2, 1]", "[30, 1, 1]", "fewer interior points than the radius");
	expect_error("\"element_bytes\": 4", "\"element_bytes\": 3", "must be 1, 2, 4, 8 or 16");
	expect_error("\"device\"", "\"nvlink\"", "exchange: must be \"host-staged\" or \"device\"");
	expect_error("\"pack\"", "\"packed\"", "copy: must be \"rect\" or \"pack\"");
	expect_error("\"overlap\": true", "\"overlap\": 1", "overlap: must be true or false");
	expect_error("\"steps\": 500", "\"stepz\": 500", "stepz: unknown key");
	expect_error("{\"kernel\": \"nodebw-heat\"}", "{\"kernel\": \"mine\"}",
		     "compute.kernel: must be \"nodebw-heat\"");
	expect_error("{\"kernel\": \"nodebw-heat\"}", "{\"seconds_per_step\": 0.1}",
		     "compute.box: missing");
	expect_error("{\"kernel\": \"nodebw-heat\"}",
		     "{\"kernel\": \"nodebw-heat\", \"seconds_per_point\": 1e-9}",
		     "give exactly one of");
	expect_error("{\"kernel\": \"nodebw-heat\"}", "{\"seconds_per_point\": -1}",
		     "compute.seconds_per_point: must be a number of seconds above 0");
	expect_error("\"fields\": 3,", "\"fields\": 3, \"fields\": 2,", "duplicate");
}

static void local_boxes(void **state)
{
	(void)state;
	struct nbw_app a;
	memset(&a, 0, sizeof(a));
	a.radius = 2;
	a.grid[0] = 44; /* 40 interior points */
	a.grid[1] = 24; /* 20 */
	a.grid[2] = 15; /* 11 */
	int d[3] = {2, 1, 3};
	assert_true(nbw_app_decomp_fits(&a, d));
	long in[3], box[3], sum[3] = {0, 0, 0};
	for (int z = 0; z < 3; z++) {
		int idx[3] = {0, 0, z};
		nbw_app_local_box(&a, d, idx, in, box);
		sum[2] += in[2];
		assert_int_equal(box[2], in[2] + 4);
		assert_int_equal(in[2], z < 2 ? 4 : 3); /* 11 = 4 + 4 + 3 */
	}
	assert_int_equal(sum[2], 11);
	int idx[3] = {1, 0, 0};
	nbw_app_local_box(&a, d, idx, in, box);
	assert_int_equal(in[0], 20);
	assert_int_equal(box[0], 24);
	assert_int_equal(box[1], 24);
	int too_many[3] = {1, 1, 6}; /* 11 / 6 = 1 interior point < radius 2 */
	assert_false(nbw_app_decomp_fits(&a, too_many));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good),
		cmocka_unit_test(errors),
		cmocka_unit_test(local_boxes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
