/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/jclean.h"
#include "nodebw/results.h"

#include "nodebw/jints.h"
#include "nodebw/jsonpos.h"
#include "nodebw/limits.h"
#include "nodebw/readfile.h"
#include "nodebw/results_view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nodebw/sysinfo.h"
#include "nodebw/version.h"

#include "results_priv.h"

/* ---- document ------------------------------------------------------------------------ */

struct nbw_doc *nbw_doc_new(int argc, char **argv)
{
	struct nbw_doc *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_t *cmd = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	d->devices = json_array();
	d->skipped = json_array();
	d->measurements = json_array();
	d->root = json_pack(
		"{s:s, s:i, s:{s:s, s:s, s:b, s:s}, s:s, s:o, s:{s:s, s:s, s:s}, s:o, s:o, s:o, s:O, "
		"s:O, s:O}",
		"schema", NBW_SCHEMA_NAME, "schema_version", NBW_SCHEMA_VERSION, "tool", "name",
		"nodebw", "version", NBW_VERSION, "openmp_offload",
		strcmp(NBW_OFFLOAD_TARGETS, "none") != 0, "offload_targets", NBW_OFFLOAD_TARGETS,
		"created", stamp, "command", cmd, "units",
		"bandwidth", "GB/s = 1e9 bytes per second", "time", "seconds", "size", "bytes",
		"machine", nbw_sysinfo_machine(), "software", nbw_sysinfo_software(), "environment",
		nbw_sysinfo_environment(), "devices", d->devices, "skipped", d->skipped,
		"measurements", d->measurements);
	if (!d->root || nbw_doc_csv_ensure(d)) {
		nbw_doc_free(d);
		return NULL;
	}
	/* From the first checkpoint on, a file left by a run that dies says it is not done. */
	nbw_doc_set_state(d, "running", NULL);
	return d;
}

void nbw_doc_set_state(struct nbw_doc *d, const char *state, const char *detail)
{
	json_object_set_new(d->root, "state", json_string(state));
	if (detail)
		json_object_set_new(d->root, "state_detail", json_string(detail));
	else
		json_object_del(d->root, "state_detail");
	json_object_set_new(d->root, "interrupted",
			    json_boolean(strcmp(state, "interrupted") == 0 ||
					 strcmp(state, "killed") == 0));
}

void nbw_doc_set_revision(struct nbw_doc *d, const char *revision)
{
	json_object_set_new(json_object_get(d->root, "tool"), "revision",
			    json_string(revision ? revision : ""));
}

void nbw_doc_free(struct nbw_doc *d)
{
	if (!d)
		return;
	json_decref(d->devices);
	json_decref(d->skipped);
	json_decref(d->measurements);
	json_decref(d->root);
	if (d->csv)
		fclose(d->csv);
	free(d->csv_buf);
	free(d);
}

int nbw_doc_api_devices(const struct nbw_doc *d, const char *api)
{
	size_t i;
	json_t *x;
	int n = 0;
	json_array_foreach(d->devices, i, x) {
		const char *a = json_string_value(json_object_get(x, "api"));
		n += a && strcmp(a, api) == 0;
	}
	return n;
}

void nbw_doc_add_device(struct nbw_doc *d, const char *api, const struct nbw_device *dev)
{
	json_t *o = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:b, s:o}", "api", api, "id",
			      dev->id, "runtime_id", dev->runtime_id, "kind", dev->kind, "name", dev->name, "memory",
			      dev->memory, "is_gpu", dev->is_gpu, "pci_bus_id",
			      dev->pci_bus_id[0] ? json_string(dev->pci_bus_id) : json_null());
	nbw_results_device_set_pci_id(o, "/sys");
	json_array_append_new(d->devices, o);
}

void nbw_doc_add_skip(struct nbw_doc *d, const char *api, const char *probe, const char *what,
		      const char *reason)
{
	json_array_append_new(d->skipped, json_pack("{s:s, s:s, s:s, s:s}", "api", api, "probe",
						    probe, "what", what, "reason", reason));
}

void nbw_doc_add_measurement(struct nbw_doc *d, const struct nbw_measurement *m)
{
	json_array_append_new(d->measurements, nbw_measurement_to_json(m));
	if (d->csv)
		nbw_doc_csv_row(d->csv, d->devices, m, NULL, 0);
}

void nbw_doc_add_measurement_json(struct nbw_doc *d, json_t *m)
{
	json_array_append(d->measurements, m);
	if (d->csv)
		nbw_doc_csv_row_json(d->csv, d->devices, m);
	json_decref(m);
}

