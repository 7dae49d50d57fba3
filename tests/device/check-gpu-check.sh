#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The GPU check where there is no GPU (TAP): it stops at its device check with its message,
# status 3, in under 30 s; and its verdicts (judge-results.py) fail a failed verification,
# a measurement error, a CUDA record without 'sched', a kernel step without one of CUDA's
# kernel or chase paths, a faces step without one of its faces and methods, a solver run that does not match its reference and a CUDA solver
# run without cuda_sched, and pass the recorded runs.
src=${NODEBW_SOURCE:?}
exe=${NODEBW:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; }
t0=$(date +%s)
sh "$src/tests/device/gpu-check.sh" "$exe" "$work/out" >"$work/log" 2>&1
rc=$?
t=$(($(date +%s) - t0))
if [ "$rc" -eq 3 ] && grep -q '^STOP: OpenMP device 0 is not the GPU' "$work/out/summary.txt" &&
	[ "$t" -lt 30 ]; then
	ok "dry run: stops at the device check in $t s"
else
	bad "dry run: status $rc after $t s: $(tail -n 3 "$work/log")"
fi
sh "$src/tests/device/gpu-check.sh" /nonexistent "$work/out2" >"$work/log" 2>&1
[ $? -eq 2 ] && [ "$(wc -l <"$work/log")" -eq 1 ] && ok "a missing nodebw: one line, status 2" ||
	bad "a missing nodebw: $(cat "$work/log")"
# The offload libraries register their device images with libomptarget as they load, which
# sets up every device (a context per GPU): only commands that use the devices load them.
libs=$(LD_DEBUG=libs "$exe" --version 2>&1 >/dev/null | grep 'calling init:')
echo "$libs" | grep -q 'libomptarget\|libnodebw-omp\|libnodebw-heat-omp' &&
	bad "--version loads the offload runtime: $(echo "$libs" | grep -m 1 omptarget)" ||
	ok "--version loads neither libomptarget nor the offload libraries"
libs=$(LD_DEBUG=libs "$exe" list 2>&1 >/dev/null | grep 'calling init:')
if "$exe" --version | grep -q 'offload targets: none'; then
	ok "# SKIP a build without OpenMP offload has no offload library to load"
elif echo "$libs" | grep -q 'libnodebw-omp.so' && ! echo "$libs" | grep -q 'libnodebw-heat-omp'; then
	ok "list loads the OpenMP backend and not the solver's offload library"
else
	bad "list: $(echo "$libs" | grep -c omp) omp libraries"
fi
judge="python3 $src/tests/device/judge-results.py"
probe=$src/tests/fixtures/results-omp-host-2cpu-vm.json
runs=$src/tests/fixtures/results-run-2cpu-vm.json
$judge probe "$probe" >"$work/j" && ! grep -q '^BAD' "$work/j" && ok "recorded probe results pass" ||
	bad "recorded probe results: $(grep -m 2 BAD "$work/j")"
$judge heat "$runs" >"$work/j" && ! grep -q '^BAD' "$work/j" && ok "recorded solver runs pass" ||
	bad "recorded solver runs: $(grep -m 2 BAD "$work/j")"
# make FILE PYTHON: a copy of FILE changed by PYTHON (on d) in spoilt.json.
make() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2; json.dump(d, open(sys.argv[2], 'w'))" \
		"$1" "$work/spoilt.json"
}
# spoil KIND FILE PYTHON PATTERN WHAT: a copy changed by PYTHON must fail with PATTERN.
spoil() {
	make "$2" "$3"
	$judge "$1" "$work/spoilt.json" >"$work/j"
	rc=$?
	[ "$rc" -eq 1 ] && grep -Eq "$4" "$work/j" && ok "$5" || bad "$5: status $rc, $(grep -m 1 BAD "$work/j")"
}
spoil probe "$probe" "d['measurements'][3]['verification']['status']='failed'" \
	'^BAD .*verification failed' "a failed verification fails"
spoil probe "$probe" "d['measurements'][0]['error']='cudaMemcpy: an illegal memory access'" \
	'^BAD .*error: cudaMemcpy' "a measurement error fails"
