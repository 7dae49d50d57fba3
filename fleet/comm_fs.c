/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared-file-system transport: the launch folder is visible to every task (srun
 * starts them in the submission folder). Markers under <output>/.fleet/<job>/ (one folder
 * per launch, so an earlier launch's markers are never read):
 *   rank-<r>      the node name of rank r (the start barrier: all of them there);
 *   done-<folder> the node's folder is in place under <output>/nodes/;
 *   end           rank 0 has written fleet.json (the end barrier).
 * Each is written to a temporary name and renamed, so a reader never sees half a marker.
 * When the folder is not shared, the other tasks' markers never appear and the start
 * barrier says so.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fleet_priv.h"
#include "nodebw/results.h"
#include "nodebw/rundir.h"

struct nbw_fleet_comm {
	struct nbw_fleet_task *t;
	char output[4096];
	char root[4400];
	char **seen;     /* done-markers rank 0 has handed out */
	size_t nseen;
};


static int marker(struct nbw_fleet_comm *c, const char *name, const char *text, char *err,
		  size_t errlen)
{
	char path[4600];
	snprintf(path, sizeof(path), "%s/%s", c->root, name);
	return nbw_write_atomic(path, text, strlen(text), err, errlen);
}

static int fs_open(struct nbw_fleet_comm **out, struct nbw_fleet_task *t, const char *output,
		   char *err, size_t errlen)
{
	if (t->size < 1) {
		snprintf(err, errlen, "the launch's task count is unknown without MPI");
		return -1;
	}
	if (t->size > 1 && !t->job[0]) {
		snprintf(err, errlen, "%d tasks but no job identity in the environment", t->size);
		return -1;
	}
	struct nbw_fleet_comm *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->t = t;
	snprintf(c->output, sizeof(c->output), "%s", output);
	snprintf(c->root, sizeof(c->root), "%s/.fleet/%s", output, t->job[0] ? t->job : "solo");
	if (t->size == 1)
		nbw_remove_tree(c->root); /* an earlier fleet of one in this folder */
	if (nbw_mkdir_p(c->root) != 0) {
		snprintf(err, errlen, "cannot create %s: %s", c->root, strerror(errno));
		free(c);
		return -1;
	}
	*out = c;
	return 0;
}

static char *read_marker(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char buf[NBW_FLEET_NAME_LEN + 8] = "";
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

/* A finished marker named PREFIX...: not one still being written (nbw_write_atomic's
 * temporary name is the marker's with ".tmpXXXXXX" appended). */
static bool is_marker(const char *name, const char *prefix)
{
	size_t n = strlen(name), p = strlen(prefix);
	if (n <= p || strncmp(name, prefix, p) != 0)
		return false;
	return !(n > p + 10 && strncmp(name + n - 10, ".tmp", 4) == 0);
}

/* Markers named PREFIX<something> in \p dir, or -1 when it cannot be read. */
static int count_markers(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += is_marker(e->d_name, prefix);
	closedir(d);
	return n;
}

/* A shared file system is looked at once a second (every task of a launch looks). */
static void fs_nap(void)
{
	struct timespec ts = { 1, 0 };
	nanosleep(&ts, NULL);
}

static int fs_roster(struct nbw_fleet_comm *c, const char *node, char ***names,
		     double timeout_s, char *err, size_t errlen)
{
	char name[64];
	snprintf(name, sizeof(name), "rank-%d", c->t->rank);
	if (marker(c, name, node, err, errlen) != 0)
		return -1;
	int size = c->t->size;
	char **v = calloc((size_t)size, sizeof(char *));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	double deadline = nbw_fleet_now() + timeout_s;
	/* One directory listing per look, not one file per task: on a parallel file system
	 * hundreds of tasks look at once. */
	int have = 0;
	while ((have = count_markers(c->root, "rank-")) < size) {
		if (have < 0 || nbw_fleet_now() > deadline) {
			snprintf(err, errlen,
				 "only %d of %d tasks appeared in %s within %.0f s: is the launch "
				 "folder on a file system every node shares? (else build with "
				 "-Dmpi=enabled and launch with mpirun)", have < 0 ? 0 : have, size,
				 c->root, timeout_s);
			free(v);
			return -1;
		}
		fs_nap();
	}
	for (int r = 0; r < size; r++) {
		char path[4600];
		snprintf(path, sizeof(path), "%s/rank-%d", c->root, r);
		if (!(v[r] = read_marker(path))) {
			snprintf(err, errlen, "%s: unreadable, or a rank outside the launch's %d", path,
				 size);
			for (int q = 0; q < r; q++)
				free(v[q]);
			free(v);
			return -1;
		}
	}
	*names = v;
	return 0;
}

static int fs_deliver(struct nbw_fleet_comm *c, const char *folder, const void *buf,
		      size_t len, double deadline, char *err, size_t errlen)
{
	(void)deadline;
	char nodes[4200];
	snprintf(nodes, sizeof(nodes), "%s/nodes", c->output);
	if (nbw_fleet_place(buf, len, nodes, folder, err, errlen) != 0)
		return -1;
	char name[NBW_FLEET_NAME_LEN + 32];
	snprintf(name, sizeof(name), "done-%s", folder);
	return marker(c, name, folder, err, errlen);
}

static int fs_receive(struct nbw_fleet_comm *c, char *folder, size_t flen, void **buf,
		      size_t *len, double deadline, char *err, size_t errlen)
{
	*buf = NULL;
	*len = 0;
	for (;;) {
		DIR *d = opendir(c->root);
		if (!d) {
			snprintf(err, errlen, "cannot read %s: %s", c->root, strerror(errno));
			return -1;
		}
		struct dirent *e;
		char *found = NULL;
		while (!found && (e = readdir(d))) {
			if (!is_marker(e->d_name, "done-"))
				continue;
			bool old = false;
			for (size_t i = 0; i < c->nseen && !old; i++)
				old = strcmp(c->seen[i], e->d_name + 5) == 0;
			if (!old)
				found = strdup(e->d_name + 5);
		}
		closedir(d);
		if (found) {
			char **s = realloc(c->seen, (c->nseen + 1) * sizeof(char *));
			if (!s) {
				free(found);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			c->seen = s;
			c->seen[c->nseen++] = found;
			snprintf(folder, flen, "%s", found);
			return 1;
		}
		if (nbw_fleet_now() > deadline)
			return 0;
		fs_nap();
	}
}

static int fs_finish(struct nbw_fleet_comm *c, double deadline, char *err, size_t errlen)
{
	if (c->t->rank == 0)
		return marker(c, "end", "fleet.json written\n", err, errlen);
	char path[4600];
	snprintf(path, sizeof(path), "%s/end", c->root);
	while (access(path, F_OK) != 0) {
		if (nbw_fleet_now() > deadline) {
			snprintf(err, errlen, "rank 0 did not finish before the deadline");
			return -1;
		}
		fs_nap();
	}
	return 0;
}

static void fs_close(struct nbw_fleet_comm *c, bool abort)
{
	(void)abort;
	for (size_t i = 0; i < c->nseen; i++)
		free(c->seen[i]);
	free(c->seen);
	free(c);
}

const struct nbw_fleet_comm_ops nbw_fleet_comm_fs = {
	.abi = NBW_FLEET_COMM_ABI,
	.name = "fs",
	.open = fs_open,
	.roster = fs_roster,
	.deliver = fs_deliver,
	.receive = fs_receive,
	.finish = fs_finish,
	.close = fs_close,
};
