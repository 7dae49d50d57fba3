/* SPDX-License-Identifier: BSD-3-Clause */
#include "calllog.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text[1 << 16];
static size_t used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void calllog_add(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&lock);
	va_start(ap, fmt);
	if (used < sizeof(text)) {
		int n = vsnprintf(text + used, sizeof(text) - used, fmt, ap);
		if (n > 0)
			used += (size_t)n;
		if (used < sizeof(text) - 1) {
			text[used++] = ';';
			text[used] = '\0';
		}
	}
	va_end(ap);
	pthread_mutex_unlock(&lock);
}

void calllog_reset(void)
{
	pthread_mutex_lock(&lock);
	used = 0;
	text[0] = '\0';
	pthread_mutex_unlock(&lock);
}

const char *calllog_text(void)
{
	return text;
}

int calllog_count(const char *what)
{
	int n = 0;
	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

bool calllog_before(const char *first, const char *then)
{
	const char *a = strstr(text, first);
	return a && strstr(a + strlen(first), then);
}

static const char *save_api;

static void save_log(void)
{
	const char *dir = getenv("FAKE_CALLLOG_DIR");
	char path[4096];
	if (!dir || !*dir || !save_api)
		return;
	snprintf(path, sizeof(path), "%s/%s.log", dir, save_api);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	pthread_mutex_lock(&lock);
	fputs(text, f);
	pthread_mutex_unlock(&lock);
	fclose(f);
}

void calllog_save_at_exit(const char *api)
{
	save_api = api;
	atexit(save_log);
}
