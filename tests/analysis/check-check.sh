#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `nodebw check`: the hand-made DGX-H100 document against the shipped published figures (its
# two planted faults fail, nothing else), the theoretical figures alone, a site's thresholds
# on the recorded host-plugin document and on a small real probe run (check.json beside the
# results), and bad input: one line on stderr, exit 2, nothing on stdout.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
ex="$NODEBW_SOURCE/doc/examples"

"$NODEBW" check --help >"$tmp/out" 2>"$tmp/err"
check "check --help exits 0" test $? -eq 0
check "check --help states the unit and the exit statuses" sh -c \
	"grep -q '1e9' '$tmp/out' && grep -q 'Exit status' '$tmp/out'"
check "the example thresholds follow doc/thresholds.schema.json; a misspelt key does not" \
	/usr/bin/python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for f in sys.argv[2:]:
    jsonschema.validate(json.load(open(f)), schema)
bad = {"schema": "nodebw-thresholds", "version": 1,
       "rules": [{"gpu": "H100", "direction": "htod", "min_gbsp": 48}]}
try:
    jsonschema.validate(bad, schema)
    sys.exit("a misspelt key passed the schema")
except jsonschema.ValidationError:
    pass
' "$NODEBW_SOURCE/doc/thresholds.schema.json" "$ex/thresholds-host-plugin.json" "$ex/thresholds-site.json"
"$NODEBW" --help >"$tmp/out"
check "nodebw --help lists check" grep -q "^  check" "$tmp/out"

"$NODEBW" check "$fx/results-dgx-h100-handmade.json" >"$tmp/h100" 2>"$tmp/err"
check "DGX-H100 document against the published figures: exit 1" test $? -eq 1
check "its text names the unit and the two faults" sh -c \
	"grep -q 'GB/s = 1e9 B/s' '$tmp/h100' && grep -q 'p2p single 3->6 ' '$tmp/h100' &&
	 grep -q 'htod single 5 ' '$tmp/h100'"
"$NODEBW" check --json "$fx/results-dgx-h100-handmade.json" >"$tmp/h100.json"
check "--json: exit 1" test $? -eq 1
check "--json: only pair 3-6 (both directions, single and bidir) and device 5 fail, each with its source" \
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bad = {(p["direction"], p["concurrency"], p["where"]) for p in d["paths"] if p["verdict"] != "pass"}
want = {("p2p", "single", "3->6"), ("p2p", "single", "6->3"), ("p2p", "bidir", "3<->6"),
        ("p2p", "bidir", "6<->3"), ("htod", "single", "5"), ("dtoh", "single", "5")}
assert bad == want, bad
assert d["failed"] == 6 and d["counts"]["pass"] == len(d["paths"]) - 6
for p in d["paths"]:
    if p["verdict"] == "below reference":
        pub = [j for j in p["judgements"] if j["against"] == "published" and j["verdict"] != "pass"]
        assert pub and all(j["source"] for j in pub), p
' "$tmp/h100.json"

"$NODEBW" check --references none --json "$fx/results-dgx-h100-handmade.json" >"$tmp/th.json"
check "--references none: exit 1 on the theoretical figures alone" test $? -eq 1
check "--references none: judged against the theoretical figures only" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ag = {j["against"] for p in d["paths"] for j in p["judgements"]}
assert ag == {"theoretical"}, ag
assert d.get("references_file") is None
' "$tmp/th.json"

"$NODEBW" check --thresholds "$ex/thresholds-host-plugin.json" --json \
	"$fx/results-omp-host-2cpu-vm.json" >"$tmp/hp.json"
check "host-plugin recording with the example thresholds: exit 1 (P2P fails on purpose)" \
	test $? -eq 1
check "the P2P paths are below the threshold, HtoD passes, host regions are not judged" \
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = {}
for p in d["paths"]:
    v.setdefault((p["api"], p["direction"]), set()).add(p["verdict"])
single = {p["verdict"] for p in d["paths"] if p["api"] == "omp" and
          p["direction"] == "p2p" and p["concurrency"] == "single"}
assert single == {"below threshold"}, single
assert v[("omp", "htod")] == {"pass"}, v
assert all(s == {"not judged"} for (a, _), s in v.items() if a == "host"), v
' "$tmp/hp.json"

cat >"$tmp/pass.json" <<'J'
{"schema": "nodebw-thresholds", "version": 1, "rules": [
 {"gpu": "host plugin", "api": "omp", "direction": "htod", "min_gbps": 0.001}]}
