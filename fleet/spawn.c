/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A child process with a time limit: the node's `nodebw run`, and tar for packing a node
 * folder. Its stdout and stderr go to a log file; it has its own process group, so at the
 * limit SIGTERM reaches the child and anything it started (the run ends the
 * current size after a verified repetition and keeps its results), and SIGKILL follows
 * after a grace period.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet_priv.h"
#include "nodebw/runner.h"
#include "nodebw/session.h"

int nbw_fleet_spawn(char *const argv[], const char *log_path, double limit_s,
		    struct nbw_spawn_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = -1;
	fflush(stdout);
	fflush(stderr);
	int logfd = -1;
	if (log_path) {
		logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (logfd < 0) {
			snprintf(r->why, sizeof(r->why), "cannot open %s: %s", log_path,
				 strerror(errno));
			return -1;
		}
	}
	double t0 = nbw_now();
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(r->why, sizeof(r->why), "fork: %s", strerror(errno));
		if (logfd >= 0)
			close(logfd);
		return -1;
	}
	if (pid == 0) {
		nbw_child_setup(parent);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		if (logfd >= 0) {
			dup2(logfd, 1);
			dup2(logfd, 2);
		}
		unsetenv("NODEBW_REEXEC");
		if (strchr(argv[0], '/'))
			execv(argv[0], argv);
		else
			execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (logfd >= 0)
		close(logfd);
	int status = 0;
	bool termed = false;
	double killed_at = -1;
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(r->why, sizeof(r->why), "waitpid: %s", strerror(errno));
			return -1;
		}
		double now = nbw_now();
		if (!termed && ((limit_s > 0 && now - t0 > limit_s) || nbw_stop_requested)) {
			r->timed_out = !nbw_stop_requested;
			r->stopped = nbw_stop_requested != 0;
			kill(-pid, SIGTERM);
			kill(pid, SIGTERM);
			termed = true;
			killed_at = now;
		} else if (termed && now - killed_at > NBW_FLEET_KILL_GRACE_S) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			killed_at = now + 1e9; /* once */
		}
		nanosleep(&tick, NULL);
	}
	r->wall_s = nbw_now() - t0;
	if (WIFEXITED(status)) {
		r->status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		r->status = 128 + r->signal;
	}
	if (r->timed_out)
		snprintf(r->why, sizeof(r->why), "stopped at the time limit of %.0f s", limit_s);
	else if (r->stopped)
		snprintf(r->why, sizeof(r->why), "stopped: the fleet task was asked to stop");
	else if (r->signal)
		snprintf(r->why, sizeof(r->why), "killed by signal %d", r->signal);
	else if (r->status != 0)
		snprintf(r->why, sizeof(r->why), "exit status %d", r->status);
	return 0;
}
