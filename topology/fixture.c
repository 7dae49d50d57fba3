/* SPDX-License-Identifier: BSD-3-Clause */
/* A recorded or synthetic machine instead of the live one: DIR/hwloc.xml (hwloc's own XML),
 * DIR/sys/ (a sysfs-like PCI tree) and DIR/links.json (what NVML, ROCm SMI or Level Zero
 * answered; format in doc/topology.md). A bare hwloc XML file also works. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodebw/jclean.h"
#include "nodebw/jsonpos.h"
#include "nodebw/config.h"
#include "nodebw/readfile.h"
#include "topo_int.h"

#if NBW_TOPO_HAVE_LIBXML
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

/* libxml2 (the parser hwloc uses too) gives the line of a syntax error; hwloc does not. */
static int xml_check(const char *path, const char *xml, size_t len, char *err, size_t errlen)
{
	xmlDocPtr doc = len <= INT_MAX ?
		xmlReadMemory(xml, (int)len, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
			      XML_PARSE_NOWARNING) : NULL;
	if (doc) {
		xmlFreeDoc(doc);
		return 0;
	}
	const xmlError *e = xmlGetLastError();
	if (e && e->message) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s", e->message);
		msg[strcspn(msg, "\n")] = '\0';
		snprintf(err, errlen, "%s:%d: not well-formed XML: %s", path, e->line, msg);
	} else {
		snprintf(err, errlen, "%s: not well-formed XML", path);
	}
	xmlResetLastError();
	return -1;
}
#else
static int xml_check(const char *path, const char *xml, size_t len, char *err, size_t errlen)
{
	(void)path, (void)xml, (void)len, (void)err, (void)errlen;
	return 0; /* hwloc's own parser reports it, without a line */
}
#endif

/* First line of DIR/README* (at most 64 KiB read), for the source line. */
static void readme_line(const char *dir, char *buf, size_t len)
{
	static const char *const names[] = { "README", "README.md" };
	buf[0] = '\0';
	for (int k = 0; k < 2; k++) {
		char *path = NULL, *text = NULL, why[64];
		size_t n;
		if (asprintf(&path, "%s/%s", dir, names[k]) < 0)
			return;
		int rc = nbw_readfile(path, 64 * 1024, &text, &n, why, sizeof(why));
		free(path);
		if (rc)
			continue;
		char *save = NULL;
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			/* skip an SPDX comment line */
			if (!strstr(l, "SPDX-License-Identifier")) {
				snprintf(buf, len, "%s", l);
				break;
			}
		free(text);
		return;
	}
}

int topo_links_from_buffer(struct nbw_topo *t, const char *file, const char *text, size_t len,
			   char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = nbw_json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		nbw_json_parse_error(file, &je, len, err, errlen);
		return -1;
	}
	int rc = topo_links_from_json(t, root, file, err, errlen);
	json_decref(root);
	return rc;
}

/* hwloc.xml (or the bare XML file) read whole, checked, and given to hwloc. */
static int load_xml(struct nbw_topo *t, const char *xml, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (nbw_readfile(xml, 0, &text, &len, err, errlen))
		return -1;
	int rc = xml_check(xml, text, len, err, errlen) ||
		 topo_hwloc_load(t, xml, text, len, err, errlen) ? -1 : 0;
	free(text);
	return rc;
}

int topo_fixture_load(struct nbw_topo *t, const char *dir, char *err, size_t errlen)
{
	struct stat st;
	char *xml = NULL;
	int rc = -1;
	t->fixture = true;
	snprintf(t->fixture_dir, sizeof(t->fixture_dir), "%s", dir);
	if (stat(dir, &st)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	bool bare_xml = S_ISREG(st.st_mode);
	if (!bare_xml && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: neither a fixture folder nor an hwloc XML file (a %s)",
			 dir, S_ISFIFO(st.st_mode) ? "fifo" : S_ISCHR(st.st_mode) ?
			 "character device" : S_ISBLK(st.st_mode) ? "block device" :
			 S_ISSOCK(st.st_mode) ? "socket" : "special file");
		return -1;
	}
	t->no_sysfs = bare_xml;
	if (asprintf(&xml, bare_xml ? "%s" : "%s/hwloc.xml", dir) < 0) {
		xml = NULL;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (bare_xml) {
		snprintf(t->sysroot, sizeof(t->sysroot), "%s.no-sysfs", dir);
	} else {
		snprintf(t->sysroot, sizeof(t->sysroot), "%s/sys", dir);
		if (access(xml, R_OK)) {
			snprintf(err, errlen, "%s: %s (a fixture folder holds hwloc.xml, sys/ and "
				 "links.json)", xml, strerror(errno));
			goto out;
		}
	}
	if (load_xml(t, xml, err, errlen))
		goto out;
	char readme[400];
	readme_line(dir, readme, sizeof(readme));
	topo_source(t, "fixture", true, "%s%s%s", dir, readme[0] ? ": " : "", readme);
	rc = 0;
out:
	free(xml);
	return rc;
}

int topo_fixture_links(struct nbw_topo *t, char *err, size_t errlen)
{
	char *links = NULL;
	if (!t->no_sysfs && asprintf(&links, "%s/links.json", t->fixture_dir) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (t->no_sysfs || access(links, F_OK)) {
		for (const struct topo_source_ops *const *s = topo_sources; *s; s++)
			if ((*s)->vendor)
				topo_source(t, (*s)->name, false, "not recorded in the fixture");
		free(links);
		return 0;
	}
	char *text;
	size_t len;
	int rc = -1;
	if (nbw_readfile(links, 0, &text, &len, err, errlen) == 0) {
		rc = topo_links_from_buffer(t, links, text, len, err, errlen);
		free(text);
	}
	free(links);
	return rc;
}
