#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The "Whole node" section of 'nodebw report' (on node.md, after the table of every path): on the hand-made DGX-H100 document (pair
# 3<->6 and device 5 degraded) the heat maps, the per-device bars and exactly those
# outliers; on the recorded host-plugin run host memory is never shown as peer links and
# has no fraction map; a document with only device 0 and pair 0-1.
. "$NODEBW_SOURCE/tests/tap.sh"
. "$NODEBW_SOURCE/tests/report/pages.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dgx="$NODEBW_SOURCE/tests/fixtures/results-dgx-h100-handmade.json"
hostplugin="$NODEBW_SOURCE/tests/fixtures/results-omp-host-2cpu-vm.json"
have_gnuplot() {
	if [ -n "${NODEBW_GNUPLOT:-}" ]; then [ -x "$NODEBW_GNUPLOT" ]; else command -v gnuplot >/dev/null; fi
}
# section FILE: the Whole node section of a node.md (the page's last section, up to the
# closing note)
section() { page_body "$1" | sed -n '/^## Whole node/,/^## /{/^## /!p;/^## Whole node$/p}'; }

out="$tmp/dgx"
"$NODEBW" report -o "$out" "$dgx" >"$tmp/out" 2>"$tmp/err"
check "DGX: report exits 0" test $? -eq 0
check "DGX: nothing on stderr" test ! -s "$tmp/err"
md="$out/node.md"
check "DGX: node.md has the Whole node section" grep -qx "## Whole node" "$md"
check "DGX: node.md: the table of every path, then the whole node" \
	test "$(heading_order "$md")" = "Every path|Whole node|"
check "DGX: the Whole node section is on node.md only" sh -c \
	"! grep -qx '## Whole node' '$out/report.md' '$out/transfers.md' '$out/models.md' '$out/run.md'"
check_pages "$out" "DGX"
# The topology: host, link map and devices on the main page; where it came from and every
# pair's link on the run's page.
sed -n '/^## Topology$/,/^## Models$/p' "$out/report.md" >"$tmp/topo"
check "DGX: the main page's topology names the host" grep -q "^Host dgx-h100-like: 2 package(s)" "$tmp/topo"
check "DGX: the main page's topology has the devices with their host links" \
	grep -qF "](tables/topology-devices-0.csv)" "$tmp/topo"
check "DGX: the main page's topology has the map of the links between devices" \
	sh -c "grep -qF 'The links between devices' '$tmp/topo' && test -s '$out/plots/topology-links-0.gp'"
check "DGX: every pair's link is on run.md, not on the main page" sh -c \
	"grep -qx \"### Topology: sources and every pair's link\" '$out/run.md' &&
	 grep -qF '](tables/topology-pairs-0.csv)' '$out/run.md' &&
	 ! grep -qF 'tables/topology-pairs-0.csv' '$out/report.md'"
section "$md" >"$tmp/wn"
for s in "### Device-to-device matrices" "#### cuda P2P async, one stream, peer access enabled" \
	 "#### cuda P2P async, both directions at once (the sum), peer access enabled" \
	 "### Host and device, per device" "#### cuda host to device (htod)" \
	 "#### cuda device to host (dtoh)" "### Outliers"; do
	check "DGX: section has '$s'" grep -qxF "$s" "$tmp/wn"
done
check "DGX: the section states the unit" grep -qF "GB/s = 1e9 bytes per second" "$tmp/wn"
for m in single bidir; do
	for k in gbps fraction; do
		p="$out/plots/p2p-cuda-async-$m-peer-enabled-$k"
		check "DGX: heat map $m $k: .dat and .gp" test -s "$p.dat" -a -s "$p.gp"
		check "DGX: heat map $m $k is an image plot" grep -q "with image" "$p.gp"
		check "DGX: heat map $m $k writes the values in the cells" grep -q "with labels" "$p.gp"
		if have_gnuplot; then
			check "DGX: heat map $m $k: PNG and SVG" test -s "$p.png" -a -s "$p.svg"
		fi
	done
	check "DGX: matrix $m as CSV" test -s "$out/tables/p2p-cuda-async-$m-peer-enabled-gbps.csv"
