/* SPDX-License-Identifier: BSD-3-Clause */
#include "nodebw/sizes.h"

#include "nodebw/items.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HALO_N_FIRST 512
#define HALO_N_LAST 1280
#define HALO_N_STEP 128

static const struct {
	const char *suffix;
	double mult;
} suffixes[] = {
	{ "", 1.0 },       { "B", 1.0 },
	{ "K", 1e3 },      { "KB", 1e3 },     { "M", 1e6 },     { "MB", 1e6 },
	{ "G", 1e9 },      { "GB", 1e9 },     { "T", 1e12 },    { "TB", 1e12 },
	{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	{ "TiB", 1099511627776.0 },
};

int nbw_size_parse(const char *s, uint64_t *out, char *err, size_t errlen)
{
	while (s && isspace((unsigned char)*s))
		s++;
	if (!s || !*s) {
		snprintf(err, errlen, "empty size");
		return -1;
	}
	if (*s == '-') {
		snprintf(err, errlen, "size '%s' is negative", s);
		return -1;
	}
	if (!isdigit((unsigned char)*s) && *s != '.') {
		snprintf(err, errlen, "size '%s' is not a number (examples: 4096, 64KiB, 2MB, 1GiB)", s);
		return -1;
	}
	/* Digits with at most one decimal point: no hex, no exponent. */
	size_t len = 0, dots = 0;
	while (isdigit((unsigned char)s[len]) || (s[len] == '.' && ++dots == 1))
		len++;
	char num[64];
	if (len == 0 || len >= sizeof(num)) {
		snprintf(err, errlen, "size '%s' is not a number", s);
		return -1;
	}
	memcpy(num, s, len);
	num[len] = '\0';
	errno = 0;
	double v = strtod(num, NULL);
	const char *end = s + len;
	if (errno || !isfinite(v)) {
		snprintf(err, errlen, "size '%s' is not a number", s);
		return -1;
	}
	char suf[8];
	size_t k = 0;
	while (end[k] && !isspace((unsigned char)end[k]) && k + 1 < sizeof(suf)) {
		suf[k] = end[k];
		k++;
	}
	suf[k] = '\0';
	const char *rest = end + k;
	while (isspace((unsigned char)*rest))
		rest++;
	double mult = -1.0;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		/* Decimal suffixes are case-insensitive (k, kb); binary ones need the "iB". */
		if (strcasecmp(suf, suffixes[i].suffix) == 0) {
			mult = suffixes[i].mult;
			break;
		}
	}
	if (mult < 0.0 || *rest) {
		snprintf(err, errlen, "size '%s' has an unknown suffix (use B, K, M, G, KiB, MiB, GiB)", s);
		return -1;
	}
	double bytes = v * mult;
	if (bytes >= 18446744073709551615.0) {
		snprintf(err, errlen, "size '%s' is too large", s);
		return -1;
	}
	if (bytes < 1.0) {
		snprintf(err, errlen, "size '%s' is zero; sizes must be at least 1 byte", s);
		return -1;
	}
	if (bytes != floor(bytes)) {
		snprintf(err, errlen, "size '%s' is not a whole number of bytes", s);
		return -1;
	}
	*out = (uint64_t)bytes;
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	const struct nbw_size *x = a, *y = b;
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static void sort_unique(struct nbw_sizes *s)
{
	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof(s->v[0]), cmp_size);
	size_t w = 0;
	for (size_t r = 0; r < s->n; r++) {
		if (w > 0 && s->v[w - 1].bytes == s->v[r].bytes) {
			if (!s->v[w - 1].halo_n)
				s->v[w - 1].halo_n = s->v[r].halo_n;
			continue;
		}
		s->v[w++] = s->v[r];
	}
	s->n = w;
}

static int push(struct nbw_sizes *s, uint64_t bytes, int halo_n)
{
	struct nbw_size *v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	s->v = v;
	s->v[s->n].bytes = bytes;
	s->v[s->n].halo_n = halo_n;
	s->n++;
	return 0;
}

void nbw_sizes_tag_halo(struct nbw_sizes *s)
{
	for (size_t i = 0; i < s->n; i++) {
		s->v[i].halo_n = 0;
		for (int n = HALO_N_FIRST; n <= HALO_N_LAST; n += HALO_N_STEP)
			if (s->v[i].bytes == 8ull * (uint64_t)n * (uint64_t)n)
				s->v[i].halo_n = n;
	}
}

static int one_size(const char *t, void *ctx, char *err, size_t errlen)
{
	uint64_t b;
	return nbw_size_parse(t, &b, err, errlen) || push(ctx, b, 0) ? -1 : 0;
}

int nbw_sizes_parse_list(const char *list, struct nbw_sizes *out, char *err, size_t errlen)
{
	out->v = NULL;
	out->n = 0;
	if (nbw_cli_each_item(list ? list : "", "--sizes", one_size, out, err, errlen)) {
		nbw_sizes_free(out);
		return -1;
	}
	sort_unique(out);
	nbw_sizes_tag_halo(out);
	return 0;
}

int nbw_sizes_default(struct nbw_sizes *out, uint64_t max_bytes, bool sparse)
{
	out->v = NULL;
	out->n = 0;
	const uint64_t step = sparse ? 8 : 2;
	for (uint64_t b = 8; b <= max_bytes; b *= step) {
		if (push(out, b, 0))
			return -1;
		if (b > max_bytes / step)
			break; /* the next step would pass max_bytes (or overflow) */
	}
	/* The sparse sweep still ends at the largest power of two. */
	uint64_t top = 8;
	while (top <= max_bytes / 2)
		top *= 2;
	if (sparse && top <= max_bytes && push(out, top, 0))
		return -1;
	for (int n = HALO_N_FIRST; n <= HALO_N_LAST; n += HALO_N_STEP) {
		if (sparse && n != HALO_N_FIRST && n != 1024)
			continue;
		if (8ull * (uint64_t)n * (uint64_t)n <= max_bytes &&
		    push(out, 8ull * (uint64_t)n * (uint64_t)n, n))
			return -1;
	}
	sort_unique(out);
	return 0;
}

const char *nbw_size_label(uint64_t bytes, char *buf, size_t len)
{
	/* One formatter for every size nodebw prints: binary units (the sweep's powers of two
	 * and the halo planes 8 N^2, N a multiple of 128, are then exact), up to three
	 * decimals with the trailing zeros cut: 8 B, 4 KiB, 3.125 MiB, 12.5 MiB, 1 GiB. */
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	int u = 0;
	double v = (double)bytes;
	while (v >= 1024.0 && u < 6) {
		v /= 1024.0;
		u++;
	}
	char num[48];
	snprintf(num, sizeof(num), "%.3f", v);
	char *dot = strchr(num, '.');
	if (dot) {
		char *e = num + strlen(num) - 1;
		while (e > dot && *e == '0')
			*e-- = '\0';
		if (e == dot)
			*e = '\0';
	}
	snprintf(buf, len, "%s %s", num, bin[u]);
	return buf;
}

void nbw_sizes_free(struct nbw_sizes *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
