#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The terminal of 'nodebw run': on a terminal (util-linux script gives one) one status line
# rewritten in place ("\r", erase to the end of the line), every line within 100 columns,
# the per-series lines in run.log (and on the terminal with --verbose); without a terminal
# the per-series lines on stdout as before; the measurements planned at the start are the
# ones made. No clock is raced: the checks read what the run printed.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
short="--api host --probe htod --mode sync,async --threads 1,2 --host-mem pageable --sizes 8,4KiB"
short="$short --reps 2 --max-reps 2 --no-solver --no-report"

if ! command -v script >/dev/null 2>&1 || ! $py -c "import pty; pty.openpty()" 2>/dev/null; then
	ok "# SKIP no script(1) or no pseudo-terminal here: the terminal checks"
else
	# shellcheck disable=SC2086
	script -qec "'$NODEBW' run $short --output '$tmp/tty'" /dev/null </dev/null >"$tmp/tty.out" 2>&1
	st=$?
	# shellcheck disable=SC2086
	script -qec "'$NODEBW' run $short --verbose --output '$tmp/verb'" /dev/null </dev/null \
		>"$tmp/verb.out" 2>&1
	vst=$?
	check "run on a terminal exits 0 (status $st, --verbose $vst)" sh -c "test $st -eq 0 && test $vst -eq 0"
	diag "terminal: $(wc -l <"$tmp/tty.out") lines, $(tr '\r' '\n' <"$tmp/tty.out" | wc -l) after splitting on CR"
	check "the status line is rewritten in place (CR and erase to the end of the line)" $py -c "
t = open('$tmp/tty.out', 'rb').read()
assert t.count(b'\r\x1b[K') >= 2, t[:300]
assert b'measurements ' in t and b'] probes: series ' in t, t[:300]
"
	check "every line on the terminal fits 100 columns (after CR/LF and escapes)" $py -c "
import re
for f in ('$tmp/tty.out', '$tmp/verb.out'):
    t = open(f, encoding='utf-8').read()
    for line in re.split(r'[\r\n]', t):
        line = re.sub(r'\x1b\[[0-9;]*[A-Za-z]', '', line)
        assert len(line) <= 100, (f, len(line), line)
"
	check "no blank line between the stage lines" $py -c "
import re
t = open('$tmp/tty.out', encoding='utf-8').read().split('==== Summary')[0]
lines = [re.sub(r'\x1b\[[0-9;]*[A-Za-z]', '', l) for l in re.split(r'\r?\n', t)]
lines = [l.split('\r')[-1] for l in lines]
for a, b in zip(lines, lines[1:]):
    assert not (a.strip() == '' and b.startswith('[nodebw run')), (a, b)
"
	check "run.log holds the per-series lines, the terminal does not" sh -c "
grep -q 'host-htod sync pageable host->0: 8 B' '$tmp/tty/run.log' &&
! grep -q 'host-htod sync pageable host->0: 8 B' '$tmp/tty.out'"
	check "--verbose on a terminal prints the per-series lines too" sh -c "
grep -q 'host-htod sync pageable host->0: 8 B' '$tmp/verb.out' &&
grep -q 'host-htod sync pageable host->0: 8 B' '$tmp/verb/run.log'"
	check "the plan's count is printed first and met at the end" $py -c "
import json, re
t = open('$tmp/tty.out', encoding='utf-8').read()
t = ' '.join(re.sub(r'\x1b\[[0-9;]*[A-Za-z]', '', t).replace('\r', '\n').split())
plan = int(re.search(r'plan: .*?; (\d+) measurements \(probes \d+\)', t).group(1))
done, planned = map(int, re.search(r'\] (\d+) measurements of (\d+) planned', t).groups())
n = len(json.load(open('$tmp/tty/results.json'))['measurements'])
assert plan == planned == done == n, (plan, planned, done, n)
assert re.search(r'measurements %d/%d' % (n, n), t), 'the status counts against the plan'
"
fi

# Without a terminal: the per-series lines on stdout as before, no status line.
# shellcheck disable=SC2086
"$NODEBW" run $short --output "$tmp/file" >"$tmp/file.out" 2>"$tmp/file.err"
st=$?
check "run without a terminal exits 0 (status $st)" test $st -eq 0
check "without a terminal: the per-series lines on stdout and in run.log" sh -c "
grep -q 'host-htod sync pageable host->0: 8 B' '$tmp/file.out' &&
grep -q 'host-htod sync pageable host->0: 8 B' '$tmp/file/run.log'"
check "without a terminal: no status line, every line within 100 columns" $py -c "
for f in ('$tmp/file.out', '$tmp/file.err'):
    t = open(f, encoding='utf-8').read()
    assert '\r' not in t and '\x1b' not in t, f
    for line in t.split('\n'):
        assert len(line) <= 100, (f, len(line), line)
"
check "without a terminal: the stage lines on stderr, and the count met" sh -c "
grep -q '^\[nodebw run .*\] probes: [0-9]* measurements of [0-9]* planned' '$tmp/file.err'"
done_testing
