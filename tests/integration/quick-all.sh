#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The acceptance run on the embedded default: `nodebw probe --quick` (every API) gives the
# OpenMP matrix on the host plugin and the host-native reference matrix, all verified, the
# vendor backends recorded as skipped with their runtime's reason, and the OpenMP-vs-native
# gap table, in a document that matches doc/results.schema.json.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
start=$(date +%s)
"$NODEBW" probe --quick --output "$tmp/r" >"$tmp/out" 2>"$tmp/err"
st=$?
end=$(date +%s)
diag "nodebw probe --quick (all APIs) took $((end - start)) s (status $st)"
check "quick run exits 0" test $st -eq 0
check "results.json written" test -s "$tmp/r/results.json"
check "results.csv written" test -s "$tmp/r/results.csv"
check "no temporary file left" sh -c "! ls '$tmp/r' | grep -q tmp"
check "table states the unit" grep -q "GB/s = 1e9 B/s" "$tmp/out"
check "gap per mode in the summary" grep -q "OpenMP vs native (gap = native - OpenMP" "$tmp/out"
check "one line per series by default" sh -c \
	"grep -q '^omp-htod sync pinned host->0: 8 B .* us, 8 MiB .* GB/s (sweep to 64 MiB: .* GB/s).*; 10/10 verified' '$tmp/out' && ! grep -q 'median GB/s' '$tmp/out'"
if $py "$NODEBW_SOURCE/tests/integration/validate_results.py" \
	"$NODEBW_SOURCE/doc/results.schema.json" "$tmp/r/results.json" --require-matrix \
	>"$tmp/val" 2>&1; then
	ok "schema and full OpenMP matrix: $(tail -n 1 "$tmp/val")"
else
	not_ok "schema and full OpenMP matrix"
	sed 's/^/#   /' "$tmp/val" | head -n 40
fi
# The whole node: every device alone and every ordered pair, for OpenMP and the host
# reference (4 host-plugin devices: 4 devices, 12 ordered pairs, 6 bidirectional pairs), at
# the matrix cells' large size (quick: 8 MiB; device 0 and the first pair sweep on to
# 64 MiB); the summary's matrices name the link, and the outlier section is there (host
# memory is not judged: one physical memory).
check "every device and every pair measured at the matrix size (omp and host)" $py -c "
import json, sys
d = json.load(open('$tmp/r/results.json'))
ms = [m for m in d['measurements'] if not m['error']]
big = max(m['bytes'] for m in ms if m['size_set'] == 'matrix')
assert big == 8 << 20 and max(m['bytes'] for m in ms) == 64 << 20, big
for api in ('omp', 'host'):
    n = sum(1 for x in d['devices'] if x['api'] == api)
    at = [m for m in ms if m['api'] == api and m['bytes'] == big and m['mode'] == 'sync']
    h = {m['streams'][0]['dst'] for m in at if m['direction'] == 'htod' and m['concurrency'] == 'single'}
    p = {(m['streams'][0]['src'], m['streams'][0]['dst']) for m in at
         if m['direction'] == 'p2p' and m['concurrency'] == 'single'}
    b = {tuple(sorted((m['streams'][0]['src'], m['streams'][0]['dst']))) for m in at
         if m['direction'] == 'p2p' and m['concurrency'] == 'bidir'}
    want = {(a, c) for a in range(n) for c in range(n) if a != c}
    assert n == 4 and h == set(range(n)) and p == want and len(b) == 6, (api, n, h, p, b)
