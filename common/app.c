/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An application description (include/nodebw/app.h, doc/app.schema.json): read strictly,
 * like a thresholds file, because a typo in the grid or the radius would otherwise predict
 * another code than the user's. Every error names the file, the line and column of the
 * field and what is wrong.
 */
#include "nodebw/app.h"
#include "nodebw/heat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/jclean.h"
#include "nodebw/jsonpos.h"
#include "nodebw/readfile.h"

static int bad(char *err, size_t errlen, const char *key, const char *what)
{
	snprintf(err, errlen, "%s: %s", key, what);
	return -1;
}

/* An integer in [lo, hi] at o[key]; \p key is also the path named in errors. */
static int get_long(json_t *o, const char *key, const char *path, long lo, long hi,
		    long *out, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return bad(err, errlen, path, "missing (an integer)");
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		char what[96];
		snprintf(what, sizeof(what), "must be an integer from %ld to %ld", lo, hi);
		return bad(err, errlen, path, what);
	}
	*out = (long)json_integer_value(v);
	return 0;
}

/* An array of three integers in [lo, hi]. */
static int get_triple(json_t *o, const char *key, long lo, long hi, long out[3], char *err,
		      size_t errlen)
{
	json_t *a = json_object_get(o, key);
	if (!json_is_array(a) || json_array_size(a) != 3)
		return bad(err, errlen, key, "must be an array of three integers [x, y, z]");
	for (size_t i = 0; i < 3; i++) {
		json_t *v = json_array_get(a, i);
		if (!json_is_integer(v) || json_integer_value(v) < lo ||
		    json_integer_value(v) > hi) {
			char path[48], what[96];
			snprintf(path, sizeof(path), "%s[%zu]", key, i);
			snprintf(what, sizeof(what), "must be an integer from %ld to %ld", lo, hi);
			return bad(err, errlen, path, what);
		}
		out[i] = (long)json_integer_value(v);
	}
	return 0;
}

static int get_choice(json_t *o, const char *key, const char *const *names, int n, int *out,
		      char *err, size_t errlen)
{
	const char *s = json_string_value(json_object_get(o, key));
	if (!json_object_get(o, key))
		return bad(err, errlen, key, "missing (a string)");
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	char what[128];
	snprintf(what, sizeof(what), "must be \"%s\" or \"%s\"", names[0], names[1]);
	return bad(err, errlen, key, what);
}

static int only_keys(json_t *o, const char *where, const char *const *keys, char *err,
		     size_t errlen)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		bool known = false;
		for (size_t i = 0; keys[i] && !known; i++)
			known = !strcmp(k, keys[i]);
		if (!known) {
			char path[160];
			snprintf(path, sizeof(path), "%s%s%.100s", where, where[0] ? "." : "", k);
			return bad(err, errlen, path, "unknown key");
		}
	}
	return 0;
}

static int read_compute(json_t *c, struct nbw_app *a, char *err, size_t errlen)
{
	static const char *const keys[] = {"kernel", "seconds_per_step", "box",
					   "seconds_per_point", NULL};
	if (!json_is_object(c))
		return bad(err, errlen, "compute",
			   "must be {\"kernel\": \"nodebw-heat\"}, {\"seconds_per_step\": S, "
			   "\"box\": [x, y, z]} or {\"seconds_per_point\": S}");
	if (only_keys(c, "compute", keys, err, errlen))
		return -1;
	json_t *k = json_object_get(c, "kernel"), *sps = json_object_get(c, "seconds_per_step"),
	       *spp = json_object_get(c, "seconds_per_point");
	int forms = !!k + !!sps + !!spp;
	if (forms != 1)
		return bad(err, errlen, "compute",
			   "give exactly one of \"kernel\", \"seconds_per_step\" (with \"box\") "
			   "and \"seconds_per_point\"");
	if (k) {
		if (!json_is_string(k) || strcmp(json_string_value(k), "nodebw-heat"))
			return bad(err, errlen, "compute.kernel",
				   "must be \"nodebw-heat\" (nodebw's stencil of the app's radius)");
		if (json_object_get(c, "box"))
			return bad(err, errlen, "compute.box", "goes with \"seconds_per_step\" only");
		a->compute = NBW_APP_COMPUTE_KERNEL;
		a->compute_seconds = 0;
		return 0;
	}
	json_t *v = sps ? sps : spp;
	const char *path = sps ? "compute.seconds_per_step" : "compute.seconds_per_point";
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if (!isfinite(x) || x <= 0 || x > 1e6)
		return bad(err, errlen, path, "must be a number of seconds above 0 and at most 1e6");
	a->compute_seconds = x;
	if (spp) {
		if (json_object_get(c, "box"))
			return bad(err, errlen, "compute.box", "goes with \"seconds_per_step\" only");
		a->compute = NBW_APP_COMPUTE_POINT;
		return 0;
	}
	a->compute = NBW_APP_COMPUTE_SUBDOMAIN;
	if (!json_object_get(c, "box"))
		return bad(err, errlen, "compute.box",
			   "missing: the local box [x, y, z] seconds_per_step was measured on");
	/* The box's path in errors is compute.box[i]. */
	char e[200];
	if (get_triple(c, "box", 1, NBW_APP_MAX_SIDE, a->compute_box, e, sizeof(e))) {
		snprintf(err, errlen, "compute.%s", e);
		return -1;
	}
	return 0;
}

