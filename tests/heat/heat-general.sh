#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nodebw heat's generalised solver on the host plugin: bad input of the new options is one
# line on stderr, exit 2, nothing on stdout and no results folder; every radius with several
# fields on the paper's versions, and the general version on five decompositions with rect
# and pack copies, host-staged and device to device, overlap on and off, verified and
# recorded (schema, configuration, subdomains, halo bytes); a subdomain's local box run on
# one device updates exactly its points; --app runs the app's configuration and says what
# the solver computes in; the co-run probe with a radius.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
schema="$NODEBW_SOURCE/doc/results.schema.json"
record_schema="$NODEBW_SOURCE/doc/solver-run.schema.json"
validate="$NODEBW_SOURCE/tests/integration/validate_results.py"
validate_runs="$NODEBW_SOURCE/tests/heat/validate_solver_runs.py"
q() { # q FILE PYTHON-EXPRESSION over d and r (the runs)
	$py -c "import json,sys; d=json.load(open('$1')); r=d['solver_runs']; sys.exit(0 if ($2) else 1)"
}
valid() {
	$py "$validate" "$schema" "$1" >/dev/null && $py "$validate_runs" "$record_schema" "$1" >"$tmp/v.out" ||
		{ sed 's/^/#   /' "$tmp/v.out"; return 1; }
}
usage_error() { # usage_error description args...
	desc=$1; shift
	"$NODEBW" heat "$@" --output "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
	st=$?
	lines=$(wc -l <"$tmp/err")
	if [ $st -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^nodebw: error: ' "$tmp/err" &&
	   [ ! -s "$tmp/out" ] && [ ! -e "$tmp/bad" ]; then
		ok "$desc: exit 2, one line ($(cat "$tmp/err"))"
	else
		not_ok "$desc: status $st, $lines stderr lines"
		sed 's/^/#   /' "$tmp/err" "$tmp/out"
	fi
}

# 1. Bad input.
usage_error "radius 5" --radius 5
usage_error "radius 0" --radius 0
usage_error "fields 5" --fields 5
usage_error "grid too small for the radius" --n 8 --radius 4
usage_error "slabs thinner than the radius" --nx 20 --ny 20 --nz 10 --radius 2 --version v2 --gpus 4
usage_error "decomp without general" --decomp 2x2x1
usage_error "decomp not PXxPYxPZ" --versions general --decomp 2x2
usage_error "decomp of one device" --versions general --decomp 1x1x1
usage_error "decomp of more devices than exist" --versions general --decomp 3x3x1
usage_error "decomp against --gpus" --versions general --decomp 2x2x1 --gpus 2
usage_error "a device thinner than the radius" --versions general --decomp 4x1x1 --nx 9 --ny 20 --nz 20 --radius 2
usage_error "unknown copy" --versions general --copy zip
usage_error "unknown exchange" --versions general --exchange pcie
usage_error "unknown overlap" --versions general --overlap maybe
usage_error "general with --no-exchange" --versions general --no-exchange
usage_error "launch probe with a radius" --launch-probe --radius 2
usage_error "app file missing" --app "$tmp/none.json"
cat >"$tmp/app.json" <<'JSON'
{"schema": "nodebw-app", "version": 1, "name": "stencil25", "grid": [21, 20, 10],
 "decomp": [2, 2, 1], "radius": 4, "fields": 3, "element_bytes": 4, "exchange": "device",
 "copy": "pack", "overlap": true, "steps": 3, "compute": {"kernel": "nodebw-heat"}}
JSON
usage_error "app with --radius" --app "$tmp/app.json" --radius 2
usage_error "app with --n" --app "$tmp/app.json" --n 16
printf '{"schema": "nodebw-app", "version": 1, "grid": [8, 8, 8]}\n' >"$tmp/bad-app.json"
usage_error "app without its keys" --app "$tmp/bad-app.json"

# 2. Every radius with several fields: serial, the baseline and Versions 1-4 on 2 and 4.
for R in 1 2 3 4; do
	F=$(( (R - 1) % 3 + 1 ))
	n=$((6 * R + 2))
	"$NODEBW" heat --versions all --gpus 1,2,4 --nx $((2 * R + 5)) --ny $((2 * R + 4)) \
		--nz $n --radius $R --fields $F --steps 3 --roofline-gbs 10 --output "$tmp/r$R" \
		--quiet >"$tmp/r.out" 2>&1
	check "radius $R, $F fields: every version exits 0" test $? -eq 0
	check "radius $R: records valid" valid "$tmp/r$R/results.json"
	check "radius $R: every offload run passed bit for bit, config radius $R and $F fields" \
		q "$tmp/r$R/results.json" \
		"len(r) == 10 and all(x['config']['radius'] == $R and x['config']['fields'] == $F for x in r) and all(x['verification']['status'] == 'passed' and x['verification']['max_abs_diff'] == 0 for x in r if x['G'] > 0)"
done
check "Versions 1-4 say what they do: z-slabs, host-staged or device, overlap but v1" \
	q "$tmp/r2/results.json" \
	"[(x['config']['decomp'], x['config']['exchange'], x['config']['copy'], x['config']['overlap']) for x in r if x['version'] in ('v1', 'v4') and x['G'] == 4] == [([1, 1, 4], 'host-staged', 'rect', False), ([1, 1, 4], 'device', 'rect', True)]"
check "Versions 1-4 move 2 (G-1) R F planes per step" q "$tmp/r2/results.json" \
	"all(x['halo']['planes_per_step'] == 2 * (x['G'] - 1) * 2 * 2 and x['halo']['bytes_per_step'] == x['halo']['planes_per_step'] * x['halo']['bytes_per_plane'] for x in r if x['version'] in ('v1','v2','v3','v4'))"

# 3. The general version: five decompositions x rect/pack x host/device x overlap on/off.
gen=0
for D in 1x1x4 2x2x1 2x1x2 4x1x1 1x2x2; do
	for C in rect pack; do
		for E in host device; do
			for O in on off; do
				gen=$((gen + 1))
				"$NODEBW" heat --versions general --decomp $D --copy $C --exchange $E \
					--overlap $O --nx 13 --ny 11 --nz 12 --radius 2 --fields 2 \
					--steps 3 --roofline-gbs 10 --output "$tmp/g$gen" --quiet \
					>"$tmp/g.out" 2>&1
				st=$?
				if [ $st -eq 0 ] && q "$tmp/g$gen/results.json" \
					"len(r) == 1 and r[0]['version'] == 'general' and r[0]['halo_path'].endswith('; chained per field') and r[0]['verification']['status'] == 'passed' and r[0]['verification']['max_abs_diff'] == 0 and r[0]['config'] == {'radius': 2, 'fields': 2, 'decomp': [int(c) for c in '$D'.split('x')], 'exchange': {'host': 'host-staged'}.get('$E', '$E'), 'copy': '$C', 'overlap': '$O' == 'on'}"; then
					ok "general $D $C $E overlap $O: verified and recorded"
				else
					not_ok "general $D $C $E overlap $O: status $st"
					sed 's/^/#   /' "$tmp/g.out"
				fi
			done
		done
	done
done
check "the general records are valid" valid "$tmp/g9/results.json"
check "2x2x1 (run 9): four subdomains, faces' bytes per step counted" q "$tmp/g9/results.json" \
	"[s['index'] for s in r[0]['subdomains']] == [[0,0,0],[1,0,0],[0,1,0],[1,1,0]] and [s['interior'] for s in r[0]['subdomains']] == [[5,4,8],[4,4,8],[5,3,8],[4,3,8]] and r[0]['halo']['bytes_per_step'] == 2 * 2 * 8 * sum(s['interior'][1] * 8 + s['interior'][0] * 8 for s in r[0]['subdomains']) and r[0]['host_threads'] == 4 and r[0]['slabs'] == []"

"$NODEBW" heat --versions general --decomp 1x2x2 --overlap off --nx 14 --ny 13 --nz 10 \
	--radius 2 --steps 3 --instrument --roofline-gbs 10 --output "$tmp/ins" --quiet
check "general --instrument exits 0" test $? -eq 0
check "its phases are recorded, the exchange among them" q "$tmp/ins/results.json" \
	"r[0]['instrumented'] and r[0]['phases_s']['halo_exchange'] > 0 and r[0]['phases_s']['interior'] > 0 and r[0]['phases_s']['total'] > 0"

# 4. A subdomain's local box on one device updates exactly that device's points.
"$NODEBW" heat --version baseline --radius 2 --fields 2 --nx 9 --ny 8 --nz 12 --steps 3 \
	--roofline-gbs 10 --output "$tmp/box" --quiet
check "the local box on one device exits 0" test $? -eq 0
check "it updates exactly the points of the 2x2x1 run's device 0" $py -c "
import json, sys
g = json.load(open('$tmp/g9/results.json'))['solver_runs'][0]['subdomains'][0]
b = json.load(open('$tmp/box/results.json'))['solver_runs'][0]
i = g['interior']
ok = [b['shape'][k] for k in ('nx', 'ny', 'nz')] == g['local_shape'] and b['interior_points'] == i[0] * i[1] * i[2] and b['config']['fields'] == 2 and b['subdomains'][0]['interior'] == i
sys.exit(0 if ok else 1)"

# 5. --app: the app's configuration, its element bytes recorded, the solver in doubles.
"$NODEBW" heat --app "$tmp/app.json" --roofline-gbs 10 --output "$tmp/app" >"$tmp/app.out" 2>&1
check "--app runs serial and general, exit 0" test $? -eq 0
check "it says the app asked for 4-byte elements and the solver ran 8" \
	grep -q 'asks for 4-byte elements; the solver computes in 8-byte doubles' "$tmp/app.out"
check "the general record carries the app's configuration" q "$tmp/app/results.json" \
	"[x['version'] for x in r] == ['serial', 'general'] and r[1]['config'] == {'radius': 4, 'fields': 3, 'decomp': [2, 2, 1], 'exchange': 'device', 'copy': 'pack', 'overlap': True} and r[1]['app']['element_bytes'] == 4 and r[1]['app']['solver_element_bytes'] == 8 and r[1]['app']['name'] == 'stencil25' and r[1]['steps'] == 3 and r[1]['verification']['status'] == 'passed'"
check "the --app document is valid" valid "$tmp/app/results.json"

# 6. The co-run probe on the slab of a radius-2 grid (N x N x (ceil((N-4)/G) + 4)).
"$NODEBW" heat --corun --versions baseline --shapes 12x12x8 --radius 2 --gpus 1,2 --steps 2 \
	--roofline-gbs 10 --output "$tmp/corun" --quiet
check "the co-run probe with --radius 2 exits 0" test $? -eq 0
check "it ran and verified on the radius-2 slab" q "$tmp/corun/results.json" \
	"any(x['version'] == 'corun' and x['verification']['status'] == 'passed' and x['config']['radius'] == 2 for x in r)"

done_testing