done
p="$out/plots/p2p-cuda-async-single-peer-enabled-gbps"
check "DGX: GB/s map: unit in the colour bar label" grep -q "set cblabel 'GB/s (1e9 B/s)'" "$p.gp"
check "DGX: GB/s map: rows = source, row 0 on top" grep -q "set yrange \[7.5:-0.5\]" "$p.gp"
check "DGX: GB/s map: cell 3->6 is 190.2" grep -q '^6 3 190\.2[0-9]* "190\.2"$' "$p.dat"
check "DGX: GB/s map: the diagonal is X, not coloured" grep -q '^5 5 NaN "X"$' "$p.dat"
check "DGX: fraction map: cell 3->6 is 42 %" \
	grep -q '^6 3 42\.[0-9]* "42%"$' "$out/plots/p2p-cuda-async-single-peer-enabled-fraction.dat"
check "DGX: matrix CSV row 3 has 190.24 in column 6" \
	grep -q "^3,268435456,368.67,382.75,384.60,,384.88,388.49,190.24,387.84$" \
	"$out/tables/p2p-cuda-async-single-peer-enabled-gbps.csv"
check "DGX: the caption names the link and its theoretical GB/s" \
	grep -qF "Links: NV18 (theoretical 450.0 GB/s)" "$tmp/wn"
for d in htod dtoh; do
	check "DGX: per-device bars $d: .dat, .gp and CSV" \
		test -s "$out/plots/devices-cuda-$d.dat" -a -s "$out/plots/devices-cuda-$d.gp" \
		     -a -s "$out/tables/devices-cuda-$d.csv"
	check "DGX: per-device bars $d: theoretical reference line" \
		grep -qF "theoretical 63.0 GB/s (PCIe Gen5 x16)" "$out/plots/devices-cuda-$d.gp"
	check "DGX: per-device table $d has 8 devices" \
		test "$(($(wc -l <"$out/tables/devices-cuda-$d.csv") - 1))" -eq 8
done
if have_gnuplot; then
	check "DGX: per-device bars: PNG and SVG" \
		test -s "$out/plots/devices-cuda-htod.png" -a -s "$out/plots/devices-cuda-htod.svg"
	check "DGX: no gnuplot log left" sh -c "! ls '$out'/plots/*.log 2>/dev/null"
fi
csv="$out/tables/outliers.csv"
check "DGX: outlier table as CSV" test -s "$csv"
check "DGX: outlier CSV header" \
	grep -q "^what,where,api,direction,mode,host_mem,peer_access,link,gbps,peer_median_gbps,theoretical_gbps,theoretical_pct,rules,reason$" "$csv"
for w in "pair,3->6," "pair,6->3," "pair,3<->6," "pair,6<->3," "device,5,cuda,htod," \
	 "device,5,cuda,dtoh,"; do
	check "DGX: outlier $w" grep -qF "$w" "$csv"
done
check "DGX: exactly those 6 outliers" test "$(($(wc -l <"$csv") - 1))" -eq 6
check "DGX: each outlier has its reason" grep -qF "below the median 379.8 GB/s of its 55 peers" "$csv"
check "DGX: the rule is stated" grep -qF "below 70 % of its theoretical figure" "$tmp/wn"
check "DGX: no 'No outliers'" sh -c "! grep -q 'No outliers' '$tmp/wn'"
check "DGX: the median rule judged every group" \
	grep -qF "The median rule judged all 4 groups" "$tmp/wn"
check "DGX: node.html has the section" grep -qF ">Whole node</h2>" "$out/node.html"
check "DGX: node.html links the outlier CSV" grep -qF 'href="tables/outliers.csv"' \
	"$out/node.html"

# The recorded host-plugin run: host memory, not peer links, no fraction map.
out="$tmp/host"
"$NODEBW" report -o "$out" "$hostplugin" >"$tmp/out" 2>"$tmp/err"
check "host-plugin: report exits 0" test $? -eq 0
section "$out/node.md" >"$tmp/wn"
check "host-plugin: the section is there" grep -qx "## Whole node" "$tmp/wn"
check "host-plugin: no heading calls host memory P2P" sh -c "! grep -q '^#.*P2P' '$tmp/wn'"
check "host-plugin: headings say copies within host memory, not peer links" \
	grep -qxF "#### omp sync, one stream: copies within host memory, not peer links" "$tmp/wn"
