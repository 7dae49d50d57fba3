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

# The kernel mode for real on the host plugin: OpenMP copy kernels beside omp_target_memcpy,
# every one verified, their matrices beside the sync ones, and the kernel-vs-copy rows.
if "$NODEBW" probe --api omp,host --probe htod,p2p --mode sync,kernel --host-mem pinned \
	--threads 1 --sizes 8,4MB --output "$tmp/k" >"$tmp/k.out" 2>"$tmp/k.err"; then
	check "kernel probe: kernel copies verified, the construct named, host says why not" \
		/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k = [m for m in d["measurements"] if m["mode"] == "kernel"]
assert k and all(m["api"] == "omp" for m in k), "no OpenMP kernel measurements"
assert all(m["verification"]["status"] == "passed" and not m["error"] for m in k), "unverified"
assert all("target teams distribute parallel for" in m["interface"] for m in k)
assert {m["direction"] for m in k} == {"htod", "p2p"}
p2p = [m for m in k if m["direction"] == "p2p"]
assert all("the destination device reads the source" in m["path"] for m in p2p), p2p[0]["path"]
hs = [s for s in d["skipped"] if s["api"] == "host" and s["what"] == "kernel"]
assert hs and "no copy kernel" in hs[0]["reason"], d["skipped"]
' "$tmp/k/results.json"
	"$NODEBW" matrix "$tmp/k/results.json" >"$tmp/km" 2>&1
	check "kernel matrix beside the sync matrix" sh -c \
		"grep -q '^omp p2p kernel single' '$tmp/km' && grep -q '^omp p2p sync single' '$tmp/km'"
	check "matrix: the kernel-vs-copy summary" grep -q "^Kernel copy vs API copy" "$tmp/km"
	"$NODEBW" gap --json "$tmp/k/results.json" >"$tmp/kg.json"
	check "gap --json: a kernel-vs-copy row per kernel copy" /usr/bin/python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["kernel_vs_copy"]
d = json.load(open(sys.argv[2]))
k = [m for m in d["measurements"] if m["mode"] == "kernel"]
assert len(g["rows"]) == len(k), (len(g["rows"]), len(k))
assert all(r["ratio"] > 0 and r["copy_mode"] == "sync" for r in g["rows"])
' "$tmp/kg.json" "$tmp/k/results.json"
else
	check "kernel probe ran (status $?)" sh -c "cat '$tmp/k.err' >&2; false"
fi

# A run with no size of 1 MiB or more: its gap table's bandwidth band holds no size
# ("sizes": 0), and nodebw's own readers must take the file it wrote.
if "$NODEBW" probe --api omp,host --probe htod --mode sync --sizes 8,1MB --threads 1 \
	--devices 0 --output "$tmp/small" >"$tmp/small.out" 2>"$tmp/small.err"; then
	"$NODEBW" matrix "$tmp/small/results.json" >"$tmp/out" 2>"$tmp/err"
	check "matrix reads a file whose gap band holds no size (exit 0)" test $? -eq 0
else
	check "small probe ran" sh -c "cat '$tmp/small.err' >&2; false"
fi

done_testing
