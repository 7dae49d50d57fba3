/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void nbw_reexec_hidden_helpers(int count, char **argv)
{
	if (count < 0)
		return;
	char want[16];
	snprintf(want, sizeof(want), "%d", count);
	const char *have = getenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS");
	if (have && strcmp(have, want) == 0 && !getenv("LIBOMP_USE_HIDDEN_HELPER_TASK"))
		return;
	if (getenv("NODEBW_REEXEC")) {
		fprintf(stderr, "nodebw: warning: could not set the hidden-helper count\n");
		return;
	}
	setenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS", want, 1);
	unsetenv("LIBOMP_USE_HIDDEN_HELPER_TASK"); /* it would override the count */
	setenv("NODEBW_REEXEC", "1", 1);
	execv("/proc/self/exe", argv);
	fprintf(stderr, "nodebw: warning: cannot restart to set hidden helpers: %s\n",
		strerror(errno));
}

int nbw_results_dir(const char *output, char *dir, size_t len, char *err, size_t errlen)
{
	if (output && output[0]) {
		snprintf(dir, len, "%s", output);
	} else {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		if (mkdir("nodebw-results", 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot create nodebw-results: %s", strerror(errno));
			return -1;
		}
		snprintf(dir, len, "nodebw-results/%s", stamp);
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create results folder %s: %s", dir, strerror(errno));
		return -1;
	}
	if (access(dir, W_OK)) {
		snprintf(err, errlen, "results folder %s is not writable", dir);
		return -1;
	}
	return 0;
}

int nbw_run_child(char **argv)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		unsetenv("NODEBW_REEXEC"); /* the child may restart itself for its own settings */
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void nbw_remove_results_dir(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/results.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	unlink(path);
	rmdir(dir);
}
