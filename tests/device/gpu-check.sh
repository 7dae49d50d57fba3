#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The GPU check, for a machine with one NVIDIA GPU (see doc/gpu.md). Prepare it here:
#   scripts/make-bundle.sh sm_90          (the GPU flavour, packed with its library closure)
# carry dist/nodebw-*.tar.xz (the device tool carries untracked files: keep only one
# there), and run on the GPU machine, from the project root:
#   tar -C /tmp -xJf dist/nodebw-*-sm_90-*.tar.xz &&
#     tests/device/gpu-check.sh /tmp/nodebw-*-sm_90-linux-x86_64/bin/nodebw "$OUT"
# The first argument may also be a build folder (its tools/nodebw) on a Debian 12 machine.
#
# It stops at once (status 3) unless 'nodebw list' shows OpenMP device 0 as the GPU and CUDA
# device 0 measured (not skipped): anything else would time host memory or nothing. Then it
# records the driver and the PCIe link (generation and width now and at most), measures
# pinned HtoD/DtoH sync and async from 1 MiB to 1 GiB through OpenMP and CUDA and the
# same-GPU copy (one GPU: not a peer link), prints the OpenMP-vs-native gap table, and runs
# the solver's one-device baseline at N = 256, 512, 768 for k(N) and its fraction of the HBM
# roofline, with the report's paper-model section; and how CUDA host threads wait: each
# CUDA run's primary-context scheduling ("sched", as found: libomptarget asks for blocking
# sync; and with --cuda-sched spin) and the solver records' cuda_sched; and CUDA's copy
# kernel (HtoD/DtoH over mapped pinned memory, the same-GPU copy) and pointer chase (HtoD
# through mapped pinned memory, the same GPU's memory), each of which must be measured and
# verified (the embedded PTX JIT-compiled by this driver).
#
# Every step has its own time limit, never more than the budget has left (a step with less
# than 10 s left is skipped and counted as a failure), and the whole check stays inside
# GPU_CHECK_BUDGET seconds (default 540). A failed verification, a measurement with an
# error, a solver run that does not match its reference, or a step that fails makes the
# check fail (status 1) after the remaining steps; what it measured goes to OUT as at most
# 9 files (summary.txt first).
set -u
arg=${1:?usage: gpu-check.sh NODEBW|BUILD_DIR OUT_DIR}
out=${2:?usage: gpu-check.sh NODEBW|BUILD_DIR OUT_DIR}
exe=$arg
[ -d "$arg" ] && exe=$arg/tools/nodebw
[ -x "$exe" ] || { echo "gpu-check: $exe is not an executable nodebw" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
budget=${GPU_CHECK_BUDGET:-540}
export OMP_TARGET_OFFLOAD=${OMP_TARGET_OFFLOAD:-MANDATORY}
summary=$out/summary.txt
failures=$work/failures
: >"$failures"
say() { echo "$*" | tee -a "$summary"; }
fail() { echo "$*" >>"$failures"; say "FAIL: $*"; }
elapsed() { echo $(($(date +%s) - start)); }
# step NAME SECONDS LOG COMMAND...: runs COMMAND with at most SECONDS, never more than the
# budget has left less 20 s for the steps after it; with under 10 s left it is skipped. A
# status other than 0 is a failure. Returns the command's status (124 when it timed out).
step() {
	name=$1 want=$2 log=$3
	shift 3
	left=$((budget - $(elapsed) - 20))
	[ "$left" -lt "$want" ] && want=$left
	if [ "$want" -lt 10 ]; then
		fail "$name: skipped, $((budget - $(elapsed))) s of the budget left"
		return 125
	fi
	timeout "$want" "$@" >>"$log" 2>&1
	rc=$?
	say "$name: status $rc after $(elapsed) s (limit $want s)"
	[ "$rc" -eq 124 ] && fail "$name: ran past its $want s"
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && fail "$name: status $rc ($(tail -n 1 "$log"))"
	return "$rc"
}
# judge KIND FILE: the results' verdicts, one line each (tests/device/judge-results.py).
judge() {
	python3 "$here/judge-results.py" "$1" "$2" >"$work/judge.txt" 2>&1
	rc=$?
	tee -a "$summary" <"$work/judge.txt"
	[ "$rc" -ne 0 ] && fail "$1 results: $(grep -c '^BAD' "$work/judge.txt") bad (above)"
}
stop() {
	say "STOP: $*"
	say "gpu-check: stopped after $(elapsed) s (nothing measured)"
	exit 3
}
: >"$summary"
say "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $exe"

# 1. Devices: the driver, the PCIe link now and at most, nodebw's view.
{
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,memory.total,clocks.max.memory --format=csv
	timeout 60 "$exe" --version
	timeout 60 "$exe" list
} >"$out/devices.txt" 2>&1
grep -E "^(NVIDIA|name|GPU )" "$out/devices.txt" | head -n 4 | tee -a "$summary"
say "$(timeout 60 "$exe" --version 2>&1)"
if ! grep -Eq '^  omp +0  cuda ' "$out/devices.txt"; then
	grep -E '^  omp ' "$out/devices.txt" | head -n 3 | tee -a "$summary"
	stop "OpenMP device 0 is not the GPU (above)"
fi
if ! grep -Eq '^  cuda +0 ' "$out/devices.txt"; then
	grep -E '^  cuda ' "$out/devices.txt" | head -n 3 | tee -a "$summary"
	stop "CUDA device 0 is not measured (above)"
fi
say "devices ok after $(elapsed) s: omp 0 and cuda 0 are the GPU"

# 2. Transfers: pinned HtoD/DtoH sync and async 1 MiB - 1 GiB, OpenMP and CUDA, and the
# same-GPU copy; then the gap table.
sizes=1MiB,2MiB,4MiB,8MiB,16MiB,32MiB,64MiB,128MiB,256MiB,512MiB,1GiB
step probe 200 "$out/probe.txt" "$exe" probe --api omp,cuda --devices 0 --probe htod,dtoh,p2p \
	--mode sync,async --host-mem pinned --threads 1 --sizes "$sizes" --no-hht-sweep \
	--output "$work/probe"
"$exe" gap "$work/probe/results.json" >>"$out/probe.txt" 2>&1
cp "$work/probe/results.json" "$out/results-probe.json" 2>/dev/null
judge probe "$work/probe/results.json"

# 2b. How CUDA host threads wait: as found, and with --cuda-sched spin. Each run's own
# results say its 'sched' and how it came to be. Small: seconds.
for s in auto spin; do
	step "cuda-sched $s" 60 "$out/sched.txt" "$exe" probe --api omp,cuda --devices 0 \
		--probe htod --mode sync,async --host-mem pinned --threads 1 --sizes 4KiB,64MiB \
		--no-hht-sweep --cuda-sched "$s" --output "$work/sched-$s"
	judge sched "$work/sched-$s/results.json"
done

# 3. The solver baseline at the paper's sizes: k(N), the HBM fraction, cuda_sched.
step heat 200 "$out/heat.txt" "$exe" heat --n 256,512,768 --versions baseline --devices 0 \
	--steps 50 --reps 3 --output "$work/heat"
cp "$work/heat/results.json" "$out/results-heat.json" 2>/dev/null
grep -E "baseline|roofline" "$out/heat.txt" | head -n 8 | tee -a "$summary"
judge heat "$work/heat/results.json"

# 4. The paper's model from both.
step report 60 "$out/report.txt" "$exe" report --output "$work/report" \
	"$work/probe/results.json" "$work/heat/results.json"
# The main page (report.md) and the models' page beside it, which has the paper's model.
if [ -f "$work/report/report.md" ]; then
	cp "$work/report/report.md" "$out/report.md"
	cp "$work/report/models.md" "$out/models.md" 2>/dev/null
	grep -A12 "paper's model" "$work/report/models.md" | head -n 12 | tee -a "$summary"
fi

# 5. CUDA's copy kernel and pointer chase (embedded PTX, cuLaunchKernel): HtoD/DtoH over
# mapped pinned host memory and the same-GPU copy; the chase through host memory and the
# GPU's own (64 MiB: beyond the L2 cache). The DtoH chase is refused by the backend.
step "cuda kernel+chase" 60 "$out/probe.txt" "$exe" probe --api cuda --devices 0 \
	--probe htod,dtoh,p2p --mode kernel,chase --host-mem pinned --threads 1 \
	--sizes 1MiB,64MiB --no-hht-sweep --output "$work/kernel"
cp "$work/kernel/results.json" "$out/results-kernel.json" 2>/dev/null
judge kernel "$work/kernel/results.json"

# 6. Halo faces of a 256^3 box (R 2, 8-byte elements): z-, y- and x-faces by the rectangular
# copy (OpenMP omp_target_memcpy_rect, CUDA cudaMemcpy3D) and by pack (OpenMP's target
# regions, CUDA's nbw_pack / nbw_unpack PTX kernels), host-staged (pinned) and on the GPU
# (the same-GPU copy); every method of both APIs must be measured and verified.
step faces 60 "$out/faces.txt" "$exe" probe --api omp,cuda --devices 0 --mode sync,async \
	--host-mem pinned --faces 256x256x256:2:8 --output "$work/faces"
judge faces "$work/faces/results.json"

n=$(wc -l <"$failures")
if [ "$n" -gt 0 ]; then
	say "gpu-check: FAILED ($n) in $(elapsed) s:"
	tee -a "$summary" <"$failures"
	exit 1
fi
say "gpu-check: passed in $(elapsed) s"
