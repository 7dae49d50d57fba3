#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 'nodebw predict' names the model to trust and warns outside the calibration: on the
# recorded run's calibration (tests/fixtures, its validation from the run's results.json or
# stored in the calibration as 'nodebw run' stores it) the recommended model is the one
# with the lowest MAPE of the report's own accuracy table (summary.json); a prediction
# inside the calibrated N, G and halo planes prints no warning; N, G and the halo plane
# beyond them warn with how far and what to run; --json carries the same; a calibration
# without validation says so; bad input stays exit 2.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
cal="$fx/calibration-run-corun-2cpu-vm.json"
res="$fx/results-run-corun-2cpu-vm.json"

# The report's accuracy table of the same run: the figures the recommendation must use.
"$NODEBW" report --output "$tmp/rep" "$res" >/dev/null 2>"$tmp/err"
check "the report of the recorded run is made" test -s "$tmp/rep/summary.json"

# Inside the calibrated range: N = 64 on G = 4 (calibrated N = 40-76, G = 2 and 4).
"$NODEBW" predict --calibration "$cal" --results "$res" --n 64 --gpus 4 --version all \
	>"$tmp/in" 2>"$tmp/err"
st=$?
check "inside the range: exit 0 (status $st)" test "$st" -eq 0
check "inside the range: nothing on stderr" test ! -s "$tmp/err"
check "inside the range: a recommended model with its MAPE under every row" \
	test "$(grep -c '^  recommended: [a-z-]*, [0-9.e-]* s (MAPE [0-9.]* % on G=4 v[1-4], N=40-76)$' "$tmp/in")" -eq 4
check "inside the range: v4's reason names the models' MAPEs and the validated sizes" \
	grep -q "G=4 v4: fitted: lowest MAPE against the measured runtimes of v4 on G=4 (speed-matched, N=40, 52, 64, 76): fitted 0.6 %, compute-calibrated 1.6 %, one-device 4.1 %, paper 80.5 %" "$tmp/in"
check "inside the range: no warning" sh -c "! grep -q 'WARNING\|OUTSIDE\|Outside the calibration' '$tmp/in'"

# --json: the recommendation is the lowest MAPE of the report's accuracy per (G, version).
"$NODEBW" predict --calibration "$cal" --results "$res" --n 64 --gpus 2,4 --version all --json \
	>"$tmp/in.json" 2>"$tmp/err"
check "inside the range, --json: exit 0" test $? -eq 0
cat >"$tmp/same.py" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
acc = {(a["G"], a["version"]): a for a in json.load(open(sys.argv[2]))["solver"]["accuracy"]}
keys = {"paper": "paper_mape", "one-device": "onedev_mape",
        "compute-calibrated": "compcal_mape", "fitted": "extended_mape"}
bad = []
for r in rows:
    rec, a = r["recommended"], acc[(r["G"], r["version"])]
    best = min((a[k], m) for m, k in keys.items() if k in a)
    if (rec["model"], rec["mape"]) != (best[1], best[0]):
        bad.append("%s G=%d: %s %s against the report's %s %s" % (
            r["version"], r["G"], rec["model"], rec["mape"], best[1], best[0]))
    if rec["validated_on"]["n"] != a["n_values"] or rec["validated_on"]["G"] != r["G"]:
        bad.append("%s G=%d: validated_on %s" % (r["version"], r["G"], rec["validated_on"]))
    key = {"paper": "paper", "one-device": "one_device",
           "compute-calibrated": "compute_calibrated", "fitted": "extended"}[rec["model"]]
    if rec["key"] != key or rec["total_s"] != r[key]["total_s"]:
        bad.append("%s G=%d: total_s is not the %s model's" % (r["version"], r["G"], key))
    if r["outside_calibration"] != []:
        bad.append("%s G=%d: warned inside the range" % (r["version"], r["G"]))
print("\n".join(bad))
sys.exit(1 if bad or len(rows) != 8 else 0)
PY
python3 "$tmp/same.py" "$tmp/in.json" "$tmp/rep/summary.json" >"$tmp/diff"
check "--json: each row's recommendation is the lowest MAPE of the report's accuracy table" \
	test $? -eq 0
sed 's/^/#   /' "$tmp/diff"

