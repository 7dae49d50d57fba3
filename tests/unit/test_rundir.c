/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/rundir.c: the locked results folder, its refusals and the recovery of
 * what a killed run left (built here by hand: a lock file without an owner, temporary files,
 * a child's folder, a results.json still "running"). */
#include <errno.h>
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

#include "nodebw/cli.h"
#include "nodebw/results.h"
#include "nodebw/rundir.h"

static char base[] = "/tmp/nodebw-rundir-XXXXXX";

static int setup(void **state)
{
	(void)state;
	strcpy(base, "/tmp/nodebw-rundir-XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base); /* deeper than nbw_remove_tree goes */
	return system(cmd);
}

static char *path(const char *fmt, const char *name)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/", base);
	size_t l = strlen(p[k]);
	snprintf(p[k] + l, sizeof(p[k]) - l, fmt, name);
	return p[k];
}

static void touch(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_open_nested_and_lock(void **state)
{
	(void)state;
	struct nbw_rundir rd;
	char err[512];
	assert_int_equal(nbw_rundir_open(path("%s", "a/b/c"), false, &rd, err, sizeof(err)), 0);
	char *lock = path("%s", "a/b/c/" NBW_LOCK_NAME);
	FILE *f = fopen(lock, "r");
	assert_non_null(f);
	char line[256] = "";
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	char want[32];
	snprintf(want, sizeof(want), "pid %ld on ", (long)getpid());
	assert_non_null(strstr(line, want));
	/* A second writer, even in this process (another open file), is refused. */
	struct nbw_rundir rd2;
	assert_int_equal(nbw_rundir_open(path("%s", "a/b/c/"), false, &rd2, err, sizeof(err)),
			 NBW_EXIT_USAGE);
	assert_non_null(strstr(err, "in use by another nodebw"));
	assert_non_null(strstr(err, want));
	nbw_rundir_close(&rd, false);
	assert_int_equal(access(lock, F_OK), -1);
	/* Free again: the next one gets it, and finds nothing to recover. */
	assert_int_equal(nbw_rundir_open(path("%s", "a/b/c"), false, &rd2, err, sizeof(err)), 0);
	assert_string_equal(rd2.recovered, "");
	nbw_rundir_close(&rd2, true);
	assert_int_equal(access(path("%s", "a/b/c"), F_OK), -1); /* empty: removed */
}

static void test_not_a_folder(void **state)
{
	(void)state;
	struct nbw_rundir rd;
	char err[512];
	touch(path("%s", "file"), "x");
	assert_int_equal(nbw_rundir_open(path("%s", "file"), false, &rd, err, sizeof(err)), NBW_EXIT_USAGE);
	assert_non_null(strstr(err, "is not a folder"));
	assert_int_equal(nbw_rundir_open("/dev/null", false, &rd, err, sizeof(err)), NBW_EXIT_USAGE);
	assert_int_equal(nbw_rundir_open(path("%s", "file/sub"), false, &rd, err, sizeof(err)),
			 NBW_EXIT_USAGE);
	assert_non_null(strstr(err, "Not a directory"));
}

/* What a run killed with SIGKILL leaves: state "running", a CSV one checkpoint behind, a
 * temporary file, a child's folder, an unfinished plot, the lock without an owner. */
static void killed_run(const char *dir)
{
	char err[512];
	assert_int_equal(mkdir(dir, 0755), 0);
	char *argv[] = { "nodebw", "probe" };
	struct nbw_doc *d = nbw_doc_new(2, argv);
	assert_non_null(d);
	assert_int_equal(nbw_doc_write(d, dir, err, sizeof(err)), 0);
	nbw_doc_free(d);
	char p[600];
	snprintf(p, sizeof(p), "%s/results.csv", dir);
	touch(p, "stale,csv\n1,2\n");
	snprintf(p, sizeof(p), "%s/results.json.tmpAbC123", dir);
	touch(p, "{\"half");
	snprintf(p, sizeof(p), "%s/.hht-0-XyZ987", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/.hht-0-XyZ987/results.json", dir);
	touch(p, "{}");
	snprintf(p, sizeof(p), "%s/report", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/report/plots", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/report/plots/bw.png.part", dir);
	touch(p, "\x89PNG");
	snprintf(p, sizeof(p), "%s/" NBW_LOCK_NAME, dir);
	touch(p, "pid 1 on elsewhere since 2026-01-01T00:00:00Z\n");
}

static void check_recovered(const char *dir)
{
	char p[600], err[512];
	const char *gone[] = { "results.json.tmpAbC123", ".hht-0-XyZ987", "report/plots/bw.png.part",
			       NBW_LOCK_NAME };
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, gone[i]);
		if (access(p, F_OK) == 0)
			fail_msg("%s is still there", p);
	}
	snprintf(p, sizeof(p), "%s/results.json", dir);
	struct nbw_doc *d = nbw_doc_load(p, err, sizeof(err));
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d->root, "state")), "killed");
	assert_true(json_is_true(json_object_get(d->root, "interrupted")));
	nbw_doc_free(d);
	snprintf(p, sizeof(p), "%s/results.csv", dir);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	char line[512];
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_null(strstr(line, "stale")); /* written again from results.json */
}

