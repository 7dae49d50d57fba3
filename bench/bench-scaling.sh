#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# How the reading commands grow with their input: `nodebw topo --fixture` at 256 and 1024
# GPUs, `nodebw gap` and `nodebw matrix` on 12.5 MB and 50 MB results files (4x the input
# each). Prints the seconds and the ratio large/small: about 4 is linear, 16 quadratic.
# Usage: NODEBW=build/tools/nodebw NODEBW_SOURCE=. sh bench/bench-scaling.sh
# (or meson test -C build --benchmark --verbose input-scaling)
set -e
: "${NODEBW:=build/tools/nodebw}" "${NODEBW_SOURCE:=.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
secs() { # secs nodebw-args...: wall seconds of one run, output discarded
	s=$(date +%s.%N)
	"$NODEBW" "$@" >/dev/null
	echo "$(date +%s.%N) $s" | awk '{printf "%.2f", $1 - $2}'
}
ratio() { echo "$1 $2" | awk '{printf "%.1f", $2 / ($1 > 0.01 ? $1 : 0.01)}'; }

for n in 256 1024; do
	python3 "$NODEBW_SOURCE/tests/topology/make-many-gpus.py" "$tmp/g$n" "$n"
done
for mb in 12.5 50; do
	python3 "$NODEBW_SOURCE/tests/cli/make-big-results.py" \
		"$NODEBW_SOURCE/tests/fixtures/results-omp-host-2cpu-vm.json" "$tmp/r$mb.json" "$mb"
done
a=$(secs topo --fixture "$tmp/g256") b=$(secs topo --fixture "$tmp/g1024")
echo "topo --fixture   256 GPUs $a s, 1024 GPUs $b s: ratio $(ratio "$a" "$b") (4 linear in the devices, 16 quadratic; the printed matrix itself has N^2 cells)"
for cmd in gap matrix; do
	a=$(secs $cmd "$tmp/r12.5.json") b=$(secs $cmd "$tmp/r50.json")
	echo "$cmd  12.5 MB $a s, 50 MB $b s: ratio $(ratio "$a" "$b") (4 linear, 16 quadratic)"
done
