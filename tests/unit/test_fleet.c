/* SPDX-License-Identifier: BSD-3-Clause */
/* The fleet's pieces without a launcher: a task from its environment (Slurm, Open MPI,
 * PMIx, none, the node-name test aid), folder names, the plan (one measurer per node,
 * unique folders), the child with a time limit, a folder packed and placed, the sbatch
 * script. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../fleet/fleet_priv.h"
#include "nodebw/cli.h"
#include "nodebw/fleet.h"
#include "nodebw/rundir.h"

/* A fake environment: NULL-terminated name, value pairs. */
static const char *const *fake_env;
static const char *fake_getenv(const char *name)
{
	for (size_t i = 0; fake_env && fake_env[i]; i += 2)
		if (strcmp(fake_env[i], name) == 0)
			return fake_env[i + 1];
	return NULL;
}

static void task_none(void **state)
{
	(void)state;
	static const char *const env[] = { NULL };
	fake_env = env;
	struct nbw_fleet_task t;
	char err[256];
	assert_int_equal(nbw_fleet_task_from_env(&t, fake_getenv, "gpu17.site", err, sizeof(err)), 0);
	assert_string_equal(t.launcher, "none");
	assert_int_equal(t.rank, 0);
	assert_int_equal(t.size, 1);
	assert_string_equal(t.node, "gpu17.site");
	assert_string_equal(t.job, "");
}

static void task_slurm(void **state)
{
	(void)state;
	static const char *const env[] = { "SLURM_PROCID", "2", "SLURM_NTASKS", "4",
					   "SLURM_JOB_ID", "1234", "SLURM_STEP_ID", "0", NULL };
	fake_env = env;
	struct nbw_fleet_task t;
	char err[256];
	assert_int_equal(nbw_fleet_task_from_env(&t, fake_getenv, "n3", err, sizeof(err)), 0);
	assert_string_equal(t.launcher, "slurm");
	assert_int_equal(t.rank, 2);
	assert_int_equal(t.size, 4);
	assert_string_equal(t.job, "slurm-1234.0");
	assert_string_equal(t.node, "n3");
}

static void task_openmpi_and_test_aid(void **state)
{
	(void)state;
	static const char *const env[] = { "OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "3",
					   "OMPI_MCA_ess_base_jobid", "99", "SLURM_PROCID", "7",
					   "SLURM_STEP_ID", "0", NBW_FLEET_NODE_ENV, "x-%r-%h-100%%",
					   NULL };
	fake_env = env;
	struct nbw_fleet_task t;
	char err[256];
	assert_int_equal(nbw_fleet_task_from_env(&t, fake_getenv, "vm.example.org", err,
						 sizeof(err)), 0);
	assert_string_equal(t.launcher, "openmpi"); /* mpirun inside an allocation */
	assert_int_equal(t.rank, 1);
	assert_int_equal(t.size, 3);
	assert_string_equal(t.job, "ompi-99");
	assert_string_equal(t.node, "x-1-vm-100%");
	assert_true(t.node_from_env);
}

static void task_pmix_size_unknown(void **state)
{
	(void)state;
	static const char *const env[] = { "PMIX_RANK", "5", "PMIX_NAMESPACE", "ns1", NULL };
	fake_env = env;
	struct nbw_fleet_task t;
	char err[256];
	assert_int_equal(nbw_fleet_task_from_env(&t, fake_getenv, "h", err, sizeof(err)), 0);
	assert_string_equal(t.launcher, "pmix");
	assert_int_equal(t.rank, 5);
	assert_int_equal(t.size, -1); /* MPI says */
}

static void task_bad_input(void **state)
{
	(void)state;
	struct nbw_fleet_task t;
	char err[256];
	static const char *const e1[] = { "SLURM_PROCID", "two", "SLURM_NTASKS", "4",
					  "SLURM_STEP_ID", "0", NULL };
	fake_env = e1;
	assert_int_equal(nbw_fleet_task_from_env(&t, fake_getenv, "h", err, sizeof(err)),
			 NBW_EXIT_USAGE);
	assert_non_null(strstr(err, "SLURM_PROCID=two"));
	static const char *const e2[] = { "OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "3",
					  NULL };
	fake_env = e2;
	assert_int_equal(nbw_fleet_task_from_env(&t, fake_getenv, "h", err, sizeof(err)),
			 NBW_EXIT_USAGE);
	static const char *const e3[] = { NBW_FLEET_NODE_ENV, "", NULL };
	fake_env = e3;
	assert_int_equal(nbw_fleet_task_from_env(&t, fake_getenv, "h", err, sizeof(err)),
			 NBW_EXIT_USAGE);
}

static void folder_names(void **state)
{
	(void)state;
	char out[64];
	nbw_fleet_folder_name("gpu01.cluster", out, sizeof(out));
	assert_string_equal(out, "gpu01.cluster");
	nbw_fleet_folder_name("a/b c:d", out, sizeof(out));
	assert_string_equal(out, "a_b_c_d");
	nbw_fleet_folder_name("..", out, sizeof(out));
	assert_string_equal(out, "node__");
	nbw_fleet_folder_name(".hidden", out, sizeof(out));
	assert_string_equal(out, "node_hidden");
	nbw_fleet_folder_name("", out, sizeof(out));
	assert_string_equal(out, "node");
}

