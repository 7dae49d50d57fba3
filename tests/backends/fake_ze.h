/* SPDX-License-Identifier: BSD-3-Clause */
/* Controls and counters of the fake Level Zero loader (fake_ze.c). */
#ifndef NODEBW_TEST_FAKE_ZE_H
#define NODEBW_TEST_FAKE_ZE_H

extern int fake_ze_ndev;         /* devices of the one driver */
/* The command queue groups every device reports (fake_ze_reset: ONE_COPY_GROUP). */
enum fake_ze_layout {
	FAKE_ZE_ONE_COPY_GROUP,  /* 0: one copy-only group with one queue */
	FAKE_ZE_PVC,             /* 1: as Data Center GPU Max: 0 compute (4 queues), 1 main copy
				  *    (1 queue), 2 link copy (7 queues) */
	FAKE_ZE_PVC_LINK_FIRST,  /* 2: the same, the link group (ordinal 1) before the main one */
	FAKE_ZE_COMPUTE_ONLY,    /* 3: one compute group (2 queues), no copy-only group */
	FAKE_ZE_COPY_AND_COMPUTE, /* 4: 0 copy-only (1 queue), 1 compute (1 queue) */
};
extern enum fake_ze_layout fake_ze_layout;
/* zeEventHostSynchronize(UINT64_MAX) on an event nothing signals within 2 s (another
 * thread may): a real driver would never return. The fake counts it and returns
 * ZE_RESULT_NOT_READY. */
extern int fake_ze_hangs;
/* Command lists or events destroyed while a copy queued on them still waited. */
extern int fake_ze_busy_destroys;
/* Copies queued behind an unsignalled event, not run yet. */
int fake_ze_pending(void);
void fake_ze_reset(void);

#endif
