/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Host threads that issue the copies of concurrent streams.
 *
 * Threads are started on demand and never end: libomp 19 aborts ("new_gtid <=
 * __kmp_hidden_helper_threads_num") when a new root thread registers after another root
 * thread has exited once hidden helpers run, and a thread that ran OpenMP code can hang in
 * libomp's teardown when it exits; so streams reuse the same threads from series to series,
 * and a pool that started threads stays parked until the process exits. A program keeps one
 * pool (the probe context does).
 */
#ifndef NODEBW_WORKERS_H
#define NODEBW_WORKERS_H

struct nbw_workers;

/** An empty pool (threads start on first use). NULL when out of memory. */
struct nbw_workers *nbw_workers_new(void);
/** Free a pool that never started a thread; one that did is parked for good (see above). */
void nbw_workers_free(struct nbw_workers *w);
/** Run fn(args[i]) on threads 0..n-1 at once and wait for all of them. 0, or -1 when the
 *  threads cannot be started. */
int nbw_workers_run(struct nbw_workers *w, unsigned n, void *(*fn)(void *), void **args);

#endif