static void plan_nodes(void **state)
{
	(void)state;
	/* ranks 0 and 2 on n1, 1 on n2, 3 and 4 on names that reduce to one folder name */
	const char *names[] = { "n1", "n2", "n1", "a:b", "a/b" };
	struct nbw_fleet_plan p;
	assert_int_equal(nbw_fleet_plan_make(names, 5, &p), 0);
	assert_int_equal(p.n, 4);
	assert_string_equal(p.m[0].node, "n1");
	assert_int_equal(p.m[0].leader, 0);
	assert_int_equal(p.m[0].nranks, 2);
	assert_int_equal(p.m[1].leader, 1);
	assert_int_equal(p.node_of[2], 0);
	assert_int_equal(p.node_of[4], 3);
	assert_string_equal(p.m[2].folder, "a_b-r3");
	assert_string_equal(p.m[3].folder, "a_b-r4");
	assert_string_equal(p.m[0].folder, "n1");
	nbw_fleet_plan_free(&p);
}

static void spawn_limit(void **state)
{
	(void)state;
	char *sleeper[] = { "sh", "-c", "echo started; exec sleep 30", NULL };
	char log[] = "/tmp/nodebw-test-fleet-XXXXXX";
	int fd = mkstemp(log);
	assert_true(fd >= 0);
	close(fd);
	struct nbw_spawn_result r;
	assert_int_equal(nbw_fleet_spawn(sleeper, log, 0.5, &r), 0);
	assert_true(r.timed_out);
	assert_true(r.wall_s < 10);
	assert_int_equal(r.signal, 15);
	assert_non_null(strstr(r.why, "time limit"));
	char *ok[] = { "sh", "-c", "exit 3", NULL };
	assert_int_equal(nbw_fleet_spawn(ok, log, 30, &r), 0);
	assert_false(r.timed_out);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.why, "exit status 3");
	FILE *f = fopen(log, "r");
	char line[64] = "";
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "started\n");
	unlink(log);
}

static void pack_and_place(void **state)
{
	(void)state;
	char base[] = "/tmp/nodebw-test-fleet-XXXXXX";
	assert_non_null(mkdtemp(base));
	char src[256], file[300], tarf[300], nodes[300], got[400];
	snprintf(src, sizeof(src), "%s/src", base);
	mkdir(src, 0755);
	snprintf(file, sizeof(file), "%s/sub", src);
	mkdir(file, 0755);
	snprintf(file, sizeof(file), "%s/sub/results.json", src);
	FILE *f = fopen(file, "w");
	fputs("{\"x\": 1}\n", f);
	fclose(f);
	snprintf(tarf, sizeof(tarf), "%s/pack.tar", base);
	void *buf = NULL;
	size_t len = 0;
	char err[512];
	assert_int_equal(nbw_fleet_pack(src, tarf, &buf, &len, err, sizeof(err)), 0);
	assert_true(len > 0);
	assert_int_not_equal(access(tarf, F_OK), 0); /* the temporary file is gone */
	snprintf(nodes, sizeof(nodes), "%s/nodes", base);
	assert_int_equal(nbw_fleet_place(buf, len, nodes, "n1", err, sizeof(err)), 0);
	snprintf(got, sizeof(got), "%s/n1/sub/results.json", nodes);
	assert_int_equal(access(got, R_OK), 0);
	/* a second node of the same folder name is refused, nothing half-placed stays */
	assert_int_equal(nbw_fleet_place(buf, len, nodes, "n1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exists already"));
	/* garbage is not a folder */
	assert_int_equal(nbw_fleet_place("not a tar archive", 17, nodes, "n2", err, sizeof(err)),
			 -1);
	snprintf(got, sizeof(got), "%s/n2", nodes);
	assert_int_not_equal(access(got, F_OK), 0);
	free(buf);
	nbw_remove_tree(base);
}

static void sbatch_script(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *run[] = { "--full", "--solver-n", "512,640", "it's" };
	nbw_fleet_print_sbatch(f, "/opt/nodebw/bin/nodebw", 16, 1800, NULL, run, 4);
	fclose(f);
	assert_non_null(strstr(buf, "#SBATCH --nodes=16\n"));
	assert_non_null(strstr(buf, "#SBATCH --ntasks-per-node=1\n"));
	assert_non_null(strstr(buf, "#SBATCH --time=0:40:00\n"));
	assert_non_null(strstr(buf, "/opt/nodebw/bin/nodebw fleet --output "
				    "\"nodebw-fleet/slurm-$SLURM_JOB_ID\" --node-time-limit 1800 -- "
				    "--full --solver-n 512,640 'it'\\''s'\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(task_none),
		cmocka_unit_test(task_slurm),
		cmocka_unit_test(task_openmpi_and_test_aid),
		cmocka_unit_test(task_pmix_size_unknown),
		cmocka_unit_test(task_bad_input),
		cmocka_unit_test(folder_names),
		cmocka_unit_test(plan_nodes),
		cmocka_unit_test(spawn_limit),
		cmocka_unit_test(pack_and_place),
		cmocka_unit_test(sbatch_script),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
