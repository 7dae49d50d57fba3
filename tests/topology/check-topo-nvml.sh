#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# topology/nvml.c's link health on a fake libnvidia-ml.so.1 (fakenvml/fake_nvml.c): links
# present and up, the links down by index, the error counters summed over the links that
# answered, the PCIe replay counter; then `nodebw check` judging them.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

LD_LIBRARY_PATH="$FAKE_NVML_DIR" "$NODEBW" topo --json >"$tmp/topo.json" 2>"$tmp/err"
check "nodebw topo on the fake NVML: exit 0" test $? -eq 0
check "NVML's answers are each GPU's link health" /usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
src = {s["name"]: s for s in t["sources"]}
assert src["nvml"]["ok"] and src["nvml"]["devices"] == 2, src["nvml"]
d = {x["id"]: x for x in t["devices"]}
a, b = d["0000:e1:00.0"]["link_health"], d["0000:e2:00.0"]["link_health"]
# links 0-3 answer, link 2 down; counters 10 x link + counter summed over the four links
assert a["nvlink"] == {"present": 4, "up": 3, "down": [2], "crc_flit": 68, "crc_data": 72,
                       "replay": 60, "recovery": 64}, a["nvlink"]
assert a["pcie_replays"] == 81 and a["pcie_replays_source"] == "nvml", a
assert b["nvlink"] == {"present": 4, "up": 4, "down": [], "crc_flit": 0, "crc_data": 0,
                       "replay": 0, "recovery": 0}, b["nvlink"]
assert b["pcie_replays"] == 3
assert a["pcie"] == [] and a["xgmi_error_status"] is None and a["xe_link"] is None, a
' "$tmp/topo.json"

/usr/bin/python3 - "$tmp/topo.json" "$tmp/results.json" <<'PY'
import json, sys
topo = json.load(open(sys.argv[1]))
doc = {"schema": "nodebw-results", "schema_version": 2,
       "tool": {"name": "nodebw", "version": "0.1.0"}, "created": "2026-12-01T00:00:00Z",
       "units": {"bandwidth": "GB/s = 1e9 bytes per second", "time": "seconds",
                 "size": "bytes"},
       "devices": [], "skipped": [], "measurements": [], "interrupted": False,
       "topology": topo}
json.dump(doc, open(sys.argv[2], "w"))
PY
"$NODEBW" check "$tmp/results.json" >"$tmp/check.txt" 2>"$tmp/err"
check "check judges them: exit 1" test $? -eq 1
check "the NVLink down, the recovery errors and the 81 replays fail; GPU 1 passes" sh -c "
	grep -Eq '^  fail +0000:e1:00.0 +nvlink up +NVLink +3 of 4 NVLinks up \(down: 2\)$' '$tmp/check.txt' &&
	grep -Eq '^  fail +0000:e1:00.0 +nvlink errors .*64 recovery errors$' '$tmp/check.txt' &&
	grep -Eq '^  fail +0000:e1:00.0 +replays .*81 PCIe replays \(nvml\)$' '$tmp/check.txt' &&
	! grep -q '^  fail *0000:e2' '$tmp/check.txt'"

done_testing
