#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meson/nvptx.py, the NVPTX device link's checks, on device-image ELF headers recorded from
# real CUDA 11.8 and 13.0 links (tests/fixtures/nvptx/README.md) and on the toolkits this
# machine has: an image LLVM 19's runtime cannot load stops the build with one line naming
# the cause and the fix; a CUDA 13 toolkit is refused before LLVM 21. TAP.
src=${NODEBW_SOURCE:?}
py="python3 $src/meson/nvptx.py"
fx=$src/tests/fixtures/nvptx
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; }
# expect STATUS PATTERN DESCRIPTION COMMAND...: the status and one line matching PATTERN.
expect() {
	want=$1 pat=$2 what=$3
	shift 3
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	lines=$(cat "$work/out" "$work/err" | wc -l)
	if [ "$rc" -eq "$want" ] && grep -Eq "$pat" "$work/out" "$work/err" &&
		{ [ "$want" -eq 0 ] || [ "$(wc -l <"$work/err")" -eq 1 ]; }; then
		ok "$what"
	else
		bad "$what: status $rc (want $want), $lines lines: $(cat "$work/err" "$work/out" | head -n 3)"
	fi
}
cp "$fx/cuda-11.8-sm_90.elfhdr" "$work/libold.so"
cp "$fx/cuda-13.0-sm_90.elfhdr" "$work/libnew.so"
printf 'no image here' >"$work/libnone.so"
expect 0 'libold.so: 1 NVPTX image\(s\) for sm_90, e_flags 0x5a055a' \
	"CUDA 11.8's image is accepted for LLVM 19" \
	$py images --llvm-version 19.1.7 --arch sm_90 --stamp "$work/stamp" "$work/libold.so"
[ -s "$work/stamp" ] && ok "the stamp is written" || bad "no stamp"
rm -f "$work/stamp"
expect 1 "libnew.so: .*CUDA 13's ELF ABI \(EI_ABIVERSION 8, e_flags 0x6005a04\).*LLVM 19's libomptarget cannot load.*-Domp_cuda_path" \
	"CUDA 13's image is refused for LLVM 19 with the cause and the fix" \
	$py images --llvm-version 19.1.7 --arch sm_90 --stamp "$work/stamp" "$work/libnew.so"
[ ! -e "$work/stamp" ] && ok "no stamp after a refusal" || bad "stamp written after a refusal"
expect 0 'sm_90, e_flags 0x6005a04' "CUDA 13's image is accepted for LLVM 21" \
	$py images --llvm-version 21.1.0 --arch sm_90 --stamp "$work/stamp" "$work/libnew.so"
expect 1 'no device image for sm_80 \(images for sm_90\)' "an image for another GPU is refused" \
	$py images --llvm-version 19.1.7 --arch sm_80 --stamp "$work/stamp" "$work/libold.so"
expect 1 'libnone.so: no NVPTX device image embedded' "a library without an image is refused" \
	$py images --llvm-version 19.1.7 --arch sm_90 --stamp "$work/stamp" "$work/libnone.so"
expect 1 'no CUDA toolkit in /nonexistent' "no toolkit: the cause and the fix" \
	$py toolkit --llvm-version 19.1.7 /nonexistent
for t in /opt/nodebw/cuda-nvptx /usr/local/cuda /usr/lib/cuda; do
	[ -x "$t/bin/ptxas" ] || { ok "# SKIP no toolkit at $t"; continue; }
	rel=$("$t/bin/ptxas" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
	if [ "$rel" -ge 13 ]; then
		expect 1 "$t \(CUDA $rel\.[0-9]+\) writes CUDA 13's device ELF ABI" \
			"$t (CUDA $rel) is refused for LLVM 19" \
			$py toolkit --llvm-version 19.1.7 --explicit "$t"
		expect 0 "^$t\$" "$t (CUDA $rel) is taken for LLVM 21" \
			$py toolkit --llvm-version 21.1.0 --explicit "$t"
	else
		expect 0 "^$t\$" "$t (CUDA $rel) is taken for LLVM 19" \
			$py toolkit --llvm-version 19.1.7 --explicit "$t"
	fi
done
echo "1..$n"
