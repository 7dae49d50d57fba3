/* SPDX-License-Identifier: BSD-3-Clause */
/* The options of `nodebw heat` beyond the paper's variants: --radius and --fields (parsed
 * in heat/cli.c), --decomp, --copy, --exchange, --overlap and --app. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_general.h"
#include "nodebw/app.h"
#include "nodebw/cli.h"

static int parse_decomp(const char *arg, int out[3], char *err, size_t errlen)
{
	char extra;
	int p[3];
	if (sscanf(arg, "%dx%dx%d%c", &p[0], &p[1], &p[2], &extra) != 3 || p[0] < 1 || p[1] < 1 ||
	    p[2] < 1 || (long)p[0] * p[1] * p[2] > NBW_HEAT_MAX_DEVICES) {
		snprintf(err, errlen,
			 "--decomp: '%s' is not a device grid PXxPYxPZ of 1 to %d devices (e.g. "
			 "2x2x1)",
			 arg, NBW_HEAT_MAX_DEVICES);
		return -1;
	}
	if (p[0] * p[1] * p[2] < 2) {
		snprintf(err, errlen, "--decomp %s: the general version needs two devices or more",
			 arg);
		return -1;
	}
	memcpy(out, p, sizeof(p));
	return 0;
}

int heat_parse_general_option(const char *name, const char *arg, struct nbw_heat_opts *o,
			      char *err, size_t errlen)
{
	if (strcmp(name, "--decomp") == 0)
		return parse_decomp(arg, o->decomp, err, errlen);
	if (strcmp(name, "--copy") == 0) {
		if (strcmp(arg, "rect") && strcmp(arg, "pack")) {
			snprintf(err, errlen, "--copy: '%s' (rect or pack)", arg);
			return -1;
		}
		o->copy = strcmp(arg, "pack") == 0 ? NBW_APP_PACK : NBW_APP_RECT;
		return 0;
	}
	if (strcmp(name, "--exchange") == 0) {
		if (strcmp(arg, "host") && strcmp(arg, "host-staged") && strcmp(arg, "device")) {
			snprintf(err, errlen, "--exchange: '%s' (host or device)", arg);
			return -1;
		}
		o->exchange = strcmp(arg, "device") == 0 ? NBW_APP_DEVICE : NBW_APP_HOST_STAGED;
		return 0;
	}
	if (strcmp(arg, "on") && strcmp(arg, "off")) {
		snprintf(err, errlen, "--overlap: '%s' (on or off)", arg);
		return -1;
	}
	o->overlap = strcmp(arg, "on") == 0;
	return 0;
}

int heat_resolve_general(struct nbw_heat_opts *o, char *err, size_t errlen)
{
	bool general = o->versions[NBW_HEAT_GENERAL];
	if (o->general_opts && !general) {
		snprintf(err, errlen, "--decomp, --copy, --exchange and --overlap set up the general "
				      "version: name it (--versions general)");
		return -1;
	}
	if (general && (o->no_exchange || o->paired)) {
		snprintf(err, errlen, "--no-exchange and --paired run Versions 1-4 only, not general");
		return -1;
	}
	int p = o->decomp[0] * o->decomp[1] * o->decomp[2];
	if (general && p && o->ngpus == 0) {
		if (o->versions[NBW_HEAT_BASELINE])
			o->gpus[o->ngpus++] = 1;
		o->gpus[o->ngpus++] = p;
	}
	return 0;
}

void heat_decomp_for(const struct nbw_heat_opts *o, int g, int decomp[3])
{
	if (o->decomp[0]) {
		memcpy(decomp, o->decomp, 3 * sizeof(int));
	} else {
		decomp[0] = decomp[1] = 1;
		decomp[2] = g;
	}
}

bool heat_opts_fit(const struct nbw_heat_opts *o, enum nbw_heat_version v, int g)
{
	if (!nbw_heat_version_fits(v, g))
		return false;
	return v != NBW_HEAT_GENERAL || !o->decomp[0] ||
	       o->decomp[0] * o->decomp[1] * o->decomp[2] == g;
}

int heat_check_general(const struct nbw_heat_opts *o, char *err, size_t errlen)
{
	for (int s = 0; s < o->nshapes; s++) {
		struct nbw_heat_grid g;
		if (nbw_heat_grid_init_r(&g, o->shapes[s][0], o->shapes[s][1], o->shapes[s][2],
					 o->radius, err, errlen))
			return -1;
		for (int k = 0; o->versions[NBW_HEAT_GENERAL] && k < o->ngpus; k++) {
			if (!heat_opts_fit(o, NBW_HEAT_GENERAL, o->gpus[k]))
				continue;
			int decomp[3];
			struct nbw_heat_sub subs[NBW_HEAT_MAX_DEVICES];
			heat_decomp_for(o, o->gpus[k], decomp);
			if (nbw_heat_decompose(&g, decomp, subs, err, errlen))
				return -1;
		}
	}
	return 0;
}

int heat_apply_app(struct nbw_heat_opts *o, bool set_versions, bool set_steps, char *err,
		   size_t errlen)
{
	struct nbw_app a;
	char e[512];
	if (nbw_app_load(o->app, &a, e, sizeof(e))) {
		snprintf(err, errlen, "--app: %s", e);
		return -1;
	}
	for (int i = 0; i < 3; i++)
		if (a.grid[i] > NBW_GRID_MAX_SIDE) {
			snprintf(err, errlen, "--app %s: grid side %ld is above the solver's %d",
				 o->app, a.grid[i], NBW_GRID_MAX_SIDE);
			return -1;
		}
	if (a.fields > NBW_HEAT_MAX_FIELDS) {
		snprintf(err, errlen, "--app %s: %d fields; the solver steps 1 to %d", o->app,
			 a.fields, NBW_HEAT_MAX_FIELDS);
		return -1;
	}
	if (set_steps && a.steps > NBW_STEPS_MAX) {
		snprintf(err, errlen, "--app %s: %ld steps, above the solver's %ld; give --steps",
			 o->app, a.steps, (long)NBW_STEPS_MAX);
		return -1;
	}
	o->shapes[0][0] = (int)a.grid[0];
	o->shapes[0][1] = (int)a.grid[1];
	o->shapes[0][2] = (int)a.grid[2];
	o->nshapes = 1;
	o->radius = a.radius;
	o->fields = a.fields;
	if (!nbw_app_decomp_open(&a))
		memcpy(o->decomp, a.decomp, sizeof(o->decomp));
	o->copy = a.copy;
	o->exchange = a.exchange;
	o->overlap = a.overlap;
	if (set_steps)
		o->steps = (int)a.steps;
	o->app_element_bytes = a.element_bytes;
	snprintf(o->app_name, sizeof(o->app_name), "%s", a.name);
	if (set_versions) {
		o->versions[NBW_HEAT_SERIAL] = true;
		o->versions[NBW_HEAT_GENERAL] = true;
	}
	if (o->decomp[0] && o->decomp[0] * o->decomp[1] * o->decomp[2] < 2 &&
	    o->versions[NBW_HEAT_GENERAL]) {
		snprintf(err, errlen, "--app %s: decomposition %dx%dx%d is one device; the "
				      "general version needs two or more (--versions baseline runs "
				      "one)",
			 o->app, o->decomp[0], o->decomp[1], o->decomp[2]);
		return -1;
	}
	return 0;
}

void heat_usage_general(FILE *f)
{
	fprintf(f,
		"  --decomp PXxPYxPZ    general: the devices' grid, x fastest (default 1x1xG:\n"
		"                       z-slabs as Versions 1-4); its product is the G it runs on\n"
		"  --copy rect|pack     general: faces by omp_target_memcpy_rect_async (default)\n"
		"                       or packed by a kernel, one contiguous copy, unpacked\n"
		"  --exchange host|device\n"
		"                       general: faces staged through host buffers (default) or\n"
		"                       copied device to device\n"
		"  --overlap on|off     general: compute the layers the neighbours need first and\n"
		"                       the rest while the faces travel (default on), or compute\n"
		"                       everything, then exchange\n");
}