static void test_recover_own_folder(void **state)
{
	(void)state;
	const char *dir = path("%s", "killed");
	killed_run(dir);
	struct nbw_rundir rd;
	char err[512];
	/* Recovered, and then refused: the killed run's results are not lost to the next one. */
	assert_int_equal(nbw_rundir_open(dir, false, &rd, err, sizeof(err)), NBW_EXIT_USAGE);
	assert_non_null(strstr(err, "already holds the results of 'nodebw probe', killed"));
	assert_non_null(strstr(err, "add --replace to replace them"));
	check_recovered(dir);
	/* Asked to, the next run replaces them. */
	assert_int_equal(nbw_rundir_open(dir, true, &rd, err, sizeof(err)), 0);
	char p[600];
	snprintf(p, sizeof(p), "%s/results.json", dir);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/results.csv", dir);
	assert_int_equal(access(p, F_OK), -1);
	nbw_rundir_close(&rd, false);
}

/* A folder that holds another command's results, or a results.json that is not nodebw's:
 * refused, nothing in it touched. */
static void test_refuse_results(void **state)
{
	(void)state;
	const char *dir = path("%s", "foreign");
	char p[600], err[512];
	assert_int_equal(nbw_mkdir_p(dir), 0);
	snprintf(p, sizeof(p), "%s/results.json", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\"mine\": 1}\n", f);
	fclose(f);
	struct nbw_rundir rd;
	assert_int_equal(nbw_rundir_open(dir, false, &rd, err, sizeof(err)), NBW_EXIT_USAGE);
	assert_non_null(strstr(err, "already holds results that are not nodebw's (results.json)"));
	assert_int_equal(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/%s", dir, NBW_LOCK_NAME);
	assert_int_equal(access(p, F_OK), -1);
}

static void test_recover_sibling(void **state)
{
	(void)state;
	const char *dir = path("%s", "old");
	killed_run(dir);
	struct nbw_rundir rd;
	char err[512];
	assert_int_equal(nbw_rundir_open(path("%s", "new"), false, &rd, err, sizeof(err)), 0);
	assert_string_equal(rd.recovered, "");
	/* A sibling whose owner is alive is left alone: this process holds "new". */
	nbw_rundir_close(&rd, false);
	check_recovered(path("%s", "old"));
}

static void test_long_path_message(void **state)
{
	(void)state;
	char longp[3000];
	int n = snprintf(longp, sizeof(longp), "%s/", base);
	while (n < 2000)
		n += snprintf(longp + n, sizeof(longp) - (size_t)n, "%s", "d123456789/");
	strcat(longp, "file");
	touch(path("%s", "x"), "");
	struct nbw_rundir rd;
	char err[256];
	/* Refused for a parent that is a file: the message ends with the reason. */
	char bad[3100];
	snprintf(bad, sizeof(bad), "%s/x/%s", base, longp + strlen(base) + 1);
	assert_int_equal(nbw_rundir_open(bad, false, &rd, err, sizeof(err)), NBW_EXIT_USAGE);
	assert_true(strlen(err) < sizeof(err) - 1);
	assert_non_null(strstr(err, "Not a directory"));
	/* A long path that works. */
	assert_int_equal(nbw_rundir_open(longp, false, &rd, err, sizeof(err)), 0);
	nbw_rundir_close(&rd, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_nested_and_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_own_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_sibling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_results, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_path_message, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
