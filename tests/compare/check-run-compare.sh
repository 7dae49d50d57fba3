#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nodebw compare A B: a recorded run against a copy with one path's times doubled and
# another's halved must list the doubled path first, worse beyond noise at about half the
# bandwidth, and the halved one better at about twice; the run against itself is unchanged
# everywhere; run folders give what files give; --json is the table's figures and nothing
# else on stdout; a B whose comparison size differs is read at A's and says so; the report
# of the two files has the same table; bad input is one line and exit 2.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
a="$NODEBW_SOURCE/tests/fixtures/results-run-2cpu-vm.json"
edit="$NODEBW_SOURCE/tests/compare/edit-run.py"
$py "$edit" "$a" "$tmp/b.json" scale omp htod sync pinned 2 scale omp dtoh sync pinned 0.5
check "the edited copy is written" test -s "$tmp/b.json"

# json_is FILE EXPR: a Python expression on the comparison (c; paths by name: p) is true
json_is() {
	$py - "$1" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in c["paths"]}
ok = eval(sys.argv[2])
if not ok:
    for x in c["paths"]:
        print("#", x["verdict"], x["name"], x["ratio"])
sys.exit(0 if ok else 1)
PY
}

"$NODEBW" compare "$a" "$tmp/b.json" >"$tmp/term" 2>"$tmp/err"
check "A against the edited B: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
"$NODEBW" compare --json "$a" "$tmp/b.json" >"$tmp/c.json" 2>"$tmp/err"
check "--json: exit 0" test $? -eq 0
check "--json: stdout is one JSON document" $py -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/c.json"
check "the doubled path is listed first, worse beyond noise, B/A about 0.5" json_is "$tmp/c.json" \
	"c['paths'][0]['name'] == 'omp htod sync pinned' and c['paths'][0]['verdict'] == 'worse' and 0.45 < c['paths'][0]['ratio'] < 0.55"
check "B's range of it is wholly below A's" json_is "$tmp/c.json" \
	"p['omp htod sync pinned']['b']['hi_gbps'] < p['omp htod sync pinned']['a']['lo_gbps']"
check "the halved path is better beyond noise, B/A about 2" json_is "$tmp/c.json" \
	"p['omp dtoh sync pinned']['verdict'] == 'better' and 1.8 < p['omp dtoh sync pinned']['ratio'] < 2.2"
check "the untouched paths are within noise" json_is "$tmp/c.json" \
	"all(p[n]['verdict'] == 'within noise' for n in ('omp htod async pinned', 'omp dtoh async pinned', 'omp p2p sync', 'omp p2p async'))"
check "worse, then better, then within noise, then only in one run" json_is "$tmp/c.json" \
	"[x['verdict'] for x in c['paths']] == sorted([x['verdict'] for x in c['paths']], key=['worse', 'better', 'within noise', 'not judged', 'only in A', 'only in B'].index)"
check "both runs at 64 MiB, the size of every path" json_is "$tmp/c.json" \
	"c['bytes'] == 67108864 and all(x['bytes'] == 67108864 for x in c['paths'])"
check "the top names both files, host, date and version" json_is "$tmp/c.json" \
	"c['a']['host'] == 'vm' and c['a']['created'] == '2026-11-30T05:52:35Z' and c['a']['version'] == '0.1.0' and c['b']['file'].endswith('b.json') and not c['hosts_differ']"
check "the terminal's first row is the doubled path" sh -c \
	"grep -A2 '^Worse (beyond noise): ' '$tmp/term' | sed -n 3p | grep -q '^  omp htod sync pinned '"
check "the terminal names both files and the unit" sh -c \
	"grep -qF 'A: $a' '$tmp/term' && grep -qF 'GB/s = 1e9 bytes per second' '$tmp/term'"
# Every figure of the JSON is the one in the table (two decimals).
same_figures() {
	$py - "$tmp/c.json" "$tmp/term" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
rows = [l for l in open(sys.argv[2]) if l.startswith("  ") and "[" in l]
bad = 0
for x in c["paths"]:
    want = []
    for s in ("a", "b"):
        if x[s]:
            want.append("%.2f [%.2f-%.2f]" % (x[s]["gbps"], x[s]["lo_gbps"], x[s]["hi_gbps"]))
    if x["ratio"] is not None:
        want.append("%.2f" % x["ratio"])
    if not any(l.split()[0:len(x["name"].split())] == x["name"].split() and all(w in l for w in want) for l in rows):
        print("# not in the table:", x["name"], want)
        bad += 1
sys.exit(1 if bad or not c["paths"] else 0)
PY
}
check "--json holds the table's figures, path by path" same_figures

"$NODEBW" compare --json "$a" "$a" >"$tmp/self.json" 2>/dev/null
check "a run against itself: every path within noise, B/A 1" json_is "$tmp/self.json" \
	"c['paths'] and all(x['verdict'] == 'within noise' and x['ratio'] == 1 for x in c['paths'])"

mkdir -p "$tmp/runA" "$tmp/runB"
cp "$a" "$tmp/runA/results.json"
cp "$tmp/b.json" "$tmp/runB/results.json"
"$NODEBW" compare --json "$tmp/runA" "$tmp/runB" >"$tmp/dirs.json" 2>"$tmp/err"
check "run folders: exit 0" test $? -eq 0 -a ! -s "$tmp/err"
check "run folders give the figures files give" $py -c "
import json, sys
f, d = (json.load(open(x)) for x in sys.argv[1:])
sys.exit(0 if f['paths'] == d['paths'] and d['a']['file'].endswith('runA/results.json') else 1)" \
	"$tmp/c.json" "$tmp/dirs.json"

# B without its 64 MiB measurements: its comparison size moves; it is read at A's and says
# it has nothing there, never a figure from another size.
$py "$edit" "$a" "$tmp/small.json" drop 67108864
"$NODEBW" compare --json "$a" "$tmp/small.json" >"$tmp/small-c.json" 2>/dev/null
check "another comparison size: read at A's, B has no figure there" json_is "$tmp/small-c.json" \
	"c['b']['comparison_bytes'] != 67108864 and c['paths'] and all(x['verdict'] == 'only in A' and x['b'] is None and x['b_at_other_size'] for x in c['paths'])"
"$NODEBW" compare "$a" "$tmp/small.json" >"$tmp/small.txt" 2>/dev/null
check "another comparison size: the terminal says so" grep -q "A's comparison size (B's own is" "$tmp/small.txt"

"$NODEBW" report --output "$tmp/rep" "$a" "$tmp/b.json" >/dev/null 2>"$tmp/err"
check "nodebw report A B: exit 0" test $? -eq 0
check "the report's table (CSV) lists the doubled path first, worse" sh -c \
	"sed -n 2p '$tmp/rep/tables/run-compare.csv' | grep -q '^worse,omp htod sync pinned,67108864,'"
check "report.md has the section" grep -q "^## Run B against run A" "$tmp/rep/report.md"

echo '{"hello": 1}' >"$tmp/other.json"
usage_error "a missing file" compare "$a" "$tmp/missing.json"
usage_error "three arguments" compare "$a" "$a" "$a"
usage_error "a JSON file that is no results file" compare "$a" "$tmp/other.json"
usage_error "a folder without results.json" compare "$a" "$tmp/rep/tables"
usage_error "one results file alone" compare "$a"
usage_error "a fleet option with two runs" compare --output "$tmp/x" "$a" "$a"
done_testing
