/* SPDX-License-Identifier: BSD-3-Clause */
/* Accepting a node from the command line: see check.h. */
#include "check.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/cli.h"
#include "nodebw/config.h"
#include "nodebw/link_health.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"

/* Take argv[i] (an option with its value) out of argv. */
static void drop(int *argc, char **argv, int i, int n)
{
	memmove(&argv[i], &argv[i + n], (size_t)(*argc - i - n + 1) * sizeof(char *));
	*argc -= n;
}

static int percent(const char *opt, const char *s, double lo, double hi, double *out,
		   char *err, size_t errlen)
{
	double v;
	if (nbw_cli_parse_decimal(s, lo, hi, &v, opt, "percent", err, errlen))
		return -1;
	*out = v / 100.0;
	return 0;
}

int nbw_check_extract(int *argc, char **argv, bool with_check, struct nbw_check_opts *co,
		      char *err, size_t errlen)
{
	memset(co, 0, sizeof(*co));
	co->tolerance = NBW_REF_TOLERANCE_DEFAULT;
	co->fraction = NBW_THEORETICAL_FRACTION_DEFAULT;
	for (int i = 1; i < *argc;) {
		const char *a = argv[i];
		const char *name = with_check ? "--check" : "--thresholds";
		bool valued = !strcmp(a, name) || !strcmp(a, "--references") ||
			      !strcmp(a, "--tolerance") || !strcmp(a, "--min-fraction");
		if (!strcmp(a, "--")) /* what follows is not ours */
			break;
		if (!strcmp(a, "--all") || !strcmp(a, "--strict")) {
			*(a[2] == 'a' ? &co->all : &co->strict) = true;
			drop(argc, argv, i, 1);
			continue;
		}
		if (!valued) {
			i++;
			continue;
		}
		const char *v = i + 1 < *argc ? argv[i + 1] : NULL;
		if (!v || !v[0]) {
			snprintf(err, errlen, "option '%s' needs a value", a);
			return -1;
		}
		if (!strcmp(a, name)) {
			co->thresholds = v;
			co->on = true;
		} else if (!strcmp(a, "--references")) {
			co->references = v;
		} else if (!strcmp(a, "--tolerance")) {
			if (percent(a, v, 0, 99, &co->tolerance, err, errlen))
				return -1;
		} else if (percent(a, v, 1, 100, &co->fraction, err, errlen)) {
			return -1;
		}
		drop(argc, argv, i, 2);
	}
	return 0;
}

/* The shipped table: $NODEBW_REFERENCES, beside the executable (an installed tree or the
 * portable bundle: bin/../share/nodebw), the configured data folder, the source tree. */
static bool find_references(char *path, size_t len)
{
	const char *env = getenv("NODEBW_REFERENCES");
	if (env && env[0]) {
		snprintf(path, len, "%s", env);
		return true;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			char rel[PATH_MAX + 64], *real;
			snprintf(rel, sizeof(rel), "%s/../share/nodebw/references.json", exe);
			if (access(rel, R_OK) == 0 && (real = realpath(rel, NULL))) {
				snprintf(path, len, "%s", real);
				free(real);
				return true;
			}
		}
	}
	snprintf(path, len, "%s/references.json", NBW_DATA_DIR);
	if (access(path, R_OK) == 0)
		return true;
	snprintf(path, len, "%s/data/references.json", NBW_SOURCE_ROOT);
	return access(path, R_OK) == 0;
}

struct nbw_criteria *nbw_check_criteria(const struct nbw_check_opts *co, char *note,
					size_t notelen, char *err, size_t errlen)
{
	note[0] = '\0';
	struct nbw_criteria *c = nbw_criteria_new();
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	nbw_criteria_set_limits(c, co->tolerance, co->fraction);
	if (co->thresholds && nbw_criteria_add_thresholds(c, co->thresholds, err, errlen))
		goto fail;
	char path[PATH_MAX + 64];
	if (co->references && strcmp(co->references, "none") == 0)
		return c;
	if (co->references) {
		if (nbw_criteria_add_references(c, co->references, err, errlen))
			goto fail;
	} else if (find_references(path, sizeof(path))) {
		if (nbw_criteria_add_references(c, path, err, errlen))
			goto fail;
	} else {
		snprintf(note, notelen, "the shipped table of published figures (references.json) "
					"was not found; judging by thresholds and theoretical figures "
					"only (NODEBW_REFERENCES names it)");
	}
	return c;
fail:
	nbw_criteria_free(c);
	return NULL;
}

int nbw_check_cmd_criteria(int *argc, char **argv, char ***av, struct nbw_criteria **cr)
{
	struct nbw_check_opts co;
	char err[1024], note[300];
	*cr = NULL;
	*av = calloc((size_t)*argc + 1, sizeof(char *));
	if (!*av) {
		fprintf(stderr, "nodebw: error: out of memory\n");
		return 1;
	}
	memcpy(*av, argv, (size_t)*argc * sizeof(char *));
	if (nbw_check_extract(argc, *av, true, &co, err, sizeof(err))) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return NBW_EXIT_USAGE;
	}
	*cr = nbw_check_criteria(&co, note, sizeof(note), err, sizeof(err));
	if (!*cr && co.on) {
		fprintf(stderr, "nodebw: error: %s\n", err);
		return NBW_EXIT_USAGE;
	}
	return 0;
}

int nbw_check_results(json_t *root, const struct nbw_criteria *cr,
		      const struct nbw_check_opts *co, bool json, FILE *f, const char *dir,
		      char *err, size_t errlen)
{
	struct nbw_rv_doc h;
	nbw_rv_doc_read(root, &h);
	json_t *v = nbw_verdicts(h.devices, h.measurements, cr);
	if (v && nbw_link_health_apply(v, h.topology, h.devices, nbw_criteria_link_health(cr))) {
		json_decref(v);
		v = NULL;
	}
	if (!v) {
		snprintf(err, errlen, "out of memory judging the results");
		return -1;
	}
	int rc = 0;
	if (dir) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof(path), "%s/check.json", dir);
		char *text = json_dumps(v, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
		rc = text ? nbw_write_atomic(path, text, strlen(text), err, errlen) : -1;
		if (!text)
			snprintf(err, errlen, "out of memory");
		free(text);
	}
	if (json) {
		json_dumpf(v, f, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
		fputc('\n', f);
	} else {
		nbw_verdicts_print(f, v, co->all);
	}
	if (rc == 0)
		rc = nbw_check_status(v, co->strict);
	json_decref(v);
	return rc;
}

int nbw_check_status(json_t *v, bool strict)
{
	struct nbw_pv_verdicts pv;
	nbw_pv_verdicts(v, &pv);
	if (strcmp(pv.outcome, NBW_OUTCOME_FAIL) == 0)
		return 1;
	if (strcmp(pv.outcome, NBW_OUTCOME_NOT_JUDGED) == 0)
		return NBW_CHECK_EXIT_NOT_JUDGED;
	if (strcmp(pv.outcome, NBW_OUTCOME_WARNING) == 0)
		return strict ? 1 : 0;
	return 0;
}
