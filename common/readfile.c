// SPDX-License-Identifier: BSD-3-Clause
/* Bounded reading of user-named input files (include/nodebw/readfile.h). */
#include "nodebw/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "directory";
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	if (S_ISSOCK(m))
		return "socket";
	return "not a plain file";
}

int nbw_readfile_limit(size_t *out, char *err, size_t errlen)
{
	const char *v = getenv(NBW_READFILE_MAX_ENV);
	*out = NBW_READFILE_MAX_BYTES;
	if (!v || !*v)
		return 0;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || *end || n == 0 || v[0] == '-' || n > (unsigned long long)(SIZE_MAX / 2)) {
		snprintf(err, errlen, "%s=%s: not a byte count (a positive integer)",
			 NBW_READFILE_MAX_ENV, v);
		return -1;
	}
	*out = (size_t)n;
	return 0;
}

/* Read until end of file (sysfs and /proc files say 4096 or 0 bytes whatever they hold). */
static int read_all(int fd, const char *path, size_t limit, size_t hint, char **buf,
		    size_t *len, char *err, size_t errlen)
{
	size_t cap = (hint < limit ? hint : limit) + 1, n = 0;
	char *b = malloc(cap);
	if (!b) {
		snprintf(err, errlen, "out of memory reading %s (%zu bytes)", path, cap - 1);
		return -1;
	}
	for (;;) {
		if (n + 1 == cap) {
			if (n > limit) /* only reached when the file grew past it */
				break;
			/* Full: a file of the size its stat gave ends here; look before growing. */
			char probe;
			ssize_t more = read(fd, &probe, 1);
			if (more < 0 && errno == EINTR)
				continue;
			if (more == 0)
				break;
			if (more < 0) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				free(b);
				return -1;
			}
			size_t ncap = cap * 2 > limit + 2 ? limit + 2 : cap * 2;
			char *nb = ncap > cap ? realloc(b, ncap) : NULL;
			if (!nb) {
				free(b);
				snprintf(err, errlen, "out of memory reading %s (%zu bytes read, a "
					 "buffer of %zu bytes refused)", path, n, ncap);
				return -1;
			}
			b = nb;
			cap = ncap;
			b[n++] = probe;
			continue;
		}
		ssize_t r = read(fd, b + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			free(b);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > limit) {
		snprintf(err, errlen, "%s: more than the limit of %zu bytes (%s)", path, limit,
			 NBW_READFILE_MAX_ENV);
		free(b);
		return -1;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int nbw_readfile(const char *path, size_t limit, char **buf, size_t *len, char *err,
		 size_t errlen)
{
	*buf = NULL;
	*len = 0;
	if (!limit && nbw_readfile_limit(&limit, err, errlen))
		return -1;
	/* O_NONBLOCK: opening a FIFO without a writer must not wait for one. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	int rc = -1;
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s)", path, kind_of(st.st_mode));
	} else if (st.st_size < 0 || (unsigned long long)st.st_size > limit) {
		snprintf(err, errlen, "%s: %lld bytes, over the limit of %zu bytes (%s)", path,
			 (long long)st.st_size, limit, NBW_READFILE_MAX_ENV);
	} else {
		/* a regular file: blocking reads are fine, and clearer */
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		rc = read_all(fd, path, limit, (size_t)st.st_size, buf, len, err, errlen);
	}
	close(fd);
	return rc;
}

void nbw_last_line(const char *path, const char *skip, char *out, size_t outlen)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		size_t n = strlen(s);
		while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
			s[--n] = '\0';
		if (n && !(skip && strcmp(s, skip) == 0))
			snprintf(out, outlen, "%s", s);
	}
	fclose(f);
}
