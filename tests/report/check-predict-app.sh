#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 'nodebw predict --app': the shipped example apps on a hand-written calibration (terms
# hand-computed below), with and without their faces' probes, the recommendation, the warnings with the commands that measure
# what is missing, the --json rows, every terminal line within 100 columns, the examples
# against doc/app.schema.json, and bad app files (one line, exit 2).
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex="$NODEBW_SOURCE/doc/examples"
# close A B: |A - B| / B < 1e-6
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / b; exit !(a != "" && d < 1e-6 && d > -1e-6) }'; }
jget() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# A GPU node: k-bar 1e-10 s per point, P2P 10 GB/s, DtoH 5, HtoD 4; no co-run, no launch
# probe (launches 0), no one-device run of any local box, no face probe.
cat >"$tmp/cal.json" <<'J'
{ "schema": "nodebw-calibration", "schema_version": 1, "steps": 10, "device_kind": "cuda",
  "k": { "kbar": 1e-10 },
  "transfers": { "p2p": { "beta_gbps": 10 }, "htod": { "beta_gbps": 4 },
                 "dtoh": { "beta_gbps": 5 } } }
J

# 25-point, 2x2x1, float32, 3 fields, device, pack, overlap, 500 steps, grid 104^3: the local
# box 56 x 56 x 104 (48 x 48 x 96 interior = 221184 points): compute 2.21184e-5 s; the
# boundary (within 4 of the two shared faces) 221184 - 44 x 44 x 96 = 35328 points,
# 3.5328e-6 s. Faces x and y: 56 x 104 = 5824 elements x 4 x 3 x 4 B = 279552 B, at 10 GB/s
# 2.79552e-5 s, pack and unpack 2 x 1e-10 x 5824 x 4 x 3 = 1.39776e-5 s: 2 messages
# 8.38656e-5 s. Overlap: 3.5328e-6 + max(1.85856e-5, 8.38656e-5) = 8.73984e-5 s per step,
# 0.0436992 s in all; the exchange dominates. Rect instead: 2 x 2.79552e-5 = 5.59104e-5 s,
# step 5.94432e-5 s, 0.0297216 s: the recommendation.
app25="$ex/app-25pt-2x2x1-f32-3fields.json"
"$NODEBW" predict --calibration "$tmp/cal.json" --app "$app25" >"$tmp/t25" 2>"$tmp/err"
st=$?
check "25-point: exit 0 (status $st)" test "$st" -eq 0
check "25-point: one row, G=4 2x2x1, local box 56x56x104" \
	grep -Eq "^  4 2x2x1 +56x56x104 +0\.0437 " "$tmp/t25"
check "25-point: the exchange dominates" grep -Eq "^  4 2x2x1 .* on +exchange$" "$tmp/t25"
check "25-point: recommends device, rect and says why" \
	grep -q "G=4: 2x2x1, device, rect: 0.02972 s (0.0594 ms/step); exchange dominates" "$tmp/t25"
check "25-point: warns that the strided faces were not measured, with the probe command" \
	sh -c "tr '\n' ' ' <'$tmp/t25' | sed 's/  */ /g' | grep -q 'nodebw probe --api omp --faces 56x56x104:4:4 --faces-decomp 2x2x1'"
check "25-point: warns that the local box was not measured, with predict --measure --app" \
	sh -c "tr '\n' ' ' <'$tmp/t25' | sed 's/  */ /g' | grep -q 'nodebw predict --measure --calibration $tmp/cal.json --app $app25 --gpus 4'"
check "25-point: every line within 100 columns" awk 'length > 100 { exit 1 }' "$tmp/t25"

"$NODEBW" predict --calibration "$tmp/cal.json" --app "$app25" --json >"$tmp/j25" 2>"$tmp/err"
check "25-point --json: exit 0" test $? -eq 0
check "25-point --json: one row with G and steps" \
	test "$(jget "$tmp/j25" '[(x["G"], x["steps"]) for x in r]')" = "[(4, 500)]"
check "25-point --json: app_model total_s 0.0436992" \
	close "$(jget "$tmp/j25" 'r[0]["app_model"]["total_s"]')" 0.0436992
check "25-point --json: compute 2.21184e-5 s per step" \
	close "$(jget "$tmp/j25" 'r[0]["app_model"]["compute_s"]')" 2.21184e-5
check "25-point --json: exchange 8.38656e-5 s per step" \
	close "$(jget "$tmp/j25" 'r[0]["app_model"]["exchange_s"]')" 8.38656e-5
check "25-point --json: the recommended is rect, 0.0297216 s" \
	test "$(jget "$tmp/j25" 'r[0]["recommended"]["copy"] + " %.7g" % r[0]["recommended"]["total_s"]')" = "rect 0.0297216"
