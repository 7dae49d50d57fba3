/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP runtime's environment, checked before the runtime starts
 * (include/nodebw/ompenv.h). */
#include "nodebw/ompenv.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nodebw/cli.h"

/* Threads per CPU nodebw lets libomp start (OMP_NUM_THREADS), with a floor for small
 * machines; the hidden-helper count is nodebw's own range (--hidden-helpers). */
#define THREADS_PER_CPU 16
#define THREADS_FLOOR 256
#define HIDDEN_HELPERS_MAX 16
/* libomp's hidden-helper count when LIBOMP_NUM_HIDDEN_HELPER_THREADS is unset. */
#define HIDDEN_HELPERS_DEFAULT 8

void nbw_ompenv_machine(struct nbw_ompenv_limits *l)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN), p = sysconf(_SC_PHYS_PAGES);
	long ps = sysconf(_SC_PAGESIZE);
	l->cpus = c > 0 ? c : 1;
	l->memory = p > 0 && ps > 0 ? (unsigned long long)p * (unsigned long long)ps : 0;
	l->helpers_min = 0;
}

/* A decimal integer with an optional sign, nothing else: false when \p s is not one or is
 * outside [lo, hi]. */
static bool decimal(const char *s, long long lo, long long hi, long long *out)
{
	const char *p = s + (*s == '-' || *s == '+');
	if (!isdigit((unsigned char)*p))
		return false;
	for (const char *q = p; *q; q++)
		if (!isdigit((unsigned char)*q))
			return false;
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* What LLVM 19's runtime does with a bad value of each variable (tried on this machine). */
#define STOI "libomptarget ends the process on it"
#define ABORTS "libomp aborts or hangs on it"
#define IGNORES "libomp warns and ignores it, so threads would not be placed as asked"

static int refuse(char *err, size_t errlen, const char *name, const char *value,
		  const char *want, const char *why)
{
	snprintf(err, errlen, "environment variable %s='%.60s'%s: %s (%s); unset or fix it", name,
		 value, strlen(value) > 60 ? "..." : "", want, why);
	return NBW_EXIT_USAGE;
}

/* OMP_NUM_THREADS: a comma list (one count per nesting level) of counts >= 1. */
static bool threads_ok(const char *v, long max)
{
	char buf[256];
	if (strlen(v) >= sizeof(buf) || !*v)
		return false;
	snprintf(buf, sizeof(buf), "%s", v);
	char *save = NULL;
	size_t items = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long long n;
		if (!decimal(t, 1, max, &n))
			return false;
		items++;
	}
	return items > 0 && v[strlen(v) - 1] != ',' && !strstr(v, ",,") && v[0] != ',';
}

/* OMP_STACKSIZE: a size with an optional unit B, K, M or G (libomp's default unit is K). */
static bool stacksize(const char *v, unsigned long long *bytes)
{
	char *end;
	if (!isdigit((unsigned char)*v))
		return false;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno)
		return false;
	unsigned long long unit = 1024;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'B': unit = 1; break;
		case 'K': unit = 1ULL << 10; break;
		case 'M': unit = 1ULL << 20; break;
		case 'G': unit = 1ULL << 30; break;
		default: return false;
		}
		if (end[1])
			return false;
	}
	if (n > ULLONG_MAX / unit)
		return false;
	*bytes = n * unit;
	return true;
}

/* OMP_PROC_BIND: true, false, or a list of master, primary, close, spread. */
static bool proc_bind_ok(const char *v)
{
	if (!strcasecmp(v, "true") || !strcasecmp(v, "false"))
		return true;
	char buf[256];
	if (!*v || strlen(v) >= sizeof(buf) || v[strlen(v) - 1] == ',' || strstr(v, ",,"))
		return false;
	snprintf(buf, sizeof(buf), "%s", v);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (strcasecmp(t, "master") && strcasecmp(t, "primary") && strcasecmp(t, "close") &&
		    strcasecmp(t, "spread"))
			return false;
	return true;
}

/* OMP_PLACES: an abstract name with an optional count, "cores(4)", or an explicit list of
 * places in braces ("{0:4},{4:4}", "{0,1},{2,3}", with strides and '!'). */
static bool places_ok(const char *v)
{
	static const char *const names[] = {"threads", "cores", "sockets", "ll_caches",
					    "numa_domains"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		if (strncasecmp(v, names[i], n))
			continue;
		long long k;
		char buf[32];
		if (!v[n])
			return true;
		size_t l = strlen(v + n);
		if (v[n] != '(' || v[n + l - 1] != ')' || l - 2 >= sizeof(buf) || l < 3)
			return false;
		snprintf(buf, sizeof(buf), "%.*s", (int)(l - 2), v + n + 1);
		return decimal(buf, 1, INT_MAX, &k);
	}
	int depth = 0;
	bool digit = false;
	for (const char *p = v; *p; p++) {
		if (*p == '{' && ++depth > 1)
			return false;
		if (*p == '}' && --depth < 0)
			return false;
		digit |= isdigit((unsigned char)*p);
		if (!strchr("{}:,!-0123456789 ", *p))
			return false;
	}
	return *v && depth == 0 && digit;
}

