/* SPDX-License-Identifier: BSD-3-Clause */
/* The note a chase gives when it will not walk each size named (probe/chase_note.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/cli.h"
#include "nodebw/plan.h"

/* The note for `probe --mode MODE --sizes SIZES`: NULL when none (static). */
static const char *note_of(const char *mode, const char *sizes)
{
	static char note[512];
	char err[256];
	char *argv[] = {"probe", "--mode", (char *)mode, "--sizes", (char *)sizes, NULL};
	struct nbw_probe_opts o;
	if (nbw_cli_parse_probe(5, argv, &o, err, sizeof(err)))
		fail_msg("%s", err);
	bool has = nbw_plan_chase_note(&o, note, sizeof(note));
	nbw_cli_opts_free(&o);
	return has ? note : NULL;
}

static void test_rounded(void **state)
{
	(void)state;
	const char *n = note_of("chase", "1,7");
	assert_non_null(n);
	assert_non_null(strstr(n, "walks one working set, 4 KiB, not each size of --sizes "
				  "(1 B, 7 B)"));
	n = note_of("chase", "1,7,100000");
	assert_non_null(n);
	assert_non_null(strstr(n, "two working sets, 4 KiB and 100 KiB"));
}

static void test_as_named(void **state)
{
	(void)state;
	assert_null(note_of("chase", "4096"));
	assert_null(note_of("chase", "4096,8MiB"));
	assert_null(note_of("sync", "1,7"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rounded),
		cmocka_unit_test(test_as_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
