#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Command-line conventions: -h and --help on every command and 'nodebw help CMD' (the same
# text), --version with the git revision, one profile at a time, --json on list, probe and
# run giving JSON alone on stdout, and the man page and bash completion (made from the help
# texts, tools/make-docs.py) installed under a DESTDIR with the documentation, the schemas
# and the private libraries in <libdir>/nodebw/.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build=$(dirname "$(dirname "$NODEBW")")

# A build without OpenMP offload has no heat command (it says so; tests/cli/check-no-offload.sh).
cmds="list probe run gap matrix summary topo predict report heat fleet compare"
"$NODEBW" --version | grep -q "offload targets: none" && cmds="list probe run gap matrix summary topo predict report fleet compare"
for c in $cmds; do
	timeout 30 "$NODEBW" "$c" -h >"$tmp/h" 2>&1
	s1=$?
	timeout 30 "$NODEBW" "$c" --help >"$tmp/help" 2>&1
	s2=$?
	timeout 30 "$NODEBW" help "$c" >"$tmp/helpcmd" 2>&1
	s3=$?
	check "$c: -h, --help and 'help $c' exit 0 with one usage text ($s1 $s2 $s3)" sh -c \
		"[ $s1 -eq 0 ] && [ $s2 -eq 0 ] && [ $s3 -eq 0 ] && grep -q '^Usage: nodebw $c' '$tmp/h' && cmp -s '$tmp/h' '$tmp/help' && cmp -s '$tmp/h' '$tmp/helpcmd'"
done
usage_error_matching "help of an unknown command" "unknown command 'frob'" help frob
usage_error_matching "help with two commands" "one command" help probe run

"$NODEBW" --version >"$tmp/v"
check "--version names the revision ($(cat "$tmp/v"))" grep -q "^nodebw [0-9.]*, revision [0-9a-z-]" "$tmp/v"

usage_error_matching "--quick --full" "--quick and --full exclude each other" probe --quick --full
usage_error_matching "run --full --default" "--full and --default exclude each other" \
	run --full --default
timeout 30 "$NODEBW" probe --quick --quick --help >/dev/null 2>&1
check "the same profile twice is fine (status $?)" test $? -eq 0

timeout 60 "$NODEBW" list --json >"$tmp/list.json" 2>"$tmp/err"
check "list --json: one JSON object with devices and probes" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['devices'] and d['probes'] and 'revision' in d
assert all({'api', 'id', 'kind', 'name'} <= set(x) for x in d['devices'])" "$tmp/list.json"
timeout 120 "$NODEBW" probe --api host --probe htod --sizes 8,4KiB --reps 2 --max-reps 2 \
	--json --output "$tmp/p" >"$tmp/p.json" 2>"$tmp/err"
check "probe --json: the results document alone on stdout (status $?)" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['schema'] == 'nodebw-results' and d['state'] == 'complete' and d['measurements']
assert d == json.load(open(sys.argv[2]))" "$tmp/p.json" "$tmp/p/results.json"
check "probe --json: the counts went to stderr" grep -q "measurements: .* verified" "$tmp/err"
# results.csv is ready for pandas.read_csv(path) with no options: the header first (no
# comment line), every row as wide as the header, one row per measurement.
check "results.csv: header first, every row the header's width, one row per measurement" \
	python3 -c "
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
h = rows[0]
assert h[:3] == ['api', 'probe', 'direction'] and 'theoretical_gbps' in h and 'device_kind' in h, h
assert all(len(r) == len(h) for r in rows), {len(r) for r in rows}
assert len(rows) - 1 == len(json.load(open(sys.argv[2]))['measurements'])
kinds = {d['kind'] for d in json.load(open(sys.argv[2]))['devices'] if d['api'] == 'host'}
assert {r[h.index('device_kind')] for r in rows[1:]} == kinds, kinds" "$tmp/p/results.csv" \
	"$tmp/p/results.json"
timeout 300 "$NODEBW" run --api host --probe htod --sizes 8 --reps 2 --max-reps 2 --no-solver \
	--no-report --json --output "$tmp/r" >"$tmp/r.json" 2>"$tmp/err"
check "run --json: the results document alone on stdout, progress on stderr (status $?)" \
	sh -c "python3 -c \"import json,sys; json.load(open(sys.argv[1]))\" '$tmp/r.json' && grep -q '^\[nodebw run' '$tmp/err'"

# A DESTDIR install: man page, completion, documentation, schemas, private libraries.
if meson install -C "$build" --destdir "$tmp/dest" --quiet >"$tmp/inst" 2>&1; then
	man=$(find "$tmp/dest" -path '*/share/man/man1/nodebw.1')
	comp=$(find "$tmp/dest" -path '*/share/bash-completion/completions/nodebw')
	check "man page installed" test -s "$man"
	check "the man page has every command" sh -c \
		"for c in $cmds; do grep -q \"^.SS \$c\" '$man' || exit 1; done"
	check "bash completion installed" test -s "$comp"
	check "completion offers probe's options" bash -c \
		". '$comp'; COMP_WORDS=(nodebw probe --hid); COMP_CWORD=2; _nodebw; [ \"\${COMPREPLY[*]}\" = --hidden-helpers ]"
	check "completion offers the commands" bash -c \
		". '$comp'; COMP_WORDS=(nodebw pr); COMP_CWORD=1; _nodebw; [ \"\${COMPREPLY[*]}\" = 'probe predict' ]"
	check "schemas installed" sh -c "find '$tmp/dest' -path '*/share/nodebw/schemas/results.schema.json' | grep -q ."
	check "documentation installed" sh -c "find '$tmp/dest' -path '*/share/doc/nodebw/architecture.md' | grep -q ."
	check "private libraries in <libdir>/nodebw/" sh -c \
		"find '$tmp/dest' -name 'libnodebw-omp.so' -path '*/nodebw/*' | grep -q . || ! find '$build' -name 'libnodebw-omp.so' | grep -q ."
	check "no nodebw library directly in <libdir>" sh -c \
		"! find '$tmp/dest' -name 'libnodebw*' ! -path '*/lib*/nodebw/*' | grep -q ."
else
	not_ok "meson install --destdir failed"
	sed 's/^/#   /' "$tmp/inst" | tail -5
fi
done_testing
