/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fleet driver, run by every task of the launch:
 *   1. who am I (task.c), which transport (MPI when launched by mpirun and the plugin
 *      loads, else the shared file system), the start barrier with every rank's node name;
 *   2. the lowest rank of each node measures it: `nodebw run --output LOCAL ...` in a child
 *      with the node time limit, then fleet-node.json (how it ended) beside the results,
 *      the folder packed and handed to rank 0; the node's other ranks only wait;
 *   3. rank 0 places each node's folder under <output>/nodes/<folder>/ as it arrives and
 *      rewrites fleet.json each time, so a node that never answers loses nobody else's
 *      results; at the deadline the missing nodes are recorded with the reason;
 *   4. rank 0 writes the comparison (fleet/compare*.c) and releases the others.
 */
#include <dlfcn.h>
#include <sched.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare_priv.h"
#include "fleet_priv.h"
#include "nodebw/backends.h"
#include "nodebw/cli.h"
#include "nodebw/readfile.h"
#include "nodebw/results.h"
#include "nodebw/rundir.h"
#include "nodebw/runner.h"
#include "nodebw/version.h"

const struct nbw_fleet_comm_ops *nbw_fleet_comm_mpi_load(char *why, size_t len)
{
	/* RTLD_GLOBAL: Open MPI's own components resolve libmpi's symbols. */
	bool found;
	void *h = nbw_plugin_open("fleet", "nodebw-fleet-mpi.so", RTLD_NOW | RTLD_GLOBAL, &found,
				  why, len);
	if (!h) {
		if (!found)
			snprintf(why, len, "nodebw was built without MPI (nodebw-fleet-mpi.so not "
				 "found; meson setup -Dmpi=enabled)");
		return NULL;
	}
	const struct nbw_fleet_comm_ops *ops = dlsym(h, "nbw_fleet_comm_mpi");
	if (!ops || ops->abi != NBW_FLEET_COMM_ABI) {
		snprintf(why, len, "nodebw-fleet-mpi.so is not this nodebw's MPI plugin");
		dlclose(h);
		return NULL;
	}
	return ops;
}

static const char *env_get(const char *name)
{
	return getenv(name);
}

static void stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

struct fleet {
	const struct nbw_fleet_opts *o;
	FILE *progress;
	struct nbw_fleet_task t;
	const struct nbw_fleet_comm_ops *ops;
	struct nbw_fleet_comm *comm;
	struct nbw_fleet_plan plan;
	char output[4096];
	char started[32];
	double t0;
	/* rank 0: per node, "" while pending, else its status word */
	char (*status)[24];
	char (*reason)[320];
	bool abort;       /* end the launch (MPI_Abort) instead of leaving it */
};

static void say(struct fleet *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct fleet *f, const char *fmt, ...)
{
	if (!f->progress)
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(f->progress, "fleet [rank %d, %s] %5.0f s: %s\n", f->t.rank, f->t.node,
		nbw_fleet_now() - f->t0, line);
	fflush(f->progress);
}


/* The CPUs of \p set as a list ("0-3,8"). */
static void cpu_list(const cpu_set_t *set, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && o + 1 < len; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		int n = e > c ? snprintf(out + o, len - o, "%s%d-%d", o ? "," : "", c, e)
			      : snprintf(out + o, len - o, "%s%d", o ? "," : "", c);
		o += n > 0 ? (size_t)n : 0;
		c = e;
	}
}

/* Launchers bind their tasks (mpirun binds each rank to a core or a socket by default):
 * the node's run must have the whole node, so this task, which only waits from now on,
 * asks for every CPU (the kernel keeps it within the job's cpuset); the child inherits it.
 * \p before and \p after say which CPUs the task had and the run gets. */
static void unbind(char *before, size_t blen, char *after, size_t alen)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		cpu_list(&set, before, blen);
	else
		snprintf(before, blen, "unknown");
	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		cpu_list(&set, after, alen);
	else
		snprintf(after, alen, "unknown");
}

/* Why a node's run failed: its last "nodebw: error:" line (notes and summaries may follow
 * it in the log), else the log's last line. */
