#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The report's machine-readable outputs, on the recorded fixtures: every plots/*.gp gives
# each series and each reference line a style of its own, keeps the key and the notes off
# the data and the reference lines inside the y range (check-plot-styles.py); every
# tables/*.csv has snake_case headers and one plain value per cell (check-tables-csv.py).
# Both checkers are also shown to fail on doctored scripts and tables (TAP).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=${PYTHON3:-python3}
here="$NODEBW_SOURCE/tests/report"
styles="$here/check-plot-styles.py"
tables="$here/check-tables-csv.py"

# The scripts and tables do not need gnuplot: leave the images out (faster).
for f in results-run-2cpu-vm results-dgx-h100-handmade results-omp-host-2cpu-vm; do
	NODEBW_GNUPLOT=/nonexistent "$NODEBW" report --output "$tmp/$f" \
		"$NODEBW_SOURCE/tests/fixtures/$f.json" >/dev/null 2>"$tmp/err"
	check "$f: report exits 0" test $? -eq 0
	"$py" "$styles" "$tmp/$f" >"$tmp/out" 2>&1
	check "$f: plot styles distinct, key outside, reference lines visible" test $? -eq 0
	sed 's/^/#   /' "$tmp/out"
	"$py" "$tables" "$tmp/$f" >"$tmp/out" 2>&1
	check "$f: CSV tables machine-friendly" test $? -eq 0
	sed 's/^/#   /' "$tmp/out"
done
run="$tmp/results-run-2cpu-vm"
check "fig8-err: +-10 % and +-20 % guides drawn in two styles" \
	test "$(grep -E "^	-?[0-9.]+ with lines .* title '\+-[12]0 %'" "$run/plots/fig8-err-v1-g2.gp" |
		sed 's/.*dashtype \([^ ]*\).*/\1/' | sort -u | wc -l)" -eq 2
check "fig6: a model line has its measured line's colour" \
	test "$(grep -E "title 'v1 (measured|extended model)'" "$run/plots/fig6-speedup-model-g2.gp" |
		sed "s/.*linecolor rgb '\([^']*\)'.*/\1/" | sort -u | wc -l)" -eq 1
check "a note is the title's second line, not a label over the data" \
	grep -qE "^set title '.*' \. \"\\\\n\" \. 'MAPE: paper" "$run/plots/fig8-v1-g2.gp"
host="$tmp/results-omp-host-2cpu-vm"
check "gap.csv: machine header" grep -q \
	"^file,native_api,direction,mode,host_mem,devices,sizes,small_rel_gap_pct,small_extra_us," \
	"$host/tables/gap.csv"
check "fit-htod.csv: 'N (concurrency)' split into two columns" \
	grep -q "^file,api,mode,host_mem,streams,concurrency,peer_access," "$run/tables/fit-htod.csv"
check "validation.csv: signed percentages as plain numbers" \
	sh -c "! cut -d, -f10- '$run/tables/validation.csv' | grep -q '[%+]'"
check "transfers.md keeps the display text" grep -qF '| mean \|gap\| (GB/s) |' "$host/transfers.md"

# The checkers fail on bad input. Plots: the old styles (one colour and point type for two
# series, two guides in one style, a reference line with no y range, the key inside).
mkdir "$tmp/bad"
cat >"$tmp/bad/same.gp" <<'GP'
set key below
plot \
	datafile index 0 using 1:2 with linespoints lc 1 lw 2 pt 7 title 'omp, 0 hidden helpers', \
	datafile index 1 using 1:2 with linespoints lc 1 lw 2 pt 7 title 'omp, 8 hidden helpers'
GP
cat >"$tmp/bad/guides.gp" <<'GP'
set key below
set yrange [-30:30]
plot \
	datafile index 0 using 1:2 with linespoints lc rgb '#0072b2' dt 1 pt 7 title 'paper model', \
	-10 with lines dashtype 2 lw 1.5 lc rgb '#555555' title '-10 %', \
	20 with lines dashtype 2 lw 1.5 lc rgb '#555555' title '+20 %'
GP
cat >"$tmp/bad/border.gp" <<'GP'
set key outside
plot \
	datafile index 0 using 1:2 with lines lc rgb '#0072b2' dt 1 title 'v1', \
	4 with lines dashtype 2 lc rgb '#555555' title 'ideal (G)'
GP
cat >"$tmp/bad/ontop.gp" <<'GP'
set key outside
set yrange [0:4]
plot \
	datafile index 0 using 1:2 with lines lc rgb '#0072b2' dt 1 title 'v1', \
	4 with lines dashtype 2 lc rgb '#555555' title 'ideal (G)'
GP
cat >"$tmp/bad/inside.gp" <<'GP'
set key top left
plot datafile index 0 using 1:2 with lines lc rgb '#0072b2' dt 1 title 'v1'
GP
cat >"$tmp/bad/label.gp" <<'GP'
set key outside
set label 1 'mean |gap| 1.2 GB/s' at graph 0.02, graph 0.95 left front
plot datafile index 0 using 1:2 with lines lc rgb '#0072b2' dt 1 title 'v1'
GP
for b in same guides border ontop inside label; do
	"$py" "$styles" "$tmp/bad/$b.gp" >"$tmp/out" 2>&1
	check "check-plot-styles.py fails on bad/$b.gp" test $? -eq 1
	sed 's/^/#   /' "$tmp/out"
done
# A generated script doctored: Figure 6's model lines in their measured lines' style.
sed -e 's/dashtype 2/dashtype 1/' -e 's/pointtype [0-9]*/pointtype 7/' \
	"$run/plots/fig6-speedup-model-g2.gp" >"$tmp/bad/fig6.gp"
"$py" "$styles" "$tmp/bad/fig6.gp" >"$tmp/out" 2>&1
check "check-plot-styles.py fails on a doctored fig6 script" test $? -eq 1
sed 's/^/#   /' "$tmp/out"

# Tables: display headers, units and percent signs in cells, a "value (note)" cell, a short
# row, a repeated header, a placeholder in a numeric column.
printf 'file,mean |gap| (GB/s)\n0,1.5\n' >"$tmp/bad/header.csv"
printf 'file,gap_pct\n0,+12.3%%\n' >"$tmp/bad/pct.csv"
printf 'file,devices\n0,1 (single)\n1,2 (dual)\n' >"$tmp/bad/note.csv"
printf 'file,n_half\n0,1.05 MB\n' >"$tmp/bad/unit.csv"
printf 'file,beta_gbps\n0,1.5\n1\n' >"$tmp/bad/short.csv"
printf 'file,file\n0,1\n' >"$tmp/bad/repeat.csv"
printf 'src_device,dst_0_gbps\n0,X\n1,2.5\n' >"$tmp/bad/marker.csv"
for b in header pct note unit short repeat marker; do
	"$py" "$tables" "$tmp/bad/$b.csv" >"$tmp/out" 2>&1
	check "check-tables-csv.py fails on bad/$b.csv" test $? -eq 1
	sed 's/^/#   /' "$tmp/out"
done
done_testing
