#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Link health beside bandwidth (`nodebw check`, doc/check.md "Link health"): the DGX-H100
# document rebuilt with device 5's link recorded at Gen4 of Gen5 (the link-health failure,
# and the slow HtoD/DtoH naming it), the same node with half of GPU 3's NVLinks down (the
# slow P2P pairs naming it), the hand-made link-faults fixture (every kind of fault, the
# thresholds file's link_health limits) and bad input (one line, exit 2).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
py=/usr/bin/python3

"$NODEBW" topo --fixture "$fx/topology/dgx-h100-like" --json >"$tmp/topo.json"
check "the topology of dgx-h100-like records each GPU's PCIe chain" $py -c '
import json, sys
t = json.load(open(sys.argv[1]))
g = [d for d in t["devices"] if d["kind"] == "gpu"]
assert len(g) == 8, len(g)
for d in g:
    p = d["link_health"]["pcie"]
    assert p[0]["role"] == "device" and p[0]["bus_id"] == d["id"], p[0]
    assert len(p) == 4 and all(h["role"] == "port" for h in p[1:]), p
    assert p[1]["max"] == {"gen": 5, "width": 16}, p[1]
' "$tmp/topo.json"

$py "$fx/make-dgx-h100-results.py" --link-gen4 5 "$tmp/topo.json" >"$tmp/gen4.json"
check "make-dgx-h100-results.py --link-gen4 5 writes a document" test -s "$tmp/gen4.json"
"$NODEBW" check "$tmp/gen4.json" >"$tmp/gen4.txt" 2>"$tmp/err"
check "check on device 5 at Gen4 of Gen5: exit 1" test $? -eq 1
check "the link-health verdict of device 5's link fails: Gen4 x16 of Gen5 x16" grep -Eq \
	'^  fail +0000:ab:00.0 +training +PCIe 0000:ab:00.0 \(device\) +runs at Gen4 x16 of Gen5 x16$' \
	"$tmp/gen4.txt"
check "the slow HtoD and DtoH of device 5 name it in their reason" sh -c "
	grep -q 'htod single 5 .*< the published minimum 48 GB/s.*: its link runs at Gen4 x16 of Gen5 x16' '$tmp/gen4.txt' &&
	grep -q 'dtoh single 5 .*: its link runs at Gen4 x16 of Gen5 x16' '$tmp/gen4.txt'"
check "the P2P pairs over NVLink do not blame a PCIe link" sh -c \
	"! grep -q 'p2p .*runs at Gen' '$tmp/gen4.txt'"
"$NODEBW" check --json "$tmp/gen4.json" >"$tmp/gen4.out.json"
check "--json: key link_health, the entry's figures, counted as a failure" $py -c '
import json, sys
v = json.load(open(sys.argv[1]))
lh = v["link_health"]
assert isinstance(lh, list) and lh
e = [x for x in lh if x["device"] == "0000:ab:00.0" and x["aspect"] == "training"
     and x["link"].endswith("(device)")]
assert len(e) == 1 and e[0]["verdict"] == "fail", e
assert e[0]["figures"] == {"current_gen": 4, "current_width": 16, "max_gen": 5,
                           "max_width": 16}, e[0]["figures"]
assert e[0]["rule"] and e[0]["source"] and e[0]["reason"] == "runs at Gen4 x16 of Gen5 x16"
assert v["link_health_failed"] == 1 and v["link_health_counts"]["fail"] == 1, v["link_health_counts"]
for k in ("device", "name", "link", "aspect", "figures", "rule", "source", "verdict", "reason"):
    assert all(k in x for x in lh), k
p = [x for x in v["paths"] if x["direction"] == "htod" and x["dst"] == 5][0]
assert p["reason"].endswith(": its link runs at Gen4 x16 of Gen5 x16"), p["reason"]
' "$tmp/gen4.out.json"

# Every bandwidth path passes (no published table, 1 % of the theoretical figure), the link
# still fails: the outcome is FAIL, exit 1.
"$NODEBW" check --references none --min-fraction 1 "$tmp/gen4.json" >"$tmp/gen4-bw-ok.txt"
check "a failing link alone fails the node: FAIL first, exit 1" sh -c "
	test $? -eq 1 && head -n 1 '$tmp/gen4-bw-ok.txt' | grep -qx 'FAIL: 1 link-health entry fails' &&
	grep -q ' 0 below threshold, 0 below reference' '$tmp/gen4-bw-ok.txt'"