int nbw_app_from_json(json_t *root, const char *where, struct nbw_app *out, char *err,
		      size_t errlen)
{
	static const char *const keys[] = {"schema", "version", "name", "grid", "decomp",
					   "radius", "fields", "element_bytes", "exchange",
					   "copy", "overlap", "steps", "compute", NULL};
	static const char *const exch[] = {"host-staged", "device"};
	static const char *const copies[] = {"rect", "pack"};
	struct nbw_app a;
	memset(&a, 0, sizeof(a));
	char e[300];
	(void)where;
	if (!json_is_object(root))
		return bad(err, errlen, "(document)", "must be a JSON object");
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, NBW_APP_SCHEMA))
		return bad(err, errlen, "schema", "must be \"" NBW_APP_SCHEMA "\"");
	json_t *ver = json_object_get(root, "version");
	if (!json_is_integer(ver) || json_integer_value(ver) != NBW_APP_VERSION)
		return bad(err, errlen, "version", "must be 1");
	if (only_keys(root, "", keys, err, errlen))
		return -1;
	json_t *name = json_object_get(root, "name");
	if (name) {
		if (!json_is_string(name) || json_string_length(name) >= sizeof(a.name))
			return bad(err, errlen, "name", "must be a string of at most 63 bytes");
		snprintf(a.name, sizeof(a.name), "%s", json_string_value(name));
	}
	long v;
	if (get_long(root, "radius", "radius", 1, NBW_APP_MAX_RADIUS, &v, e, sizeof(e)))
		goto fail;
	a.radius = (int)v;
	long lo_side = 2L * a.radius + 1;
	if (get_triple(root, "grid", lo_side, NBW_APP_MAX_SIDE, a.grid, e, sizeof(e))) {
		char more[340];
		snprintf(more, sizeof(more), "%s (2 radius + 1 = %ld at least: a boundary layer of "
			 "depth radius on each side and one interior point)", e, lo_side);
		snprintf(e, sizeof(e), "%.299s", more);
		goto fail;
	}
	json_t *d = json_object_get(root, "decomp");
	if (d && !(json_is_string(d) && !strcmp(json_string_value(d), "open"))) {
		long dd[3];
		if (get_triple(root, "decomp", 1, 4096, dd, e, sizeof(e)))
			goto fail;
		for (int i = 0; i < 3; i++)
			a.decomp[i] = (int)dd[i];
		if (!nbw_app_decomp_fits(&a, a.decomp)) {
			snprintf(e, sizeof(e), "decomp: [%d, %d, %d] leaves a device fewer interior "
				 "points than the radius (%d) along an axis of the grid",
				 a.decomp[0], a.decomp[1], a.decomp[2], a.radius);
			goto fail;
		}
	}
	if (get_long(root, "fields", "fields", 1, NBW_APP_MAX_FIELDS, &v, e, sizeof(e)))
		goto fail;
	a.fields = (int)v;
	if (get_long(root, "element_bytes", "element_bytes", 1, 16, &v, e, sizeof(e)))
		goto fail;
	if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16) {
		snprintf(e, sizeof(e), "element_bytes: must be 1, 2, 4, 8 or 16");
		goto fail;
	}
	a.element_bytes = (int)v;
	int c;
	if (get_choice(root, "exchange", exch, 2, &c, e, sizeof(e)))
		goto fail;
	a.exchange = (enum nbw_app_exchange)c;
	if (get_choice(root, "copy", copies, 2, &c, e, sizeof(e)))
		goto fail;
	a.copy = (enum nbw_app_copy)c;
	json_t *ov = json_object_get(root, "overlap");
	if (!json_is_boolean(ov)) {
		snprintf(e, sizeof(e), "overlap: %s", ov ? "must be true or false"
							 : "missing (true or false)");
		goto fail;
	}
	a.overlap = json_is_true(ov);
	if (get_long(root, "steps", "steps", 1, NBW_APP_MAX_STEPS, &a.steps, e, sizeof(e)))
		goto fail;
	json_t *comp = json_object_get(root, "compute");
	if (!comp) {
		snprintf(e, sizeof(e), "compute: missing ({\"kernel\": \"nodebw-heat\"} or the "
			 "code's own one-device seconds)");
		goto fail;
	}
	if (read_compute(comp, &a, e, sizeof(e)))
		goto fail;
	*out = a;
	return 0;