static void error_line(const char *log, char *out, size_t len)
{
	static const char tag[] = "nodebw: error: ";
	out[0] = '\0';
	FILE *f = fopen(log, "r");
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		char *e = strstr(line, tag);
		if (e) {
			e[strcspn(e, "\r\n")] = '\0';
			snprintf(out, len, "%s", e + sizeof(tag) - 1);
		}
	}
	if (f)
		fclose(f);
	if (!out[0])
		nbw_last_line(log, NULL, out, len);
}

/* Measure this node into \p dir; fleet-node.json says how it ended. Returns its status
 *  word's exit status (0 ok, 3 otherwise). */
static int measure(struct fleet *f, const struct nbw_fleet_member *m, const char *dir)
{
	nbw_remove_tree(dir);
	if (mkdir(dir, 0755) != 0) {
		say(f, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	char log[4200];
	snprintf(log, sizeof(log), "%s/fleet-node.log", dir);
	int argc = 4 + f->o->run_argc;
	char **argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!argv)
		return -1;
	argv[0] = "/proc/self/exe";
	argv[1] = "run";
	argv[2] = "--output";
	argv[3] = (char *)dir;
	for (int i = 0; i < f->o->run_argc; i++)
		argv[4 + i] = f->o->run_argv[i];
	char started[32];
	stamp(started, sizeof(started));
	char cpus_task[256], cpus_run[256];
	unbind(cpus_task, sizeof(cpus_task), cpus_run, sizeof(cpus_run));
	say(f, "measuring node %s: nodebw run into %s, time limit %.0f s, CPUs %s (this task "
	       "had %s)", m->node, dir, f->o->node_limit_s, cpus_run, cpus_task);
	struct nbw_spawn_result r;
	int rc = nbw_fleet_spawn(argv, log, f->o->node_limit_s, &r);
	const char *status = "ok";
	char reason[512] = "";
	if (rc != 0) {
		status = "failed";
		snprintf(reason, sizeof(reason), "could not start nodebw run: %s", r.why);
	} else if (r.timed_out) {
		status = "timeout";
		snprintf(reason, sizeof(reason), "%s", r.why);
	} else if (r.status == 3) {
		status = "incomplete";
		snprintf(reason, sizeof(reason), "some measurements or solver runs failed or were "
			 "not verified (exit status 3)");
	} else if (r.status != 0) {
		status = "failed";
		char tail[400];
		error_line(log, tail, sizeof(tail));
		snprintf(reason, sizeof(reason), "%s%s%s", r.why, tail[0] ? ": " : "", tail);
	}
	json_t *cmd = json_array();
	json_array_append_new(cmd, json_string("nodebw"));
	for (int i = 1; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	free(argv);
	json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:s, s:s, s:o, s:s, s:f, s:f, s:i, s:i, "
			      "s:s, s:s, s:s}",
			      "schema", "nodebw-fleet-node", "schema_version", 1, "node", m->node,
			      "folder", m->folder, "host", f->t.host, "rank", f->t.rank,
			      "launcher", f->t.launcher, "job", f->t.job, "command", cmd,
			      "started", started, "wall_s", r.wall_s, "time_limit_s",
			      f->o->node_limit_s, "exit_status", r.status, "signal", r.signal,
			      "status", status, "reason", reason, "log", "fleet-node.log");
	json_object_set_new(j, "task_cpus", json_string(cpus_task));
	json_object_set_new(j, "run_cpus", json_string(cpus_run));
	char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	json_decref(j);
	char path[4200], err[512];
	snprintf(path, sizeof(path), "%s/fleet-node.json", dir);
	if (!text || nbw_write_atomic(path, text, strlen(text), err, sizeof(err)) != 0)
		say(f, "cannot write %s", path);
	free(text);
	say(f, "node %s: %s after %.0f s%s%s", m->node, status, r.wall_s, reason[0] ? ": " : "",
	    reason);
	return strcmp(status, "ok") == 0 ? 0 : 3;
}

/* rank 0: fleet.json from the plan and what has arrived. */
static void write_fleet_json(struct fleet *f, bool finished)
{
	json_t *nodes = json_array();
	for (size_t i = 0; i < f->plan.n; i++) {
		const struct nbw_fleet_member *m = &f->plan.m[i];
		json_array_append_new(nodes, json_pack("{s:s, s:s, s:i, s:i, s:s, s:s}",
						       "node", m->node, "folder", m->folder,
						       "leader_rank", m->leader, "ranks", m->nranks,
						       "status",
						       f->status[i][0] ? f->status[i] : "pending",
						       "reason", f->reason[i]));
	}
	json_t *args = json_array();
	for (int i = 0; i < f->o->run_argc; i++)
		json_array_append_new(args, json_string(f->o->run_argv[i]));
	char now[32];
	stamp(now, sizeof(now));
	json_t *j = json_pack("{s:s, s:i, s:{s:s, s:s}, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:f, "
			      "s:f, s:o, s:o, s:s}",
			      "schema", "nodebw-fleet", "schema_version", 1, "tool", "name",
			      "nodebw", "version", NBW_VERSION, "launcher", f->t.launcher, "job",
			      f->t.job, "transport", f->ops->name, "host_of_rank_0", f->t.host,
			      "tasks", f->t.size, "started", f->started, "updated", now,
			      "elapsed_s", nbw_fleet_now() - f->t0, "node_time_limit_s",
			      f->o->node_limit_s, "run_options", args, "nodes", nodes, "state",
			      finished ? "finished" : "running");
	char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	json_decref(j);
	char path[4200], err[512];
	snprintf(path, sizeof(path), "%s/fleet.json", f->output);
	if (!text || nbw_write_atomic(path, text, strlen(text), err, sizeof(err)) != 0)
		say(f, "cannot write %s: %s", path, text ? err : "out of memory");
	free(text);
}

/* rank 0: a node folder has been placed; take its status from its fleet-node.json. */
static void arrived(struct fleet *f, const char *folder)
{
	for (size_t i = 0; i < f->plan.n; i++) {
		if (strcmp(f->plan.m[i].folder, folder) != 0)
			continue;
		char path[4400];
		snprintf(path, sizeof(path), "%s/nodes/%s/fleet-node.json", f->output, folder);
		json_t *j = nbw_fv_node_file_load(path);
		const char *name = NULL, *st = NULL, *why = NULL;
		if (j)
			nbw_fv_node_file(j, &name, &st, &why);
		snprintf(f->status[i], sizeof(f->status[i]), "%s", st ? st : "failed");
		snprintf(f->reason[i], sizeof(f->reason[i]), "%s",
			 st ? (why ? why : "") : "its fleet-node.json is missing or unreadable");
		json_decref(j);
		say(f, "node %s arrived: %s", f->plan.m[i].node, f->status[i]);
		write_fleet_json(f, false);
		return;
	}
	say(f, "a folder %s arrived that no node of the plan has", folder);
}

static size_t pending(const struct fleet *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->plan.n; i++)
		n += f->status[i][0] == '\0';
	return n;
}

