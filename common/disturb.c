/* SPDX-License-Identifier: BSD-3-Clause */
/* What disturbs the machine during a stage of a run (include/nodebw/disturb.h). */
#include "nodebw/disturb.h"
#include "nodebw/results_view.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000u /* include/linux/sched.h: the task is a kernel thread */

static FILE *open_at(const char *root, const char *rel, char *path, size_t len)
{
	snprintf(path, len, "%s%s", root ? root : "", rel);
	return fopen(path, "re");
}

/* "ROOT/REL: WHY" into err; -1. */
static int bad(const char *root, const char *rel, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s%s: %s", root ? root : "", rel, why);
	return -1;
}

/* The first line of ROOT/REL without its newline; 0, or -1 with the reason in err. */
static int read_line(const char *root, const char *rel, char *buf, size_t len, char *err,
		     size_t errlen)
{
	char path[PATH_MAX];
	FILE *f = open_at(root, rel, path, sizeof(path));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = fgets(buf, (int)len, f) ? 0 : -1;
	fclose(f);
	if (rc)
		snprintf(err, errlen, "%s: empty", path);
	else
		buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

/* Fields 14-17 of a /proc/PID/stat line (utime stime cutime cstime) summed, the first
 * \p nfields of them, and field 9 (flags), counted after the ")" that closes the command
 * name, which may itself hold spaces and parentheses. */
static int stat_jiffies(const char *line, int nfields, uint64_t *sum, unsigned *flags)
{
	const char *p = strrchr(line, ')');
	long long v[4];
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u %*u %*u %*u %*u %lld %lld %lld %lld",
			 flags, &v[0], &v[1], &v[2], &v[3]) != 5)
		return -1;
	*sum = 0;
	for (int i = 0; i < nfields; i++)
		*sum += v[i] > 0 ? (uint64_t)v[i] : 0;
	return 0;
}

/* Every kernel thread (PF_KTHREAD) named kdamond* under ROOT/proc: sum, count and the
 * first ones by pid. A thread that ends while the folder is read is skipped. -1 when /proc
 * cannot be opened. */
static int scan_kdamond(const char *root, struct nbw_disturb_snap *s, char *err, size_t errlen)
{
	char path[PATH_MAX], line[1024];
	snprintf(path, sizeof(path), "%s/proc", root ? root : "");
	DIR *d = opendir(path);
	if (!d)
		return bad(root, "/proc", strerror(errno), err, errlen);
	s->kdamond_jiffies = 0;
	s->kdamond_n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		if (!isdigit((unsigned char)n[0]) || n[strspn(n, "0123456789")])
			continue;
		char rel[300], ign[8];
		uint64_t j;
		unsigned flags;
		snprintf(rel, sizeof(rel), "/proc/%s/comm", n);
		if (read_line(root, rel, line, sizeof(line), ign, sizeof(ign)) ||
		    strncmp(line, "kdamond", 7) != 0)
			continue;
		snprintf(rel, sizeof(rel), "/proc/%s/stat", n);
		if (read_line(root, rel, line, sizeof(line), ign, sizeof(ign)) ||
		    stat_jiffies(line, 2, &j, &flags) || !(flags & PF_KTHREAD))
			continue;
		if (s->kdamond_n < NBW_DISTURB_KDAMOND_MAX) {
			s->kdamond[s->kdamond_n].pid = atoi(n);
			s->kdamond[s->kdamond_n].jiffies = j;
		}
		s->kdamond_n++;
		s->kdamond_jiffies += j;
	}
	closedir(d);
	return 0;
}

/* Reclaim counters are named by who reclaims (kswapd, direct, khugepaged, proactive; per
 * zone on old kernels); _anon and _file split the same pages by type, and
 * pgscan_direct_throttle counts throttling events, not pages. */
static bool reclaim_counter(const char *name)
{
	const char *t = strrchr(name, '_');
	return strcmp(t, "_anon") && strcmp(t, "_file") && strcmp(name, "pgscan_direct_throttle");
}

static void add_na(uint64_t *acc, uint64_t v)
{
	*acc = *acc == NBW_DISTURB_NA ? v : *acc + v;
}

