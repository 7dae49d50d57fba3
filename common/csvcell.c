/* SPDX-License-Identifier: BSD-3-Clause */
/* One CSV cell, safe in a spreadsheet (include/nodebw/csvcell.h). */
#include "nodebw/csvcell.h"

#include <stdlib.h>
#include <string.h>

#include "nodebw/jclean.h"

bool nbw_csv_formula_like(const char *s)
{
	if (!s[0] || !strchr("=+-@\t\r", s[0]))
		return false;
	if (strcmp(s, "-") == 0)
		return false;
	char *end;
	strtod(s, &end);
	return end == s || *end != '\0';
}

void nbw_csv_cell(FILE *f, const char *s, bool always_quote)
{
	char *own = NULL;
	/* The formula test sees the raw text: a leading TAB or CR is cleaned to a space below,
	 * but a spreadsheet would have run "\t=..." too. */
	bool formula = nbw_csv_formula_like(s);
	if (nbw_text_dirty(s) && (own = strdup(s))) {
		nbw_text_clean(own);
		s = own;
	}
	formula = formula || nbw_csv_formula_like(s);
	size_t n = strlen(s);
	bool quote = always_quote || strpbrk(s, ",\"\r\n") ||
		     (n && (s[0] == ' ' || s[n - 1] == ' '));
	if (quote)
		fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"' && quote)
			fputc('"', f);
		fputc(*s, f);
	}
	if (quote)
		fputc('"', f);
	free(own);
}
