#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `nodebw matrix`: help, the hand-made DGX-H100 document (its two planted faults and nothing
# else), the recorded host-plugin document (host memory, not peer links), and bad input:
# one line on stderr, exit 2, nothing on stdout.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"

"$NODEBW" matrix --help >"$tmp/out" 2>"$tmp/err"
check "matrix --help exits 0" test $? -eq 0
check "matrix --help states the unit" grep -q "1e9" "$tmp/out"
check "matrix --help states the outlier rule" grep -q "below 70 % of its theoretical" "$tmp/out"
"$NODEBW" --help >"$tmp/out"
check "nodebw --help lists matrix" grep -q "^  matrix" "$tmp/out"

"$NODEBW" matrix "$fx/results-dgx-h100-handmade.json" >"$tmp/h100" 2>"$tmp/err"
check "DGX-H100 document: exit 0" test $? -eq 0
check "DGX-H100 document: nothing on stderr" test ! -s "$tmp/err"
check "every table states GB/s = 1e9 B/s" sh -c \
	"[ \$(grep -c 'GB/s = 1e9 B/s' '$tmp/h100') -ge 6 ]"
check "outlier table lists pair 3->6" grep -q "^  pair    3->6 " "$tmp/h100"
check "outlier table lists device 5" grep -q "^  device  5 " "$tmp/h100"
check "six outliers (3->6, 6->3, 3<->6, 6<->3, device 5 htod and dtoh)" sh -c \
	"[ \$(grep -c '^          reason: ' '$tmp/h100') -eq 6 ]"

"$NODEBW" matrix --json "$fx/results-dgx-h100-handmade.json" >"$tmp/h100.json"
check "--json: exit 0" test $? -eq 0
check "--json: matrices, devices, outliers; only pair 3-6 and device 5 flagged" \
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert {"matrices", "devices", "outliers", "outlier_rule", "outlier_groups"} <= set(d)
assert len(d["matrices"]) == 2 and len(d["devices"]) == 2
got = {(o["what"], tuple(sorted(o["devices"]))) for o in d["outliers"]}
assert got == {("pair", (3, 6)), ("device", (5,))}, got
' "$tmp/h100.json"

"$NODEBW" matrix "$fx/results-omp-host-2cpu-vm.json" >"$tmp/omp" 2>"$tmp/err"
check "host-plugin document: exit 0" test $? -eq 0
check "host-plugin matrices say host memory, not peer links" grep -q "not peer links" "$tmp/omp"
check "host-plugin links are HOST" grep -q " HOST" "$tmp/omp"
check "host-plugin document: no NVLink or PCIe label" sh -c "! grep -q 'NV[0-9]\|PCIe Gen' '$tmp/omp'"
check "host-plugin document: an explicit 'no outliers' line" grep -q "^  no outliers" "$tmp/omp"

printf '{\n  "schema": "nodebw-results",\n  "schema_version": 2,\n  "devices": [,]\n}\n' \
	>"$tmp/broken.json"
printf '{"schema": "something-else", "schema_version": 2}\n' >"$tmp/other.json"
printf '{"schema": "nodebw-results", "schema_version": 2, "devices": [], "skipped": [],\n "measurements": [{"api": "cuda"}]}\n' >"$tmp/badmeas.json"
usage_error "no file" matrix
usage_error "unknown option" matrix --bogus "$fx/results-dgx-h100-handmade.json"
usage_error "two files" matrix "$fx/results-dgx-h100-handmade.json" "$fx/results-dgx-h100-handmade.json"
usage_error "missing file" matrix "$tmp/none.json"
usage_error "malformed JSON" matrix "$tmp/broken.json"
check "malformed JSON: the error names file:line" grep -q "broken.json:4:" "$tmp/err"
usage_error "not a results file" matrix "$tmp/other.json"
usage_error "malformed measurement" matrix --json "$tmp/badmeas.json"
done_testing
