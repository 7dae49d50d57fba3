#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 'nodebw report' on the recorded results file of this 2-vCPU VM (omp + host, 8 B and 1 MiB):
# the report folder and its sections, the default folder, the report without gnuplot, and
# bad input (one line on stderr, exit 2, nothing on stdout).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture="$NODEBW_SOURCE/tests/fixtures/results-omp-host-2cpu-vm.json"
have_gnuplot() {
	if [ -n "${NODEBW_GNUPLOT:-}" ]; then [ -x "$NODEBW_GNUPLOT" ]; else command -v gnuplot >/dev/null; fi
}

out="$tmp/r"
"$NODEBW" report --output "$out" "$fixture" >"$tmp/out" 2>"$tmp/err"
st=$?
check "report exits 0 (status $st)" test "$st" -eq 0
check "report says where report.md and report.html are" \
	grep -q "report: $out/report.md and $out/report.html" "$tmp/out"
check "nothing on stderr" test ! -s "$tmp/err"
sed 's/^/#   /' "$tmp/err"
for f in report.md report.html tables/files.csv tables/devices.csv tables/skipped.csv \
	 tables/fit-htod.csv tables/fit-dtoh.csv tables/fit-p2p.csv tables/gap.csv \
	 plots/bw-htod-sync.dat plots/bw-htod-sync.gp plots/bw-p2p-async.dat; do
	check "$f exists and is not empty" test -s "$out/$f"
done
if have_gnuplot; then
	for p in htod-sync htod-async htod-nowait dtoh-sync dtoh-async dtoh-nowait p2p-sync \
		 p2p-async; do
		check "plots/bw-$p.png and .svg are not empty" \
			test -s "$out/plots/bw-$p.png" -a -s "$out/plots/bw-$p.svg"
	done
	check "no gnuplot log left after success" sh -c "! ls '$out'/plots/*.log 2>/dev/null"
else
	diag "gnuplot not found: images not checked"
fi
nplots=$(ls "$out"/plots/bw-*.gp | wc -l)
check "a reasonable number of transfer plots ($nplots: one per direction and mode)" \
	test "$nplots" -eq 8
