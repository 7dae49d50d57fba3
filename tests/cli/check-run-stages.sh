#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The stages of 'nodebw run' as data: --list-stages matches doc/run.md and follows the
# options; the one summary at the end (nodebw summary on recorded results): at most 40
# lines on 4 host-plugin devices, the matrices only where there are links, what did not
# converge and the hidden-helper finding computed from the data; an API asked for that
# cannot run leaves its results marked failed, with no summary.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
fx="$NODEBW_SOURCE/tests/fixtures"

"$NODEBW" run --list-stages >"$tmp/stages" 2>"$tmp/err"
st=$?
check "run --list-stages exits 0, nothing on stderr" sh -c "test $st -eq 0 && test ! -s '$tmp/err'"
check "run --list-stages matches doc/run.md, stage by stage" $py -c "
import re, sys
txt = open('$tmp/stages').read()
doc = open('$NODEBW_SOURCE/doc/run.md').read()
pat = r'^(\d+)\. (.+?) \(about (\d+) s\)\n   runs: (.*)\n   writes: (.*)\n   estimate: (.*)$'
got = re.findall(pat, txt, re.M)
assert len(got) == 8, ('stages listed', len(got))
heads = re.findall(r'^### (\d+)\. (.+)$', doc, re.M)
assert [(n, s) for n, s, *_ in got] == heads, (heads, [g[:2] for g in got])
for n, name, est, runs, writes, how in got:
    block = doc.split('### %s. %s' % (n, name), 1)[1].split('###', 1)[0]
    for key, val in (('runs', runs), ('writes', writes), ('estimate', how)):
        assert '- %s: %s\n' % (key, val) in block, (name, key, val)
total = int(re.search(r'^about (\d+) s in all$', txt, re.M).group(1))
assert abs(total - sum(int(g[2]) for g in got)) <= len(got), (total, got)
"
check "run --no-solver --list-stages leaves out the solver's stages" sh -c "
'$NODEBW' run --no-solver --list-stages >'$tmp/ns' &&
! grep -q '^[0-9]*\. solver ' '$tmp/ns' && ! grep -q '^[0-9]*\. plane-size sweep ' '$tmp/ns' &&
grep -q '^[0-9]*\. probes ' '$tmp/ns' && grep -q '^[0-9]*\. calibration and report ' '$tmp/ns'"
# The quick profile's time limit: the solver gets what is left of 300 s; --time-limit moves it.
check "the solver's estimate follows --time-limit" $py -c "
import re, subprocess
def solver(*a):
    out = subprocess.run(['$NODEBW', 'run', '--list-stages', *a], capture_output=True,
                         text=True, check=True).stdout
    return int(re.search(r'^\d+\. solver \(about (\d+) s\)', out, re.M).group(1))
assert solver('--time-limit', '600') - solver() == 300, (solver(), solver('--time-limit', '600'))
"
usage_error "run --list-stages with a bad option" run --list-stages --bogus
# On a terminal, run prints its plan first: the stages it runs with their estimates. (A
# machine without pseudo-terminals, such as a chroot without devpts, cannot show it.)
if ! $py -c "import pty; pty.openpty()" 2>/dev/null; then
	ok "# SKIP no pseudo-terminal here (devpts not mounted): the plan on a terminal"
else
check "run on a terminal prints the plan (the stages with estimates) first" $py -c "
import os, pty, re, subprocess
m, s = pty.openpty()
p = subprocess.Popen(['$NODEBW', 'run', '--api', 'host', '--probe', 'htod', '--mode', 'sync',
                      '--threads', '1', '--host-mem', 'pageable', '--sizes', '8', '--reps', '2',
                      '--max-reps', '2', '--no-solver', '--no-report', '--output', '$tmp/tty'],
                     stdout=s, stderr=s, stdin=subprocess.DEVNULL)
