/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The environment handed to the OpenMP runtime, checked before it starts.
 *
 * LLVM 19's libomptarget parses LIBOMPTARGET_DEBUG and LIBOMPTARGET_INFO with std::stoi and
 * ends the process (std::terminate) on a value that is not an integer; libomp aborts on
 * OMP_STACKSIZE or OMP_NUM_THREADS values it cannot create threads for, and hangs on some
 * it cannot parse (KMP_STACKSIZE and GOMP_STACKSIZE too), and spins for ever when
 * OMP_THREAD_LIMIT, KMP_DEVICE_THREAD_LIMIT or KMP_ALL_THREADS is below its hidden-helper
 * team. nodebw reads these variables first and refuses such a value with one line naming it
 * (doc/usage.md, "The OpenMP runtime's environment").
 */
#ifndef NODEBW_OMPENV_H
#define NODEBW_OMPENV_H

#include <stddef.h>

/** What the limits are judged against (the machine's, or a test's). */
struct nbw_ompenv_limits {
	long cpus;                  /**< CPUs online */
	unsigned long long memory;  /**< physical memory, bytes */
	/** The most hidden helpers the command starts whatever the variable says (nodebw run's
	 *  hidden-helper sweep: 8); 0 for the others. */
	long helpers_min;
};

/** The machine's limits (sysconf). */
void nbw_ompenv_machine(struct nbw_ompenv_limits *l);

/** Check the variables of \p getenv_fn (getenv, or a test's) against \p l. 0, or
 *  NBW_EXIT_USAGE with one line in \p err naming the variable, its value and what is wanted. */
int nbw_ompenv_check(const char *(*getenv_fn)(const char *), const struct nbw_ompenv_limits *l,
		     char *err, size_t errlen);

#endif
