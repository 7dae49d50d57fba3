#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Integers and lists from the command line and from files are checked against what they
# mean (include/nodebw/limits.h, include/nodebw/jints.h): a value that would wrap in an int,
# an empty list item, hex seconds, or an empty version list is bad input (exit 2, one line),
# never truncated into something else. The ASan/UBSan build runs this too, so a signed
# overflow on any of these paths fails it.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
cal="$NODEBW_SOURCE/doc/examples/calibration-table6-h100.json"
res="$fx/results-run-2cpu-vm.json"

# -- the command line --
usage_error_matching "predict --n 2^31-1" "out of range (3 to 100000)" \
	predict --calibration "$cal" --n 2147483647 --gpus 2
usage_error_matching "predict --gpus 2^31-3" "out of range (2 to 64)" \
	predict --calibration "$cal" --n 512 --gpus 2147483645
usage_error_matching "predict --n past long" "out of range" \
	predict --calibration "$cal" --n 99999999999999999999 --gpus 2
usage_error_matching "predict --version ''" "empty list" \
	predict --calibration "$cal" --n 512 --gpus 2 --version ''
usage_error_matching "predict --version v1,,v4" "empty item" \
	predict --calibration "$cal" --n 512 --gpus 2 --version v1,,v4
usage_error_matching "predict --steps 0x10" "not an integer" \
	predict --calibration "$cal" --n 512 --gpus 2 --steps 0x10
usage_error_matching "probe --devices 0,,1" "empty item" probe --api host --devices 0,,1
usage_error_matching "probe --devices 4294967296" "out of range (0 to 63)" \
	probe --api host --devices 4294967296
usage_error_matching "probe --sizes 8,,16" "empty item" probe --api host --sizes 8,,16
usage_error_matching "probe --sizes ,8" "empty item" probe --api host --sizes ,8
usage_error_matching "probe --min-time 0x10" "decimal notation" probe --api host --min-time 0x10
usage_error_matching "probe --max-time inf" "decimal notation" probe --api host --max-time inf
usage_error_matching "probe --reps +3" "not an integer" probe --api host --reps +3
usage_error_matching "probe --mode sync," "empty item" probe --api host --mode sync,
usage_error_matching "probe --faces-decomp 2x2x1," "empty item" \
	probe --api host --faces 16x16x16:1:8 --faces-decomp 2x2x1,
usage_error_matching "probe --faces-decomp 2x2x4294967297" "expected PXxPYxPZ" \
	probe --api host --faces 16x16x16:1:8 --faces-decomp 2x2x4294967297
usage_error_matching "probe --faces-decomp 2x2x99999999999999999999" "expected PXxPYxPZ" \
	probe --api host --faces 16x16x16:1:8 --faces-decomp 2x2x99999999999999999999
usage_error_matching "run --solver-n 40,,52" "empty item" run --solver-n 40,,52
usage_error_matching "run --solver-steps 4294967336" "out of range" run --solver-steps 4294967336
# The solver's options (a build without OpenMP offload has no heat command).
if ! "$NODEBW" --version | grep -q "offload targets: none"; then
	usage_error_matching "heat --shapes 64x64x4294967360" "out of range (3 to 100000)" \
		heat --shapes 64x64x4294967360
	usage_error_matching "heat --shapes 64x64x-64" "out of range" heat --shapes 64x64x-64
	usage_error_matching "heat --shapes 64x64" "not a box" heat --shapes 64x64
	usage_error_matching "heat --shapes 64x64x64x64" "not a box" heat --shapes 64x64x64x64
	usage_error_matching "heat --shapes 64x64x64,,8x8x8" "empty item" heat --shapes 64x64x64,,8x8x8
	usage_error_matching "heat --n 32,,40" "empty item" heat --n 32,,40
	usage_error_matching "heat --gpus 4294967298" "out of range" heat --gpus 4294967298
	usage_error_matching "heat --version v1," "empty item" heat --version v1,
	usage_error_matching "heat --roofline-gbs 0x10" "decimal notation" heat --roofline-gbs 0x10
else
	ok "# SKIP heat options: this build has no OpenMP offload"
fi

# -- calibration files --
edited() { # edited SOURCE NAME PYTHON: $tmp/NAME.json, a copy of SOURCE (as d) changed by PYTHON
	python3 - "$1" "$tmp/$2.json" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}
calfile() { edited "$cal" "$1" "$2"; } # a copy of the Table 6 calibration, changed
resfile() { edited "$res" "$1" "$2"; } # a copy of a recorded run's results.json, changed
calfile ksample-n 'd["k"] = {"samples": [{"n": 2**31, "k": 6.4e-11}]}'
usage_error_matching "calibration k.samples[0].n = 2^31" "k.samples\[0\].n" \
	predict --calibration "$tmp/ksample-n.json" --n 512 --gpus 2
calfile steps 'd["steps"] = 4294967336'
usage_error_matching "calibration steps = 2^32+40" "out of range (0 to 1000000000" \
	predict --calibration "$tmp/steps.json" --n 512 --gpus 2
