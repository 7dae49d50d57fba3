#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nodebw probe --faces on this machine's APIs (the OpenMP host plugin and the host backend;
# the host backend alone in a build without offload): for each API the z-, y- and x-face by
# rect and pack, host-staged (HtoD, DtoH) and device to device, and the exchanges of a line
# and a 2 x 2 grid of devices; every row verified byte by byte and recorded with its shape;
# bytes are face bytes (a face's elements x E), an exchange's the sum over its messages; the
# terminal has one line per series; bad shapes are usage errors. No clock is raced: the checks
# read what the probe wrote.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
apis=host
[ "${NODEBW_OPENMP:-1}" = 1 ] && apis=omp,host

"$NODEBW" probe --api "$apis" --quick --faces 48x40x36:2:8 --output "$tmp/r" \
	>"$tmp/out" 2>"$tmp/err"
st=$?
check "probe --api $apis --faces 48x40x36:2:8 exits 0 (status $st)" test "$st" -eq 0
[ "$st" -eq 0 ] || sed 's/^/# /' "$tmp/err"

check "every API has every face by rect and pack, host-staged and device to device, verified" \
	$py -c "
import json, sys
d = json.load(open('$tmp/r/results.json'))
ms = d['measurements']
assert ms and all('shape' in m for m in ms), 'a measurement without its shape'
for api in '$apis'.split(','):
    for direction in ('htod', 'dtoh', 'p2p'):
        for face in 'zyx':
            for method in ('rect', 'pack'):
                rows = [m for m in ms if m['api'] == api and m['direction'] == direction
                        and m['concurrency'] == 'face' and m['shape']['face'] == face
                        and m['shape']['method'] == method]
                assert rows, (api, direction, face, method)
                for m in rows:
                    assert m['verification']['status'] == 'passed', m['verification']
                    assert 'untouched' in m['verification']['detail'], m['verification']
                    assert m['error'] is None, m['error']
"
check "the shape and the bytes: face bytes = the face's elements x E (48x40x36, R 2, E 8)" \
	$py -c "
import json
d = json.load(open('$tmp/r/results.json'))
want = {'z': 48 * 40 * 2 * 8, 'y': 48 * 2 * 36 * 8, 'x': 2 * 40 * 36 * 8}
for m in d['measurements']:
    s = m['shape']
    assert s['box'] == [48, 40, 36] and s['depth'] == 2 and s['element_bytes'] == 8, s
    assert s['face_bytes'] == want[s['face']] == m['bytes'], (s, m['bytes'])
    steps = sum(want[x['face']] for x in m['streams'])
    assert s['step_bytes'] == steps and s['messages'] == len(m['streams']), s
    g = m['gbps']['median']
    t = m['seconds']['median']
    if len(m['samples_s']) % 2:
        assert abs(g - steps / t / 1e9) <= 1e-6 * g, (g, steps, t)
    assert 'face' in m['bytes_counting'], m['bytes_counting']
"
check "the exchanges: a line (6 messages of z-faces) and a 2 x 2 grid (4 z, 4 y) per method" \
	$py -c "
import json
d = json.load(open('$tmp/r/results.json'))
for api in '$apis'.split(','):
    for method in ('rect', 'pack'):
        line = [m for m in d['measurements'] if m['api'] == api and m['shape']['method'] == method
                and m['concurrency'] == 'exchange-line']
        grid = [m for m in d['measurements'] if m['api'] == api and m['shape']['method'] == method
                and m['concurrency'] == 'exchange-grid']
        assert line and grid, (api, method)
        for m in line:
            assert [s['face'] for s in m['streams']] == ['z'] * 6, m['streams']
            assert m['verification']['status'] == 'passed'
            assert m['overlap'] is not None
        for m in grid:
            assert sorted(s['face'] for s in m['streams']) == ['y'] * 4 + ['z'] * 4
            assert m['verification']['status'] == 'passed'
