/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/disturb.c: the recorded /proc of the 2-vCPU VM and a hand-made one
 * (with cpufreq and an old kernel's counters), stages from hand-made snapshots on each side
 * of every threshold, a missing file, and two live snapshots around a 50 ms spin. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/disturb.h"

#ifndef NODEBW_FIXTURES
#error "NODEBW_FIXTURES (the tests/fixtures folder) must be defined by the build"
#endif

#define VM NODEBW_FIXTURES "/proc-2cpu-vm"
#define HANDMADE NODEBW_FIXTURES "/proc-cpufreq-handmade"
#define EPS 1e-9

static double num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		fail_msg("\"%s\" is not a number", key);
	return json_number_value(v);
}

static const char *str(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		fail_msg("\"%s\" is not a string", key);
	return json_string_value(v);
}

/* ---- recorded and hand-made fixtures ---------------------------------------------------- */

static void test_vm_snapshot(void **state)
{
	(void)state;
	struct nbw_disturb_snap s;
	char err[512] = "";
	assert_int_equal(nbw_disturb_snap_take(VM, &s, err, sizeof(err)), 0);
	/* proc/loadavg "1.00 1.02 0.64 ..."; proc/stat "cpu  50414 0 21977 2236788 672 0 138
	 * 143 0 0". */
	assert_float_equal(s.load1, 1.00, EPS);
	const uint64_t cpu[] = { 50414, 0, 21977, 2236788, 672, 0, 138, 143 };
	assert_memory_equal(s.cpu, cpu, sizeof(cpu));
	/* proc/self/stat (a bash): utime 1 stime 1 cutime 33 cstime 11. */
	assert_int_equal(s.self_jiffies, 46);
	/* proc/79 is kdamond.0: utime 0, stime 3271. */
	assert_int_equal(s.kdamond_n, 1);
	assert_int_equal(s.kdamond[0].pid, 79);
	assert_int_equal(s.kdamond_jiffies, 3271);
	/* proc/vmstat: no reclaim or compaction since boot, every counter present. */
	assert_int_equal(s.pgscan, 0);
	assert_int_equal(s.pgscan_direct, 0);
	assert_int_equal(s.pgsteal, 0);
	assert_int_equal(s.compact_stall, 0);
	assert_int_equal(s.thp_fault_alloc, 0);
	assert_int_equal(s.thp_collapse_alloc, 0);
	assert_int_equal(s.pgmajfault, 2425);
}

static void test_vm_env(void **state)
{
	(void)state;
	json_t *e = nbw_disturb_env_json(VM);
	assert_non_null(e);
	json_t *thp = json_object_get(e, "transparent_hugepage");
	assert_string_equal(str(thp, "enabled"), "madvise");
	assert_string_equal(str(thp, "defrag"), "madvise");
	assert_string_equal(str(e, "cpufreq_governors"), NBW_DISTURB_NO_CPUFREQ);
	assert_int_equal(json_integer_value(json_object_get(e, "kdamond_threads")), 1);
	assert_int_equal(json_integer_value(json_object_get(e, "cpus_online")), 2);
	json_decref(e);
}

