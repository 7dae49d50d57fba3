/* SPDX-License-Identifier: BSD-3-Clause */
/* Link health in JSON: a device's "link_health" object in the topology block (shape in
 * doc/topology.md, "Link health") and the vendor answers a fixture's links.json holds for
 * it (devices[].health: what NVML, ROCm SMI or Level Zero Sysman answered). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static json_t *count_or_null(long long v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

static json_t *pcie_state(const struct nbw_pcie *p)
{
	if (p->gt_s <= 0 && p->width <= 0)
		return json_null();
	return json_pack("{s:o, s:o}", "gen", p->gen ? json_integer(p->gen) : json_null(),
			 "width", p->width > 0 ? json_integer(p->width) : json_null());
}

/* "3,7" -> [3, 7] */
static json_t *down_list(const char *csv)
{
	json_t *a = json_array();
	char copy[sizeof(((struct nbw_link_health *)0)->nvlink_down)];
	snprintf(copy, sizeof(copy), "%s", csv);
	for (char *s = NULL, *w = strtok_r(copy, ",", &s); w; w = strtok_r(NULL, ",", &s))
		json_array_append_new(a, json_integer(atoi(w)));
	return a;
}

static json_t *nvlink_json(const struct nbw_link_health *h)
{
	if (h->nvlink_present < 0)
		return json_null();
	return json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o}", "present", h->nvlink_present,
			 "up", h->nvlink_up, "down", down_list(h->nvlink_down), "crc_flit",
			 count_or_null(h->nvl_crc_flit), "crc_data", count_or_null(h->nvl_crc_data),
			 "replay", count_or_null(h->nvl_replay), "recovery",
			 count_or_null(h->nvl_recovery));
}

static json_t *xe_json(const struct nbw_link_health *h)
{
	if (h->xe_ports < 0)
		return json_null();
	return json_pack("{s:i, s:i, s:i, s:i, s:i}", "ports", h->xe_ports, "healthy",
			 h->xe_healthy, "degraded", h->xe_degraded, "failed", h->xe_failed,
			 "disabled", h->xe_disabled);
}

int nbw_topo_link_health(const struct nbw_topo *t, size_t i, struct nbw_link_health *out)
{
	if (!t || i >= t->ndev)
		return -1;
	*out = t->dev[i].health;
	out->nhops = 0;
	if (t->dev[i].pub.pci_bus_id[0] && !t->no_sysfs)
		topo_health_sysfs(t->sysroot, t->dev[i].pub.pci_bus_id, out);
	return 0;
}

json_t *topo_health_to_json(const struct nbw_topo *t, size_t i)
{
	struct nbw_link_health h;
	if (!t->dev[i].pub.pci_bus_id[0] || t->dev[i].pub.tile >= 0 ||
	    nbw_topo_link_health(t, i, &h))
		return json_null();
	json_t *pcie = json_array();
	for (int k = 0; k < h.nhops; k++) {
		const struct nbw_lh_hop *p = &h.hop[k];
		json_t *o = json_pack("{s:s, s:s}", "bus_id", p->bus_id, "role",
				      k == 0 ? "device" : "port");
		/* the device's own training is its host_link's current and max (one reading) */
		if (k > 0) {
			json_object_set_new(o, "current", pcie_state(&p->cur));
			json_object_set_new(o, "max", pcie_state(&p->max));
		}
		json_object_set_new(o, "aer", json_pack("{s:o, s:o, s:o}", "correctable",
			count_or_null(p->aer.correctable), "nonfatal",
			count_or_null(p->aer.nonfatal), "fatal", count_or_null(p->aer.fatal)));
		json_array_append_new(pcie, o);
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "pcie", pcie, "pcie_replays",
			 count_or_null(h.pcie_replays), "pcie_replays_source",
			 h.replay_source[0] ? json_string(h.replay_source) : json_null(), "nvlink",
			 nvlink_json(&h), "xgmi_error_status", count_or_null(h.xgmi_error_status),
			 "xe_link", xe_json(&h));
}

/* ---- links.json devices[].health ------------------------------------------------------ */

static int only(json_t *o, const char *const *keys, const char *file, const char *where,
		char *err, size_t errlen)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		size_t i = 0;
		while (keys[i] && strcmp(keys[i], k))
			i++;
		if (!keys[i])
			FAIL("%s: %s: unknown key '%s'", file, where, k);
	}
	return 0;
}

static int count(json_t *o, const char *key, long long max, long long *out, const char *file,
		 const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		FAIL("%s: %s: '%s' must be an integer from 0 to %lld", file, where, key, max);
	*out = (long long)json_integer_value(v);
	return 0;
}

