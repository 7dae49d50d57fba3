// SPDX-License-Identifier: BSD-3-Clause
/* Strings read from documents cleaned of control characters (common/jclean.c), and CSV cells
 * safe in a spreadsheet (common/csvcell.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/csvcell.h"
#include "nodebw/jclean.h"

static void expect_clean(const char *in, const char *want)
{
	char *s = strdup(in);
	assert_non_null(s);
	assert_int_equal(nbw_text_clean(s), strcmp(in, want) != 0);
	assert_string_equal(s, want);
	assert_int_equal(nbw_text_dirty(in), strcmp(in, want) != 0);
	free(s);
}

static void text(void **state)
{
	(void)state;
	expect_clean("plain H100 80GB", "plain H100 80GB");
	expect_clean("caf\xc3\xa9 \xe2\x86\x92 ok", "caf\xc3\xa9 \xe2\x86\x92 ok"); /* UTF-8 kept */
	expect_clean("\x1b]0;PWNED\x07node", "node");                      /* OSC, BEL */
	expect_clean("\x1b]8;;http://x\x1b\\link", "link");                /* OSC, ESC \ */
	expect_clean("\x1b[31;1mred\x1b[0m", "red");                       /* CSI */
	expect_clean("a\x1b" "cb", "ab");                                  /* ESC c: reset */
	expect_clean("a\x1b(Bb", "ab");                                    /* nF: ESC ( B */
	expect_clean("a\xc2\x9b" "2Jb", "ab");                             /* C1 CSI */
	expect_clean("a\xc2\x9d" "0;t\xc2\x9c" "b", "ab");                 /* C1 OSC, ST */
	expect_clean("a\xc2\x85" "b", "ab");                               /* C1 NEL */
	expect_clean("a\tb\nc\rd", "a b c d");
	expect_clean("a\x01\x08\x7f" "b", "ab");
	expect_clean("trailing\x1b", "trailing");
	expect_clean("\x1b]0;never ends", "");
}

static void documents(void **state)
{
	(void)state;
	const char *doc = "{\"k\\u001b[2J\": [\"a\\u001b]0;x\\u0007b\", {\"n\": \"c\\u009b2Jd\"}], "
			  "\"x\": 1}";
	json_error_t je;
	json_t *j = nbw_json_loadb(doc, strlen(doc), 0, &je);
	assert_non_null(j);
	json_t *a = json_object_get(j, "k");
	assert_non_null(a);
	assert_string_equal(json_string_value(json_array_get(a, 0)), "ab");
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 1), "n")), "cd");
	assert_int_equal(json_integer_value(json_object_get(j, "x")), 1);
	assert_int_equal(json_object_size(j), 2);
	json_decref(j);
}

static char *cell(const char *s, bool q)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	nbw_csv_cell(f, s, q);
	fclose(f);
	return buf;
}

static void expect_cell(const char *in, bool q, const char *want)
{
	char *got = cell(in, q);
	assert_string_equal(got, want);
	free(got);
}

static void csv(void **state)
{
	(void)state;
	expect_cell("=HYPERLINK(\"http://x\")", false, "\"'=HYPERLINK(\"\"http://x\"\")\"");
	expect_cell("+cmd", false, "'+cmd");
	expect_cell("@SUM(A1)", false, "'@SUM(A1)");
	expect_cell("-2+3", false, "'-2+3");
	expect_cell("\t=1+1", false, "\"' =1+1\"");
	expect_cell("-5.25", false, "-5.25"); /* a number stays a number */
	expect_cell("+1e3", false, "+1e3");
	expect_cell("-", false, "-");
	expect_cell("H100\x1b[31m", false, "H100");
	expect_cell("a,b", false, "\"a,b\"");
	expect_cell("omp", true, "\"omp\"");
	expect_cell("=1", true, "\"'=1\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text),
		cmocka_unit_test(documents),
		cmocka_unit_test(csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
