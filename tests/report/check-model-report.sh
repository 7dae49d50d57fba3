#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The model sections of 'nodebw report' on a recorded 'nodebw run' of the 2-vCPU VM
# (tests/fixtures/results-run-2cpu-vm.json): the figures of the closing note of the model
# work are reproduced exactly from the recorded measurements, and the extended model beats
# the paper's where the paper's leaves out what the extended one models.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture="$NODEBW_SOURCE/tests/fixtures/results-run-2cpu-vm.json"
"$NODEBW" report --output "$tmp/r" "$fixture" >"$tmp/out" 2>"$tmp/err"
check "report exits 0" test $? -eq 0
sed 's/^/#   /' "$tmp/err"
acc="$tmp/r/tables/accuracy.csv"
# Grids whose rounds differ by more than 1.2x are left out of the MAPE (counted in
# "unstable"); this recording has no compute-only runs (it predates them), so the
# compute-calibrated and compute-only columns are empty, and no co-run probe, so the
# one-device model takes the device kind's sharing rule.
cat >"$tmp/want" <<'CSV'
g,version,measure,sizes,halo_share_pct,onedev_mape_pct,onedev_bias_pct,compcal_mape_pct,compcal_bias_pct,ext_mape_pct,ext_bias_pct,paper_mape_pct,paper_bias_pct,conly_mape_pct,conly_bias_pct,unstable,max_spread
2,v1,fastest round,4,,7.4,-7.4,,,5.7,0.6,49.0,-49.0,,,0,1.07
2,v2,fastest round,4,,7.1,-7.1,,,6.9,0.3,48.9,-48.9,,,0,1.20
2,v3,fastest round,4,,10.5,-10.5,,,6.5,-0.8,3.5,-3.5,,,0,1.16
2,v4,fastest round,3,,6.7,-6.7,,,7.5,0.9,3.3,-1.7,,,1,40.53
4,v1,fastest round,4,,11.7,-11.7,,,5.1,0.5,76.9,-76.9,,,0,1.09
4,v2,fastest round,4,,10.5,-10.5,,,3.0,1.9,76.7,-76.7,,,0,1.10
4,v3,fastest round,3,,25.1,-25.1,,,19.2,13.8,64.4,-64.4,,,1,1.34
4,v4,fastest round,3,,23.5,-23.5,,,9.7,4.7,62.4,-62.4,,,1,1.37
CSV
check "MAPE and bias per (G, version) as recorded" cmp -s "$acc" "$tmp/want"
# The awk checks below read the columns by number: $5 halo share, $6 one-device, $8
# compute-calibrated, $10 fitted, $12 paper, $14 the compute-only baseline (MAPE).
check "accuracy.csv: the MAPE columns where the checks read them" \
	awk -F, 'NR == 1 { exit !($5 == "halo_share_pct" && $6 == "onedev_mape_pct" &&
		$8 == "compcal_mape_pct" && $10 == "ext_mape_pct" && $12 == "paper_mape_pct" &&
		$14 == "conly_mape_pct") }' "$acc"
diff "$tmp/want" "$acc" | sed 's/^/#   /'
# Version 1 and 2 serialise the devices (one host thread, blocking or included tasks) and
# G = 4 puts four host threads on two cores: the paper's model cannot see either. Without
# runs free of the halo exchange the fitted model is its fallback form (busy and overhead
# of the instrumented phases), which misses G = 4 v3 by 19 % on this recording.
check "fallback fitted MAPE below 20 % in every group" \
	awk -F, 'NR > 1 { if ($10 + 0 >= 20) bad = 1 } END { exit bad }' "$acc"
check "fitted below the paper's model for v1, v2 and for G = 4" \
	awk -F, 'NR > 1 && ($2 == "v1" || $2 == "v2" || $1 == 4) {
		if ($10 + 0 >= $12 + 0) bad = 1 } END { exit bad }' "$acc"
check "unstable grids marked in the validation table" \
	test "$(grep -c ',unstable,' "$tmp/r/tables/validation.csv")" -eq 3
