#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# All-to-all on the host plugin (4 devices): one series in which every ordered pair copies
# at once (12 streams, each verified and with its own GB/s, and the aggregate), its row in
# the every-device-at-once table, its verdicts from `nodebw check --thresholds` (each pair,
# the aggregate, host-to-all and all-to-host), "bidirectional" shown as the sum and each
# direction, and the new thresholds keys refused where they cannot apply (exit 2).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
ex="$NODEBW_SOURCE/doc/examples"

"$NODEBW" probe --api omp --probe p2p,htod,dtoh --mode sync --threads 2,all --sizes 1MiB \
	--output "$tmp/r" >"$tmp/out" 2>"$tmp/err"
check "probe with --threads all (all-to-all among them) exits 0" test $? -eq 0
check "the terminal names the series: every device to each other" \
	grep -q '^omp-p2p sync none 0+1+2+3->each other (all-to-all): ' "$tmp/out"
check "one all-to-all measurement: every ordered pair once, verified, its own GB/s each" $py -c "
import json
d = json.load(open('$tmp/r/results.json'))
a = [m for m in d['measurements'] if m['concurrency'] == 'a2a']
assert len(a) == 1, len(a)
m = a[0]
assert not m['error'] and m['verification']['status'] == 'passed', m['error']
pairs = sorted((s['src'], s['dst']) for s in m['streams'])
assert pairs == [(i, j) for i in range(4) for j in range(4) if i != j], pairs
assert m['verification']['checked_bytes'] == 12 * m['bytes'], m['verification']
assert all(s['gbps']['median'] > 0 and s['alone_gbps']['median'] > 0 for s in m['streams'])
assert 'n(n-1) x size' in m['bytes_counting'] and '12 host threads' in m['start'], m['start']
assert m['overlap'] and m['size_set'] == 'matrix'
rows = [r for r in d['all_at_once'] if r['pattern'] == 'all-to-all']
assert len(rows) == 1 and len(rows[0]['streams']) == 12, rows
assert sorted(rows[0]['devices']) == [0, 1, 2, 3], rows[0]['devices']
assert abs(rows[0]['aggregate_gbps'] - m['gbps']['median']) <= 1e-6 * m['gbps']['median']
"
"$NODEBW" check --json --thresholds "$ex/thresholds-all-at-once.json" "$tmp/r/results.json" \
	>"$tmp/v.json" 2>"$tmp/err"
check "check with the all-at-once example thresholds: exit 0" test $? -eq 0
check "verdicts: each of the 12 pairs, the aggregates, both directions of each bidir pair" $py -c "
import json
d = json.load(open('$tmp/v.json'))
ps = [p for p in d['paths'] if p['api'] == 'omp']
pairs = {p['where'] for p in ps if p['concurrency'] == 'a2a' and not p['aggregate']}
assert pairs == {'%d->%d' % (i, j) for i in range(4) for j in range(4) if i != j}, pairs
aggs = {(p['direction'], p['where']) for p in ps if p['aggregate']}
assert aggs == {('p2p', 'aggregate'), ('htod', 'host->all'), ('dtoh', 'all->host')}, aggs
for p in ps:
    if p['concurrency'] in ('a2a', 'all', 'bidir'):
        assert p['verdict'] == 'pass', p
        assert [j['against'] for j in p['judgements']] == ['threshold'], p
    if p['concurrency'] == 'bidir':
        b = p['bidir']
        assert b['sum_gbps'] > 0 and len(b['directions']) == 2 and 'sum = 2 x size' in b['definition']
        assert '(the slower direction)' in p['judgements'][0]['reason']
        assert p['judgements'][0]['gbps'] == min(x['gbps'] for x in b['directions'])
assert d['unmatched_thresholds'] == [], d['unmatched_thresholds']
"
cat >"$tmp/high.json" <<'J'
{"schema": "nodebw-thresholds", "version": 1, "rules": [
 {"gpu": "host plugin", "api": "omp", "direction": "p2p", "concurrency": "a2a", "min_gbps": 100000}]}
J
"$NODEBW" check --all --thresholds "$tmp/high.json" "$tmp/r/results.json" >"$tmp/out" 2>"$tmp/err"
check "a pair below its all-to-all minimum: exit 1, every pair named, not the aggregate" sh -c "
[ $? -eq 1 ] && [ \$(grep -c 'below threshold omp   p2p a2a    [0-3]->[0-3] ' '$tmp/out') -eq 12 ] &&
grep -q 'not judged      omp   p2p a2a    aggregate' '$tmp/out'"
check "a bidirectional path shows the sum and each direction" \
	grep -q 'both directions at once: sum [0-9.]* GB/s; 0->1 [0-9.]*, 1->0 [0-9.]* GB/s' "$tmp/out"
"$NODEBW" matrix "$tmp/r/results.json" >"$tmp/mx" 2>&1
check "nodebw matrix: the sum grid and each direction's grid of both directions at once" sh -c \
	"grep -q 'bandwidth at 1 MiB, the sum of both directions' '$tmp/mx' &&
	 grep -q '^  each direction at 1 MiB' '$tmp/mx' && grep -q 'all-to-all' '$tmp/mx'"

bad() { # NAME EXPECT-IN-STDERR (fixed string) RULE
	printf '{"schema": "nodebw-thresholds", "version": 1, "rules": [%s]}' "$3" >"$tmp/bad.json"
	"$NODEBW" check --thresholds "$tmp/bad.json" "$tmp/r/results.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	ok=no
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -F -- "$2" "$tmp/err" &&
		[ ! -s "$tmp/out" ] && ok=yes
	check "$1: exit 2, one line naming it" test $ok = yes
}
bad "a2a for host-to-device" "a2a (every ordered pair at once) is a P2P concurrency" \
	'{"gpu": "*", "direction": "htod", "concurrency": "a2a", "min_gbps": 1}'
bad "aggregate on one copy at a time" "only copies at the same time (a2a, all) have an aggregate" \
	'{"gpu": "*", "direction": "p2p", "aggregate": true, "min_gbps": 1}'
bad "bidir_figure on a one-direction rule" "only a bidirectional (bidir) rule" \
	'{"gpu": "*", "direction": "p2p", "bidir_figure": "sum", "min_gbps": 1}'
done_testing
