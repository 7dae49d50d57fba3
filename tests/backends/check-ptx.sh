#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The CUDA backend's hand-written PTX (bw_native/cuda_kernels.ptx) compiled by the toolkit's
# ptxas for the GPUs the project measures (TAP), as the driver's JIT will compile it at run
# time: each architecture must compile and yield all five kernels, without spills.
#   check-ptx.sh PTXAS PTX
ptxas=${1:?usage: check-ptx.sh PTXAS PTX}
ptx=${2:?usage: check-ptx.sh PTXAS PTX}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for arch in sm_80 sm_90 sm_100; do
	n=$((n + 1))
	if ! "$ptxas" -arch="$arch" -v "$ptx" -o "$work/k.cubin" >"$work/log" 2>&1; then
		if grep -q "not defined for option 'gpu-name'" "$work/log"; then
			echo "ok $n - # SKIP this ptxas does not know $arch"
			continue
		fi
		echo "not ok $n - ptxas -arch=$arch: $(grep -m 1 -i error "$work/log")"
		continue
	fi
	missing=
	for k in nbw_copy16 nbw_copy1 nbw_chase nbw_pack nbw_unpack; do
		grep -q "Compiling entry function '$k' for '$arch'" "$work/log" || missing="$missing $k"
	done
	if [ -n "$missing" ]; then
		echo "not ok $n - ptxas -arch=$arch compiled without:$missing"
	elif grep -Eq '[1-9][0-9]* bytes spill' "$work/log"; then
		echo "not ok $n - ptxas -arch=$arch spills: $(grep -m 1 spill "$work/log")"
	else
		echo "ok $n - ptxas -arch=$arch: nbw_copy16, nbw_copy1, nbw_chase, nbw_pack, nbw_unpack"
	fi
done
echo "1..$n"
