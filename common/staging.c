/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Staging folders (include/nodebw/staging.h): a report is written into OUT.tmpXXXXXX and put
 * in place at the end. Each holds a marker naming its writer, so that a signal handler can
 * remove its own process's and a later start the ones whose writer is gone. The sweep uses
 * system calls only (no allocation, no stdio): async-signal-safe.
 */
#include "nodebw/staging.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A directory entry as getdents64 returns it. */
struct dent64 {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* The marker's text: "pid N on HOST\n". */
static size_t marker_text(long pid, char *buf, size_t len)
{
	char host[256];
	if (gethostname(host, sizeof(host)) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	/* No stdio: digits by hand (the handler builds the same text). */
	char digits[24];
	int n = 0;
	do {
		digits[n++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid > 0 && n < 20);
	size_t w = 0;
	const char *parts[] = {"pid ", NULL, " on ", host, "\n"};
	for (size_t p = 0; p < 5; p++) {
		if (!parts[p]) {
			while (n > 0 && w + 1 < len)
				buf[w++] = digits[--n];
			continue;
		}
		for (const char *s = parts[p]; *s && w + 1 < len; s++)
			buf[w++] = *s;
	}
	if (len)
		buf[w] = '\0';
	return w;
}

int nbw_staging_mark(const char *stage, char *err, size_t errlen)
{
	char path[4400], text[300];
	snprintf(path, sizeof(path), "%s/%s", stage, NBW_STAGING_MARKER);
	size_t n = marker_text((long)getpid(), text, sizeof(text));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd) == 0 ? 0 : -1;
}

/* Remove everything below the open folder \p dfd (\p depth levels at most), then nothing
 * else: the caller removes the folder itself. */
static void clear_at(int dfd, int depth)
{
	char buf[4096];
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		if (n <= 0)
			return;
		bool removed = false;
		for (long off = 0; off < n;) {
			struct dent64 *e = (struct dent64 *)(buf + off);
			off += e->reclen;
			if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
				continue;
			if (unlinkat(dfd, e->name, 0) == 0) {
				removed = true;
				continue;
			}
			if (depth <= 0)
				continue;
			int sub = openat(dfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0)
				continue;
			clear_at(sub, depth - 1);
			close(sub);
			if (unlinkat(dfd, e->name, AT_REMOVEDIR) == 0)
				removed = true;
		}
		if (removed) /* entries moved: read the folder again from its start */
			lseek(dfd, 0, SEEK_SET);
	}
}

/* Whether the marker in folder \p fd says: a writer that is \p only_pid (> 0), or (0) one
 * that is gone from this host. */
static bool sweepable(int fd, long only_pid)
{
	char text[300], mine[300];
	int m = openat(fd, NBW_STAGING_MARKER, O_RDONLY | O_CLOEXEC);
	if (m < 0)
		return false; /* not ours to judge: no marker */
	ssize_t n = read(m, text, sizeof(text) - 1);
	close(m);
	if (n <= 4 || strncmp(text, "pid ", 4) != 0)
		return false;
	text[n] = '\0';
	long pid = 0;
	const char *p = text + 4;
	while (*p >= '0' && *p <= '9' && pid < 100000000)
		pid = pid * 10 + (*p++ - '0');
	if (pid <= 0)
		return false;
	/* The same text for that pid on this host: the marker is this host's. */
	marker_text(pid, mine, sizeof(mine));
	if (strcmp(text, mine) != 0)
		return false;
	if (only_pid > 0)
		return pid == only_pid;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int nbw_staging_sweep(const char *out, long only_pid)
{
	char parent[4096];
	size_t len = strlen(out);
	while (len > 1 && out[len - 1] == '/')
		len--;
	if (len == 0 || len >= sizeof(parent))
		return 0;
	memcpy(parent, out, len);
	parent[len] = '\0';
	char *slash = strrchr(parent, '/');
	const char *base;
	if (!slash) {
		base = parent;
	} else {
		*slash = '\0';
		base = slash + 1;
	}
	char prefix[512];
	size_t bl = strlen(base);
	if (bl + 5 >= sizeof(prefix))
		return 0;
	memcpy(prefix, base, bl);
	memcpy(prefix + bl, ".tmp", 5);
	int dfd = open(!slash ? "." : parent[0] ? parent : "/",
		       O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	int count = 0;
	char buf[4096];
	long n;
	/* Names are collected first: removing while reading moves the entries. */
	char names[8][256];
	int nn = 0;
	while (nn < 8 && (n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n && nn < 8;) {
			struct dent64 *e = (struct dent64 *)(buf + off);
			off += e->reclen;
			size_t el = strlen(e->name);
			/* OUT.tmpXXXXXX, and OUT.tmpXXXXXX.old: the earlier output a writer
			 * moved aside where the folders could not be exchanged */
			if ((el == bl + 10 || (el == bl + 14 && !strcmp(e->name + bl + 10, ".old"))) &&
			    strncmp(e->name, prefix, bl + 4) == 0) {
				memcpy(names[nn], e->name, el + 1);
				nn++;
			}
		}
	}
	for (int i = 0; i < nn; i++) {
		int fd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (sweepable(fd, only_pid)) {
			clear_at(fd, 4);
			if (unlinkat(dfd, names[i], AT_REMOVEDIR) == 0)
				count++;
		}
		close(fd);
	}
	close(dfd);
	return count;
}