J
"$NODEBW" check --thresholds "$tmp/pass.json" "$fx/results-omp-host-2cpu-vm.json" >"$tmp/out"
check "thresholds every path they name meets: exit 0, PASS first" sh -c \
	"[ $? -eq 0 ] && head -1 '$tmp/out' | grep -q '^PASS: '"
cat >"$tmp/pass.json" <<'J'
{"schema": "nodebw-thresholds", "version": 1, "rules": [
 {"gpu": "host plugin", "api": "omp", "direction": "htod", "min_gbps": 0.001},
 {"gpu": "H200", "direction": "p2p", "min_gbps": 335}]}
J
"$NODEBW" check --thresholds "$tmp/pass.json" "$fx/results-omp-host-2cpu-vm.json" >"$tmp/out"
check "... and one more that names no measured path: exit 3 (not judged)" test $? -eq 3
check "a threshold that names no measured path is said" grep -q 'matches no measured path' "$tmp/out"

bad() { # NAME EXPECT-IN-STDERR (fixed string) ARGS...
	name=$1 want=$2
	shift 2
	"$NODEBW" check "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	ok=no
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -F -- "$want" "$tmp/err" &&
		[ ! -s "$tmp/out" ] && ok=yes
	check "$name: exit 2, one line naming it, nothing on stdout" test $ok = yes
}
printf '{"schema": "nodebw-thresholds", "version": 1, "rules": [\n {"gpu": "H100", "direction": "htod", "min_gbsp": 48}]}\n' >"$tmp/typo.json"
bad "a misspelt key" "typo.json:2:51: rules[0].min_gbsp: unknown key" \
	--thresholds "$tmp/typo.json" "$fx/results-dgx-h100-handmade.json"
printf '{"schema": "nodebw-thresholds", "version": 1, "rules": [{"gpu": "H100", "direction": "up", "min_gbps": 48}]}' >"$tmp/dir.json"
bad "an unknown direction" "'up' is not one of htod, dtoh, p2p" \
	--thresholds "$tmp/dir.json" "$fx/results-dgx-h100-handmade.json"
printf '{"schema": "nodebw-thresholds", "version": 1, "rules": [{"gpu": "H100", "direction": "htod", "min_gbps": -1}]}' >"$tmp/neg.json"
bad "a negative threshold" "min_gbps: must be a number" \
	--thresholds "$tmp/neg.json" "$fx/results-dgx-h100-handmade.json"
bad "a results file as thresholds" "not a thresholds file" \
	--thresholds "$fx/results-dgx-h100-handmade.json" "$fx/results-dgx-h100-handmade.json"
bad "a missing thresholds file" "nothing-here.json" \
	--thresholds "$tmp/nothing-here.json" "$fx/results-dgx-h100-handmade.json"
bad "a tolerance out of range" "tolerance" --tolerance 150 "$fx/results-dgx-h100-handmade.json"
printf '{"schema": "nodebw-results"' >"$tmp/cut.json"
bad "a cut results file" "cut.json" "$tmp/cut.json"
bad "a missing results file" "nothing.json: No such file" "$tmp/nothing.json"
bad "a folder as the results file" "not a regular file" "$tmp"
bad "probe --check with a bad thresholds file, before anything runs" "typo.json" \
	--thresholds "$tmp/typo.json" --api host --output "$tmp/never"
check "... and no results folder was made" test ! -e "$tmp/never"

"$NODEBW" check --thresholds "$ex/thresholds-host-plugin.json" --quick --api host \
	--probe htod --sizes 4M --threads 1 --output "$tmp/run" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "check with probe options runs the probes and judges them (host: not judged, exit 3)" \
	sh -c "[ $rc -eq 3 ] && [ -s '$tmp/run/results.json' ] && grep -q '^Verdicts' '$tmp/out' &&
	       grep -q '^NOT JUDGED: ' '$tmp/out'"
check "check.json is saved beside results.json" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["paths"] and all(p["verdict"] == "not judged" for p in d["paths"]), d
' "$tmp/run/check.json"
"$NODEBW" probe --check "$ex/thresholds-host-plugin.json" --api omp --probe p2p --mode sync \
	--sizes 1M --threads 1 --devices 0,1 --output "$tmp/run2" >"$tmp/out" 2>"$tmp/err"
check "probe --check: a path below the threshold makes the exit status 1" test $? -eq 1
check "... and says which" grep -q 'below threshold omp' "$tmp/out"
done_testing
