#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nodebw heat on the host plugin: help; every bad input is one line on stderr, exit 2,
# nothing on stdout and no results folder; every variant for G = 1, 2, 3, 4 verified and
# recorded (schema and cross-field checks); several grids in one command; a non-cubic
# instrumented run on a chosen device list; the slab a device holds reproduced by a
# one-device run; the measured roofline; the hidden-helper restart; a failed verification
# ends with status 3 and is recorded; the reference's host threads; the co-run probe on the
# slabs and on a box given by --nx/--ny/--nz.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
schema="$NODEBW_SOURCE/doc/results.schema.json"
record_schema="$NODEBW_SOURCE/doc/solver-run.schema.json"
validate="$NODEBW_SOURCE/tests/integration/validate_results.py"
validate_runs="$NODEBW_SOURCE/tests/heat/validate_solver_runs.py"
q() { # q FILE PYTHON-EXPRESSION: exit 0 when the expression over d and r (the runs) is true
	$py -c "import json,sys; d=json.load(open('$1')); r=d['solver_runs']; sys.exit(0 if ($2) else 1)"
}
valid() { # valid FILE: the document and every record
	$py "$validate" "$schema" "$1" >/dev/null && $py "$validate_runs" "$record_schema" "$1" >"$tmp/v.out" ||
		{ sed 's/^/#   /' "$tmp/v.out"; return 1; }
}

# 1. Help.
"$NODEBW" heat --help >"$tmp/out" 2>"$tmp/err"
check "heat --help exits 0" test $? -eq 0
check "heat --help has examples and the unit" sh -c "grep -q Examples '$tmp/out' && grep -q 1e9 '$tmp/out'"
"$NODEBW" --help >"$tmp/out"
check "nodebw --help lists heat" grep -q '^  heat ' "$tmp/out"

# 2. Bad input: one line on stderr, status 2, nothing on stdout, no results folder.
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
usage_error "N below 3" --n 2
usage_error "nx below 3" --nx 2 --ny 8 --nz 8
usage_error "nz below 3" --nx 8 --ny 8 --nz 1
usage_error "nx without ny and nz" --nx 8
usage_error "zero steps" --steps 0
usage_error "negative steps" --steps -5
usage_error "fractional steps" --steps 2.5
usage_error "more devices than exist (id)" --devices 0,9
usage_error "more devices than exist (count)" --gpus 9
usage_error "more devices than the list" --devices 0,1 --gpus 3
usage_error "device list with duplicates" --devices 1,2,1
usage_error "slab thinner than one plane per device" --n 5 --gpus 4
usage_error "slab too thin on a box" --nx 16 --ny 16 --nz 4 --version v2 --gpus 3
usage_error "unknown version" --version v5
usage_error "baseline on two devices" --version baseline --gpus 2
usage_error "Version 1 on one device" --version v1 --gpus 1
usage_error "hidden helpers out of range" --hidden-helpers 17
usage_error "bad roofline" --roofline-gbs fast
usage_error "shapes not NXxNYxNZ" --shapes 64x64
usage_error "launch probe with a shape" --launch-probe --nx 8 --ny 8 --nz 8
usage_error "launch probe with versions" --launch-probe --versions v2
usage_error "launch probe on more devices than exist" --launch-probe --gpus 9
usage_error "launch probe with zero passes" --launch-probe --reps 0
usage_error "shape side below 3" --shapes 64x64x2
usage_error "shapes with --n" --shapes 16x16x16 --n 16
usage_error "slab shape thinner than one plane per device" --shapes 16x16x4 --version v2 --gpus 3
usage_error "unknown baseline launch" --baseline-launch sometimes
usage_error "baseline blocktime not a number" --baseline-blocktime soon
usage_error "baseline blocktime negative" --baseline-blocktime -1
usage_error "baseline blocktime above 1000 ms" --baseline-blocktime 1001
usage_error "launch probe with a baseline blocktime" --launch-probe --baseline-blocktime 5
usage_error "unknown option" --fast
usage_error "stray argument" 64

