#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 'nodebw report' on the recorded results file of this 2-vCPU VM (omp + host, 8 B and 1 MiB):
# the report folder, its pages (report.md/.html, the main page, and beside it node, transfers,
# models and run) and their sections, the default folder, the report without gnuplot, and
# bad input (one line on stderr, exit 2, nothing on stdout).
. "$NODEBW_SOURCE/tests/tap.sh"
. "$NODEBW_SOURCE/tests/report/pages.sh"
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
	nophone=$(for g in "$out"/plots/*.gp; do [ -s "${g%.gp}.phone.svg" ] || basename "$g"; done)
	check "every plot also drawn for a phone's width (plots/STEM.phone.svg)${nophone:+; none for: $nophone}" \
		test -z "$nophone"
else
	diag "gnuplot not found: images not checked"
fi
nplots=$(ls "$out"/plots/bw-*.gp | wc -l)
check "a reasonable number of transfer plots ($nplots: one per direction and mode)" \
	test "$nplots" -eq 8
nplots=$(ls "$out"/plots/*.gp | wc -l)
check "a reasonable number of plots in all ($nplots: 8 transfers, 4 heat maps, 4 device bars, the summary's)" \
	test "$nplots" -eq 17
pyck="${PYTHON3:-/usr/bin/python3} $NODEBW_SOURCE/tests/report/check-summary-picture.py"
$pyck "$out" >"$tmp/pic" 2>&1
st=$?
sed 's/^/#   /' "$tmp/pic"
check "the summary's picture: per API and direction the fastest and the slowest path of summary.json" \
	test "$st" -eq 0
check "the summary's picture draws fewer rows than there are paths (the table has them all)" \
	test "$(grep -vc '^#' "$out/plots/summary-paths.dat")" -lt \
	"$(${PYTHON3:-/usr/bin/python3} -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["paths"]))' "$out/summary.json")"
html="$out/report.html"
for p in $report_pages; do
	check "$p.md and $p.html exist and are not empty" test -s "$out/$p.md" -a -s "$out/$p.html"
	page_body "$out/$p.md" >"$tmp/$p.body"
done
check_pages "$out" "one file"
# Each section on the page that holds it.
for s in "## Overview" "### Results files" "### Machine and software" "### Devices" \
	 "### Skipped" "### Units and how bytes are counted"; do
	check "run.md has '$s'" grep -qF "$s" "$tmp/run.body"
done
check "run.md: the overview is its only section" test "$(heading_order "$out/run.md")" = "Overview|"
check "node.md: every path, then the whole node" \
	test "$(heading_order "$out/node.md")" = "Every path|Whole node|"
for s in "## Transfers" "### Host to device (htod)" "### Device to host (dtoh)" \
	 "### Device to device (p2p)" "### OpenMP versus native"; do
	check "transfers.md has '$s'" grep -qF "$s" "$tmp/transfers.body"
done
check "transfers.md: the transfers are its only section" \
	test "$(heading_order "$out/transfers.md")" = "Transfers|"
check "models.md has '## Model'" grep -qF "## Model" "$tmp/models.body"
check "no section is left on two pages" sh -c "! cat '$out'/*.md | grep '^## ' |
	grep -v '^## \(Summary\|Topology\|Models\)\$' | sort | uniq -d | grep -q ."
check "run.md says host-plugin devices are not GPUs" grep -q "host-plugin.*not a GPU" "$tmp/run.body"
check "run.md states the unit" grep -qF "GB/s = 1e9 bytes per second" "$tmp/run.body"
check "run.md quotes how bytes are counted" grep -qF "counted once" "$tmp/run.body"
for f in report transfers; do
	page_body "$out/$f.md" >"$tmp/body"
	check "$f.md says there is no theoretical line for host memory" \
		grep -qF "No theoretical line: host memory, no link" "$tmp/body"
	check "$f.md annotates the OpenMP-vs-native gap, signed per size band" \
		grep -qE "OpenMP vs host: small sizes [+-][0-9]+ % \(OpenMP (slower|faster)|no clear gap" "$tmp/body"
	check "$f.md links a figure" grep -qF "](plots/bw-htod-sync.svg)" "$tmp/body"
done
check "run.md has the command line" grep -qF -- "--sizes 8,1MiB" "$tmp/run.body"
for f in report node transfers models run; do
	check "$f.html is one page" grep -q "</html>" "$out/$f.html"
done
check "report.html has tables" grep -qF "<table>" "$html"
for f in report transfers; do
	check "$f.html shows the SVG" grep -qF '<img src="plots/bw-htod-sync.svg"' "$out/$f.html"
	check "$f.html links the PNG" grep -qF '<a href="plots/bw-htod-sync.png">' "$out/$f.html"
done
check "transfers.html links the CSV" grep -qF 'href="tables/gap.csv"' "$out/transfers.html"
check "gap.csv has its header" grep -q "^file,native_api,direction,mode,host_mem,devices" \
	"$out/tables/gap.csv"
check "fit-htod.csv has alpha, beta and n_1/2" \
	grep -q "alpha_us,beta_gbps,n_half_bytes," "$out/tables/fit-htod.csv"
check "transfers.md keeps the display headers" grep -qF "| alpha (us) | beta (GB/s) |" "$tmp/transfers.body"
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
$pyck "$tmp/two" >"$tmp/pic" 2>&1
st=$?
sed 's/^/#   /' "$tmp/pic"
check "two files: the summary's picture: per file, API and direction the fastest and the slowest path, each row naming its file" \
	test "$st" -eq 0
check_pages "$tmp/two" "two files" 2

# Without gnuplot: the report is still written and says why there is no image.
NODEBW_GNUPLOT=/nonexistent "$NODEBW" report -o "$tmp/nognu" "$fixture" >"$tmp/out" 2>"$tmp/err"
check "without gnuplot: exit 0" test $? -eq 0
check "without gnuplot: report.md says why" \
	grep -qF "no image (NODEBW_GNUPLOT=/nonexistent:" "$tmp/nognu/report.md"
check "without gnuplot: the command says so" grep -q "without an image" "$tmp/out"
check "without gnuplot: the main page does not deny the measurements" \
	sh -c "! grep -q 'these results hold no verified measurement' '$tmp/nognu/report.md'"
check "without gnuplot: the main page's bandwidth figures say why they have no image" \
	sh -c "sed -n '/^## Bandwidth/,/^## OpenMP/p' '$tmp/nognu/report.md' | grep -q 'no image (NODEBW_GNUPLOT=/nonexistent:'"
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