void nbw_doc_set(struct nbw_doc *d, const char *key, json_t *value)
{
	json_object_set_new(d->root, key, value);
}

void nbw_doc_set_backend_software(struct nbw_doc *d, const char *api, json_t *value)
{
	json_t *be = json_object_get(json_object_get(d->root, "software"), "backends");
	if (json_is_object(be))
		json_object_set_new(be, api, value);
	else
		json_decref(value);
}

bool nbw_doc_records_disturbance(const struct nbw_doc *d)
{
	return json_is_object(json_object_get(d->root, "disturbance"));
}

void nbw_doc_add_disturb_stage(struct nbw_doc *d, json_t *value)
{
	json_t *list = json_object_get(json_object_get(d->root, "disturbance"), "stages");
	if (json_is_array(list))
		json_array_append_new(list, value);
	else
		json_decref(value);
}

void nbw_doc_add_speed_reference(struct nbw_doc *d, json_t *value, const char *method)
{
	json_t *all = json_object_get(d->root, "disturbance");
	if (!json_is_object(all)) {
		json_decref(value);
		return;
	}
	json_t *list = json_object_get(all, "speed_reference");
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(all, "speed_reference", list);
		json_object_set_new(all, "speed_reference_method", json_string(method));
	}
	json_array_append_new(list, value);
}

json_t *nbw_doc_plane_sweep_children(struct nbw_doc *d, bool restart, int processes,
				     int hidden_helpers)
{
	json_t *done = json_object_get(json_object_get(d->root, "plane_sweep"), "children");
	if (restart || !json_is_array(done)) {
		done = json_array();
		nbw_doc_set(d, "plane_sweep",
			    json_pack("{s:i, s:i, s:o}", "processes", processes, "hidden_helpers",
				      hidden_helpers, "children", done));
	}
	return done;
}

const char *nbw_short_path(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);
	if (n < 120 || len < 8)
		return path;
	snprintf(buf, len, "...%s", path + n - (len - 4 < 100 ? len - 4 : 100));
	return buf;
}

int nbw_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char sp[112];
	size_t plen = strlen(path) + 16;
	char *tmp = malloc(plen);
	if (!tmp) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(tmp, plen, "%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", nbw_short_path(tmp, sp, sizeof(sp)),
			 strerror(errno));
		free(tmp);
		return -1;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) { /* EFBIG (file-size limit), ENOSPC (disk full), EDQUOT... */
			if (w == 0)
				errno = ENOSPC;
			break;
		}
		off += (size_t)w;
	}
	int ok = off == len && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
	int saved = errno;
	if (close(fd) != 0 && ok) {
		ok = 0;
		saved = errno;
	}
	if (!ok || rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", nbw_short_path(path, sp, sizeof(sp)),
			 strerror(ok ? errno : saved));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}


/* \p doc saying "failed": \p why, and how many of \p total measurements it keeps, written
 * atomically at \p path; 0 or -1. */
static int write_failed(json_t *doc, const char *path, const char *why, size_t total)
{
	char detail[700], e[256];
	size_t kept = json_array_size(json_object_get(doc, "measurements"));
	if (kept)
		snprintf(detail, sizeof(detail), "the results could not be written (%s); this file "
			 "keeps %zu of the %zu measurements, those of the last checkpoint that could "
			 "be", why, kept, total);
	else
		snprintf(detail, sizeof(detail), "the results could not be written (%s); none of "
			 "the %zu measurements could be kept", why, total);
	json_object_set_new(doc, "state", json_string("failed"));
	json_object_set_new(doc, "state_detail", json_string(detail));
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	int rc = text ? nbw_write_atomic(path, text, strlen(text), e, sizeof(e)) : -1;
	free(text);
	return rc;
}

/* The final results could not be written (a full disk): what is on disk must not keep
 * saying "running". The last checkpoint there is written again saying "failed" and why;
 * where even that does not fit and there is no checkpoint with measurements, the document's
 * head without its measurements. */
