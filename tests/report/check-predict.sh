#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 'nodebw predict': the paper's Eq. 10 from its Table 6 values (hand-computed below), Eq. 9
# from a hand-written calibration, the JSON output, and bad input (one line, exit 2).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex="$NODEBW_SOURCE/doc/examples"

# value FILE N G: the paper column of the row for N and G (version v4)
paper_of() { awk -v n="$2" -v g="$3" '$1 == n && $2 == g && $3 == "v4" { print $8 }' "$1"; }
# close A B: |A - B| / B < 1e-5
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / b; exit !(a != "" && d < 1e-5 && d > -1e-5) }'; }

# Eq. 10, 500 steps: T = 500 (k-bar (N-2)^3 / G + 8 N^2 / beta_P2P), by hand:
#   H100    (6.4042e-11, 253.11 GB/s): N=512 G=2 2.12795, G=4 1.06605; N=1280 G=2 33.4452, G=4 16.7355
#   MI250X  (13.584e-11, 61.28 GB/s):  N=512 G=2 4.52194, G=4 2.26953; N=1280 G=2 70.9929, G=4 35.5499
#   Max1550 (4.6676e-11, 62.85 GB/s):  N=512 G=2 1.56459, G=4 0.790636; N=1280 G=2 24.4614, G=4 12.2828
for row in "h100 2.12795 1.06605 33.4452 16.7355" "mi250x 4.52194 2.26953 70.9929 35.5499" \
	   "max1550 1.56459 0.790636 24.4614 12.2828"; do
	set -- $row
	gpu=$1
	"$NODEBW" predict --calibration "$ex/calibration-table6-$gpu.json" --n 512,1280 \
		--gpus 2,4 >"$tmp/$gpu" 2>"$tmp/err"
	st=$?
	check "$gpu: predict exits 0 (status $st)" test "$st" -eq 0
	check "$gpu: Eq. 10 is the equation of Version 4" grep -q " v4  Eq. 10 " "$tmp/$gpu"
	check "$gpu N=512 G=2: $2 s" close "$(paper_of "$tmp/$gpu" 512 2)" "$2"
	check "$gpu N=512 G=4: $3 s" close "$(paper_of "$tmp/$gpu" 512 4)" "$3"
	check "$gpu N=1280 G=2: $4 s" close "$(paper_of "$tmp/$gpu" 1280 2)" "$4"
	check "$gpu N=1280 G=4: $5 s" close "$(paper_of "$tmp/$gpu" 1280 4)" "$5"
done
check "the table states its units" grep -q "GB/s = 1e9 B/s" "$tmp/h100"
# Table 6 has k-bar and beta_P2P only: the one-device model predicts from them (k-bar for
# the slab, GPUs side by side), the models that need the versions' runs say so.
check "the one-device model runs on Table 6 alone" \
	awk '$3 == "v4" { n++; if ($9 !~ /^[0-9.e+-]+$/) bad = 1 } END { exit bad || n != 4 }' "$tmp/h100"
check "the fitted model says it needs the versions' runs" \
	grep -q "missing: the fitted model needs v4's runs on 2 devices" "$tmp/h100"

# Eq. 9 by hand: k-bar 1e-10, N = 130, G = 2, 10 steps, HtoD 20 GB/s, DtoH 25 GB/s:
# 10 (1e-10 x 128^3 / 2 + 135200 / 20e9 + 135200 / 25e9) = 1.170256e-3 s.
cat >"$tmp/cal.json" <<'J'
{ "schema": "nodebw-calibration", "schema_version": 1, "steps": 10,
  "k": { "kbar": 1e-10 },
  "transfers": { "htod": { "beta_gbps": 20 }, "dtoh": { "beta_gbps": 25 } } }
J
"$NODEBW" predict --calibration "$tmp/cal.json" --n 130 --gpus 2 --version v1 --json \
	>"$tmp/json" 2>"$tmp/err"
check "Eq. 9, JSON output: exit 0" test $? -eq 0
t=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; print(r['paper']['total_s'], r['paper']['equation'])" "$tmp/json")
check "Eq. 9: 1.170256e-3 s ($t)" close "${t% *}" 1.170256e-3
check "Eq. 9 is named" test "${t#* }" = "Eq. 9"

