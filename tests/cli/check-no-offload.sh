#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A build configured with -Dopenmp_offload=disabled (only registered in such a build): nodebw
# says at the start of a run, on stdout and in results.json, that this build has no OpenMP
# offload (not that there is no OpenMP device); asking for OpenMP fails with that reason.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
reason="this build of nodebw has no OpenMP offload"

"$NODEBW" list >"$tmp/list" 2>&1
check "list: omp skipped, this build has no OpenMP offload" grep -q "^  omp  *skipped: $reason" "$tmp/list"

"$NODEBW" run --api all --probe htod --mode sync --threads 1 --host-mem pageable --sizes 8,4KiB \
	--reps 2 --max-reps 2 --warmup 0 --min-time 0 --no-report --output "$tmp/r" >"$tmp/out" 2>"$tmp/err"
st=$?
check "run without offload succeeds with the host reference (status $st)" test $st -eq 0
check "run says it first, on stdout" sh -c "head -n 1 '$tmp/out' | grep -q '^nodebw: $reason'"
# (a progress line: on stderr, stdout being a file)
check "solver skipped for that reason, not 'no OpenMP device'" sh -c \
	"grep -q 'solver: skipped ($reason' '$tmp/err' && ! grep -q 'no OpenMP device' '$tmp/out' '$tmp/err'"
check "results.json: tool.openmp_offload false, the skip and the solver say why" $py -c "
import json, sys
d = json.load(open('$tmp/r/results.json'))
assert d['tool']['openmp_offload'] is False and d['tool']['offload_targets'] == 'none', d['tool']
s = [x for x in d['skipped'] if x['api'] == 'omp' and x['what'] == 'backend']
assert len(s) == 1 and s[0]['reason'].startswith('$reason'), s
assert d['solver']['skipped'].startswith('$reason'), d['solver']
assert {m['api'] for m in d['measurements']} == {'host'}
"
"$NODEBW" probe --api omp --sizes 8 --output "$tmp/o" >"$tmp/o.out" 2>"$tmp/o.err"
st=$?
check "--api omp: exit 1 with the reason in one line (status $st)" sh -c "test $st -eq 1 &&
	test \$(wc -l <'$tmp/o.err') -eq 1 && grep -q 'omp: $reason' '$tmp/o.err'"
"$NODEBW" heat --n 16 >"$tmp/h.out" 2>"$tmp/h.err"
st=$?
check "heat: exit 1 with the reason (status $st)" sh -c "test $st -eq 1 && grep -q '$reason' '$tmp/h.err'"
# Without the host plugin the host API's regions are nobody's native reference.
"$NODEBW" list >"$tmp/list2"
check "list: host regions are not named a reference for host-plugin devices" sh -c \
	"grep -q '^  host  *0 .*memcpy reference of the host memory' '$tmp/list2' && ! grep -q 'host-plugin device' '$tmp/list2'"
"$NODEBW" report --output "$tmp/rep" "$tmp/r/results.json" >/dev/null 2>&1
# The devices table is on the run's page (run.md); no page may say the opposite.
check "report: the host regions are nobody's native counterpart (run.md)" sh -c \
	"grep -q \"nobody's native counterpart\" '$tmp/rep/run.md' && ! cat '$tmp/rep'/*.md | grep -q 'held against in the gap table'"
done_testing
