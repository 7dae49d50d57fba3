/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief One CSV cell, safe to open in a spreadsheet: the writer of every CSV file nodebw
 *  writes (results.csv, the report's CSV tables).
 */
#ifndef NODEBW_CSVCELL_H
#define NODEBW_CSVCELL_H

#include <stdbool.h>
#include <stdio.h>

/** Write \p s as one CSV field (RFC 4180) to \p f: control characters removed (as
 *  nbw_text_clean does), a cell starting with '=', '+', '-', '@', TAB or CR that is not a
 *  number given a leading apostrophe so that no spreadsheet runs it as a formula (the OWASP
 *  rule for CSV injection), quoted when \p always_quote or when it holds a comma, a quote, a
 *  line break or outer spaces; a quote inside is written twice. */
void nbw_csv_cell(FILE *f, const char *s, bool always_quote);

/** True when \p s would start a formula in a spreadsheet: it starts with '=', '+', '-', '@',
 *  TAB or CR and is not a number (nor a lone "-"). */
bool nbw_csv_formula_like(const char *s);

#endif
