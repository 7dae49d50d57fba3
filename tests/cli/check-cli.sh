#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# CLI conformance: help and version work; every bad input is one line on stderr, exit 2,
# nothing on stdout and no results folder left behind.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_status() { # expect_status WANT args...
	want=$1; shift
	"$NODEBW" "$@" >"$tmp/out" 2>"$tmp/err"
	[ $? -eq "$want" ]
}

for args in "--help" "-h" "--version" "probe --help" "run --help" "list --help"; do
	# shellcheck disable=SC2086
	check "nodebw $args exits 0" expect_status 0 $args
	check "nodebw $args prints to stdout" test -s "$tmp/out"
done
"$NODEBW" --help >"$tmp/out"
check "--help names the commands" grep -q "probe" "$tmp/out"
check "--help states the unit" grep -q "1e9" "$tmp/out"
"$NODEBW" probe --help >"$tmp/out"
check "probe --help has examples" grep -q "Examples" "$tmp/out"
check "probe --help names --cuda-sched and its values" grep -q "cuda-sched WAIT.*spin, yield" "$tmp/out"
"$NODEBW" run --help >"$tmp/out"
check "run --help names --cuda-sched" grep -q -- "--cuda-sched" "$tmp/out"


usage_error "no command"
usage_error "unknown global option" --bogus
usage_error "unknown command" frobnicate
usage_error "list with an argument" list extra
usage_error "unknown probe option" probe --bogus
usage_error "missing option value" probe --sizes
usage_error "zero size" probe --sizes 0
usage_error "negative size" probe --sizes -4KiB
usage_error "non-numeric size" probe --sizes lots
usage_error "unknown size suffix" probe --sizes 4XB
usage_error "fractional byte count" probe --sizes 1.5
usage_error "size larger than host memory" probe --sizes 64TiB --output "$tmp/big"
check "no results folder after a usage error" test ! -e "$tmp/big"
usage_error "unknown mode" probe --mode fast
usage_error "unknown host memory" probe --host-mem huge
usage_error "unknown thread count" probe --threads 3
usage_error "unknown probe" probe --probe warp
usage_error "unknown API" probe --api cuda13
usage_error "duplicate device" probe --devices 0,0
usage_error "negative device" probe --devices -1
usage_error "non-numeric device" probe --devices gpu0
usage_error "two devices at once with one named" probe --devices 0 --threads 2
usage_error "every device at once with one named" probe --devices 1 --threads all
usage_error "unknown thread count" probe --threads 3
usage_error "hidden helpers out of range" probe --hidden-helpers 17
usage_error "negative repetitions" probe --reps -3
usage_error "bad min-time" probe --min-time soon
usage_error "sizes and max-size together" probe --sizes 8 --max-size 1MiB
usage_error "stray argument" probe extra
usage_error "run rejects bad options too" run --mode fast
usage_error "unknown peer access" probe --peer-access sometimes
usage_error "unknown binding" probe --bind sideways
usage_error "unknown CUDA scheduling" probe --cuda-sched busy
usage_error "CUDA scheduling without a value" run --cuda-sched
usage_error "run rejects a bad CUDA scheduling too" run --cuda-sched SPIN
usage_error "host memory list names registered" probe --host-mem locked
grep -q "registered" "$tmp/err" && ok "host memory error lists registered" ||
	not_ok "host memory error lists registered"
usage_error "gap without a file" gap
usage_error "gap with two files" gap a.json b.json
usage_error "gap unknown option" gap --csv x.json
usage_error "gap on a missing file" gap "$tmp/none.json"
printf '{"schema": "nodebw-results",\n "schema_version": 2,\n "devices": [,]}\n' >"$tmp/bad.json"
usage_error "gap on a malformed file" gap "$tmp/bad.json"
grep -q "bad.json:3:" "$tmp/err" && ok "malformed file error names file and line" ||
	not_ok "malformed file error names file and line"
for args in "gap --help"; do
	# shellcheck disable=SC2086
	check "nodebw $args exits 0" expect_status 0 $args
done
if "$NODEBW" list | grep -q '^  omp  *[0-9]'; then
	usage_error "device id that does not exist" probe --devices 999 --sizes 8 --output "$tmp/dev"
	check "no results folder after a bad device id" test ! -e "$tmp/dev"
	"$NODEBW" list >"$tmp/out"
	check "list shows the probe catalogue" grep -q "omp-htod" "$tmp/out"
	if grep -q "host-plugin" "$tmp/out"; then
		check "host-plugin devices are not called GPUs" grep -q "not a GPU" "$tmp/out"
		check "host-plugin memory is host memory" grep -q "memory: host memory" "$tmp/out"
	fi
fi
done_testing