static int read_vmstat(const char *root, struct nbw_disturb_snap *s, char *err, size_t errlen)
{
	char path[PATH_MAX], name[128];
	unsigned long long v;
	FILE *f = open_at(root, "/proc/vmstat", path, sizeof(path));
	if (!f)
		return bad(root, "/proc/vmstat", strerror(errno), err, errlen);
	s->pgscan = s->pgscan_direct = s->pgsteal = s->compact_stall = NBW_DISTURB_NA;
	s->thp_fault_alloc = s->thp_collapse_alloc = s->pgmajfault = NBW_DISTURB_NA;
	while (fscanf(f, "%127s %llu", name, &v) == 2) {
		if (strncmp(name, "pgscan_", 7) == 0 && reclaim_counter(name)) {
			add_na(&s->pgscan, v);
			if (strncmp(name, "pgscan_direct", 13) == 0)
				add_na(&s->pgscan_direct, v);
		} else if (strncmp(name, "pgsteal_", 8) == 0 && reclaim_counter(name)) {
			add_na(&s->pgsteal, v);
		} else if (strcmp(name, "compact_stall") == 0) {
			s->compact_stall = v;
		} else if (strcmp(name, "thp_fault_alloc") == 0) {
			s->thp_fault_alloc = v;
		} else if (strcmp(name, "thp_collapse_alloc") == 0) {
			s->thp_collapse_alloc = v;
		} else if (strcmp(name, "pgmajfault") == 0) {
			s->pgmajfault = v;
		}
	}
	fclose(f);
	return 0;
}

int nbw_disturb_snap_take(const char *root, struct nbw_disturb_snap *s, char *err,
			  size_t errlen)
{
	char line[1024];
	struct timespec ts;
	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->wall_s = (double)ts.tv_sec + ts.tv_nsec * 1e-9;

	if (read_line(root, "/proc/loadavg", line, sizeof(line), err, errlen))
		return -1;
	if (sscanf(line, "%lf", &s->load1) != 1)
		return bad(root, "/proc/loadavg", "no load average", err, errlen);

	if (read_line(root, "/proc/stat", line, sizeof(line), err, errlen))
		return -1;
	unsigned long long c[NBW_CPU_NFIELDS];
	int n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &c[0], &c[1], &c[2],
		       &c[3], &c[4], &c[5], &c[6], &c[7]);
	if (n < 4)
		return bad(root, "/proc/stat", "the first line is not the \"cpu\" total", err,
			   errlen);
	for (int i = 0; i < NBW_CPU_NFIELDS; i++)
		s->cpu[i] = i < n ? c[i] : NBW_DISTURB_NA;

	if (read_line(root, "/proc/self/stat", line, sizeof(line), err, errlen))
		return -1;
	unsigned flags;
	if (stat_jiffies(line, 4, &s->self_jiffies, &flags))
		return bad(root, "/proc/self/stat", "fewer than 17 fields", err, errlen);
	if (scan_kdamond(root, s, err, errlen))
		return -1;
	return read_vmstat(root, s, err, errlen);
}

/* The bracketed choice of a sysfs "always [madvise] never" line; null when absent. */
static json_t *bracketed(const char *root, const char *rel)
{
	char line[256], ign[8];
	if (read_line(root, rel, line, sizeof(line), ign, sizeof(ign)))
		return json_null();
	char *o = strchr(line, '['), *c = o ? strchr(o, ']') : NULL;
	if (!c)
		return json_string(line);
	*c = '\0';
	return json_string(o + 1);
}

static int is_policy(const struct dirent *e)
{
	return strncmp(e->d_name, "policy", 6) == 0;
}

/* {"policy0": "performance", ...} in the policies' order, or the NBW_DISTURB_NO_CPUFREQ
 * string when there is none. */
