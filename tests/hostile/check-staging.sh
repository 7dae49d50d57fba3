#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# report and compare stopped by SIGINT, SIGTERM or SIGHUP while a plot is being made leave
# no staging folder (OUT.tmpXXXXXX), no partial image (*.part) and no empty output folder;
# the next report removes a staging folder whose writer is gone and keeps one whose writer
# lives or that has no marker. The signal comes from a stand-in for gnuplot (NODEBW_GNUPLOT)
# that writes its partial image and signals nodebw: no timing is involved.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
cat >"$tmp/gnuplot-signal" <<'GP'
#!/bin/sh
for a; do case $a in *"out='"*) part=${a#*out=\'}; part=${part%%\'*} ;; esac; done
[ -n "$part" ] && echo partial >"$part"
kill -"$NODEBW_TEST_SIGNAL" "$PPID"
exit 1
GP
chmod +x "$tmp/gnuplot-signal"
# leftovers OUT: what an interrupted command left beside or in OUT (nothing: empty).
leftovers() {
	{ ls -d "$1".tmp* 2>/dev/null; [ -d "$1" ] && find "$1" -name '*.part'; } | tr '\n' ' '
}
for sig in INT TERM HUP; do
	out="$tmp/rep-$sig"
	NODEBW_GNUPLOT="$tmp/gnuplot-signal" NODEBW_TEST_SIGNAL=$sig \
		$sigint_default "$NODEBW" report "$fx/results-omp-host-2cpu-vm.json" --output "$out" \
		>/dev/null 2>&1 &
	wait_bounded $! 60
	st=$?
	left=$(leftovers "$out")
	[ -d "$out" ] && left="$left $out"
	check "report stopped by SIG$sig: status $st, left '$left'" \
		test "$st" -gt 128 -a -z "$(echo $left)"
	mkdir -p "$tmp/fleet-$sig"
	cp -r "$fx/fleet-vm/nodes" "$tmp/fleet-$sig/" # four nodes: a heat map to plot
	# An earlier comparison is there: it stays whole.
	"$NODEBW" compare --quiet "$tmp/fleet-$sig" >/dev/null 2>&1
	before=$(ls "$tmp/fleet-$sig/report" | tr '\n' ' ')
	NODEBW_GNUPLOT="$tmp/gnuplot-signal" NODEBW_TEST_SIGNAL=$sig \
		$sigint_default "$NODEBW" compare --quiet "$tmp/fleet-$sig" >/dev/null 2>&1 &
	wait_bounded $! 60
	st=$?
	left=$(leftovers "$tmp/fleet-$sig/report")
	after=$(ls "$tmp/fleet-$sig/report" | tr '\n' ' ')
	check "compare stopped by SIG$sig: status $st, left '$left', the earlier report kept" \
		test "$st" -gt 128 -a -z "$(echo $left)" -a "$before" = "$after" -a -n "$before"
done
# Staging folders beside an output: a killed writer's (a pid that is gone), a live one's
# (this shell), one without a marker.
out="$tmp/rep-next"
gone=$(sh -c 'echo $$')
for n in GONE01 LIVE01 NOMARK GONE02.old; do mkdir -p "$out.tmp$n/plots"; echo x >"$out.tmp$n/plots/a.png.part"; done
echo "pid $gone on $(hostname)" >"$out.tmpGONE01/.nodebw-staging"
echo "pid $$ on $(hostname)" >"$out.tmpLIVE01/.nodebw-staging"
# an earlier report a killed writer had moved aside (where folders cannot be exchanged)
echo "pid $gone on $(hostname)" >"$out.tmpGONE02.old/.nodebw-staging"
"$NODEBW" report "$fx/results-omp-host-2cpu-vm.json" --output "$out" >/dev/null 2>&1
check "the next report removes a gone writer's staging folder" test ! -e "$out.tmpGONE01"
check "and the earlier report it had moved aside" test ! -e "$out.tmpGONE02.old"
check "and keeps a live writer's and an unmarked one" test -d "$out.tmpLIVE01" -a -d "$out.tmpNOMARK"
check "and writes its report" test -f "$out/report.md" -a ! -e "$out/.nodebw-staging"
done_testing