# 3. Every variant for G = 1, 2, 3 and 4 (host-plugin devices), checked and recorded.
"$NODEBW" heat --versions all --gpus 1,2,3,4 --n 10 --steps 3 --roofline-gbs 10 \
	--output "$tmp/all" --quiet >"$tmp/all.out" 2>&1
check "all variants on 1-4 devices exit 0" test $? -eq 0
check "results and records match their schemas" valid "$tmp/all/results.json"
check "one serial, one baseline and v1-v4 for G = 2, 3, 4" q "$tmp/all/results.json" \
	"sorted((x['version'], x['G']) for x in r) == sorted([('serial', 0), ('baseline', 1)] + [('v%d' % v, g) for v in range(1, 5) for g in (2, 3, 4)])"
check "every offload run passed with max |d| = 0 on the host plugin" q "$tmp/all/results.json" \
	"all(x['verification']['status'] == 'passed' and x['verification']['max_abs_diff'] == 0 for x in r if x['G'] > 0)"
check "host-plugin devices are labelled so, never GPUs" q "$tmp/all/results.json" \
	"all(x['device_kind'] == 'host-plugin' for x in r if x['G'] > 0) and not any(x['is_gpu'] for x in d['devices'])"
check "speed, bytes and roofline fraction recorded" q "$tmp/all/results.json" \
	"all(x['points_per_s'] > 0 and x['bytes_per_s'] > 0 and x['roofline_fraction'] > 0 and x['roofline']['source'] == 'given' for x in r)"
check "v3 and v4 use one host thread per device" q "$tmp/all/results.json" \
	"all(x['host_threads'] == x['G'] for x in r if x['version'] in ('v3', 'v4'))"
check "the odd G = 3 split is 3+3+2 planes" q "$tmp/all/results.json" \
	"[s['planes'] for x in r if x['G'] == 3 for s in x['slabs']][:3] == [3, 3, 2]"

# 4. Several grids and device counts in one command: one record each (k(N) per size).
"$NODEBW" heat --versions baseline,v4 --gpus 1,2 --n 8,12 --steps 2 --roofline-gbs 10 \
	--output "$tmp/multi" --quiet
check "baseline and v4 for two grids exit 0" test $? -eq 0
check "four records with N and k" q "$tmp/multi/results.json" \
	"sorted((x['cubic_n'], x['version']) for x in r) == [(8, 'baseline'), (8, 'v4'), (12, 'baseline'), (12, 'v4')] and all(x['k_s_per_point'] > 0 for x in r)"

# 5. A non-cubic instrumented run on a chosen device list.
"$NODEBW" heat --version v3 --devices 3,1 --nx 9 --ny 7 --nz 12 --steps 3 --instrument \
	--roofline-gbs 10 --output "$tmp/box" >"$tmp/box.out"
check "instrumented non-cubic run exits 0" test $? -eq 0
check "it prints the phases" grep -q 'phases (s): interior' "$tmp/box.out"
check "it records shape, devices and phases" q "$tmp/box/results.json" \
	"len(r) == 1 and r[0]['shape'] == {'nx': 9, 'ny': 7, 'nz': 12} and r[0]['cubic_n'] is None and r[0]['devices'] == [3, 1] and r[0]['instrumented'] and r[0]['phases_s']['halo_exchange'] > 0 and r[0]['phases_s']['total'] > 0"
check "the instrumented document is valid" valid "$tmp/box/results.json"

# 6. The slab device 0 holds in a 2-device run of N = 10, run alone on one device.
"$NODEBW" heat --version baseline --nx 10 --ny 10 --nz 6 --steps 3 --roofline-gbs 10 \
	--output "$tmp/slab" --quiet
check "slab-shaped baseline exits 0" test $? -eq 0
check "it updates exactly the points of device 0's slab" $py -c "
import json, sys
g = json.load(open('$tmp/all/results.json'))['solver_runs']
s = json.load(open('$tmp/slab/results.json'))['solver_runs'][0]
two = [x for x in g if x['version'] == 'v4' and x['G'] == 2][0]['slabs'][0]
ok = s['shape'] == dict(zip(('nx', 'ny', 'nz'), two['local_shape'])) and s['interior_points'] == two['planes'] * 8 * 8
sys.exit(0 if ok else 1)"

