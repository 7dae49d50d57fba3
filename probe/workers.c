/* SPDX-License-Identifier: BSD-3-Clause */
/* The stream threads (include/nodebw/workers.h). */
#include "nodebw/workers.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "nodebw/probe.h"

struct nbw_workers {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	pthread_t tid[NBW_MAX_STREAMS];
	unsigned started;          /* threads running (detached, never ended) */
	unsigned gen, active, pending;
	void *(*fn)(void *);
	void *args[NBW_MAX_STREAMS];
};

struct start {
	struct nbw_workers *w;
	unsigned me;
	unsigned seen;             /* the generation before the thread's first task */
};

static void *worker_main(void *arg)
{
	struct nbw_workers *w = ((struct start *)arg)->w;
	unsigned me = ((struct start *)arg)->me, seen = ((struct start *)arg)->seen;
	free(arg);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->gen == seen)
			pthread_cond_wait(&w->work, &w->mu);
		seen = w->gen;
		if (me >= w->active)
			continue;
		void *(*fn)(void *) = w->fn;
		void *a = w->args[me];
		pthread_mutex_unlock(&w->mu);
		fn(a);
		pthread_mutex_lock(&w->mu);
		if (--w->pending == 0)
			pthread_cond_signal(&w->done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct nbw_workers *nbw_workers_new(void)
{
	struct nbw_workers *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->done, NULL);
	return w;
}

void nbw_workers_free(struct nbw_workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	bool started = w->started > 0;
	pthread_mutex_unlock(&w->mu);
	if (!started) {
		pthread_cond_destroy(&w->work);
		pthread_cond_destroy(&w->done);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return;
	}
	/* Threads that ran OpenMP code are never ended: libomp 19 hangs in its thread-exit
	 * teardown (a worker joined here waited forever in libomp) or aborts when a root thread
	 * registers after another exited. They stay parked on the pool's condition variable,
	 * which is therefore kept, until the process exits. */
}

/* Called with the lock held: start threads until there are \p n. */
static int grow(struct nbw_workers *w, unsigned n)
{
	while (w->started < n) {
		struct start *a = malloc(sizeof(*a));
		if (!a)
			return -1;
		*a = (struct start){ .w = w, .me = w->started, .seen = w->gen };
		if (pthread_create(&w->tid[w->started], NULL, worker_main, a)) {
			free(a);
			return -1;
		}
		pthread_detach(w->tid[w->started]);
		w->started++;
	}
	return 0;
}

int nbw_workers_run(struct nbw_workers *w, unsigned n, void *(*fn)(void *), void **args)
{
	if (n > NBW_MAX_STREAMS)
		return -1;
	pthread_mutex_lock(&w->mu);
	if (grow(w, n)) {
		pthread_mutex_unlock(&w->mu);
		return -1;
	}
	w->fn = fn;
	w->active = n;
	w->pending = n;
	for (unsigned i = 0; i < n; i++)
		w->args[i] = args[i];
	w->gen++;
	pthread_cond_broadcast(&w->work);
	while (w->pending)
		pthread_cond_wait(&w->done, &w->mu);
	pthread_mutex_unlock(&w->mu);
	return 0;
}
