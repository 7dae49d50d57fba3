/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A node folder as one byte string and back, for the trip to rank 0: a tar archive made
 * and read by GNU tar (Debian's essential package tar), which already refuses members that
 * would land outside the destination. Placing a folder is atomic: unpacked beside its
 * final name, then renamed, so the launch folder never holds half a node.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet_priv.h"
#include "nodebw/rundir.h"

int nbw_fleet_pack(const char *dir, const char *tmp_path, void **buf, size_t *len, char *err,
		   size_t errlen)
{
	*buf = NULL;
	*len = 0;
	unlink(tmp_path);
	char *argv[] = { "tar", "-C", (char *)dir, "-cf", (char *)tmp_path, ".", NULL };
	struct nbw_spawn_result r;
	if (nbw_fleet_spawn(argv, NULL, NBW_FLEET_TAR_LIMIT_S, &r) != 0 || r.status != 0) {
		snprintf(err, errlen, "tar of %s failed: %s", dir, r.why[0] ? r.why : "?");
		unlink(tmp_path);
		return -1;
	}
	FILE *f = fopen(tmp_path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", tmp_path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || st.st_size <= 0 ||
	    (unsigned long long)st.st_size > NBW_FLEET_MAX_PACK) {
		snprintf(err, errlen, "%s: %lld bytes (at most %llu)", tmp_path,
			 (long long)st.st_size, (unsigned long long)NBW_FLEET_MAX_PACK);
		fclose(f);
		unlink(tmp_path);
		return -1;
	}
	*buf = malloc((size_t)st.st_size);
	if (!*buf || fread(*buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		snprintf(err, errlen, "cannot read %s", tmp_path);
		free(*buf);
		*buf = NULL;
		fclose(f);
		unlink(tmp_path);
		return -1;
	}
	*len = (size_t)st.st_size;
	fclose(f);
	unlink(tmp_path);
	return 0;
}

int nbw_fleet_place(const void *buf, size_t len, const char *nodes_dir, const char *folder,
		    char *err, size_t errlen)
{
	if (mkdir(nodes_dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", nodes_dir, strerror(errno));
		return -1;
	}
	char part[4096], tarf[4200], final[4096];
	snprintf(part, sizeof(part), "%s/.%s.part-%d", nodes_dir, folder, (int)getpid());
	snprintf(tarf, sizeof(tarf), "%s.tar", part);
	snprintf(final, sizeof(final), "%s/%s", nodes_dir, folder);
	nbw_remove_tree(part);
	if (mkdir(part, 0755) != 0) {
		snprintf(err, errlen, "cannot create %s: %s", part, strerror(errno));
		return -1;
	}
	FILE *f = fopen(tarf, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", tarf, strerror(errno));
		if (f)
			fclose(f);
		unlink(tarf);
		nbw_remove_tree(part);
		return -1;
	}
	char *argv[] = { "tar", "-C", part, "--no-same-owner", "-xf", tarf, NULL };
	struct nbw_spawn_result r;
	int rc = nbw_fleet_spawn(argv, NULL, NBW_FLEET_TAR_LIMIT_S, &r);
	unlink(tarf);
	if (rc != 0 || r.status != 0) {
		snprintf(err, errlen, "unpacking %s into %s failed: %s", folder, nodes_dir,
			 r.why[0] ? r.why : "?");
		nbw_remove_tree(part);
		return -1;
	}
	struct stat st;
	if (lstat(final, &st) == 0) {
		snprintf(err, errlen, "%s exists already: two nodes of the same name?", final);
		nbw_remove_tree(part);
		return -1;
	}
	if (rename(part, final) != 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", part, final, strerror(errno));
		nbw_remove_tree(part);
		return -1;
	}
	return 0;
}
