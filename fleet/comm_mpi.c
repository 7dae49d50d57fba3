/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI transport (the plugin nodebw-fleet-mpi.so, built when meson finds MPI): no
 * shared file system is assumed. The start barrier is an MPI_Allgather of the node names;
 * each leader sends its packed folder to rank 0 as a header message (folder name and
 * length) and the bytes; the end barrier is an MPI_Ibarrier. Every wait is a test-and-sleep
 * loop (NBW_FLEET_POLL_S): a rank that waits shares its node with the measurement and must
 * not spin the way blocking MPI calls do. A deadline that passes ends the launch with
 * MPI_Abort after rank 0 has written what it has.
 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_priv.h"

enum { TAG_HEADER = 7101, TAG_DATA = 7102 };

struct header {
	char folder[NBW_FLEET_NAME_LEN + 16];
	unsigned long long len;
};

struct nbw_fleet_comm {
	struct nbw_fleet_task *t;
};

static void mpi_why(int rc, const char *what, char *err, size_t errlen)
{
	char s[MPI_MAX_ERROR_STRING] = "";
	int n = 0;
	MPI_Error_string(rc, s, &n);
	snprintf(err, errlen, "%s: %s", what, s);
}

/* Wait for \p req until \p deadline, sleeping between tests. 0, or -1 at the deadline. */
static int wait_req(MPI_Request *req, double deadline, MPI_Status *st)
{
	for (;;) {
		int done = 0;
		MPI_Test(req, &done, st ? st : MPI_STATUS_IGNORE);
		if (done)
			return 0;
		if (nbw_fleet_now() > deadline)
			return -1;
		nbw_fleet_nap();
	}
}

static int mpi_open(struct nbw_fleet_comm **out, struct nbw_fleet_task *t, const char *output,
		    char *err, size_t errlen)
{
	(void)output;
	int inited = 0;
	MPI_Initialized(&inited);
	if (!inited) {
		int provided = 0;
		int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
		if (rc != MPI_SUCCESS) {
			mpi_why(rc, "MPI_Init", err, errlen);
			return -1;
		}
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int rank = 0, size = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (t->size > 0 && (rank != t->rank || size != t->size)) {
		snprintf(err, errlen,
			 "MPI says rank %d of %d, the launcher's environment rank %d of %d (an "
			 "MPI without this launcher's support?)", rank, size, t->rank, t->size);
		return -1;
	}
	t->rank = rank;
	t->size = size;
	struct nbw_fleet_comm *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->t = t;
	*out = c;
	return 0;
}

static int mpi_roster(struct nbw_fleet_comm *c, const char *node, char ***names,
		      double timeout_s, char *err, size_t errlen)
{
	int size = c->t->size;
	char mine[NBW_FLEET_NAME_LEN] = "";
	snprintf(mine, sizeof(mine), "%s", node);
	char *all = calloc((size_t)size, NBW_FLEET_NAME_LEN);
	char **v = calloc((size_t)size, sizeof(char *));
	if (!all || !v) {
		free(all);
		free(v);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	MPI_Request req;
	int rc = MPI_Iallgather(mine, NBW_FLEET_NAME_LEN, MPI_CHAR, all, NBW_FLEET_NAME_LEN,
				MPI_CHAR, MPI_COMM_WORLD, &req);
	if (rc != MPI_SUCCESS) {
		mpi_why(rc, "MPI_Iallgather", err, errlen);
		free(all);
		free(v);
		return -1;
	}
	if (wait_req(&req, nbw_fleet_now() + timeout_s, NULL) != 0) {
		snprintf(err, errlen, "not every rank started within %.0f s", timeout_s);
		free(all);
		free(v);
		return -1;
	}
	for (int r = 0; r < size; r++) {
		all[(size_t)r * NBW_FLEET_NAME_LEN + NBW_FLEET_NAME_LEN - 1] = '\0';
		v[r] = strdup(all + (size_t)r * NBW_FLEET_NAME_LEN);
	}
	free(all);
	*names = v;
	return 0;
}

static int mpi_deliver(struct nbw_fleet_comm *c, const char *folder, const void *buf,
		       size_t len, double deadline, char *err, size_t errlen)
{
	(void)c;
	if (len > INT_MAX) {
		snprintf(err, errlen, "node folder of %zu bytes is too large for one message", len);
		return -1;
	}
	struct header h;
	memset(&h, 0, sizeof(h));
	snprintf(h.folder, sizeof(h.folder), "%s", folder);
	h.len = len;
	MPI_Request req[2];
	int rc = MPI_Isend(&h, (int)sizeof(h), MPI_BYTE, 0, TAG_HEADER, MPI_COMM_WORLD, &req[0]);
	if (rc == MPI_SUCCESS)
		rc = MPI_Isend(buf, (int)len, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &req[1]);
	if (rc != MPI_SUCCESS) {
		mpi_why(rc, "MPI_Isend", err, errlen);
		return -1;
	}
	if (wait_req(&req[0], deadline, NULL) != 0 || wait_req(&req[1], deadline, NULL) != 0) {
		snprintf(err, errlen, "rank 0 did not take the node's folder before the deadline");
		return -1;
	}
	return 0;
}

static int mpi_receive(struct nbw_fleet_comm *c, char *folder, size_t flen, void **buf,
		       size_t *len, double deadline, char *err, size_t errlen)
{
	(void)c;
	*buf = NULL;
	*len = 0;
	for (;;) {
		int flag = 0;
		MPI_Status st;
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_HEADER, MPI_COMM_WORLD, &flag, &st);
		if (flag) {
			struct header h;
			int src = st.MPI_SOURCE;
			MPI_Recv(&h, (int)sizeof(h), MPI_BYTE, src, TAG_HEADER, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			h.folder[sizeof(h.folder) - 1] = '\0';
			if (h.len > INT_MAX) {
				snprintf(err, errlen, "rank %d announced %llu bytes", src, h.len);
				return -1;
			}
			void *b = malloc(h.len ? (size_t)h.len : 1);
			if (!b) {
				snprintf(err, errlen, "out of memory for %llu bytes", h.len);
				return -1;
			}
			MPI_Request req;
			MPI_Irecv(b, (int)h.len, MPI_BYTE, src, TAG_DATA, MPI_COMM_WORLD, &req);
			if (wait_req(&req, deadline + NBW_FLEET_DELIVER_GRACE_S, NULL) != 0) {
				free(b);
				snprintf(err, errlen, "rank %d's folder did not arrive", src);
				return -1;
			}
			snprintf(folder, flen, "%s", h.folder);
			*buf = b;
			*len = (size_t)h.len;
			return 1;
		}
		if (nbw_fleet_now() > deadline)
			return 0;
		nbw_fleet_nap();
	}
}

static int mpi_finish(struct nbw_fleet_comm *c, double deadline, char *err, size_t errlen)
{
	(void)c;
	MPI_Request req;
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	if (wait_req(&req, deadline, NULL) != 0) {
		snprintf(err, errlen, "not every rank reached the end before the deadline");
		return -1;
	}
	return 0;
}

static void mpi_close(struct nbw_fleet_comm *c, bool abort)
{
	free(c);
	if (abort)
		MPI_Abort(MPI_COMM_WORLD, 3);
	else
		MPI_Finalize();
}

__attribute__((visibility("default"))) const struct nbw_fleet_comm_ops nbw_fleet_comm_mpi = {
	.abi = NBW_FLEET_COMM_ABI,
	.name = "mpi",
	.open = mpi_open,
	.roster = mpi_roster,
	.deliver = mpi_deliver,
	.receive = mpi_receive,
	.finish = mpi_finish,
	.close = mpi_close,
};