check "25-point --json: the warnings name the probe command" \
	grep -q "nodebw probe --api omp --faces 56x56x104:4:4 --faces-decomp 2x2x1" "$tmp/j25"

# The same app with its faces in the calibration ("faces": the local box 56x56x104, depth 4,
# 4 bytes, P2P async): pack x 2e-5 s, y 3e-5 s, rect x and y 1e-5 s each. Each message is
# the probe's time x 3 fields: pack (2e-5 + 3e-5) x 3 = 1.5e-4 s per step; overlap:
# 3.5328e-6 + max(1.85856e-5, 1.5e-4) = 1.535328e-4 s, 0.0767664 s in all.
python3 - "$tmp/cal.json" "$tmp/calf.json" <<'P'
import json, sys
c = json.load(open(sys.argv[1]))
def face(f, m, t):
    return {"box": [56, 56, 104], "depth": 4, "element_bytes": 4, "face": f, "method": m,
            "path": "p2p", "mode": "async", "seconds": t}
c["faces"] = [face("x", "pack", 2e-5), face("y", "pack", 3e-5), face("x", "rect", 1e-5),
              face("y", "rect", 1e-5)]
json.dump(c, open(sys.argv[2], "w"))
P
"$NODEBW" predict --calibration "$tmp/calf.json" --app "$app25" --json >"$tmp/jf" 2>"$tmp/err"
check "faces measured: exit 0" test $? -eq 0
check "faces measured: exchange 1.5e-4 s per step (the face probes x 3 fields)" \
	close "$(jget "$tmp/jf" 'r[0]["app_model"]["exchange_s"]')" 1.5e-4
check "faces measured: total 0.0767664 s" \
	close "$(jget "$tmp/jf" 'r[0]["app_model"]["total_s"]')" 0.0767664
check "faces measured: the explanation names the face probes" \
	test "$(jget "$tmp/jf" 'r[0]["app_model"]["exchange_from"]')" = \
	"the face probes (y pack p2p/async; x pack p2p/async), x fields"
"$NODEBW" predict --calibration "$tmp/calf.json" --app "$app25" >"$tmp/tf" 2>"$tmp/err"
check "faces measured: no warning that the faces were not measured" \
	sh -c "! grep -q 'nodebw probe --faces' '$tmp/tf' && ! grep -q 'faces .*not measured' '$tmp/tf' && ! grep -q 'contiguous transfer curves' '$tmp/tf'"
check "faces measured: the table names the face probes" grep -q "face probes" "$tmp/tf"
check "faces measured: every line within 100 columns" awk 'length > 100 { exit 1 }' "$tmp/tf"
# Only a shape twice the box's x extent: the nearest, scaled by bytes, and said so.
sed 's/\[56, 56, 104\]/[112, 56, 104]/g' "$tmp/calf.json" >"$tmp/caln.json"
"$NODEBW" predict --calibration "$tmp/caln.json" --app "$app25" >"$tmp/tn" 2>"$tmp/err"
check "nearest face shape: warns with the probe command of this box" \
	sh -c "tr '\n' ' ' <'$tmp/tn' | sed 's/  */ /g' | grep -q 'nearest measured shape stands in, scaled by bytes); measure them and their exchange: nodebw probe --api omp --faces 56x56x104:4:4 --faces-decomp 2x2x1'"

# Radius 2, z-slabs 1x1x2, host-staged, rect, no overlap, 120 steps, grid 68^3: the box
# 68 x 68 x 36 (64 x 64 x 32 interior): compute 1.31072e-5 s; the z-face 68 x 68 = 4624
# elements x 2 x 8 B = 73984 B, DtoH 1.47968e-5 + HtoD 1.8496e-5 = 3.32928e-5 s; step
# 4.64e-5 s, 0.005568 s in all.
app2="$ex/app-heat-radius2.json"
"$NODEBW" predict --calibration "$tmp/cal.json" --app "$app2" --json >"$tmp/j2" 2>"$tmp/err"
check "radius 2: exit 0" test $? -eq 0
check "radius 2: G=2 (the app's own decomposition), 0.005568 s" \
	close "$(jget "$tmp/j2" 'r[0]["app_model"]["total_s"]')" 0.005568
check "radius 2: the z-face message is 73984 B" \
	test "$(jget "$tmp/j2" 'int(r[0]["app_model"]["face_bytes"][2])')" = 73984
"$NODEBW" predict --calibration "$tmp/cal.json" --app "$app2" >"$tmp/t2" 2>"$tmp/err"
check "radius 2: warns with the probe command of its faces" \
	sh -c "tr '\n' ' ' <'$tmp/t2' | sed 's/  */ /g' | grep -q 'nodebw probe --api omp --faces 68x68x36:2:8 --faces-decomp 1x1x2'"