check "without per-pair data the paths are said to stand for every pair" \
	grep -q "stand for every device and pair" "$tmp/h100"

# Per pair: Version 4 crosses the neighbour pairs, bounded by the slowest. Pair 1 -> 2 three
# times slower than the reference 0 -> 1 (10 GB/s), N = 102 (plane 83232 B, 8.3232 us),
# k-bar 1e-10, 10 steps: G = 2 10 (1e-10 x 100^3 / 2 + 8.3232e-6) = 5.83232e-4 s (pair 1 -> 2
# not crossed); G = 3 10 (1e-10 x 100^3 / 3 + 3 x 8.3232e-6) = 5.8302933e-4 s.
cat >"$tmp/pairs.json" <<'J'
{ "schema": "nodebw-calibration", "schema_version": 1, "steps": 10,
  "k": { "kbar": 1e-10 },
  "transfers": { "p2p": { "src": 0, "dst": 1, "beta_gbps": 10 } },
  "transfer_sets": [ { "path": "p2p", "src": 1, "dst": 2, "size_set": "matrix",
                       "ratio": [ [8, 3], [67108864, 3] ] } ] }
J
"$NODEBW" predict --calibration "$tmp/pairs.json" --n 102 --gpus 2,3 >"$tmp/pairs" 2>"$tmp/err"
check "per-pair calibration: exit 0" test $? -eq 0
check "per pair, G = 2: 5.83232e-4 s (pair 1 -> 2 not crossed)" \
	close "$(paper_of "$tmp/pairs" 102 2)" 5.83232e-4
check "per pair, G = 3: 5.8302933e-4 s (the slow pair 1 -> 2 bounds the step)" \
	close "$(paper_of "$tmp/pairs" 102 3)" 5.8302933e-4
check "the bounding pair and its source are named" \
	grep -q "beta_P2P 3.333 GB/s at 83232 B: slowest neighbour pair 1->2 of 0<->1, 1<->2.*matrix estimate" "$tmp/pairs"
check "G = 2 names pair 0->1, the reference" \
	grep -q "beta_P2P 10 GB/s at 83232 B: slowest neighbour pair 0->1 of 0<->1,.*reference sweep" "$tmp/pairs"
"$NODEBW" predict --calibration "$tmp/pairs.json" --n 102 --gpus 3 --json >"$tmp/pj" 2>"$tmp/err"
python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['paper']['beta_from'])" \
	"$tmp/pj" >"$tmp/from"
check "JSON: beta_from names the pair" grep -q "slowest neighbour pair 1->2" "$tmp/from"

bad() { # bad "description" expected-text args...
	desc=$1; want=$2; shift 2
	"$NODEBW" predict "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "$desc: exit 2 (status $st)" test "$st" -eq 2
	check "$desc: one line on stderr naming '$want'" \
		sh -c "[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q -- '$want' '$tmp/err'"
	check "$desc: nothing on stdout" test ! -s "$tmp/out"
}
printf '{ "schema": "nodebw-calibration",\n  "schema_version": 1,\n  "k": { "kbar": 1e-10 },, }\n' \
	>"$tmp/broken.json"
bad "malformed calibration" "broken.json:3:" --calibration "$tmp/broken.json" --n 64 --gpus 2
bad "missing calibration file" "nope.json" --calibration "$tmp/nope.json" --n 64 --gpus 2
bad "no --n" "--n" --calibration "$tmp/cal.json" --gpus 2
bad "G below 2" "--gpus" --calibration "$tmp/cal.json" --n 64 --gpus 1
bad "unknown version" "v7" --calibration "$tmp/cal.json" --n 64 --gpus 2 --version v7
bad "unknown option" "--frobnicate" --calibration "$tmp/cal.json" --n 64 --gpus 2 --frobnicate
bad "Version 4 without any P2P bandwidth" "p2p" --calibration "$tmp/cal.json" --n 64 --gpus 2 \
	--version v4
bad "steps neither given nor in the file" "steps" --calibration "$ex/calibration-table6-h100.json" \
	--n 64 --gpus 2 --steps 0
bad "a results file is not a calibration" "not a nodebw calibration" \
	--calibration "$NODEBW_SOURCE/tests/fixtures/results-omp-host-2cpu-vm.json" --n 64 --gpus 2
done_testing