static void test_handmade_snapshot(void **state)
{
	(void)state;
	struct nbw_disturb_snap s;
	char err[512] = "";
	assert_int_equal(nbw_disturb_snap_take(HANDMADE, &s, err, sizeof(err)), 0);
	assert_float_equal(s.load1, 0.25, EPS);
	/* Seven columns: no steal on this (old) kernel. */
	assert_int_equal(s.cpu[NBW_CPU_SOFTIRQ], 6);
	assert_true(s.cpu[NBW_CPU_STEAL] == NBW_DISTURB_NA);
	/* comm "nodebw (x) y": utime 120 stime 30 cutime 7 cstime 3. */
	assert_int_equal(s.self_jiffies, 160);
	/* kdamond.0 5+400, kdamond.1 2+60; not kswapd0, nor the user process (no PF_KTHREAD)
	 * named kdamond-lookalike. */
	assert_int_equal(s.kdamond_n, 2);
	assert_int_equal(s.kdamond_jiffies, 467);
	/* Per-zone counters: scan 100+10+7 (not _throttle, not _file), direct 7, steal 90+5
	 * (not _anon); no compaction or THP counters at all. */
	assert_int_equal(s.pgscan, 117);
	assert_int_equal(s.pgscan_direct, 7);
	assert_int_equal(s.pgsteal, 95);
	assert_true(s.compact_stall == NBW_DISTURB_NA);
	assert_true(s.thp_fault_alloc == NBW_DISTURB_NA);
	assert_true(s.thp_collapse_alloc == NBW_DISTURB_NA);
	assert_int_equal(s.pgmajfault, 17);

	/* A stage against itself: unavailable counters are null, never 0. */
	json_t *j = nbw_disturb_stage_json(&s, &s, 7);
	assert_true(json_is_null(json_object_get(j, "steal_s")));
	assert_true(json_is_null(json_object_get(j, "compact_stalls")));
	assert_true(json_is_null(json_object_get(j, "thp_fault_alloc")));
	assert_int_equal(json_integer_value(json_object_get(j, "major_faults")), 0);
	json_decref(j);
}

static void test_handmade_env(void **state)
{
	(void)state;
	json_t *e = nbw_disturb_env_json(HANDMADE);
	assert_non_null(e);
	json_t *thp = json_object_get(e, "transparent_hugepage");
	assert_string_equal(str(thp, "enabled"), "always");
	assert_true(json_is_null(json_object_get(thp, "defrag")));
	json_t *g = json_object_get(e, "cpufreq_governors");
	assert_true(json_is_object(g));
	assert_int_equal(json_object_size(g), 2);
	assert_string_equal(str(g, "policy0"), "performance");
	assert_string_equal(str(g, "policy4"), "powersave");
	assert_string_equal(json_object_iter_key(json_object_iter(g)), "policy0");
	assert_int_equal(json_integer_value(json_object_get(e, "kdamond_threads")), 2);
	/* "0-3,6,8-9" */
	assert_int_equal(json_integer_value(json_object_get(e, "cpus_online")), 7);
	json_decref(e);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct nbw_disturb_snap s;
	char err[512] = "", dir[] = "/tmp/nbw-disturb-XXXXXX", p[600];
	assert_int_equal(nbw_disturb_snap_take("/nonexistent-nbw", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-nbw/proc/loadavg"));

	/* loadavg and stat present, proc/self/stat absent. */
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/proc", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	static const char *const files[][2] = { { "loadavg", "0.10 0.10 0.10 1/1 1\n" },
						{ "stat", "cpu  1 2 3 4 5 6 7 8\n" } };
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/proc/%s", dir, files[i][0]);
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(files[i][1], f);
		fclose(f);
	}
	assert_int_equal(nbw_disturb_snap_take(dir, &s, err, sizeof(err)), -1);
	snprintf(p, sizeof(p), "%s/proc/self/stat", dir);
	assert_non_null(strstr(err, p));
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/proc/%s", dir, files[i][0]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/proc", dir);
	rmdir(p);
	rmdir(dir);
}

/* ---- stages from hand-made snapshots ---------------------------------------------------- */

/* A 10 s stage on 2 CPUs (20 CPU seconds available) in which nodebw took 5 CPU seconds and
 * nothing else happened; each test then adds one disturbance to the end snapshot. */
#define NCPU 2
static uint64_t J(double seconds)
{
	return (uint64_t)llround(seconds * (double)sysconf(_SC_CLK_TCK));
}

static void quiet_pair(struct nbw_disturb_snap *a, struct nbw_disturb_snap *b)
{
	memset(a, 0, sizeof(*a));
	a->wall_s = 100.0;
	a->load1 = 0.2;
	for (int i = 0; i < NBW_CPU_NFIELDS; i++)
		a->cpu[i] = 1000000;
	a->self_jiffies = J(1);
	a->kdamond_n = 1;
	a->kdamond[0].pid = 79;
	a->kdamond[0].jiffies = a->kdamond_jiffies = J(30);
	a->pgscan = a->pgscan_direct = a->pgsteal = a->compact_stall = 50;
	a->thp_fault_alloc = a->thp_collapse_alloc = a->pgmajfault = 50;
	*b = *a;
	b->wall_s = 110.0;
	b->load1 = 1.3;	/* the load at the end is not judged */
	b->cpu[NBW_CPU_USER] += J(4);
	b->cpu[NBW_CPU_SYSTEM] += J(1);
	b->cpu[NBW_CPU_IDLE] += J(15);
	b->self_jiffies += J(5);
}

