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
/** What the OpenMP and vendor runtimes may still need of the address space under a limit
 *  (thread stacks, per-thread malloc arenas of 64 MiB each, their own pools): it is kept
 *  out of the room given to buffers, so that a runtime never meets the limit first (libomp
 *  aborts or crashes when it does). */
#define NBW_RUNTIME_RESERVE_BYTES (512ull << 20)
/** Bytes of host memory buffers may still take: the least of MemAvailable and the room
 *  under RLIMIT_AS and RLIMIT_DATA (less the runtime reserve; \p reusable bytes already
 *  held, e.g. idle pooled buffers, count as room). \p what names the limit that binds. 0
 *  when nothing is known. */
uint64_t nbw_sysinfo_mem_room(uint64_t reusable, char *what, size_t len);
/** "only 265.28 MiB" for a room of nbw_sysinfo_mem_room, or "nothing" when none is left. */
const char *nbw_sysinfo_room_label(uint64_t room, char *buf, size_t len);

#endif
