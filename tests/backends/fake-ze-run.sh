#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The real nodebw core with the Level Zero backend built on the fake loader
# (tests/backends/fake_ze.c, $FAKE_PLUGIN_DIR/nodebw-ze.so), three devices with the queue
# groups of a Data Center GPU Max (compute; main copy engine, one queue; link copy engines,
# seven queues), no GPU needed: host copies run on the main copy engine, device-to-device
# copies on the source's link copy engines, and the results say which group and queue. The
# fake copies with memcpy; no bandwidth of it means anything.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

mkdir -p "$tmp/log"
FAKE_CALLLOG_DIR=$tmp/log FAKE_ZE_LAYOUT=1 FAKE_ZE_NDEV=3 NODEBW_PLUGIN_DIR=$FAKE_PLUGIN_DIR "$NODEBW" probe --api ze \
	--sizes 4096 --bind none --warmup 1 --reps 2 --max-reps 2 --output "$tmp/pvc" \
	>"$tmp/pvc.out" 2>"$tmp/pvc.err"
st=$?
check "PVC-like devices: exit 0 (status $st)" test $st -eq 0

q() { # q 'expression over d (the document), ms (the ze measurements), sw (its versions)'
	$py - "$tmp/pvc/results.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ms = [m for m in d["measurements"] if m["api"] == "ze"]
sw = d["software"]["backends"]["ze"]
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print("#", {k: v for k, v in sw.items() if "queue" in k})
    for m in ms[:12]:
        print("#", m["direction"], m["concurrency"], m["path"][-160:], m["error"])
sys.exit(0 if ok else 1)
PY
}
check "every copy ran and was verified" \
	q 'ms and all(not m["error"] and m["verification"]["status"] == "passed" for m in ms)'
check "versions: host copies on the main copy engine of every device" \
	q 'all(sw["device%d_queue_group" % i] == "ordinal 1 (1 queue), copy-only: main copy engine, queue 0" for i in range(3))'
check "versions: device-to-device copies on the link copy engines of every device" \
	q 'all(sw["device%d_p2p_queue_group" % i] == "ordinal 2 (7 queues), copy-only: link copy engines, queue = destination mod 7" for i in range(3))'
check "every p2p measurement's path names the source's link engines and the queue (= destination)" \
	q 'all(("device %d\x27s link copy engines: queue group ordinal 2 (7 queues), queue %d"
		% (m["streams"][0]["src"], m["streams"][0]["dst"])) in m["path"]
		for m in ms if m["direction"] == "p2p" and m["mode"] != "kernel")
		and any(m["direction"] == "p2p" for m in ms)'
check "each series records its own interface: p2p the link copy engines, host copies the main copy engine" \
	q 'all(("link copy engines" if m["direction"] == "p2p" else "main copy engine") in m["interface"]
		and ("async immediate list" in m["interface"]) == (m["mode"] == "async")
		for m in ms if m["mode"] != "kernel")'
check "kernel mode: every direction ran on the compute queue group (ordinal 0), verified" \
	q 'set(m["direction"] for m in ms if m["mode"] == "kernel") == {"htod", "dtoh", "p2p"}
		and all(m["interface"].startswith("zeCommandListAppendMemoryCopy on the compute queue group (ordinal 0)")
		and not m["error"] and m["verification"]["status"] == "passed"
		for m in ms if m["mode"] == "kernel")'
check "versions: kernel mode's queue group" \
	q 'sw["kernel_queue_group"] == "ordinal 0, queue 0 on every device"'
check "chase: skipped, saying Level Zero would need a SPIR-V kernel" \
	q 'not [m for m in ms if m["mode"] == "chase"] and any("SPIR-V" in s["reason"]
		for s in d["skipped"] if s["api"] == "ze")'
check "the call log: kernel-mode copies on ordinal 0, the others on the copy groups 1 and 2" \
	sh -c "grep -q 'zeCommandListAppendMemoryCopy(dev [0-9], wait [01], ordinal 0)' '$tmp/log/ze.log' &&
		grep -q 'zeCommandListAppendMemoryCopy(dev [0-9], wait [01], ordinal 1)' '$tmp/log/ze.log' &&
		grep -q 'zeCommandListAppendMemoryCopy(dev [0-9], wait [01], ordinal 2)' '$tmp/log/ze.log'"
done_testing
