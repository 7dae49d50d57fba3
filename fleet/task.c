/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who this task is in a launch, from the launcher's environment, and the plan of a launch
 * (which rank measures which node). Open MPI's mpirun sets OMPI_COMM_WORLD_RANK/SIZE, a
 * PMIx launcher PMIX_RANK (its size is not in the environment, so MPI tells it), Slurm's
 * srun SLURM_PROCID/SLURM_NTASKS with SLURM_JOB_ID and SLURM_STEP_ID. A task started by
 * none of them is a fleet of one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/cli.h"
#include "nodebw/fleet.h"

static int env_int(nbw_fleet_getenv env, const char *name, int *out, char *err, size_t errlen)
{
	const char *s = env(name);
	if (!s)
		return 1;
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1000000) {
		snprintf(err, errlen, "%s=%s is not a rank or task count", name, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* The node name of the test aid: %r the rank, %h the short host name, %% a percent. */
static void expand_node(const char *pat, int rank, const char *host, char *out, size_t len)
{
	size_t o = 0;
	char shorth[256];
	snprintf(shorth, sizeof(shorth), "%s", host);
	char *dot = strchr(shorth, '.');
	if (dot)
		*dot = '\0';
	for (const char *p = pat; *p && o + 1 < len; p++) {
		char piece[300];
		if (p[0] == '%' && p[1] == 'r') {
			snprintf(piece, sizeof(piece), "%d", rank);
			p++;
		} else if (p[0] == '%' && p[1] == 'h') {
			snprintf(piece, sizeof(piece), "%s", shorth);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			snprintf(piece, sizeof(piece), "%%");
			p++;
		} else {
			piece[0] = *p;
			piece[1] = '\0';
		}
		int n = snprintf(out + o, len - o, "%s", piece);
		o += n > 0 ? (size_t)n : 0;
		if (o >= len)
			o = len - 1;
	}
	out[o] = '\0';
}

int nbw_fleet_task_from_env(struct nbw_fleet_task *t, nbw_fleet_getenv env,
			    const char *hostname, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->host, sizeof(t->host), "%s", hostname && *hostname ? hostname : "localhost");
	snprintf(t->launcher, sizeof(t->launcher), "none");
	t->rank = 0;
	t->size = 1;
	int rank = -1, size = -1, rc;
	if (env("OMPI_COMM_WORLD_RANK")) {
		snprintf(t->launcher, sizeof(t->launcher), "openmpi");
		if ((rc = env_int(env, "OMPI_COMM_WORLD_RANK", &rank, err, errlen)) < 0 ||
		    (rc = env_int(env, "OMPI_COMM_WORLD_SIZE", &size, err, errlen)) < 0)
			return NBW_EXIT_USAGE;
		const char *job = env("OMPI_MCA_ess_base_jobid");
		if (job)
			snprintf(t->job, sizeof(t->job), "ompi-%s", job);
	} else if (env("PMIX_RANK")) {
		snprintf(t->launcher, sizeof(t->launcher), "pmix");
		if ((rc = env_int(env, "PMIX_RANK", &rank, err, errlen)) < 0)
			return NBW_EXIT_USAGE;
		const char *ns = env("PMIX_NAMESPACE");
		if (ns)
			snprintf(t->job, sizeof(t->job), "pmix-%s", ns);
	} else if (env("SLURM_PROCID") && env("SLURM_STEP_ID")) {
		snprintf(t->launcher, sizeof(t->launcher), "slurm");
		if ((rc = env_int(env, "SLURM_PROCID", &rank, err, errlen)) < 0 ||
		    (rc = env_int(env, "SLURM_NTASKS", &size, err, errlen)) < 0)
			return NBW_EXIT_USAGE;
		const char *job = env("SLURM_JOB_ID"), *step = env("SLURM_STEP_ID");
		snprintf(t->job, sizeof(t->job), "slurm-%s.%s", job ? job : "0", step);
	}
	if (rank >= 0)
		t->rank = rank;
	if (size > 0)
		t->size = size;
	else if (strcmp(t->launcher, "pmix") == 0)
		t->size = -1; /* MPI says */
	if (t->size > 0 && t->rank >= t->size) {
		snprintf(err, errlen, "rank %d of a launch of %d tasks", t->rank, t->size);
		return NBW_EXIT_USAGE;
	}
	const char *pat = env(NBW_FLEET_NODE_ENV);
	if (pat) {
		expand_node(pat, t->rank, t->host, t->node, sizeof(t->node));
		t->node_from_env = true;
		if (!t->node[0]) {
			snprintf(err, errlen, "%s is empty", NBW_FLEET_NODE_ENV);
			return NBW_EXIT_USAGE;
		}
	} else {
		snprintf(t->node, sizeof(t->node), "%s", t->host);
	}
	return 0;
}

void nbw_fleet_folder_name(const char *in, char *out, size_t len)
{
	if (len == 0)
		return;
	size_t o = 0;
	for (const char *p = in ? in : ""; *p && o + 1 < len; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		out[o++] = ok ? c : '_';
	}
	out[o] = '\0';
	if (!out[0] || strcmp(out, ".") == 0 || strcmp(out, "..") == 0 || out[0] == '.') {
		/* never hidden, never the folder itself or its parent */
		char tmp[NBW_FLEET_NAME_LEN + 16];
		snprintf(tmp, sizeof(tmp), "node%s", out);
		for (char *q = tmp; *q; q++)
			if (*q == '.')
				*q = '_';
		snprintf(out, len, "%s", tmp);
	}
}

int nbw_fleet_plan_make(const char *const *names, int nranks, struct nbw_fleet_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->m = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof(*p->m));
	p->node_of = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof(int));
	if (!p->m || !p->node_of) {
		nbw_fleet_plan_free(p);
		return -1;
	}
	p->nranks = nranks;
	for (int r = 0; r < nranks; r++) {
		size_t i = 0;
		while (i < p->n && strcmp(p->m[i].node, names[r]) != 0)
			i++;
		if (i == p->n) {
			struct nbw_fleet_member *m = &p->m[p->n++];
			snprintf(m->node, sizeof(m->node), "%s", names[r]);
			m->leader = r;
		}
		p->m[i].nranks++;
		p->node_of[r] = (int)i;
	}
	/* Folder names: unique even where two node names map to the same characters. */
	for (size_t i = 0; i < p->n; i++) {
		char base[NBW_FLEET_NAME_LEN];
		nbw_fleet_folder_name(p->m[i].node, base, sizeof(base));
		bool clash = false;
		for (size_t j = 0; j < p->n && !clash; j++) {
			char other[NBW_FLEET_NAME_LEN];
			nbw_fleet_folder_name(p->m[j].node, other, sizeof(other));
			clash = j != i && strcmp(base, other) == 0;
		}
		if (clash)
			snprintf(p->m[i].folder, sizeof(p->m[i].folder), "%s-r%d", base,
				 p->m[i].leader);
		else
			snprintf(p->m[i].folder, sizeof(p->m[i].folder), "%s", base);
	}
	return 0;
}

void nbw_fleet_plan_free(struct nbw_fleet_plan *p)
{
	free(p->m);
	free(p->node_of);
	memset(p, 0, sizeof(*p));
}