rows=$(($(wc -l <"$tmp/r/tables/validation.csv") - 1))
check "validation table: 4 sizes x 4 versions x 2 device counts ($rows)" test "$rows" -eq 32
check "Table 6 of this node" grep -q "^host-plugin,\"2, 4\"," "$tmp/r/tables/table6.csv"
check "k(N) of 4 sizes" test "$(($(wc -l <"$tmp/r/tables/paper-k.csv") - 1))" -eq 4
check "k_slab of 8 slab shapes" test "$(($(wc -l <"$tmp/r/tables/ext-kslab.csv") - 1))" -eq 8
for g in 2 4; do
	for v in v1 v2 v3 v4; do
		check "Figure 8 data for $v, G = $g" test -s "$tmp/r/plots/fig8-$v-g$g.dat"
	done
done
# Two results files with solver runs: each is calibrated and validated on its own.
"$NODEBW" report --output "$tmp/two" "$fixture" "$fixture" >"$tmp/out" 2>"$tmp/err"
check "two files: exit 0" test $? -eq 0
check "two files: a model section per file (models.md)" \
	test "$(grep -c "^## Models of .*results-run-2cpu-vm.json" "$tmp/two/models.md")" -eq 2
check "two files: the main page has one Models section, the detail on models.md" \
	test "$(grep -c "^## Models" "$tmp/two/report.md")" -eq 1
check "two files: each reproduces the recorded accuracy (not a pooled one)" \
	sh -c "cmp -s '$tmp/two/tables/accuracy.csv' '$tmp/want' && cmp -s '$tmp/two/tables/accuracy-2.csv' '$tmp/want'"
# A recording with the compute-calibrated model's runs (v1-v4 without the halo exchange), 120
# steps and the extra rounds for unstable configurations.
fx2="$NODEBW_SOURCE/tests/fixtures/results-run-apriori-2cpu-vm.json"
"$NODEBW" report --output "$tmp/a" "$fx2" >"$tmp/out" 2>"$tmp/err"
check "compute-only recording: report exits 0" test $? -eq 0
cat >"$tmp/want2" <<'CSV'
g,version,measure,sizes,halo_share_pct,onedev_mape_pct,onedev_bias_pct,compcal_mape_pct,compcal_bias_pct,ext_mape_pct,ext_bias_pct,paper_mape_pct,paper_bias_pct,conly_mape_pct,conly_bias_pct,unstable,max_spread
2,v1,fastest round,4,1.0,4.5,-4.5,2.7,0.0,3.2,-1.1,56.9,-56.9,2.7,-1.0,0,1.16
2,v2,fastest round,4,5.4,8.0,-8.0,4.3,-3.7,6.2,-2.3,58.4,-58.4,5.4,-5.4,0,1.17
2,v3,fastest round,4,3.2,16.2,-16.2,5.6,-1.0,6.3,1.6,24.5,-24.5,7.0,-3.2,0,1.19
2,v4,fastest round,4,6.8,18.6,-18.6,4.4,-3.9,6.8,-1.9,27.7,-27.7,6.8,-6.8,0,1.13
4,v1,fastest round,4,5.2,6.6,-6.6,2.8,-2.3,4.0,2.3,79.1,-79.1,5.2,-5.2,0,1.19
4,v2,fastest round,4,4.3,3.8,-3.8,1.1,0.5,2.0,0.8,78.4,-78.4,4.3,-4.3,0,1.19
4,v3,fastest round,4,15.2,29.0,-29.0,9.4,-9.4,2.1,1.0,69.3,-69.3,15.2,-15.2,0,1.20
4,v4,fastest round,4,4.8,17.2,-17.2,5.2,5.2,1.8,0.0,66.2,-66.2,4.8,-4.8,0,1.20
CSV
check "compute-only recording: MAPE and bias of every model as recorded" \
	cmp -s "$tmp/a/tables/accuracy.csv" "$tmp/want2"
diff "$tmp/want2" "$tmp/a/tables/accuracy.csv" | sed 's/^/#   /'
check "compute-calibrated model better than the paper's in every group" \
	awk -F, 'NR > 1 { if ($8 == "" || $8 + 0 >= $12 + 0) bad = 1 } END { exit bad }' \
	"$tmp/a/tables/accuracy.csv"
# The fitted model (the mean of the ratio and difference fits on the other sizes' timed runs)
# removes the compute-calibrated model's bias where it has one: G = 4 v3, 9.4 % -> 2.1 % (3.2 %
# with the ratio alone; 12.3 % compute-calibrated before the oversubscription term).
check "fitted model better than the paper's in every group" \
	awk -F, 'NR > 1 { if ($10 + 0 >= $12 + 0) bad = 1 } END { exit bad }' \
	"$tmp/a/tables/accuracy.csv"
