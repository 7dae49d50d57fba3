/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The comparison of two runs as JSON (include/nodebw/runcmp.h; doc/usage.md documents the
 * fields): what `nodebw compare A B --json` prints, written from the struct the terminal
 * and the report render.
 */
#include <math.h>

#include "nodebw/runcmp.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *run_json(const struct nbw_rc_run *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", json_string(r->file));
	json_object_set_new(o, "host", str_or_null(r->host));
	json_object_set_new(o, "created", str_or_null(r->created));
	json_object_set_new(o, "version", str_or_null(r->version));
	json_object_set_new(o, "revision", str_or_null(r->revision));
	json_object_set_new(o, "comparison_bytes",
			    r->comparison_bytes > 0 ? json_integer(r->comparison_bytes)
						    : json_null());
	return o;
}

static json_t *side_json(const struct nbw_rc_side *s)
{
	if (!s->present)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "gbps", num(s->gbps));
	json_object_set_new(o, "lo_gbps", num(s->lo_gbps));
	json_object_set_new(o, "hi_gbps", num(s->hi_gbps));
	json_object_set_new(o, "members", json_integer(s->members));
	if (s->how[0])
		json_object_set_new(o, "how", json_string(s->how));
	return o;
}

static json_t *path_json(const struct nbw_rc_path *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(p->headline ? "headline" : "path"));
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "api", json_string(p->api));
	json_object_set_new(o, p->headline ? "what" : "direction", json_string(p->what));
	if (!p->headline) {
		json_object_set_new(o, "mode", json_string(p->mode));
		json_object_set_new(o, "host_mem", json_string(p->host_mem));
		json_object_set_new(o, "peer_access", json_string(p->peer_access));
		json_object_set_new(o, "binding", json_string(p->binding));
	}
	json_object_set_new(o, "bytes", p->bytes > 0 ? json_integer(p->bytes) : json_null());
	json_object_set_new(o, "a", side_json(&p->a));
	json_object_set_new(o, "b", side_json(&p->b));
	json_object_set_new(o, "ratio", num(p->ratio));
	json_object_set_new(o, "verdict", json_string(nbw_rc_verdict_name(p->verdict)));
	json_object_set_new(o, "b_at_other_size", json_boolean(p->b_other_size));
	return o;
}

json_t *nbw_runcmp_json(const struct nbw_runcmp *c)
{
	json_t *paths = json_array(), *counts = json_object();
	for (size_t i = 0; i < c->npaths; i++)
		json_array_append_new(paths, path_json(&c->paths[i]));
	for (int v = 0; v < NBW_RC_NVERDICTS; v++)
		json_object_set_new(counts, nbw_rc_verdict_name((enum nbw_rc_verdict)v),
				    json_integer((json_int_t)c->counts[v]));
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:b, s:o, s:o, s:o}", "schema",
			 "nodebw-run-compare", "units", "GB/s = 1e9 bytes per second",
			 "rule", NBW_RC_RULE, "a", run_json(&c->a), "b", run_json(&c->b),
			 "hosts_differ", c->hosts_differ, "bytes",
			 c->bytes > 0 ? json_integer(c->bytes) : json_null(), "counts", counts,
			 "paths", paths);
}