# 7. The measured roofline (a STREAM triad on the host, as host-plugin devices share it).
"$NODEBW" heat --versions serial,baseline --n 12 --steps 2 --output "$tmp/roof" --quiet
check "run with a measured roofline exits 0" test $? -eq 0
check "the roofline was measured and says how" q "$tmp/roof/results.json" \
	"all(x['roofline']['source'] == 'measured' and 'STREAM triad' in x['roofline']['method'] and x['roofline']['gbs'] > 0 for x in r)"

# 8. Hidden helpers: nodebw restarts itself with the variable set, and records it.
"$NODEBW" heat --version v2,v3 --gpus 2 --n 8 --steps 2 --hidden-helpers 0 \
	--roofline-gbs 10 --output "$tmp/hh0" --quiet
check "--hidden-helpers 0 run exits 0" test $? -eq 0
check "records say 0 hidden helpers and the environment has it" q "$tmp/hh0/results.json" \
	"all(x['hidden_helpers'] == 0 and x['verification']['status'] == 'passed' for x in r) and d['environment'].get('LIBOMP_NUM_HIDDEN_HELPER_THREADS') == '0'"

# 8b. The baseline's own blocktime: its record says 7 ms; Version 2 after it runs with the
# process's setting again (KMP_BLOCKTIME=3 here), the serial reference has none (-1).
KMP_BLOCKTIME=3 "$NODEBW" heat --versions serial,baseline,v2 --gpus 1,2 --n 8 --steps 2 \
	--baseline-blocktime 7 --roofline-gbs 10 --output "$tmp/bt" --quiet
check "--baseline-blocktime run exits 0" test $? -eq 0
check "records say the blocktime each run waited with" q "$tmp/bt/results.json" \
	"sorted((x['version'], x['blocktime_ms']) for x in r) == [('baseline', 7), ('serial', -1), ('v2', 3)]"

# 9. A verification failure (test hook: perturb v2's solution) exits 3 and is recorded.
NODEBW_HEAT_FAULT=v2 "$NODEBW" heat --versions v1,v2 --gpus 2 --n 8 --steps 2 \
	--roofline-gbs 10 --output "$tmp/fail" >"$tmp/fail.out" 2>&1
st=$?
check "a failed verification exits 3 (got $st)" test $st -eq 3
check "it is recorded as failed, the other run passed" q "$tmp/fail/results.json" \
	"[(x['version'], x['verification']['status']) for x in r] == [('v1', 'passed'), ('v2', 'failed')] and abs(r[1]['verification']['max_abs_diff'] - 1e-3) < 1e-9 and 'first at' in r[1]['verification']['detail']"
check "the failed document is still valid" valid "$tmp/fail/results.json"
check "the summary line counts the failure" grep -q '1 failed verification' "$tmp/fail.out"

# 10. The reference's host threads: --ref-threads, else OMP_NUM_THREADS or every core; the
# offload runs still match it bit for bit.
"$NODEBW" heat --versions serial,baseline --nx 11 --ny 9 --nz 13 --steps 3 --ref-threads 3 \
	--roofline-gbs 10 --output "$tmp/rt3" --quiet
check "--ref-threads 3 exits 0" test $? -eq 0
check "the reference ran on 3 host threads, the baseline matches it exactly" q "$tmp/rt3/results.json" \
	"r[0]['version'] == 'serial' and r[0]['host_threads'] == 3 and '3 host threads' in r[0]['kernels'] and r[1]['verification']['max_abs_diff'] == 0"
check "the --ref-threads document is valid" valid "$tmp/rt3/results.json"
OMP_NUM_THREADS=1 "$NODEBW" heat --versions serial --n 8 --steps 2 --roofline-gbs 10 \
	--output "$tmp/rt1" --quiet
check "without --ref-threads the reference follows OMP_NUM_THREADS" q "$tmp/rt1/results.json" \
	"r[0]['host_threads'] == 1"