# N beyond the range: 512 = 6.7 x 76, its halo plane 2 MiB = 45 x the sweep's largest.
"$NODEBW" predict --calibration "$cal" --results "$res" --n 512 --gpus 4 >"$tmp/n" 2>"$tmp/err"
st=$?
check "N beyond the range: exit 0, a prediction (status $st)" test "$st" -eq 0
check "N beyond the range: warns with the factor" \
	grep -q "WARNING: N=512 is 6.7x the largest calibrated N=76 (calibrated N=40, 52, 64, 76)" "$tmp/n"
check "N beyond the range: says what to run (an option nodebw run has)" \
	grep -q "to measure it: nodebw run --solver-n 40,52,64,76,512$" "$tmp/n"
check "N beyond the range: the halo plane warns against the plane-size sweep" \
	grep -q "WARNING: halo plane 2 MiB (2097152 B) of N=512 is 45x the largest halo plane the plane-size sweep measured on p2p/async (45.125 KiB (46208 B), N=76)" "$tmp/n"
check "N beyond the range: the row is marked" grep -q "OUTSIDE: N (6.7x), halo plane (45x)" "$tmp/n"
check "N beyond the range: no G warning" sh -c "! grep -q 'WARNING: G=' '$tmp/n'"
"$NODEBW" run --help | grep -q -- "--solver-n LIST"
check "the suggested option exists in nodebw run --help" test $? -eq 0
# Below the range: N = 20.
"$NODEBW" predict --calibration "$cal" --results "$res" --n 20 --gpus 2 >"$tmp/n20" 2>"$tmp/err"
check "N below the range warns with the factor" \
	grep -q "WARNING: N=20 is 0.5x the smallest calibrated N=40" "$tmp/n20"

# G not calibrated: 8 (and 3).
"$NODEBW" predict --calibration "$cal" --results "$res" --n 64 --gpus 3,8 >"$tmp/g" 2>"$tmp/err"
st=$?
check "G not calibrated: exit 0 (status $st)" test "$st" -eq 0
check "G=8 warns with the calibrated G" grep -q "WARNING: G=8: calibrated G=2, 4;" "$tmp/g"
check "G=3 warns with the calibrated G" grep -q "WARNING: G=3: calibrated G=2, 4;" "$tmp/g"
check "G=8: the devices without transfers of their own are named" \
	grep -q "devices 4-7 have no transfer measurement of their own" "$tmp/g"
check "G=8: what to run times G=8 itself" \
	grep -q "to measure it: nodebw heat --versions v4 --gpus 8 --n 64 --paired" "$tmp/g"
check "G=8: recommended from the nearest validated G, among the models that predict it" \
	grep -q "recommended: one-device, [0-9.e-]* s (MAPE 4.1 % on G=4 v4, N=40-76, the nearest validated G)" "$tmp/g"
check "N inside: no N or halo-plane warning" sh -c "! grep -q 'WARNING: N=\|WARNING: halo' '$tmp/g'"

# --json carries the warnings.
"$NODEBW" predict --calibration "$cal" --results "$res" --n 512 --gpus 8 --json >"$tmp/o.json" 2>"$tmp/err"
check "outside, --json: exit 0" test $? -eq 0
python3 - "$tmp/o.json" >"$tmp/w" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))[0]
w = {x["what"]: x for x in r["outside_calibration"]}
print(sorted(w), round(w["N"]["factor"], 3), round(w["G"]["factor"], 3),
      round(w["halo plane"]["factor"], 2), w["N"]["to_measure"],
      r["recommended"]["model"], r["recommended"]["validated_on"]["at_this_G"])
PY
check "--json: N 512/76, G 8/4, halo plane 2097152/46208, the command, the model" \
	grep -qx "\['G', 'N', 'halo plane', 'slab'\] 6.737 2.0 45.39 nodebw run --solver-n 40,52,64,76,512 one-device False" "$tmp/w"
sed 's/^/#   /' "$tmp/w"

# The validation stored in the calibration (as nodebw run stores it, here made from the
# report's summary.json): the same recommendation as from the results file.
python3 - "$cal" "$tmp/rep/summary.json" "$tmp/stored.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
names = {"paper_mape": "paper", "onedev_mape": "one-device",
         "compcal_mape": "compute-calibrated", "extended_mape": "fitted",
         "conly_mape": "compute-only"}