n=$(grep -c "^\*Figure:\*.*copies within host memory, not peer links" "$tmp/wn")
check "host-plugin: every map caption says host memory, not peer links ($n)" test "$n" -eq 4
check "host-plugin: no fraction map" sh -c "! ls '$out'/plots/*fraction* 2>/dev/null"
check "host-plugin: the report says why there is no fraction map" \
	grep -qF "host memory has no link and no theoretical figure" "$tmp/wn"
nmaps=$(ls "$out"/plots/p2p-*.gp | wc -l)
check "host-plugin: maps only for single-stream sync/async (4 of 8 matrices: $nmaps)" \
	test "$nmaps" -eq 4
check "host-plugin: every matrix is a table (8)" test "$(ls "$out"/tables/p2p-*.csv | wc -l)" -eq 8
check "host-plugin: unmeasured pairs are '-', the diagonal X (node.md)" \
	grep -qF "| 1 | - | X | - | - |" "$tmp/wn"
check "host-plugin: the CSV has machine names, the matrix's size and empty cells for them" \
	test "$(sed -n '1p;3p' "$out/tables/p2p-omp-sync-single-gbps.csv" | cut -d, -f1,3-)" = \
	"$(printf 'src_device,dst_0_gbps,dst_1_gbps,dst_2_gbps,dst_3_gbps\n1,,,,')"
check "host-plugin: the matrix CSV's bytes column is the size its caption names" sh -c \
	"b=\$(sed -n 2p '$out/tables/p2p-omp-sync-single-gbps.csv' | cut -d, -f2); \
	 [ -n \"\$b\" ] && grep -qF \"at \$((b / 1048576)) MiB, the comparison size\" '$tmp/wn' && \
	 [ \$(cut -d, -f2 '$out/tables/p2p-omp-sync-single-gbps.csv' | sort -u | wc -l) -eq 2 ]"
check "host-plugin: device bars say host memory, not GPUs" \
	grep -qF "device (host memory, not a GPU)" "$out/plots/devices-omp-htod.gp"
check "host-plugin: no theoretical line for host memory" \
	sh -c "! grep -q theoretical '$out/plots/devices-omp-htod.gp'"
check "host-plugin: No outliers, with the rule" grep -qF "No outliers: no device or pair" "$tmp/wn"
check "host-plugin: the groups the median rule did not judge (one member each)" \
	grep -qF "56 of 56 groups have fewer than 3 members" "$tmp/wn"
check "host-plugin: groups not judged as CSV" test "$(($(wc -l <"$out/tables/outlier-groups-not-judged.csv") - 1))" -eq 56

# Only device 0 and pair 0-1 (cut out of the DGX document).
if /usr/bin/python3 - "$dgx" "$tmp/pair01.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["devices"] = [x for x in d["devices"] if x["id"] <= 1]
def keep(m):
    ids = [e for s in m["streams"] for e in (s["src"], s["dst"]) if e != "host"]
    return all(e in (0, 1) for e in ids) if m["direction"] == "p2p" else all(e == 0 for e in ids)
d["measurements"] = [m for m in d["measurements"] if keep(m)]
json.dump(d, open(sys.argv[2], "w"))
PY
then
	out="$tmp/pair01"
	"$NODEBW" report -o "$out" "$tmp/pair01.json" >"$tmp/out" 2>"$tmp/err"
	check "pair 0-1: report exits 0" test $? -eq 0
	section "$out/node.md" >"$tmp/wn"
	check "pair 0-1: a 2x2 matrix" \
		test "$(cat "$out/tables/p2p-cuda-async-single-peer-enabled-gbps.csv")" = \
		"$(printf 'src_device,bytes,dst_0_gbps,dst_1_gbps\n0,268435456,,384.95\n1,268435456,384.19,')"
	check "pair 0-1: one device in the per-device table" \
		test "$(wc -l <"$out/tables/devices-cuda-htod.csv")" -eq 2
	check "pair 0-1: No outliers" grep -qF "No outliers" "$tmp/wn"
	check "pair 0-1: groups of fewer than 3 are named" \
		grep -qF "4 of 4 groups have fewer than 3 members" "$tmp/wn"
else
	not_ok "pair 0-1: the document could not be cut out of the DGX fixture"
fi

done_testing