$py "$fx/make-dgx-h100-results.py" "$tmp/topo.json" >"$tmp/plain.json"
"$NODEBW" check "$tmp/plain.json" >"$tmp/plain.txt"
check "without --link-gen4, device 5's link passes (its bandwidth still fails alone)" sh -c "
	! grep -q '0000:ab:00.0 .*Gen4' '$tmp/plain.txt' &&
	grep -q 'htod single 5 .*48 GB/s (matched by PCI ID 10de:2330)$' '$tmp/plain.txt'"
check "GPU 3's link idle at Gen1 x16 is a warning, not a failure" grep -Eq \
	'^  warning +0000:5d:00.0 +training .*Gen1 x16 of Gen5 x16 \(Gen1 at full width' "$tmp/plain.txt"

# Half of GPU 3's NVLinks down: the NVML answers of the fixture, edited.
cp -R "$fx/topology/dgx-h100-like" "$tmp/nvl"
$py - "$tmp/nvl/links.json" <<'PY'
import json, sys
f = sys.argv[1]
j = json.load(open(f))
for d in j["devices"]:
    down = list(range(9, 18)) if d["bus_id"] == "0000:5d:00.0" else []
    d["health"] = {"pcie_replays": 0, "nvlink": {"present": 18, "down": down, "crc_flit": 0,
                   "crc_data": 0, "replay": 0, "recovery": 0}}
json.dump(j, open(f, "w"), indent=1)
PY
"$NODEBW" topo --fixture "$tmp/nvl" --json >"$tmp/nvl-topo.json"
$py "$fx/make-dgx-h100-results.py" "$tmp/nvl-topo.json" >"$tmp/nvl.json"
"$NODEBW" check "$tmp/nvl.json" >"$tmp/nvl.txt"
check "check on GPU 3 with 9 of 18 NVLinks down: exit 1" test $? -eq 1
check "its NVLink verdict fails and names the links down" grep -Eq \
	'^  fail +0000:5d:00.0 +nvlink up +NVLink +9 of 18 NVLinks up \(down: 9,10,11,12,13,14,15,16,17\)$' \
	"$tmp/nvl.txt"
check "the slow P2P pairs of GPU 3 name it" sh -c "
	grep -q 'p2p single 3->6 .*: device 3.s NVLink: 9 of 18 NVLinks up' '$tmp/nvl.txt' &&
	grep -q 'p2p single 6->3 .*: device 3.s NVLink: 9 of 18 NVLinks up' '$tmp/nvl.txt'"
check "the other GPUs' NVLinks pass" sh -c \
	"test \$(grep -c 'nvlink up' '$tmp/nvl.txt') -eq 1"

# Every kind of fault: the hand-made fixture.
"$NODEBW" topo --fixture "$fx/topology/link-faults-handmade" --json >"$tmp/lf-topo.json"
$py - "$tmp/plain.json" "$tmp/lf-topo.json" "$tmp/lf.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["topology"] = json.load(open(sys.argv[2]))
json.dump(d, open(sys.argv[3], "w"))
PY
"$NODEBW" check --json "$tmp/lf.json" >"$tmp/lf.out.json"
check "link-faults-handmade: each fault fails under the shipped defaults" $py -c '
import json, sys
v = json.load(open(sys.argv[1]))
got = sorted((x["device"], x["aspect"], x["link"].split(" (")[0]) for x in v["link_health"]
             if x["verdict"] == "fail")
want = sorted([("0000:41:00.0", "training", "PCIe 0000:41:00.0"),
               ("0000:41:00.0", "training", "PCIe 0000:40:01.1"),
               ("0000:41:00.0", "aer", "PCIe 0000:41:00.0"),
               ("0000:41:00.0", "replays", "PCIe 0000:41:00.0"),
               ("0000:41:00.0", "nvlink up", "NVLink"),
               ("0000:41:00.0", "nvlink errors", "NVLink"),
               ("0000:43:00.0", "xgmi", "xGMI"),
               ("0000:44:00.0", "xe link", "Xe Link")])