usage_error "zero reference threads" --ref-threads 0
# 11. Without the halo exchange (the compute-calibrated model's calibration): every version runs its
# kernels and synchronisation only; the result is each slab on its own, which the check
# holds it against (so it differs from the solver's solution, and a fault still fails).
"$NODEBW" heat --versions v1,v2,v3,v4 --gpus 2,3 --n 10 --steps 4 --no-exchange \
	--roofline-gbs 10 --output "$tmp/nx" --quiet
check "--no-exchange exits 0" test $? -eq 0
check "every run says exchange none, passed against the slabs' reference" q "$tmp/nx/results.json" \
	"len(r) == 8 and all(x['exchange'] == 'none' and x['verification']['status'] == 'passed' and 'each slab run serially' in x['verification']['rule'] and x['halo_path'].startswith('none') for x in r)"
check "the --no-exchange document is valid" valid "$tmp/nx/results.json"
"$NODEBW" heat --versions v3 --gpus 2 --n 10 --steps 4 --roofline-gbs 10 --output "$tmp/hx" --quiet
check "with the exchange the same run says exchange halo" q "$tmp/hx/results.json" \
	"r[0]['exchange'] == 'halo'"
NODEBW_HEAT_FAULT=v3 "$NODEBW" heat --versions v3 --gpus 2 --n 10 --steps 4 --no-exchange \
	--roofline-gbs 10 --output "$tmp/nxf" >/dev/null 2>&1
check "--no-exchange: a perturbed solution fails verification (exit 3)" test $? -eq 3
# --paired: each version's halo run and its compute-only half, two records with each
# other's samples; both verified (the half against the slabs' reference); a fault in the
# halo run still fails; --paired does not go with --no-exchange or the launch probe.
"$NODEBW" heat --versions baseline,v2,v3 --gpus 1,2 --n 10 --steps 4 --reps 3 --paired \
	--roofline-gbs 10 --output "$tmp/pr" --quiet
check "--paired exits 0" test $? -eq 0
check "--paired: baseline alone, then each version's halo and compute-only records" q "$tmp/pr/results.json" \
	"[(x['version'], x['G'], x['exchange'], 'paired' in x) for x in r] == [('baseline', 1, 'halo', False), ('v2', 2, 'halo', True), ('v2', 2, 'none', True), ('v3', 2, 'halo', True), ('v3', 2, 'none', True)]"
check "--paired: each half holds the other's samples, both passed" q "$tmp/pr/results.json" \
	"all(a['paired']['partner'] == 'none' and b['paired']['partner'] == 'halo' and a['paired']['partner_samples_s'] == b['samples_s'] and b['paired']['partner_samples_s'] == a['samples_s'] and len(a['samples_s']) == 3 and a['verification']['status'] == b['verification']['status'] == 'passed' and 'each slab run serially' in b['verification']['rule'] and 'each slab run serially' not in a['verification']['rule'] for a, b in ((r[1], r[2]), (r[3], r[4])))"
check "the --paired document is valid" valid "$tmp/pr/results.json"
NODEBW_HEAT_FAULT=v3 "$NODEBW" heat --versions v3 --gpus 2 --n 10 --steps 4 --paired \
	--roofline-gbs 10 --output "$tmp/prf" >/dev/null 2>&1
check "--paired: a perturbed solution fails verification (exit 3)" test $? -eq 3
usage_error "--paired with --no-exchange" --paired --no-exchange
usage_error "--paired with the launch probe" --paired --launch-probe
# The launch-latency probe: every form for G = 1 and 3 on devices 3, 1, 2, the copy forms
# for G = 3 and N = 8, 12; the counters match the launches and every ghost plane its
# neighbour's halo plane; the records validate; the per-launch time is the step over its
# launches.
KMP_BLOCKTIME=0 "$NODEBW" heat --launch-probe --devices 3,1,2 --gpus 1,3 --n 8,12 --steps 20 \
	--reps 5 --hidden-helpers 0 --output "$tmp/lp" >"$tmp/lpout" 2>"$tmp/lperr"