/* rank 0: take the other nodes' folders until all are in or the deadline passes. */
static void collect(struct fleet *f, double deadline)
{
	char nodes[4200];
	snprintf(nodes, sizeof(nodes), "%s/nodes", f->output);
	while (pending(f) > 0) {
		char folder[NBW_FLEET_NAME_LEN + 16], err[512];
		void *buf = NULL;
		size_t len = 0;
		int got = f->ops->receive(f->comm, folder, sizeof(folder), &buf, &len, deadline, err,
					  sizeof(err));
		if (got < 0) {
			say(f, "receiving: %s", err);
			break;
		}
		if (got == 0)
			break;
		if (buf && nbw_fleet_place(buf, len, nodes, folder, err, sizeof(err)) != 0) {
			say(f, "%s", err);
			for (size_t i = 0; i < f->plan.n; i++)
				if (strcmp(f->plan.m[i].folder, folder) == 0) {
					snprintf(f->status[i], sizeof(f->status[i]), "failed");
					snprintf(f->reason[i], sizeof(f->reason[i]),
						 "its folder could not be placed: %s", err);
				}
			free(buf);
			continue;
		}
		free(buf);
		arrived(f, folder);
	}
	for (size_t i = 0; i < f->plan.n; i++) {
		if (f->status[i][0])
			continue;
		snprintf(f->status[i], sizeof(f->status[i]), "no answer");
		snprintf(f->reason[i], sizeof(f->reason[i]),
			 "nothing arrived from rank %d within %.0f s of the start (the node hung, "
			 "died or lost its connection)", f->plan.m[i].leader, deadline - f->t0);
		say(f, "node %s: %s", f->plan.m[i].node, f->reason[i]);
	}
}

