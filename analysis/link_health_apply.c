/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link health beside bandwidth: the link-health verdicts attached to the verdicts of
 * nbw_verdicts() (key "link_health"), a failing bandwidth path's reason naming the health
 * of its own link, and the lines `nodebw check` prints (include/nodebw/link_health.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nodebw/link_health.h"
#include "nodebw/verdict.h"
#include "nodebw/results_view.h"
#include "verdicts_priv.h"

static const char *s(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "";
}

/* The topology device id of a path end (api, id): its PCI bus id, or "". */
static const char *bus_of(json_t *devices, const char *api, int id)
{
	struct nbw_rv_device d;
	if (id < 0 || !nbw_rv_device_find(devices, api, id, &d) || !d.pci_bus_id)
		return "";
	return d.pci_bus_id;
}

/* Same PCI function: "0000:18:00.0" and "00000000:18:00.0" (NVML's form) alike. */
static bool same_bus(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la < 7 || lb < 7)
		return false;
	return strcasecmp(a + la - 7, b + lb - 7) == 0 && strtoul(a, NULL, 16) ==
	       strtoul(b, NULL, 16);
}

/* Whether a path's link label is a PCIe path (PIX, PXB, PHB, NODE, SYS, "PCIe Gen5 x16"),
 * not a fabric (NV#, XGMI#, XL#, MDF). */
static bool pcie_label(const char *l)
{
	return !strncmp(l, "PCIe", 4) || !strcmp(l, "PIX") || !strcmp(l, "PXB") ||
	       !strcmp(l, "PHB") || !strcmp(l, "NODE") || !strcmp(l, "SYS");
}

/* Append to \p buf what is wrong with the links of \p bus that a path speaks of: its
 * PCIe link (HtoD, DtoH, P2P over PCIe) or its fabric (P2P over NVLink, xGMI, Xe Link). */
static void explain(json_t *lh, const char *bus, bool p2p, bool over_pcie, char *buf,
		    size_t len)
{
	size_t i;
	json_t *e;
	json_array_foreach(lh, i, e) {
		const char *v = s(e, "verdict"), *aspect = s(e, "aspect");
		if (!bus[0] || !same_bus(s(e, "device"), bus) ||
		    (strcmp(v, "fail") && strcmp(v, "warning")))
			continue;
		bool pcie = !strcmp(aspect, "training") || !strcmp(aspect, "aer") ||
			    !strcmp(aspect, "replays");
		if (pcie != over_pcie)
			continue;
		size_t n = strlen(buf);
		const char *link = s(e, "link");
		if (!strcmp(aspect, "training") && strstr(link, "(device)"))
			snprintf(buf + n, len - n, "%s%slink runs %s", n ? "; " : "",
				 p2p ? "" : "its ", s(e, "reason") + strlen("runs "));
		else
			snprintf(buf + n, len - n, "%s%s%s: %s", n ? "; " : "", p2p ? "" : "its ",
				 link, s(e, "reason"));
	}
}

static void name_link_health(json_t *paths, json_t *lh, json_t *devices)
{
	size_t i;
	json_t *p;
	json_array_foreach(paths, i, p) {
		const char *v = s(p, "verdict"), *api = s(p, "api");
		if (strcmp(v, "below threshold") && strcmp(v, "below reference"))
			continue;
		bool p2p = !strcmp(s(p, "direction"), "p2p");
		bool over_pcie = !p2p || pcie_label(s(p, "link"));
		int src = (int)json_integer_value(json_object_get(p, "src"));
		int dst = (int)json_integer_value(json_object_get(p, "dst"));
		char why[600] = "";
		if (p2p) {
			char a[280] = "", b[280] = "";
			explain(lh, bus_of(devices, api, src), true, over_pcie, a, sizeof(a));
			explain(lh, bus_of(devices, api, dst), true, over_pcie, b, sizeof(b));
			size_t n = 0;
			if (a[0])
				n = (size_t)snprintf(why, sizeof(why), "device %d's %s", src, a);
			if (b[0] && n < sizeof(why))
				snprintf(why + n, sizeof(why) - n, "%sdevice %d's %s", n ? "; " : "",
					 dst, b);
		} else {
			explain(lh, bus_of(devices, api, src >= 0 ? src : dst), false, true, why,
				sizeof(why));
		}
		if (!why[0])
			continue;
		char *r = NULL;
		if (asprintf(&r, "%s: %s", s(p, "reason"), why) < 0)
			continue;
		json_object_set_new(p, "reason", json_string(r));
		free(r);
	}
}

