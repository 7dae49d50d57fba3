/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results document's link health (per topology device, key "link_health", written by
 * topology/health_json.c; shape in doc/topology.md) as the fields of struct
 * nbw_link_health (include/nodebw/link_health.h): part of the results module, the one
 * place that names its keys. The device's own training is its host_link's current and max.
 */
#include <stdio.h>
#include <string.h>

#include "nodebw/jget.h"
#include "nodebw/link_health.h"

static long long count(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) && json_integer_value(v) >= 0 ? (long long)json_integer_value(v)
								: -1;
}

static void state(json_t *o, struct nbw_pcie *p)
{
	long long gen = count(o, "gen"), width = count(o, "width");
	memset(p, 0, sizeof(*p));
	p->gbps = -1;
	p->gen = gen >= 1 && gen <= 6 ? (int)gen : 0;
	p->width = width >= 1 && width <= 32 ? (int)width : 0;
}

bool nbw_rv_topo_health(json_t *topo, size_t i, const char **id, const char **name,
			struct nbw_link_health *out)
{
	json_t *d = json_array_get(json_object_get(topo, "devices"), i);
	json_t *lh = json_object_get(d, "link_health");
	nbw_link_health_init(out);
	*id = jstr(d, "id");
	*name = jstr(d, "name");
	if (!json_is_object(lh))
		return false;
	json_t *pcie = json_object_get(lh, "pcie"), *hop;
	size_t k;
	json_array_foreach(pcie, k, hop) {
		if (out->nhops >= NBW_LH_MAX_HOPS)
			break;
		struct nbw_lh_hop *h = &out->hop[out->nhops++];
		json_t *aer = json_object_get(hop, "aer");
		snprintf(h->bus_id, sizeof(h->bus_id), "%s", jstr(hop, "bus_id"));
		if (k == 0) {
			json_t *hl = json_object_get(d, "host_link");
			state(json_object_get(hl, "current"), &h->cur);
			state(json_object_get(hl, "max"), &h->max);
		} else {
			state(json_object_get(hop, "current"), &h->cur);
			state(json_object_get(hop, "max"), &h->max);
		}
		h->aer.correctable = count(aer, "correctable");
		h->aer.nonfatal = count(aer, "nonfatal");
		h->aer.fatal = count(aer, "fatal");
	}
	out->pcie_replays = count(lh, "pcie_replays");
	snprintf(out->replay_source, sizeof(out->replay_source), "%s",
		 jstr(lh, "pcie_replays_source"));
	json_t *nv = json_object_get(lh, "nvlink");
	if (json_is_object(nv) && count(nv, "present") >= 0 && count(nv, "present") <= 64 &&
	    count(nv, "up") >= 0 && count(nv, "up") <= count(nv, "present")) {
		json_t *v;
		out->nvlink_present = (int)count(nv, "present");
		out->nvlink_up = (int)count(nv, "up");
		json_array_foreach(json_object_get(nv, "down"), k, v) {
			size_t n = strlen(out->nvlink_down);
			if (json_is_integer(v))
				snprintf(out->nvlink_down + n, sizeof(out->nvlink_down) - n, "%s%lld",
					 n ? "," : "", (long long)json_integer_value(v));
		}
		out->nvl_crc_flit = count(nv, "crc_flit");
		out->nvl_crc_data = count(nv, "crc_data");
		out->nvl_replay = count(nv, "replay");
		out->nvl_recovery = count(nv, "recovery");
	}
	out->xgmi_error_status = count(lh, "xgmi_error_status");
	json_t *xe = json_object_get(lh, "xe_link");
	if (json_is_object(xe) && count(xe, "ports") >= 0 && count(xe, "ports") <= 4096) {
		int *dst[] = { &out->xe_healthy, &out->xe_degraded, &out->xe_failed,
			       &out->xe_disabled };
		static const char *const keys[] = { "healthy", "degraded", "failed", "disabled" };
		out->xe_ports = (int)count(xe, "ports");
		for (int m = 0; m < 4; m++) {
			long long v = count(xe, keys[m]);
			*dst[m] = v > 0 && v <= out->xe_ports ? (int)v : 0;
		}
	}
	return true;
}
