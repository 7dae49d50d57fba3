/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SIGINT, SIGTERM and SIGHUP while a report is written (nodebw report, nodebw compare): the
 * staging folder beside the output (OUT.tmpXXXXXX, include/nodebw/staging.h) goes, and the
 * output folder when it is empty (made for the report), then the
 * signal does what it would have done. The output and pid are this command's, kept here in
 * tools/ (the library keeps no process-wide state); the sweep is async-signal-safe.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/staging.h"
#include "staging_signals.h"

static char output[4096];
static long self;

static void on_signal(int sig)
{
	nbw_staging_sweep(output, self);
	rmdir(output); /* the folder made for the report, when nothing else is there */
	signal(sig, SIG_DFL);
	raise(sig);
}

void nbw_clean_staging_on_signals(const char *out)
{
	snprintf(output, sizeof(output), "%s", out);
	self = (long)getpid();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}
