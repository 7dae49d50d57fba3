/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/cli.c: the options of "probe" and "run", and the child argv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include <cmocka.h>

#include "nodebw/backends.h"
#include "nodebw/cli.h"

#define MiB (1024ull * 1024ull)

/* Parse a NULL-terminated argv; getopt may permute, so work on a copy of the pointers. */
static int parse(char **argv, struct nbw_probe_opts *o, char *err, size_t errlen)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	char *copy[64];
	assert_true(argc < 64);
	memcpy(copy, argv, (size_t)(argc + 1) * sizeof(char *));
	err[0] = '\0';
	return nbw_cli_parse_probe(argc, copy, o, err, errlen);
}

static void parse_ok(char **argv, struct nbw_probe_opts *o)
{
	char err[512];
	int rc = parse(argv, o, err, sizeof(err));
	if (rc != 0)
		fail_msg("parse of '%s %s ...' gave %d: %s", argv[0], argv[1] ? argv[1] : "", rc,
			 err);
}

/* Expect a usage error whose message mentions \p has (when not NULL). */
static void parse_bad(char **argv, const char *has)
{
	struct nbw_probe_opts o;
	char err[512];
	int rc = parse(argv, &o, err, sizeof(err));
	if (rc != -1)
		fail_msg("'%s %s' should be rejected, gave %d", argv[0], argv[1] ? argv[1] : "", rc);
	assert_true(strlen(err) > 0);
	assert_null(strchr(err, '\n'));
	if (has && !strstr(err, has))
		fail_msg("error '%s' does not mention '%s'", err, has);
	/* Nothing to free after a failure, but freeing must be harmless. */
	nbw_cli_opts_free(&o);
}

static bool have_omp(void)
{
	return nbw_backend_find("omp") != NULL;
}

/* ---- defaults and profiles -------------------------------------------------------------- */

static void check_all_selected(const struct nbw_probe_opts *o)
{
	for (int i = 0; i < NBW_MODE_COUNT; i++)
		assert_true(o->modes[i]);
	assert_true(o->hostmem[0] && o->hostmem[1]);
	assert_true(o->threads[0] && o->threads[1]);
	assert_int_equal(o->napis, 0);
	assert_int_equal(o->nprobes, 0);
	assert_int_equal(o->ndevices, 0);
}

