#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 'nodebw run' end to end on a small configuration: probes (OpenMP and host reference),
# solver calibration and validation, calibration.json usable by 'nodebw predict', the report
# with the model sections; regenerating the report; Ctrl-C during the solver keeps what was
# measured and still writes the report; bad run-only options.
. "$NODEBW_SOURCE/tests/tap.sh"
. "$NODEBW_SOURCE/tests/report/pages.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small="--api omp,host --sizes 8,32KiB,1MiB --reps 2 --max-reps 3 --min-time 0.001
       --solver-n 24,32 --solver-steps 6 --solver-rounds 2"

out="$tmp/run"
# Nothing of a nodebw process may stay in /tmp, its runtime's files included (the OpenMP host
# plugin writes each loaded device image to /tmp/tmpfile_XXXXXX): the entries of /tmp before
# and after the run (solver children and hidden-helper sweep children included) must match.
ls -A /tmp | sort >"$tmp/tmp-before"
# shellcheck disable=SC2086
"$NODEBW" run $small --output "$out" >"$tmp/out" 2>"$tmp/err"
st=$?
check "run exits 0 (status $st)" test "$st" -eq 0
ls -A /tmp | sort >"$tmp/tmp-after"
# (mktemp's own tmp.XXXXXXXXXX folders are other tests' when meson runs tests in parallel;
# nodebw never makes one.)
comm -13 "$tmp/tmp-before" "$tmp/tmp-after" | grep -v '^tmp\.[A-Za-z0-9]\{10\}$' >"$tmp/tmp-new"
check "no new entry in /tmp after the run ($(wc -l <"$tmp/tmp-new") new)" test ! -s "$tmp/tmp-new"
sed 's/^/#   new in \/tmp: /' "$tmp/tmp-new" | head -5
sed 's/^/#   /' "$tmp/err"
# A progress line longer than 100 columns is wrapped, its continuation indented: joined again
# here to be read as one line.
joined() { awk 'NR > 1 && /^    / { sub(/^ +/, " "); printf "%s", $0; next }
		NR > 1 { print "" } { printf "%s", $0 } END { print "" }' "$1"; }
joined "$tmp/err" >"$tmp/errj"
# stdout is a file here: the progress lines go to stderr, each with the time since the start
# and, where a stage has several steps, an estimate of the time left.
for stage in "omp probes: [0-9]*/[0-9]* series" "host probes: [0-9]*/[0-9]* series" \
	     "probes: [0-9]* measurements" "hidden-helper sweep:" \
	     "solver round 1/2" "solver round 2/2.*about [0-9]* s left in the solver" \
	     "calibration:" "report:"; do
	check "progress line on stderr: $stage" grep -q "^\[nodebw run .*\] $stage" "$tmp/errj"
done
check "probe progress estimates the time left" \
	grep -q "^\[nodebw run [0-9.]* s, \(about \)\?[0-9]* s left\] omp probes" "$tmp/err"
check "no progress line on stdout" sh -c "! grep -q '^\[nodebw run' '$tmp/out'"
# The clock starts with the run, so the first progress line (after the probes) is past 0 s.
check "progress clock starts with the run" sh -c \
	"grep '^\[nodebw run .*\] probes:' '$tmp/err' | grep -qv '^\[nodebw run  *0\.0 s\]'"
# The run ends with its one summary: the answers first (a line per API, the report's
# sentences), then the models.
# (The later findings give way to the solver's table within the summary's 40 lines: then a
# line says how many are left out.)
check "the terminal ends with the summary" sh -c \
	"sed -n '/^==== Summary (GB\/s = 1e9 B\/s; latency/,\$p' '$tmp/out' >'$tmp/sum' &&
	 tail -1 '$tmp/sum' | grep -q '^  report: .*report.html' &&
	 grep -q '^  \* Smallest transfers, the fastest path per API\|^  ([0-9]* more findings\? in the report.s summary)' '$tmp/sum'"
check "one summary of at most 40 lines, with a line per API and the models" sh -c \
	"test \$(grep -c '^==== Summary' '$tmp/out') -eq 1 && test \$(sed -n '/^==== Summary/,\$p' '$tmp/out' | wc -l) -le 40 && grep -q '^  \* omp at [0-9.]* [KMG]*i*B (median' '$tmp/out' && grep -q '^  2  *v1 ' '$tmp/out'"
check "report.md opens with the summary" sh -c \
	"grep '^##* ' '$out/report/report.md' | sed -n 2p | grep -qx '## Summary' && grep -q '^- Models against the solver' '$out/report/report.md'"
check_pages "$out/report" "run's report"
check "summary.json beside the report" python3 -c "
import json; s = json.load(open('$out/report/summary.json'))
assert s['paths'] and s['sentences'] and s['solver']['accuracy'], s.keys()
assert all(p['direction'] in ('htod', 'dtoh', 'p2p') for p in s['paths'])"
for f in results.json results.csv calibration.json report/report.md report/report.html \
	 report/tables/validation.csv report/tables/accuracy.csv report/tables/table6.csv \
	 report/tables/paper-k.csv report/tables/ext-kslab.csv; do
	check "$f exists and is not empty" test -s "$out/$f"
done
check "no child folder left behind" sh -c "! ls -d '$out'/.solver-* 2>/dev/null"
# The machine speed reference: at the start, after every stage, as every solver round starts
# (extra rounds included), each with the three figures; the report's table has a row each
# and says how much slower each is than the run's best (1.00x at least, 1.00x somewhere).
check "speed reference at the start, after each stage and per solver round" python3 -c "
import json, csv
d = json.load(open('$out/results.json'))['disturbance']
refs = d['speed_reference']
ats = [r['at'] for r in refs]
rounds = sorted({r['round'] for r in json.load(open('$out/results.json'))['solver_runs']})
want = ['start', 'after probes', 'after hidden-helper sweep', 'after plane-size sweep'] + \
       ['solver round %d' % n for n in rounds] + ['after solver']
assert ats == want, (ats, want)
assert 'GB/s = 1e9 B/s' in d['speed_reference_method'], d['speed_reference_method']
for r in refs:
    assert r['core_ns_per_step'] > 0 and r['cache_gbps'] > 0 and r['memory_gbps'] > 0, r
    assert 0 < r['seconds'] < 5 and r['elapsed_s'] > 0, r
assert [r['elapsed_s'] for r in refs] == sorted(r['elapsed_s'] for r in refs), refs
rows = list(csv.DictReader(open('$out/report/tables/speed-reference.csv')))
assert [r['at'] for r in rows] == ats, rows
for k in ('core_slower', 'cache_slower', 'memory_slower'):
    x = [float(r[k].rstrip('x')) for r in rows]
    assert min(x) == 1.0 and all(v >= 1.0 for v in x), (k, x)
for r in rows:
    worst = max(float(r[k].rstrip('x')) for k in ('core_slower', 'cache_slower', 'memory_slower'))
    # (the CSV rounds to 0.01: a ratio within that of the 1.10 rule can go either way)
    assert abs(worst - 1.10) <= 0.005 or (r['verdict'] == \"at the run's best\") == (worst < 1.10), r"
check "the summary says how far the speed reference fell behind its best" python3 -c "
import json, csv
s = json.load(open('$out/report/summary.json'))
rows = list(csv.DictReader(open('$out/report/tables/speed-reference.csv')))
worst = max(float(r[k].rstrip('x')) for r in rows for k in ('core_slower', 'cache_slower', 'memory_slower'))
sr = s['speed_reference']
assert len(sr) == 1 and sr[0]['points'] == len(rows) and abs(sr[0]['slowest_x'] - worst) <= 0.006, (sr, worst)
said = [x for x in s['sentences'] if 'speed reference' in x]
assert len(said) == 1 and ('%.2fx' % sr[0]['slowest_x']) in said[0], said"
python3 - "$out/results.json" "$out/calibration.json" >"$tmp/py" 2>&1 <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
runs = d["solver_runs"]
purposes = {r["purpose"] for r in runs}
# "app-validation" and "app-calibration": the application model's configurations beside the
# paper's and the one-device runs of their local boxes (the solver has the general version and
# there are 4 devices)
assert purposes - {"app-validation", "app-calibration"} == {"validation", "calibration", "compute-only"}, purposes
assert len([r for r in runs if r["purpose"] == "app-validation"]) >= 4, purposes
# rounds 1 and 2, and extra rounds (3, ...) only for configurations whose rounds disagreed
assert {1, 2} <= {r["round"] for r in runs}, "rounds"
extra = [r for r in runs if r["round"] > 2]
assert all(r["round"] <= 2 + 4 for r in extra), "at most 4 extra rounds"
apr = [r for r in runs if r["purpose"] == "compute-only"]
assert {(r["version"], r["G"]) for r in apr if r["round"] <= 2} == {(v, g) for v in ("v1", "v2", "v3", "v4") for g in (2, 4)}, apr
assert all(r["exchange"] == "none" and r["verification"]["status"] == "passed" for r in apr)
# --paired: every compute-only record is the half of a validation record of the same round,
# version, G and grid, each holding the other's samples.
def key(r):
    return (r["round"], r["version"], r["G"], r["cubic_n"])
halo = {key(r): r for r in runs if r["purpose"] == "validation" and r["version"] != "baseline"}
assert len(halo) == len(apr), (len(halo), len(apr))
for r in apr:
    h = halo[key(r)]
    assert r["paired"]["partner"] == "halo" and h["paired"]["partner"] == "none", key(r)
    assert r["paired"]["partner_samples_s"] == h["samples_s"] and h["paired"]["partner_samples_s"] == r["samples_s"], key(r)
assert all(r["exchange"] == "halo" for r in runs if r["purpose"] != "compute-only")
versions = {(r["version"], r["G"]) for r in runs if r["purpose"] == "validation"}
for v in ("v1", "v2", "v3", "v4"):
    for g in (2, 4):
        assert (v, g) in versions, (v, g)
assert all(r["verification"]["status"] in ("passed", "reference") for r in runs)
cal = [r for r in runs if r["purpose"] == "calibration"]
# The co-run probe beside the slab runs, in both rounds: one host thread on G devices and a
# thread per device on min(G, CPUs) devices, each on G's slab of every N, all verified.
cpus = len(os.sched_getaffinity(0))
co_runs = [r for r in cal if r["version"] == "corun"]
want = {(f, g, n, g if f == "one-thread" else min(g, cpus)) for f in ("one-thread", "per-device")
        for g in (2, 4) for n in (24, 32) if f == "one-thread" or min(g, cpus) >= 2}
for rd in (1, 2):
    got = {(r["corun"], r["corun_slab_of_G"], r["cubic_n"] or r["shape"]["nx"], r["G"]) for r in co_runs if r["round"] == rd}
    assert got == want, (rd, got, want)
assert all(r["shape"]["nz"] == (r["shape"]["nx"] - 2 + r["corun_slab_of_G"] - 1) // r["corun_slab_of_G"] + 2 for r in co_runs)
assert all(r["verification"]["status"] == "passed" and r["exchange"] == "halo" and r["halo"]["planes_per_step"] == 0 for r in co_runs)
assert cal and all(r["launch"] == "nowait" and (r["G"] == 1 or r["version"] == "corun") for r in cal), "calibration runs"
# slab shapes: N x N x (ceil((N-2)/G)+2) for G = 2, 4
shapes = {(r["shape"]["nx"], r["shape"]["nz"]) for r in cal}
assert shapes == {(24, 13), (24, 8), (32, 17), (32, 10)}, shapes
assert all(r["phases_s"] for r in runs if r["purpose"] == "validation" and r["version"] != "baseline")
s = d["solver"]
# per round: validation (paired), slab shapes, launch probe
paper = [x for x in s["children"] if not x.get("purpose", "").startswith("app")]
assert s["rounds"] == 2 and s["steps"] == 6 and len([x for x in paper if x["round"] <= 2]) == 6, s
assert all("--paired" in x["argv"] for x in paper if x["round"] <= 2 and "v1" in " ".join(x["argv"])), s
assert sum("--launch-probe" in x["argv"] for x in s["children"]) == 2, s
# The cubic baseline spins between steps (blocktime 10 ms), every other run sleeps at once
# (KMP_BLOCKTIME=0 on host-plugin devices), as each record says.
if "KMP_BLOCKTIME" not in os.environ:
    for r in (r for r in runs if r["version"] != "serial"):
        cubic = r["version"] == "baseline" and r["launch"] == "sync"
        assert r["blocktime_ms"] == (10 if cubic else 0), (r["version"], r["launch"], r["blocktime_ms"])
    cub = [x for x in s["children"] if "--versions" in x["argv"] and "--baseline-launch" not in x["argv"]
           and "baseline" in x["argv"][x["argv"].index("--versions") + 1]]
    # (rounds past 2 re-run only the configurations whose rounds disagreed: often the
    # baseline's, in rounds of their own)
    assert len([x for x in cub if x["round"] <= 2]) == 2, cub
    assert all("--baseline-blocktime" in x["argv"] for x in cub), cub
assert all(c["exit_status"] == 0 for c in s["children"])
c = json.load(open(sys.argv[2]))
assert c["schema"] == "nodebw-calibration"
# The calibration follows its JSON Schema (doc/calibration.schema.json), as the examples do.
import glob, jsonschema, os
src = os.environ["NODEBW_SOURCE"]
schema = json.load(open(os.path.join(src, "doc", "calibration.schema.json")))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.validate(c, schema)
for ex in glob.glob(os.path.join(src, "doc", "examples", "calibration-*.json")):
    jsonschema.validate(json.load(open(ex)), schema)
assert len(c["k"]["samples"]) == 2 and len(c["k_slab"]) == 4
assert {"htod/sync", "dtoh/sync", "p2p/async"} <= set(c["transfers"])
assert len(c["versions"]) == 16 and all(v["measured_step_s"] > 0 and v["measured_paired"] for v in c["versions"])
# --paired: each version's own compute-only halves, per G and size (2 x 2 x 4).
co = c["compute_only"]
assert len(co) == 16 and sorted((x["paired_with"], x["host_threads"]) for x in co) == sorted(
    (v, "one" if v in ("v1", "v2") else "per-device") for v in ("v1", "v2", "v3", "v4") for k in range(4)), co
assert c["models"]["compute-calibrated"]["available"] and c["models"]["fitted"]["available"]
assert c["models"]["one-device"]["available"] and "no run of Versions 1-4" in c["models"]["one-device"]["needs"]
assert sorted((x["form"], x["G"], x["n"], x["at_once"]) for x in c["corun"]) == sorted(want), c["corun"]
# A device or pair estimated from a series with another hidden-helper count than the
# reference's keeps only its largest size's ratio (a small copy there is helper wake-up).
hh = "hidden helpers %d," % c["hidden_helpers"]
other = [x for x in c.get("transfer_sets", []) if "in the series with hidden helpers" in x.get("ratio_to", "") and hh not in x["ratio_to"]]
assert all(len(x["ratio"]) == 1 and "largest size only" in x["ratio_to"] for x in other), other
print("# sets estimated from another hidden-helper count:", len(other))
assert any("compute_only" in t for t in c["models"]["compute-calibrated"]["terms"])
assert not any("compute_only" in t for t in c["models"]["one-device"]["terms"])
# The plane-size sweep at the solver's plane sizes 8 N^2 (N = 24, 32): two processes before
# the solver and one as each of its two rounds starts; the calibration's points there are
# the fastest process's medians.
ps = d["plane_sweep"]
assert ps["processes"] == 4 and ps["hidden_helpers"] == 0, ps
assert [x["process"] for x in ps["children"]] == [1, 2, 3, 4], ps
assert all(x["child_exit_status"] == 0 for x in ps["children"]), ps
tagged = [m for m in d["measurements"] if "plane_sweep" in m]
assert {m["plane_sweep"]["process"] for m in tagged} == {1, 2, 3, 4}
assert {m["bytes"] for m in tagged} == {4608, 8192}, {m["bytes"] for m in tagged}
for name, t in c["transfers"].items():
    pl = t["plane_sweep"]
    assert [q["bytes"] for q in pl] == [4608, 8192] and all(q["processes"] == 4 for q in pl), (name, pl)
    pts = dict((b, s) for b, s in t["points"])
    for q in pl:
        assert q["fastest_s"] <= q["slowest_s"] and pts[q["bytes"]] == q["fastest_s"], (name, q)
        part = name.split("/")
        conc = part[2] if len(part) == 3 else "single"
        mine = [m["seconds"]["median"] for m in tagged if m["bytes"] == q["bytes"]
                and m["direction"] == part[0] and m["mode"] == part[1]
                and m["concurrency"] == conc
                and (conc != "single" or (m["streams"][0]["src"], m["streams"][0]["dst"]) == (t["src"], t["dst"]))]
        assert mine and abs(min(mine) - q["fastest_s"]) <= 1e-12, (name, q, mine)
# The launch probe: in each of the two rounds, 3 forms x G = 2, 4 and the 2 copy forms x
# G = 2, 4 x the solver's N = 24, 32, counters and planes checked; the calibration keeps
# each (form, G, N)'s fastest round.
lp = d["launch_probe"]
forms = [(f, g, None) for f in ("sync", "one-thread", "per-device") for g in (2, 4)]
forms += [(f, g, n) for f in ("staged-copy", "direct-copy") for g in (2, 4) for n in (24, 32)]
assert sorted((x["round"], x["form"], x["G"], x.get("N") or 0) for x in lp) == sorted(
    (r, f, g, n or 0) for r in (1, 2) for (f, g, n) in forms), lp
assert all(x["verification"]["status"] == "passed" and x["hidden_helpers"] == 0 for x in lp)
assert all(x["verification"]["planes"] == "passed" for x in lp if "N" in x)
assert len(c["launch"]) == 14, c["launch"]
for l in c["launch"]:
    mine = [x["step_s"]["median"] for x in lp
            if (x["form"], x["G"], x.get("N")) == (l["form"], l["G"], l.get("N"))]
    assert l["rounds"] == 2 and abs(l["step_s"] / min(mine) - 1) <= 1e-8, (l, mine)
    assert l["ci_lo_s"] <= l["step_s"] <= l["ci_hi_s"], l
assert any("launch probe" in t for t in c["models"]["one-device"]["terms"])
print("ok")
PY
check "results and calibration hold what the models need" grep -q "^ok" "$tmp/py"
sed 's/^/#   /' "$tmp/py"
# The model sections are on models.md; the main page keeps one Models section.
md="$out/report/models.md"
check "the main page: one Models section, none of the model sections" sh -c \
	"test \$(grep -c '^## Model' '$out/report/report.md') -eq 1 &&
	 ! grep -q '^## \(The paper.s model\|Validation\)' '$out/report/report.md'"
check "models.md: one Models section holds the model sections" \
	test "$(grep -c '^## ' "$md")" -eq 1 -a "$(grep -c '^## Models$' "$md")" -eq 1
for h in "### The paper's model (Eq. 7-12)" "### The compute-calibrated and fitted models: calibrated terms" \
	 "### The one-device model: its measured terms" \
	 "### What the paper's model leaves out: evidence" \
	 "### Validation: measured against both models"; do
	check "report section: $h" grep -qF "$h" "$md"
done
check "k-bar given by both rules" sh -c "grep -q 'mean over all 2 sizes' '$md' && grep -q 'three largest sizes' '$md'"
rows=$(grep -c '^| [24] | v[1-4] | speed-matched | [0-2] |' "$md")
check "accuracy table: a row per (G, version), speed-matched ($rows)" test "$rows" -eq 8
rows=$(grep -c '^| [24] | v[1-4] | fastest round | [0-2] |' "$md")
check "accuracy against the fastest round: a row per (G, version) ($rows)" test "$rows" -eq 8
check "Figure 8 plot data for v4 on 4 devices" test -s "$out/report/plots/fig8-v4-g4.dat"
check "Figure 3 and 6 speedup plots" test -s "$out/report/plots/fig3-speedup-g2.dat" -a \
	-s "$out/report/plots/fig6-speedup-model-g4.dat"
# The run's stages with what else used the machine: the pre-run check first, then the
# measuring stages, each quiet or disturbed.
check "disturbance table: the pre-run check, the probes and the solver" python3 -c "
import csv; rows = list(csv.DictReader(open('$out/report/tables/disturbance.csv')))
stages = [r['stage'] for r in rows]
assert stages[0].startswith('pre-run check') and 'probes' in stages and 'solver' in stages, stages
assert all(r['verdict'] == 'quiet' or r['verdict'].startswith('disturbed: ') for r in rows)"
# The repeatability script: the same run twice agrees with itself, to the point.
python3 "$NODEBW_SOURCE/scripts/model-repeatability.py" "$out" "$out" >"$tmp/rep" 2>&1
check "repeatability script: exit 0 (status $?)" test $? -eq 0
check "repeatability script: zero ranges for one run twice" sh -c "grep -q 'largest range, compute-calibrated: 0.0 points' '$tmp/rep' && grep -q '^k-bar .*; +-0.0 %' '$tmp/rep' && grep -q '^beta: median +-0.0 %' '$tmp/rep'"
check "drift table: a row per solver round" python3 -c "
import csv; rows = list(csv.DictReader(open('$out/report/tables/solver-drift.csv')))
ks = ('validation_x', 'calibration_x', 'compute_only_x')
assert [r['round'] for r in rows][:2] == ['1', '2'], rows
assert all(r[k] for r in rows[:2] for k in ks), rows
# (an extra round re-runs only the configurations whose rounds disagreed: it may have no
# validation, calibration or compute-only run, and its cell is then empty)
assert all(any(r[k] for k in ks) for r in rows[2:]), rows
assert all(float(r[k]) >= 1.0 for r in rows for k in ks if r[k]), rows"
check "plane-size sweep table: a row per path and plane size" python3 -c "
import csv; rows = list(csv.DictReader(open('$out/report/tables/ext-planes.csv')))
assert len(rows) == 18 and all(r['processes'] == '4' for r in rows), rows
assert all(float(r['slowest_over_fastest']) >= 1.0 for r in rows), rows"
check "physics evidence table: 11 terms, each with a measured figure" python3 -c "
import csv, os; rows = list(csv.DictReader(open('$out/report/tables/model-physics.csv')))
assert len(rows) == 11 and all(r['evidence'] and r['carried_by'] for r in rows), rows
cp = [r for r in rows if r['term'].startswith('halo copies from a thread per device')]
assert len(cp) == 2 and all('per copy: G = 2: ' in r['evidence'] and '; G = 4: ' in r['evidence'] for r in cp), cp
ov = [r for r in rows if r['term'].startswith('host threads sharing a core')][0]
assert ov['evidence'].startswith('%d CPUs, host-plugin devices: ' % len(os.sched_getaffinity(0))), ov
assert 'Launch probe: G = 2: ' in [r for r in rows if r['term'].startswith('per-launch')][0]['evidence'], rows
assert 'k_slab / k(N) = ' in rows[0]['evidence'], rows[0]"

"$NODEBW" predict --calibration "$out/calibration.json" --n 32 --gpus 2,4 --version all \
	>"$tmp/pred" 2>"$tmp/err"
check "predict from the run's calibration: exit 0" test $? -eq 0
check "predict: 8 rows, extended model available for each" \
	sh -c "[ \$(grep -c '^   32 ' '$tmp/pred') -eq 8 ] && ! grep -q 'n/a' '$tmp/pred'"
# The run's validation is in the calibration, as the report's summary.json has it, and
# predict recommends by it (a G the run validated, an N it calibrated: no warning).
python3 - "$out/calibration.json" "$out/report/summary.json" >"$tmp/val" 2>&1 <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]["accuracy"]
acc = json.load(open(sys.argv[2]))["solver"]["accuracy"]
keys = {"paper": "paper_mape", "one-device": "onedev_mape",
        "compute-calibrated": "compcal_mape", "fitted": "extended_mape",
        "compute-only": "conly_mape"}
want = sorted((a["G"], a["version"], a["n_values"], {m: a[k] for m, k in keys.items() if k in a})
              for a in acc if a["sizes"])
got = sorted((e["G"], e["version"], e["n"], e["mape"]) for e in v)
assert got == want and got, (got, want)
PY
check "calibration.json holds the report's validation" test $? -eq 0
sed 's/^/#   /' "$tmp/val" | head -5
check "predict recommends by the run's validation" \
	sh -c "[ \$(grep -c '^  recommended: [a-z-]*, ' '$tmp/pred') -eq 8 ] && grep -q '^  recommended: [a-z-]*, .* (MAPE [0-9.]* % on G=[24] v[1-4], N=' '$tmp/pred' && ! grep -q 'holds no validation' '$tmp/pred'"
check "predict inside the calibrated range: no warning" sh -c "! grep -q WARNING '$tmp/pred'"

"$NODEBW" report --output "$tmp/again" "$out/results.json" >"$tmp/out2" 2>&1
check "the report regenerates from the saved results" test $? -eq 0 -a -s "$tmp/again/report.md"
check "same validation table" cmp -s "$out/report/tables/validation.csv" "$tmp/again/tables/validation.csv"

# Ctrl-C during the solver: the whole process group gets SIGINT, as from a terminal.
int="$tmp/int"
# shellcheck disable=SC2086
setsid $sigint_default "$NODEBW" run $small --solver-rounds 3 --output "$int" >"$tmp/iout" 2>"$tmp/ierr" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "solver round 2/3" "$tmp/ierr" 2>/dev/null; do
	sleep 0.2; i=$((i + 1))
done
kill -INT "-$pid" 2>/dev/null
wait_bounded "$pid" 300
st=$?
check "Ctrl-C: exit 130 (status $st)" test "$st" -eq 130
check "Ctrl-C: results say interrupted" python3 -c "
import json, sys; d = json.load(open('$int/results.json')); assert d['interrupted'] is True
assert d['solver_runs'], 'no solver runs kept'"
check "Ctrl-C: calibration and report still written" test -s "$int/calibration.json" -a \
	-s "$int/report/report.md"

# The run's time limit: past the third round, a round starts only when it can end 15 s
# before the limit; with a limit of 1 s the solver keeps its first three rounds.
# shellcheck disable=SC2086
"$NODEBW" run $small --solver-rounds 5 --time-limit 1 --no-report --output "$tmp/tl" \
	>"$tmp/tlout" 2>"$tmp/tlerr"
st=$?
check "time limit: exit 0 (status $st)" test "$st" -eq 0
check "time limit: three of five rounds, and why" python3 -c "
import json; s = json.load(open('$tmp/tl/results.json'))['solver']
assert s['time_limit_s'] == 1 and s['rounds'] == 5 and s['rounds_run'] == 3, s
assert s['rounds_stopped'].startswith('3 of 5 rounds: one more'), s['rounds_stopped']
assert max(c['round'] for c in s['children']) == 3, s['children']"
check "time limit: progress line names it" grep -q "solver: 3 of 5 rounds: one more" "$tmp/tlerr"

# Past the third round the cubic grids are timed 5 times and not instrumented (the phases
# come from rounds 1-3); the slab shapes and extra rounds keep 3 repetitions.
# shellcheck disable=SC2086
"$NODEBW" run $small --solver-rounds 4 --no-report --output "$tmp/r4" >"$tmp/r4out" 2>"$tmp/r4err"
st=$?
check "four rounds: exit 0 (status $st)" test "$st" -eq 0
check "four rounds: round 4 times 5 repetitions without instrumented runs" python3 -c "
import json; d = json.load(open('$tmp/r4/results.json'))
ch = [c for c in d['solver']['children'] if c['round'] <= 4 and '--n' in c['argv'] and '--versions' in c['argv']]
assert [c['round'] for c in ch] == [1, 2, 3, 4], ch
for c in ch:
    a = c['argv']
    assert a[a.index('--reps') + 1] == ('5' if c['round'] == 4 else '3'), c
    assert ('--instrument' in a) == (c['round'] <= 3), c
slab = [c for c in d['solver']['children'] if '--shapes' in c['argv'] and '--n' not in c['argv']]
assert all(c['argv'][c['argv'].index('--reps') + 1] == '3' for c in slab), slab
r4 = [r for r in d['solver_runs'] if r['round'] == 4 and r['purpose'] == 'validation']
assert r4 and all(len(r['samples_s']) == 5 and not r.get('instrumented') for r in r4), r4
r1 = [r for r in d['solver_runs'] if r['round'] == 1 and r['purpose'] == 'validation' and r.get('exchange') != 'none']
assert r1 and all(r.get('instrumented') for r in r1), r1"
joined "$tmp/r4err" >"$tmp/r4errj"
check "four rounds: the progress line says so" grep -q "solver round 4/4: cubic grids, baseline and v1-v4, timed with and without the halo copies (24,32; 6 steps, 5 repetitions)" "$tmp/r4errj"

bad() { # bad "description" expected args...
	desc=$1; want=$2; shift 2
	"$NODEBW" run "$@" --output "$tmp/bad" >"$tmp/bout" 2>"$tmp/berr"
	st=$?
	check "$desc: exit 2 (status $st)" test "$st" -eq 2
	check "$desc: one line naming '$want'" \
		sh -c "[ \$(wc -l <'$tmp/berr') -eq 1 ] && grep -q -- '$want' '$tmp/berr'"
}
bad "--solver-n below 8" "--solver-n" --solver-n 4
bad "--solver-n not a number" "--solver-n" --solver-n abc
bad "--solver-rounds without a value" "--solver-rounds" --solver-rounds
bad "--solver-steps zero" "--solver-steps" --solver-steps 0
bad "--time-limit negative" "--time-limit" --time-limit -5
bad "--time-limit not a number" "--time-limit" --time-limit 5min
done_testing
