/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link-health verdicts (include/nodebw/link_health.h, doc/check.md "Link health"): what
 * each GPU's links report about themselves, judged against the limits of the thresholds
 * file's "link_health" object or the shipped defaults below. One entry per device, link and
 * aspect: PCIe training of the device and of every port above it, AER counters, the PCIe
 * replay counter, NVLinks up, NVLink error counters, xGMI error status, Xe Link ports.
 *
 * The defaults and where they come from:
 *   - a link below its maximum generation or width fails: DCGM's PCIe plugin
 *     (NVIDIA/DCGM nvvs/plugin_src/pcie, min_pci_gen / min_pci_width subtests);
 *   - pcie_replays_max 80: DCGM's PCIe plugin, max_pcie_replays = 80 (Pcie.cpp defaults);
 *   - aer_correctable_max 480: DCGM's PCIe plugin, aer_threshold = 480 ("32/minute * 15
 *     minutes"); aer_nonfatal_max 0 and aer_fatal_max 0: an uncorrectable error is never
 *     expected on a healthy link (nodebw's choice; DCGM has no separate figure);
 *   - nvlink_down_max 0: Azure/azurehpc-health-checks customTests/azure_gpu_nvlink.nhc
 *     (check_nvlink_status fails a GPU with any inactive NVLink);
 *   - nvlink_recovery_max 0: DCGM's PCIe plugin, max_nvlink_recovery_errors = 0;
 *   - nvlink_crc_max and nvlink_replay_max: none. DCGM's figure (crc_error_threshold 100)
 *     is a rate per second during its test; a count since the driver loaded is no rate, so
 *     a non-zero count is a warning until a site sets a budget;
 *   - xGMI error status non-zero fails: Azure/azurehpc-health-checks
 *     customTests/azure_gpu_amd_xgmi.nhc (check_gpu_xgmi fails on any xGMI error).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "criteria.h"
#include "nodebw/link_health.h"

#define LH_PASS "pass"
#define LH_FAIL "fail"
#define LH_WARN "warning"
#define LH_NJ "not judged"

#define SRC_DCGM "DCGM PCIe plugin defaults (NVIDIA/DCGM nvvs/plugin_src/pcie/Pcie.cpp)"
#define SRC_AZ_NVL "Azure/azurehpc-health-checks customTests/azure_gpu_nvlink.nhc"
#define SRC_AZ_XGMI "Azure/azurehpc-health-checks customTests/azure_gpu_amd_xgmi.nhc"

void nbw_lh_limits_default(struct nbw_lh_limits *l)
{
	*l = (struct nbw_lh_limits){ .downtrained = 2, .pcie_replays_max = 80,
				     .aer_correctable_max = 480, .aer_nonfatal_max = 0,
				     .aer_fatal_max = 0, .nvlink_down_max = 0,
				     .nvlink_crc_max = -1, .nvlink_replay_max = -1,
				     .nvlink_recovery_max = 0, .xgmi_error_fails = true };
}

const struct nbw_lh_limits *nbw_criteria_link_health(const struct nbw_criteria *c)
{
	return c ? &c->lh : NULL;
}

static int bad(char *err, size_t errlen, const char *key, const char *what)
{
	snprintf(err, errlen, "link_health.%s: %s", key, what);
	return -1;
}

int nbw_lh_limits_parse(json_t *o, struct nbw_lh_limits *l, char *err, size_t errlen)
{
	static const struct { const char *key; size_t off; } counts[] = {
		{ "pcie_replays_max", offsetof(struct nbw_lh_limits, pcie_replays_max) },
		{ "aer_correctable_max", offsetof(struct nbw_lh_limits, aer_correctable_max) },
		{ "aer_nonfatal_max", offsetof(struct nbw_lh_limits, aer_nonfatal_max) },
		{ "aer_fatal_max", offsetof(struct nbw_lh_limits, aer_fatal_max) },
		{ "nvlink_down_max", offsetof(struct nbw_lh_limits, nvlink_down_max) },
		{ "nvlink_crc_max", offsetof(struct nbw_lh_limits, nvlink_crc_max) },
		{ "nvlink_replay_max", offsetof(struct nbw_lh_limits, nvlink_replay_max) },
		{ "nvlink_recovery_max", offsetof(struct nbw_lh_limits, nvlink_recovery_max) },
	};
	if (!json_is_object(o)) {
		snprintf(err, errlen, "link_health: must be an object (doc/check.md, \"Link "
			 "health\")");
		return -1;
	}
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		size_t i = 0;
		while (i < sizeof(counts) / sizeof(counts[0]) && strcmp(counts[i].key, k))
			i++;
		if (i < sizeof(counts) / sizeof(counts[0])) {
			long long *dst = (long long *)((char *)l + counts[i].off);
			if (json_is_null(v))
				*dst = -1;
			else if (json_is_integer(v) && json_integer_value(v) >= 0)
				*dst = (long long)json_integer_value(v);
			else
				return bad(err, errlen, k, "must be an integer >= 0, or null (no "
					   "limit: a non-zero count is a warning)");
		} else if (!strcmp(k, "pcie_downtrained") || !strcmp(k, "xgmi_error")) {
			const char *s = json_string_value(v);
			int lvl = !s ? -1 : !strcmp(s, "fail") ? 2 : !strcmp(s, "warning") ? 1
				: !strcmp(s, "ignore") && !strcmp(k, "pcie_downtrained") ? 0 : -1;
			if (lvl < 0)
				return bad(err, errlen, k, !strcmp(k, "xgmi_error")
					   ? "must be \"fail\" or \"warning\""
					   : "must be \"fail\", \"warning\" or \"ignore\"");
			if (!strcmp(k, "xgmi_error"))
				l->xgmi_error_fails = lvl == 2;
			else
				l->downtrained = lvl;
		} else if (!strcmp(k, "note")) {
			if (!json_is_string(v))
				return bad(err, errlen, k, "must be a string");
		} else {
			return bad(err, errlen, k, "unknown key (doc/check.md lists them)");
		}
	}
	snprintf(l->file, sizeof(l->file), "the thresholds file's link_health");
	return 0;
}

