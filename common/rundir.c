/* SPDX-License-Identifier: BSD-3-Clause */
/* A results folder owned by one process at a time (include/nodebw/rundir.h). */
#include "nodebw/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nodebw/cli.h"
#include "nodebw/jclean.h"
#include "nodebw/readfile.h"
#include "nodebw/results.h"
#include "nodebw/results_view.h"

static void add_what(char *what, size_t len, const char *fmt, const char *name)
{
	if (!what || !len)
		return;
	size_t l = strlen(what);
	if (l + 1 >= len)
		return;
	snprintf(what + l, len - l, "%s", l ? "; " : "");
	l = strlen(what);
	snprintf(what + l, len - l, fmt, name);
}

static int remove_at(int dfd, const char *name, int depth)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0);
	if (depth > 16)
		return -1;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc |= remove_at(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	return rc | unlinkat(dfd, name, AT_REMOVEDIR);
}

int nbw_remove_tree(const char *dir)
{
	return remove_at(AT_FDCWD, dir, 0);
}

/* Temporary files of nbw_write_atomic ("NAME.tmpXXXXXX"), gnuplot's unfinished images
 * ("NAME.FMT.part"), the application descriptions a run writes for its solver children
 * (".app-N.json") and the children's folders (.hht-*, .solver-*, .planes-*, .probe-*) in one
 * folder. */
static int remove_temporaries(const char *dir, char *what, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *s = e->d_name;
		/* .app-N.json: an application description the run wrote for a solver child */
		bool tmp = fnmatch("*.tmp??????", s, 0) == 0 || fnmatch("*.part", s, 0) == 0 ||
			   fnmatch(".app-*.json", s, 0) == 0;
		bool child = fnmatch(".hht-*", s, 0) == 0 || fnmatch(".solver-*", s, 0) == 0 ||
			     fnmatch(".planes-*", s, 0) == 0 || fnmatch(".probe-*", s, 0) == 0;
		if (!tmp && !child)
			continue;
		if (remove_at(dirfd(d), s, 0) == 0) {
			n++;
			add_what(what, len, child ? "removed child folder %s" : "removed %s", s);
		}
	}
	closedir(d);
	return n;
}

static char *join(const char *a, const char *b)
{
	char *p = NULL;
	return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

int nbw_rundir_recover(const char *dir, char *what, size_t len)
{
	if (what && len)
		what[0] = '\0';
	int n = remove_temporaries(dir, what, len);
	char *sub[] = { join(dir, "report"), join(dir, "report/plots"), join(dir, "report/tables") };
	for (size_t i = 0; i < 3; i++)
		if (sub[i])
			n += remove_temporaries(sub[i], what, len);
	for (size_t i = 0; i < 3; i++)
		free(sub[i]);
	char *results = join(dir, "results.json");
	char err[NBW_REASON_LEN * 2];
	struct nbw_doc *doc = results && access(results, F_OK) == 0
				      ? nbw_doc_load(results, err, sizeof(err))
				      : NULL;
	free(results);
	if (doc) {
		struct nbw_rv_doc head;
		nbw_rv_doc_read(doc->root, &head);
		if (!head.state[0] || strcmp(head.state, "running") == 0) {
			nbw_doc_set_state(doc, "killed",
					  "the run's process ended without finishing (SIGKILL, a "
					  "crash or a power loss); a later nodebw found its lock "
					  "file without an owner and marked the results");
			add_what(what, len, "%s", "marked results.json \"killed\"");
			n++;
		}
		/* results.csv is written after results.json: written again from it, the two
		 * agree whatever moment the run died at. */
		if (nbw_doc_write(doc, dir, err, sizeof(err)) == 0) {
			add_what(what, len, "%s", "wrote results.csv again from results.json");
			n++;
		}
		nbw_doc_free(doc);
	}
	return n;
}

/* 0: got the lock (stale content recovered); 1: someone holds it (\p err says who). */
static int take_lock(const char *dir, int *fd_out, char *recovered, size_t rlen, char *err,
		     size_t errlen)
{
	char sp[112];
	char *lock = join(dir, NBW_LOCK_NAME);
	if (!lock) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create the lock file %s: %s",
			 nbw_short_path(lock, sp, sizeof(sp)), strerror(errno));
		free(lock);
		return -1;
	}
	int locked;
	struct stat a, b;
	/* Locked, but the file may have been removed by its owner meanwhile: then again. */
	while ((locked = flock(fd, LOCK_EX | LOCK_NB)) == 0 && fstat(fd, &a) == 0 &&
	       (stat(lock, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev)) {
		close(fd);
		fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0) {
			snprintf(err, errlen, "cannot create the lock file %s: %s",
				 nbw_short_path(lock, sp, sizeof(sp)), strerror(errno));
			free(lock);
			return -1;
		}
	}
	if (locked != 0) {
		char owner[256] = "";
		ssize_t r = pread(fd, owner, sizeof(owner) - 1, 0);
		owner[r > 0 ? r : 0] = '\0';
		owner[strcspn(owner, "\n")] = '\0';
		snprintf(err, errlen,
			 "results folder %s is in use by another nodebw (%s); wait for it or give "
			 "another --output",
			 nbw_short_path(dir, sp, sizeof(sp)), owner[0] ? owner : "owner unknown");
		close(fd);
		free(lock);
		return 1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		nbw_rundir_recover(dir, recovered, rlen);
	char host[256] = "?", stamp[40];
	gethostname(host, sizeof(host) - 1);
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	char line[400];
	int l = snprintf(line, sizeof(line), "pid %ld on %s since %s\n", (long)getpid(), host,
			 stamp);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)l, 0) != l) {
		snprintf(err, errlen, "cannot write the lock file %s: %s",
			 nbw_short_path(lock, sp, sizeof(sp)), strerror(errno));
		close(fd);
		free(lock);
		return -1;
	}
	free(lock);
	*fd_out = fd;
	return 0;
}

