/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A report folder written beside its place and put there when complete (include/nodebw/
 * report.h): the staging folder OUT.tmpXXXXXX carries its writer's marker (common/
 * staging.c), so that an interrupted command's handler, or the next start, removes it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodebw/report.h"
#include "nodebw/rundir.h"
#include "nodebw/staging.h"

/* A folder the report may replace whole: absent, empty, or an earlier report (report.md
 * in it). A folder holding anything else is written into in place, as before. */
static bool replaceable(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT;
	bool empty = true, report = false;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		empty = false;
		report |= strcmp(e->d_name, "report.md") == 0;
	}
	closedir(d);
	return empty || report;
}

int nbw_report_stage_open(const char *dir, char *stage, size_t len, char *err, size_t errlen)
{
	/* What an earlier writer, killed, left beside it. */
	nbw_staging_sweep(dir, 0);
	if (!replaceable(dir))
		return 0;
	snprintf(stage, len, "%s.tmpXXXXXX", dir);
	if (!mkdtemp(stage)) {
		snprintf(err, errlen, "cannot create a folder beside %s: %s", dir, strerror(errno));
		return -1;
	}
	chmod(stage, 0755);
	if (nbw_staging_mark(stage, err, errlen)) {
		nbw_remove_tree(stage);
		return -1;
	}
	return 1;
}

/* The staged report \p stage in \p dir's place; the earlier one (if any) goes. */
static int swap_in(const char *stage, const char *dir, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st) != 0) {
		if (rename(stage, dir) == 0)
			return 0;
	} else if (renameat2(AT_FDCWD, stage, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
		nbw_remove_tree(stage); /* now the earlier report */
		return 0;
	} else {
		/* The earlier report is moved aside as STAGE.old, marked first, so that a writer
		 * killed before it removes it leaves a folder the next start sweeps. */
		char old[4200], marker[4400], e2[256];
		snprintf(old, sizeof(old), "%s.old", stage);
		snprintf(marker, sizeof(marker), "%s/%s", dir, NBW_STAGING_MARKER);
		int saved = errno;
		if (nbw_staging_mark(dir, e2, sizeof(e2)) == 0) {
			if (rename(dir, old) == 0) {
				if (rename(stage, dir) == 0) {
					nbw_remove_tree(old);
					return 0;
				}
				saved = errno;
				rename(old, dir); /* put the earlier report back */
			} else {
				saved = errno;
			}
			unlink(marker);
		}
		errno = saved;
	}
	snprintf(err, errlen, "cannot put the report in place at %s: %s", dir, strerror(errno));
	return -1;
}

int nbw_report_stage_close(const char *stage, const char *dir, int rc, char *err, size_t errlen)
{
	if (rc == 0) {
		char marker[4400];
		snprintf(marker, sizeof(marker), "%s/%s", stage, NBW_STAGING_MARKER);
		unlink(marker);
		rc = swap_in(stage, dir, err, errlen);
	}
	if (rc) {
		nbw_remove_tree(stage);
		/* The message names the report folder, not the staging one. */
		char *at = strstr(err, stage), msg[1024];
		if (at) {
			snprintf(msg, sizeof(msg), "%.*s%s%s", (int)(at - err), err, dir,
				 at + strlen(stage));
			snprintf(err, errlen, "%s", msg);
		}
	}
	return rc;
}