static json_t *governors(const char *root)
{
	char path[PATH_MAX], line[128], ign[8];
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpufreq", root ? root : "");
	json_t *o = json_object();
	struct dirent **e = NULL;
	int n = scandir(path, &e, is_policy, versionsort);
	for (int i = 0; i < n; i++) {
		char rel[512];
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpufreq/%s/scaling_governor",
			 e[i]->d_name);
		if (read_line(root, rel, line, sizeof(line), ign, sizeof(ign)) == 0)
			json_object_set_new(o, e[i]->d_name, json_string(line));
		free(e[i]);
	}
	free(e);
	if (json_object_size(o))
		return o;
	json_decref(o);
	return json_string(NBW_DISTURB_NO_CPUFREQ);
}

/* CPUs in a list such as "0-3,8,10-11"; -1 when unreadable. */
static int cpus_online(const char *root)
{
	char line[1024], ign[8], *end;
	if (read_line(root, "/sys/devices/system/cpu/online", line, sizeof(line), ign,
		      sizeof(ign)))
		return -1;
	int count = 0;
	for (char *p = line; *p; p = *end == ',' ? end + 1 : end) {
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			return -1;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if ((*end && *end != ',') || hi < lo)
			return -1;
		count += (int)(hi - lo + 1);
	}
	return count;
}

json_t *nbw_disturb_env_json(const char *root)
{
	struct nbw_disturb_snap s;
	char ign[8];
	int ncpu = cpus_online(root);
	json_t *kd = scan_kdamond(root, &s, ign, sizeof(ign)) ? json_null()
							      : json_integer(s.kdamond_n);
	return json_pack("{s:{s:o, s:o}, s:o, s:o, s:o}", "transparent_hugepage", "enabled",
			 bracketed(root, "/sys/kernel/mm/transparent_hugepage/enabled"), "defrag",
			 bracketed(root, "/sys/kernel/mm/transparent_hugepage/defrag"),
			 "cpufreq_governors", governors(root), "kdamond_threads", kd,
			 "cpus_online", ncpu > 0 ? json_integer(ncpu) : json_null());
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	if (a == NBW_DISTURB_NA || b == NBW_DISTURB_NA)
		return NBW_DISTURB_NA;
	return b > a ? b - a : 0;
}

static json_t *count_json(uint64_t v)
{
	return v == NBW_DISTURB_NA ? json_null() : json_integer((json_int_t)v);
}

static json_t *real_json(double v, bool known)
{
	return known ? json_real(v) : json_null();
}

/* CPU time of the kdamond threads over the stage: each thread seen at both ends for its
 * difference, a thread born during the stage for all of it, one that ended for nothing. */
static uint64_t kdamond_delta(const struct nbw_disturb_snap *a,
			      const struct nbw_disturb_snap *b)
{
	if (a->kdamond_n > NBW_DISTURB_KDAMOND_MAX || b->kdamond_n > NBW_DISTURB_KDAMOND_MAX)
		return delta(a->kdamond_jiffies, b->kdamond_jiffies);
	uint64_t sum = 0;
	for (unsigned i = 0; i < b->kdamond_n; i++) {
		uint64_t before = 0;
		for (unsigned k = 0; k < a->kdamond_n; k++)
			if (a->kdamond[k].pid == b->kdamond[i].pid)
				before = a->kdamond[k].jiffies;
		sum += delta(before, b->kdamond[i].jiffies);
	}
	return sum;
}

__attribute__((format(printf, 2, 3))) static void reason(json_t *reasons, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(reasons, json_string(buf));
}