check "fitted model within 10 % in every group, and within 5 % for G = 4 v3" \
	awk -F, 'NR > 1 { if ($10 + 0 > 10) bad = 1 } $1 == 4 && $2 == "v3" { if ($10 + 0 > 5) bad = 1 }
		END { exit bad }' "$tmp/a/tables/accuracy.csv"
# A recording with paired runs (nodebw heat --paired: each halo repetition right after its
# compute-only half), 8 rounds: the accuracy against the speed-matched time and, beside it,
# against the fastest rounds, as recorded; the goal of issue 15 on it.
fx3="$NODEBW_SOURCE/tests/fixtures/results-run-paired-2cpu-vm.json"
"$NODEBW" report --output "$tmp/p" "$fx3" >"$tmp/out" 2>"$tmp/err"
check "paired recording: report exits 0" test $? -eq 0
cat >"$tmp/want3" <<'CSV'
g,version,measure,sizes,halo_share_pct,onedev_mape_pct,onedev_bias_pct,compcal_mape_pct,compcal_bias_pct,ext_mape_pct,ext_bias_pct,paper_mape_pct,paper_bias_pct,conly_mape_pct,conly_bias_pct,unstable,max_spread
2,v1,speed-matched,4,2.4,6.8,-6.8,1.2,-1.2,3.5,1.6,65.2,-65.2,2.4,-2.4,0,1.09
2,v2,speed-matched,4,2.0,5.8,-5.2,0.5,-0.5,0.3,0.0,64.4,-64.4,2.0,-2.0,0,1.04
2,v3,speed-matched,4,4.1,8.0,-8.0,2.0,-2.0,1.0,-0.2,33.6,-33.6,4.1,-4.1,0,1.09
2,v4,speed-matched,4,3.6,7.0,-7.0,1.6,-1.6,1.2,0.3,32.7,-32.7,3.6,-3.6,0,1.09
4,v1,speed-matched,4,4.2,1.9,-1.8,0.9,-0.6,1.3,0.1,81.8,-81.8,4.2,-4.2,0,1.07
4,v2,speed-matched,4,4.9,3.3,-3.2,0.9,-0.8,1.2,-0.2,82.0,-82.0,4.9,-4.9,0,1.05
4,v3,speed-matched,4,11.6,10.9,-10.9,6.3,-6.3,2.2,0.8,71.8,-71.8,11.6,-11.6,0,1.13
4,v4,speed-matched,4,7.6,6.7,-6.7,2.4,-2.4,1.6,-0.7,70.2,-70.2,7.6,-7.6,0,1.10
CSV
check "paired recording: speed-matched accuracy as recorded" \
	cmp -s "$tmp/p/tables/accuracy.csv" "$tmp/want3"
diff "$tmp/want3" "$tmp/p/tables/accuracy.csv" | sed 's/^/#   /'
check "paired recording: fastest-round accuracy beside it, every (G, version)" \
	awk -F, 'NR > 1 { n++; if ($3 != "fastest round") bad = 1 } END { exit bad || n != 8 }' \
	"$tmp/p/tables/accuracy-fastest-round.csv"
check "paired recording: compute-calibrated <= 10 %, fitted <= 5 %, both below the paper's, every group" \
	awk -F, 'NR > 1 { if ($8 == "" || $8 + 0 > 10 || $10 + 0 > 5 || $8 + 0 >= $12 + 0 ||
		$10 + 0 >= $12 + 0) bad = 1 } END { exit bad }' "$tmp/p/tables/accuracy.csv"
check "paired recording: the compute-only baseline's MAPE is the halo share, every group" \
	awk -F, 'NR > 1 { if ($14 == "" || $14 != $5) bad = 1 } END { exit bad }' \
	"$tmp/p/tables/accuracy.csv"
check "paired recording: compute-calibrated and fitted beat the compute-only baseline where the halo share exceeds 5 %" \
	awk -F, 'NR > 1 && $5 + 0 > 5 { n++; if ($8 + 0 >= $14 + 0 || $10 + 0 >= $14 + 0) bad = 1 }
		END { exit bad || n == 0 }' "$tmp/p/tables/accuracy.csv"