# Decomposition left open: every split of G that fits, G = 2 (3) and 4 (6).
"$NODEBW" predict --calibration "$tmp/cal.json" --app "$ex/app-open-decomp.json" --json \
	>"$tmp/jo" 2>"$tmp/err"
check "open decomposition: exit 0" test $? -eq 0
check "open decomposition: 3 rows at G=2 and 6 at G=4" \
	test "$(jget "$tmp/jo" '[x["G"] for x in r].count(2), [x["G"] for x in r].count(4)')" = "(3, 6)"
"$NODEBW" predict --calibration "$tmp/cal.json" --app "$ex/app-open-decomp.json" >"$tmp/to"
check "open decomposition: every line within 100 columns" awk 'length > 100 { exit 1 }' "$tmp/to"

# The examples follow the installed schema.
if python3 -c "import jsonschema" 2>/dev/null; then
	for f in "$ex"/app-*.json; do
		check "$(basename "$f") follows doc/app.schema.json" python3 -c "
import json, jsonschema, sys
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))" \
			"$f" "$NODEBW_SOURCE/doc/app.schema.json"
	done
else
	ok "# SKIP python3-jsonschema is not installed"
fi

# predict --measure: the one-device slab runs, co-runs and copy probes a prediction lacks,
# measured on this node's devices (two OpenMP devices at least) into a new calibration.
cat >"$tmp/hcal.json" <<'J'
{ "schema": "nodebw-calibration", "schema_version": 1, "steps": 5, "device_kind": "host-plugin",
  "hidden_helpers": 0, "host_cpus": 2, "k": { "kbar": 1e-9 },
  "k_slab": [ { "n": 16, "planes": 7, "k": 1e-9 } ],
  "transfers": { "p2p": { "beta_gbps": 10 }, "htod": { "beta_gbps": 4 },
                 "dtoh": { "beta_gbps": 5 } } }
J
if "$NODEBW" heat --n 8 --versions baseline --gpus 1 --steps 1 --output "$tmp/h1" --quiet \
	>/dev/null 2>&1 && "$NODEBW" heat --n 8 --versions v4 --gpus 2 --steps 1 \
	--output "$tmp/h2" --quiet >/dev/null 2>&1; then
	"$NODEBW" predict --calibration "$tmp/hcal.json" --n 20 --gpus 2 --version v3,v4 \
		--json >"$tmp/before" 2>"$tmp/err"
	check "before --measure: the missing slab run is a warning" \
		grep -q "no one-device run and no co-run of the slab 20x20x11" "$tmp/before"
	"$NODEBW" predict --calibration "$tmp/hcal.json" --n 20 --gpus 2 --version v3,v4 \
		--measure --json >"$tmp/after" 2>"$tmp/err"
	st=$?
	check "--measure: exit 0 (status $st)" test "$st" -eq 0
	m="$tmp/hcal-measured.json"
	check "--measure: the new calibration beside the old" test -s "$m"
	check "--measure: it holds the slab 20x20x11, the co-runs of G=2 and the copy probes" \
		python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
slab = [s for s in c['k_slab'] if s['n'] == 20 and s['planes'] == 9]
co = sorted(x['form'] for x in c.get('corun', []) if x['G'] == 2 and x['n'] == 20)
cp = sorted(x['form'] for x in c.get('launch', []) if x.get('N') == 20)
sys.exit(not (slab and co == ['one-thread', 'per-device'] and
              cp == ['direct-copy', 'staged-copy'] and c['steps'] == 5))" "$m"
	check "--measure: the prediction no longer warns of the slab" \
		sh -c "! grep -q 'of the slab 20x20x11' '$tmp/after'"
	"$NODEBW" predict --calibration "$m" --n 20 --gpus 2 --version v3,v4 --measure \
		>/dev/null 2>"$tmp/err2"
	check "--measure again: nothing left to measure" grep -q "nothing measured" "$tmp/err2"
	# --measure --app: the one-device run of the local box 12x12x22 of a 2x2x1 split of
	# 22^3 (radius 1, one field: any nodebw heat), into local_boxes, and its co-run for G = 4
	# into local_box_coruns.
	cat >"$tmp/app22.json" <<'J'
{"schema": "nodebw-app", "version": 1, "grid": [22, 22, 22], "decomp": [2, 2, 1],
 "radius": 1, "fields": 1, "element_bytes": 8, "exchange": "device", "copy": "rect",
 "overlap": false, "steps": 5, "compute": {"kernel": "nodebw-heat"}}