json_t *nbw_disturb_stage_json(const struct nbw_disturb_snap *a,
			       const struct nbw_disturb_snap *b, unsigned ncpu)
{
	const double hz = (double)sysconf(_SC_CLK_TCK);
	const double secs = b->wall_s - a->wall_s, avail = secs * ncpu;
	const bool shares = secs > 0 && ncpu > 0 && hz > 0;
	/* Busy: everything but idle, iowait and steal (which is not this guest's work). */
	static const int busy_cols[] = { NBW_CPU_USER, NBW_CPU_NICE, NBW_CPU_SYSTEM, NBW_CPU_IRQ,
					 NBW_CPU_SOFTIRQ };
	uint64_t busy = 0;
	for (size_t i = 0; i < 5 && busy != NBW_DISTURB_NA; i++) {
		uint64_t d = delta(a->cpu[busy_cols[i]], b->cpu[busy_cols[i]]);
		busy = d == NBW_DISTURB_NA ? d : busy + d;
	}
	const uint64_t self = delta(a->self_jiffies, b->self_jiffies);
	const uint64_t steal = delta(a->cpu[NBW_CPU_STEAL], b->cpu[NBW_CPU_STEAL]);
	const uint64_t kd = kdamond_delta(a, b);
	const uint64_t direct = delta(a->pgscan_direct, b->pgscan_direct);
	const uint64_t stalls = delta(a->compact_stall, b->compact_stall);
	const bool other_ok = busy != NBW_DISTURB_NA;
	const double other_s = other_ok && busy > self ? (double)(busy - self) / hz : 0.0;
	const double other_sh = shares ? other_s / avail : 0.0;
	const bool st = steal != NBW_DISTURB_NA;
	const double steal_s = st ? (double)steal / hz : 0.0;
	const double steal_sh = shares ? steal_s / avail : 0.0;
	const double kd_s = (double)kd / hz, kd_sh = shares ? kd_s / secs : 0.0;

	json_t *r = json_array();
	if (shares && other_ok && other_sh > NBW_DISTURB_OTHER_SHARE)
		reason(r, "other processes took %.1f %% of the available CPU time (%.2f of %.2f "
		       "CPU seconds; more than %.0f %%)", 100 * other_sh, other_s, avail,
		       100 * NBW_DISTURB_OTHER_SHARE);
	if (shares && st && steal_sh > NBW_DISTURB_STEAL_SHARE)
		reason(r, "the hypervisor stole %.1f %% of the available CPU time (more than "
		       "%.0f %%)", 100 * steal_sh, 100 * NBW_DISTURB_STEAL_SHARE);
	if (shares && kd_sh > NBW_DISTURB_KDAMOND_SHARE)
		reason(r, "kdamond (DAMON) used %.1f %% of one CPU (more than %.0f %%)",
		       100 * kd_sh, 100 * NBW_DISTURB_KDAMOND_SHARE);
	if (direct != NBW_DISTURB_NA && direct > 0)
		reason(r, "direct reclaim scanned %llu pages: memory ran short",
		       (unsigned long long)direct);
	if (stalls != NBW_DISTURB_NA && stalls > 0)
		reason(r, "memory compaction stalled %llu times", (unsigned long long)stalls);

	return json_pack("{s:f, s:i, s:f, s:f, s:o, s:f, s:o, s:o, s:o, s:o, s:f, s:o, s:o, s:o,"
			 " s:o, s:o, s:o, s:o, s:o, s:b, s:o}",
			 "seconds", secs, "cpus", (int)ncpu, "load_avg_start", a->load1,
			 "load_avg_end", b->load1, "available_cpu_s", real_json(avail, shares),
			 "this_process_cpu_s", (double)self / hz,
			 "other_cpu_s", real_json(other_s, other_ok),
			 "other_cpu_share", real_json(other_sh, other_ok && shares),
			 "steal_s", real_json(steal_s, st),
			 "steal_share", real_json(steal_sh, st && shares), "kdamond_cpu_s", kd_s,
			 "kdamond_share_of_one_cpu", real_json(kd_sh, shares),
			 "reclaim_scanned_pages", count_json(delta(a->pgscan, b->pgscan)),
			 "reclaim_direct_scanned_pages", count_json(direct),
			 "reclaim_stolen_pages", count_json(delta(a->pgsteal, b->pgsteal)),
			 "compact_stalls", count_json(stalls),
			 "thp_fault_alloc",
			 count_json(delta(a->thp_fault_alloc, b->thp_fault_alloc)),
			 "thp_collapse_alloc",
			 count_json(delta(a->thp_collapse_alloc, b->thp_collapse_alloc)),
			 "major_faults", count_json(delta(a->pgmajfault, b->pgmajfault)),
			 "disturbed", json_array_size(r) > 0, "reasons", r);
}

bool nbw_disturb_stage_disturbed(const json_t *stage)
{
	struct nbw_rv_stage s;
	return nbw_rv_stage_read((json_t *)stage, &s) && s.disturbed;
}
