#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Verification per repetition: a memcpy shim (flipshim.c, LD_PRELOAD) flips one bit in one
# chosen copy of the host backend. HtoD sync, one device, warm-up 1, 3 repetitions: the
# copies of the size are the warm-up (1), the poisoning of the destination (2), then per
# repetition r the timed copy and, when r is checked, the read-back and the next poisoning.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args="probe --api host --probe htod --mode sync --host-mem pageable --threads 1 --devices 0
      --warmup 1 --reps 3 --max-reps 3 --no-hht-sweep --quiet"

# probe NAME SIZE CALL [ARGS]: run with the N-th copy of SIZE bytes corrupted (CALL empty:
# none), with $args or ARGS.
probe() {
	# shellcheck disable=SC2086
	env LD_PRELOAD="$NBW_FLIPSHIM" NBW_FLIP_BYTES="$2" NBW_FLIP_CALL="$3" \
		"$NODEBW" ${4:-$args} --sizes "$2" --output "$tmp/$1" >"$tmp/$1.out" 2>&1
	echo $? >"$tmp/$1.rc"
	python3 - "$tmp/$1/results.json" >"$tmp/$1.ver" 2>&1 <<'PY'
import json, sys
(m,) = json.load(open(sys.argv[1]))["measurements"]
v = m["verification"]
print(v["status"], v.get("checked_repetitions", "-"), "|", v["detail"])
PY
	diag "$1: exit $(cat "$tmp/$1.rc"): $(cat "$tmp/$1.ver")"
}
rc() { test "$(cat "$tmp/$1.rc")" -eq "$2"; }
ver() { grep -q "$2" "$tmp/$1.ver"; }

probe clean 65536 ""
check "no corruption: exit 0" rc clean 0
check "no corruption: passed, repetitions 1-3 checked" ver clean "^passed 1-3 "

probe warmup 65536 1
check "corrupt warm-up copy: exit 0 (the poison hides it)" rc warmup 0
check "corrupt warm-up copy: passed" ver warmup "^passed "

probe rep1 65536 3
check "corrupt repetition 1 of 3: exit 3" rc rep1 3
check "corrupt repetition 1 of 3: failed, naming repetition 1" \
	ver rep1 "^failed 1-3 | stream 0: repetition 1 of 3: destination differs .* at byte 32768"

probe rep2 65536 6
check "corrupt repetition 2 of 3: exit 3" rc rep2 3
check "corrupt repetition 2 of 3: failed, naming repetition 2" ver rep2 "repetition 2 of 3"

# Above 1 MiB only the first and the last repetitions are checked: copies are warm-up (1),
# poison (2), rep 1 (3), read-back (4), rep 2 (5), poison (6), rep 3 (7), read-back (8).
big=2097152
probe big-rep3 $big 7
check "2 MiB, corrupt repetition 3: exit 3" rc big-rep3 3
check "2 MiB, corrupt repetition 3: failed, repetitions 1,3 checked" \
	ver big-rep3 "^failed 1,3 | stream 0: repetition 3 of 3"
probe big-rep1 $big 3
check "2 MiB, corrupt repetition 1: failed, naming repetition 1" ver big-rep1 "repetition 1 of 3"
probe big-rep2 $big 5
check "2 MiB, corrupt repetition 2 (not checked): passed, says 1,3" ver big-rep2 "^passed 1,3 "
check "the failed measurement is listed on stderr" grep -qi "verif" "$tmp/rep1.out"

# An adaptive count (no --reps) names its last repetition before it runs: here the count
# ends at --max-reps 6 (--min-time 10 keeps the interval from ending it earlier, no time
# cap), so the decision after repetition 5 poisons the destination for 6. Copies: warm-up
# (1), poison (2), rep 1 (3), read-back (4), reps 2-5 (5-8), poison (9), rep 6 (10),
# read-back (11).
adaptive="probe --api host --probe htod --mode sync --host-mem pageable --threads 1
	  --devices 0 --warmup 1 --max-reps 6 --min-time 10 --max-time 0 --no-hht-sweep --quiet"
probe ad-clean $big "" "$adaptive"
check "adaptive, 2 MiB: passed, repetitions 1,6 checked" ver ad-clean "^passed 1,6 "
probe ad-last $big 10 "$adaptive"
check "adaptive, 2 MiB, corrupt the last repetition: exit 3" rc ad-last 3
check "adaptive, 2 MiB, corrupt the last repetition: failed, naming repetition 6 of 6" \
	ver ad-last "^failed 1,6 | stream 0: repetition 6 of 6"
probe ad-mid $big 8 "$adaptive"
check "adaptive, 2 MiB, corrupt repetition 5 (not checked): passed" ver ad-mid "^passed 1,6 "
check "adaptive: the measurement says why it stopped" python3 -c "
import json, sys
(m,) = json.load(open(sys.argv[1]))['measurements']
assert m['repetitions'] == 6, m['repetitions']
assert m['stop'] in ('max repetitions 6', 'interval within +-1 %'), m['stop']
assert m['converged'] == (m['stop'] != 'max repetitions 6'), m
assert m['median_ci']['ranks'] == [1, 6], m['median_ci']
" "$tmp/ad-clean/results.json"
probe ad-small 65536 "" "$adaptive"
check "adaptive, 64 KiB: every repetition checked" ver ad-small "^passed 1-[1-9][0-9]* "
python3 "$NODEBW_SOURCE/tests/integration/validate_results.py" \
	"$NODEBW_SOURCE/doc/results.schema.json" "$tmp/rep1/results.json" \
	>"$tmp/val" 2>&1
check "results.json of the failed run is valid" test $? -eq 0
sed 's/^/#   /' "$tmp/val"

# All-to-all (every ordered pair at once; two host regions: 0->1 and 1->0 from two threads
# released together): each stream's bytes are verified; the first copy of the size is one
# stream's repetition 1 (which one depends on which thread copies first).
a2a="probe --api host --probe p2p --mode sync --threads all --devices 0,1 --warmup 1 --reps 3
     --max-reps 3 --no-hht-sweep --quiet"
probe a2a-clean 65536 "" "$a2a"
check "all-to-all, no corruption: passed, both streams checked" \
	ver a2a-clean "^passed 1-3 | every destination byte equals the source pattern (2 streams"
probe a2a-rep1 65536 1 "$a2a"
check "all-to-all, one stream's repetition 1 corrupt: exit 3" rc a2a-rep1 3
check "all-to-all, one stream's repetition 1 corrupt: failed, naming the stream" \
	ver a2a-rep1 "^failed 1-3 | stream [01]: repetition 1 of 3: destination differs"
done_testing
