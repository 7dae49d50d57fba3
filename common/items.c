/* SPDX-License-Identifier: BSD-3-Clause */
/* Comma lists of option values (nodebw/items.h): below the option parsers (cli.c) and the
 * size lists (sizes.c), which both use it. */
#include "nodebw/items.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nbw_cli_each_item(const char *s, const char *what,
		      int (*one)(const char *item, void *ctx, char *err, size_t errlen), void *ctx,
		      char *err, size_t errlen)
{
	if (!*s) {
		snprintf(err, errlen, "%s: empty list", what);
		return -1;
	}
	size_t n = strlen(s);
	if (s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,")) {
		snprintf(err, errlen, "%s '%s' has an empty item (a comma at either end, or two "
				      "in a row)", what, s);
		return -1;
	}
	char *copy = strdup(s);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = 0;
	for (char *t = copy, *next; t && rc == 0; t = next) {
		next = strchr(t, ',');
		if (next)
			*next++ = '\0';
		rc = one(t, ctx, err, errlen);
	}
	free(copy);
	return rc;
}
