/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which devices a criterion names (analysis/criteria.h): by PCI ID first, by name second.
 * A device whose PCI IDs were recorded (results "pci_id") is matched by the criterion's
 * `pci_ids` alone when it has them, so a driver that names a GPU differently ("NVIDIA
 * Graphics Device") is judged the same and an H100 PCIe card (10de:2331) never takes an
 * SXM row (10de:2330). A device without IDs, or a criterion without `pci_ids`, is matched
 * by the case-insensitive substrings of its name.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "criteria.h"

/* "vvvv:dddd" or "vvvv:dddd:ssss:ssss", hex; lower-cased into out. */
static bool pci_form(const char *s, char *out, size_t len)
{
	size_t n = strlen(s);
	if ((n != 9 && n != 19) || n >= len)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool colon = i % 5 == 4;
		if (colon ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return false;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[n] = '\0';
	return true;
}

int nbw_crit_read_pci(json_t *o, const char *where, const char *key, struct nbw_crit *r,
		      char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	r->npci = 0;
	if (!v)
		return 0;
	if (!json_is_array(v) || json_array_size(v) == 0 ||
	    json_array_size(v) > NBW_CRIT_MATCHES) {
		snprintf(err, errlen, "%s.%s: must be a list of 1 to 8 PCI IDs", where, key);
		return -1;
	}
	size_t i;
	json_t *s;
	json_array_foreach(v, i, s) {
		if (!json_is_string(s) || !pci_form(json_string_value(s), r->pci[i],
						     sizeof(r->pci[i]))) {
			snprintf(err, errlen, "%s.%s[%zu]: must be \"vendor:device\" or "
				 "\"vendor:device:subsystem_vendor:subsystem_device\", four hex digits "
				 "each (\"10de:2330\")", where, key, i);
			return -1;
		}
	}
	r->npci = i;
	return 0;
}

bool nbw_crit_matches(const struct nbw_crit *r, const char *name, const char *pci, char *how,
		      size_t howlen)
{
	if (r->npci && pci && pci[0]) {
		for (size_t i = 0; i < r->npci; i++) {
			const char *id = r->pci[i];
			bool full = strlen(id) == 19;
			if (full ? strcmp(id, pci) == 0
				 : strncmp(id, pci, 9) == 0 && (pci[9] == '\0' || pci[9] == ':')) {
				snprintf(how, howlen, "PCI ID %s", id);
				return true;
			}
		}
		return false; /* the IDs decide: a name never overrides them */
	}
	for (size_t i = 0; i < r->nmatch; i++) {
		if (strcmp(r->match[i], "*") == 0) {
			snprintf(how, howlen, "every device (\"*\")");
			return true;
		}
		size_t n = strlen(r->match[i]);
		for (const char *s = name; *s; s++)
			if (strncasecmp(s, r->match[i], n) == 0) {
				snprintf(how, howlen, "name '%s'", r->match[i]);
				return true;
			}
	}
	return false;
}
