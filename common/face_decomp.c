/* SPDX-License-Identifier: BSD-3-Clause */
/* Decompositions of the exchange probe (--faces-decomp PXxPYxPZ; include/nodebw/face.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/face.h"

static int factor(const char *s, char **end, int *out)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, end, 10);
	if (errno || v > NBW_DECOMP_MAX_FACTOR)
		return -1;
	*out = (int)v;
	return 0;
}

int nbw_face_decomp_parse(const char *s, int out[3], char *err, size_t errlen)
{
	char *e = (char *)s;
	int v[3];
	for (int a = 0; a < 3; a++) {
		if (factor(e, &e, &v[a]) || *e != (a < 2 ? 'x' : '\0')) {
			snprintf(err, errlen,
				 "--faces-decomp '%s': expected PXxPYxPZ (devices along x, y and z, "
				 "each from 1 to %d), e.g. 2x2x1",
				 s, NBW_DECOMP_MAX_FACTOR);
			return -1;
		}
		if (a < 2)
			e++;
	}
	memcpy(out, v, sizeof(v));
	return 0;
}

int nbw_face_decomps_parse(const char *s, int (*out)[3], int max, int *n, char *err,
			   size_t errlen)
{
	char buf[256];
	if (!s || !*s || strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "--faces-decomp needs PXxPYxPZ[,...] (at most %zu characters)",
			 sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	*n = 0;
	for (char *t = buf;;) {
		char *comma = strchr(t, ',');
		if (comma)
			*comma = '\0';
		if (!*t) {
			snprintf(err, errlen, "--faces-decomp '%s': empty item", s);
			return -1;
		}
		if (*n >= max) {
			snprintf(err, errlen, "--faces-decomp: at most %d decompositions", max);
			return -1;
		}
		if (nbw_face_decomp_parse(t, out[*n], err, errlen))
			return -1;
		(*n)++;
		if (!comma)
			return 0;
		t = comma + 1;
	}
}

void nbw_face_decomp_label(const int d[3], char *buf, size_t len)
{
	snprintf(buf, len, "%dx%dx%d", d[0], d[1], d[2]);
}

unsigned long nbw_face_decomp_messages(const int d[3])
{
	unsigned long m = 0;
	for (int a = 0; a < 3; a++)
		if (d[a] >= 1)
			m += 2ul * (unsigned long)(d[a] - 1) * (unsigned long)d[(a + 1) % 3] *
			     (unsigned long)d[(a + 2) % 3];
	return m;
}

bool nbw_face_decomp_invalid(const int d[3], int ndev, bool named, char *why, size_t len)
{
	char l[48];
	nbw_face_decomp_label(d, l, sizeof(l));
	long g = (long)d[0] * d[1] * d[2];
	if (d[0] < 1 || d[1] < 1 || d[2] < 1)
		snprintf(why, len, "decomposition %s: every factor must be at least 1", l);
	else if (g < 2)
		snprintf(why, len, "decomposition %s: one device has no neighbour to exchange with",
			 l);
	else if (g > ndev)
		snprintf(why, len, "decomposition %s needs %ld devices; %s %d", l, g,
			 named ? "--devices lists" : "the API has", ndev);
	else if (nbw_face_decomp_messages(d) > NBW_MAX_STREAMS)
		snprintf(why, len, "decomposition %s has %lu messages per step; at most %d run at once",
			 l, nbw_face_decomp_messages(d), NBW_MAX_STREAMS);
	else
		return false;
	return true;
}