"
check "one terminal line per series, naming face, method and where the bytes go" $py -c "
import re
t = open('$tmp/out').read()
for api in '$apis'.split(','):
    for face in 'zyx':
        for method in ('rect', 'pack'):
            for where in ('host->0, host-staged', '0->host, host-staged', '0->1, device to device'):
                pat = re.escape(api) + r'-\w+ ' + face + '-face ' + method + r' \w+ .*48x40x36:2:8 \(' + re.escape(where) + r'\): face [0-9.]+ KiB in .* GB/s; verified'
                assert re.search(pat, t), pat
    assert re.search(re.escape(api) + r'-p2p exchange-grid \w+ \w+ 48x40x36:2:8 \(8 messages of z- and y-faces at once, device to device\): [0-9.]+ KiB per step', t)
"
$py "$NODEBW_SOURCE/tests/integration/validate_results.py" "$NODEBW_SOURCE/doc/results.schema.json" \
	"$tmp/r/results.json" >"$tmp/valid" 2>&1
st=$?
check "results.json is valid against doc/results.schema.json (checked bytes: the boxes)" \
	test "$st" -eq 0
sed 's/^/# /' "$tmp/valid"
check "the face rows are not taken for the P2P matrices" sh -c \
	"'$NODEBW' matrix '$tmp/r/results.json' 2>&1 | grep -q 'no verified device-to-device measurement'"

# The exchange of a decomposition (--faces-decomp): device to device and host-staged, each
# message checked; a decomposition larger than the devices is a skipped series with its reason.
"$NODEBW" probe --api "$apis" --quick --mode sync --host-mem pinned --faces 16x12x10:1:8 \
	--faces-decomp 2x2x1,1x1x2,2x2x2 --output "$tmp/d" >"$tmp/dout" 2>"$tmp/derr"
st=$?
check "probe --faces-decomp 2x2x1,1x1x2,2x2x2 exits 0 (status $st)" test "$st" -eq 0
[ "$st" -eq 0 ] || sed 's/^/# /' "$tmp/derr"
check "exchange-decomp: 2x2x1 8 messages (4 x, 4 y), 1x1x2 2 z; both paths, both methods, verified" \
	$py -c "
import json
d = json.load(open('$tmp/d/results.json'))
x = [m for m in d['measurements'] if m['concurrency'] == 'exchange-decomp']
for api in '$apis'.split(','):
    for dec, faces in (('2x2x1', ['x'] * 4 + ['y'] * 4), ('1x1x2', ['z'] * 2)):
        for path in ('device', 'host-staged'):
            for method in ('rect', 'pack'):
                rows = [m for m in x if m['api'] == api and m['shape']['decomp'] == dec
                        and m['shape']['path'] == path and m['shape']['method'] == method]
                assert len(rows) == 1, (api, dec, path, method, len(rows))
                m = rows[0]
                assert m['direction'] == 'p2p'
                assert [s['face'] for s in m['streams']] == faces, m['streams']
                assert m['verification']['status'] == 'passed', m['verification']
                assert m['host_mem'] == ('pinned' if path == 'host-staged' else 'none')
                want = {'x': 1 * 12 * 10 * 8, 'y': 16 * 1 * 10 * 8, 'z': 16 * 12 * 1 * 8}
                assert m['shape']['step_bytes'] == sum(want[f] for f in faces), m['shape']
sk = [s for s in d['skipped'] if 'exchange-decomp 2x2x2' in json.dumps(s)]
assert sk and all('2x2x2 needs 8 devices' in json.dumps(s) for s in sk), sk
"
check "the terminal names the decomposition, its faces and its path" $py -c "
import re
t = open('$tmp/dout').read()
for api in '$apis'.split(','):
    assert re.search(re.escape(api) + r'-p2p exchange-decomp rect sync 16x12x10:1:8 \(8 messages of x- and y-faces at once, 2x2x1 devices, device to device\): [0-9.]+ KiB per step', t)
    assert re.search(re.escape(api) + r'-p2p exchange-decomp pack sync pinned 16x12x10:1:8 \(2 messages of z-faces at once, 1x1x2 devices, host-staged\): [0-9.]+ KiB per step .*; verified', t)