c["validation"] = {"accuracy": [
    {"G": a["G"], "version": a["version"], "measure": a["measure"], "n": a["n_values"],
     "unstable_sizes": a["unstable_sizes"],
     "mape": {m: a[k] for k, m in names.items() if k in a}}
    for a in json.load(open(sys.argv[2]))["solver"]["accuracy"]]}
json.dump(c, open(sys.argv[3], "w"), indent=1)
PY
python3 -c "
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))" \
	"$tmp/stored.json" "$NODEBW_SOURCE/doc/calibration.schema.json" 2>"$tmp/schema"
check "a calibration with its validation follows doc/calibration.schema.json" test $? -eq 0
sed 's/^/#   /' "$tmp/schema" | tail -3
"$NODEBW" predict --calibration "$tmp/stored.json" --n 64 --gpus 2,4 --version all --json \
	>"$tmp/stored.out" 2>"$tmp/err"
check "stored validation: exit 0" test $? -eq 0
python3 "$tmp/same.py" "$tmp/stored.out" "$tmp/rep/summary.json" >"$tmp/diff"
check "stored validation: the lowest MAPE of the report's accuracy table" test $? -eq 0
python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['recommended']['validated_on']['from'])" \
	"$tmp/stored.out" >"$tmp/from"
check "stored validation: says where it came from" grep -q "stored in .*stored.json" "$tmp/from"

# Without validation: the recorded calibration alone (written before nodebw stored it), and
# an edited copy whose run validated nothing.
"$NODEBW" predict --calibration "$cal" --n 64 --gpus 4 >"$tmp/none" 2>"$tmp/err"
check "no validation: exit 0" test $? -eq 0
check "no validation: says there is none and the default" \
	grep -q "G=4 v4: fitted: this calibration holds no validation .*; by default the fitted model" "$tmp/none"
check "no validation: the row says it is the default" \
	grep -q "recommended: fitted, [0-9.e-]* s (no validation: the default)" "$tmp/none"
python3 - "$cal" "$tmp/novalid.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["validation"] = {"why": "no verified solver runs in these results"}
json.dump(c, open(sys.argv[2], "w"))
PY
"$NODEBW" predict --calibration "$tmp/novalid.json" --n 64 --gpus 4 --json >"$tmp/nv.json" 2>"$tmp/err"
check "run without validation, --json: exit 0" test $? -eq 0
python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))[0]['recommended']
print(r['model'], r['validated'], r['mape'], r['validated_on'], r['why'][:80])" "$tmp/nv.json" >"$tmp/nv"
check "run without validation: says so, null MAPE, the default" \
	grep -qx "fitted False None None the run validated no model: no verified solver runs in these results; by default" "$tmp/nv"
# A hand-made calibration (the paper's Table 6): only the paper's and the one-device model.
"$NODEBW" predict --calibration "$NODEBW_SOURCE/doc/examples/calibration-table6-h100.json" \
	--n 512 --gpus 2 >"$tmp/t6" 2>"$tmp/err"
check "hand-made: exit 0" test $? -eq 0
check "hand-made: the default is the one-device model, with why" \
	grep -q "G=2 v4: one-device: this calibration holds no validation .*by default the one-device model" "$tmp/t6"
check "hand-made: N cannot be checked, said" \
	grep -q "WARNING: N=512: the calibration holds no solver run" "$tmp/t6"

# Bad input stays exit 2 with one line.
usage_error_matching "--results of another run" "is not the run the calibration came from" \
	predict --calibration "$cal" --results "$fx/results-run-paired-2cpu-vm.json" --n 64 --gpus 2
python3 - "$cal" "$tmp/badval.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["validation"] = {"accuracy": [{"G": 2, "version": "v4", "n": [40], "mape": {"fitted": -1}}]}
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
usage_error_matching "a negative MAPE in the validation" "validation.accuracy\[0\].mape.fitted" \
	predict --calibration "$tmp/badval.json" --n 64 --gpus 2
usage_error_matching "--results missing" "nope.json" predict --calibration "$cal" \
	--results "$tmp/nope.json" --n 64 --gpus 2
done_testing