static json_t *stage_reasons(const struct nbw_disturb_snap *a,
			     const struct nbw_disturb_snap *b, size_t n, const char *word)
{
	json_t *j = nbw_disturb_stage_json(a, b, NCPU);
	assert_non_null(j);
	json_t *r = json_object_get(j, "reasons");
	assert_int_equal(json_array_size(r), n);
	assert_int_equal(nbw_disturb_stage_disturbed(j), n > 0);
	const char *first = json_string_value(json_array_get(r, 0));
	if (word && !strstr(first, word))
		fail_msg("reason \"%s\" does not say \"%s\"", first, word);
	return j;
}

static void test_stage_quiet(void **state)
{
	(void)state;
	struct nbw_disturb_snap a, b;
	quiet_pair(&a, &b);
	/* Just under every threshold: other 4 %, steal 1 %, kdamond 2.5 % of one CPU; the load
	 * average, kswapd reclaim, THP faults and major faults are recorded, not judged. */
	b.cpu[NBW_CPU_USER] += J(0.8);
	b.cpu[NBW_CPU_STEAL] += J(0.2);
	b.kdamond[0].jiffies += J(0.25);
	a.load1 = 0.9;
	b.pgscan += 1000;
	b.pgsteal += 900;
	b.thp_fault_alloc += 3;
	b.pgmajfault += 2;
	json_t *j = stage_reasons(&a, &b, 0, NULL);
	assert_float_equal(num(j, "seconds"), 10.0, EPS);
	assert_float_equal(num(j, "available_cpu_s"), 20.0, EPS);
	assert_float_equal(num(j, "this_process_cpu_s"), 5.0, EPS);
	assert_float_equal(num(j, "other_cpu_s"), 0.8, EPS);
	assert_float_equal(num(j, "other_cpu_share"), 0.04, EPS);
	assert_float_equal(num(j, "steal_share"), 0.01, EPS);
	assert_float_equal(num(j, "kdamond_cpu_s"), 0.25, EPS);
	assert_float_equal(num(j, "kdamond_share_of_one_cpu"), 0.025, EPS);
	assert_float_equal(num(j, "load_avg_start"), 0.9, EPS);
	assert_float_equal(num(j, "load_avg_end"), 1.3, EPS);
	assert_int_equal(json_integer_value(json_object_get(j, "reclaim_scanned_pages")), 1000);
	assert_int_equal(json_integer_value(json_object_get(j, "reclaim_direct_scanned_pages")),
			 0);
	assert_int_equal(json_integer_value(json_object_get(j, "reclaim_stolen_pages")), 900);
	assert_int_equal(json_integer_value(json_object_get(j, "thp_fault_alloc")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "major_faults")), 2);
	json_decref(j);
}

