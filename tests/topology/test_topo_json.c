/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON shape of nbw_topo_to_json(), and bad fixtures: each error names the file (and
 * the line where the parser gives one). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nodebw/config.h"
#include "nodebw/topology.h"

#ifndef NODEBW_TOPO_FIXTURES
#error "NODEBW_TOPO_FIXTURES (tests/fixtures/topology) must be defined by the build"
#endif

static struct nbw_topo *load(const char *name)
{
	char dir[1024], err[1024] = "";
	struct nbw_topo *t = NULL;
	snprintf(dir, sizeof(dir), "%s/%s", NODEBW_TOPO_FIXTURES, name);
	struct nbw_topo_opts o = { .fixture_dir = dir };
	if (nbw_topo_load(&t, &o, err, sizeof(err)))
		fail_msg("%s: %s", name, err);
	return t;
}

static json_t *get(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		fail_msg("no key '%s'", key);
	return v;
}

static void shape(void **state)
{
	(void)state;
	struct nbw_topo *t = load("dgx-h100-like");
	json_t *j = nbw_topo_to_json(t);
	assert_string_equal(json_string_value(get(j, "schema")), "nodebw-topology");
	assert_int_equal(json_integer_value(get(j, "schema_version")), 1);
	assert_string_equal(json_string_value(get(j, "origin")), "fixture");
	assert_non_null(strstr(json_string_value(get(j, "units")), "1e9"));
	json_t *host = get(j, "host");
	assert_int_equal(json_integer_value(get(host, "packages")), 2);
	assert_int_equal(json_integer_value(get(host, "pus")), 224);
	json_t *numa = get(host, "numa");
	assert_int_equal(json_array_size(numa), 2);
	assert_string_equal(json_string_value(get(json_array_get(numa, 0), "cpuset")),
			    "0-55,112-167");
	assert_true(json_is_integer(get(json_array_get(numa, 0), "memory_bytes")));

	json_t *src = get(j, "sources"), *v;
	size_t i;
	assert_true(json_array_size(src) >= 5);
	json_array_foreach(src, i, v) {
		assert_true(json_is_string(get(v, "name")));
		assert_true(json_is_boolean(get(v, "ok")));
		assert_true(json_is_string(get(v, "detail")));
	}

	json_t *devs = get(j, "devices");
	assert_int_equal(json_array_size(devs), 8);
	json_t *d3 = json_array_get(devs, 3);
	assert_string_equal(json_string_value(get(d3, "id")), "0000:5d:00.0");
	assert_string_equal(json_string_value(get(d3, "pci_bus_id")), "0000:5d:00.0");
	assert_true(json_is_null(get(d3, "tile")));
	assert_true(json_is_array(get(d3, "seen_by")));
	json_t *hl = get(d3, "host_link");
	assert_string_equal(json_string_value(get(hl, "type")), "pcie");
	assert_true(fabs(json_real_value(get(hl, "theoretical_gbps")) - 63.015) < 0.01);
	assert_int_equal(json_integer_value(get(get(hl, "current"), "gen")), 1);
	assert_int_equal(json_integer_value(get(get(hl, "max"), "width")), 16);
	assert_int_equal(json_integer_value(get(hl, "numa_node")), 0);
	assert_non_null(strstr(json_string_value(get(hl, "note")), "below"));

	json_t *pairs = get(j, "pairs");
	assert_int_equal(json_array_size(pairs), 28); /* 8 x 7 / 2 */
	json_array_foreach(pairs, i, v) {
		assert_string_equal(json_string_value(get(v, "label")), "NV18");
		assert_string_equal(json_string_value(get(v, "kind")), "nvlink");
		assert_int_equal(json_integer_value(get(v, "links")), 18);
		assert_true(fabs(json_real_value(get(v, "theoretical_gbps")) - 450) < 1e-9);
		json_t *pc = get(v, "pcie");
		const char *l = json_string_value(get(pc, "label"));
		assert_true(strcmp(l, "NODE") == 0 || strcmp(l, "SYS") == 0);
	}
	json_t *m = get(j, "matrix"), *ids = get(m, "ids"), *labels = get(m, "labels");
	assert_int_equal(json_array_size(ids), 8);
	assert_int_equal(json_array_size(labels), 8);
	for (size_t r = 0; r < 8; r++) {
		json_t *row = json_array_get(labels, r);
		assert_int_equal(json_array_size(row), 8);
		assert_string_equal(json_string_value(json_array_get(row, r)), "X");
	}
	assert_true(json_is_object(get(j, "formulas")));

	/* serialisable and back */
	char *text = json_dumps(j, 0);
	assert_non_null(text);
	json_error_t e;
	json_t *back = json_loads(text, 0, &e);
	assert_non_null(back);
	assert_true(json_equal(j, back));
	json_decref(back);
	free(text);
	json_decref(j);
	nbw_topo_free(t);
}