os.close(s)
out = b''
while True:
    try:
        d = os.read(m, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
assert p.wait() == 0
text = out.decode()
plan = re.search(r'\\] plan: (.*); about (\\d+) s in all', text)
assert plan, text[:400]
names = [x.rsplit(' ~', 1)[0] for x in plan.group(1).split(', ')]
assert names[0] == 'pre-run check' and 'calibration and report' in names and 'solver' not in names, names
probes = re.search(r'\\[nodebw run +[0-9.]+ s\\] probes: ', text)
assert probes and text.index('plan:') < probes.start(), 'the plan comes first'
"
fi

# The summary of a recorded quick run on 4 host-plugin devices (OpenMP and host).
"$NODEBW" summary "$fx/results-run-2cpu-vm.json" >"$tmp/sum" 2>"$tmp/err"
st=$?
diag "summary of results-run-2cpu-vm.json: $(wc -l <"$tmp/sum") lines"
check "nodebw summary exits 0" test $st -eq 0
check "the summary: one block, at most 40 lines" sh -c "
test \$(wc -l <'$tmp/sum') -le 40 && test \$(grep -c '^==== Summary' '$tmp/sum') -eq 1"
check "no matrix of host-plugin devices in the summary" sh -c "! grep -q 'src.dst' '$tmp/sum'"
check "the summary has the solver's table and a line per API" sh -c "
grep -q '^  2  *v1 ' '$tmp/sum' && grep -q '^  \* omp at [0-9.]* [KMG]*i*B (median over' '$tmp/sum'"
check "the hidden-helper finding, from the data" $py -c "
import json, re
d = json.load(open('$fx/results-run-2cpu-vm.json'))
key = lambda m: (m['probe'], m['mode'], m['host_mem'], m['concurrency'], m['path'], m['bytes'])
main = {key(m): m for m in d['measurements']
        if m['api'] == 'omp' and 'hht_sweep' not in m and 'plane_sweep' not in m}
best = None
for m in d['measurements']:
    b = main.get(key(m)) if m['api'] == 'omp' and 'hht_sweep' in m else None
    if b and b['hidden_helpers'] != m['hidden_helpers']:
        r = max(m['seconds']['median'], b['seconds']['median']) / min(m['seconds']['median'], b['seconds']['median'])
        best = max(best or (0,), (r, m['probe'], m['mode']))
text = ' '.join(open('$tmp/sum').read().split())
assert best and best[0] >= 2, best
assert ('hidden helpers: %s %s ' % best[1:]) in text and '(%.0fx;' % best[0] in text, (best, text)
"
# Mark a third of the points as stopped by the time cap: the summary counts them.
$py -c "
import json
d = json.load(open('$fx/results-run-2cpu-vm.json'))
for i, m in enumerate(d['measurements']):
    m['converged'] = i % 3 != 0
    m['stop'] = 'interval within +-1 %' if i % 3 else 'time cap 0.05 s'
json.dump(d, open('$tmp/nc.json', 'w'))
print(sum(1 for i in range(len(d['measurements'])) if i % 3 == 0), len(d['measurements']))
" >"$tmp/nc-count"
read -r nnc ntot <"$tmp/nc-count"
"$NODEBW" summary "$tmp/nc.json" >"$tmp/sum-nc" 2>&1
check "the summary says how many did not converge ($nnc of $ntot) and why" sh -c "
tr '\n' ' ' <'$tmp/sum-nc' | tr -s ' ' | grep -q '$nnc of $ntot measurements did not converge.*$nnc stopped by the time cap (0.05 s per size'"
check "converged points: no such line" sh -c "! grep -q 'did not converge' '$tmp/sum'"
# Real GPU pairs have links: their matrix is in the summary.
"$NODEBW" summary "$fx/results-dgx-h100-handmade.json" >"$tmp/sum-gpu" 2>&1
check "GPU links: the P2P matrix is in the summary" sh -c "
grep -q 'src.dst' '$tmp/sum-gpu' && grep -q 'NV18' '$tmp/sum-gpu'"
usage_error "nodebw summary without a file" summary
usage_error "nodebw summary with a missing file" summary "$tmp/none.json"

# A short probe ends with the same summary, one block.
"$NODEBW" probe --api host --probe htod --sizes 8,4KiB --reps 2 --max-reps 2 \
	--output "$tmp/p" >"$tmp/pout" 2>"$tmp/perr"
st=$?
check "short probe: exit 0, one summary of at most 40 lines" sh -c "
test $st -eq 0 && test \$(grep -c '^==== Summary' '$tmp/pout') -eq 1 &&
test \$(sed -n '/^==== Summary/,\$p' '$tmp/pout' | wc -l) -le 40"

# An API asked for that cannot run: failed, with the reason, and no empty summary.
if "$NODEBW" list | grep -q '^  cuda   skipped'; then
	"$NODEBW" probe --api cuda --output "$tmp/cuda" >"$tmp/cout" 2>"$tmp/cerr"
	st=$?
	check "probe --api cuda without CUDA exits 1 (status $st)" test $st -eq 1
	check "its results are marked failed, with the reason" $py -c "
import json
d = json.load(open('$tmp/cuda/results.json'))
assert d['state'] == 'failed' and 'cuda' in d['state_detail'], (d['state'], d.get('state_detail'))
"
	check "one error line naming cuda on stderr" sh -c "grep -c '^nodebw: error: .*cuda' '$tmp/cerr' | grep -qx 1"
	check "no empty summary" sh -c "! grep -q '==== Summary' '$tmp/cout'"
else
	ok "# SKIP CUDA can run here: the no-CUDA case needs a machine without it"
fi
done_testing
