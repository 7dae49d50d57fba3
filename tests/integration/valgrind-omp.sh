#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The offload library cannot be built with sanitizers (LLVM 19 cannot link their runtime into
# the device image), so it runs under valgrind's memcheck instead: every direction and mode,
# one and two host threads, two sizes, devices 0 and 1. Errors inside our code fail the test; the one known
# libomptarget defect is suppressed in tests/valgrind.supp.
#
# The work is bounded so that the run time does not depend on luck: exactly 1 warm-up and 3
# timed transfers per size (no time target, no adaptive repetitions), two hidden helper
# threads and two OpenMP threads, and waiting threads sleep at once (KMP_BLOCKTIME=0)
# instead of spinning, which under valgrind's one-thread-at-a-time scheduler (fair, so a
# spinning thread cannot starve the one it waits for) cost minutes at random. The variables
# are set here, not with --hidden-helpers: nodebw would restart itself, and the new image
# would run outside valgrind.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
KMP_BLOCKTIME=0 LIBOMP_NUM_HIDDEN_HELPER_THREADS=2 OMP_NUM_THREADS=2 \
	valgrind --error-exitcode=9 --leak-check=no --fair-sched=yes \
	--suppressions="$NODEBW_SOURCE/tests/valgrind.supp" \
	"$NODEBW" probe --api omp --devices 0,1 --sizes 8,64KiB --warmup 1 --reps 3 --max-reps 3 \
	--min-time 0 --no-hht-sweep --output "$tmp/r" --quiet >"$tmp/log" 2>&1 &
pid=$!
wait_bounded $pid 600
st=$?
diag "memcheck run: $(($(date +%s) - start)) s"
grep -v '^###' "$tmp/log" | head -n 60 | sed 's/^/# /'
check "memcheck finds no error (status $st)" test $st -eq 0
check "every measurement verified under memcheck, exactly 3 repetitions each" /usr/bin/python3 -c "
import json, sys
d = json.load(open('$tmp/r/results.json'))
m = d['measurements']
assert d['settings']['hidden_helpers_effective'] == 2, d['settings']
sys.exit(0 if len(m) >= 40 and all(x['verification']['status'] == 'passed' and
                                   len(x['samples_s']) == 3 for x in m) else 1)"
done_testing
