// SPDX-License-Identifier: BSD-3-Clause
/* Range checks of a file's integers by key (include/nodebw/jints.h). */
#include "nodebw/jints.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/limits.h"

#define BIG (1LL << 20) /* counts of host CPUs, NUMA nodes, runtime ids: plenty */

static const struct nbw_int_rule results_rules[] = {
	/* devices and the host */
	{"device", -1, NBW_MAX_DEVICES - 1, "a device id"},
	{"src", -1, NBW_MAX_DEVICES - 1, "a device id"},
	{"dst", -1, NBW_MAX_DEVICES - 1, "a device id"},
	{"id", -1, NBW_MAX_DEVICES - 1, "a device id"},
	{"devices", 0, NBW_MAX_DEVICES * NBW_MAX_DEVICES, "device ids or a count of devices"},
	{"runtime_id", -1, BIG, "the runtime's device number"},
	{"members", 0, NBW_MAX_DEVICES * NBW_MAX_DEVICES, "a count of devices or pairs"},
	{"node", -1, BIG, "a NUMA node"},
	{"numa_node", -1, BIG, "a NUMA node"},
	{"os_index", -1, BIG, "an OS index"},
	{"package", -1, BIG, "a package"},
	{"packages", 0, BIG, "a count of packages"},
	{"numa_nodes", 0, BIG, "a count of NUMA nodes"},
	{"cores", 0, BIG, "a count of cores"},
	{"pus", 0, BIG, "a count of hardware threads"},
	{"cpus_online", 0, BIG, "a count of CPUs"},
	{"host_threads", 0, BIG, "a count of host threads"},
	{"hidden_helpers", -1, NBW_HH_MAX, "hidden helper threads (-1: the runtime's default)"},
	{"hidden_helpers_effective", -1, NBW_HH_MAX, "hidden helper threads"},
	/* probes */
	{"bytes", 0, INT64_MAX, "bytes"},
	{"checked_bytes", 0, INT64_MAX, "bytes"},
	{"sizes", 0, INT64_MAX, "bytes, or a gap band's count of sizes (0: none)"},
	{"halo_n", 0, NBW_GRID_MAX_SIDE, "N of a halo plane 8 N^2"},
	{"warmup", 0, NBW_REPS_MAX, "warm-up transfers"},
	{"repetitions", 0, NBW_REPS_MAX, "repetitions"},
	{"min_repetitions", 0, NBW_REPS_MAX, "repetitions"},
	{"max_repetitions", 0, NBW_REPS_MAX, "repetitions"},
	/* the chase mode */
	{"loads", 1, 1LL << 40, "dependent loads of a pointer chase"},
	{"base_loads", 1, 1LL << 40, "dependent loads of a pointer chase"},
	{"slots", 2, INT64_MAX, "slots of a pointer chase's cycle"},
	{"stride_bytes", 8, 4096, "bytes between two slots of a pointer chase"},
	{"touched_bytes", 0, INT64_MAX, "bytes"},
	{"base_repetitions", 0, NBW_REPS_MAX, "repetitions"},
	/* solver runs */
	{"G", 0, NBW_MAX_DEVICES, "G, the devices of a solver run"},
	{"steps", 0, NBW_STEPS_MAX, "time steps"},
	{"warmup_steps", 0, NBW_STEPS_MAX, "time steps"},
	{"nx", 3, NBW_GRID_MAX_SIDE, "a grid side"},
	{"ny", 3, NBW_GRID_MAX_SIDE, "a grid side"},
	{"nz", 3, NBW_GRID_MAX_SIDE, "a grid side"},
	{"cubic_n", 3, NBW_GRID_MAX_SIDE, "a grid side"},
	{"local_shape", 1, NBW_GRID_MAX_SIDE, "a grid side"},
	{"k_begin", 0, NBW_GRID_MAX_SIDE, "a plane index"},
	{"k_end", 0, NBW_GRID_MAX_SIDE, "a plane index"},
	{"planes", 0, NBW_GRID_MAX_SIDE, "a count of planes"},
	{"round", 1, NBW_REPS_MAX, "a solver round"},
	{"rounds", 0, NBW_REPS_MAX, "solver rounds"},
};

const struct nbw_int_rule *nbw_results_int_rules(size_t *n)
{
	*n = sizeof(results_rules) / sizeof(results_rules[0]);
	return results_rules;
}

struct walk {
	const struct nbw_int_rule *rules;
	size_t n;
	char *path, *err;
	size_t pathlen, errlen;
};

static const struct nbw_int_rule *rule_of(const struct walk *w, const char *key)
{
	for (size_t i = 0; key && i < w->n; i++)
		if (strcmp(w->rules[i].key, key) == 0)
			return &w->rules[i];
	return NULL;
}

/* \p at: the length of the path so far in w->path. */
static int walk(struct walk *w, json_t *v, const char *key, size_t at)
{
	if (json_is_integer(v)) {
		const struct nbw_int_rule *r = rule_of(w, key);
		json_int_t x = json_integer_value(v);
		if (!r || (x >= r->lo && x <= r->hi))
			return 0;
		snprintf(w->err, w->errlen, "\"%s\" = %lld is out of range (%lld to %lld: %s)", key,
			 (long long)x, r->lo, r->hi, r->means);
		return -1;
	}
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			int l = snprintf(w->path + at, w->pathlen - at, "[%zu]", i);
			size_t next = l < 0 || (size_t)l >= w->pathlen - at ? at : at + (size_t)l;
			if (walk(w, e, key, next))
				return -1;
		}
		w->path[at] = '\0';
		return 0;
	}
	if (json_is_object(v)) {
		const char *k;
		json_t *e;
		json_object_foreach(v, k, e) {
			int l = snprintf(w->path + at, w->pathlen - at, "%s%s", at ? "." : "", k);
			size_t next = l < 0 || (size_t)l >= w->pathlen - at ? at : at + (size_t)l;
			if (walk(w, e, k, next))
				return -1;
		}
		w->path[at] = '\0';
	}
	return 0;
}

int nbw_json_check_ints(json_t *root, const struct nbw_int_rule *rules, size_t n, char *path,
			size_t pathlen, char *err, size_t errlen)
{
	if (!pathlen)
		return -1;
	path[0] = '\0';
	struct walk w = {rules, n, path, err, pathlen, errlen};
	return walk(&w, root, NULL, 0);
}
