#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Input files a user names (results.json, a calibration, a topology fixture) are read through
# one bounded reader (common/readfile.c): a FIFO, a folder, /dev/zero or a file over the size
# limit is bad input, refused at once with one line on stderr and exit status 2. Every
# command runs under `timeout 10`, so a reader that blocks on a FIFO or reads /dev/zero for
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

# refused "description" pattern-in-the-message nodebw-args...
refused() {
	desc=$1 want=$2; shift 2
	timeout 10 "$NODEBW" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	lines=$(wc -l <"$tmp/err")
	if [ $st -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "^nodebw: error: .*$want" "$tmp/err" &&
	   [ ! -s "$tmp/out" ]; then
		ok "$desc: exit 2, one line ($(cat "$tmp/err"))"
	else
		not_ok "$desc: status $st (124 = hung), $lines stderr lines, wanted '$want'"
		sed 's/^/#   /' "$tmp/err" "$tmp/out" | head -5
	fi
}

for kind in "fifo:not a regular file (fifo)" "dir:not a regular file (directory)" \
	    "zero.json:not a regular file (character device)" \
	    "sparse.json:2147483648 bytes, over the limit of 1073741824 bytes"; do
	f="$tmp/${kind%%:*}" want="${kind#*:}"
	refused "report ${kind%%:*}" "$want" report --output "$tmp/rep" "$f"
	refused "gap ${kind%%:*}" "$want" gap "$f"
	refused "matrix ${kind%%:*}" "$want" matrix "$f"
	refused "predict ${kind%%:*}" "$want" predict --calibration "$f" --n 512 --gpus 2
done
check "report left no folder behind" test ! -e "$tmp/rep"

# The limit can be lowered (and a bad value is bad input).
NODEBW_MAX_INPUT_BYTES=1000 refused "gap with NODEBW_MAX_INPUT_BYTES=1000" \
	"over the limit of 1000 bytes" gap "$fx/results-omp-host-2cpu-vm.json"
NODEBW_MAX_INPUT_BYTES=100 refused "predict with NODEBW_MAX_INPUT_BYTES=100" \
	"over the limit of 100 bytes" predict --calibration "$cal" --n 512 --gpus 2
NODEBW_MAX_INPUT_BYTES=lots refused "NODEBW_MAX_INPUT_BYTES=lots" "not a byte count" \
	gap "$fx/results-omp-host-2cpu-vm.json"
timeout 10 "$NODEBW" gap "$fx/results-omp-host-2cpu-vm.json" >"$tmp/out" 2>"$tmp/err"
check "gap still reads a real results file (status $?)" test -s "$tmp/out"

# Topology fixtures: the fixture itself, its hwloc.xml and its links.json.
refused "topo --fixture fifo" "fifo" topo --fixture "$tmp/fifo"
refused "topo --fixture /dev/zero" "character device" topo --fixture /dev/zero
refused "topo --fixture sparse XML" "over the limit" topo --fixture "$tmp/sparse.json"
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
		refused "topo --fixture with $part a ${kind%%:*}" "$part: .*${kind#*:}" \
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
