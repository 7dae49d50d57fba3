#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The real nodebw core with the CUDA backend built on the fake CUDA runtime
# (tests/backends/fake_cuda.c, $FAKE_CUDA_PLUGIN_DIR/nodebw-cuda.so), no GPU needed: what the
# core records and prints of the backend's facts, checked end to end. The fake copies with
# memcpy; no bandwidth of it means anything.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
schema="$NODEBW_SOURCE/doc/results.schema.json"
validate="$NODEBW_SOURCE/tests/integration/validate_results.py"

valid() { # the document matches the schema (the validator's summary as a TAP comment)
	out=$($py "$validate" "$schema" "$1" 2>&1)
	st=$?
	diag "$out"
	return $st
}

fake() { # fake NAME [nodebw probe options...]: one run into $tmp/NAME
	name=$1; shift
	NODEBW_PLUGIN_DIR=$FAKE_CUDA_PLUGIN_DIR "$NODEBW" probe --api cuda --sizes 4096 \
		--bind none --warmup 1 --reps 2 --max-reps 2 --verbose --output "$tmp/$name" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
}

# jq-like checks in Python on one results file: q NAME 'expression over d (the document)
# and ms (the cuda measurements)'
q() {
	$py - "$tmp/$1/results.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ms = [m for m in d["measurements"] if m["api"] == "cuda"]
def find(**kw):
    return [m for m in ms if all(m[k] == v for k, v in kw.items())]
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    for m in ms[:40]:
        print("#", m["direction"], m["mode"], m["host_mem"], m["concurrency"],
              m.get("sched"), "|", m.get("sched_note"), "|", m["start"], "|", m["error"])
    print("# skipped:", d["skipped"])
sys.exit(0 if ok else 1)
PY
}

# ---- host-wait scheduling, as found ------------------------------------------------------
FAKE_CUDA_CTX_FLAGS=4,0 FAKE_CUDA_CTX_ACTIVE=1,0 fake asfound --mode sync,async
check "as found: exit 0" test $? -eq 0
check "as found: the fake plugin was the one measured" q asfound 'len(ms) > 10'
check "as found: matches the schema" valid "$tmp/asfound/results.json"
$py -c "
import json
d = json.load(open('$tmp/asfound/results.json'))
m = [m for m in d['measurements'] if m['api'] == 'cuda'][0]
del m['sched_note']
json.dump(d, open('$tmp/nonote.json', 'w'))
m['sched'] = ''
m['sched_note'] = 'x'
json.dump(d, open('$tmp/empty.json', 'w'))"
check "schema: sched without its note is invalid" sh -c "! '$py' '$validate' '$schema' '$tmp/nonote.json' >/dev/null"
check "schema: an empty sched is invalid" sh -c "! '$py' '$validate' '$schema' '$tmp/empty.json' >/dev/null"
check "as found: every cuda measurement records sched and its note" \
	q asfound 'all(m.get("sched") and m.get("sched_note") for m in ms)'
check "as found: device 0 alone: blocking, its context already active; device 1: auto" \
	q asfound 'all(m["sched"] == ("blocking" if m["streams"][0]["dst"] == 0 else "auto")
		and ("already active" in m["sched_note"]) == (m["streams"][0]["dst"] == 0)
		for m in find(direction="htod", concurrency="single"))
		and {m["streams"][0]["dst"] for m in find(direction="htod", concurrency="single")} == {0, 1}'
check "as found: devices 0 and 1 together: both named" \
	q asfound 'all(m["sched"] == "blocking (device 0), auto (device 1)"
		for m in find(direction="htod", concurrency="dual"))'
check "as found: a peer copy is issued by its source device; both directions name both" \
	q asfound 'find(direction="p2p", concurrency="single")
		and all(m["sched"] == ("blocking" if m["streams"][0]["src"] == 0 else "auto")
			for m in find(direction="p2p", concurrency="single"))
		and all(m["sched"] == "blocking (device 0), auto (device 1)"
			for m in find(direction="p2p", concurrency="bidir"))'
