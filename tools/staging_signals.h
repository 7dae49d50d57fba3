/* SPDX-License-Identifier: BSD-3-Clause */
/* Signals while a report is staged beside \p out: tools/staging_signals.c. */
#ifndef NODEBW_TOOLS_STAGING_SIGNALS_H
#define NODEBW_TOOLS_STAGING_SIGNALS_H

/** From now on SIGINT, SIGTERM and SIGHUP remove this process's staging folder beside
 *  \p out, then end the process as the signal would. */
void nbw_clean_staging_on_signals(const char *out);

#endif