static int leader_part(struct fleet *f, const struct nbw_fleet_member *m, double deadline)
{
	char local[4200], tarf[4300], err[512];
	const char *base = f->o->local_dir ? f->o->local_dir : getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	snprintf(local, sizeof(local), "%s/nodebw-fleet-%s-%s", base,
		 f->t.job[0] ? f->t.job : "solo", m->folder);
	snprintf(tarf, sizeof(tarf), "%s.tar", local);
	int rc = measure(f, m, local);
	if (rc < 0)
		return 1;
	void *buf = NULL;
	size_t len = 0;
	if (nbw_fleet_pack(local, tarf, &buf, &len, err, sizeof(err)) != 0) {
		say(f, "%s", err);
		return 1;
	}
	int out = rc;
	if (f->t.rank == 0) {
		char nodes[4200];
		snprintf(nodes, sizeof(nodes), "%s/nodes", f->output);
		if (nbw_fleet_place(buf, len, nodes, m->folder, err, sizeof(err)) != 0) {
			say(f, "%s", err);
			out = 1;
		} else {
			arrived(f, m->folder);
		}
	} else if (f->ops->deliver(f->comm, m->folder, buf, len, deadline, err,
				   sizeof(err)) != 0) {
		say(f, "handing the folder to rank 0: %s", err);
		out = 1;
	} else {
		say(f, "node %s's folder (%zu bytes) handed to rank 0", m->node, len);
	}
	free(buf);
	nbw_remove_tree(local);
	return out;
}

static int run_fleet(struct fleet *f, char *err, size_t errlen)
{
	const struct nbw_fleet_opts *o = f->o;
	char **names = NULL;
	if (f->ops->roster(f->comm, f->t.node, &names, o->start_timeout_s, err, errlen) != 0)
		return 1;
	int rc = nbw_fleet_plan_make((const char *const *)names, f->t.size, &f->plan);
	for (int r = 0; r < f->t.size; r++)
		free(names[r]);
	free(names);
	if (rc != 0) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	f->t0 = nbw_fleet_now();
	stamp(f->started, sizeof(f->started));
	const struct nbw_fleet_member *mine = &f->plan.m[f->plan.node_of[f->t.rank]];
	bool leader = mine->leader == f->t.rank;
	double deadline = f->t0 + o->node_limit_s + NBW_FLEET_KILL_GRACE_S + NBW_FLEET_DELIVER_GRACE_S;
	if (f->t.rank == 0) {
		f->status = calloc(f->plan.n, sizeof(*f->status));
		f->reason = calloc(f->plan.n, sizeof(*f->reason));
		if (!f->status || !f->reason) {
			snprintf(err, errlen, "out of memory");
			return 1;
		}
		say(f, "%zu node%s, %d task%s, transport %s, launch folder %s", f->plan.n,
		    f->plan.n == 1 ? "" : "s", f->t.size, f->t.size == 1 ? "" : "s", f->ops->name,
		    f->output);
		write_fleet_json(f, false);
	}
	int status = 0;
	if (leader)
		status = leader_part(f, mine, deadline);
	else
		say(f, "rank %d measures this node; this rank waits", mine->leader);
	if (f->t.rank == 0) {
		collect(f, deadline);
		write_fleet_json(f, true);
		size_t bad = 0;
		for (size_t i = 0; i < f->plan.n; i++)
			bad += strcmp(f->status[i], "ok") != 0;
		if (!o->no_compare) {
			char cerr[512], rdir[4300];
			json_t *sum = nbw_fleet_compare(f->output, NULL, cerr, sizeof(cerr));
			snprintf(rdir, sizeof(rdir), "%s/report", f->output);
			if (!sum || nbw_fleet_report(sum, rdir, cerr, sizeof(cerr)) != 0)
				say(f, "no comparison report: %s", cerr);
			else if (f->progress)
				nbw_fleet_print(f->progress, sum);
			json_decref(sum);
		}
		say(f, "fleet finished: %zu of %zu nodes ok; %s/fleet.json", f->plan.n - bad,
		    f->plan.n, f->output);
		status = bad ? 3 : status;
		size_t silent = 0;
		for (size_t i = 0; i < f->plan.n; i++)
			silent += strcmp(f->status[i], "no answer") == 0;
		/* A rank that never answered may hang in its node: MPI_Finalize would wait for
		 * it for ever, so MPI's launch is ended instead (the files are written). */
		if (silent && strcmp(f->ops->name, "mpi") == 0) {
			f->abort = true;
			return status;
		}
		if (f->ops->finish(f->comm, nbw_fleet_now() + 30, err, errlen) != 0)
			say(f, "%s", err);
		return status;
	}
	if (f->ops->finish(f->comm, deadline + 300, err, errlen) != 0) {
		say(f, "%s", err);
		f->abort = strcmp(f->ops->name, "mpi") == 0;
		return status ? status : 1;
	}
	return status;
}

