#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The real nodebw core with the HIP backend built on the fake HIP runtime
# (tests/backends/fake_hip.c, $FAKE_PLUGIN_DIR/nodebw-hip.so), no GPU needed: a HIP that is
# present but fails is an error of the run, no device a skip; blocking device-to-device
# copies are complete when timed. The fake copies with memcpy; no bandwidth of it means
# anything.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

fake() { # fake NAME [nodebw probe options...]: one run into $tmp/NAME; its status in $tmp/NAME.st
	name=$1; shift
	NODEBW_PLUGIN_DIR=$FAKE_PLUGIN_DIR "$NODEBW" probe --api hip --sizes 4096 --bind none \
		--warmup 1 --reps 2 --max-reps 2 --output "$tmp/$name" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.st"
}

q() { # q NAME 'expression over d (the document), ms (the hip measurements), sk (skips)'
	$py - "$tmp/$1/results.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ms = [m for m in d["measurements"] if m["api"] == "hip"]
sk = [s for s in d["skipped"] if s["api"] == "hip"]
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print("# skipped:", sk)
    for m in ms[:20]:
        print("#", m["direction"], m["mode"], m["interface"], m["error"], m["verification"])
sys.exit(0 if ok else 1)
PY
}

# ---- hipGetDeviceCount fails for another reason than "no device": an error ----------------
FAKE_HIP_COUNT_RC=3 fake initerr
st=$(cat "$tmp/initerr.st")
check "runtime error: exit 1 (status $st)" test "$st" -eq 1
check "runtime error: stderr says HIP is present but unusable, naming the HIP error" \
	grep -q "^nodebw: error: an API is present but unusable: hip: hipGetDeviceCount: hipErrorInitializationError (3): initialization error" "$tmp/initerr.err"
check "runtime error: results.json records the HIP error as the reason" \
	q initerr 'not ms and [s["reason"] for s in sk] == ["hipGetDeviceCount: hipErrorInitializationError (3): initialization error"]'

# ---- no device: a skip (asked for by name, the run still cannot do what was asked) --------
FAKE_HIP_NDEV=0 fake nodev
st=$(cat "$tmp/nodev.st")
check "no device: exit 1, said as an API that cannot run, not as an error (status $st)" \
	sh -c "test $st -eq 1 && grep -q '^nodebw: error: an API asked for with --api cannot run: hip: hipGetDeviceCount: hipErrorNoDevice (100)' '$tmp/nodev.err'"
FAKE_HIP_NDEV=0 NODEBW_PLUGIN_DIR=$FAKE_PLUGIN_DIR "$NODEBW" probe --api host,hip --sizes 8 \
	--probe htod --mode sync --threads 1 --host-mem pageable --bind none --warmup 0 --reps 2 \
	--max-reps 2 --output "$tmp/nodev2" >"$tmp/nodev2.out" 2>"$tmp/nodev2.err"
st=$?
check "no device with --api host,hip: exit 1 only because hip was named (status $st)" \
	sh -c "test $st -eq 1 && ! grep -q 'present but unusable' '$tmp/nodev2.err'"

# ---- blocking device-to-device copies: complete and verified --------------------------------
fake p2p --probe p2p --mode sync --threads 1
st=$(cat "$tmp/p2p.st")
check "sync p2p: exit 0 (status $st)" test "$st" -eq 0
check "sync p2p: the interface names hipDeviceSynchronize; every copy verified" \
	q p2p 'ms and all("hipDeviceSynchronize" in m["interface"] and not m["error"]
		and m["verification"]["status"] == "passed" for m in ms)'
# ---- kernel mode: a copy kernel, end to end (the fake runs it on host memory) ---------------
fake kernel --mode kernel --probe htod,dtoh,p2p --threads 1 --peer-access enabled
st=$(cat "$tmp/kernel.st")
check "kernel mode: exit 0 (status $st)" test "$st" -eq 0
check "kernel mode: htod, dtoh and p2p copies by the copy kernel, every copy verified" \
	q kernel 'set(m["direction"] for m in ms) == {"htod", "dtoh", "p2p"} and all(
		m["interface"].startswith("copy kernel (hipRTC, hipModuleLaunchKernel)")
		and not m["error"] and m["verification"]["status"] == "passed" for m in ms)'
check "kernel mode: pageable host memory skipped, saying it has no device address" \
	q kernel 'any("pageable memory has no device address" in s["reason"] for s in sk)'
# ---- face copies: rect, and pack through the hipRTC nbw_pack / nbw_unpack kernels ----------
# 8-byte elements (8-byte words) and 3-byte ones (bytes); the core checks every destination
# box byte by byte.
fake faces --faces 12x10x9:2:8,9x8x7:1:3 --mode sync,async --host-mem pinned
check "faces: exit 0" test "$(cat "$tmp/faces.st")" -eq 0
check "faces: pack measured host-staged and device to device, every box verified" \
	q faces 'len({(m["direction"], m["shape"]["element_bytes"]) for m in ms
		if m["shape"]["method"] == "pack"}) == 6 and all(not m["error"]
		and m["verification"]["status"] == "passed" for m in ms)'
check "faces: the pack interface names the kernels on the device side" \
	q faces 'all(("nbw_pack" in m["interface"]) == (m["direction"] != "htod")
		and ("nbw_unpack" in m["interface"]) == (m["direction"] != "dtoh")
		for m in ms if m["shape"]["method"] == "pack")'

done_testing
