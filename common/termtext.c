/* SPDX-License-Identifier: BSD-3-Clause */
/* Text for a terminal (include/nodebw/termtext.h): wrapping at word boundaries, the width. */
#include "nodebw/termtext.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int nbw_term_text_columns(const char *s, size_t len)
{
	int n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* Bytes of \p s (up to \p len) that fit \p cols columns. */
static size_t fit_bytes(const char *s, size_t len, int cols)
{
	int n = 0;
	size_t i = 0;
	for (; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++n > cols)
			break;
	}
	return i;
}

int nbw_term_wrap(FILE *f, const char *first, const char *rest, const char *text, int width)
{
	const char *lead = first ? first : "";
	rest = rest ? rest : "";
	int lines = 0;
	size_t lf = strlen(lead), lr = strlen(rest);
	if (width <= (int)(lf > lr ? lf : lr))
		width = NBW_TERM_COLUMNS;
	do {
		size_t line = strcspn(text, "\n");
		int room = width - nbw_term_text_columns(lead, strlen(lead));
		size_t n = line;
		if (nbw_term_text_columns(text, line) > room) {
			size_t cut = fit_bytes(text, line, room);
			/* The last space at or before the cut, so that a word is not split. */
			n = cut;
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = cut;
		}
		/* No trailing blanks on the line written. */
		size_t w = n;
		while (w > 0 && text[w - 1] == ' ')
			w--;
		if (f)
			fprintf(f, "%s%.*s\n", w ? lead : "", (int)w, text);
		lines++;
		text += n;
		while (*text == ' ')
			text++;
		if (*text == '\n')
			text++;
		lead = rest;
	} while (*text);
	return lines;
}

int nbw_term_wrapf(FILE *f, const char *first, const char *rest, int width, const char *fmt,
		   ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = NULL;
	int rc = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return 0;
	int lines = nbw_term_wrap(f, first, rest, text, width);
	free(text);
	return lines;
}

int nbw_term_columns(int fd)
{
	struct winsize ws;
	if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0)
		return NBW_TERM_COLUMNS;
	return ws.ws_col < NBW_TERM_COLUMNS ? ws.ws_col : NBW_TERM_COLUMNS;
}