# The speed-matched time of one grid against an independent computation from the records:
# the fastest compute-only repetition x the median of halo / compute-only over the pairs.
check "paired recording: speed-matched times recomputed from the records" python3 - \
	"$fx3" "$tmp/p/tables/validation.csv" <<'PY'
import csv, json, statistics, sys
runs = json.load(open(sys.argv[1]))["solver_runs"]
pairs = {}
for r in runs:
    p = r.get("paired")
    if not p or p["partner"] != "none":
        continue
    k = (str(r["G"]), r["version"], str(r["cubic_n"]))
    q = pairs.setdefault(k, ([], []))
    for m, c in zip(r["samples_s"], p["partner_samples_s"]):
        if m > 0 and c > 0:
            q[0].append(m / c)
            q[1].append(c)
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 32, len(rows)
for x in rows:
    rat, comp = pairs[(x["g"], x["version"], x["n"])]
    want = min(comp) * statistics.median(rat)
    assert abs(float(x["matched_s"]) / want - 1) < 1e-4, (x, want)
PY
# The drift table of the same recording, against an independent computation: per round and
# purpose the median over the configurations of the round's fastest repetition over the
# configuration's fastest round.
check "drift table: every round, medians as computed from the solver runs" python3 - \
	"$fx2" "$tmp/a/tables/solver-drift.csv" <<'PY'
import csv, json, statistics, sys
runs = json.load(open(sys.argv[1]))["solver_runs"]
cfg = {}
for r in runs:
    p = {"a-priori": "compute-only"}.get(r.get("purpose"), r.get("purpose"))
    if p not in ("validation", "calibration", "compute-only") or r.get("error"):
        continue
    sh = r["shape"]
    key = (p, r["version"], r["G"], sh["nx"], sh["ny"], sh["nz"], r["steps"], r["exchange"], r["launch"])
    t = min(x for x in r["samples_s"] if x > 0)
    c = cfg.setdefault(key, {})
    c[r["round"]] = min(t, c.get(r["round"], t))
rows = list(csv.DictReader(open(sys.argv[2])))
assert [int(x["round"]) for x in rows] == sorted({rd for c in cfg.values() for rd in c}), rows
for x in rows:
    rd = int(x["round"])
    for p, col in (("validation", "validation_x"), ("calibration", "calibration_x"), ("compute-only", "compute_only_x")):
        v = [c[rd] / min(c.values()) for k, c in cfg.items() if k[0] == p and rd in c]
        want = "%.2f" % statistics.median(v) if v else ""
        assert x[col].rstrip("x") == want, (rd, col, x[col], want)
    worst = max(float(x[c].rstrip("x")) for c in ("validation_x", "calibration_x", "compute_only_x") if x[c] not in ("", "-"))
    assert x["verdict"] == ("at the floor" if worst <= 1.10 else "slower than the floor (up to %.2fx)" % worst), x
