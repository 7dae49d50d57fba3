#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The issue's acceptance run: `nodebw probe --api omp --quick` on the host plugin gives every
# direction x mode x host memory x thread count, all verified, in a document that matches
# doc/results.schema.json.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
start=$(date +%s)
"$NODEBW" probe --api omp --quick --output "$tmp/r" >"$tmp/out" 2>"$tmp/err"
st=$?
end=$(date +%s)
diag "nodebw probe --api omp --quick took $((end - start)) s (status $st)"
check "quick run exits 0" test $st -eq 0
check "results.json written" test -s "$tmp/r/results.json"
check "results.csv written" test -s "$tmp/r/results.csv"
check "no temporary file left" sh -c "! ls '$tmp/r' | grep -q tmp"
check "table states the unit" grep -q "GB/s = 1e9 B/s" "$tmp/out"
if $py "$NODEBW_SOURCE/tests/integration/validate_results.py" \
	"$NODEBW_SOURCE/doc/results.schema.json" "$tmp/r/results.json" --require-matrix \
	>"$tmp/val" 2>&1; then
	ok "schema and full matrix: $(tail -n 1 "$tmp/val")"
else
	not_ok "schema and full matrix"
	sed 's/^/#   /' "$tmp/val" | head -n 40
fi
check "CSV has one row per measurement" $py -c "
import json, sys
d = json.load(open('$tmp/r/results.json'))
rows = [l for l in open('$tmp/r/results.csv') if not l.startswith('#')]
sys.exit(0 if len(rows) - 1 == len(d['measurements']) else 1)"
done_testing
