#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# gnuplot that misbehaves, stood in for by small scripts (NODEBW_GNUPLOT): one that hangs and
# starts a child that would hang too (the report's plot time limit ends both, and the report
# is still written), and one that writes images without their end marker and exits 0, as
# gnuplot does on a full disk or under a file-size limit (no image may be named as finished).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture="$NODEBW_SOURCE/tests/fixtures/results-omp-host-2cpu-vm.json"

# A hanging gnuplot: records its own pid and its child's, then waits for ever.
cat >"$tmp/hang-gnuplot" <<EOF
#!/bin/sh
sleep 600 &
echo "\$\$ \$!" >>"$tmp/pids"
sleep 600
EOF
chmod +x "$tmp/hang-gnuplot"
start=$(date +%s)
NODEBW_GNUPLOT="$tmp/hang-gnuplot" NODEBW_PLOT_TIME_LIMIT=3 \
	"$NODEBW" report --output "$tmp/hang" "$fixture" >"$tmp/hang.out" 2>"$tmp/hang.err" &
wait_bounded $! 120
st=$?
took=$(($(date +%s) - start))
check "report with a hanging gnuplot exits 0 (status $st)" test "$st" -eq 0
check "it ends soon after the 3 s plot time limit (took $took s)" test "$took" -lt 30
check "report.md is written" test -s "$tmp/hang/report.md"
for p in node transfers models run; do
	check "$p.md is written" test -s "$tmp/hang/$p.md"
done
# The detail pages are drawn first (the main page places their figures again): the first
# figure is node.md's, which the main page places again with the same note; no other page
# has it.
check "the report says the first figure's gnuplot did not finish (node.md, and the main page that places it again)" \
	sh -c "test \$(grep -c 'did not finish within 3 s' '$tmp/hang/node.md') -eq 1 &&
	       test \$(grep -c 'did not finish within 3 s' '$tmp/hang/report.md') -eq 1 &&
	       test \$(cat '$tmp/hang'/*.md | grep -c 'did not finish within 3 s') -eq 2"
for p in node transfers report; do
	check "and that the time limit was spent for the others ($p.md)" \
		grep -q "plot time limit .* was spent before this figure" "$tmp/hang/$p.md"
done
check "gnuplot was started once" test "$(wc -l <"$tmp/pids")" -eq 1
alive=""
for p in $(cat "$tmp/pids"); do
	[ -e "/proc/$p" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat")" != Z ] && alive="$alive $p"
done
check "neither gnuplot nor its child is still running ($alive)" test -z "$alive"
check "no image and no partial image left" sh -c "! ls '$tmp/hang/plots/' | grep -q 'png\|svg'"

# A gnuplot that writes a truncated image: the file name comes from its -e argument.
cat >"$tmp/trunc-gnuplot" <<'EOF'
#!/bin/sh
out=$(printf '%s\n' "$2" | sed -n "s/.*out='\([^']*\)'.*/\1/p")
case "$out" in
*.png.part) printf '\211PNG\r\n\032\n0000IHDR half an image' >"$out" ;;
*.svg.part) printf '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">\n' >"$out" ;;
esac
exit 0
EOF
chmod +x "$tmp/trunc-gnuplot"
NODEBW_GNUPLOT="$tmp/trunc-gnuplot" "$NODEBW" report --output "$tmp/trunc" "$fixture" \
	>"$tmp/trunc.out" 2>"$tmp/trunc.err"
st=$?
check "report with truncated images exits 0 (status $st)" test "$st" -eq 0
check "the report says the PNG is truncated" grep -q "png image is truncated (no IEND" \
	"$tmp/trunc/report.md"
check "no .png, .svg or .part file is left in plots/" \
	sh -c "! ls '$tmp/trunc/plots/' | grep -q 'png\|svg\|part'"
check "the gnuplot scripts are kept to make the images by hand" \
	test -s "$tmp/trunc/plots/bw-htod-sync.gp"
done_testing