static void mark_failed(struct nbw_doc *d, const char *path, const char *why)
{
	char *text = NULL, e[256];
	size_t len = 0, total = json_array_size(d->measurements);
	json_t *old = nbw_readfile(path, 0, &text, &len, e, sizeof(e)) == 0
			      ? nbw_json_loadb(text, len, 0, NULL)
			      : NULL;
	free(text);
	int rc = json_is_object(old) ? write_failed(old, path, why, total) : -1;
	/* A checkpoint holding measurements is never replaced by a document holding fewer: where
	 * it cannot be rewritten it stays as it is, "running", and the lock file stays with it
	 * (nbw_rundir_close), so that readers and the next nodebw know its writer is gone. */
	bool keep = rc && json_array_size(json_object_get(old, "measurements")) > 0;
	json_decref(old);
	json_t *head = rc && !keep ? json_copy(d->root) : NULL; /* shallow: own keys change */
	if (head) {
		json_object_set_new(head, "measurements", json_array());
		json_object_del(head, "solver_runs");
		write_failed(head, path, why, total);
		json_decref(head);
	}
}

int nbw_doc_write(struct nbw_doc *d, const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create folder %s: %s", dir, strerror(errno));
		return -1;
	}
	char *text = json_dumps(d->root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (!text) {
		snprintf(err, errlen, "cannot serialise the results document");
		return -1;
	}
	/* results.json first, then results.csv from the same measurements: a run killed
	 * between the two leaves its lock file, and the next nodebw writes the CSV again
	 * (common/rundir.c). */
	char *path = NULL;
	if (asprintf(&path, "%s/results.json", dir) < 0) {
		free(text);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = nbw_write_atomic(path, text, strlen(text), err, errlen);
	free(text);
	/* A checkpoint that fails leaves the previous one, still rightly "running"; the final
	 * write that fails leaves a file that says it failed. */
	if (rc && strcmp(json_string_value(json_object_get(d->root, "state")) ?: "", "running"))
		mark_failed(d, path, err);
	free(path);
	if (rc == 0) {
		if (asprintf(&path, "%s/results.csv", dir) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		rc = nbw_doc_write_csv(d, path, err, errlen);
		free(path);
	}
	return rc;
}

struct nbw_doc *nbw_doc_load(const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (nbw_readfile(path, 0, &text, &len, err, errlen))
		return NULL;
	struct nbw_doc *d = nbw_doc_load_buffer(path, text, len, err, errlen);
	free(text);
	return d;
}

/* Each device an object with an API and an id from 0 to NBW_MAX_DEVICES - 1, no (API, id)
 * twice: the readers find devices by that pair. 0, or -1 with \p e ("devices[i]: ..."). */
static int check_devices(json_t *devices, char *e, size_t elen)
{
	size_t i, j;
	json_t *d;
	json_array_foreach(devices, i, d) {
		struct nbw_rv_device v, w;
		json_t *id = json_object_get(d, "id");
		if (!nbw_rv_device_read(d, &v) || !v.api[0] || !json_is_integer(id) || v.id < 0 ||
		    v.id >= NBW_MAX_DEVICES) {
			snprintf(e, elen, "devices[%zu]: a device needs an \"api\" and an \"id\" from 0 "
				 "to %d", i, NBW_MAX_DEVICES - 1);
			return -1;
		}
		char pe[160];
		if (nbw_results_check_pci_id(d, pe, sizeof(pe))) {
			snprintf(e, elen, "devices[%zu]: %s", i, pe);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (nbw_rv_device_read(json_array_get(devices, j), &w) && w.id == v.id &&
			    strcmp(w.api, v.api) == 0) {
				snprintf(e, elen, "devices[%zu]: %s device %d is listed twice", i,
					 v.api, v.id);
				return -1;
			}
	}
	return 0;
}

/* A solver run's times, where present, are seconds from 0 to a week: a 1e308 or a negative
 * time would turn every prediction and accuracy figure built on it into nonsense. 0, or -1
 * with \p e ("solver_runs[i]: ..."). */
static int check_solver_times(json_t *runs, char *e, size_t elen)
{
	static const char *const keys[] = {"seconds", "seconds_per_step", "k_s_per_point"};
	const double most = 7 * 86400.0;
	size_t i, j;
	json_t *r, *x;
	json_array_foreach(runs, i, r) {
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			x = json_object_get(r, keys[k]);
			if (x && !json_is_null(x) &&
			    !(json_is_number(x) && json_number_value(x) >= 0.0 &&
			      json_number_value(x) <= most)) {
				snprintf(e, elen, "solver_runs[%zu]: '%s' is not seconds from 0 to %g",
					 i, keys[k], most);
				return -1;
			}
		}
		json_array_foreach(json_object_get(r, "samples_s"), j, x)
			if (!(json_is_number(x) && json_number_value(x) >= 0.0 &&
			      json_number_value(x) <= most)) {
				snprintf(e, elen, "solver_runs[%zu]: 'samples_s'[%zu] is not seconds "
					 "from 0 to %g", i, j, most);
				return -1;
			}
	}
	return 0;
}

struct nbw_doc *nbw_doc_load_buffer(const char *path, const char *text, size_t len, char *err,
				    size_t errlen)
{
	json_error_t je;
	json_t *root = nbw_json_loadb(text, len, 0, &je);
	if (!root) {
		nbw_json_parse_error(path, &je, len, err, errlen);
		return NULL;
	}
	const char *schema = NULL;
	json_int_t version = 0;
	if (json_unpack_ex(root, &je, 0, "{s:s, s:I}", "schema", &schema, "schema_version",
			   &version) ||
	    strcmp(schema, NBW_SCHEMA_NAME) != 0) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, "schema", &line, &col);
		snprintf(err, errlen, "%s:%d:%d: not a nodebw results file (no \"schema\": \"%s\")",
			 path, line, col, NBW_SCHEMA_NAME);
		json_decref(root);
		return NULL;
	}
	if (version < 1 || version > NBW_SCHEMA_VERSION) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, "schema_version", &line, &col);
		snprintf(err, errlen, "%s:%d:%d: schema_version %lld, this nodebw reads 1 to %d",
			 path, line, col, (long long)version, NBW_SCHEMA_VERSION);
		json_decref(root);
		return NULL;
	}
	/* Every integer the readers keep in an int, checked once against what it means. */
	size_t nrules;
	const struct nbw_int_rule *rules = nbw_results_int_rules(&nrules);
	char where[256], what[256];
	if (nbw_json_check_ints(root, rules, nrules, where, sizeof(where), what, sizeof(what))) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, where, &line, &col);
		snprintf(err, errlen, "%s:%d:%d: %s: %s", path, line, col, where, what);
		json_decref(root);
		return NULL;
	}
	struct nbw_doc *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "%s: out of memory", path);
		json_decref(root);
		return NULL;
	}
	d->root = root;
	d->devices = json_incref(json_object_get(root, "devices"));
	d->skipped = json_incref(json_object_get(root, "skipped"));
	d->measurements = json_incref(json_object_get(root, "measurements"));
	if (!json_is_array(d->devices) || !json_is_array(d->skipped) ||
	    !json_is_array(d->measurements)) {
		snprintf(err, errlen, "%s:1:1: 'devices', 'skipped' and 'measurements' must be arrays",
			 path);
		nbw_doc_free(d);
		return NULL;
	}
	char de[160];
	bool bad_devices = check_devices(d->devices, de, sizeof(de)) != 0;
	if (bad_devices || check_solver_times(json_object_get(root, "solver_runs"), de,
					      sizeof(de))) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, bad_devices ? "devices" : "solver_runs", &line, &col);
		snprintf(err, errlen, "%s:%d:%d: %s", path, line, col, de);
		nbw_doc_free(d);
		return NULL;
	}
	char tp[160];
	if (nbw_results_check_topology(json_object_get(root, "topology"), tp, sizeof(tp), de,
				       sizeof(de))) {
		int line = 1, col = 1;
		nbw_json_locate(text, len, tp, &line, &col);
		snprintf(err, errlen, "%s:%d:%d: %s", path, line, col, de);
		nbw_doc_free(d);
		return NULL;
	}
	size_t i;
	json_t *m;
	json_array_foreach(d->measurements, i, m) {
		struct nbw_measurement x;
		char e[NBW_REASON_LEN], field[96] = "";
		int bad = nbw_measurement_from_json(m, &x, e, sizeof(e));
		/* What the file states beside the samples: the samples' figures, listed devices,
		 * link figures in range (results_check.c). */
		if (!bad) {
			bad = nbw_results_check_measurement(d->devices, m, &x, field, sizeof(field), e,
							    sizeof(e));
			nbw_measurement_free(&x);
		}
		if (bad) {
			char at[160];
			int line = 1, col = 1;
			snprintf(at, sizeof(at), "measurements[%zu]%s%s", i, field[0] ? "." : "",
				 field);
			if (nbw_json_locate(text, len, at, &line, &col)) {
				snprintf(at, sizeof(at), "measurements[%zu]", i);
				nbw_json_locate(text, len, at, &line, &col);
			}
			snprintf(err, errlen, "%s:%d:%d: measurements[%zu]: %s", path, line, col, i, e);
			nbw_doc_free(d);
			return NULL;
		}
	}
	return d;
}
