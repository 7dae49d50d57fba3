#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the CUDA toolkit pieces that link OpenMP device code for NVIDIA GPUs (ptxas,
# nvlink, fatbinary, libdevice) from CUDA 11.8, which knows sm_90 (Hopper), into DEST
# (default /opt/nodebw/cuda-nvptx), where meson finds it (-Domp_cuda_path=auto).
#
#   scripts/cuda-nvptx-toolkit.sh [DEST]
#
# Why not the machine's own CUDA: from CUDA 13 on, ptxas and nvlink write NVIDIA's new
# device ELF ABI, which LLVM's libomptarget reads only from LLVM 21 on (llvm-project#159088);
# Debian 12's LLVM 19 would find no GPU. The files come from Debian 12's non-free package
# nvidia-cuda-toolkit (11.8.89), downloaded and checked by apt through a private source list
# (the machine's own sources are left alone) and unpacked, not installed: its dependencies
# (the CUDA libraries, the profiler, OpenCL) are not needed for this link. NVIDIA's licence
# of the package applies to the files (/usr/share/doc/nvidia-cuda-toolkit/copyright in it).
set -eu
dest=${1:-/opt/nodebw/cuda-nvptx}
if [ -x "$dest/bin/ptxas" ] && "$dest/bin/ptxas" --version 2>/dev/null | grep -q 'release 11\.8'; then
	echo "cuda-nvptx-toolkit: $dest has CUDA 11.8's ptxas already"
	exit 0
fi
command -v apt-get >/dev/null 2>&1 || {
	echo "cuda-nvptx-toolkit: needs apt-get (Debian 12); elsewhere configure with -Domp_cuda_path=DIR, a CUDA 11.8-12.x toolkit" >&2
	exit 2
}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/archives/partial"
echo "deb http://deb.debian.org/debian bookworm non-free" >"$work/sources.list"
# apt runs its download as the user _apt, which must be able to write there.
chmod 755 "$work"
chown -R _apt "$work/lists" "$work/archives" 2>/dev/null || true
apt_opts="-q -o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=/dev/null \
-o Dir::State::Lists=$work/lists -o Dir::Cache::Archives=$work/archives -o Debug::NoLocking=1"
# shellcheck disable=SC2086
apt-get $apt_opts update >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
# shellcheck disable=SC2086
(cd "$work" && apt-get $apt_opts download nvidia-cuda-toolkit=11.8.89~11.8.0-5~deb12u1) \
	>>"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
dpkg-deb -x "$work"/nvidia-cuda-toolkit_*.deb "$work/x"
stage="$work/cuda-nvptx"
mkdir -p "$stage/bin" "$stage/nvvm/libdevice" "$stage/include" "$stage/share"
for t in ptxas nvlink fatbinary; do cp "$work/x/usr/bin/$t" "$stage/bin/"; done
cp "$work/x/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc" "$stage/nvvm/libdevice/"
cp "$work/x/usr/share/doc/nvidia-cuda-toolkit/copyright" "$stage/share/copyright"
# clang reads the toolkit's version from include/cuda.h and picks the PTX ISA by it (7.8).
echo '#define CUDA_VERSION 11080' >"$stage/include/cuda.h"
echo 'CUDA Version 11.8.89' >"$stage/version.txt"
"$stage/bin/ptxas" --version | grep -q 'release 11\.8' || {
	echo "cuda-nvptx-toolkit: the unpacked ptxas does not run" >&2
	exit 1
}
$sudo mkdir -p "$(dirname "$dest")"
$sudo rm -rf "$dest.new"
$sudo cp -r "$stage" "$dest.new"
$sudo rm -rf "$dest"
$sudo mv "$dest.new" "$dest"
echo "cuda-nvptx-toolkit: CUDA 11.8's ptxas, nvlink and libdevice in $dest"