/* Recover the folders beside \p dir that a killed nodebw left locked (the default folders
 * of earlier runs, nodebw-results/<time>, are siblings). */
static void recover_siblings(const char *dir)
{
	char *copy = strdup(dir);
	if (!copy)
		return;
	char *slash = strrchr(copy, '/');
	const char *parent = slash ? (slash == copy ? "/" : (*slash = '\0', copy)) : ".";
	const char *self = slash ? slash + 1 : dir;
	DIR *d = opendir(parent);
	if (d) {
		struct dirent *e;
		char lock[300];
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0 ||
			    strlen(e->d_name) > 200)
				continue;
			snprintf(lock, sizeof(lock), "%s/%s", e->d_name, NBW_LOCK_NAME);
			int fd = openat(dirfd(d), lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
			if (fd < 0)
				continue;
			if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
				char *sib = join(parent, e->d_name);
				if (sib)
					nbw_rundir_recover(sib, NULL, 0);
				free(sib);
				unlinkat(dirfd(d), lock, 0);
			}
			close(fd);
		}
		closedir(d);
	}
	free(copy);
}

int nbw_rundir_writer(const char *dir, char *owner, size_t len)
{
	if (len)
		owner[0] = '\0';
	char *lock = join(dir, NBW_LOCK_NAME);
	FILE *f = lock ? fopen(lock, "re") : NULL;
	free(lock);
	if (!f)
		return -1;
	char line[400] = "", host[256] = "", mine[256] = "";
	long pid = 0;
	bool got = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	if (len)
		snprintf(owner, len, "%s", line);
	gethostname(mine, sizeof(mine) - 1);
	/* Read without taking the lock, so that a writer starting now is never refused. */
	if (!got || sscanf(line, "pid %ld on %255s", &pid, host) != 2 || pid <= 0 ||
	    strcmp(host, mine) != 0)
		return -1;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM ? 1 : 0;
}

/* mkdir -p; a component that exists and is not a folder is an error (ENOTDIR). */
static int make_path(char *path)
{
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		int rc = mkdir(path, 0755);
		int e = errno;
		*p = c;
		if (rc != 0 && e != EEXIST) {
			errno = e;
			return -1;
		}
		if (c == '\0')
			return 0;
	}
}

int nbw_mkdir_p(const char *path)
{
	char *copy = strdup(path);
	if (!copy) {
		errno = ENOMEM;
		return -1;
	}
	int rc = make_path(copy);
	free(copy);
	struct stat st;
	if (rc == 0 && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
		errno = ENOTDIR;
		return -1;
	}
	return rc;
}

/* The results a folder holds already: refused (1, \p err says whose and how to replace them)
 * unless \p replace, which removes them (0; -1 when they cannot be removed). */
