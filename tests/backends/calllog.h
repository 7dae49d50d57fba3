/* SPDX-License-Identifier: BSD-3-Clause */
/* The call log of the fake vendor runtimes: every faked call appends "name(args);" so a test
 * can check which calls a backend made, and in what order. */
#ifndef NODEBW_TEST_CALLLOG_H
#define NODEBW_TEST_CALLLOG_H

#include <stdbool.h>
#include <stddef.h>

__attribute__((format(printf, 1, 2))) void calllog_add(const char *fmt, ...);
void calllog_reset(void);
const char *calllog_text(void);
/** Occurrences of \p what in the log. */
int calllog_count(const char *what);
/** True when \p then occurs somewhere after the first \p first. */
bool calllog_before(const char *first, const char *then);
/** For the fake plugins: at exit, the log goes to $FAKE_CALLLOG_DIR/\p api.log when that
 *  variable is set (a test of the real nodebw reads which calls a command made). */
void calllog_save_at_exit(const char *api);

#endif