static void unknown_is_null(void **state)
{
	(void)state;
	struct nbw_topo *t = load("vm-2cpu");
	struct nbw_device plug = { .id = 2, .kind = "host-plugin", .name = "plugin 2" };
	assert_int_equal(nbw_topo_add_api_device(t, "omp", &plug), 0);
	json_t *j = nbw_topo_to_json(t);
	json_t *d = json_array_get(get(j, "devices"), 0);
	assert_string_equal(json_string_value(get(d, "id")), "omp:2");
	assert_true(json_is_null(get(d, "pci_bus_id")));
	json_t *hl = get(d, "host_link");
	assert_string_equal(json_string_value(get(hl, "type")), "none");
	assert_true(json_is_null(get(hl, "theoretical_gbps")));
	assert_true(json_is_null(get(hl, "current")));
	assert_true(json_is_null(get(hl, "numa_node")));
	assert_string_equal(json_string_value(get(hl, "note")), "host memory, no link");
	assert_int_equal(json_array_size(get(j, "pairs")), 0);
	assert_int_equal(json_array_size(get(get(j, "matrix"), "ids")), 0);
	json_decref(j);
	nbw_topo_free(t);
	j = nbw_topo_to_json(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
}

static void placement_json(void **state)
{
	(void)state;
	struct nbw_page_placement pl = { .pages = 10, .not_present = 2, .page_size = 4096,
					 .max_node = 1 };
	pl.on_node[0] = 5;
	pl.on_node[1] = 3;
	json_t *j = nbw_page_placement_to_json(&pl);
	assert_int_equal(json_integer_value(get(j, "pages")), 10);
	assert_int_equal(json_integer_value(get(get(j, "nodes"), "1")), 3);
	assert_int_equal(json_integer_value(get(j, "not_present")), 2);
	json_decref(j);
	char buf[256];
	nbw_page_placement_format(&pl, buf, sizeof(buf));
	assert_string_equal(buf, "node 0: 50.0% (5 pages), node 1: 30.0% (3 pages), not present: "
			    "2 pages");
}

/* ---- bad fixtures ------------------------------------------------------------------- */

static char tmpdir[] = "/tmp/nodebw-topo-test-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void copy_vm_xml(void)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/vm-2cpu/hwloc.xml", NODEBW_TOPO_FIXTURES);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	write_file("hwloc.xml", buf);
}

/* Load tmpdir (or \p path) and expect an error holding every given fragment. */
static void expect_error(const char *path, const char *frag1, const char *frag2)
{
	char err[1024] = "";
	struct nbw_topo *t = NULL;
	struct nbw_topo_opts o = { .fixture_dir = path ? path : tmpdir };
	assert_int_equal(nbw_topo_load(&t, &o, err, sizeof(err)), -1);
	assert_null(t);
	if (!strstr(err, frag1) || (frag2 && !strstr(err, frag2)))
		fail_msg("error '%s' lacks '%s' / '%s'", err, frag1, frag2 ? frag2 : "");
	assert_null(strchr(err, '\n')); /* one line */
}

