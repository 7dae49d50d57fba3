/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `nodebw compare [--json] A B`: two runs of a node (results files or run folders) compared
 * path by path (include/nodebw/runcmp.h computes it; this file loads and prints).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd-compare.h"
#include "nodebw/cli.h"
#include "nodebw/results.h"
#include "nodebw/runcmp.h"
#include "nodebw/termtext.h"
#include "nodebw/sizes.h"

bool nbw_run_compare_is_run(const char *path)
{
	struct stat st;
	char f[4200];
	if (stat(path, &st) != 0)
		return false;
	if (S_ISREG(st.st_mode))
		return true;
	snprintf(f, sizeof(f), "%s/results.json", path);
	return S_ISDIR(st.st_mode) && stat(f, &st) == 0;
}

/* \p arg as a results file: itself, or the results.json of a run folder. NULL with one
 * line on stderr. */
static struct nbw_doc *load_run(const char *arg, char *file, size_t len)
{
	struct stat st;
	char err[1024];
	if (stat(arg, &st) != 0) {
		fprintf(stderr, "nodebw: error: %s: no such results file or run folder\n", arg);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(file, len, "%s/results.json", arg);
		if (stat(file, &st) != 0) {
			fprintf(stderr, "nodebw: error: %s has no results.json: name a results file "
					"or a run folder (see 'nodebw compare --help')\n", arg);
			return NULL;
		}
	} else {
		snprintf(file, len, "%s", arg);
	}
	struct nbw_doc *d = nbw_doc_load(file, err, sizeof(err));
	if (!d)
		fprintf(stderr, "nodebw: error: %s\n", err);
	return d;
}

static void size_text(long long bytes, char *out, size_t len)
{
	if (bytes > 0)
		nbw_size_label((uint64_t)bytes, out, len);
	else
		snprintf(out, len, "no size");
}

static void run_line(const char *which, const struct nbw_rc_run *r)
{
	printf("  %s: %s\n     host %s, created %s, nodebw %s, revision %s\n", which, r->file,
	       r->host[0] ? r->host : "unknown", r->created[0] ? r->created : "unknown",
	       r->version[0] ? r->version : "unknown",
	       r->revision[0] ? r->revision : "not recorded");
}

/* "7.27 [7.20-7.31]", or why there is no figure. */
static void side_text(const struct nbw_rc_path *p, const struct nbw_rc_side *s, bool is_b,
		      char *out, size_t len)
{
	if (!s->present) {
		char sz[32];
		size_text(p->bytes, sz, sizeof(sz));
		snprintf(out, len, is_b && p->b_other_size ? "not at %s" : "none at %s", sz);
	} else if (isfinite(s->lo_gbps) && isfinite(s->hi_gbps)) {
		snprintf(out, len, "%.2f [%.2f-%.2f]", s->gbps, s->lo_gbps, s->hi_gbps);
	} else {
		snprintf(out, len, "%.2f [no interval]", s->gbps);
	}
}