spoil sched "$probe" "d['measurements'][0]['api']='cuda'" '^BAD .*no sched recorded' \
	"a CUDA measurement without sched fails"
make "$probe" "[m.update(api='cuda', sched='blocking', sched_note='as found') for m in d['measurements']]"
$judge sched "$work/spoilt.json" >"$work/j" && grep -q 'sched blocking (as found)' "$work/j" &&
	ok "CUDA records with sched pass and show it" || bad "CUDA records with sched: $(grep -m 1 BAD "$work/j")"
# The kernel step's verdict: CUDA's kernel and chase paths must all be measured.
kernel="[m.update(api='cuda', sched='auto', sched_note='as found', mode={'sync': 'kernel', 'async': 'chase'}.get(m['mode'], m['mode'])) for m in d['measurements']]; d['measurements'] = [m for m in d['measurements'] if m['mode'] in ('kernel', 'chase') and (m['direction'], m['mode']) != ('dtoh', 'chase')]"
make "$probe" "$kernel; [m.update(chase_loads=1000) for m in d['measurements'] if m['mode'] == 'chase']"
$judge kernel "$work/spoilt.json" >"$work/j" && grep -q 'chase .* ns/load' "$work/j" &&
	ok "CUDA kernel and chase records pass, the chase per load" ||
	bad "CUDA kernel and chase records: $(grep -m 1 BAD "$work/j")"
spoil kernel "$probe" "$kernel; d['measurements'] = [m for m in d['measurements'] if m['mode'] != 'chase']; d['skipped'].append(dict(api='cuda', what='chase pinned single', reason='no driver entry'))" \
	'^BAD no cuda htod chase measured \(skipped: no driver entry\)' "a kernel step without its chase fails with the skip's reason"
faces=$src/tests/fixtures/results-faces-omp-host-2cpu-vm.json
$judge faces "$faces" >"$work/j" && ! grep -q '^BAD' "$work/j" && grep -q 'exchange-grid' "$work/j" &&
	ok "recorded face results pass, every row shown" || bad "recorded face results: $(grep -m 2 BAD "$work/j")"
spoil faces "$faces" "[m['verification'].update(status='failed') for m in d['measurements'] if m['shape']['face'] == 'y'][:1]" \
	'^BAD .*verification failed' "a face row that failed its check fails"
spoil faces "$faces" "d['measurements'] = [m for m in d['measurements'] if m['shape']['method'] != 'pack' or m['shape']['face'] != 'x']" \
	'^BAD no omp x-face by pack measured' "OpenMP without its packed x-face fails"
spoil faces "$faces" "d['measurements'] = [m for m in d['measurements'] if m['shape']['method'] == 'pack'] + [dict(m, api='cuda') for m in d['measurements'] if m['shape']['method'] == 'pack' and m['shape']['face'] != 'z']" \
	'^BAD no cuda z-face by rect measured' "CUDA without its rectangular z-face fails"
spoil faces "$faces" "d['measurements'] += [dict(m, api='cuda', sched='blocking') for m in d['measurements'] if m['shape']['method'] == 'rect' or m['shape']['face'] != 'x']" \
	'^BAD no cuda x-face by pack measured' "CUDA without its packed x-face fails"
spoil heat "$runs" "d['solver_runs'][2]['verification']['status']='failed'" \
	'^BAD .*verification failed' "a solver run that does not match its reference fails"
spoil heat "$runs" "d['solver_runs'][0]['device_kind']='cuda'" '^BAD .*no cuda_sched recorded' \
	"a CUDA solver run without cuda_sched fails"
spoil heat "$runs" "d['solver_runs']=[]" '^BAD no solver runs' "no solver runs fails"
printf '{"measurements": [' >"$work/cut.json"
$judge probe "$work/cut.json" >"$work/j"
[ $? -eq 1 ] && grep -q '^BAD' "$work/j" && ok "a cut-off results file fails" || bad "a cut-off file passed"
echo "1..$n"
