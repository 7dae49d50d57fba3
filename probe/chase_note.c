/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a pointer chase will walk, said before it runs when that is not each size named
 * (`--mode chase --sizes 1,7` walks one working set, 4 KiB): the same working sets the
 * executor takes (probe/exec.c), from the same two sizes of the sweep.
 */
#include <stdio.h>

#include "nodebw/chase.h"
#include "nodebw/plan.h"
#include "nodebw/sizes.h"

bool nbw_plan_chase_note(const struct nbw_probe_opts *o, char *buf, size_t len)
{
	/* Asked for by name with sizes named: the profile's own sizes need no note. */
	if (!o->modes_given || !o->sizes_given || !o->modes[NBW_MODE_CHASE] || o->sizes.n == 0)
		return false;
	size_t lo, hi;
	nbw_plan_matrix_sizes_upto(&o->sizes, nbw_plan_matrix_max_bytes(o), &lo, &hi);
	uint64_t ws[2] = {nbw_chase_working_set(o->sizes.v[lo].bytes),
			  nbw_chase_working_set(o->sizes.v[hi].bytes)};
	size_t n = ws[1] > ws[0] ? 2 : 1;
	bool same = o->sizes.n == n;
	for (size_t k = 0; same && k < n; k++)
		same = o->sizes.v[k == 0 ? lo : hi].bytes == ws[k];
	if (same)
		return false;
	char a[32], b[32], named[128] = "";
	size_t w = 0;
	for (size_t k = 0; k < o->sizes.n && w < sizeof(named); k++) {
		char s[32];
		int r = o->sizes.n > 4 && k == 3
				? snprintf(named + w, sizeof(named) - w, " ... %s",
					   nbw_size_label(o->sizes.v[o->sizes.n - 1].bytes, s,
							  sizeof(s)))
				: snprintf(named + w, sizeof(named) - w, "%s%s", k ? ", " : "",
					   nbw_size_label(o->sizes.v[k].bytes, s, sizeof(s)));
		w += r > 0 ? (size_t)r : 0;
		if (o->sizes.n > 4 && k == 3)
			break;
	}
	char which[96];
	nbw_size_label(ws[0], a, sizeof(a));
	nbw_size_label(ws[1], b, sizeof(b));
	if (n == 2)
		snprintf(which, sizeof(which), "two working sets, %s and %s", a, b);
	else
		snprintf(which, sizeof(which), "one working set, %s", a);
	snprintf(buf, len,
		 "--mode chase walks %s, not each size of --sizes (%s): a chase walks whole "
		 "%u-byte pages, at the smallest size and the matrix cells' large size, each "
		 "rounded up to whole pages",
		 which, named, NBW_CHASE_GRAIN);
	return true;
}