check "as found: versions record each device" \
	q asfound 'd["software"]["backends"]["cuda"]["device0_sched"].startswith("blocking; left as found")
		and d["software"]["backends"]["cuda"]["device1_sched"].startswith("auto; left as found")'
check "as found: the series header prints it" grep -q "^  sched: blocking (left as found" "$tmp/asfound.out"
check "as found: host measurements have no sched" q asfound \
	'all("sched" not in m for m in d["measurements"] if m["api"] != "cuda")'

check "as found: settings record --cuda-sched auto" q asfound 'd["settings"]["cuda_sched"] == "auto"'

# ---- --cuda-sched ------------------------------------------------------------------------
FAKE_CUDA_CTX_FLAGS=4,0 FAKE_CUDA_CTX_ACTIVE=1,0 fake spin --cuda-sched spin --mode sync
check "--cuda-sched spin: exit 0" test $? -eq 0
check "--cuda-sched spin: every measurement ran with spin, and says it was set" \
	q spin 'ms and all(m["sched"] == "spin" and "set by --cuda-sched spin" in m["sched_note"]
		for m in ms)'
check "--cuda-sched spin: device 0 was blocking in an active context" \
	q spin '"was blocking); primary context already active" in find(concurrency="single")[0]["sched_note"]'
check "--cuda-sched spin: settings and versions" \
	q spin 'd["settings"]["cuda_sched"] == "spin" and d["software"]["backends"]["cuda"]["cuda_sched"] == "spin"'
check "--cuda-sched spin: the header prints it" grep -q "^  sched: spin (set by --cuda-sched spin" "$tmp/spin.out"
check "--cuda-sched spin: matches the schema" valid "$tmp/spin/results.json"
FAKE_CUDA_CTX_FLAGS=4,0 FAKE_CUDA_CTX_ACTIVE=1,0 FAKE_CUDA_SETFLAGS_RC=708 \
	fake refused --cuda-sched yield --mode sync --threads 1 --probe htod --devices 0
check "--cuda-sched refused: exit 0, measured as found, the refusal recorded" \
	q refused 'ms and all(m["sched"] == "blocking" and "--cuda-sched yield refused by the driver"
		in m["sched_note"] and "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE" in m["sched_note"]
		and "already active" in m["sched_note"] for m in ms)'

# ---- the gate's wait refused by the driver ----------------------------------------------
check "gate works: concurrent pinned async copies start on the gate" \
	q asfound 'all(m["start"].startswith("backend gate") and not m["error"]
		for m in find(mode="async", host_mem="pinned", concurrency="dual"))'
FAKE_CUDA_WAIT_RC=801 fake nowait --mode async --host-mem pinned
check "wait refused: exit 0" test $? -eq 0
check "wait refused: dual copies timed behind the barrier, the reason recorded, verified" \
	q nowait 'find(concurrency="dual") and all(
		m["start"].startswith("barrier (no gate: the wait was refused on device 0: "
				      "cuStreamWaitValue32: CUDA_ERROR_NOT_SUPPORTED")
		and not m["error"] and m["verification"]["status"] == "passed"
		for m in find(concurrency="dual"))'
check "wait refused: matches the schema" valid "$tmp/nowait/results.json"

# ---- the copy kernel and the chase (embedded PTX; the fake runs the kernels on host memory) -
# An odd size, so the 16-byte kernel's byte tail is in it.
fake kernel --mode kernel --probe htod,dtoh,p2p --host-mem pageable,pinned,registered \
	--peer-access enabled --sizes 4096,65541
check "kernel: exit 0" test $? -eq 0
check "kernel: HtoD, DtoH (pinned, registered) and P2P, each verified, with the event timer" \
	q kernel 'len({(m["direction"], m["host_mem"]) for m in ms}) == 5 and all(
		m["mode"] == "kernel" and not m["error"] and m["verification"]["status"] == "passed"
		and m["device_timer"] and m["interface"].startswith("copy kernel (embedded PTX, "
		"cuLaunchKernel)") for m in ms) and find(bytes=65541)'
