/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief What disturbs the machine during a stage of a run: two snapshots of /proc (one at
 * the start of the stage, one at its end) and the difference, judged by the thresholds
 * below, plus the static settings (THP, cpufreq governor, DAMON) that shape every figure.
 * No process-wide state. doc/analysis.md, "Disturbance during a run", says what each field
 * means.
 */
#ifndef NODEBW_DISTURB_H
#define NODEBW_DISTURB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A counter that the kernel does not provide (an old kernel, a missing vmstat line). */
#define NBW_DISTURB_NA UINT64_MAX

/** Other processes took more than this share of the stage's CPU time (seconds x CPUs). */
#define NBW_DISTURB_OTHER_SHARE 0.05
/** The hypervisor stole more than this share of the stage's CPU time. */
#define NBW_DISTURB_STEAL_SHARE 0.02
/** kdamond (DAMON) threads used more than this share of one CPU over the stage: above its
 *  idle sampling (0.4-1.1 % of one CPU in every stage of six quick runs on the 2-core VM). */
#define NBW_DISTURB_KDAMOND_SHARE 0.03
/* Any direct reclaim (pgscan_direct*) or compaction stall (compact_stall) disturbs. */

/** kdamond threads followed one by one (a stage is charged only for the CPU time of threads
 *  seen at both ends, or of threads born during it); beyond this, only their sum is kept. */
#define NBW_DISTURB_KDAMOND_MAX 32

/** The /proc/stat aggregate "cpu" columns read, in the file's order. */
enum nbw_disturb_cpu {
	NBW_CPU_USER, NBW_CPU_NICE, NBW_CPU_SYSTEM, NBW_CPU_IDLE, NBW_CPU_IOWAIT, NBW_CPU_IRQ,
	NBW_CPU_SOFTIRQ, NBW_CPU_STEAL, NBW_CPU_NFIELDS
};

/** One snapshot. Jiffies are in USER_HZ (sysconf(_SC_CLK_TCK)); NBW_DISTURB_NA where the
 *  kernel gives no such counter. */
struct nbw_disturb_snap {
	double wall_s;			/**< CLOCK_MONOTONIC when taken, seconds */
	double load1;			/**< /proc/loadavg, 1 minute */
	uint64_t cpu[NBW_CPU_NFIELDS];	/**< /proc/stat "cpu" line, whole machine */
	uint64_t self_jiffies;		/**< /proc/self/stat utime+stime+cutime+cstime */
	uint64_t kdamond_jiffies;	/**< utime+stime of every kdamond* kernel thread */
	unsigned kdamond_n;		/**< kdamond threads found */
	struct {
		int pid;
		uint64_t jiffies;
	} kdamond[NBW_DISTURB_KDAMOND_MAX]; /**< the first kdamond_n of them */
	/* /proc/vmstat */
	uint64_t pgscan;		/**< pages scanned by reclaim: pgscan_kswapd, _direct... */
	uint64_t pgscan_direct;		/**< of which by direct reclaim (pgscan_direct*) */
	uint64_t pgsteal;		/**< pages reclaimed: pgsteal_kswapd, _direct, ... */
	uint64_t compact_stall;
	uint64_t thp_fault_alloc;
	uint64_t thp_collapse_alloc;
	uint64_t pgmajfault;
};

/** Take a snapshot. \p root is "" or NULL for the running system, else a folder holding
 *  proc/ and sys/ as recorded (its proc/self/ is a plain folder). 0, or -1 with \p err
 *  naming the file that could not be read or parsed (/proc/stat, /proc/loadavg,
 *  /proc/vmstat, /proc/self/stat or the /proc folder itself). */
int nbw_disturb_snap_take(const char *root, struct nbw_disturb_snap *s, char *err,
			  size_t errlen);

/** The static settings: {"transparent_hugepage": {"enabled", "defrag"} (the bracketed
 *  choice, null when absent), "cpufreq_governors": {"policy0": "performance", ...} or the
 *  string NBW_DISTURB_NO_CPUFREQ, "kdamond_threads", "cpus_online" (null when unknown)}. */
json_t *nbw_disturb_env_json(const char *root);
#define NBW_DISTURB_NO_CPUFREQ \
	"not exposed (no cpufreq in sysfs: a VM or a fixed-frequency host)"

/** What happened between snapshots \p a and \p b (taken in that order) on \p ncpu CPUs:
 *  the CPU time of other processes, steal, kdamond, reclaim, compaction, THP and major
 *  faults, "disturbed" and "reasons" (one sentence per threshold crossed). NULL on no
 *  memory. */
json_t *nbw_disturb_stage_json(const struct nbw_disturb_snap *a,
			       const struct nbw_disturb_snap *b, unsigned ncpu);

/** The "disturbed" member of a stage object; false when absent. */
bool nbw_disturb_stage_disturbed(const json_t *stage);

#endif