static void bad_fixtures(void **state)
{
	(void)state;
	char path[600];
	expect_error("/nonexistent/fixture", "/nonexistent/fixture", "No such file");
	expect_error(NULL, "hwloc.xml", "a fixture folder holds");

	/* XML: truncated, then well-formed but not hwloc's */
	write_file("hwloc.xml", "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n"
				"  <object type=\"Machine\" os_index=\"0\"\n</topology>\n");
	snprintf(path, sizeof(path), "%s/hwloc.xml", tmpdir);
#if NBW_TOPO_HAVE_LIBXML
	expect_error(NULL, "hwloc.xml:", "not well-formed XML");
	char err[1024] = "";
	struct nbw_topo *t = NULL;
	struct nbw_topo_opts o = { .fixture_dir = tmpdir };
	assert_int_equal(nbw_topo_load(&t, &o, err, sizeof(err)), -1);
	const char *at = strstr(err, "hwloc.xml:");
	assert_true(at && at[10] >= '3' && at[10] <= '4'); /* the parser's line */
#else
	expect_error(NULL, path, "hwloc");
#endif
	expect_error(path, path, NULL); /* the bare XML file form */
	write_file("hwloc.xml", "<?xml version=\"1.0\"?>\n<inventory/>\n");
	expect_error(NULL, "hwloc.xml", "hwloc");

	copy_vm_xml();
	write_file("links.json", "{\n \"devices\": [\n  {\"bus_id\": \"0000:01:00.0\",}\n ]\n}\n");
	expect_error(NULL, "links.json:3:", NULL);
	write_file("links.json", "[1, 2]\n");
	expect_error(NULL, "links.json", "top level must be an object");
	write_file("links.json", "{\"devices\": [{\"bus_id\": \"0000:01:00.0\", \"gbs\": 5}]}");
	expect_error(NULL, "links.json: devices[0]", "unknown key 'gbs'");
	write_file("links.json", "{\"devices\": [{\"bus_id\": \"gpu0\"}]}");
	expect_error(NULL, "devices[0]", "'bus_id' must be a PCI address");
	write_file("links.json", "{\"devices\": [{\"bus_id\": \"0000:01:00.0\", \"tile\": -1}]}");
	expect_error(NULL, "devices[0]", "'tile' must be an integer >= 0");
	write_file("links.json", "{\"devices\": [{\"bus_id\": \"0000:01:00.0\", "
				 "\"nvlink\": {\"version\": 4, \"links\": 18}}]}");
	expect_error(NULL, "devices[0].nvlink", "unknown key 'links'");
	write_file("links.json", "{\"devices\": [{\"bus_id\": \"0000:01:00.0\"}, "
				 "{\"bus_id\": \"0000:02:00.0\"}], \"links\": [{\"a\": "
				 "\"0000:01:00.0\", \"b\": \"0000:03:00.0\", \"type\": \"nvlink\"}]}");
	expect_error(NULL, "links[0]", "'0000:03:00.0' is not a device of this fixture");
	write_file("links.json", "{\"devices\": [{\"bus_id\": \"0000:01:00.0\"}, "
				 "{\"bus_id\": \"0000:02:00.0\"}], \"links\": [{\"a\": "
				 "\"0000:01:00.0\", \"b\": \"0000:02:00.0\", \"type\": \"warp\"}]}");
	expect_error(NULL, "links[0]", "'type' must be");
	write_file("links.json", "{\"devices\": [{\"bus_id\": \"0000:01:00.0\"}, "
				 "{\"bus_id\": \"0000:02:00.0\"}], \"links\": [{\"a\": "
				 "\"0000:01:00.0\", \"b\": \"0000:02:00.0\", \"type\": \"xgmi\", "
				 "\"gbps\": \"fast\"}]}");
	expect_error(NULL, "links[0]", "'gbps' must be a number");
	write_file("links.json", "{\"sources\": {\"nvml\": 3}}");
	expect_error(NULL, "links.json", "sources.nvml must be a string");

	/* a good minimal one loads */
	char err2[1024] = "";
	write_file("links.json", "{\"sources\": {\"nvml\": \"ok\"}, \"devices\": [{\"bus_id\": "
				 "\"0000:01:00.0\", \"source\": \"nvml\", \"nvlink\": {\"version\": "
				 "3, \"switch_links\": 12}}, {\"bus_id\": \"0000:02:00.0\", "
				 "\"source\": \"nvml\", \"nvlink\": {\"version\": 3, "
				 "\"switch_links\": 12}}]}");
	struct nbw_topo *t2 = NULL;
	struct nbw_topo_opts o2 = { .fixture_dir = tmpdir };
	if (nbw_topo_load(&t2, &o2, err2, sizeof(err2)))
		fail_msg("%s", err2);
	struct nbw_topo_pair p;
	assert_int_equal(nbw_topo_pair(t2, "0000:01:00.0", "0000:02:00.0", &p), 0);
	assert_string_equal(p.label, "NV12");
	assert_true(fabs(p.theoretical_gbps - 300) < 1e-9);
	/* devices that neither hwloc nor sysfs know: no PCIe path */
	assert_int_equal(nbw_topo_pcie_pair(t2, "0000:01:00.0", "0000:02:00.0", &p), 0);
	assert_string_equal(p.label, "?");
	nbw_topo_free(t2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shape),
		cmocka_unit_test(unknown_is_null),
		cmocka_unit_test(placement_json),
		cmocka_unit_test_setup_teardown(bad_fixtures, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
