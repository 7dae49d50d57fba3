/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/sysinfo.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "nodebw/sizes.h"
#include "nodebw/version.h"

extern char **environ;

static void read_cpu_model(char *buf, size_t len)
{
	snprintf(buf, len, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				c[strcspn(c, "\n")] = '\0';
				snprintf(buf, len, "%s", c);
			}
			break;
		}
	}
	fclose(f);
}

static uint64_t kib_field(const char *file, const char *key)
{
	FILE *f = fopen(file, "re");
	if (!f)
		return 0;
	char line[256];
	unsigned long long kib = 0;
	size_t kl = strlen(key);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			sscanf(line + kl + 1, "%llu", &kib);
			break;
		}
	}
	fclose(f);
	return (uint64_t)kib * 1024u;
}

static uint64_t meminfo_field(const char *key)
{
	return kib_field("/proc/meminfo", key);
}

uint64_t nbw_sysinfo_mem_available(void)
{
	return meminfo_field("MemAvailable");
}

/* Room under one resource limit: its soft value less what the process uses now (a
 * /proc/self/status field) less the runtimes' reserve, plus \p reusable. 0 when no limit. */
static uint64_t limit_room(int resource, const char *field, uint64_t reusable, uint64_t *limit)
{
	struct rlimit rl;
	if (getrlimit(resource, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	uint64_t used = kib_field("/proc/self/status", field) + NBW_RUNTIME_RESERVE_BYTES;
	*limit = (uint64_t)rl.rlim_cur;
	uint64_t room = *limit > used ? *limit - used : 0;
	return room + reusable > 0 ? room + reusable : 1;
}

const char *nbw_sysinfo_room_label(uint64_t room, char *buf, size_t len)
{
	char lb[32];
	if (room > 1)
		snprintf(buf, len, "only %s", nbw_size_label(room, lb, sizeof(lb)));
	else
		snprintf(buf, len, "nothing");
	return buf;
}

uint64_t nbw_sysinfo_mem_room(uint64_t reusable, char *what, size_t len)
{
	uint64_t room = nbw_sysinfo_mem_available(), lim = 0;
	if (what && len)
		snprintf(what, len, "MemAvailable of /proc/meminfo");
	static const struct {
		int res;
		const char *field, *name;
	} limits[] = {
		{RLIMIT_AS, "VmSize", "the address-space limit RLIMIT_AS (ulimit -v)"},
		{RLIMIT_DATA, "VmData", "the data limit RLIMIT_DATA (ulimit -d)"},
	};
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		uint64_t r = limit_room(limits[i].res, limits[i].field, reusable, &lim);
		if (r && (!room || r < room)) {
			room = r;
			if (what && len)
				snprintf(what, len, "%s of %llu bytes, less what nodebw and its "
					 "runtimes use", limits[i].name, (unsigned long long)lim);
		}
	}
	return room;
}

json_t *nbw_sysinfo_machine(void)
{
	char host[256] = "unknown", cpu[256];
	gethostname(host, sizeof(host) - 1);
	read_cpu_model(cpu, sizeof(cpu));
	struct utsname u;
	char kernel[600] = "unknown", arch[80] = "unknown";
	if (uname(&u) == 0) {
		snprintf(kernel, sizeof(kernel), "%s %s %s", u.sysname, u.release, u.version);
		snprintf(arch, sizeof(arch), "%s", u.machine);
	}
	/* The CPUs this process may run on (taskset, a batch job's cpuset, an MPI rank's
	 * binding): its threads and children share them, whatever is online. */
	cpu_set_t allowed;
	int nallowed = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ? CPU_COUNT(&allowed)
									    : 0;
	json_t *m = json_pack("{s:s, s:s, s:i, s:s, s:s, s:I}", "hostname", host, "cpu_model", cpu,
			      "cpus_online", (int)sysconf(_SC_NPROCESSORS_ONLN), "kernel", kernel,
			      "arch", arch, "memory_total_bytes",
			      (json_int_t)meminfo_field("MemTotal"));
	if (m && nallowed > 0)
		json_object_set_new(m, "cpus_allowed", json_integer(nallowed));
	return m;
}

json_t *nbw_sysinfo_software(void)
{
#ifdef __clang_version__
	const char *cc = "clang " __clang_version__;
#elif defined(__VERSION__)
	const char *cc = "gcc " __VERSION__;
#else
	const char *cc = "unknown";
#endif
	return json_pack("{s:s, s:s, s:s, s:{}}", "compiler", cc, "build", NBW_BUILD_INFO,
			 "offload_targets", NBW_OFFLOAD_TARGETS, "backends");
}

int nbw_sysinfo_env_relevant(const char *name)
{
	static const char *const prefixes[] = { "OMP_", "KMP_", "LIBOMP", "LIBOMPTARGET_",
						"OMPTARGET_", "GOMP_", "CUDA_", "HIP_", "HSA_",
						"ROCR_", "ZE_", "ZES_", "NEO", "SYCL_", "GPU_" };
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	const char *v = strstr(name, "_VISIBLE_DEVICES");
	return v && v[16] == '\0';
}

json_t *nbw_sysinfo_environment(void)
{
	json_t *o = json_object();
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char name[256];
		size_t n = (size_t)(eq - *e);
		if (n >= sizeof(name))
			continue;
		memcpy(name, *e, n);
		name[n] = '\0';
		/* The re-exec guard is ours, not the user's. */
		if (strcmp(name, "NODEBW_REEXEC") != 0 && nbw_sysinfo_env_relevant(name))
			json_object_set_new(o, name, json_string(eq + 1));
	}
	return o;
}
