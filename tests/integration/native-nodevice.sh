#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The vendor backends without a device or driver: each built plugin is loaded, finds no
# device, and is recorded as skipped with its runtime's own reason. Asked for by name
# (--api cuda) the run then fails (exit 1, the reason on stderr); with the default
# (--api all) it skips and succeeds. A plugin that cannot be found is recorded with the
# reason too. Where a GPU is present (a device machine), the no-device checks of that API
# are skipped.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
plugdir=$(dirname "$NODEBW")/../bw_native
for api in cuda hip ze; do
	case $api in
	cuda) # no libcuda.so.1 at all: the backend says so; a driver without a device: the
	      # runtime's own reason
		if $py -c "import ctypes; ctypes.CDLL('libcuda.so.1')" 2>/dev/null; then
			call=cudaGetDeviceCount
		else
			call="no CUDA driver: libcuda.so.1 not found"
		fi ;;
	hip) call=hipGetDeviceCount ;;
	ze) call=zeInit ;;
	esac
	if [ ! -f "$plugdir/nodebw-$api.so" ]; then
		ok "# SKIP $api plugin not built here"
		continue
	fi
	"$NODEBW" probe --api "$api" --sizes 8 --output "$tmp/$api" >"$tmp/$api.out" 2>"$tmp/$api.err"
	st=$?
	if grep -q "^$api  *[0-9]" "$tmp/$api.out" 2>/dev/null ||
		$py -c "import json,sys; d=json.load(open('$tmp/$api/results.json')); sys.exit(0 if any(x['api']=='$api' for x in d['devices']) else 1)" 2>/dev/null; then
		ok "# SKIP $api has a device on this machine"
		continue
	fi
	check "$api asked for by name without a device: exit 1 (status $st)" test $st -eq 1
	check "$api: one line on stderr with the reason" sh -c "test \$(wc -l <'$tmp/$api.err') -eq 1 &&
		grep -Eq '^nodebw: error: an API asked for with --api cannot run: $api: ($call)' '$tmp/$api.err'"
	check "$api: recorded as skipped with the runtime's reason ($call)" $py -c "
import json, re, sys
d = json.load(open('$tmp/$api/results.json'))
s = [x for x in d['skipped'] if x['api'] == '$api' and x['what'] == 'backend']
sys.exit(0 if len(s) == 1 and re.match('$call', s[0]['reason']) else 1)"
	check "$api: reason printed" grep -Eq "$api backend: skipped: ($call)" "$tmp/$api.out"
	check "$api: 'nodebw list' says why" sh -c "'$NODEBW' list | grep -Eq '^  $api  *skipped: ($call)'"
	"$NODEBW" probe --api all --probe htod --mode sync --threads 1 --host-mem pageable \
		--sizes 8 --reps 1 --max-reps 1 --warmup 0 --output "$tmp/$api-all" >"$tmp/$api-all.out" 2>&1
	check "$api skipped under --api all: the run still succeeds" test $? -eq 0
	diag "$api: $(grep 'skipped' "$tmp/$api.out" | head -n 1)"
done
# A copy of the executable away from the build tree finds no plugin folder beside it.
mkdir "$tmp/bin" "$tmp/empty" && cp "$NODEBW" "$tmp/bin/nodebw"
NODEBW_PLUGIN_DIR=$tmp/empty "$tmp/bin/nodebw" probe --sizes 8 --reps 1 --max-reps 1 \
	--warmup 0 --mode sync --threads 1 --probe htod --output "$tmp/np" >"$tmp/np.out" 2>&1
check "run with no plugin to be found still succeeds" test $? -eq 0
for api in cuda hip ze; do
	[ -f "$plugdir/nodebw-$api.so" ] || continue
	NODEBW_PLUGIN_DIR=$tmp/empty "$tmp/bin/nodebw" probe --api "$api" --sizes 8 \
		--output "$tmp/np-$api" >/dev/null 2>"$tmp/np-$api.err"
	check "--api $api with its plugin not to be found: exit 1, says so" sh -c "test $? -eq 1 &&
		grep -q 'cannot run: $api: plugin nodebw-$api.so not found' '$tmp/np-$api.err'"
done
check "missing plugins recorded with the reason, the other APIs measured" $py -c "
import json, sys
d = json.load(open('$tmp/np/results.json'))
apis = {m['api'] for m in d['measurements']}
miss = [s for s in d['skipped'] if s['what'] == 'backend' and 'not found' in s['reason']]
built = [a for a in ('cuda', 'hip', 'ze') if __import__('os').path.exists('$plugdir/nodebw-' + a + '.so')]
sys.exit(0 if 'host' in apis and len(miss) == len(built) else 1)"
# One NUMA node: --bind remote is skipped with the reason, and the run still succeeds.
if [ "$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)" -le 1 ]; then
	"$NODEBW" probe --api host --probe htod --mode sync --threads 1 --sizes 8 --bind remote \
		--output "$tmp/remote" >"$tmp/remote.out" 2>&1
	check "--bind remote on one NUMA node: exit 0, skipped with the reason" $py -c "
import json, sys
d = json.load(open('$tmp/remote/results.json'))
s = [x for x in d['skipped'] if 'bind remote' in x['what']]
sys.exit(0 if s and 'remote' in s[0]['reason'] and not d['measurements'] else 1)"
fi
"$NODEBW" probe --api nosuchapi --sizes 8 >"$tmp/bad.out" 2>"$tmp/bad.err"
check "unknown API is a usage error (exit 2, one line)" sh -c "test $? -eq 2 && test \$(wc -l <'$tmp/bad.err') -eq 1 && ! test -s '$tmp/bad.out'"
done_testing
