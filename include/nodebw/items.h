/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief Comma lists of option values (common/items.c).
 */
#ifndef NODEBW_ITEMS_H
#define NODEBW_ITEMS_H

#include <stddef.h>

/** Call \p one for every item of the comma list \p s. An empty list or an empty item
 *  (",8", "8,", "8,,16") is refused with a message naming \p what (the option). */
int nbw_cli_each_item(const char *s, const char *what,
		      int (*one)(const char *item, void *ctx, char *err, size_t errlen), void *ctx,
		      char *err, size_t errlen);

#endif