/* ---- the entries ---------------------------------------------------------------------- */

struct dev {
	const char *id, *name;
	const struct nbw_lh_limits *l;
	json_t *out;
};

static void add(const struct dev *d, const char *link, const char *aspect, json_t *figures,
		const char *rule, const char *source, const char *verdict, const char *reason)
{
	json_array_append_new(d->out, json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:s}",
		"device", d->id, "name", d->name, "link", link, "aspect", aspect, "figures",
		figures, "rule", rule, "source", source, "verdict", verdict, "reason", reason));
}

static json_t *num(long long v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

static void state_text(const struct nbw_pcie *p, char *buf, size_t len)
{
	if (p->gen > 0 && p->width > 0)
		snprintf(buf, len, "Gen%d x%d", p->gen, p->width);
	else if (p->gen > 0)
		snprintf(buf, len, "Gen%d", p->gen);
	else if (p->width > 0)
		snprintf(buf, len, "x%d", p->width);
	else
		snprintf(buf, len, "unknown");
}

/* The lower known value of a and b (0 = unknown). */
static int lower(int a, int b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* PCIe training of hop k: its current state against what the link can train to, the
 * lowest maximum of the function and its neighbours on the path (the two ends of a link
 * and, for a switch port, the switch's other side). */
static void training(const struct dev *d, const struct nbw_link_health *h, int k)
{
	const struct nbw_lh_hop *p = &h->hop[k];
	struct nbw_pcie cap = p->max;
	for (int n = k - 1; n <= k + 1; n++)
		if (n >= 0 && n < h->nhops && n != k) {
			cap.gen = lower(cap.gen, h->hop[n].max.gen);
			cap.width = lower(cap.width, h->hop[n].max.width);
		}
	char link[80], cur[32], max[32], reason[200];
	snprintf(link, sizeof(link), "PCIe %s (%s)", p->bus_id, k ? "port above" : "device");
	state_text(&p->cur, cur, sizeof(cur));
	state_text(&cap, max, sizeof(max));
	json_t *fig = json_pack("{s:o, s:o, s:o, s:o}", "current_gen", num(p->cur.gen ? p->cur.gen : -1),
				"current_width", num(p->cur.width ? p->cur.width : -1), "max_gen",
				num(cap.gen ? cap.gen : -1), "max_width",
				num(cap.width ? cap.width : -1));
	const char *rule = "current generation and width >= the lowest maximum of the function "
			   "and its neighbours on the path";
	if (!p->cur.gen || !p->cur.width || !cap.gen || !cap.width) {
		snprintf(reason, sizeof(reason), "no current and maximum link speed and width in "
			 "sysfs (current %s, maximum %s): a virtual machine or conventional PCI",
			 cur, max);
		add(d, link, "training", fig, rule, SRC_DCGM, LH_NJ, reason);
		return;
	}
	bool below = p->cur.gen < cap.gen || p->cur.width < cap.width;
	if (!below) {
		snprintf(reason, sizeof(reason), "runs at %s of %s", cur, max);
		add(d, link, "training", fig, rule, SRC_DCGM, LH_PASS, reason);
		return;
	}
	/* GPUs lower an idle link to Gen1 (2.5 GT/s) at full width to save power: that state
	 * is a warning (read it again under load); any other state below the maximum is a link
	 * that trained low. */
	bool idle = p->cur.gen == 1 && p->cur.width >= cap.width;
	snprintf(reason, sizeof(reason), "runs at %s of %s%s", cur, max, idle ?
		 " (Gen1 at full width: the idle power state of a GPU link; read it under load)"
		 : "");
	int lvl = idle && d->l->downtrained ? 1 : d->l->downtrained;
	add(d, link, "training", fig, rule, SRC_DCGM, lvl == 2 ? LH_FAIL : lvl == 1 ? LH_WARN
							  : LH_NJ,
	    lvl ? reason : "a link below its maximum is not judged (pcie_downtrained "
			   "\"ignore\")");
}

/* "fail" when v > max (max >= 0); "warning" when there is no limit and v > 0. */
static int budget(long long v, long long max)
{
	if (v < 0)
		return -1;
	return max >= 0 ? (v > max ? 2 : 0) : v > 0 ? 1 : 0;
}

static const char *word(int lvl)
{
	return lvl == 2 ? LH_FAIL : lvl == 1 ? LH_WARN : lvl == 0 ? LH_PASS : LH_NJ;
}

static void limit_text(long long max, char *buf, size_t len)
{
	if (max >= 0)
		snprintf(buf, len, "<= %lld", max);
	else
		snprintf(buf, len, "no limit set (non-zero: warning)");
}

static void aer(const struct dev *d, const struct nbw_link_health *h, int k)
{
	const struct nbw_lh_hop *p = &h->hop[k];
	const struct nbw_lh_aer *a = &p->aer;
	const struct nbw_lh_limits *l = d->l;
	char link[80], reason[300], rule[200], c1[40], c2[40], c3[40];
	snprintf(link, sizeof(link), "PCIe %s (%s)", p->bus_id, k ? "port above" : "device");
	limit_text(l->aer_correctable_max, c1, sizeof(c1));
	limit_text(l->aer_nonfatal_max, c2, sizeof(c2));
	limit_text(l->aer_fatal_max, c3, sizeof(c3));
	snprintf(rule, sizeof(rule), "AER counters since boot: correctable %s, nonfatal %s, "
		 "fatal %s", c1, c2, c3);
	int worst = budget(a->correctable, l->aer_correctable_max);
	int b = budget(a->nonfatal, l->aer_nonfatal_max);
	worst = b > worst ? b : worst;
	b = budget(a->fatal, l->aer_fatal_max);
	worst = b > worst ? b : worst;
	snprintf(reason, sizeof(reason), "%lld correctable, %lld nonfatal, %lld fatal AER "
		 "error%s", a->correctable, a->nonfatal, a->fatal,
		 a->fatal == 1 ? "" : "s");
	add(d, link, "aer", json_pack("{s:o, s:o, s:o}", "correctable", num(a->correctable),
				      "nonfatal", num(a->nonfatal), "fatal", num(a->fatal)),
	    rule, SRC_DCGM " (aer_threshold 480); fatal and nonfatal 0: nodebw", word(worst),
	    reason);
}

static void replays(const struct dev *d, const struct nbw_link_health *h)
{
	char rule[120], reason[200], link[80];
	snprintf(link, sizeof(link), "PCIe %s (device)", h->nhops ? h->hop[0].bus_id : d->id);
	limit_text(d->l->pcie_replays_max, reason, sizeof(reason));
	snprintf(rule, sizeof(rule), "PCIe replay counter %s", reason);
	int lvl = budget(h->pcie_replays, d->l->pcie_replays_max);
	if (lvl < 0)
		snprintf(reason, sizeof(reason), "no replay counter (NVML or ROCm SMI did not "
			 "answer for this device)");
	else
		snprintf(reason, sizeof(reason), "%lld PCIe replays (%s)", h->pcie_replays,
			 h->replay_source);
	add(d, link, "replays", json_pack("{s:o}", "replays", num(h->pcie_replays)), rule,
	    SRC_DCGM " (max_pcie_replays 80)", word(lvl), reason);
}

static void nvlink(const struct dev *d, const struct nbw_link_health *h)
{
	const struct nbw_lh_limits *l = d->l;
	char rule[300], reason[300], a[40], b[40], c[40];
	if (h->nvlink_present <= 0)
		return; /* NVML did not answer, or the GPU has no NVLink */
	int down = h->nvlink_present - h->nvlink_up;
	int lvl = budget(down, l->nvlink_down_max);
	limit_text(l->nvlink_down_max, a, sizeof(a));
	snprintf(rule, sizeof(rule), "NVLinks down (present, not active) %s", a);
	snprintf(reason, sizeof(reason), "%d of %d NVLinks up%s%s%s", h->nvlink_up,
		 h->nvlink_present, down ? " (down: " : "", down ? h->nvlink_down : "",
		 down ? ")" : "");
	add(d, "NVLink", "nvlink up", json_pack("{s:i, s:i, s:o}", "present", h->nvlink_present,
		"up", h->nvlink_up, "down", json_string(h->nvlink_down)), rule, SRC_AZ_NVL,
	    word(lvl), reason);

	long long crc = h->nvl_crc_flit < 0 && h->nvl_crc_data < 0 ? -1
			: (h->nvl_crc_flit > 0 ? h->nvl_crc_flit : 0) +
			  (h->nvl_crc_data > 0 ? h->nvl_crc_data : 0);
	int w = budget(crc, l->nvlink_crc_max), r = budget(h->nvl_replay, l->nvlink_replay_max);
	int v = budget(h->nvl_recovery, l->nvlink_recovery_max);
	lvl = w > r ? w : r;
	lvl = v > lvl ? v : lvl;
	limit_text(l->nvlink_crc_max, a, sizeof(a));
	limit_text(l->nvlink_replay_max, b, sizeof(b));
	limit_text(l->nvlink_recovery_max, c, sizeof(c));
	snprintf(rule, sizeof(rule), "NVLink error counters summed over the links: CRC (flit + "
		 "data) %s, replay %s, recovery %s", a, b, c);
	if (lvl < 0)
		snprintf(reason, sizeof(reason), "NVML gave no NVLink error counter");
	else
		snprintf(reason, sizeof(reason), "%lld CRC (%lld flit, %lld data), %lld replay, "
			 "%lld recovery errors", crc, h->nvl_crc_flit, h->nvl_crc_data,
			 h->nvl_replay, h->nvl_recovery);
	add(d, "NVLink", "nvlink errors", json_pack("{s:o, s:o, s:o, s:o}", "crc_flit",
		num(h->nvl_crc_flit), "crc_data", num(h->nvl_crc_data), "replay",
		num(h->nvl_replay), "recovery", num(h->nvl_recovery)), rule,
	    SRC_DCGM " (max_nvlink_recovery_errors 0; crc_error_threshold is a rate, not used)",
	    word(lvl), reason);
}

static void fabric(const struct dev *d, const struct nbw_link_health *h)
{
	char reason[200];
	if (h->xgmi_error_status >= 0) {
		static const char *const what[] = { "no xGMI error", "one xGMI error",
						    "several xGMI errors" };
		int s = h->xgmi_error_status <= 2 ? (int)h->xgmi_error_status : 2;
		add(d, "xGMI", "xgmi", json_pack("{s:I}", "error_status",
						 (json_int_t)h->xgmi_error_status),
		    "xGMI error status 0 (rsmi_dev_xgmi_error_status)", SRC_AZ_XGMI,
		    s == 0 ? LH_PASS : d->l->xgmi_error_fails ? LH_FAIL : LH_WARN, what[s]);
	}
	if (h->xe_ports >= 0) {
		snprintf(reason, sizeof(reason), "%d Xe Link port%s: %d healthy, %d degraded, %d "
			 "failed, %d disabled", h->xe_ports, h->xe_ports == 1 ? "" : "s",
			 h->xe_healthy, h->xe_degraded, h->xe_failed, h->xe_disabled);
		add(d, "Xe Link", "xe link", json_pack("{s:i, s:i, s:i, s:i, s:i}", "ports",
			h->xe_ports, "healthy", h->xe_healthy, "degraded", h->xe_degraded, "failed",
			h->xe_failed, "disabled", h->xe_disabled),
		    "no fabric port failed (fail); none degraded or disabled (warning)",
		    "Level Zero Sysman zesFabricPortGetState",
		    h->xe_failed ? LH_FAIL : h->xe_degraded || h->xe_disabled ? LH_WARN : LH_PASS,
		    reason);
	}
}

json_t *nbw_link_health_judge(json_t *topology, const struct nbw_lh_limits *l)
{
	struct nbw_lh_limits def;
	if (!l) {
		nbw_lh_limits_default(&def);
		l = &def;
	}
	json_t *out = json_array();
	struct nbw_link_health h;
	struct dev d = { .l = l, .out = out };
	for (size_t i = 0; out && i < json_array_size(json_object_get(topology, "devices")); i++) {
		if (!nbw_rv_topo_health(topology, i, &d.id, &d.name, &h))
			continue;
		bool any_aer = false;
		for (int k = 0; k < h.nhops; k++) {
			const struct nbw_lh_aer *a = &h.hop[k].aer;
			training(&d, &h, k);
			if (a->correctable >= 0 || a->nonfatal >= 0 || a->fatal >= 0) {
				aer(&d, &h, k);
				any_aer = true;
			}
		}
		if (h.nhops && !any_aer)
			add(&d, "PCIe (device and ports)", "aer", json_object(),
			    "AER counters since boot", SRC_DCGM, LH_NJ,
			    "no aer_dev_* counters in sysfs (no AER capability, or the kernel "
			    "does not expose them)");
		replays(&d, &h);
		nvlink(&d, &h);
		fabric(&d, &h);
	}
	return out;
}
