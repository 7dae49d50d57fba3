/* SPDX-License-Identifier: BSD-3-Clause */
/* Control characters out of every string read from a document (include/nodebw/jclean.h). */
#include "nodebw/jclean.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of a control string (OSC, DCS, SOS, PM, APC) starting at \p p: after its BEL, ESC \
 * or ST (U+009C), or the end of the text when it has none. */
static const unsigned char *skip_string(const unsigned char *p)
{
	for (; *p; p++) {
		if (*p == 0x07)
			return p + 1;
		if (p[0] == 0x1b && p[1] == '\\')
			return p + 2;
		if (p[0] == 0xc2 && p[1] == 0x9c)
			return p + 2;
	}
	return p;
}

/* The end of a CSI sequence whose parameters start at \p p: parameter and intermediate bytes
 * (0x20 to 0x3f), then the final byte (0x40 to 0x7e). */
static const unsigned char *skip_csi(const unsigned char *p)
{
	while (*p >= 0x20 && *p <= 0x3f)
		p++;
	return *p >= 0x40 && *p <= 0x7e ? p + 1 : p;
}

/* The sequence introduced by \p c (the byte after ESC, or the C1 control's number as
 * 0x40 + (c1 - 0x80)) continuing at \p p: its end. */
static const unsigned char *skip_sequence(unsigned char c, const unsigned char *p)
{
	switch (c) {
	case '[':
		return skip_csi(p);
	case ']': case 'P': case 'X': case '^': case '_':
		return skip_string(p);
	default:
		return p;
	}
}

/* One step at \p p: the bytes to drop (0: keep the byte; SIZE_MAX: one replaced by a space). */
static size_t control_at(const unsigned char *p, bool *space)
{
	*space = false;
	unsigned char c = *p;
	if (c == 0x1b) {
		if (!p[1])
			return 1;
		const unsigned char *q = p + 2;
		if (p[1] >= 0x20 && p[1] <= 0x2f) { /* nF: intermediates, then a final byte */
			q = p + 1;
			while (*q >= 0x20 && *q <= 0x2f)
				q++;
			return (size_t)(q - p) + (*q >= 0x30 && *q <= 0x7e);
		}
		return (size_t)(skip_sequence(p[1], q) - p);
	}
	if (c == '\t' || c == '\n' || c == '\r') {
		*space = true;
		return 1;
	}
	if (c < 0x20 || c == 0x7f)
		return 1;
	if (c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) /* C1 as UTF-8 */
		return (size_t)(skip_sequence((unsigned char)(p[1] - 0x40), p + 2) - p);
	return 0;
}

bool nbw_text_dirty(const char *s)
{
	bool space;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (control_at(p, &space))
			return true;
	return false;
}

bool nbw_text_clean(char *s)
{
	unsigned char *w = (unsigned char *)s;
	const unsigned char *p = (const unsigned char *)s;
	bool changed = false, space;
	while (*p) {
		size_t n = control_at(p, &space);
		if (!n) {
			*w++ = *p++;
			continue;
		}
		changed = true;
		if (space)
			*w++ = ' ';
		p += n;
	}
	*w = '\0';
	return changed;
}

static int clean_string(json_t *v)
{
	const char *s = json_string_value(v);
	if (!s || !nbw_text_dirty(s))
		return 0;
	char *c = strdup(s);
	if (!c)
		return -1;
	nbw_text_clean(c);
	int rc = json_string_set(v, c);
	free(c);
	return rc;
}

/* An object's keys with controls: each one replaced by its cleaned form (a clash with a key
 * already there keeps the later value, as a duplicate key in the text would). */
static int clean_keys(json_t *o)
{
	const char *k;
	json_t *v;
	void *tmp;
	json_t *moved = NULL;
	json_object_foreach_safe(o, tmp, k, v) {
		if (!nbw_text_dirty(k))
			continue;
		if (!moved && !(moved = json_object()))
			return -1;
		char *c = strdup(k);
		if (!c) {
			json_decref(moved);
			return -1;
		}
		nbw_text_clean(c);
		json_object_set(moved, c, v);
		free(c);
		json_object_del(o, k);
	}
	int rc = moved ? json_object_update(o, moved) : 0;
	json_decref(moved);
	return rc;
}

int nbw_json_clean(json_t *j)
{
	size_t i;
	const char *k;
	json_t *v;
	switch (json_typeof(j)) {
	case JSON_STRING:
		return clean_string(j);
	case JSON_ARRAY:
		json_array_foreach(j, i, v)
			if (nbw_json_clean(v))
				return -1;
		return 0;
	case JSON_OBJECT:
		if (clean_keys(j))
			return -1;
		json_object_foreach(j, k, v)
			if (nbw_json_clean(v))
				return -1;
		return 0;
	default:
		return 0;
	}
}

json_t *nbw_json_loadb(const char *text, size_t len, size_t flags, json_error_t *je)
{
	json_t *j = json_loadb(text, len, flags, je);
	if (j && nbw_json_clean(j)) {
		json_decref(j);
		if (je)
			snprintf(je->text, sizeof(je->text), "out of memory");
		return NULL;
	}
	return j;
}