static int prior_results(const char *dir, bool replace, char *err, size_t errlen)
{
	static const char *const names[] = {"results.json", "results.csv", "calibration.json",
					    "run.log", "report"};
	char sp[112];
	char *results = join(dir, "results.json");
	if (!results)
		return -1;
	struct stat st;
	if (lstat(results, &st) != 0) {
		free(results);
		return 0;
	}
	if (!replace) {
		char whose[96] = "results that are not nodebw's", e[NBW_REASON_LEN];
		struct nbw_doc *doc = nbw_doc_load(results, e, sizeof(e));
		if (doc) {
			struct nbw_rv_doc head;
			nbw_rv_doc_read(doc->root, &head);
			const char *cmd = json_string_value(json_array_get(head.command, 1));
			snprintf(whose, sizeof(whose), "the results of 'nodebw %s'%s%s",
				 cmd && strlen(cmd) < 24 ? cmd : "?", head.state[0] ? ", " : "",
				 head.state);
			nbw_doc_free(doc);
		}
		snprintf(err, errlen, "results folder %s already holds %s (results.json); give "
			 "another --output, or add --replace to replace them",
			 nbw_short_path(dir, sp, sizeof(sp)), whose);
		free(results);
		return 1;
	}
	free(results);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = join(dir, names[i]);
		int rc = p ? nbw_remove_tree(p) : -1;
		if (rc) {
			snprintf(err, errlen, "--replace: cannot remove %s: %s",
				 p ? nbw_short_path(p, sp, sizeof(sp)) : names[i], strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

int nbw_rundir_check(const char *output, bool replace, char *err, size_t errlen)
{
	char sp[112];
	if (!output || !output[0])
		return 0; /* a new dated folder */
	char *path = strdup(output);
	if (!path) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		path[--l] = '\0';
	struct stat st;
	int rc = 0;
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--output %s exists and is not a folder",
			 nbw_short_path(path, sp, sizeof(sp)));
		rc = NBW_EXIT_USAGE;
	}
	/* Each folder above it that exists must be one (make_path would stop at ENOTDIR). */
	for (char *p = path + 1; rc == 0 && *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
			*p = '/';
			snprintf(err, errlen, "cannot create results folder %s: %s",
				 nbw_short_path(path, sp, sizeof(sp)), strerror(ENOTDIR));
			rc = NBW_EXIT_USAGE;
			break;
		}
		*p = '/';
	}
	if (rc == 0 && !replace && stat(path, &st) == 0 &&
	    prior_results(path, false, err, errlen) == 1)
		rc = NBW_EXIT_USAGE;
	free(path);
	return rc;
}

int nbw_rundir_open(const char *output, bool replace, struct nbw_rundir *rd, char *err,
		    size_t errlen)
{
	char sp[112];
	memset(rd, 0, sizeof(*rd));
	rd->lock_fd = -1;
	if (output && output[0]) {
		rd->path = strdup(output);
	} else {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		if (asprintf(&rd->path, "nodebw-results/%s", stamp) < 0)
			rd->path = NULL;
	}
	if (!rd->path) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t l = strlen(rd->path);
	while (l > 1 && rd->path[l - 1] == '/')
		rd->path[--l] = '\0';
	struct stat st;
	if (stat(rd->path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--output %s exists and is not a folder",
			 nbw_short_path(rd->path, sp, sizeof(sp)));
		free(rd->path);
		rd->path = NULL;
		return NBW_EXIT_USAGE;
	}
	if (make_path(rd->path) != 0) {
		int e = errno;
		snprintf(err, errlen, "cannot create results folder %s: %s",
			 nbw_short_path(rd->path, sp, sizeof(sp)), strerror(e));
		free(rd->path);
		rd->path = NULL;
		return e == ENOTDIR || e == ENAMETOOLONG || e == EEXIST ? NBW_EXIT_USAGE : -1;
	}
	if (access(rd->path, W_OK) != 0) {
		snprintf(err, errlen, "results folder %s is not writable: %s",
			 nbw_short_path(rd->path, sp, sizeof(sp)), strerror(errno));
		free(rd->path);
		rd->path = NULL;
		return NBW_EXIT_USAGE;
	}
	int rc = take_lock(rd->path, &rd->lock_fd, rd->recovered, sizeof(rd->recovered), err,
			   errlen);
	if (rc) {
		free(rd->path);
		rd->path = NULL;
		return rc == 1 ? NBW_EXIT_USAGE : -1;
	}
	rc = prior_results(rd->path, replace, err, errlen);
	if (rc) {
		nbw_rundir_close(rd, false);
		return rc == 1 ? NBW_EXIT_USAGE : -1;
	}
	recover_siblings(rd->path);
	return 0;
}

/* The folder's results.json says "running": its final write failed (a full disk) and even
 * marking it "failed" did not fit. */
static bool still_running(const char *dir)
{
	char *path = join(dir, "results.json"), *text = NULL, e[256];
	size_t len = 0;
	json_t *j = path && nbw_readfile(path, 0, &text, &len, e, sizeof(e)) == 0
			    ? nbw_json_loadb(text, len, 0, NULL)
			    : NULL;
	struct nbw_rv_doc head;
	nbw_rv_doc_read(j, &head);
	bool running = j && strcmp(head.state, "running") == 0;
	json_decref(j);
	free(text);
	free(path);
	return running;
}

void nbw_rundir_close(struct nbw_rundir *rd, bool remove_if_empty)
{
	if (rd->lock_fd >= 0 && rd->path) {
		char *lock = join(rd->path, NBW_LOCK_NAME);
		/* Removed while still held: nobody can take a lock being removed. Kept when the
		 * results still say "running", so that "running" never outlives its writer: the
		 * lock names this process, which is gone when a reader looks (it says so), and the
		 * next nodebw into the folder marks the results "killed". */
		if (lock && !still_running(rd->path))
			unlink(lock);
		free(lock);
		close(rd->lock_fd);
		if (remove_if_empty)
			rmdir(rd->path); /* fails, as it should, when anything was written */
	}
	rd->lock_fd = -1;
	free(rd->path);
	rd->path = NULL;
}