check "launch probe: exit 0 (status $?)" test $? -eq 0
check "launch probe: the results validate" sh -c "$py '$validate' '$schema' '$tmp/lp/results.json' >/dev/null"
check "launch probe: 3 forms x 2 G and 2 copy forms x 2 N for G = 3, checked, CI around the median" $py -c "
import json; l = json.load(open('$tmp/lp/results.json'))['launch_probe']
want = [(f, g, None) for g in (1, 3) for f in ('sync', 'one-thread', 'per-device')]
want[6:6] = [(f, 3, n) for f in ('staged-copy', 'direct-copy') for n in (8, 12)]
assert [(x['form'], x['G'], x.get('N')) for x in l] == want, l
for x in l:
    copies = x['form'].endswith('-copy')
    ver = {'status': 'passed', 'count': (2 + 5) * 20}
    if copies:
        ver['planes'] = 'passed'
        assert x['plane_bytes'] == 8 * x['N'] ** 2, x
        assert x['copies_per_thread_and_step'] == 2 * (2 if x['form'] == 'staged-copy' else 1), x
    assert x['verification'] == ver, x
    assert x['devices'] == [3, 1, 2][:x['G']] and x['hidden_helpers'] == 0 and len(x['samples_step_s']) == 5
    s = x['step_s']
    assert 0 < s['ci_lo'] <= s['median'] <= s['ci_hi'], s
    per = 2 if x['form'] not in ('sync', 'one-thread') else 2 * x['G']
    assert x['launches_per_thread_and_step'] == per and abs(x['per_launch_s'] * per / s['median'] - 1) < 1e-8, x
"
check "launch probe: the table names the forms" sh -c "grep -q '^one-thread   3' '$tmp/lpout' && grep -q '^staged-copy  3   12' '$tmp/lpout' && grep -q '10 launch measurements, 0 with' '$tmp/lpout'"
# A spoilt ghost plane fails the copy forms' check (exit 3, partial), the others pass.
NODEBW_HEAT_FAULT=copy-plane KMP_BLOCKTIME=0 "$NODEBW" heat --launch-probe --devices 3,1,2 \
	--gpus 3 --n 8 --steps 5 --reps 3 --hidden-helpers 0 --output "$tmp/lpf" >"$tmp/lpfout" 2>&1
check "launch probe: a spoilt ghost plane fails the check (status $?)" test $? -eq 3
check "launch probe: the spoilt plane is named, the other records pass" $py -c "
import json; l = json.load(open('$tmp/lpf/results.json'))['launch_probe']
bad = [x for x in l if x['verification']['status'] != 'passed']
assert [x['form'] for x in bad] == ['staged-copy', 'direct-copy'], l
assert all(x['verification']['planes'] == 'failed' and x['verification']['plane_device'] == 1 for x in bad), bad
"
# 12. The co-run probe: on the slab shapes of G = 2 and 3 for N = 14 (14x14x8, 14x14x6) the
# one-device kernel on several devices at once, one host thread on G devices and a thread
# per device on min(G, CPUs) devices; every record verified, its points counted per device.
cpus=$(nproc)
KMP_BLOCKTIME=0 "$NODEBW" heat --shapes 14x14x8,14x14x6 --versions baseline --baseline-launch nowait \
	--gpus 1,2,3 --corun --steps 10 --reps 2 --hidden-helpers 0 --output "$tmp/co" >"$tmp/coout" 2>&1
check "co-run probe: exit 0 (status $?)" test $? -eq 0
check "co-run probe: one-thread on G devices, per-device on min(G, CPUs), each on its G's slab" $py -c "
import json; runs = json.load(open('$tmp/co/results.json'))['solver_runs']
co = [r for r in runs if r['version'] == 'corun']
cpus = $cpus
want = [('one-thread', 2, 2, 8), ('per-device', 2, 2, 8), ('one-thread', 3, 3, 6)]
if min(3, cpus) >= 2:
    want.append(('per-device', 3, min(3, cpus), 6))
assert [(r['corun'], r['corun_slab_of_G'], r['G'], r['shape']['nz']) for r in co] == want, co
for r in co:
    assert r['verification']['status'] == 'passed' and r['halo']['planes_per_step'] == 0, r
    assert r['launch'] == 'nowait' and r['host_threads'] == (r['G'] if r['corun'] == 'per-device' else 1), r
    assert abs(r['points_per_s'] / (12 * 12 * (r['shape']['nz'] - 2) * 10 * r['G'] / r['seconds']) - 1) < 1e-9, r
