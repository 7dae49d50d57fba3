/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Transfer sizes: parsing "64MiB"-style values and building the default sweeps.
 *
 * Suffixes: K, M, G (and KB, MB, GB) are decimal (1e3, 1e6, 1e9); KiB, MiB, GiB are binary.
 * A bare number or a B suffix is bytes.
 */
#ifndef NODEBW_SIZES_H
#define NODEBW_SIZES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nbw_size {
	uint64_t bytes;
	int halo_n;            /**< N when bytes == 8*N*N is a halo-plane size of the sweep, else 0 */
};

struct nbw_sizes {
	struct nbw_size *v;
	size_t n;
};

/** Parse one size. 0 on success; -1 with a one-line message in \p err otherwise
 *  (empty, non-numeric, zero, negative, unknown suffix, overflow). */
int nbw_size_parse(const char *s, uint64_t *out, char *err, size_t errlen);

/** Parse a comma-separated list into \p out (sorted, duplicates removed). */
int nbw_sizes_parse_list(const char *s, struct nbw_sizes *out, char *err, size_t errlen);

/** Powers of two from 8 B to \p max_bytes, plus the halo-plane sizes 8*N^2 for
 *  N = 512, 640, ..., 1280; sorted, duplicates merged (keeping the halo tag).
 *  \p sparse (the quick profile): every third power of two (8 B, 64 B, 512 B, ...) and the
 * *  largest one, and the halo planes of N = 512 and 1024 only (both powers of two). */
int nbw_sizes_default(struct nbw_sizes *out, uint64_t max_bytes, bool sparse);

/** Tag sizes that equal a halo plane 8*N^2 (N = 512..1280 step 128). */
void nbw_sizes_tag_halo(struct nbw_sizes *s);

/** The one size formatter: binary units, up to three decimals, trailing zeros cut ("8 B",
 *  "4 KiB", "3.125 MiB", "1 GiB"), into buf. */
const char *nbw_size_label(uint64_t bytes, char *buf, size_t len);

void nbw_sizes_free(struct nbw_sizes *s);

#endif
