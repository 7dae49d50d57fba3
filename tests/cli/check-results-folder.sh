#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The results folder as a hostile user and a flaky machine meet it: --output naming a file,
# /dev/null or a path under a file; one writer per folder (a second run stops at once, exit
# 2, naming the holder); --output made as mkdir -p would, at 3000 characters; SIGTERM and
# SIGHUP handled like SIGINT, with the state and the signal in results.json; a file-size
# limit (as a full disk) gives one line naming it, no temporary file, and a results.json
# that does not claim to be complete; the report lists failed measurements.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small="probe --api host --probe htod --mode sync --threads 1 --sizes 8,4KiB --quiet"
q() { # q FILE EXPR: a Python expression over the JSON document d
	/usr/bin/python3 -c "import json,sys; d = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
strays() { find "$1" \( -name '*.tmp??????' -o -name '.hht-*' -o -name '.solver-*' -o -name '.planes-*' -o -name '.probe-*' -o -name '.app-*.json' -o -name '*.part' -o -name .nodebw.lock \) | head -5; }

: >"$tmp/afile"
# shellcheck disable=SC2086
usage_error "--output naming a file" $small --output "$tmp/afile"
# shellcheck disable=SC2086
usage_error "--output /dev/null" $small --output /dev/null
# shellcheck disable=SC2086
usage_error "--output under a file" $small --output "$tmp/afile/sub"
long=$(/usr/bin/python3 -c "print('x' * 4000)")
# shellcheck disable=SC2086
usage_error "--output longer than PATH_MAX allows" $small --output "$tmp/$long"

# mkdir -p, and a 3000-character path that works end to end.
deep=$(/usr/bin/python3 -c "print('/'.join(['d' + str(i).zfill(8) for i in range(330)]))")
# shellcheck disable=SC2086
"$NODEBW" $small --output "$tmp/$deep" 2>"$tmp/err"
st=$?
check "a 3000-character --output is made and written (exit $st)" test $st -eq 0 -a -s "$tmp/$deep/results.json"
check "... and its results are complete" q "$tmp/$deep/results.json" "d['state'] == 'complete'"

# One writer per folder.
"$NODEBW" probe --api host --quiet --output "$tmp/busy" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && [ ! -s "$tmp/busy/.nodebw.lock" ]; do sleep 0.1; i=$((i + 1)); done
usage_error "a second run into a folder in use" $small --output "$tmp/busy"
check "... it names the holder's pid" grep -q "pid $pid on " "$tmp/err"
kill -TERM $pid
wait_bounded $pid 60
st=$?
check "SIGTERM: exit 143 (got $st)" test $st -eq 143
check "SIGTERM: results say interrupted by SIGTERM" q "$tmp/busy/results.json" \
	"d['state'] == 'interrupted' and d['interrupted'] is True and 'SIGTERM' in d['state_detail']"
check "SIGTERM: no stray file or lock" test -z "$(strays "$tmp/busy")"
check "SIGTERM: CSV and JSON agree" /usr/bin/python3 -c "
import csv, json, sys
d = json.load(open('$tmp/busy/results.json'))
rows = [r for r in csv.reader(open('$tmp/busy/results.csv')) if r and not r[0].startswith('#')]
sys.exit(0 if len(rows) - 1 == len(d['measurements']) else 1)"

# (env --default-signal: a test runner started under nohup hands SIGHUP down ignored.)
env --default-signal=HUP "$NODEBW" probe --api host --quiet --output "$tmp/hup" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && [ ! -s "$tmp/hup/results.json" ]; do sleep 0.1; i=$((i + 1)); done
kill -HUP $pid
wait_bounded $pid 60
st=$?
check "SIGHUP: exit 129 (got $st)" test $st -eq 129
check "SIGHUP: results say interrupted by SIGHUP" q "$tmp/hup/results.json" \
	"d['state'] == 'interrupted' and 'SIGHUP' in d['state_detail']"

# Started with SIGHUP ignored (nohup): a hang-up leaves it running; SIGTERM still stops it.
(trap '' HUP; exec "$NODEBW" probe --api host --quiet --output "$tmp/nohup" >/dev/null 2>&1) &
pid=$!
i=0
while [ $i -lt 100 ] && [ ! -s "$tmp/nohup/results.json" ]; do sleep 0.1; i=$((i + 1)); done
kill -HUP $pid
sleep 0.5
check "nohup: SIGHUP ignored, still running" kill -0 $pid
kill -TERM $pid
wait_bounded $pid 60
st=$?
check "nohup: SIGTERM ends it with exit 143 (got $st)" test $st -eq 143

# A file-size limit, as a full disk would: one line naming it, nothing half-written.
( ulimit -f 20; "$NODEBW" probe --api host --probe htod,dtoh --mode sync,parallel --threads 1 \
	--sizes 8,4KiB,64KiB --max-time 0.05 --quiet --output "$tmp/fsize" 2>"$tmp/fsize.err" )
st=$?
check "file-size limit: exit 1 (got $st)" test $st -eq 1
check "file-size limit: one line naming it" grep -q "^nodebw: error: cannot write .*File too large" "$tmp/fsize.err"
check "file-size limit: no temporary file left" test -z "$(strays "$tmp/fsize")"
check "file-size limit: results.json says it failed, and why" /usr/bin/python3 -c \
	"import json,sys; d = json.load(open('$tmp/fsize/results.json')); sys.exit(not (d['state'] == 'failed' and 'File too large' in d['state_detail']))"

# A report that does not fit (the same limit): the earlier report stays whole, and a new
# folder is not left half-written.
fx="$NODEBW_SOURCE/tests/fixtures"
"$NODEBW" report "$fx/results-omp-host-2cpu-vm.json" --output "$tmp/rep" >/dev/null 2>&1
sum_before=$(cat "$tmp/rep"/*.md "$tmp/rep"/*.html "$tmp/rep/summary.json" | cksum)
( ulimit -f 40; "$NODEBW" report "$fx/results-run-paired-2cpu-vm.json" --output "$tmp/rep" \
	>/dev/null 2>"$tmp/rep.err" )
st=$?
check "report past a file-size limit: exit 1 (got $st), one line" sh -c \
	"test $st -eq 1 && test \$(wc -l <'$tmp/rep.err') -eq 1 && grep -q 'File too large' '$tmp/rep.err'"
check "report past a file-size limit: the earlier report is untouched" \
	test "$(cat "$tmp/rep"/*.md "$tmp/rep"/*.html "$tmp/rep/summary.json" | cksum)" = "$sum_before"
check "report past a file-size limit: no staging folder left" \
	test -z "$(ls -d "$tmp"/rep.tmp* 2>/dev/null)"
( ulimit -f 40; "$NODEBW" report "$fx/results-run-paired-2cpu-vm.json" --output "$tmp/rep2" \
	>/dev/null 2>&1 )
check "report past a file-size limit into a new folder: no folder left" test ! -e "$tmp/rep2"
# A results file still saying "running": the commands that read it say whether its writer
# lives, is gone (a dead pid in the lock file) or is unknown (no lock file).
mkdir -p "$tmp/dead"
/usr/bin/python3 -c "import json; d = json.load(open('$fx/results-omp-host-2cpu-vm.json')); d['state'] = 'running'; json.dump(d, open('$tmp/dead/results.json', 'w'))"
dead=4194303 # above pid_max's default, so never a live process
while kill -0 $dead 2>/dev/null; do dead=$((dead - 1)); done
echo "pid $dead on $(hostname) since 2026-01-01T00:00:00Z" >"$tmp/dead/.nodebw.lock"
"$NODEBW" summary "$tmp/dead/results.json" >/dev/null 2>"$tmp/dead.err"
check "a dead writer: the reader says it is gone" grep -q "the nodebw writing it (pid $dead.*) is gone" "$tmp/dead.err"
echo "pid $$ on $(hostname) since 2026-01-01T00:00:00Z" >"$tmp/dead/.nodebw.lock"
"$NODEBW" matrix "$tmp/dead/results.json" >/dev/null 2>"$tmp/dead.err"
check "a live writer: the reader says it is still being written" grep -q "is still being written (pid $$" "$tmp/dead.err"
rm "$tmp/dead/.nodebw.lock"
"$NODEBW" report "$tmp/dead/results.json" >/dev/null 2>"$tmp/dead.err"
check "no lock file: the reader says it may be from a killed run" grep -q "no nodebw on this host holds its folder" "$tmp/dead.err"
# A run killed while a probe child ran (nodebw run's application-model faces): the next
# nodebw beside it removes the child's folder, its lock with it, and the application
# description the run wrote for a solver child.
mkdir -p "$tmp/side/killed/.probe-abcdef"
echo "pid 1 on nowhere since 2026-01-01T00:00:00Z" >"$tmp/side/killed/.nodebw.lock"
echo "pid 2 on nowhere since 2026-01-01T00:00:00Z" >"$tmp/side/killed/.probe-abcdef/.nodebw.lock"
echo '{}' >"$tmp/side/killed/.app-0.json"
"$NODEBW" probe --api host --probe htod --mode sync --threads 1 --sizes 8 --quiet \
	--output "$tmp/side/next" >/dev/null 2>&1
check "a killed run's probe child folder: removed by the next nodebw beside it" \
	test ! -e "$tmp/side/killed/.probe-abcdef"
check "a killed run's application description: removed likewise" \
	test ! -e "$tmp/side/killed/.app-0.json"
done_testing