int nbw_ompenv_check(const char *(*getenv_fn)(const char *), const struct nbw_ompenv_limits *l,
		     char *err, size_t errlen)
{
	static const char *const ints[] = {"LIBOMPTARGET_DEBUG", "LIBOMPTARGET_INFO"};
	const char *v;
	long long n;
	for (size_t i = 0; i < 2; i++)
		if ((v = getenv_fn(ints[i])) && !decimal(v, INT_MIN, INT_MAX, &n))
			return refuse(err, errlen, ints[i], v, "not a decimal integer", STOI);
	long max = l->cpus * THREADS_PER_CPU > THREADS_FLOOR ? l->cpus * THREADS_PER_CPU
							     : THREADS_FLOOR;
	char want[160];
	snprintf(want, sizeof(want), "not a comma list of thread counts from 1 to %ld (%d per CPU "
				     "online, at least %d)", max, THREADS_PER_CPU, THREADS_FLOOR);
	if ((v = getenv_fn("OMP_NUM_THREADS")) && !threads_ok(v, max))
		return refuse(err, errlen, "OMP_NUM_THREADS", v, want, ABORTS);
	unsigned long long bytes, most = l->memory / (unsigned long long)(4 * l->cpus);
	snprintf(want, sizeof(want), "not a stack size from 1K to %lluM (a number with B, K, M or "
				     "G; a quarter of the memory per CPU at most)", most >> 20);
	if ((v = getenv_fn("OMP_STACKSIZE")) &&
	    (!stacksize(v, &bytes) || bytes < 1024 || (most && bytes > most)))
		return refuse(err, errlen, "OMP_STACKSIZE", v, want, ABORTS);
	if ((v = getenv_fn("OMP_PROC_BIND")) && !proc_bind_ok(v))
		return refuse(err, errlen, "OMP_PROC_BIND", v,
			      "not true, false or a list of primary, master, close, spread",
			      IGNORES);
	if ((v = getenv_fn("OMP_PLACES")) && !places_ok(v))
		return refuse(err, errlen, "OMP_PLACES", v,
			      "not threads, cores, sockets, ll_caches or numa_domains (with an "
			      "optional count in parentheses) or a list of places in braces",
			      IGNORES);
	/* libomp's other stack-size variables: the same syntax, the same limit (1T aborts). */
	static const char *const stacks[] = {"KMP_STACKSIZE", "GOMP_STACKSIZE"};
	snprintf(want, sizeof(want), "not a stack size from 1K to %lluM (a number with B, K, M or "
				     "G; a quarter of the memory per CPU at most)", most >> 20);
	for (size_t i = 0; i < 2; i++)
		if ((v = getenv_fn(stacks[i])) &&
		    (!stacksize(v, &bytes) || bytes < 1024 || (most && bytes > most)))
			return refuse(err, errlen, stacks[i], v, want, ABORTS);
	snprintf(want, sizeof(want), "not a count from 0 to %d", HIDDEN_HELPERS_MAX);
	long long helpers = HIDDEN_HELPERS_DEFAULT;
	if ((v = getenv_fn("LIBOMP_NUM_HIDDEN_HELPER_THREADS")) &&
	    !decimal(v, 0, HIDDEN_HELPERS_MAX, &helpers))
		return refuse(err, errlen, "LIBOMP_NUM_HIDDEN_HELPER_THREADS", v, want,
			      "outside nodebw's --hidden-helpers range");
	/* A limit on the process's threads below the hidden-helper team: libomp cannot form
	 * the team and spins for ever ("Cannot form a team with 8 threads"). A command may
	 * start more than the variable says (nodebw run's hidden-helper sweep: 8). */
	if (helpers < l->helpers_min)
		helpers = l->helpers_min;
	static const char *const limits[] = {"OMP_THREAD_LIMIT", "KMP_DEVICE_THREAD_LIMIT",
					     "KMP_ALL_THREADS"};
	for (size_t i = 0; i < 3; i++) {
		if (!(v = getenv_fn(limits[i])))
			continue;
		if (!decimal(v, 1, INT_MAX, &n))
			return refuse(err, errlen, limits[i], v, "not a thread count from 1",
				      IGNORES);
		if (n < helpers) {
			snprintf(want, sizeof(want), "below the %lld hidden helper threads libomp "
				 "starts (set it to %lld or more)", helpers, helpers);
			return refuse(err, errlen, limits[i], v, want,
				      "libomp hangs forming their team");
		}
	}
	return 0;
}
