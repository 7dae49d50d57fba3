#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Input files a user names (results.json, a calibration, a topology fixture) are read through
# one bounded reader (common/readfile.c): a FIFO, a folder, /dev/zero or a file over the size
# limit is bad input, refused at once with one line on stderr and exit status 2. Every
# command runs under a timeout (tests/tap.sh), so a reader that blocks on a FIFO or reads /dev/zero for
# ever fails this test instead of hanging it.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
cal="$NODEBW_SOURCE/doc/examples/calibration-table6-h100.json"

mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
truncate -s 2G "$tmp/sparse.json" # sparse: over the 1 GiB limit, no disk used
ln -s /dev/zero "$tmp/zero.json"


for kind in "fifo:not a regular file (fifo)" "dir:not a regular file (directory)" \
	    "zero.json:not a regular file (character device)" \
	    "sparse.json:2147483648 bytes, over the limit of 1073741824 bytes"; do
	f="$tmp/${kind%%:*}" want="${kind#*:}"
	usage_error_matching "report ${kind%%:*}" "$want" report --output "$tmp/rep" "$f"
	usage_error_matching "gap ${kind%%:*}" "$want" gap "$f"
	usage_error_matching "matrix ${kind%%:*}" "$want" matrix "$f"
	usage_error_matching "predict ${kind%%:*}" "$want" predict --calibration "$f" --n 512 --gpus 2
done
check "report left no folder behind" test ! -e "$tmp/rep"

# The limit can be lowered (and a bad value is bad input).
NODEBW_MAX_INPUT_BYTES=1000 usage_error_matching "gap with NODEBW_MAX_INPUT_BYTES=1000" \
	"over the limit of 1000 bytes" gap "$fx/results-omp-host-2cpu-vm.json"
NODEBW_MAX_INPUT_BYTES=100 usage_error_matching "predict with NODEBW_MAX_INPUT_BYTES=100" \
	"over the limit of 100 bytes" predict --calibration "$cal" --n 512 --gpus 2
NODEBW_MAX_INPUT_BYTES=lots usage_error_matching "NODEBW_MAX_INPUT_BYTES=lots" "not a byte count" \
	gap "$fx/results-omp-host-2cpu-vm.json"
timeout 10 "$NODEBW" gap "$fx/results-omp-host-2cpu-vm.json" >"$tmp/out" 2>"$tmp/err"
check "gap still reads a real results file (status $?)" test -s "$tmp/out"

# Topology fixtures: the fixture itself, its hwloc.xml and its links.json.
usage_error_matching "topo --fixture fifo" "fifo" topo --fixture "$tmp/fifo"
usage_error_matching "topo --fixture /dev/zero" "character device" topo --fixture /dev/zero
usage_error_matching "topo --fixture sparse XML" "over the limit" topo --fixture "$tmp/sparse.json"
for part in hwloc.xml links.json; do
	for kind in "fifo:(fifo)" "dir:(directory)" "zero.json:(character device)" \
		    "sparse.json:over the limit"; do
		rm -rf "$tmp/fx"
		cp -R "$fx/topology/vm-2cpu" "$tmp/fx"
		rm -rf "${tmp:?}/fx/$part"
		case ${kind%%:*} in
		fifo) mkfifo "$tmp/fx/$part" ;;
		dir) mkdir "$tmp/fx/$part" ;;
		zero.json) ln -s /dev/zero "$tmp/fx/$part" ;;
		sparse.json) truncate -s 2G "$tmp/fx/$part" ;;
		esac
		usage_error_matching "topo --fixture with $part a ${kind%%:*}" "$part: .*${kind#*:}" \
			topo --fixture "$tmp/fx"
	done
done
# A FIFO among the sys/ files is a file that is not there, not a hang.
rm -rf "$tmp/fx"
cp -R "$fx/topology/dgx-h100-like" "$tmp/fx"
first=$(ls "$tmp/fx/sys/bus/pci/devices" | head -1)
rm -f "$tmp/fx/sys/bus/pci/devices/$first/numa_node"
mkfifo "$tmp/fx/sys/bus/pci/devices/$first/numa_node"
timeout 10 "$NODEBW" topo --fixture "$tmp/fx" >"$tmp/out" 2>"$tmp/err"
st=$?
check "topo with a FIFO in sys/ finishes (status $st)" test "$st" -eq 0
done_testing
