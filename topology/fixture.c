/* SPDX-License-Identifier: BSD-3-Clause */
/* A recorded or synthetic machine instead of the live one: DIR/hwloc.xml (hwloc's own XML),
 * DIR/sys/ (a sysfs-like PCI tree) and DIR/links.json (what NVML, ROCm SMI or Level Zero
 * answered; format in doc/topology.md). A bare hwloc XML file also works. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodebw/config.h"
#include "topo_int.h"

#if NBW_TOPO_HAVE_LIBXML
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

/* libxml2 (the parser hwloc uses too) gives the line of a syntax error; hwloc does not. */
static int xml_check(const char *path, char *err, size_t errlen)
{
	xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
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
static int xml_check(const char *path, char *err, size_t errlen)
{
	(void)path, (void)err, (void)errlen;
	return 0; /* hwloc's own parser reports it, without a line */
}
#endif

/* First line of DIR/README*, for the source line. */
static void readme_line(const char *dir, char *buf, size_t len)
{
	char path[PATH_MAX + 16];
	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/README", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(path, sizeof(path), "%s/README.md", dir);
		f = fopen(path, "r");
	}
	if (!f)
		return;
	while (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		/* skip an SPDX comment line */
		if (buf[0] && !strstr(buf, "SPDX-License-Identifier"))
			break;
		buf[0] = '\0';
	}
	fclose(f);
}

int topo_fixture_load(struct nbw_topo *t, const char *dir, char *err, size_t errlen)
{
	struct stat st;
	char xml[PATH_MAX + 16], links[PATH_MAX + 16];
	t->fixture = true;
	snprintf(t->fixture_dir, sizeof(t->fixture_dir), "%s", dir);
	if (stat(dir, &st)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	bool bare_xml = S_ISREG(st.st_mode);
	if (bare_xml) {
		snprintf(xml, sizeof(xml), "%s", dir);
		snprintf(t->sysroot, sizeof(t->sysroot), "%s.no-sysfs", dir);
	} else {
		snprintf(xml, sizeof(xml), "%s/hwloc.xml", dir);
		snprintf(t->sysroot, sizeof(t->sysroot), "%s/sys", dir);
		if (access(xml, R_OK)) {
			snprintf(err, errlen, "%s: %s (a fixture folder holds hwloc.xml, sys/ and "
				 "links.json)", xml, strerror(errno));
			return -1;
		}
	}
	if (xml_check(xml, err, errlen) || topo_hwloc_load(t, xml, err, errlen))
		return -1;
	char readme[400];
	readme_line(dir, readme, sizeof(readme));
	topo_source(t, "fixture", true, "%s%s%s", dir, readme[0] ? ": " : "", readme);
	if (!bare_xml)
		topo_sysfs_source(t);
	topo_hwloc_scan_gpus(t);
	topo_hwloc_gpu_scan(t);
	snprintf(links, sizeof(links), "%s/links.json", dir);
	if (bare_xml || access(links, F_OK)) {
		const char *names[] = { "nvml", "rocm-smi", "level-zero" };
		for (int i = 0; i < 3; i++)
			topo_source(t, names[i], false, "not recorded in the fixture");
		return 0;
	}
	json_error_t je;
	json_t *root = json_load_file(links, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		if (je.line > 0)
			snprintf(err, errlen, "%s:%d:%d: %s", links, je.line, je.column, je.text);
		else
			snprintf(err, errlen, "%s: %s", links, je.text);
		return -1;
	}
	int rc = topo_links_from_json(t, root, links, err, errlen);
	json_decref(root);
	return rc;
}