assert got == want, got
by = {(x["device"], x["aspect"], x["link"]): x for x in v["link_health"]}
a = by[("0000:42:00.0", "aer", "PCIe 0000:42:00.0 (device)")]
assert a["figures"] == {"correctable": 2, "nonfatal": 0, "fatal": 0}, a  # no TOTAL_ line
assert a["verdict"] == "pass"
a = by[("0000:41:00.0", "aer", "PCIe 0000:41:00.0 (device)")]
assert a["figures"] == {"correctable": 3, "nonfatal": 0, "fatal": 1}, a
e = by[("0000:41:00.0", "nvlink errors", "NVLink")]
assert e["figures"] == {"crc_flit": 7, "crc_data": 0, "replay": 0, "recovery": 2}, e
t = by[("0000:43:00.0", "training", "PCIe 0000:40:01.3 (port above)")]
assert t["verdict"] == "pass", t  # a Gen4 GPU below a Gen5 port is not downtrained
r = by[("0000:44:00.0", "replays", "PCIe 0000:44:00.0 (device)")]
assert r["verdict"] == "not judged" and "did not answer" in r["reason"], r
' "$tmp/lf.out.json"

cat >"$tmp/th.json" <<'JSON'
{"schema": "nodebw-thresholds", "version": 1, "rules": [],
 "link_health": {"note": "a site that tolerates more", "pcie_downtrained": "warning",
                 "pcie_replays_max": 200, "aer_fatal_max": 1, "nvlink_down_max": 2,
                 "nvlink_crc_max": 10, "nvlink_recovery_max": null, "xgmi_error": "warning"}}
JSON
check "the link_health object follows doc/thresholds.schema.json" $py -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
' "$NODEBW_SOURCE/doc/thresholds.schema.json" "$tmp/th.json"
"$NODEBW" check --json --thresholds "$tmp/th.json" "$tmp/lf.json" >"$tmp/lf-th.json"
check "the thresholds file's link_health limits replace the defaults" $py -c '
import json, sys
v = json.load(open(sys.argv[1]))
f = sorted((x["device"], x["aspect"]) for x in v["link_health"] if x["verdict"] == "fail")
assert f == [("0000:44:00.0", "xe link")], f
w = sorted((x["device"], x["aspect"]) for x in v["link_health"] if x["verdict"] == "warning")
assert ("0000:43:00.0", "xgmi") in w and ("0000:41:00.0", "training") in w, w
assert ("0000:41:00.0", "nvlink errors") in w, w  # recovery: no limit, non-zero = warning
assert "link_health" in v["link_health_limits"], v["link_health_limits"]
' "$tmp/lf-th.json"

printf '{"schema": "nodebw-thresholds", "version": 1, "rules": [], "link_health": {"aer_fatal": 1}}\n' >"$tmp/bad.json"
"$NODEBW" check --thresholds "$tmp/bad.json" "$tmp/lf.json" >"$tmp/out" 2>"$tmp/err"
check "a misspelt link_health key: exit 2, one line naming it, nothing on stdout" sh -c "
	test $? -eq 2 && test \$(wc -l <'$tmp/err') -eq 1 &&
	grep -q 'link_health.aer_fatal: unknown key' '$tmp/err' && ! test -s '$tmp/out'"
printf '{"schema": "nodebw-thresholds", "version": 1, "rules": [], "link_health": {"pcie_replays_max": -3}}\n' >"$tmp/bad.json"
"$NODEBW" check --thresholds "$tmp/bad.json" "$tmp/lf.json" >"$tmp/out" 2>"$tmp/err"
check "a negative limit: exit 2" sh -c "test $? -eq 2 && grep -q 'pcie_replays_max' '$tmp/err'"

cp -R "$fx/topology/link-faults-handmade" "$tmp/badlinks"
$py -c '
import json, sys
j = json.load(open(sys.argv[1]))
j["devices"][0]["health"]["nvlink"]["down"] = [4, 18]
json.dump(j, open(sys.argv[1], "w"))
' "$tmp/badlinks/links.json"
"$NODEBW" topo --fixture "$tmp/badlinks" >"$tmp/out" 2>"$tmp/err"
check "links.json: an NVLink index beyond 'present' is refused with the file and key" sh -c "
	test $? -eq 2 && grep -q 'links.json: devices\[0\].health.nvlink: .down. holds a link index outside 0-17' '$tmp/err'"

done_testing
