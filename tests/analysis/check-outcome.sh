#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `nodebw check` as a site gates a delivery on it: references found by PCI ID (every GPU of
# the DGX-H100 document renamed to "NVIDIA Graphics Device" keeps every verdict; an H100
# PCIe card's ID takes no SXM row), the warning band of a published minimum (exit 0, 1 with
# --strict), and NOT JUDGED (exit 3): nothing judged, or a site rule that matches nothing.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
ex="$NODEBW_SOURCE/doc/examples"
dgx="$fx/results-dgx-h100-handmade.json"

# edit OUT PYTHON: the DGX document as d, changed by PYTHON, written to $tmp/OUT.json.
edit() {
	/usr/bin/python3 - "$dgx" "$tmp/$1.json" "$2" <<'P'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
def summary(v):
    m = statistics.fmean(v)
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    return {"n": len(v), "median": statistics.median(v), "min": min(v), "max": max(v),
            "mean": m, "sd": sd, "cv": sd / m}
def scale(m, k):
    """Make measurement m k times as fast: its times / k, every figure from them again."""
    counted = m["bytes"] * len(m["streams"])
    m["samples_s"] = [t / k for t in m["samples_s"]]
    m["seconds"] = summary(m["samples_s"])
    m["gbps"] = summary([counted / t / 1e9 for t in m["samples_s"]])
    for s in m["streams"]:
        s["samples_s"] = [t / k for t in s["samples_s"]]
        s["gbps"] = summary([m["bytes"] / t / 1e9 for t in s["samples_s"]])
    m["theoretical"]["fraction"] = m["gbps"]["median"] / m["theoretical"]["gbps"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
P
}

"$NODEBW" check --json "$dgx" >"$tmp/orig.json"
check "the DGX document (recorded PCI IDs): exit 1 on its planted faults" test $? -eq 1
edit renamed "for x in d['devices']: x['name'] = 'NVIDIA Graphics Device'"
"$NODEBW" check --json "$tmp/renamed.json" >"$tmp/renamed-v.json"
check "every GPU renamed 'NVIDIA Graphics Device': still exit 1" test $? -eq 1
check "... the same verdict and published judgements for every path, matched by PCI ID" \
	/usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def key(d):
    return {(p["api"], p["direction"], p["concurrency"], p["where"]):
            (p["verdict"], sorted((j["what"], j["verdict"]) for j in p["judgements"]))
            for p in d["paths"]}
assert key(a) == key(b)
assert a["counts"] == b["counts"] and a["outcome"] == b["outcome"] == "fail"
pub = [j for p in b["paths"] for j in p["judgements"] if j["against"] == "published"]
assert pub and all(j["matched_by"] == "PCI ID 10de:2330" for j in pub), pub[0]
assert all(j["reference_gbps"] > 0 for j in pub)
assert all(0 < j["fraction_of_reference"] < 2 for j in pub if j["gbps"] is not None)
' "$tmp/orig.json" "$tmp/renamed-v.json"
"$NODEBW" check "$tmp/renamed.json" >"$tmp/renamed.txt"
check "... and the text says the row matched by PCI ID" grep -q "matched by PCI ID 10de:2330" \
	"$tmp/renamed.txt"

edit noids "for x in d['devices']: x['name'] = 'NVIDIA Graphics Device'; del x['pci_id']"
"$NODEBW" check --json "$tmp/noids.json" >"$tmp/noids-v.json"
check "renamed without PCI IDs: no published row applies (the theoretical figures still do)" \
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert {j["against"] for p in d["paths"] for j in p["judgements"]} == {"theoretical"}
' "$tmp/noids-v.json"
edit pcie "for x in d['devices']: x['pci_id']['device'] = '2331'"
"$NODEBW" check --json "$tmp/pcie.json" >"$tmp/pcie-v.json"
check "an H100 PCIe card's ID (10de:2331) named like the SXM part takes no SXM row" \
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert not [j for p in d["paths"] for j in p["judgements"] if j["against"] == "published"]
' "$tmp/pcie-v.json"

# OpenMP devices record no PCI IDs (their bus id is matched afterwards): their native
# device's apply.
edit omp "
import copy
for x in list(d['devices']):
    o = dict(x, api='omp', name='NVIDIA Graphics Device')
    del o['pci_id']
    o['native'] = {'api': 'cuda', 'id': x['id'], 'by': 'PCI bus id'}
    d['devices'].append(o)
for m in list(d['measurements']):
    d['measurements'].append(dict(copy.deepcopy(m), api='omp', probe='omp-' + m['direction']))"
"$NODEBW" check --json "$tmp/omp.json" >"$tmp/omp-v.json"
check "OpenMP devices renamed, without IDs: judged by their native device's PCI ID, as CUDA's" \
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = {}
for p in d["paths"]:
    v.setdefault(p["api"], {})[(p["direction"], p["concurrency"], p["where"])] = p["verdict"]
assert v["omp"] == v["cuda"] and len(v["omp"]) == 128, len(v.get("omp", ()))
pub = [j["matched_by"] for p in d["paths"] if p["api"] == "omp" for j in p["judgements"]
       if j["against"] == "published"]
assert pub and set(pub) == {"PCI ID 10de:2330"}, set(pub)
' "$tmp/omp-v.json"

cat >"$tmp/byid.json" <<'J'
{"schema": "nodebw-thresholds", "version": 1, "rules": [
 {"name": "H100 HtoD by ID", "gpu": "no such name", "pci_ids": ["10DE:2330"], "direction": "htod", "min_gbps": 20}]}
J
"$NODEBW" check --json --thresholds "$tmp/byid.json" "$tmp/renamed.json" >"$tmp/byid-v.json"
check "a site rule with pci_ids judges the renamed GPUs by ID (every HtoD path, device 5 too)" \
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
thr = [(p["where"], j) for p in d["paths"] for j in p["judgements"] if j["against"] == "threshold"]
assert len(thr) == 8 and all(j["verdict"] == "pass" and j["matched_by"] == "PCI ID 10de:2330"
                             for _, j in thr), thr
assert d["rules_not_judged"] == []
' "$tmp/byid-v.json"

# Device 2's HtoD at ~49 GB/s: above the published minimum 48, below 1.05 x 48 = 50.4.
edit warn "
for m in d['measurements']:
    if m['direction'] == 'htod' and m['streams'][0]['dst'] == 2 and m['bytes'] > 8:
        scale(m, 49.0 / m['gbps']['median'])
d['measurements'] = [m for m in d['measurements'] if not (
    {s['src'] for s in m['streams']} | {s['dst'] for s in m['streams']}) & {3, 5, 6}]
d['devices'] = [x for x in d['devices'] if x['id'] not in (3, 5, 6)]"
"$NODEBW" check "$tmp/warn.json" >"$tmp/warn.txt"
check "a path in the warning band: exit 0" test $? -eq 0
check "... WARNING first, the path listed with its reference and minimum" sh -c "
	head -1 '$tmp/warn.txt' | grep -q '^WARNING: 1 path is in' &&
	grep -q '^  warning .* htod single 2 .*% of the reference 51 GB/s; >= the published minimum 48 GB/s, below 1.05 x it' '$tmp/warn.txt' &&
	grep -q '1 warning' '$tmp/warn.txt'"
"$NODEBW" check --strict "$tmp/warn.json" >"$tmp/warn2.txt"
check "... exit 1 with --strict" test $? -eq 1
"$NODEBW" check --json "$tmp/warn.json" >"$tmp/warn.jv"
check "... --json: verdict warning, counted, outcome warning" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [p for p in d["paths"] if p["verdict"] == "warning"]
assert len(w) == 1 and w[0]["where"] == "2" and w[0]["direction"] == "htod", w
assert d["counts"]["warning"] == 1 and d["outcome"] == "warning" and d["failed"] == 0
' "$tmp/warn.jv"

# NOT JUDGED.
"$NODEBW" check --thresholds "$ex/thresholds-site.json" "$fx/results-omp-host-2cpu-vm.json" \
	>"$tmp/site.txt" 2>"$tmp/err"
check "the site example on a host-plugin document: exit 3" test $? -eq 3
check "... NOT JUDGED first, each of its six rules named as matching no measured path" sh -c "
	head -1 '$tmp/site.txt' | grep -q '^NOT JUDGED: ' &&
	[ \$(grep -c 'not judged: the site rule \".*\" matches no measured path' '$tmp/site.txt') -eq 6 ] &&
	grep -q 'the site rule \"MI300X P2P\" matches no measured path' '$tmp/site.txt'"
"$NODEBW" check --json --thresholds "$ex/thresholds-site.json" \
	"$fx/results-omp-host-2cpu-vm.json" >"$tmp/site.jv"
check "... --json: outcome not judged, the rules listed, none counted as a pass" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "not judged", d["outcome"]
assert len(d["rules_not_judged"]) == 6
assert all(r["reason"] == "matches no measured path" and r["paths"] == 0 for r in d["rules_not_judged"])
' "$tmp/site.jv"

"$NODEBW" check "$fx/results-omp-host-2cpu-vm.json" >"$tmp/none.txt"
check "no thresholds on a host-plugin document: exit 3" test $? -eq 3
check "... NOT JUDGED is the first line" sh -c "head -1 '$tmp/none.txt' | grep -q '^NOT JUDGED: none of the'"

cat >"$tmp/some.json" <<'J'
{"schema": "nodebw-thresholds", "version": 1, "rules": [
 {"name": "host plugin HtoD", "gpu": "host plugin", "api": "omp", "direction": "htod", "min_gbps": 0.001},
 {"name": "H200 P2P", "gpu": "H200", "direction": "p2p", "min_gbps": 335}]}
J
"$NODEBW" check --thresholds "$tmp/some.json" "$fx/results-omp-host-2cpu-vm.json" >"$tmp/some.txt"
check "paths pass but a site rule judged nothing: exit 3, the rule named" sh -c "
	[ $? -eq 3 ] && head -1 '$tmp/some.txt' | grep -q '^NOT JUDGED: 1 site rule judged no path' &&
	grep -q 'the site rule \"H200 P2P\" matches no measured path' '$tmp/some.txt'"
cat >"$tmp/fail.json" <<'J'
{"schema": "nodebw-thresholds", "version": 1, "rules": [
 {"name": "host plugin HtoD", "gpu": "host plugin", "api": "omp", "direction": "htod", "min_gbps": 1e5},
 {"name": "H200 P2P", "gpu": "H200", "direction": "p2p", "min_gbps": 335}]}
J
"$NODEBW" check --thresholds "$tmp/fail.json" "$fx/results-omp-host-2cpu-vm.json" >"$tmp/fail.txt"
check "a failing path comes before a rule that judged nothing: exit 1, FAIL first" sh -c "
	[ $? -eq 1 ] && head -1 '$tmp/fail.txt' | grep -q '^FAIL: '"

"$NODEBW" check --quick --api omp --probe htod --mode sync --host-mem pageable --threads 1 \
	--sizes 1M --devices 0 --output "$tmp/run" >"$tmp/run.txt" 2>"$tmp/err"
rc=$?
check "check (no thresholds) on a quick host-plugin probe: exit 3, NOT JUDGED first" sh -c "
	[ $rc -eq 3 ] && sed -n '/^==== Verdicts/{n;p;}' '$tmp/run.txt' | grep -q '^NOT JUDGED: '"
check "... check.json says so" /usr/bin/python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["outcome"] == "not judged"
' "$tmp/run/check.json"
done_testing
