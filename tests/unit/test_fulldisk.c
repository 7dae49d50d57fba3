// SPDX-License-Identifier: BSD-3-Clause
/* The results writer on a full disk (a file-size limit stands in for it): a checkpoint that
 * holds measurements is never replaced by a document holding fewer, and "running" never
 * outlives its writer (the lock file stays, and the next nodebw marks the results "killed"). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/cli.h"
#include "nodebw/rundir.h"
#include "nodebw/results.h"

static json_t *on_disk(const char *dir)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/results.json", dir);
	json_t *j = json_load_file(p, 0, NULL);
	assert_non_null(j);
	return j;
}

/* \p n measurements: copies of a recorded one (tests/fixtures). */
static void add(struct nbw_doc *d, int n)
{
	static json_t *m;
	if (!m) {
		char p[512];
		snprintf(p, sizeof(p), "%s/tests/fixtures/results-omp-host-2cpu-vm.json",
			 getenv("NODEBW_SOURCE") ? getenv("NODEBW_SOURCE") : ".");
		json_t *j = json_load_file(p, 0, NULL);
		assert_non_null(j);
		m = json_deep_copy(json_array_get(json_object_get(j, "measurements"), 0));
		json_decref(j);
		assert_non_null(m);
	}
	for (int i = 0; i < n; i++)
		nbw_doc_add_measurement_json(d, json_deep_copy(m));
}

/* The device the recorded measurement's stream ends on (a reader checks it is listed). */
static void add_device(struct nbw_doc *d)
{
	struct nbw_device dev = { .id = 0, .is_gpu = false };
	snprintf(dev.kind, sizeof(dev.kind), "host-plugin");
	snprintf(dev.name, sizeof(dev.name), "x86_64 host offload device");
	nbw_doc_add_device(d, "omp", &dev);
}

static void test_checkpoint_kept(void **state)
{
	(void)state;
	char dir[] = "/tmp/nodebw-test-fulldisk-XXXXXX", err[512], p[600];
	assert_non_null(mkdtemp(dir));
	struct nbw_rundir rd;
	assert_int_equal(nbw_rundir_open(dir, false, &rd, err, sizeof(err)), 0);
	char *argv[] = { "nodebw", "probe" };
	struct nbw_doc *d = nbw_doc_new(2, argv);
	assert_non_null(d);
	add_device(d);
	nbw_doc_set_state(d, "running", NULL);
	add(d, 3);
	assert_int_equal(nbw_doc_write(d, dir, err, sizeof(err)), 0); /* the checkpoint */
	snprintf(p, sizeof(p), "%s/results.json", dir);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	/* The disk fills: room for the checkpoint, not for it marked "failed" with its reason. */
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)st.st_size + 16;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	add(d, 9);
	nbw_doc_set_state(d, "complete", NULL);
	int rc = nbw_doc_write(d, dir, err, sizeof(err));
	nbw_rundir_close(&rd, false);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(rc, -1);
	json_t *j = on_disk(dir);
	assert_int_equal(json_array_size(json_object_get(j, "measurements")), 3);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "running");
	json_decref(j);
	/* Its lock stays, naming the writer; the next nodebw finds it without an owner. */
	snprintf(p, sizeof(p), "%s/%s", dir, NBW_LOCK_NAME);
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(nbw_rundir_open(dir, false, &rd, err, sizeof(err)), NBW_EXIT_USAGE);
	assert_non_null(strstr(err, "the results of 'nodebw probe', killed"));
	j = on_disk(dir);
	assert_int_equal(json_array_size(json_object_get(j, "measurements")), 3);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "killed");
	json_decref(j);
	nbw_doc_free(d);
	nbw_remove_tree(dir);
}

/* Room for nothing: with no checkpoint holding measurements, the head says "failed". */
static void test_head_when_nothing_kept(void **state)
{
	(void)state;
	char dir[] = "/tmp/nodebw-test-fulldisk-XXXXXX", err[512];
	assert_non_null(mkdtemp(dir));
	char *argv[] = { "nodebw", "probe" };
	struct nbw_doc *d = nbw_doc_new(2, argv);
	assert_non_null(d);
	add_device(d);
	nbw_doc_set_state(d, "running", NULL);
	assert_int_equal(nbw_doc_write(d, dir, err, sizeof(err)), 0);
	add(d, 40);
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	nbw_doc_set_state(d, "complete", NULL);
	int rc = nbw_doc_write(d, dir, err, sizeof(err));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(rc, -1);
	json_t *j = on_disk(dir);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "failed");
	json_decref(j);
	nbw_doc_free(d);
	nbw_remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checkpoint_kept),
		cmocka_unit_test(test_head_when_nothing_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