assert isinstance(d['outliers'], list) and d['outlier_groups'], 'no outlier analysis'
"
# One summary of at most 40 lines: a line per API; host-plugin devices have no links, so
# their matrices stay with nodebw matrix (doc/run.md).
check "summary: one block of at most 40 lines, a line per API, no host-memory matrix, run time" sh -c "
test \$(grep -c '^==== Summary (GB/s = 1e9 B/s; latency in microseconds) ====' '$tmp/out') -eq 1 &&
test \$(sed -n '/^==== Summary/,\$p' '$tmp/out' | wc -l) -le 40 &&
grep -q '^  \* omp at [0-9.]* [KMG]*i*B (median' '$tmp/out' && grep -q '^  \* host at [0-9.]* [KMG]*i*B (median' '$tmp/out' &&
! grep -q 'src.dst' '$tmp/out' && grep -q 'run time [0-9.]* s' '$tmp/out'"
# Every device at once: host-to-all and all-to-host with a verified stream per device, the
# ring i -> i+1 mod 4 (OpenMP and host), and the analysis that holds them against the sum of
# each stream alone and the host memory measured alone, in results.json and the summary.
check "every device at once and the ring, verified, analysed" $py -c "
import json
d = json.load(open('$tmp/r/results.json'))
ms = [m for m in d['measurements'] if m['concurrency'] in ('all', 'ring')]
for api in ('omp', 'host'):
    for dr in ('htod', 'dtoh'):
        a = [m for m in ms if m['api'] == api and m['direction'] == dr and m['concurrency'] == 'all']
        assert a, (api, dr)
        for m in a:
            assert not m['error'] and m['verification']['status'] == 'passed', m['error']
            assert m['verification']['checked_bytes'] == 4 * m['bytes']
            ends = sorted(s['dst'] if dr == 'htod' else s['src'] for s in m['streams'])
            assert ends == [0, 1, 2, 3] and m['size_set'] == 'matrix', ends
            assert m['overlap'] and 'number of devices' in m['bytes_counting']
    r = [m for m in ms if m['api'] == api and m['concurrency'] == 'ring']
    assert r and all(sorted((s['src'], s['dst']) for s in m['streams']) ==
                     [(0, 1), (1, 2), (2, 3), (3, 0)] for m in r), api
assert not [m for m in ms if m['mode'] == 'parallel'], 'parallel is not run several at once'
rows = d['all_at_once']
assert {(x['api'], x['pattern']) for x in rows} >= {('omp', 'host-to-all'), ('omp', 'ring'),
       ('host', 'all-to-host')}, rows
# host memory measured alone is the bound, unless the aggregate went above it (then no bound)
assert all(x['host_memory_limit_gbps'] and (x['bound'] == 'host memory') ==
           (x['fraction_of_host_limit'] <= 1) for x in rows), rows
assert all(x['bound'] or 'above the host-memory reference' in x['verdict'] for x in rows)
"
check "summary: every device at once, in each API's line" sh -c \
	"tr '\\n' ' ' <'$tmp/out' | tr -s ' ' | grep -q '\* omp at [0-9.]* [KMG]*i*B (median.*every device at once [0-9.]* GB/s'"
# The host reference: every direction x mode x memory x threads it offers, all verified.
$py - "$tmp/r/results.json" >"$tmp/host" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ms = [m for m in d["measurements"] if m["api"] == "host"]
bad = [m for m in ms if m["error"] or m["verification"]["status"] != "passed"]
have = {(m["direction"], m["mode"], m["host_mem"], m["concurrency"]) for m in ms}
want = set()
for dr in ("htod", "dtoh"):
    for mo in ("sync", "async", "parallel"):
        for me in ("pageable", "pinned"):
            for c in ("single", "dual"):
                want.add((dr, mo, me, c))
for mo in ("sync", "async", "parallel"):
    for c in ("single", "bidir"):
        want.add(("p2p", mo, "none", c))
missing = sorted(want - have)
devs = [x for x in d["devices"] if x["api"] == "host"]
skips = [s for s in d["skipped"] if s["api"] == "host" and s["what"] == "nowait"]
kskips = [s for s in d["skipped"] if s["api"] == "host" and s["what"] == "kernel"]
timed = [m for m in ms if m["mode"] == "async" and all("device_samples_s" in s for s in m["streams"])]
gated = [m for m in ms if m["mode"] == "async" and m["concurrency"] != "single"
         and m["start"].startswith("backend gate")]