static int read_nvlink(struct nbw_link_health *h, json_t *o, const char *file,
		       const char *where, char *err, size_t errlen)
{
	static const char *const keys[] = { "present", "down", "crc_flit", "crc_data", "replay",
					    "recovery", NULL };
	long long present = -1;
	if (!json_is_object(o))
		FAIL("%s: %s must be an object", file, where);
	if (only(o, keys, file, where, err, errlen) ||
	    count(o, "present", 64, &present, file, where, err, errlen) ||
	    count(o, "crc_flit", 1LL << 50, &h->nvl_crc_flit, file, where, err, errlen) ||
	    count(o, "crc_data", 1LL << 50, &h->nvl_crc_data, file, where, err, errlen) ||
	    count(o, "replay", 1LL << 50, &h->nvl_replay, file, where, err, errlen) ||
	    count(o, "recovery", 1LL << 50, &h->nvl_recovery, file, where, err, errlen))
		return -1;
	if (present < 0)
		FAIL("%s: %s: 'present' (the links NVML answers for) is required", file, where);
	json_t *down = json_object_get(o, "down"), *v;
	size_t i;
	if (down && !json_is_array(down))
		FAIL("%s: %s: 'down' must be a list of link indices", file, where);
	h->nvlink_present = (int)present;
	h->nvlink_up = (int)present;
	h->nvlink_down[0] = '\0';
	json_array_foreach(down, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= present)
			FAIL("%s: %s: 'down' holds a link index outside 0-%lld", file, where,
			     present - 1);
		size_t n = strlen(h->nvlink_down);
		snprintf(h->nvlink_down + n, sizeof(h->nvlink_down) - n, "%s%lld", n ? "," : "",
			 (long long)json_integer_value(v));
		h->nvlink_up--;
	}
	if (h->nvlink_up < 0)
		FAIL("%s: %s: more links down than present", file, where);
	return 0;
}

static int read_xe(struct nbw_link_health *h, json_t *o, const char *file, const char *where,
		   char *err, size_t errlen)
{
	static const char *const keys[] = { "ports", "healthy", "degraded", "failed", "disabled",
					    NULL };
	long long v[5] = { -1, 0, 0, 0, 0 };
	if (!json_is_object(o))
		FAIL("%s: %s must be an object", file, where);
	if (only(o, keys, file, where, err, errlen))
		return -1;
	for (int k = 0; k < 5; k++)
		if (count(o, keys[k], 4096, &v[k], file, where, err, errlen))
			return -1;
	if (v[0] < 0 || v[1] + v[2] + v[3] + v[4] > v[0])
		FAIL("%s: %s: 'ports' is required and at least the sum of the states", file,
		     where);
	h->xe_ports = (int)v[0];
	h->xe_healthy = (int)v[1];
	h->xe_degraded = (int)v[2];
	h->xe_failed = (int)v[3];
	h->xe_disabled = (int)v[4];
	return 0;
}

int topo_health_from_links(struct topo_dev *d, json_t *o, const char *file, const char *where,
			   char *err, size_t errlen)
{
	static const char *const keys[] = { "pcie_replays", "nvlink", "xgmi_error_status",
					    "xe_link", NULL };
	struct nbw_link_health *h = &d->health;
	char w[96];
	snprintf(w, sizeof(w), "%s.health", where);
	if (!json_is_object(o))
		FAIL("%s: %s must be an object", file, w);
	if (only(o, keys, file, w, err, errlen) ||
	    count(o, "pcie_replays", 1LL << 50, &h->pcie_replays, file, w, err, errlen) ||
	    count(o, "xgmi_error_status", 2, &h->xgmi_error_status, file, w, err, errlen))
		return -1;
	if (h->pcie_replays >= 0) {
		const char *first = d->pub.seen_by;
		snprintf(h->replay_source, sizeof(h->replay_source), "%.*s",
			 (int)strcspn(first, ","), first);
	}
	json_t *nv = json_object_get(o, "nvlink"), *xe = json_object_get(o, "xe_link");
	snprintf(w, sizeof(w), "%s.health.nvlink", where);
	if (nv && read_nvlink(h, nv, file, w, err, errlen))
		return -1;
	snprintf(w, sizeof(w), "%s.health.xe_link", where);
	return xe ? read_xe(h, xe, file, w, err, errlen) : 0;
}

json_t *topo_health_to_links(const struct topo_dev *d)
{
	const struct nbw_link_health *h = &d->health;
	json_t *o = json_object();
	if (h->pcie_replays >= 0)
		json_object_set_new(o, "pcie_replays", json_integer(h->pcie_replays));
	if (h->nvlink_present >= 0) {
		json_t *nv = nvlink_json(h);
		json_object_del(nv, "up");
		json_object_set_new(o, "nvlink", nv);
		/* unknown counters are left out, as a fixture may */
		const char *k;
		json_t *v;
		void *tmp;
		json_object_foreach_safe(nv, tmp, k, v)
			if (json_is_null(v))
				json_object_del(nv, k);
	}
	if (h->xgmi_error_status >= 0)
		json_object_set_new(o, "xgmi_error_status", json_integer(h->xgmi_error_status));
	if (h->xe_ports >= 0)
		json_object_set_new(o, "xe_link", xe_json(h));
	if (json_object_size(o) == 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}
