/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Host threads that issue the copies of concurrent streams.
 *
 * The threads live as long as the pool: libomp 19 aborts ("new_gtid <=
 * __kmp_hidden_helper_threads_num") when a new root thread registers after another root
 * thread has exited once hidden helpers run, so streams reuse the same threads from series
 * to series. A program that probes more than once keeps one pool for all of them (the
 * probe context does). The pool grows on demand and never shrinks before it is destroyed.
 */
#ifndef NODEBW_WORKERS_H
#define NODEBW_WORKERS_H

struct nbw_workers;

/** An empty pool (threads start on first use). NULL when out of memory. */
struct nbw_workers *nbw_workers_new(void);
/** Stop and join every thread, then free the pool. */
void nbw_workers_free(struct nbw_workers *w);
/** Run fn(args[i]) on threads 0..n-1 at once and wait for all of them. 0, or -1 when the
 *  threads cannot be started. */
int nbw_workers_run(struct nbw_workers *w, unsigned n, void *(*fn)(void *), void **args);

#endif
