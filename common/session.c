/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/session.h"
#include "nodebw/rundir.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t nbw_stop_requested;
volatile sig_atomic_t nbw_stop_signal;

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

static void on_stop_signal(int sig)
{
	nbw_stop_requested = 1;
	nbw_stop_signal = sig;
	signal(sig, SIG_DFL); /* a second one ends the process at once */
}

void nbw_handle_stop_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	/* A signal ignored when nodebw starts stays ignored: `nohup nodebw run` keeps running
	 * when the terminal closes, and so does a job a non-interactive shell started with `&`
	 * (which ignores SIGINT for it), as POSIX tools do. */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	/* Over a file-size limit a write fails with EFBIG and is reported like a full disk,
	 * instead of the signal killing the process between a temporary file and its rename. */
	signal(SIGXFSZ, SIG_IGN);
}

const char *nbw_signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGKILL:
		return "SIGKILL";
	default:
		return "a signal";
	}
}

int nbw_stop_status(void)
{
	return 128 + (nbw_stop_signal ? nbw_stop_signal : SIGINT);
}

void nbw_child_setup(pid_t parent)
{
	/* Its own process group: the parent stops it (once), not the terminal's Ctrl-C;
	 * and it dies with the parent, whatever ends the parent. */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(128 + SIGKILL);
}

int nbw_run_child(char **argv)
{
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		nbw_child_setup(parent);
		unsetenv("NODEBW_REEXEC"); /* the child may restart itself for its own settings */
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	int status = 0;
	bool told = false;
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	pid_t w;
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 || (w < 0 && errno == EINTR)) {
		if (nbw_stop_requested && !told) {
			kill(pid, SIGTERM); /* it stops and keeps what it measured */
			told = true;
		}
		nanosleep(&tick, NULL);
	}
	if (w < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void nbw_remove_results_dir(const char *dir)
{
	nbw_remove_tree(dir);
}
