/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Machine, software and environment state recorded with every results document.
 */
#ifndef NODEBW_SYSINFO_H
#define NODEBW_SYSINFO_H

#include <jansson.h>
#include <stdint.h>

/** hostname, cpu_model, cpus_online, kernel, arch, memory_total_bytes. */
json_t *nbw_sysinfo_machine(void);
/** compiler, build options, OpenMP version macro; backends add their runtime versions. */
json_t *nbw_sysinfo_software(void);
/** Every set variable that can change results: LIBOMP_NUM_HIDDEN_HELPER_THREADS, OMP_*,
 *  KMP_*, LIBOMPTARGET_*, OMPTARGET_*, *_VISIBLE_DEVICES, ... */
json_t *nbw_sysinfo_environment(void);
/** Whether an environment variable name is one that is recorded. */
int nbw_sysinfo_env_relevant(const char *name);
/** MemAvailable from /proc/meminfo in bytes, or 0 when unknown. */
uint64_t nbw_sysinfo_mem_available(void);

#endif