check "kernel: pageable memory is skipped with the reason" \
	q kernel '[s for s in d["skipped"] if s["api"] == "cuda" and "pageable" in s["what"]] and all(
		"pageable host memory without HMM" in s["reason"]
		for s in d["skipped"] if s["api"] == "cuda" and "pageable" in s["what"])'
check "kernel: matches the schema" valid "$tmp/kernel/results.json"
FAKE_CUDA_MODULE_RC=218 fake badptx --mode kernel --probe htod --host-mem pinned --threads 1 \
	--devices 0
check "kernel, the JIT refuses the PTX: the measurement's error has the driver's words" \
	q badptx 'ms and all("cuModuleLoadDataEx on CUDA device 0: CUDA_ERROR_INVALID_PTX (218)"
		in m["error"] and "JIT log: " in m["error"] for m in ms)'
fake dtohchase --mode chase --probe dtoh --host-mem pinned
check "chase: DtoH is skipped with the reason" \
	q dtohchase 'not ms and any("DtoH chase" in s["reason"] for s in d["skipped"]
		if s["api"] == "cuda")'

# ---- face copies: rect, and pack through the nbw_pack / nbw_unpack kernels -----------------
# 8-byte elements (8-byte words) and 3-byte ones (bytes); the core checks every destination
# box byte by byte.
fake faces --faces 12x10x9:2:8,9x8x7:1:3 --mode sync,async --host-mem pinned
check "faces: exit 0" test $? -eq 0
check "faces: pack measured host-staged and device to device, every box verified" \
	q faces 'len({(m["direction"], m["shape"]["element_bytes"]) for m in ms
		if m["shape"]["method"] == "pack"}) == 6 and all(not m["error"]
		and m["verification"]["status"] == "passed" for m in ms)'
check "faces: the pack interface names the kernels on the device side" \
	q faces 'all(("nbw_pack" in m["interface"]) == (m["direction"] != "htod")
		and ("nbw_unpack" in m["interface"]) == (m["direction"] != "dtoh")
		for m in ms if m["shape"]["method"] == "pack")'
check "faces: no face series skipped but the 4-device grid" \
	q faces 'all("needs 4 devices" in s["reason"] for s in d["skipped"] if s["api"] == "cuda")'
check "faces: matches the schema" valid "$tmp/faces/results.json"

# ---- open(): no driver is a skip, a driver older than the runtime an error -----------------
# (recorded as a skip by the core for now; its exit status is the core's business)
if ! $py -c "import ctypes; ctypes.CDLL('libcuda.so.1')" 2>/dev/null; then
	FAKE_CUDA_COUNT_RC=35 fake nodriver
	check "no driver: exit 0, skipped as absent" \
		q nodriver 'not ms and [s["reason"] for s in d["skipped"] if s["api"] == "cuda"]
			== ["no CUDA driver: libcuda.so.1 not found"]'
else
	ok "# SKIP a libcuda.so.1 is installed here"
fi
LD_LIBRARY_PATH="$FAKE_LIBCUDA_DIR:$LD_LIBRARY_PATH" FAKE_LIBCUDA_VERSION=11080 \
	FAKE_CUDA_COUNT_RC=35 fake olddriver
check "old driver: both versions named" \
	q olddriver '[s["reason"] for s in d["skipped"] if s["api"] == "cuda"][0].startswith(
		"CUDA driver 11.8 (cuDriverGetVersion 11080) is older than the CUDA runtime")'
# The real plugin (libcudart_static) finds the fake libcuda.so.1 first and refuses it as too
# old: the same reason, from the runtime itself.
if [ -f "$(dirname "$NODEBW")/../bw_native/nodebw-cuda.so" ]; then
	LD_LIBRARY_PATH="$FAKE_LIBCUDA_DIR:$LD_LIBRARY_PATH" FAKE_LIBCUDA_VERSION=11080 \
		"$NODEBW" list >"$tmp/list.out" 2>&1
	check "old driver, real plugin: 'nodebw list' names both versions" \
		grep -q "^  cuda   skipped: CUDA driver 11.8 (cuDriverGetVersion 11080) is older than the CUDA runtime .*cudaErrorInsufficientDriver" "$tmp/list.out"
fi

done_testing
