/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a value sits in a JSON text: jansson keeps no positions for parsed values, so a
 * check that finds a bad field (after parsing succeeded) scans the text again along the
 * field's path ("transfers.p2p", "measurements[3].bytes") to name its line and column.
 */
#include "nodebw/jsonpos.h"
#include "nodebw/readfile.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scan {
	const char *p, *end;
	int line, col;
};

static void adv(struct scan *s)
{
	if (s->p >= s->end)
		return;
	if (*s->p == '\n') {
		s->line++;
		s->col = 1;
	} else {
		s->col++;
	}
	s->p++;
}

static void ws(struct scan *s)
{
	while (s->p < s->end && isspace((unsigned char)*s->p))
		adv(s);
}

/* Skip a string; when \p out is given, copy up to outlen-1 raw bytes of it. */
static int skip_string(struct scan *s, char *out, size_t outlen)
{
	size_t n = 0;
	if (s->p >= s->end || *s->p != '"')
		return -1;
	adv(s);
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\') {
			adv(s);
			if (s->p >= s->end)
				return -1;
		}
		if (out && n + 1 < outlen)
			out[n++] = *s->p;
		adv(s);
	}
	if (out)
		out[n] = '\0';
	if (s->p >= s->end)
		return -1;
	adv(s);
	return 0;
}

static int skip_value(struct scan *s);

static int skip_container(struct scan *s, char open, char close)
{
	(void)open;
	adv(s);
	ws(s);
	if (s->p < s->end && *s->p == close) {
		adv(s);
		return 0;
	}
	for (;;) {
		ws(s);
		if (close == '}') {
			if (skip_string(s, NULL, 0))
				return -1;
			ws(s);
			if (s->p >= s->end || *s->p != ':')
				return -1;
			adv(s);
		}
		if (skip_value(s))
			return -1;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			adv(s);
			continue;
		}
		if (s->p < s->end && *s->p == close) {
			adv(s);
			return 0;
		}
		return -1;
	}
}

static int skip_value(struct scan *s)
{
	ws(s);
	if (s->p >= s->end)
		return -1;
	switch (*s->p) {
	case '"':
		return skip_string(s, NULL, 0);
	case '{':
		return skip_container(s, '{', '}');
	case '[':
		return skip_container(s, '[', ']');
	default:
		while (s->p < s->end && !strchr(",]} \t\r\n", *s->p))
			adv(s);
		return 0;
	}
}

/* Move to the member \p key of the object at s->p (or element \p index of the array). */
static int step_into(struct scan *s, const char *key, long index)
{
	ws(s);
	char want = key ? '{' : '[';
	if (s->p >= s->end || *s->p != want)
		return -1;
	adv(s);
	for (long i = 0;; i++) {
		ws(s);
		if (s->p < s->end && (*s->p == '}' || *s->p == ']'))
			return -1;
		if (key) {
			char name[256];
			if (skip_string(s, name, sizeof(name)))
				return -1;
			ws(s);
			if (s->p >= s->end || *s->p != ':')
				return -1;
			adv(s);
			ws(s);
			if (strcmp(name, key) == 0)
				return 0;
		} else if (i == index) {
			return 0;
		}
		if (skip_value(s))
			return -1;
		ws(s);
		if (s->p >= s->end || *s->p != ',')
			return -1;
		adv(s);
	}
}

int nbw_json_locate(const char *text, size_t len, const char *path, int *line, int *col)
{
	struct scan s = {text, text + len, 1, 1};
	const char *q = path;
	while (*q) {
		char key[256];
		if (*q == '[') {
			char *e;
			long idx = strtol(q + 1, &e, 10);
			if (*e != ']' || step_into(&s, NULL, idx))
				return -1;
			q = e + 1;
		} else {
			size_t n = strcspn(q, ".[");
			if (n == 0 || n >= sizeof(key))
				return -1;
			memcpy(key, q, n);
			key[n] = '\0';
			if (step_into(&s, key, 0))
				return -1;
			q += n;
		}
		if (*q == '.')
			q++;
	}
	ws(&s);
	*line = s.line;
	*col = s.col;
	return 0;
}

int nbw_json_locate_file(const char *file, const char *path, int *line, int *col)
{
	char *buf, why[256];
	size_t n;
	if (nbw_readfile(file, 0, &buf, &n, why, sizeof(why)))
		return -1;
	int rc = nbw_json_locate(buf, n, path, line, col);
	free(buf);
	return rc;
}

void nbw_json_check_error(const char *path, const char *text, size_t len, const char *what,
			  char *err, size_t errlen)
{
	char where[160];
	size_t n = strcspn(what, ":");
	int line, col;
	snprintf(where, sizeof(where), "%.*s", (int)(n < sizeof(where) ? n : 0), what);
	if (where[0] && nbw_json_locate(text, len, where, &line, &col) == 0)
		snprintf(err, errlen, "%s:%d:%d: %s", path, line, col, what);
	else
		snprintf(err, errlen, "%s: %s", path, what);
}