J
	"$NODEBW" predict --calibration "$m" --app "$tmp/app22.json" --measure \
		--measure-output "$tmp/app-m.json" --json >"$tmp/appj" 2>"$tmp/err3"
	check "--measure --app: exit 0" test $? -eq 0
	check "--measure --app: the local box's one-device run in local_boxes" python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(not [b for b in c.get('local_boxes', []) if b['box'] == [12, 12, 22]])" "$tmp/app-m.json"
	check "--measure --app: its compute is that box's co-run" \
		grep -q "the co-run of this box (co-run of the box 12x12x22 (radius 1, 1 field) for G = 4" "$tmp/appj"
	check "--measure --app: the local box's faces in faces (x and y, rect, P2P)" python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
f = {(x['face'], x['method'], x['path']) for x in c.get('faces', [])
     if x.get('kind', 'face') == 'face' and x['box'] == [12, 12, 22] and x['depth'] == 1 and x['element_bytes'] == 8}
sys.exit(not {('x', 'rect', 'p2p'), ('y', 'rect', 'p2p')} <= f)" "$tmp/app-m.json"
	check "--measure --app: the exchange of 2x2x1 in faces (rect and pack, device and host-staged)" python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
f = {(x['method'], x['path']) for x in c.get('faces', [])
     if x.get('kind') == 'exchange' and x['box'] == [12, 12, 22] and x['decomp'] == [2, 2, 1]}
sys.exit(f != {('rect', 'device'), ('rect', 'host-staged'), ('pack', 'device'), ('pack', 'host-staged')})" "$tmp/app-m.json"
	check "--measure --app: its exchange is that exchange probe" \
		grep -q "the exchange probe of 2x2x1 (exchange 2x2x1 rect device/async)" "$tmp/appj"
	# ... and its co-run for G = 4 (the box on 4 devices at once): local_box_coruns.
	cpus=$(nproc)
	check "--measure --app: the local box's co-runs for G = 4 in local_box_coruns" python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
co = sorted((x['form'], x['at_once']) for x in c.get('local_box_coruns', [])
            if x['box'] == [12, 12, 22] and x['G'] == 4 and x['radius'] == 1 and x['fields'] == 1)
want = [('one-thread', 4)] + ([('per-device', min(4, $cpus))] if $cpus >= 2 else [])
sys.exit(co != want)" "$tmp/app-m.json"
	check "--measure --app: the child co-ran the box" \
		sh -c "tr '\n' ' ' <'$tmp/err3' | sed 's/  */ /g' | grep -q 'local box 12x12x22 (radius 1, 1 field), and G of them at once (co-run) for G = 4'"
	if [ "$cpus" -ge 2 ]; then
		"$NODEBW" predict --calibration "$tmp/app-m.json" --app "$tmp/app22.json" --measure \
			--measure-output "$tmp/app-m2.json" >/dev/null 2>"$tmp/err4"
		check "--measure --app again: nothing left to measure" grep -q "nothing measured" "$tmp/err4"
	fi
else
	ok "# SKIP no two OpenMP offload devices: predict --measure not run"
fi

# Bad input: one line on stderr, exit 2, nothing on stdout.
bad() { # bad DESCRIPTION EXPECTED-TEXT ARGS...
	d=$1 want=$2; shift 2
	"$NODEBW" predict "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "$d: exit 2 (status $st)" test "$st" -eq 2
	check "$d: one line naming it" sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q -- '$want' '$tmp/err'"
	check "$d: nothing on stdout" test ! -s "$tmp/out"
}
sed 's/"radius": 4/"radius": 5/' "$app25" >"$tmp/r5.json"
bad "radius 5" "radius: must be an integer from 1 to 4" --calibration "$tmp/cal.json" --app "$tmp/r5.json"
sed 's/"copy": "pack"/"copy": "packed"/' "$app25" >"$tmp/cp.json"
bad "copy packed" 'copy: must be "rect" or "pack"' --calibration "$tmp/cal.json" --app "$tmp/cp.json"
printf '{"schema": "nodebw-app", "version": 1,\n "grid": [10, 10' >"$tmp/trunc.json"
bad "a truncated file" "trunc.json" --calibration "$tmp/cal.json" --app "$tmp/trunc.json"
bad "a missing file" "nope.json" --calibration "$tmp/cal.json" --app "$tmp/nope.json"
bad "G the decomposition is not for" "decomp 2x2x1 is for 4 devices" \
	--calibration "$tmp/cal.json" --app "$app25" --gpus 3
bad "--app with --n" "--app takes --calibration FILE and --gpus LIST" \
	--calibration "$tmp/cal.json" --app "$app25" --n 64
done_testing