fail:
	snprintf(err, errlen, "%s", e);
	return -1;
}

int nbw_app_load(const char *path, struct nbw_app *out, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (nbw_readfile(path, 0, &text, &len, err, errlen))
		return -1;
	json_error_t je;
	json_t *j = nbw_json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		nbw_json_parse_error(path, &je, len, err, errlen);
		free(text);
		return -1;
	}
	char e[400];
	int rc = nbw_app_from_json(j, path, out, e, sizeof(e));
	json_decref(j);
	if (rc)
		nbw_json_check_error(path, text, len, e, err, errlen);
	free(text);
	return rc;
}

const char *nbw_app_exchange_name(enum nbw_app_exchange e)
{
	return e == NBW_APP_DEVICE ? "device" : "host-staged";
}

const char *nbw_app_copy_name(enum nbw_app_copy c)
{
	return c == NBW_APP_PACK ? "pack" : "rect";
}

static json_t *triple(const long v[3])
{
	return json_pack("[III]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

json_t *nbw_app_to_json(const struct nbw_app *a)
{
	json_t *o = json_pack("{s:s, s:i}", "schema", NBW_APP_SCHEMA, "version", NBW_APP_VERSION);
	if (!o)
		return NULL;
	if (a->name[0])
		json_object_set_new(o, "name", json_string(a->name));
	json_object_set_new(o, "grid", triple(a->grid));
	if (nbw_app_decomp_open(a)) {
		json_object_set_new(o, "decomp", json_string("open"));
	} else {
		long d[3] = {a->decomp[0], a->decomp[1], a->decomp[2]};
		json_object_set_new(o, "decomp", triple(d));
	}
	json_object_set_new(o, "radius", json_integer(a->radius));
	json_object_set_new(o, "fields", json_integer(a->fields));
	json_object_set_new(o, "element_bytes", json_integer(a->element_bytes));
	json_object_set_new(o, "exchange", json_string(nbw_app_exchange_name(a->exchange)));
	json_object_set_new(o, "copy", json_string(nbw_app_copy_name(a->copy)));
	json_object_set_new(o, "overlap", json_boolean(a->overlap));
	json_object_set_new(o, "steps", json_integer(a->steps));
	json_t *c = a->compute == NBW_APP_COMPUTE_KERNEL
			    ? json_pack("{s:s}", "kernel", "nodebw-heat")
		    : a->compute == NBW_APP_COMPUTE_POINT
			    ? json_pack("{s:f}", "seconds_per_point", a->compute_seconds)
			    : json_pack("{s:f, s:o}", "seconds_per_step", a->compute_seconds, "box",
					triple(a->compute_box));
	json_object_set_new(o, "compute", c);
	return o;
}

bool nbw_app_decomp_fits(const struct nbw_app *a, const int decomp[3])
{
	for (int i = 0; i < 3; i++) {
		if (decomp[i] < 1)
			return false;
		long inner = a->grid[i] - 2L * a->radius;
		/* every device at least `radius` interior points: a face never reaches past
		 * its neighbour */
		if (decomp[i] > 1 && inner / decomp[i] < a->radius)
			return false;
		if (inner < decomp[i])
			return false;
	}
	return true;
}

void nbw_app_local_box(const struct nbw_app *a, const int decomp[3], const int idx[3],
		       long interior[3], long box[3])
{
	for (int i = 0; i < 3; i++) {
		long inner = a->grid[i] - 2L * a->radius;
		long p = decomp[i] > 0 ? decomp[i] : 1;
		long q = inner / p, extra = inner % p;
		interior[i] = q + (idx[i] < extra ? 1 : 0);
		box[i] = interior[i] + 2L * a->radius;
	}
}

/* The slab shapes (include/nodebw/heat.h): here, beside the local boxes, so that nodebw run
 * (tools/run_rounds.c) has them in a build without the solver. */
bool nbw_heat_is_slab_shape(int nx, int ny, int nz, int g)
{
	return nbw_heat_is_slab_shape_r(nx, ny, nz, g, 1);
}

bool nbw_heat_is_slab_shape_r(int nx, int ny, int nz, int g, int radius)
{
	const int r2 = 2 * radius;
	return g >= 2 && nx == ny && nx > r2 && nz == (nx - r2 + g - 1) / g + r2;
}