print(f"{len(ms)} host measurements, {len(bad)} bad, {len(missing)} combinations missing, "
      f"{len(timed)} async timed on the copying thread, {len(gated)} gated")
for m in missing[:10]:
    print("missing", m)
ok = (ms and not bad and not missing and len(devs) == 4
      and all(not x["is_gpu"] and x["kind"] == "host-memory" for x in devs)
      and len(skips) == 3 and all("OpenMP" in s["reason"] for s in skips)
      and len(kskips) == 3 and all("no copy kernel" in s["reason"] for s in kskips)
      and timed and gated)
sys.exit(0 if ok else 1)
PY
if [ $? -eq 0 ]; then ok "host matrix: $(head -n 1 "$tmp/host")"; else
	not_ok "host matrix"; sed 's/^/#   /' "$tmp/host"; fi
# Gap rows: OpenMP paired with the host reference on matching devices; nowait with async.
check "gap rows for every OpenMP mode, one and two devices" $py -c "
import json, sys
d = json.load(open('$tmp/r/results.json'))
g = d['gaps']
rows = g['rows']
keys = {(r['omp_mode'], r['devices']) for r in rows}
want = {(m, n) for m in ('sync', 'async', 'nowait') for n in (1, 2)}
ok = want <= keys and all(r['native_api'] == 'host' for r in rows)
ok = ok and all(abs(r['gap_gbps'] - (r['native_gbps'] - r['omp_gbps'])) <= 1e-8 * max(abs(r['native_gbps']), abs(r['omp_gbps']), 1e-9) for r in rows)
ok = ok and all(r['native_mode'] == 'async' for r in rows if r['omp_mode'] == 'nowait')
ok = ok and any(s['direction'] == 'all' for s in g['summary'])
omp = [x for x in d['devices'] if x['api'] == 'omp']
ok = ok and all(x.get('native', {}).get('api') == 'host' for x in omp)
sys.exit(0 if ok else 1)"
check "nodebw gap recomputes the same table from the file" sh -c "
	'$NODEBW' gap '$tmp/r/results.json' >'$tmp/gap' &&
	grep -q 'OpenMP vs native gap (gap = native - OpenMP, signed' '$tmp/gap' &&
	test \$(grep -c '^  host ' '$tmp/gap') -eq \$($py -c \"import json; print(len(json.load(open('$tmp/r/results.json'))['gaps']['summary']))\")"
check "nodebw gap holds OpenMP's kernel copies against its sync copies" sh -c "
	grep -q '^Kernel copy vs API copy' '$tmp/gap' &&
	grep -q '^  omp  htod  pinned    single  h->0 ' '$tmp/gap' &&
	grep -q '^  omp  p2p   none      single  0->1 ' '$tmp/gap'"
check "binding on by default and recorded; host memory has no theoretical link" $py -c "
import json, sys
d = json.load(open('$tmp/r/results.json'))
ms = [m for m in d['measurements'] if not m['error']]
ok = all(m['binding']['policy'] == 'local' and m['binding']['node'] is not None for m in ms)
ok = ok and all(m['theoretical']['gbps'] is None and 'host memory' in m['theoretical']['link'] for m in ms)
hp = [m for m in ms if m['direction'] != 'p2p']
ok = ok and all(m['binding']['host_pages'].startswith('node ') for m in hp)
ok = ok and isinstance(d.get('topology'), dict)
sys.exit(0 if ok else 1)"
check "CSV has one row per measurement" $py -c "
import json, sys
d = json.load(open('$tmp/r/results.json'))
rows = [l for l in open('$tmp/r/results.csv') if not l.startswith('#')]
sys.exit(0 if len(rows) - 1 == len(d['measurements']) else 1)"
done_testing
