#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Resource limits name themselves: under an address-space limit (ulimit -v) nodebw keeps
# the OpenMP runtime out of the limit's way (libomp used to abort with "OMP: Error #34" or
# crash in depobj/disassociate once the buffers had taken the room) and reports the sizes
# that do not fit as not run, naming RLIMIT_AS; a page-locking limit is named as
# RLIMIT_MEMLOCK with its value; sizes past the machine's memory name MemAvailable, never
# RLIMIT_MEMLOCK. The address-space checks need the plain build: the sanitisers' shadow
# memory cannot live under ulimit -v.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small="--sizes 8,1MiB,64MiB --reps 2 --max-reps 3 --min-time 0.001 --quiet"
# The long tier probes everything under two address-space limits; the fast tier one limit
# and the OpenMP runtime on two devices (what the limit used to break) plus the host.
limits="1200000 1600000"
if [ "${NODEBW_TIER:-long}" = fast ]; then
	limits=1200000
	apis=omp,host
	[ "${NODEBW_OPENMP:-1}" = 0 ] && apis=host
	small="$small --api $apis --devices 0,1 --probe htod,p2p --mode sync,async --threads 1"
fi

state_of() { # state_of results.json: the run's state, or "unreadable"
	python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['state'])" "$1" \
		2>/dev/null || echo unreadable
}

if [ -z "${NODEBW_SANITIZE:-}" ]; then
	for kib in $limits; do
		# shellcheck disable=SC2086
		(ulimit -v $kib && exec timeout 300 "$NODEBW" probe $small \
			--output "$tmp/as$kib") >"$tmp/as$kib.out" 2>"$tmp/as$kib.err"
		st=$?
		check "ulimit -v $kib: probe ends by itself, 0 or 3 (status $st)" \
			test "$st" -eq 0 -o "$st" -eq 3
		check "ulimit -v $kib: results.json says complete" \
			test "$(state_of "$tmp/as$kib/results.json")" = complete
		if [ "$st" -eq 3 ]; then
			check "ulimit -v $kib: every failure names RLIMIT_AS" python3 -c "
import json, sys
ms = [m for m in json.load(open(sys.argv[1]))['measurements'] if m.get('error')]
sys.exit(not ms or not all('RLIMIT_AS (ulimit -v)' in m['error'] for m in ms))" \
				"$tmp/as$kib/results.json"
		fi
		check "ulimit -v $kib: no runtime abort" sh -c "! grep -q 'OMP: Error' '$tmp/as$kib.err'"
	done
	# Named sizes that cannot fit are bad input, refused before anything runs.
	(ulimit -v 1000000 && exec timeout 60 "$NODEBW" probe --api host --sizes 256MiB \
		--output "$tmp/as-small") >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "ulimit -v 1000000 --sizes 256MiB: exit 2, one line naming RLIMIT_AS (status $st)" \
		sh -c "[ $st -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'RLIMIT_AS (ulimit -v)' '$tmp/err'"
	sed 's/^/#   /' "$tmp/err"
	# Out of memory while parsing an input file is said so (jansson itself gives no text).
	python3 "$NODEBW_SOURCE/tests/cli/make-big-results.py" \
		"$NODEBW_SOURCE/tests/fixtures/results-run-2cpu-vm.json" "$tmp/big.json" 50 >/dev/null
	(ulimit -v 250000 && exec timeout 60 "$NODEBW" gap "$tmp/big.json") >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "ulimit -v 250000, gap on 50 MB: exit 2, one line 'out of memory reading/parsing' (status $st)" \
		sh -c "[ $st -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -Eq 'out of memory (parsing|reading) .*big.json \\((50[0-9]* bytes of JSON|[0-9]+ bytes read)' '$tmp/err'"
	sed 's/^/#   /' "$tmp/err"
else
	ok "# SKIP address-space limits in a sanitised build (shadow memory)"
fi

# Past the machine's memory: MemAvailable is the limit named, not RLIMIT_MEMLOCK.
usage_error_matching "--sizes 1TiB names MemAvailable" "MemAvailable" \
	probe --api host --sizes 1TiB --output "$tmp/big"
check "--sizes 1TiB does not blame RLIMIT_MEMLOCK" sh -c "! grep -q MEMLOCK '$tmp/err'"

# Page-locking: root may lock without limit (CAP_IPC_LOCK), so the capability is dropped.
# AddressSanitizer intercepts mlock and makes it succeed: plain build only.
if [ -n "${NODEBW_SANITIZE:-}" ]; then
	ok "# SKIP page-locking limit in a sanitised build (ASan's mlock does nothing)"
elif command -v setpriv >/dev/null 2>&1; then
	(ulimit -l 64 && exec setpriv --inh-caps=-ipc_lock --ambient-caps=-ipc_lock \
		--bounding-set=-ipc_lock timeout 60 "$NODEBW" probe --api host --probe htod \
		--mode sync --threads 1 --host-mem pinned,pageable --devices 0 --sizes 8,1MiB \
		--reps 2 --max-reps 2 --quiet --output "$tmp/ml") >"$tmp/ml.out" 2>"$tmp/ml.err"
	st=$?
	check "ulimit -l 64: pinned 1 MiB fails, the rest is measured (status $st)" test "$st" -eq 3
	check "ulimit -l 64: the error names RLIMIT_MEMLOCK and its value" \
		grep -q "pinned.*1 MiB: .*mlock.*RLIMIT_MEMLOCK (ulimit -l) to 65536 bytes" "$tmp/ml.err"
	check "ulimit -l 64: pageable memory is measured and verified" python3 -c "
import json, sys
ms = json.load(open(sys.argv[1]))['measurements']
ok = [m for m in ms if m['host_mem'] == 'pageable' and m['verification']['status'] == 'passed']
bad = [m for m in ms if m.get('error') and 'MEMLOCK' in m['error'] and m['host_mem'] != 'pinned']
sys.exit(len(ok) != 2 or bool(bad))" "$tmp/ml/results.json"
else
	ok "# SKIP page-locking limit: no setpriv"
fi
done_testing
