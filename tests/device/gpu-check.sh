#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The GPU check, for a device machine (see ../shared/device/README.md). Prepare it here:
#   CC=clang-19 meson setup build-sm90 -Doffload_targets=sm_90 && ninja -C build-sm90
#   ../shared/device/make-device-bundle.sh build-sm90
# (the GPU target only: with the host target beside it libomptarget would number the GPU
# after the four host-plugin devices), carry .device and build-sm90/{tools,bw_native,bw_omp,
# heat}, and run there
#   source .device/env.sh && tests/device/gpu-check.sh build-sm90 "$OUT"
#
# It stops at once (status 3) unless 'nodebw list' shows OpenMP device 0 as the GPU and CUDA
# device 0 measured (not skipped): anything else would time host memory or nothing. Then it
# records the driver and the PCIe link (generation and width now and at most), measures
# pinned HtoD/DtoH sync and async from 1 MiB to 1 GiB through OpenMP and CUDA and the
# same-GPU copy (one H200: not a peer link), prints the OpenMP-vs-native gap table, and runs
# the solver's one-device baseline at N = 256, 512, 768 for k(N) and its fraction of the HBM
# roofline (STREAM triad over 3 x 2 GiB arrays), with the report's paper-model section; and
# how CUDA host threads wait: the primary context's scheduling flags as found (libomptarget
# asks for blocking sync) and with --cuda-sched spin set on the active context.
# Every step has its own time limit and the whole check stays inside 8 minutes; what it
# measured goes to OUT as at most 8 files (summary.txt first).
set -u
build=${1:?usage: gpu-check.sh BUILD_DIR OUT_DIR}
out=${2:?usage: gpu-check.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
exe=$build/tools/nodebw
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
budget=${GPU_CHECK_BUDGET:-480}
export OMP_TARGET_OFFLOAD=${OMP_TARGET_OFFLOAD:-MANDATORY}
summary=$out/summary.txt
say() { echo "$*" | tee -a "$summary"; }
elapsed() { echo $(($(date +%s) - start)); }
# limit SECONDS: what a step may take, never more than the budget has left (minus 20 s for
# the steps after it).
limit() {
	left=$((budget - $(elapsed) - 20))
	[ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}
: >"$summary"
say "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"

# 1. Devices: the driver, the PCIe link now and at most, nodebw's view.
{
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,memory.total,clocks.max.memory --format=csv
	"$exe" --version
	"$exe" list
} >"$out/devices.txt" 2>&1
grep -E "^(NVIDIA|name|GPU )" "$out/devices.txt" | head -n 4 | tee -a "$summary"
say "$("$exe" --version 2>&1)"
if ! grep -Eq '^  omp +0  cuda ' "$out/devices.txt"; then
	say "STOP: OpenMP device 0 is not the GPU:"
	grep -E '^  omp ' "$out/devices.txt" | head -n 3 | tee -a "$summary"
	say "gpu-check: stopped after $(elapsed) s (nothing measured)"
	exit 3
fi
if ! grep -Eq '^  cuda +0 ' "$out/devices.txt"; then
	say "STOP: CUDA device 0 is not measured:"
	grep -E '^  cuda ' "$out/devices.txt" | head -n 3 | tee -a "$summary"
	say "gpu-check: stopped after $(elapsed) s (nothing measured)"
	exit 3
fi
say "devices ok after $(elapsed) s: omp 0 and cuda 0 are the GPU"

# 2. Transfers: pinned HtoD/DtoH sync and async 1 MiB - 1 GiB, OpenMP and CUDA, and the
# same-GPU copy; then the gap table.
sizes=1MiB,2MiB,4MiB,8MiB,16MiB,32MiB,64MiB,128MiB,256MiB,512MiB,1GiB
timeout "$(limit 200)" "$exe" probe --api omp,cuda --devices 0 --probe htod,dtoh,p2p \
	--mode sync,async --host-mem pinned --threads 1 --sizes "$sizes" --no-hht-sweep \
	--output "$work/probe" >"$out/probe.txt" 2>&1
say "probe: status $? after $(elapsed) s"
"$exe" gap "$work/probe/results.json" >>"$out/probe.txt" 2>&1
cp "$work/probe/results.json" "$out/results-probe.json" 2>/dev/null
python3 - "$work/probe/results.json" <<'PY' 2>&1 | tee -a "$summary"
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["measurements"]:
    if m["bytes"] in (1 << 20, 64 << 20, 1 << 30) and not m.get("error"):
        print(f'{m["api"]:4} {m["direction"]:4} {m["mode"]:5} {m["host_mem"]:6} '
              f'{m["bytes"] >> 20:5} MiB {m["gbps"]["median"]:8.2f} GB/s '
              f'{m["verification"]["status"]} {m.get("cuda_sched", "")}')
PY

# 2b. CUDA scheduling flags as found and with --cuda-sched spin; each run records 'sched'
# and how it came to be. Small: seconds.
for s in auto spin; do
	timeout "$(limit 60)" "$exe" probe --api omp,cuda --devices 0 --probe htod \
		--mode sync,async --host-mem pinned --threads 1 --sizes 4KiB,64MiB --no-hht-sweep \
		--cuda-sched $s --output "$work/sched-$s" >>"$out/sched.txt" 2>&1
	say "cuda-sched $s: status $?: $(grep -m 1 'sched:' "$out/sched.txt" | tail -n 1)"
done

# 3. The solver baseline at the paper's sizes: k(N) and the HBM fraction.
timeout "$(limit 200)" "$exe" heat --n 256,512,768 --versions baseline --devices 0 --steps 50 \
	--reps 3 --output "$work/heat" >"$out/heat.txt" 2>&1
say "heat: status $? after $(elapsed) s"
cp "$work/heat/results.json" "$out/results-heat.json" 2>/dev/null
grep -E "baseline|roofline" "$out/heat.txt" | head -n 8 | tee -a "$summary"

# 4. The paper's model from both.
timeout "$(limit 60)" "$exe" report --output "$work/report" "$work/probe/results.json" \
	"$work/heat/results.json" >/dev/null 2>&1
say "report: status $? after $(elapsed) s"
if [ -f "$work/report/report.md" ]; then
	cp "$work/report/report.md" "$out/report.md"
	grep -A12 "paper's model" "$work/report/report.md" | head -n 12 | tee -a "$summary"
fi
say "gpu-check: done in $(elapsed) s"
