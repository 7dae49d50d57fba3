#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The GPU check of the native-probe work, for a device machine (see ../shared/device/README.md):
#   source .device/env.sh && tests/device/gpu-check.sh BUILD_DIR OUT_DIR
# BUILD_DIR is a build made here with -Doffload_targets=x86_64-pc-linux-gnu,sm_90 and the CUDA
# plugin. It records the devices, then CUDA and OpenMP HtoD/DtoH sync and async, pinned and
# pageable, 8 B to 1 GiB, and same-GPU device-to-device, in one run with the gap table; and the
# CUDA scheduling flags as found and with --cuda-sched spin.
set -u
build=${1:?build folder}
out=${2:?output folder}
mkdir -p "$out"
exe=$build/tools/nodebw
export OMP_TARGET_OFFLOAD=MANDATORY
{
	nvidia-smi -L 2>&1
	nvidia-smi --query-gpu=name,pci.bus_id,pcie.link.gen.current,pcie.link.width.current,clocks.mem --format=csv 2>&1
	"$exe" --version
	"$exe" list
} >"$out/devices.txt" 2>&1
# The OpenMP GPU is the first device in a mixed sm_90 + host build; the host-plugin devices
# follow it. One GPU: P2P is a same-GPU copy (labelled so, not a peer link).
timeout 420 "$exe" probe --api omp,cuda --devices 0 --mode sync,async \
	--host-mem pinned,pageable --threads 1 --max-size 1GiB --output "$out/r" \
	>"$out/probe.txt" 2>&1
echo "probe status $?" >>"$out/probe.txt"
# How CUDA host threads wait: as found once the OpenMP plugin has made the primary context
# (it asks for blocking sync), and with --cuda-sched spin set on that active context; each
# run records 'sched' and how it came to be. Small, so it costs seconds.
for s in auto spin; do
	timeout 90 "$exe" probe --api omp,cuda --devices 0 --probe htod --mode sync,async \
		--host-mem pinned --threads 1 --sizes 4KiB,64MiB --cuda-sched $s \
		--output "$out/sched-$s" >"$out/sched-$s.txt" 2>&1
	echo "sched-$s status $?: $(grep -m 1 '^  sched:' "$out/sched-$s.txt")"
done
"$exe" gap "$out/r/results.json" >"$out/gap.txt" 2>&1
tail -n 40 "$out/gap.txt"
# The models on one H200: the solver's baseline at the paper's sizes (k(N), HBM fraction)
# and the report's paper-model section; Versions 1-4 need two devices, which one GPU lacks
# (the run records why). Bounded so the whole check fits the device time.
timeout 240 "$exe" heat --n 256,512,768 --versions baseline --devices 0 --steps 100 --reps 3 \
	--output "$out/heat" >"$out/heat.txt" 2>&1
echo "heat status $?" >>"$out/heat.txt"
"$exe" report --output "$out/heat-report" "$out/r/results.json" "$out/heat/results.json" \
	>"$out/report.txt" 2>&1
grep -A8 "paper's model" "$out/heat-report/report.md" | tail -n 8
