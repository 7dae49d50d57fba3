/* SPDX-License-Identifier: BSD-3-Clause */
/* links.json: the vendor sources' answers (devices, links, and how each source answered),
 * read from a fixture and written by `nodebw topo --export`. Format in doc/topology.md. */
#include <stdio.h>
#include <string.h>

#include "topo_int.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static const char *const vendor_sources[] = { "nvml", "rocm-smi", "level-zero" };

/* Every key of \p o must be in \p allowed (catches misspelt keys). */
static int only_keys(json_t *o, const char *const *allowed, const char *file,
		     const char *where, char *err, size_t errlen)
{
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		bool ok = false;
		for (const char *const *a = allowed; *a; a++)
			ok |= strcmp(*a, key) == 0;
		if (!ok)
			FAIL("%s: %s: unknown key '%s'", file, where, key);
	}
	return 0;
}

/* An optional integer >= min; *out keeps its default when absent. */
static int opt_int(json_t *o, const char *key, int min, int *out, const char *file,
		   const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > 1 << 20)
		FAIL("%s: %s: '%s' must be an integer >= %d", file, where, key, min);
	*out = (int)json_integer_value(v);
	return 0;
}

static int opt_num(json_t *o, const char *key, double *out, const char *file,
		   const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_number(v) || json_number_value(v) < 0)
		FAIL("%s: %s: '%s' must be a number >= 0 (GB/s per direction)", file, where, key);
	*out = json_number_value(v);
	return 0;
}

static const char *opt_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int read_sources(struct nbw_topo *t, json_t *s, const char *file, char *err,
			size_t errlen)
{
	for (int i = 0; i < 3; i++) {
		json_t *v = s ? json_object_get(s, vendor_sources[i]) : NULL;
		if (v && !json_is_string(v))
			FAIL("%s: sources.%s must be a string (\"ok\" or why it found nothing)",
			     file, vendor_sources[i]);
		const char *txt = v ? json_string_value(v) : NULL;
		if (!txt)
			topo_source(t, vendor_sources[i], false, "not recorded in the fixture");
		else if (strcmp(txt, "ok") == 0)
			topo_source(t, vendor_sources[i], true, "recorded");
		else
			topo_source(t, vendor_sources[i], false, "recorded: %s", txt);
	}
	if (s) {
		static const char *const keys[] = { "nvml", "rocm-smi", "level-zero", NULL };
		return only_keys(s, keys, file, "sources", err, errlen);
	}
	return 0;
}

static int read_device(struct nbw_topo *t, json_t *d, size_t i, const char *file, char *err,
		       size_t errlen)
{
	static const char *const keys[] = { "bus_id", "tile", "name", "vendor", "source",
					    "nvlink", "health", NULL };
	char where[48];
	snprintf(where, sizeof(where), "devices[%zu]", i);
	if (!json_is_object(d))
		FAIL("%s: %s must be an object", file, where);
	if (only_keys(d, keys, file, where, err, errlen))
		return -1;
	const char *bus = opt_str(d, "bus_id"), *src = opt_str(d, "source");
	char norm[24];
	int tile = -1, t2;
	if (!bus || topo_busid_parse(bus, norm, &t2) || t2 >= 0)
		FAIL("%s: %s: 'bus_id' must be a PCI address \"dddd:bb:dd.f\"", file, where);
	if (opt_int(d, "tile", 0, &tile, file, where, err, errlen))
		return -1;
	int k = topo_add_gpu(t, norm, tile, opt_str(d, "vendor"), opt_str(d, "name"),
			     src ? src : "fixture");
	if (k < 0)
		FAIL("%s: %s: cannot add the device (out of memory)", file, where);
	json_t *nv = json_object_get(d, "nvlink");
	if (nv) {
		static const char *const nvkeys[] = { "version", "switch_links", NULL };
		snprintf(where, sizeof(where), "devices[%zu].nvlink", i);
		if (!json_is_object(nv))
			FAIL("%s: %s must be an object", file, where);
		if (only_keys(nv, nvkeys, file, where, err, errlen) ||
		    opt_int(nv, "version", 1, &t->dev[k].nvlink_version, file, where, err,
			    errlen) ||
		    opt_int(nv, "switch_links", 0, &t->dev[k].switch_links, file, where, err,
			    errlen))
			return -1;
	}
	json_t *health = json_object_get(d, "health");
	snprintf(where, sizeof(where), "devices[%zu]", i);
	if (health && topo_health_from_links(&t->dev[k], health, file, where, err, errlen))
		return -1;
	for (size_t s = 0; s < t->nsrc; s++)
		if (src && strcmp(t->src[s].name, src) == 0)
			t->src[s].devices++;
	return 0;
}