assert sum(r['version'] == 'baseline' for r in runs) == 2
"
# A slab thinner than its G in planes (N = 12, G = 4: 3 planes) is still a co-run grid: only
# Versions 1-4 split a grid along z.
KMP_BLOCKTIME=0 "$NODEBW" heat --shapes 12x12x5 --versions baseline --baseline-launch nowait \
	--gpus 1,4 --corun --steps 3 --reps 1 --hidden-helpers 0 --output "$tmp/cot" >"$tmp/cotout" 2>&1
check "co-run probe: a slab of fewer planes than devices runs (status $?)" test $? -eq 0
# A co-run whose solution is spoilt fails its check and the command (status 3).
NODEBW_HEAT_FAULT=corun KMP_BLOCKTIME=0 "$NODEBW" heat --shapes 14x14x8 --versions baseline \
	--baseline-launch nowait --gpus 1,2 --corun --steps 5 --reps 1 --hidden-helpers 0 \
	--output "$tmp/cof" >"$tmp/cofout" 2>&1
check "co-run probe: a spoilt solution fails (status $?)" test $? -eq 3
check "co-run probe: only the co-runs failed" $py -c "
import json; runs = json.load(open('$tmp/cof/results.json'))['solver_runs']
assert [(r['version'], r['verification']['status']) for r in runs] == [('baseline', 'passed'), ('corun', 'failed'), ('corun', 'failed')], runs
"
# 13. The co-run of a box given by --nx/--ny/--nz (an application's local box, no slab of
# any G): for G = 4, one host thread on 4 devices and a thread per device on min(4, CPUs),
# each device the whole box, every record verified; --n/--shapes keep the slab rule.
KMP_BLOCKTIME=0 "$NODEBW" heat --nx 20 --ny 20 --nz 30 --radius 2 --fields 2 --versions baseline \
	--baseline-launch nowait --gpus 1,4 --corun --steps 2 --reps 1 --hidden-helpers 0 \
	--output "$tmp/boxco" >"$tmp/boxcoout" 2>&1
check "box co-run: exit 0 (status $?)" test $? -eq 0
check "box co-run: the box's co-runs for G = 4, verified, with its radius and fields" $py -c "
import json; runs = json.load(open('$tmp/boxco/results.json'))['solver_runs']
co = [r for r in runs if r['version'] == 'corun']
cpus = $cpus
want = [('one-thread', 4, 4)] + ([('per-device', 4, min(4, cpus))] if cpus >= 2 else [])
assert [(r['corun'], r['corun_slab_of_G'], r['G']) for r in co] == want, co
for r in co:
    assert r['shape'] == {'nx': 20, 'ny': 20, 'nz': 30}, r
    assert r['config']['radius'] == 2 and r['config']['fields'] == 2, r
    assert r['verification']['status'] == 'passed' and r['halo']['planes_per_step'] == 0, r
    assert r['launch'] == 'nowait' and r['host_threads'] == (r['G'] if r['corun'] == 'per-device' else 1), r
    assert abs(r['points_per_s'] / (16 * 16 * 26 * 2 * 2 * r['G'] / r['seconds']) - 1) < 1e-9, r
assert [(r['version'], r['G']) for r in runs] == [('baseline', 1)] + [('corun', g) for _, _, g in want], runs
"
check "box co-run: the table names the co-runs and their form" sh -c "grep -q '^corun     4 0,1,2,3 ' '$tmp/boxcoout' && grep -q 'co-run for G = 4, every device computing the whole grid: one host thread' '$tmp/boxcoout'"
check "box co-run: the document and records are valid" valid "$tmp/boxco/results.json"
usage_error "--corun on a box without a G >= 2" --nx 20 --ny 20 --nz 30 --versions baseline --gpus 1 --corun
usage_error "--corun on --shapes that are no slab" --shapes 20x20x30 --versions baseline --gpus 1,4 --corun
done_testing