PY
# A recording with the co-run probe (nodebw run --quick, 2026-12-06, the 2-core VM; its
# calibration.json beside it): the one-device model, from the probes and one-device runs
# only, within 10 % of every (G, version); the models that need the versions' runs within
# 5 % and better than the compute-only baseline wherever the halo share exceeds 5 %.
fx4="$NODEBW_SOURCE/tests/fixtures/results-run-corun-2cpu-vm.json"
cal4="$NODEBW_SOURCE/tests/fixtures/calibration-run-corun-2cpu-vm.json"
"$NODEBW" report --output "$tmp/o" "$fx4" >"$tmp/out" 2>"$tmp/err"
check "co-run recording: report exits 0" test $? -eq 0
cat >"$tmp/want4" <<'CSV'
g,version,measure,sizes,halo_share_pct,onedev_mape_pct,onedev_bias_pct,compcal_mape_pct,compcal_bias_pct,ext_mape_pct,ext_bias_pct,paper_mape_pct,paper_bias_pct,conly_mape_pct,conly_bias_pct,unstable,max_spread
2,v1,speed-matched,4,1.2,1.6,1.2,0.5,0.3,0.6,0.0,71.1,-71.1,1.2,-1.2,0,1.01
2,v2,speed-matched,4,1.9,1.6,1.6,0.9,0.7,1.3,0.4,70.6,-70.6,1.9,-1.9,0,1.01
2,v3,speed-matched,4,6.3,1.7,-0.4,0.9,-0.8,0.9,-0.1,50.0,-50.0,6.3,-6.3,0,1.02
2,v4,speed-matched,4,4.5,2.7,-0.4,1.2,-1.2,0.9,0.4,49.9,-49.9,4.5,-4.5,0,1.03
4,v1,speed-matched,4,3.4,2.4,2.4,1.1,0.6,1.1,-0.1,85.9,-85.9,3.4,-3.4,0,1.02
4,v2,speed-matched,4,4.6,4.6,4.1,2.9,2.4,2.2,0.2,85.4,-85.4,4.6,-4.6,0,1.02
4,v3,speed-matched,4,15.0,3.3,-0.9,0.8,0.7,0.5,0.0,80.9,-80.9,15.0,-15.0,0,1.07
4,v4,speed-matched,4,10.2,4.1,-2.8,1.6,-1.6,0.6,0.1,80.5,-80.5,10.2,-10.2,0,1.07
CSV
check "co-run recording: accuracy as recorded" cmp -s "$tmp/o/tables/accuracy.csv" "$tmp/want4"
diff "$tmp/want4" "$tmp/o/tables/accuracy.csv" | sed 's/^/#   /'
check "co-run recording: one-device MAPE <= 10 % in every (G, version), G = 2 and 4" \
	awk -F, 'NR > 1 { n++; if ($6 == "" || $6 + 0 > 10) bad = 1 } END { exit bad || n != 8 }' \
	"$tmp/o/tables/accuracy.csv"
check "co-run recording: compute-calibrated and fitted <= 5 %, both below compute-only where the halo share > 5 %" \
	awk -F, 'NR > 1 { if ($8 + 0 > 5 || $10 + 0 > 5) bad = 1 }
		NR > 1 && $5 + 0 > 5 { h++; if ($8 + 0 >= $14 + 0 || $10 + 0 >= $14 + 0) bad = 1 }
		END { exit bad || h == 0 }' "$tmp/o/tables/accuracy.csv"
check "co-run recording: the one-device terms table, a row per (G, N)" \
	test "$(($(wc -l <"$tmp/o/tables/onedev-terms.csv") - 1))" -eq 8
# The same run's calibration without compute_only and versions: nodebw predict still
# predicts every version, with the one-device model only, as the report did (T_measured:
# the speed-matched time of the validation table).
python3 -c "
import json, sys; c = json.load(open(sys.argv[1])); del c['compute_only'], c['versions']
json.dump(c, open(sys.argv[2], 'w'))" "$cal4" "$tmp/stripped.json"
"$NODEBW" predict --calibration "$tmp/stripped.json" --n 40,52,64,76 --gpus 2,4 --version all \
	--json >"$tmp/strip.json" 2>"$tmp/err"
check "stripped calibration: predict exits 0" test $? -eq 0
check "stripped calibration: one-device MAPE <= 10 % per (G, version), the others not available" \
	python3 - "$tmp/strip.json" "$tmp/o/tables/validation.csv" "$tmp/o/tables/accuracy.csv" <<'PY'
import csv, json, statistics, sys
rows = json.load(open(sys.argv[1]))
val = {(int(r["g"]), r["version"], int(r["n"])): float(r["matched_s"]) for r in csv.DictReader(open(sys.argv[2]))}
acc = {(int(r["g"]), r["version"]): float(r["onedev_mape_pct"]) for r in csv.DictReader(open(sys.argv[3]))}
err = {}
assert len(rows) == 32, len(rows)
for x in rows:
    assert "not_available" in x["compute_calibrated"] and "missing" in x["extended"], x
    assert x["one_device"]["compute_from"].startswith("co-run probe"), x["one_device"]
    t = val[(x["G"], x["version"], x["n"])]
    err.setdefault((x["G"], x["version"]), []).append(abs(x["one_device"]["total_s"] / t - 1) * 100)
for k, e in sorted(err.items()):
    m = statistics.mean(e)
    print("# G = %d %s: one-device MAPE %.1f %%" % (k[0], k[1], m))
    assert m <= 10 and abs(m - acc[k]) < 0.06, (k, m, acc[k])
PY
done_testing