static int read_link(struct nbw_topo *t, json_t *l, size_t i, const char *file, char *err,
		     size_t errlen)
{
	static const char *const keys[] = { "a", "b", "type", "links", "hops", "version",
					    "gbps", "link_gbps", "source", NULL };
	char where[48];
	struct topo_link x = { .hops = 1, .api_gbps = -1, .link_gbps = -1 };
	snprintf(where, sizeof(where), "links[%zu]", i);
	if (!json_is_object(l))
		FAIL("%s: %s must be an object", file, where);
	if (only_keys(l, keys, file, where, err, errlen))
		return -1;
	const char *a = opt_str(l, "a"), *b = opt_str(l, "b"), *type = opt_str(l, "type");
	x.a = a ? topo_find(t, a) : -1;
	x.b = b ? topo_find(t, b) : -1;
	if (x.a < 0 || x.b < 0)
		FAIL("%s: %s: '%s' is not a device of this fixture", file, where,
		     x.a < 0 ? (a ? a : "a") : (b ? b : "b"));
	if (x.a == x.b)
		FAIL("%s: %s: a link needs two different devices", file, where);
	if (!type || !topo_kind_from_name(type, &x.kind) || x.kind == NBW_LINK_SELF ||
	    x.kind == NBW_LINK_HOST || x.kind == NBW_LINK_UNKNOWN)
		FAIL("%s: %s: 'type' must be nvlink, xgmi, xelink, mdf, pix, pxb, phb, node or "
		     "sys", file, where);
	if (opt_int(l, "links", 1, &x.count, file, where, err, errlen) ||
	    opt_int(l, "hops", 1, &x.hops, file, where, err, errlen) ||
	    opt_int(l, "version", 1, &x.version, file, where, err, errlen) ||
	    opt_num(l, "gbps", &x.api_gbps, file, where, err, errlen) ||
	    opt_num(l, "link_gbps", &x.link_gbps, file, where, err, errlen))
		return -1;
	/* by default the API that reported device a (as a fixture stands in for it) */
	const char *src = opt_str(l, "source");
	char first[32];
	snprintf(first, sizeof(first), "%s", t->dev[x.a].pub.seen_by);
	for (char *s = NULL, *w = strtok_r(first, ",", &s); w && !src; w = strtok_r(NULL, ",", &s))
		if (strcmp(w, "pci") != 0 && strcmp(w, "hwloc") != 0)
			src = w;
	snprintf(x.source, sizeof(x.source), "%s", src ? src : "the fixture");
	if (topo_add_link(t, &x))
		FAIL("%s: %s: out of memory", file, where);
	return 0;
}

int topo_links_from_json(struct nbw_topo *t, json_t *root, const char *file, char *err,
			 size_t errlen)
{
	static const char *const keys[] = { "comment", "sources", "devices", "links", NULL };
	if (!json_is_object(root))
		FAIL("%s: the top level must be an object", file);
	if (only_keys(root, keys, file, "top level", err, errlen))
		return -1;
	json_t *src = json_object_get(root, "sources"), *devs = json_object_get(root, "devices");
	json_t *links = json_object_get(root, "links"), *v;
	size_t i;
	if (src && !json_is_object(src))
		FAIL("%s: 'sources' must be an object", file);
	if ((devs && !json_is_array(devs)) || (links && !json_is_array(links)))
		FAIL("%s: 'devices' and 'links' must be arrays", file);
	if (read_sources(t, src, file, err, errlen))
		return -1;
	json_array_foreach(devs, i, v)
		if (read_device(t, v, i, file, err, errlen))
			return -1;
	json_array_foreach(links, i, v)
		if (read_link(t, v, i, file, err, errlen))
			return -1;
	return 0;
}

json_t *topo_links_to_json(const struct nbw_topo *t)
{
	json_t *root = json_object(), *src = json_object(), *devs = json_array();
	json_t *links = json_array();
	for (int i = 0; i < 3; i++)
		for (size_t s = 0; s < t->nsrc; s++)
			if (strcmp(t->src[s].name, vendor_sources[i]) == 0)
				json_object_set_new(src, vendor_sources[i],
						    json_string(t->src[s].ok ? "ok" :
								t->src[s].detail));
	for (size_t i = 0; i < t->ndev; i++) {
		const struct topo_dev *d = &t->dev[i];
		if (!d->pub.pci_bus_id[0])
			continue;
		json_t *o = json_pack("{s:s, s:s, s:s}", "bus_id", d->pub.pci_bus_id, "name",
				      d->pub.name, "vendor", d->pub.vendor);
		if (d->pub.tile >= 0)
			json_object_set_new(o, "tile", json_integer(d->pub.tile));
		/* the first API that saw it */
		char first[32];
		snprintf(first, sizeof(first), "%s", d->pub.seen_by);
		first[strcspn(first, ",")] = '\0';
		json_object_set_new(o, "source", json_string(first));
		if (d->nvlink_version || d->switch_links)
			json_object_set_new(o, "nvlink", json_pack("{s:i, s:i}", "version",
				d->nvlink_version ? d->nvlink_version : 1, "switch_links",
				d->switch_links));
		json_t *health = topo_health_to_links(d);
		if (health)
			json_object_set_new(o, "health", health);
		json_array_append_new(devs, o);
	}
	for (size_t i = 0; i < t->nlink; i++) {
		const struct topo_link *l = &t->link[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:i}", "a", t->dev[l->a].pub.id, "b",
				      t->dev[l->b].pub.id, "type", nbw_link_kind_name(l->kind),
				      "hops", l->hops > 0 ? l->hops : 1);
		if (l->count > 0)
			json_object_set_new(o, "links", json_integer(l->count));
		if (l->version > 0)
			json_object_set_new(o, "version", json_integer(l->version));
		if (l->api_gbps >= 0)
			json_object_set_new(o, "gbps", json_real(l->api_gbps));
		if (l->link_gbps >= 0)
			json_object_set_new(o, "link_gbps", json_real(l->link_gbps));
		json_object_set_new(o, "source", json_string(l->source));
		json_array_append_new(links, o);
	}
	json_object_set_new(root, "comment", json_string("what the vendor APIs answered; "
				"format in doc/topology.md"));
	json_object_set_new(root, "sources", src);
	json_object_set_new(root, "devices", devs);
	json_object_set_new(root, "links", links);
	return root;
}
