/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's PCI identity in the results document (doc/results-schema.md, "devices"): the
 * vendor, device and subsystem IDs sysfs gives for its PCI bus id, and the typed view of
 * them. Part of the results module, the only code that knows the document's keys.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/results.h"
#include "nodebw/results_view.h"

static const char *const pci_files[4] = { "vendor", "device", "subsystem_vendor",
					  "subsystem_device" };

static bool hex4(const char *s)
{
	if (!s || strlen(s) != 4)
		return false;
	for (int i = 0; i < 4; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* One sysfs ID file ("0x10de\n") as four lower-case hex digits; false when unreadable. */
static bool read_id(const char *sysroot, const char *bus, const char *name, char out[5])
{
	char path[768], buf[32];
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", sysroot, bus, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	const char *s = buf;
	if (!ok || strncmp(s, "0x", 2))
		return false;
	s += 2;
	for (int i = 0; i < 4; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[4] = '\0';
	return s[4] == '\0' || s[4] == '\n';
}

/* A bus id usable as one path component ("0000:41:00.0"): no '/', no "..". */
static bool bus_ok(const char *bus)
{
	if (!bus || !bus[0] || strstr(bus, "..") || strlen(bus) > 64)
		return false;
	for (const char *s = bus; *s; s++)
		if (!isxdigit((unsigned char)*s) && *s != ':' && *s != '.')
			return false;
	return true;
}

json_t *nbw_results_pci_id(const char *sysroot, const char *bus)
{
	char id[4][5];
	if (!bus_ok(bus))
		return NULL;
	for (int i = 0; i < 4; i++)
		if (!read_id(sysroot ? sysroot : "/sys", bus, pci_files[i], id[i]))
			return i < 2 ? NULL : json_pack("{s:s, s:s}", "vendor", id[0], "device",
							id[1]);
	return json_pack("{s:s, s:s, s:s, s:s}", "vendor", id[0], "device", id[1],
			 "subsystem_vendor", id[2], "subsystem_device", id[3]);
}

void nbw_results_device_set_pci_id(json_t *dev, const char *sysroot)
{
	json_t *id = nbw_results_pci_id(sysroot, json_string_value(json_object_get(dev,
										    "pci_bus_id")));
	if (id)
		json_object_set_new(dev, "pci_id", id);
}

int nbw_results_check_pci_id(json_t *dev, char *e, size_t elen)
{
	json_t *p = json_object_get(dev, "pci_id");
	if (!p)
		return 0;
	const char *k;
	json_t *v;
	bool ok = json_is_object(p) && json_object_get(p, "vendor") &&
		  json_object_get(p, "device");
	json_object_foreach(p, k, v) {
		bool known = false;
		for (int i = 0; i < 4; i++)
			known |= strcmp(k, pci_files[i]) == 0;
		ok = ok && known && hex4(json_string_value(v));
	}
	if (!ok)
		snprintf(e, elen, "pci_id: not {\"vendor\", \"device\"[, \"subsystem_vendor\", "
			 "\"subsystem_device\"]} of four hex digits each");
	return ok ? 0 : -1;
}

bool nbw_rv_device_pci_id(const struct nbw_rv_device *d, char *out, size_t len)
{
	out[0] = '\0';
	json_t *p = json_object_get(d->j, "pci_id");
	const char *v[4];
	for (int i = 0; i < 4; i++)
		v[i] = json_string_value(json_object_get(p, pci_files[i]));
	if (!hex4(v[0]) || !hex4(v[1]))
		return false;
	if (hex4(v[2]) && hex4(v[3]))
		snprintf(out, len, "%s:%s:%s:%s", v[0], v[1], v[2], v[3]);
	else
		snprintf(out, len, "%s:%s", v[0], v[1]);
	for (char *s = out; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	return true;
}
