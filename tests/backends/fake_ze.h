/* SPDX-License-Identifier: BSD-3-Clause */
/* Controls and counters of the fake Level Zero loader (fake_ze.c). */
#ifndef NODEBW_TEST_FAKE_ZE_H
#define NODEBW_TEST_FAKE_ZE_H

extern int fake_ze_ndev;         /* devices of the one driver */
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