static void test_defaults_probe(void **state)
{
	(void)state;
	char *argv[] = { "probe", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	check_all_selected(&o);
	assert_int_equal(o.profile, NBW_PROFILE_DEFAULT);
	assert_int_equal(o.warmup, 2);
	assert_int_equal(o.min_reps, 6);
	assert_int_equal(o.max_reps, 500);
	assert_float_equal(o.min_time_s, 0.005, 1e-15);
	assert_int_equal(o.hidden_helpers, -1);
	assert_false(o.hht_sweep);
	assert_false(o.sizes_given);
	assert_false(o.quiet);
	assert_string_equal(o.output, "");
	/* The default sweep to 256 MiB. */
	assert_true(o.sizes.n > 0);
	assert_int_equal(o.sizes.v[0].bytes, 8);
	assert_int_equal(o.sizes.v[o.sizes.n - 1].bytes, 256 * MiB);
	assert_int_equal(o.sizes.n, 31);
	nbw_cli_opts_free(&o);
	assert_null(o.sizes.v);
}

static void test_defaults_run(void **state)
{
	(void)state;
	/* "run" (the main job) defaults to the quick profile and the hidden-helper sweep. */
	char *argv[] = { "run", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	check_all_selected(&o);
	assert_int_equal(o.profile, NBW_PROFILE_QUICK);
	assert_int_equal(o.warmup, 1);
	assert_int_equal(o.min_reps, 6);
	assert_int_equal(o.max_reps, 5000);
	assert_int_equal(o.hidden_helpers, -1);
	assert_true(o.hht_sweep);
	assert_false(o.sizes_given);
	assert_int_equal(o.sizes.n, 10);
	assert_int_equal(o.sizes.v[o.sizes.n - 1].bytes, 64 * MiB);
	nbw_cli_opts_free(&o);

	/* --default selects the standard profile of "probe". */
	char *argv1[] = { "run", "--default", NULL };
	parse_ok(argv1, &o);
	assert_int_equal(o.profile, NBW_PROFILE_DEFAULT);
	assert_int_equal(o.warmup, 2);
	assert_int_equal(o.min_reps, 6);
	assert_int_equal(o.max_reps, 500);
	assert_float_equal(o.min_time_s, 0.005, 1e-15);
	assert_int_equal(o.sizes.n, 31);
	assert_true(o.hht_sweep);
	nbw_cli_opts_free(&o);

	char *argv2[] = { "run", "--no-hht-sweep", NULL };
	parse_ok(argv2, &o);
	assert_false(o.hht_sweep);
	nbw_cli_opts_free(&o);

	char *argv3[] = { "probe", "--hht-sweep", NULL };
	parse_ok(argv3, &o);
	assert_true(o.hht_sweep);
	nbw_cli_opts_free(&o);

	/* One profile: two different ones are refused, the same one twice is fine. */
	char *argv4[] = { "probe", "--quick", "--full", "--default", NULL };
	char err[256] = "";
	assert_int_equal(nbw_cli_parse_probe(4, argv4, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--quick and --full exclude each other"));
	nbw_cli_opts_free(&o);
	char *argv5[] = { "run", "--full", "--full", NULL };
	parse_ok(argv5, &o);
	assert_int_equal(o.profile, NBW_PROFILE_FULL);
	nbw_cli_opts_free(&o);
}

static void test_quick(void **state)
{
	(void)state;
	char *argv[] = { "probe", "--quick", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	assert_int_equal(o.profile, NBW_PROFILE_QUICK);
	assert_int_equal(o.warmup, 1);
	assert_int_equal(o.min_reps, 6);
	assert_int_equal(o.max_reps, 5000);
	assert_float_equal(o.min_time_s, 0.001, 1e-15);
	assert_float_equal(o.max_time_s, 0.02, 1e-15);
	assert_false(o.sizes_given);
	/* Sparse sweep to 64 MiB with the halo planes 512 and 1024. */
	assert_int_equal(o.sizes.n, 10);
	assert_int_equal(o.sizes.v[0].bytes, 8);
	assert_int_equal(o.sizes.v[1].bytes, 64);
	assert_int_equal(o.sizes.v[o.sizes.n - 1].bytes, 64 * MiB);
	nbw_cli_opts_free(&o);
}

static void test_full(void **state)
{
	(void)state;
	char *argv[] = { "probe", "--full", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	assert_int_equal(o.profile, NBW_PROFILE_FULL);
	assert_int_equal(o.warmup, 3);
	assert_int_equal(o.min_reps, 10);
	assert_int_equal(o.max_reps, 1000);
	assert_float_equal(o.min_time_s, 0.02, 1e-15);
	assert_float_equal(o.max_time_s, 0.15, 1e-15);
	assert_false(o.reps_given || o.warmup_given);
	assert_int_equal(o.sizes.v[o.sizes.n - 1].bytes, 1024 * MiB);
	nbw_cli_opts_free(&o);
}

static void test_method_overrides(void **state)
{
	(void)state;
	char *argv[] = { "probe", "--quick", "--warmup", "0", "--reps", "7", "--max-reps", "9",
			 "--min-time", "0.125", "--quiet", "--output", "out/dir", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	assert_int_equal(o.warmup, 0);
	assert_int_equal(o.min_reps, 7);
	assert_int_equal(o.max_reps, 9);
	assert_float_equal(o.min_time_s, 0.125, 0.0);
	assert_true(o.quiet);
	assert_string_equal(o.output, "out/dir");
	nbw_cli_opts_free(&o);

	/* --max-reps below --reps is raised to it. */
	char *argv2[] = { "probe", "--reps", "50", "--max-reps", "10", NULL };
	parse_ok(argv2, &o);
	assert_int_equal(o.min_reps, 50);
	assert_int_equal(o.max_reps, 50);
	nbw_cli_opts_free(&o);

	/* --opt=value works as well. */
	char *argv3[] = { "probe", "--warmup=4", "--min-time=0", NULL };
	parse_ok(argv3, &o);
	assert_int_equal(o.warmup, 4);
	assert_float_equal(o.min_time_s, 0.0, 0.0);
	nbw_cli_opts_free(&o);
}

/* ---- selection -------------------------------------------------------------------------- */

static void test_mode(void **state)
{
	(void)state;
	char *argv[] = { "probe", "--mode", "sync,async", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	assert_true(o.modes[NBW_MODE_SYNC]);
	assert_true(o.modes[NBW_MODE_ASYNC]);
	assert_false(o.modes[NBW_MODE_NOWAIT]);
	assert_true(o.hostmem[0] && o.hostmem[1]);
	nbw_cli_opts_free(&o);

	/* Repeated options add up. */
	char *argv2[] = { "probe", "--mode", "nowait", "--mode", "sync", NULL };
	parse_ok(argv2, &o);
	assert_true(o.modes[NBW_MODE_SYNC]);
	assert_false(o.modes[NBW_MODE_ASYNC]);
	assert_true(o.modes[NBW_MODE_NOWAIT]);
	nbw_cli_opts_free(&o);

	char *bad[] = { "probe", "--mode", "sync,turbo", NULL };
	parse_bad(bad, "turbo");
	char *empty[] = { "probe", "--mode", ",", NULL };
	parse_bad(empty, NULL);
}

static void test_host_mem(void **state)
{
	(void)state;
	char *argv[] = { "probe", "--host-mem", "pinned", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	assert_false(o.hostmem[NBW_HOSTMEM_PAGEABLE]);
	assert_true(o.hostmem[NBW_HOSTMEM_PINNED]);
	nbw_cli_opts_free(&o);

	char *argv2[] = { "probe", "--host-mem", "pageable", NULL };
	parse_ok(argv2, &o);
	assert_true(o.hostmem[NBW_HOSTMEM_PAGEABLE]);
	assert_false(o.hostmem[NBW_HOSTMEM_PINNED]);
	nbw_cli_opts_free(&o);

	char *bad[] = { "probe", "--host-mem", "none", NULL };
	parse_bad(bad, "none");
	char *bad2[] = { "probe", "--host-mem", "huge", NULL };
	parse_bad(bad2, "huge");
}

static void test_threads(void **state)
{
	(void)state;
	char *argv[] = { "probe", "--threads", "1", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	assert_true(o.threads[0]);
	assert_false(o.threads[1]);
	nbw_cli_opts_free(&o);

	char *argv2[] = { "probe", "--threads", "2", NULL };
	parse_ok(argv2, &o);
	assert_false(o.threads[0]);
	assert_true(o.threads[1]);
	nbw_cli_opts_free(&o);

	char *bad[] = { "probe", "--threads", "3", NULL };
	parse_bad(bad, "3");
	char *bad2[] = { "probe", "--threads", "12", NULL };
	parse_bad(bad2, "12");
}

static void test_devices(void **state)
{
	(void)state;
	char *argv[] = { "probe", "--devices", "0,1", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	assert_int_equal(o.ndevices, 2);
	assert_int_equal(o.devices[0], 0);
	assert_int_equal(o.devices[1], 1);
	nbw_cli_opts_free(&o);

	char *argv2[] = { "probe", "--devices", "3,2", NULL };
	parse_ok(argv2, &o);
	assert_int_equal(o.ndevices, 2);
	assert_int_equal(o.devices[0], 3); /* order kept: the first is used alone */
	assert_int_equal(o.devices[1], 2);
	nbw_cli_opts_free(&o);

	char *dup[] = { "probe", "--devices", "0,0", NULL };
	parse_bad(dup, "twice");
	char *neg[] = { "probe", "--devices", "-1", NULL };
	parse_bad(neg, "-1");
	char *x[] = { "probe", "--devices", "x", NULL };
	parse_bad(x, "'x'");
	char *junk[] = { "probe", "--devices", "1x", NULL };
	parse_bad(junk, "1x");
	char *empty[] = { "probe", "--devices", ",", NULL };
	parse_bad(empty, NULL);
}

static void test_sizes(void **state)
{
	(void)state;
	char *argv[] = { "probe", "--sizes", "1KiB,8", NULL };
	struct nbw_probe_opts o;
	parse_ok(argv, &o);
	assert_true(o.sizes_given);
	assert_int_equal(o.sizes.n, 2);
	assert_int_equal(o.sizes.v[0].bytes, 8);
	assert_int_equal(o.sizes.v[1].bytes, 1024);
	nbw_cli_opts_free(&o);

	char *argv2[] = { "probe", "--max-size", "1MiB", NULL };
	parse_ok(argv2, &o);
	assert_true(o.sizes_given);
	assert_int_equal(o.sizes.n, 18);
	assert_int_equal(o.sizes.v[o.sizes.n - 1].bytes, MiB);
	nbw_cli_opts_free(&o);

	char *zero[] = { "probe", "--sizes", "0", NULL };
	parse_bad(zero, "0");
	char *both[] = { "probe", "--sizes", "8", "--max-size", "1MiB", NULL };
	parse_bad(both, "--max-size");
	char *small[] = { "probe", "--max-size", "4", NULL };
	parse_bad(small, "--max-size");
	char *badmax[] = { "probe", "--max-size", "big", NULL };
	parse_bad(badmax, "big");
}

static void test_hidden_helpers(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	char *zero[] = { "probe", "--hidden-helpers", "0", NULL };
	parse_ok(zero, &o);
	assert_int_equal(o.hidden_helpers, 0);
	nbw_cli_opts_free(&o);
	char *max[] = { "probe", "--hidden-helpers", "16", NULL };
	parse_ok(max, &o);
	assert_int_equal(o.hidden_helpers, 16);
	nbw_cli_opts_free(&o);

	char *big[] = { "probe", "--hidden-helpers", "17", NULL };
	parse_bad(big, "17");
	char *neg[] = { "probe", "--hidden-helpers", "-1", NULL };
	parse_bad(neg, "-1");
	char *nan[] = { "probe", "--hidden-helpers", "four", NULL };
	parse_bad(nan, "four");
}

static void test_cuda_sched(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	char *none[] = { "probe", NULL };
	parse_ok(none, &o);
	assert_string_equal(o.cuda_sched, "auto"); /* leave the contexts as found */
	nbw_cli_opts_free(&o);
	const char *ok[] = { "spin", "yield", "blocking", "auto" };
	for (size_t i = 0; i < 4; i++) {
		char *argv[] = { "run", "--cuda-sched", (char *)ok[i], NULL };
		parse_ok(argv, &o);
		assert_string_equal(o.cuda_sched, ok[i]);
		nbw_cli_opts_free(&o);
	}
	char *bad[] = { "probe", "--cuda-sched", "busy", NULL };
	parse_bad(bad, "--cuda-sched 'busy' (spin, yield, blocking, auto)");
	char *upper[] = { "probe", "--cuda-sched", "SPIN", NULL };
	parse_bad(upper, "SPIN");
	char *empty[] = { "probe", "--cuda-sched", "", NULL };
	parse_bad(empty, "--cuda-sched");
	char *list[] = { "probe", "--cuda-sched", "spin,yield", NULL };
	parse_bad(list, "spin,yield");
	char *missing[] = { "probe", "--cuda-sched", NULL };
	parse_bad(missing, "--cuda-sched");
}

static void test_numbers_rejected(void **state)
{
	(void)state;
	char *mt[] = { "probe", "--min-time", "-1", NULL };
	parse_bad(mt, "--min-time");
	char *mt2[] = { "probe", "--min-time", "soon", NULL };
	parse_bad(mt2, "--min-time");
	char *mt3[] = { "probe", "--min-time", "nan", NULL };
	parse_bad(mt3, "--min-time");
	char *mt4[] = { "probe", "--min-time", "3601", NULL };
	parse_bad(mt4, "--min-time");
	char *w[] = { "probe", "--warmup", "-2", NULL };
	parse_bad(w, "--warmup");
	char *r[] = { "probe", "--reps", "0", NULL };
	parse_bad(r, "--reps");
	char *r2[] = { "probe", "--reps", "5x", NULL };
	parse_bad(r2, "--reps");
	char *mr[] = { "probe", "--max-reps", "", NULL };
	parse_bad(mr, "--max-reps");
	char *out[] = { "probe", "--output", "", NULL };
	parse_bad(out, "--output");
}

static void test_usage_errors(void **state)
{
	(void)state;
	char *unknown[] = { "probe", "--bogus", NULL };
	parse_bad(unknown, "--bogus");
	char *unknown_short[] = { "probe", "-z", NULL };
	parse_bad(unknown_short, NULL);
	char *missing[] = { "probe", "--mode", NULL };
	parse_bad(missing, "--mode");
	char *missing2[] = { "probe", "--quick", "--sizes", NULL };
	parse_bad(missing2, "--sizes");
	char *stray[] = { "probe", "htod", NULL };
	parse_bad(stray, "htod");
	char *stray2[] = { "probe", "--quick", "extra", "--quiet", NULL };
	parse_bad(stray2, "extra");
	char *flagval[] = { "probe", "--quick=1", NULL };
	parse_bad(flagval, NULL);
	/* An unknown short option inside a group is named by itself, not by its neighbour. */
	char *group[] = { "probe", "--quick", "-zq", NULL };
	parse_bad(group, "-z");
}

static void test_help(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	char err[256];
	char *argv[] = { "probe", "--help", NULL };
	assert_int_equal(parse(argv, &o, err, sizeof(err)), 1);
	nbw_cli_opts_free(&o);
	char *argv2[] = { "run", "--quick", "--help", NULL };
	assert_int_equal(parse(argv2, &o, err, sizeof(err)), 1);
	nbw_cli_opts_free(&o);

	/* The usage text names the subcommand and every option. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	nbw_cli_usage_probe(f, "run");
	fclose(f);
	assert_non_null(strstr(buf, "nodebw run"));
	static const char *const opts[] = { "--api", "--probe", "--mode", "--host-mem",
					    "--threads", "--devices", "--sizes", "--max-size",
					    "--quick", "--full", "--default", "--warmup", "--reps",
					    "--max-reps", "--min-time", "--hidden-helpers",
					    "--hht-sweep", "--no-hht-sweep", "--output", "--quiet" };
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		assert_non_null(strstr(buf, opts[i]));
	free(buf);
}

static void test_api(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	char *all[] = { "probe", "--api", "all", NULL };
	parse_ok(all, &o);
	assert_int_equal(o.napis, 0);
	nbw_cli_opts_free(&o);

	char *bogus[] = { "probe", "--api", "bogus", NULL };
	parse_bad(bogus, "bogus");

	/* Known whether or not this build has it: a build without OpenMP offload accepts the
	 * name and the run then fails with the reason (tests/cli/check-no-offload.sh). */
	char *omp[] = { "probe", "--api", "omp", NULL };
	parse_ok(omp, &o);
	assert_int_equal(o.napis, 1);
	assert_string_equal(o.apis[0], "omp");
	nbw_cli_opts_free(&o);
}

static void test_probe(void **state)
{
	(void)state;
	struct nbw_probe_opts o;
	char *dirs[] = { "probe", "--probe", "htod,dtoh,p2p", NULL };
	parse_ok(dirs, &o);
	assert_int_equal(o.nprobes, 3);
	assert_string_equal(o.probes[0], "htod");
	assert_string_equal(o.probes[2], "p2p");
	nbw_cli_opts_free(&o);

	char *bogus[] = { "probe", "--probe", "bogus", NULL };
	parse_bad(bogus, "bogus");
	char *bogus2[] = { "probe", "--probe", "htod,omp-sideways", NULL };
	parse_bad(bogus2, "omp-sideways");

	if (!have_omp())
		skip();
	char *argv[] = { "probe", "--probe", "htod,omp-p2p", NULL };
	parse_ok(argv, &o);
	assert_int_equal(o.nprobes, 2);
	assert_string_equal(o.probes[0], "htod");
	assert_string_equal(o.probes[1], "omp-p2p");
	nbw_cli_opts_free(&o);
}

/* ---- nbw_cli_parse_int_list ------------------------------------------------------------- */

static void test_int_list(void **state)
{
	(void)state;
	int v[4], n = -1;
	char err[256] = "";
	assert_int_equal(nbw_cli_parse_int_list("0,1,3", 0, INT_MAX, v, 4, &n, "device id", err,
						sizeof(err)),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 1);
	assert_int_equal(v[2], 3);

	assert_int_equal(nbw_cli_parse_int_list("7", 0, 7, v, 4, &n, "id", err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 7);

	assert_int_equal(nbw_cli_parse_int_list("2147483647", 0, INT_MAX, v, 4, &n, "id", err,
						sizeof(err)),
			 0);
	assert_int_equal(v[0], 2147483647);

	/* Empty items (strtok would merge them), blanks, plus signs, hex, values past the range
	 * or past long, duplicates, too many. */
	static const char *const bad[] = { "", ",", "1,1", "0,2,0", "-1", "a", "1,b", "1.5",
					   "2147483648", "1,2,3,4,5", "0,,1", ",0", "0,", " 1",
					   "+1", "0x1", "1 ", "99", "4294967297",
					   "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(nbw_cli_parse_int_list(bad[i], 0, 63, v, 4, &n, "device id", err,
							sizeof(err)),
				 -1);
		assert_true(strlen(err) > 0);
		assert_non_null(strstr(err, "device id"));
	}
}

/* ---- nbw_cli_parse_decimal -------------------------------------------------------------- */

static void test_decimal(void **state)
{
	(void)state;
	char err[256];
	double x = -1.0;
	static const struct {
		const char *s;
		double v;
	} good[] = { { "0", 0.0 }, { "12", 12.0 }, { "0.5", 0.5 }, { ".25", 0.25 },
		     { "5.", 5.0 }, { "1e-3", 1e-3 }, { "2E+1", 20.0 }, { "3600", 3600.0 } };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(nbw_cli_parse_decimal(good[i].s, 0.0, 3600.0, &x, "--min-time",
						       "seconds", err, sizeof(err)),
				 0);
		assert_true(x == good[i].v);
	}
	static const char *const bad[] = { "", "0x10", "0X1p4", "inf", "nan", "-1", "+1", " 1",
					   "1 ", "1e", "e5", ".", "1..2", "3601", "1e400", "1,5" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		x = -7.0;
		assert_int_equal(nbw_cli_parse_decimal(bad[i], 0.0, 3600.0, &x, "--min-time",
						       "seconds", err, sizeof(err)),
				 -1);
		assert_true(x == -7.0);
		assert_non_null(strstr(err, "--min-time"));
	}
}

/* ---- nbw_cli_each_item ------------------------------------------------------------------ */

static int count_item(const char *t, void *ctx, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	assert_true(*t != '\0');
	(*(int *)ctx)++;
	return 0;
}

static void test_each_item(void **state)
{
	(void)state;
	char err[256];
	int n = 0;
	assert_int_equal(nbw_cli_each_item("a,b,c", "--x", count_item, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	static const char *const bad[] = { "", ",", "a,,b", ",a", "a,", ",,", "a,b," };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 0;
		assert_int_equal(nbw_cli_each_item(bad[i], "--x", count_item, &n, err, sizeof(err)),
				 -1);
		assert_int_equal(n, 0);
		assert_non_null(strstr(err, "--x"));
	}
}

/* ---- nbw_cli_probe_argv ----------------------------------------------------------------- */

static void cmp_opts(const struct nbw_probe_opts *a, const struct nbw_probe_opts *b)
{
	assert_int_equal(a->napis, b->napis);
	for (int i = 0; i < a->napis; i++)
		assert_string_equal(a->apis[i], b->apis[i]);
	assert_int_equal(a->nprobes, b->nprobes);
	for (int i = 0; i < a->nprobes; i++)
		assert_string_equal(a->probes[i], b->probes[i]);
	assert_memory_equal(a->modes, b->modes, sizeof(a->modes));
	assert_memory_equal(a->hostmem, b->hostmem, sizeof(a->hostmem));
	assert_memory_equal(a->threads, b->threads, sizeof(a->threads));
	assert_int_equal(a->ndevices, b->ndevices);
	for (int i = 0; i < a->ndevices; i++)
		assert_int_equal(a->devices[i], b->devices[i]);
	assert_int_equal(a->sizes.n, b->sizes.n);
	for (size_t i = 0; i < a->sizes.n; i++) {
		assert_int_equal(a->sizes.v[i].bytes, b->sizes.v[i].bytes);
		assert_int_equal(a->sizes.v[i].halo_n, b->sizes.v[i].halo_n);
	}
	assert_int_equal(a->warmup, b->warmup);
	assert_int_equal(a->min_reps, b->min_reps);
	assert_int_equal(a->max_reps, b->max_reps);
	assert_true(a->min_time_s == b->min_time_s);
	assert_true(a->max_time_s == b->max_time_s);
	assert_int_equal(a->reps_given, b->reps_given);
	assert_int_equal(a->warmup_given, b->warmup_given);
	assert_int_equal(a->profile, b->profile);
	assert_int_equal(a->hidden_helpers, b->hidden_helpers);
	assert_int_equal(a->hht_sweep, b->hht_sweep);
	assert_string_equal(a->cuda_sched, b->cuda_sched);
	assert_string_equal(a->output, b->output);
	assert_int_equal(a->quiet, b->quiet);
}

static void argv_roundtrip(char **argv)
{
	struct nbw_probe_opts o, back;
	parse_ok(argv, &o);
	char **child = nbw_cli_probe_argv(&o, "/usr/bin/nodebw");
	assert_non_null(child);
	assert_string_equal(child[0], "/usr/bin/nodebw");
	assert_string_equal(child[1], "probe");
	int argc = 0;
	while (child[argc])
		argc++;
	/* The parser may permute argv; keep the array nbw_cli_argv_free walks intact. */
	char **copy = calloc((size_t)argc + 1, sizeof(char *));
	assert_non_null(copy);
	memcpy(copy, child, (size_t)argc * sizeof(char *));
	char err[512] = "";
	int rc = nbw_cli_parse_probe(argc - 1, copy + 1, &back, err, sizeof(err));
	if (rc)
		fail_msg("child argv does not parse: %s", err);
	cmp_opts(&o, &back);
	/* The child always gets an explicit size list. */
	assert_true(back.sizes_given);
	free(copy);
	nbw_cli_argv_free(child);
	nbw_cli_opts_free(&back);
	nbw_cli_opts_free(&o);
}

static void test_probe_argv(void **state)
{
	(void)state;
	char *defaults[] = { "probe", NULL };
	argv_roundtrip(defaults);
	char *run[] = { "run", "--quick", NULL };
	argv_roundtrip(run);
	char *many[] = { "probe",      "--mode",    "async,nowait", "--host-mem", "pinned",
			 "--threads",  "2",         "--devices",    "3,1",        "--sizes",
			 "8,3276800,1GiB", "--warmup", "0",         "--reps",     "3",
			 "--max-reps", "4",         "--min-time",   "0.1",  "--max-time", "0.7", "--hidden-helpers",
			 "7",          "--output",  "some dir/x",   "--quiet",    "--probe",
			 "dtoh,p2p",   NULL };
	argv_roundtrip(many);
	char *hh0[] = { "probe", "--hidden-helpers", "0", "--min-time", "0.3", "--full",
			"--cuda-sched", "blocking", NULL };
	argv_roundtrip(hh0);
	char *full_run[] = { "run", "--full", "--no-hht-sweep", NULL };
	argv_roundtrip(full_run);
	if (have_omp()) {
		char *omp[] = { "probe", "--api", "omp", "--probe", "omp-htod,omp-p2p", NULL };
		argv_roundtrip(omp);
	}
}

static void test_reparse(void **state)
{
	(void)state;
	/* getopt state is reset on every call: the same argv parses the same way again. */
	for (int i = 0; i < 3; i++) {
		struct nbw_probe_opts o;
		char *argv[] = { "probe", "--mode", "sync", "--devices", "1", NULL };
		parse_ok(argv, &o);
		assert_true(o.modes[NBW_MODE_SYNC]);
		assert_false(o.modes[NBW_MODE_ASYNC]);
		assert_int_equal(o.ndevices, 1);
		nbw_cli_opts_free(&o);
		char *bad[] = { "probe", "--bogus", NULL };
		parse_bad(bad, "--bogus");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_probe),
		cmocka_unit_test(test_defaults_run),
		cmocka_unit_test(test_quick),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_method_overrides),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_host_mem),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_hidden_helpers),
		cmocka_unit_test(test_cuda_sched),
		cmocka_unit_test(test_numbers_rejected),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_int_list),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_each_item),
		cmocka_unit_test(test_probe_argv),
		cmocka_unit_test(test_reparse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