"
# Two fields per step: on OpenMP the backend's exchange step sends every message twice (the
# step's bytes twice one field's, every box still checked); the host backend has no exchange
# step, so that series is skipped with its reason.
"$NODEBW" probe --api "$apis" --quick --mode sync,async --host-mem pinned --faces 16x12x10:1:8 \
	--faces-decomp 2x1x2 --faces-fields 2 --output "$tmp/f" >"$tmp/fout" 2>"$tmp/ferr"
st=$?
check "probe --faces-decomp 2x1x2 --faces-fields 2 exits 0 (status $st)" test "$st" -eq 0
[ "$st" -eq 0 ] || sed 's/^/# /' "$tmp/ferr"
check "exchange-decomp with 2 fields: the step's bytes are two fields', verified; issued by the backend where it can" \
	$py -c "
import json
d = json.load(open('$tmp/f/results.json'))
x = [m for m in d['measurements'] if m['concurrency'] == 'exchange-decomp']
one = {'x': 1 * 12 * 10 * 8, 'z': 16 * 12 * 1 * 8}
apis = '$apis'.split(',')
if 'omp' in apis:
    rows = [m for m in x if m['api'] == 'omp']
    assert len(rows) == 2 * 2 * 2, len(rows)  # path x method x mode
    for m in rows:
        assert m['shape']['fields'] == 2, m['shape']
        assert m['shape']['messages'] == 8, m['shape']
        assert m['shape']['step_bytes'] == 2 * (4 * one['x'] + 4 * one['z']), m['shape']
        assert m['verification']['status'] == 'passed', m['verification']
        assert 'a host thread per sending device' in m['start'], m['start']
        if m['mode'] == 'async':
            assert 'depobj' in m['start'], m['start']
assert not [m for m in x if m['api'] == 'host'], 'host ran two fields'
sk = [s for s in d['skipped'] if s['api'] == 'host' and 'exchange-decomp 2x1x2 2 fields' in s['what']]
assert sk and all('own exchange step' in s['reason'] for s in sk), d['skipped']
"
check "the terminal names the fields" $py -c "
import re
t = open('$tmp/fout').read()
if 'omp' in '$apis':
    assert re.search(r'omp-p2p exchange-decomp pack async 16x12x10:1:8 \(8 messages x 2 fields of x- and z-faces at once, 2x1x2 devices, device to device\): [0-9.]+ KiB per step', t), t[-2000:]
"
$py "$NODEBW_SOURCE/tests/integration/validate_results.py" "$NODEBW_SOURCE/doc/results.schema.json" \
	"$tmp/f/results.json" >"$tmp/fvalid" 2>&1
st=$?
check "the two-field exchange's results.json is valid against doc/results.schema.json" test "$st" -eq 0
sed 's/^/# /' "$tmp/fvalid"

$py "$NODEBW_SOURCE/tests/integration/validate_results.py" "$NODEBW_SOURCE/doc/results.schema.json" \
	"$tmp/d/results.json" >"$tmp/dvalid" 2>&1
st=$?
check "the decomposition's results.json is valid against doc/results.schema.json" test "$st" -eq 0
sed 's/^/# /' "$tmp/dvalid"

usage_error "--faces with too few sides" probe --api host --faces 48x40:2:8
usage_error "--faces with a depth of 0" probe --api host --faces 48x40x36:0:8
usage_error "--faces with a side shorter than 2R" probe --api host --faces 48x40x3:2:8
usage_error "--faces with an empty shape" probe --api host --faces 48x40x36:2:8,
usage_error "--faces on 'run'" run --api host --faces 48x40x36:2:8
usage_error "--faces-decomp with two factors" probe --api host --faces 48x40x36:2:8 --faces-decomp 2x2
usage_error "--faces-decomp without --faces" probe --api host --faces-decomp 2x2x1
done_testing
