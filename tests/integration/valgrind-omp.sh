#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The offload library cannot be built with sanitizers (LLVM 19 cannot link their runtime into
# the device image), so it runs under valgrind's memcheck instead: every direction and mode,
# one and two host threads, two sizes. Errors inside our code fail the test; the one known
# libomptarget defect is suppressed in tests/valgrind.supp.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valgrind --error-exitcode=9 --leak-check=no --suppressions="$NODEBW_SOURCE/tests/valgrind.supp" \
	"$NODEBW" probe --api omp --sizes 8,64KiB --output "$tmp/r" --quiet >"$tmp/log" 2>&1
st=$?
grep -v '^###' "$tmp/log" | head -n 60 | sed 's/^/# /'
check "memcheck finds no error (status $st)" test $st -eq 0
check "every measurement verified under memcheck" /usr/bin/python3 -c "
import json, sys
m = json.load(open('$tmp/r/results.json'))['measurements']
sys.exit(0 if m and all(x['verification']['status'] == 'passed' for x in m) else 1)"
done_testing