static void test_stage_each_threshold(void **state)
{
	(void)state;
	struct nbw_disturb_snap a, b;

	quiet_pair(&a, &b);
	b.cpu[NBW_CPU_NICE] += J(1.2); /* 6 % of 20 s */
	json_decref(stage_reasons(&a, &b, 1, "other processes took 6.0 %"));

	quiet_pair(&a, &b);
	b.cpu[NBW_CPU_STEAL] += J(0.6); /* 3 % */
	json_decref(stage_reasons(&a, &b, 1, "stole 3.0 %"));

	/* kdamond.0 (pid 79) ends during the stage and kdamond.1 (pid 80) starts and runs for
	 * 0.4 s: 4 % of one CPU; the thread that went is not a negative time. */
	quiet_pair(&a, &b);
	b.kdamond[0].pid = 80;
	b.kdamond[0].jiffies = b.kdamond_jiffies = J(0.4);
	json_decref(stage_reasons(&a, &b, 1, "kdamond (DAMON) used 4.0 %"));

	quiet_pair(&a, &b);
	b.pgscan_direct += 1;
	json_decref(stage_reasons(&a, &b, 1, "direct reclaim scanned 1 pages"));

	quiet_pair(&a, &b);
	b.compact_stall += 2;
	json_decref(stage_reasons(&a, &b, 1, "compaction stalled 2 times"));

	/* The load average is recorded, not judged: it still holds what ran a minute ago. */
	quiet_pair(&a, &b);
	a.load1 = 5.0;
	json_decref(stage_reasons(&a, &b, 0, NULL));

	/* All at once, in the documented order. */
	quiet_pair(&a, &b);
	b.cpu[NBW_CPU_NICE] += J(1.2);
	b.cpu[NBW_CPU_STEAL] += J(0.6);
	b.kdamond[0].jiffies += J(0.4);
	b.pgscan_direct += 1;
	b.compact_stall += 1;
	a.load1 = 2.0;
	json_decref(stage_reasons(&a, &b, 5, "other processes"));

	/* Unavailable counters judge nothing and are null. */
	quiet_pair(&a, &b);
	a.cpu[NBW_CPU_STEAL] = b.cpu[NBW_CPU_STEAL] = NBW_DISTURB_NA;
	a.pgscan_direct = NBW_DISTURB_NA;
	b.pgscan_direct = 1000;
	json_t *j = stage_reasons(&a, &b, 0, NULL);
	assert_true(json_is_null(json_object_get(j, "steal_s")));
	assert_true(json_is_null(json_object_get(j, "steal_share")));
	assert_true(json_is_null(json_object_get(j, "reclaim_direct_scanned_pages")));
	json_decref(j);
	assert_false(nbw_disturb_stage_disturbed(NULL));
}

/* ---- the live system -------------------------------------------------------------------- */

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* This process spins for 50 ms of its own CPU time between two snapshots. Whatever else
 * the machine runs (a parallel build stretches the wall time, not the spin), "other" must
 * be the machine's busy time less at least that spin: were nodebw's own time counted as
 * other, other_cpu_s would exceed the bound by the spin (50 ms) less the slack (25 ms: two
 * jiffies of rounding in /proc/self/stat and a little more). */
static void test_live(void **state)
{
	(void)state;
	struct nbw_disturb_snap a, b;
	char err[512] = "";
	assert_int_equal(nbw_disturb_snap_take(NULL, &a, err, sizeof(err)), 0);
	const double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
	volatile double x = 1.0;
	while (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0 < 0.05 ||
	       clock_s(CLOCK_MONOTONIC) - w0 < 0.05)
		x = x * 1.0000001 + 1e-9;
	const double spin = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	assert_int_equal(nbw_disturb_snap_take("", &b, err, sizeof(err)), 0);

	const double hz = (double)sysconf(_SC_CLK_TCK);
	const unsigned ncpu = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	json_t *j = nbw_disturb_stage_json(&a, &b, ncpu);
	assert_non_null(j);
	double busy = 0;
	static const int cols[] = { NBW_CPU_USER, NBW_CPU_NICE, NBW_CPU_SYSTEM, NBW_CPU_IRQ,
				    NBW_CPU_SOFTIRQ };
	for (int i = 0; i < 5; i++)
		busy += (double)(b.cpu[cols[i]] - a.cpu[cols[i]]) / hz;
	assert_true(num(j, "seconds") >= 0.05);
	assert_true(num(j, "this_process_cpu_s") >= spin - 0.025);
	const double other = num(j, "other_cpu_s"), share = num(j, "other_cpu_share");
	if (other > busy - spin + 0.025)
		fail_msg("other processes %.3f s, but the machine was busy %.3f s of which this "
			 "process spun %.3f s", other, busy, spin);
	assert_true(share >= 0.0 && share <= 1.0);
	assert_true(json_is_array(json_object_get(j, "reasons")));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm_snapshot),
		cmocka_unit_test(test_vm_env),
		cmocka_unit_test(test_handmade_snapshot),
		cmocka_unit_test(test_handmade_env),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_stage_quiet),
		cmocka_unit_test(test_stage_each_threshold),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