int nbw_fleet_check_run_argv(const struct nbw_fleet_opts *o, char *err, size_t errlen)
{
	for (int i = 0; i < o->run_argc; i++)
		if (strcmp(o->run_argv[i], "--output") == 0 ||
		    strncmp(o->run_argv[i], "--output=", 9) == 0) {
			snprintf(err, errlen, "the fleet names each node's folder: give --output to "
				 "'nodebw fleet', not to the run");
			return -1;
		}
	return 0;
}

int nbw_fleet_run(const struct nbw_fleet_opts *o, FILE *progress, char *err, size_t errlen)
{
	struct fleet f;
	memset(&f, 0, sizeof(f));
	f.o = o;
	f.progress = progress;
	f.t0 = nbw_fleet_now();
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	int rc = nbw_fleet_task_from_env(&f.t, env_get, host, err, errlen);
	if (rc)
		return rc;
	if (nbw_fleet_check_run_argv(o, err, errlen))
		return NBW_EXIT_USAGE;
	const char *want = o->transport ? o->transport : "auto";
	char why[512] = "";
	if (strcmp(want, "fs") == 0) {
		f.ops = &nbw_fleet_comm_fs;
	} else if (strcmp(want, "mpi") == 0 ||
		   (strcmp(want, "auto") == 0 && (strcmp(f.t.launcher, "openmpi") == 0 ||
						  strcmp(f.t.launcher, "pmix") == 0))) {
		f.ops = nbw_fleet_comm_mpi_load(why, sizeof(why));
		if (!f.ops && strcmp(want, "mpi") == 0) {
			snprintf(err, errlen, "--transport mpi: %s", why);
			return NBW_EXIT_USAGE;
		}
		if (!f.ops)
			f.ops = &nbw_fleet_comm_fs;
	} else if (strcmp(want, "auto") == 0) {
		f.ops = &nbw_fleet_comm_fs;
	} else {
		snprintf(err, errlen, "--transport %s: give auto, mpi or fs", want);
		return NBW_EXIT_USAGE;
	}
	if (o->output && *o->output) {
		snprintf(f.output, sizeof(f.output), "%s", o->output);
	} else if (f.t.job[0]) {
		snprintf(f.output, sizeof(f.output), "nodebw-fleet/%s", f.t.job);
	} else {
		char s[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(s, sizeof(s), "%Y%m%d-%H%M%S", &tm);
		snprintf(f.output, sizeof(f.output), "nodebw-fleet/%s", s);
	}
	if (f.t.rank == 0) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/fleet.json", f.output);
		if (access(path, F_OK) == 0) {
			snprintf(err, errlen, "%s holds a fleet already: give another --output",
				 f.output);
			return NBW_EXIT_USAGE;
		}
	}
	if (f.t.rank == 0 && nbw_mkdir_p(f.output) != 0) {
		snprintf(err, errlen, "cannot create the launch folder %s: %s", f.output,
			 strerror(errno));
		return NBW_EXIT_USAGE; /* a file in the way, no permission: the user's --output */
	}
	if (f.ops->open(&f.comm, &f.t, f.output, err, errlen) != 0)
		return 1;
	if (why[0])
		say(&f, "not using MPI: %s; the launch folder must be shared", why);
	rc = run_fleet(&f, err, errlen);
	if (f.abort && f.progress)
		fprintf(f.progress, "fleet [rank %d, %s]: ending the launch (MPI_Abort, status 3): "
			"a rank never answered\n", f.t.rank, f.t.node);
	f.ops->close(f.comm, f.abort);
	nbw_fleet_plan_free(&f.plan);
	free(f.status);
	free(f.reason);
	return rc;
}
