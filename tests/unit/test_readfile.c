// SPDX-License-Identifier: BSD-3-Clause
/* nbw_readfile: whole files, the size limit at its edge, files whose size stat() does not
 * tell (/proc), and refusals that name the file and the reason. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/readfile.h"

static char dir[] = "/tmp/nodebw-test-readfile-XXXXXX";

static char *write_file(const char *name, const char *text, size_t len)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	return p;
}

static void whole_file(void **state)
{
	(void)state;
	char *p = write_file("a.json", "{\"a\":\0 1}", 9), *buf, err[256] = "";
	size_t len;
	assert_int_equal(nbw_readfile(p, 0, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 9); /* a NUL inside is kept, and one is added after */
	assert_memory_equal(buf, "{\"a\":\0 1}", 10);
	free(buf);
	free(p);
}

static void empty_file(void **state)
{
	(void)state;
	char *p = write_file("empty", "", 0), *buf, err[256] = "";
	size_t len = 7;
	assert_int_equal(nbw_readfile(p, 0, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	free(buf);
	free(p);
}

static void limit_edge(void **state)
{
	(void)state;
	char *p = write_file("ten", "0123456789", 10), *buf, err[256] = "";
	size_t len;
	assert_int_equal(nbw_readfile(p, 10, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 10);
	free(buf);
	assert_int_equal(nbw_readfile(p, 9, &buf, &len, err, sizeof(err)), -1);
	assert_null(buf);
	assert_non_null(strstr(err, "10 bytes, over the limit of 9 bytes"));
	assert_non_null(strstr(err, p));
	free(p);
}

static void env_limit(void **state)
{
	(void)state;
	size_t lim;
	char err[256] = "";
	unsetenv(NBW_READFILE_MAX_ENV);
	assert_int_equal(nbw_readfile_limit(&lim, err, sizeof(err)), 0);
	assert_int_equal(lim, NBW_READFILE_MAX_BYTES);
	setenv(NBW_READFILE_MAX_ENV, "4096", 1);
	assert_int_equal(nbw_readfile_limit(&lim, err, sizeof(err)), 0);
	assert_int_equal(lim, 4096);
	static const char *const bad[] = { "0", "-5", "12k", "x", "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(NBW_READFILE_MAX_ENV, bad[i], 1);
		err[0] = '\0';
		assert_int_equal(nbw_readfile_limit(&lim, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "not a byte count"));
	}
	unsetenv(NBW_READFILE_MAX_ENV);
}

/* /proc files say 0 bytes: they are read to their end all the same, and the limit holds. */
static void unknown_size(void **state)
{
	(void)state;
	char *buf, err[256] = "";
	size_t len;
	assert_int_equal(nbw_readfile("/proc/self/status", 0, &buf, &len, err, sizeof(err)), 0);
	assert_true(len > 100);
	assert_non_null(strstr(buf, "Name:"));
	assert_int_equal(strlen(buf), len);
	free(buf);
	assert_int_equal(nbw_readfile("/proc/self/status", 50, &buf, &len, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "more than the limit of 50 bytes"));
}

static void refusals(void **state)
{
	(void)state;
	char *fifo = NULL, *buf, err[256];
	size_t len;
	assert_true(asprintf(&fifo, "%s/fifo", dir) > 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	static const struct { const char *path, *want; } cases[] = {
		{ NULL, "not a regular file (fifo)" },
		{ "/", "not a regular file (directory)" },
		{ "/dev/zero", "not a regular file (character device)" },
		{ "/nonexistent/nodebw", "No such file or directory" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = cases[i].path ? cases[i].path : fifo;
		err[0] = '\0';
		assert_int_equal(nbw_readfile(p, 0, &buf, &len, err, sizeof(err)), -1);
		assert_null(buf);
		assert_non_null(strstr(err, cases[i].want));
		assert_true(strncmp(err, p, strlen(p)) == 0); /* "PATH: why" */
	}
	unlink(fifo);
	free(fifo);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_file), cmocka_unit_test(empty_file),
		cmocka_unit_test(limit_edge), cmocka_unit_test(env_limit),
		cmocka_unit_test(unknown_size), cmocka_unit_test(refusals),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", dir) > 0 && system(cmd) != 0)
		rc = rc ? rc : 1;
	free(cmd);
	return rc;
}