int nbw_link_health_apply(json_t *verdicts, json_t *topology, json_t *devices,
			  const struct nbw_lh_limits *l)
{
	json_t *lh = nbw_link_health_judge(topology, l);
	json_t *counts = json_pack("{s:i, s:i, s:i, s:i}", "pass", 0, "fail", 0, "warning", 0,
				   "not judged", 0);
	if (!lh || !counts) {
		json_decref(lh);
		json_decref(counts);
		return -1;
	}
	size_t i;
	json_t *e;
	json_array_foreach(lh, i, e) {
		const char *v = s(e, "verdict");
		json_object_set_new(counts, v, json_integer(json_integer_value(
							json_object_get(counts, v)) + 1));
	}
	name_link_health(json_object_get(verdicts, "paths"), lh, devices);
	json_object_set_new(verdicts, "link_health_limits", json_string(l && l->file[0] ? l->file
						: "the shipped defaults (doc/check.md)"));
	json_object_set_new(verdicts, "link_health_failed",
			    json_integer(json_integer_value(json_object_get(counts, "fail"))));
	json_object_set_new(verdicts, "link_health_counts", counts);
	json_object_set_new(verdicts, "link_health", lh);
	nbw_verdicts_set_outcome(verdicts); /* a failing link fails the node */
	return 0;
}

int nbw_link_health_failed(json_t *verdicts)
{
	return (int)json_integer_value(json_object_get(verdicts, "link_health_failed"));
}

void nbw_link_health_print(FILE *f, json_t *verdicts, bool all)
{
	json_t *lh = json_object_get(verdicts, "link_health");
	json_t *c = json_object_get(verdicts, "link_health_counts");
	if (!json_is_array(lh))
		return;
	if (!json_array_size(lh)) {
		fprintf(f, "Link health: not judged: no device of the results recorded its links' "
			   "health (no topology, or only host memory)\n");
		return;
	}
	fprintf(f, "Link health: %zu entries: %lld pass, %lld fail, %lld warning, %lld not "
		   "judged (limits: %s)\n", json_array_size(lh),
		(long long)json_integer_value(json_object_get(c, "pass")),
		(long long)json_integer_value(json_object_get(c, "fail")),
		(long long)json_integer_value(json_object_get(c, "warning")),
		(long long)json_integer_value(json_object_get(c, "not judged")),
		s(verdicts, "link_health_limits"));
	size_t i, shown = 0, nj = 0;
	json_t *e;
	json_array_foreach(lh, i, e) {
		const char *v = s(e, "verdict");
		if (!strcmp(v, "not judged"))
			nj++;
		if (!all && (!strcmp(v, "pass") || !strcmp(v, "not judged")))
			continue;
		if (!shown++)
			fprintf(f, "  %-11s %-14s %-13s %-30s %s\n", "verdict", "device", "aspect",
				"link", "reason");
		fprintf(f, "  %-11s %-14s %-13s %-30s %s\n", v, s(e, "device"), s(e, "aspect"),
			s(e, "link"), s(e, "reason"));
		if (!strcmp(v, "fail") || !strcmp(v, "warning"))
			fprintf(f, "  %-11s rule: %s; source: %s\n", "", s(e, "rule"), s(e, "source"));
	}
	if (!all && nj) {
		/* the first reason stands for all: one line, not one per device */
		json_array_foreach(lh, i, e)
			if (!strcmp(s(e, "verdict"), "not judged"))
				break;
		fprintf(f, "  not judged: %zu (first %s %s: %s; --all lists each)\n", nj,
			s(e, "device"), s(e, "aspect"), s(e, "reason"));
	}
}

json_t *nbw_verdicts_node(json_t *root, const struct nbw_criteria *c)
{
	struct nbw_rv_doc h;
	nbw_rv_doc_read(root, &h);
	json_t *v = nbw_verdicts(h.devices, h.measurements, c);
	if (v && nbw_link_health_apply(v, h.topology, h.devices, nbw_criteria_link_health(c))) {
		json_decref(v);
		v = NULL;
	}
	return v;
}

bool nbw_pv_link_health(json_t *verdicts, size_t i, struct nbw_pv_lh *out)
{
	json_t *e = json_array_get(json_object_get(verdicts, "link_health"), i);
	if (!json_is_object(e))
		return false;
	*out = (struct nbw_pv_lh){ .device = s(e, "device"), .name = s(e, "name"),
				   .link = s(e, "link"), .aspect = s(e, "aspect"),
				   .rule = s(e, "rule"), .source = s(e, "source"),
				   .verdict = s(e, "verdict"), .reason = s(e, "reason") };
	return true;
}

void nbw_pv_link_health_counts(json_t *verdicts, struct nbw_pv_lh_counts *out)
{
	json_t *c = json_object_get(verdicts, "link_health_counts");
	out->present = json_is_object(c);
	out->pass = (int)json_integer_value(json_object_get(c, "pass"));
	out->fail = (int)json_integer_value(json_object_get(c, "fail"));
	out->warning = (int)json_integer_value(json_object_get(c, "warning"));
	out->not_judged = (int)json_integer_value(json_object_get(c, "not judged"));
	out->limits = s(verdicts, "link_health_limits");
}
