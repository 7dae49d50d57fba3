/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the report tests: a temporary folder, reading a file, removing a tree. */
#ifndef NODEBW_TESTS_REPORT_COMMON_H
#define NODEBW_TESTS_REPORT_COMMON_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline char *tmp_dir(void)
{
	const char *base = getenv("TMPDIR");
	char *t = NULL;
	if (asprintf(&t, "%s/nbw-report-XXXXXX", base && *base ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(t)) {
		free(t);
		return NULL;
	}
	return t;
}

/* The whole file, NUL-terminated, or NULL; \p len (may be NULL) gets its size. */
static inline char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0, r;
	char chunk[4096];
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (n + r + 1 > cap) {
			cap = 2 * (n + r + 1);
			char *b = realloc(buf, cap);
			if (!b)
				break;
			buf = b;
		}
		memcpy(buf + n, chunk, r);
		n += r;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static inline long file_size(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static inline int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static inline void rm_tree(char *dir)
{
	if (dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

#endif