static void print_cmp(const struct nbw_runcmp *c)
{
	char sa[32], sb[32];
	size_text(c->a.comparison_bytes, sa, sizeof(sa));
	size_text(c->b.comparison_bytes, sb, sizeof(sb));
	printf("nodebw compare: run B against run A (B/A above 1: B is faster)\n");
	run_line("A", &c->a);
	run_line("B", &c->b);
	if (c->hosts_differ)
		printf("warning: A and B ran on different hosts (%s, %s): this compares two "
		       "machines, not one node over time\n", c->a.host, c->b.host);
	if (c->a.comparison_bytes != c->b.comparison_bytes)
		printf("Compared at %s, A's comparison size (B's own is %s): a path B did not "
		       "measure at %s says so, never a figure from another size.\n", sa, sb, sa);
	else
		printf("Compared at %s, the comparison size of both runs.\n", sa);
	nbw_term_wrapf(stdout, "", "  ", 100, "Bandwidth in GB/s = 1e9 bytes per second at %s, "
		       "[range]; %s.", sa, NBW_RC_RULE);
	for (int v = 0; v < NBW_RC_NVERDICTS; v++) {
		if (!c->counts[v])
			continue;
		printf("\n%s: %zu\n", nbw_rc_verdict_heading((enum nbw_rc_verdict)v), c->counts[v]);
		/* Every path is at the one size named above: the rows stay within 100 columns. */
		printf("  %-45s %-21s %-21s %s\n", "path", "A GB/s [range]", "B GB/s [range]",
		       "B/A");
		for (size_t i = 0; i < c->npaths; i++) {
			const struct nbw_rc_path *p = &c->paths[i];
			if ((int)p->verdict != v)
				continue;
			char a[64], b[64], r[16] = "-";
			side_text(p, &p->a, false, a, sizeof(a));
			side_text(p, &p->b, true, b, sizeof(b));
			if (isfinite(p->ratio))
				snprintf(r, sizeof(r), "%.2f", p->ratio);
			printf("  %-45s %-21s %-21s %s\n", p->name, a, b, r);
			if (p->headline && p->a.present && p->b.present && strcmp(p->a.how, p->b.how))
				printf("  %-45s (A: %s; B: %s)\n", "", p->a.how, p->b.how);
		}
	}
	if (!c->npaths)
		printf("\nNo bandwidth figure in either run.\n");
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: nodebw compare [--json] A B\n"
		"\n"
		"Compare run B with run A (say, this run with the last one, after a driver, BIOS\n"
		"or cable change). A and B are each a results file (results.json, written by\n"
		"'nodebw run' or 'nodebw probe') or a run folder holding one. Every headline (per\n"
		"API: HtoD, DtoH, P2P, every device at once) and every path of the summary (per\n"
		"API, direction, mode, host memory or peer access) at A's comparison size: A and B\n"
		"in GB/s, the ratio B/A and whether the difference is beyond both runs' noise.\n"
		"Listed: the paths that got worse first (the worst first), then better, then\n"
		"unchanged (within noise), then the paths only one run has there. When the runs'\n"
		"comparison sizes differ, B is read at A's size, and a path B did not measure\n"
		"there says so. The top names both files, their hosts, dates and nodebw versions\n"
		"and revisions, with a warning when the hosts differ.\n"
		"\n"
		"Beyond noise: %s.\n"
		"\n"
		"Options:\n"
		"  --json      the comparison as JSON on stdout, nothing else there (doc/usage.md)\n"
		"  -h, --help  this text\n"
		"\n"
		"One argument is a fleet folder: 'nodebw compare FLEET_DIR' (see 'nodebw compare\n"
		"--help' with a fleet folder, or doc/fleet.md).\n"
		"Bandwidth in GB/s = 1e9 bytes per second.\n"
		"\n"
		"Example:\n"
		"  nodebw compare results/before results/after\n",
		NBW_RC_RULE);
}

int nbw_run_compare_main(int argc, char **argv)
{
	const char *args[2] = { NULL, NULL };
	int nargs = 0;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "nodebw: error: %s is not an option of 'nodebw compare A B' "
					"(see 'nodebw compare --help')\n", a);
			return NBW_EXIT_USAGE;
		} else if (nargs == 2) {
			fprintf(stderr, "nodebw: error: compare takes two runs (A B) or one fleet "
					"folder, not more (see 'nodebw compare --help')\n");
			return NBW_EXIT_USAGE;
		} else {
			args[nargs++] = a;
		}
	}
	if (nargs != 2) {
		fprintf(stderr, "nodebw: error: name two runs to compare, A and B (see 'nodebw "
				"compare --help')\n");
		return NBW_EXIT_USAGE;
	}
	char fa[4200], fb[4200];
	struct nbw_doc *da = load_run(args[0], fa, sizeof(fa));
	struct nbw_doc *db = da ? load_run(args[1], fb, sizeof(fb)) : NULL;
	if (!da || !db) {
		nbw_doc_free(da);
		return NBW_EXIT_USAGE;
	}
	struct nbw_runcmp c;
	int rc = nbw_runcmp(da->root, fa, db->root, fb, &c);
	nbw_doc_free(da);
	nbw_doc_free(db);
	if (rc) {
		fprintf(stderr, "nodebw: error: out of memory comparing %s and %s\n", fa, fb);
		return 1;
	}
	if (json) {
		json_t *j = nbw_runcmp_json(&c);
		char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
		if (text)
			puts(text);
		free(text);
		json_decref(j);
		rc = text ? 0 : 1;
	} else {
		print_cmp(&c);
	}
	nbw_runcmp_release(&c);
	return rc;
}