nplots=$(ls "$out"/plots/*.gp | wc -l)
check "a reasonable number of plots in all ($nplots: 8 transfers, 4 heat maps, 4 device bars, the summary's)" \
	test "$nplots" -eq 17
check "the summary's picture: every path of summary.json one row" \
	test "$(grep -vc '^#' "$out/plots/summary-paths.dat")" -eq \
	"$(${PYTHON3:-/usr/bin/python3} -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["paths"]))' "$out/summary.json")"
md="$out/report.md"
html="$out/report.html"
for s in "## Overview" "### Results files" "### Machine and software" "### Devices" \
	 "### Skipped" "### Units and how bytes are counted" "## Whole node" "## Transfers" \
	 "### Host to device (htod)" "### Device to host (dtoh)" "### Device to device (p2p)" \
	 "### OpenMP versus native" "## Model"; do
	check "report.md has '$s'" grep -qF "$s" "$md"
done
check "report.md says host-plugin devices are not GPUs" grep -q "host-plugin.*not a GPU" "$md"
check "report.md states the unit" grep -qF "GB/s = 1e9 bytes per second" "$md"
check "report.md quotes how bytes are counted" grep -qF "counted once" "$md"
check "report.md says there is no theoretical line for host memory" \
	grep -qF "No theoretical line: host memory, no link" "$md"
check "report.md annotates the OpenMP-vs-native gap, signed per size band" \
	grep -qE "OpenMP vs host: small sizes [+-][0-9]+ % \(OpenMP (slower|faster)|no clear gap" "$md"
check "report.md has the command line" grep -qF -- "--sizes 8,1MiB" "$md"
check "report.md links a figure" grep -qF "](plots/bw-htod-sync.svg)" "$md"
check "report.html is one page" grep -q "</html>" "$html"
check "report.html has tables" grep -qF "<table>" "$html"
check "report.html shows the SVG" grep -qF '<img src="plots/bw-htod-sync.svg"' "$html"
check "report.html links the PNG" grep -qF '<a href="plots/bw-htod-sync.png">' "$html"
check "report.html links the CSV" grep -qF 'href="tables/gap.csv"' "$html"
check "gap.csv has its header" grep -q "^file,native_api,direction,mode,host_mem,devices" \
	"$out/tables/gap.csv"
check "fit-htod.csv has alpha, beta and n_1/2" \
	grep -q "alpha_us,beta_gbps,n_half_bytes," "$out/tables/fit-htod.csv"
check "report.md keeps the display headers" grep -qF "| alpha (us) | beta (GB/s) |" "$out/report.md"
check "fit-htod.csv has a row per path (24)" test "$(($(wc -l <"$out/tables/fit-htod.csv") - 1))" -eq 24
check "the .gp script makes the PNG and the SVG" grep -q "fmt eq 'svg'" "$out/plots/bw-htod-sync.gp"

# Restyling: the script runs again by hand in the plots folder.
if have_gnuplot; then
	gp=${NODEBW_GNUPLOT:-gnuplot}
	(cd "$out/plots" && "$gp" -e "fmt='svg'; out='again.svg'" bw-htod-sync.gp) 2>"$tmp/err"
	check "the script runs again by hand" test -s "$out/plots/again.svg"
fi

# Default folder: 'report' beside the first results file.
mkdir "$tmp/run1"
cp "$fixture" "$tmp/run1/results.json"
"$NODEBW" report "$tmp/run1/results.json" >"$tmp/out" 2>"$tmp/err"
check "default output exits 0" test $? -eq 0
check "default folder is beside the results file" test -s "$tmp/run1/report/report.html"

# Two files: both named, devices and curves of each.
"$NODEBW" report -o "$tmp/two" "$fixture" "$tmp/run1/results.json" >/dev/null 2>"$tmp/err"
check "two files: exit 0" test $? -eq 0
check "two files: both in the files table" test "$(wc -l <"$tmp/two/tables/files.csv")" -eq 3
check "two files: plot lines name their file" grep -qF "[file 1]" "$tmp/two/plots/bw-htod-sync.gp"

# Without gnuplot: the report is still written and says why there is no image.
NODEBW_GNUPLOT=/nonexistent "$NODEBW" report -o "$tmp/nognu" "$fixture" >"$tmp/out" 2>"$tmp/err"
check "without gnuplot: exit 0" test $? -eq 0
check "without gnuplot: report.md says why" \
	grep -qF "no image (NODEBW_GNUPLOT=/nonexistent:" "$tmp/nognu/report.md"
check "without gnuplot: the command says so" grep -q "without an image" "$tmp/out"
check "without gnuplot: the data and script stay" test -s "$tmp/nognu/plots/bw-htod-sync.gp"
check "without gnuplot: no image" test ! -e "$tmp/nognu/plots/bw-htod-sync.png"

"$NODEBW" report --help >"$tmp/out" 2>"$tmp/err"
check "report --help exits 0" test $? -eq 0
check "report --help has the usage" grep -q "Usage: nodebw report" "$tmp/out"
"$NODEBW" --help >"$tmp/out"
check "nodebw --help names report" grep -q "^  report" "$tmp/out"


usage_error "no results file" report
usage_error "unknown option" report --bogus "$fixture"
usage_error "--output without a folder" report "$fixture" --output
usage_error "--output= without a folder" report --output= "$fixture"
usage_error "missing file" report -o "$tmp/x1" "$tmp/none.json"
grep -qF "$tmp/none.json" "$tmp/err" && ok "missing file is named" || not_ok "missing file is named"
check "no folder after a missing file" test ! -e "$tmp/x1"
printf '{"schema": "nodebw-results",\n "schema_version": 2,\n "devices": [,]}\n' >"$tmp/bad.json"
usage_error "malformed JSON" report -o "$tmp/x2" "$tmp/bad.json"
grep -qF "bad.json:3:" "$tmp/err" && ok "malformed file error names file:line:col" ||
	not_ok "malformed file error names file:line:col"
printf '{"schema": "nodebw-results", "schema_version": 2, "devices": [], "skipped": [],\n'\
' "measurements": []}\n' >"$tmp/empty.json"
usage_error "file without measurements or solver runs" report -o "$tmp/x3" "$tmp/empty.json"
grep -qF "empty.json: neither measurements nor solver runs" "$tmp/err" &&
	ok "the empty file is named" || not_ok "the empty file is named"
printf 'x' >"$tmp/plain"
usage_error "output folder not creatable" report -o "$tmp/plain/sub" "$fixture"
usage_error "one good and one missing file" report -o "$tmp/x4" "$fixture" "$tmp/none.json"

done_testing
