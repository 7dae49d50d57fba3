#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Behaviour of the OpenMP probes on the host plugin: hidden-helper control and sweep,
# Ctrl-C keeping results, an allocation failure mid-sweep recorded without losing the rest.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
schema="$NODEBW_SOURCE/doc/results.schema.json"
validate="$NODEBW_SOURCE/tests/integration/validate_results.py"
# validated FILE: the schema check, its summary line as a TAP comment.
validated() {
	v_out=$($py "$validate" "$schema" "$1")
	v_st=$?
	printf '%s\n' "$v_out" | sed 's/^/# /'
	return $v_st
}
# interrupt_when TEXT OUTFILE nodebw-args...: start nodebw, send SIGINT once TEXT shows in its
# output (or after 30 s), leave its exit status in $st.
interrupt_when() {
	text=$1; out=$2; shift 2
	$sigint_default "$NODEBW" "$@" >"$out" 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 300 ] && ! grep -q "$text" "$out" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	kill -INT $pid
	wait_bounded $pid 300
	st=$?
}
q() { # q FILE PYTHON-EXPRESSION: exit 0 when the expression over d (the document) is true
	$py -c "import json,sys; d=json.load(open('$1')); m=d['measurements']; sys.exit(0 if ($2) else 1)"
}

# 1. --hidden-helpers restarts the process with the variable set; it is recorded.
"$NODEBW" probe --api omp --probe htod --mode async --threads 1 --host-mem pinned \
	--devices 0 --sizes 4KiB,1MiB --hidden-helpers 0 --output "$tmp/hh0" --quiet
check "--hidden-helpers 0 run exits 0" test $? -eq 0
check "measurements record hidden_helpers = 0" q "$tmp/hh0/results.json" \
	"len(m) == 2 and all(x['hidden_helpers'] == 0 for x in m)"
check "environment records LIBOMP_NUM_HIDDEN_HELPER_THREADS=0" q "$tmp/hh0/results.json" \
	"d['environment'].get('LIBOMP_NUM_HIDDEN_HELPER_THREADS') == '0'"

# 2. The sweep: HHT 0, one per device and 8, each in its own process, merged.
"$NODEBW" probe --api omp --mode sync,async --host-mem pinned --probe htod,p2p \
	--sizes 64KiB --hht-sweep --output "$tmp/sweep" --quiet
check "sweep run exits 0" test $? -eq 0
# The main series ran with libomp's default of 8: the sweep adds 0 and one per device, and
# says why it does not run 8 again.
check "sweep adds async measurements for HHT 0, 1 and 2" q "$tmp/sweep/results.json" \
	"sorted(set(x['hidden_helpers'] for x in m if x.get('hht_sweep'))) == [0, 1, 2]"
check "the main series are the 8-helper measurements, the sweep says so" q "$tmp/sweep/results.json" \
	"any(x['hidden_helpers'] == 8 and x['mode'] == 'async' and not x.get('hht_sweep') for x in m) and any(s['what'] == 'hidden-helper sweep with 8' and 'not measured twice' in s['reason'] for s in d['skipped'])"
check "sweep labels per-device runs by their thread count" q "$tmp/sweep/results.json" \
	"all(x['hidden_helpers'] == len(x['streams']) for x in m if x.get('hht_sweep') == 'hht-per-device')"
check "sweep children ran no sync mode" q "$tmp/sweep/results.json" \
	"all(x['mode'] != 'sync' for x in m if x.get('hht_sweep'))"
check "sweep leaves no child folder behind" sh -c "! ls -a '$tmp/sweep' | grep -q hht"
check "sweep document matches the schema" validated "$tmp/sweep/results.json"

# 3. Ctrl-C stops cleanly and keeps what was measured (each size repeats for at least half
# a second, so the run is still going when the signal comes; --reps would fix the count).
interrupt_when "1 KiB" "$tmp/int.out" probe --verbose --api omp --mode sync \
	--sizes 8,1KiB,64KiB,1MiB,16MiB --min-time 0.5 --max-time 1 --output "$tmp/int"
check "interrupted run exits 130 (got $st)" test $st -eq 130
check "interrupted run keeps its measurements" q "$tmp/int/results.json" \
	"d['interrupted'] is True and len(m) >= 1 and all(x['verification']['status'] == 'passed' for x in m)"
check "interrupted document matches the schema" validated "$tmp/int/results.json"

# 3b. Ctrl-C during the hidden-helper sweep is recorded too.
interrupt_when "hidden-helper sweep" "$tmp/int2.out" probe --api omp --mode async \
	--probe htod --host-mem pinned --sizes 8,64KiB,1MiB --hht-sweep --output "$tmp/int2"
check "run interrupted in the sweep exits 130 (got $st)" test $st -eq 130
check "interrupted sweep is recorded as interrupted" q "$tmp/int2/results.json" \
	"d['interrupted'] is True and len(d['hht_sweep']) < 4"
check "interrupted sweep leaves no child folder" sh -c "! ls -a '$tmp/int2' | grep -q hht"

# 4. A size that does not fit is recorded with its reason; the others keep their results.
# Under an address-space limit every device alone fits a 64 MiB copy (3 x 64 MiB) but the
# four devices at once (4 x 3 x 64 MiB) do not: that measurement is "not run", naming
# RLIMIT_AS, never an abort of the OpenMP runtime. A named size that cannot fit at all is bad
# input. (Address-space limits and AddressSanitizer's shadow memory do not mix: plain build
# only.)
if [ -z "$NODEBW_SANITIZE" ]; then
	(ulimit -v 1400000 && "$NODEBW" probe --api omp --probe htod --mode sync --threads 1,all \
		--host-mem pageable --sizes 8,1MiB,64MiB --output "$tmp/oom" --quiet \
		>"$tmp/oom.out" 2>"$tmp/oom.err")
	st=$?
	check "run with a size that does not fit exits 3, some measurements failed (got $st)" \
		test $st -eq 3
	check "it names the failed measurement on stderr" grep -q "error: omp htod sync pageable, all, host->0+host->1+host->2+host->3, 64 MiB: not run: .*RLIMIT_AS (ulimit -v)" "$tmp/oom.err"
	check "results say complete" q "$tmp/oom/results.json" "d['state'] == 'complete'"
	"$NODEBW" report --output "$tmp/oom/rep" "$tmp/oom/results.json" >/dev/null 2>&1
	check "the report lists it with its reason (run.md, the run's failures)" grep -q "| error | omp htod sync pageable, all, host-.*64 MiB | .*RLIMIT_AS" "$tmp/oom/rep/run.md"
	check "only the four devices at once at 64 MiB failed" q "$tmp/oom/results.json" \
		"[(x['concurrency'], x['bytes']) for x in m if x['error']] == [('all', 1 << 26)]"
	check "the other measurements are verified" q "$tmp/oom/results.json" \
		"all(x['verification']['status'] == 'passed' for x in m if not x['error']) and len(m) == 11"
	(ulimit -v 3000000 && "$NODEBW" probe --api omp --probe htod --sizes 8,1GiB \
		--output "$tmp/oom2" --quiet >"$tmp/oom2.out" 2>"$tmp/oom2.err")
	st=$?
	check "a named 1 GiB that cannot fit under ulimit -v is bad input (exit $st)" \
		sh -c "[ $st -eq 2 ] && grep -q 'RLIMIT_AS (ulimit -v)' '$tmp/oom2.err' && [ ! -e '$tmp/oom2/results.json' ]"
else
	ok "# SKIP allocation failure test needs a build without sanitizers"
fi
done_testing