calfile version 'd["schema_version"] = 4294967297'
usage_error_matching "calibration schema_version = 2^32+1" "schema_version" \
	predict --calibration "$tmp/version.json" --n 512 --gpus 2
calfile vG 'd["versions"] = [{"version": "v4", "G": 4294967298, "busy": 1.0}]'
usage_error_matching "calibration versions[0].G = 2^32+2" "versions\[0\].G" \
	predict --calibration "$tmp/vG.json" --n 512 --gpus 2
calfile slab 'd["k_slab"] = [{"n": 64, "planes": -2147483648, "k": 6.4e-11}]'
usage_error_matching "calibration k_slab planes = -2^31" "k_slab\[0\].planes" \
	predict --calibration "$tmp/slab.json" --n 512 --gpus 2
calfile lG 'd["launch"] = [{"form": "one-thread", "G": 2**32, "step_s": 1e-6}]'
usage_error_matching "calibration launch[0].G = 2^32" "launch\[0\].G" \
	predict --calibration "$tmp/lG.json" --n 512 --gpus 2
calfile lform 'd["launch"] = [{"form": "two-threads", "G": 2, "step_s": 1e-6}]'
usage_error_matching "calibration launch[0].form unknown" "launch\[0\]: \"form\"" \
	predict --calibration "$tmp/lform.json" --n 512 --gpus 2
calfile lci 'd["launch"] = [{"form": "sync", "G": 2, "step_s": 1e-6, "ci_lo_s": 2e-6, "ci_hi_s": 3e-6}]'
usage_error_matching "calibration launch[0] interval above its median" "launch\[0\]: \"ci_lo_s\"" \
	predict --calibration "$tmp/lci.json" --n 512 --gpus 2

# A --version list longer than any fixed buffer keeps every entry (v4 comes last), on a
# calibration with the host paths Versions 1-3 need.
calfile paths 'd["transfers"].update({"htod": {"beta_gbps": 50.0}, "dtoh": {"beta_gbps": 50.0}})'
long=$(printf 'v1,%.0s' $(seq 1 40))v4
timeout 30 "$NODEBW" predict --calibration "$tmp/paths.json" --n 512 --gpus 2 --version "$long" \
	--json >"$tmp/long.json" 2>"$tmp/err"
check "predict --version of $(printf %s "$long" | wc -c) bytes keeps v1 and v4 (status $?)" \
	python3 -c "import json,sys; v={r['version'] for r in json.load(open(sys.argv[1]))}; sys.exit(v!={'v1','v4'})" "$tmp/long.json"
sed 's/^/#   /' "$tmp/err"

# -- results files --
resfile shape 'd["solver_runs"][3]["shape"]["nx"] = -2**31'
for cmd in gap matrix; do
	usage_error_matching "$cmd: solver_runs[3].shape.nx = -2^31" "solver_runs\[3\].shape.nx" \
		$cmd "$tmp/shape.json"
done
usage_error_matching "report: solver_runs[3].shape.nx = -2^31" "solver_runs\[3\].shape.nx" \
	report --output "$tmp/rep" "$tmp/shape.json"
check "report left no folder behind" test ! -e "$tmp/rep"
resfile G 'd["solver_runs"][0]["G"] = 4294967298'
usage_error_matching "report: G = 2^32+2" "\"G\" = 4294967298 is out of range" \
	report --output "$tmp/rep" "$tmp/G.json"
resfile steps 'd["solver_runs"][0]["steps"] = 4294967336'
usage_error_matching "report: steps = 2^32+40" "\"steps\" = 4294967336" \
	report --output "$tmp/rep" "$tmp/steps.json"
resfile version 'd["schema_version"] = 4294967297'
usage_error_matching "gap: schema_version = 2^32+1" "schema_version 4294967297" \
	gap "$tmp/version.json"
resfile dev 'd["measurements"][0]["streams"][0]["dst"] = 4294967296'
usage_error_matching "gap: a stream's dst = 2^32" "\"dst\" = 4294967296" gap "$tmp/dev.json"
resfile halo 'd["measurements"][0]["halo_n"] = 2**31'
usage_error_matching "gap: halo_n = 2^31" "halo_n" gap "$tmp/halo.json"
# The error names where: FILE:LINE:COL of the bad value.
usage_error_matching "the line and column of the bad value" "G.json:[0-9]*:[0-9]*: solver_runs\[0\].G" \
	gap "$tmp/G.json"
# The unchanged files still read.
timeout 30 "$NODEBW" gap "$res" >/dev/null 2>"$tmp/err"
check "the recorded results file still reads (status $?)" test ! -s "$tmp/err"
timeout 30 "$NODEBW" predict --calibration "$cal" --n 512 --gpus 2,4 >/dev/null 2>"$tmp/err"
check "the Table 6 calibration still reads (status $?)" test ! -s "$tmp/err"
done_testing
