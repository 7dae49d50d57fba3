#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs the hostile-input table tests/hostile/cases.txt (its head says the format): each case
# is one TAP line, which names the case and, when it fails, what nodebw did instead.
. "$NODEBW_SOURCE/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx="$NODEBW_SOURCE/tests/fixtures"
cal="$NODEBW_SOURCE/doc/examples/calibration-table6-h100.json"
: >"$tmp/afile" # a file where a folder is named
# Edited copies of a recorded results file, named in the cases as $tmp/NAME.json.
edit() { # edit NAME PYTHON [SOURCE] (d: the document; SOURCE: a recorded results file)
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$2
json.dump(d, open(sys.argv[2], 'w'))" "${3:-$fx/results-omp-host-2cpu-vm.json}" "$tmp/$1.json"
}
edit dev-neg "d['devices'][0]['id'] = -1"
edit dev-twice "d['devices'].append(dict(d['devices'][0]))"
edit dev-noapi "del d['devices'][1]['api']"
edit sample-neg "d['measurements'][0]['samples_s'][0] = -1.0"
edit sample-huge "d['measurements'][0]['samples_s'][1] = 1e308"
edit run-sec-huge "d['solver_runs'][0]['seconds'] = 1e308" "$fx/results-run-2cpu-vm.json"
edit run-sample-neg "d['solver_runs'][0]['samples_s'][0] = -0.5" "$fx/results-run-2cpu-vm.json"
edit cal-kbar-huge "d['k']['kbar'] = 1e308" "$cal"
edit cal-beta-denormal "d['transfers']['p2p']['beta_gbps'] = 1e-320" "$cal"
edit cal-alpha-big "d['transfers']['p2p']['alpha_s'] = 1e6" "$cal"
edit cal-corun-form "d['corun'] = [{'form': 'two-threads', 'G': 2, 'at_once': 2, 'n': 512, 'step_s': 1e-3}]" "$cal"
edit cal-corun-once "d['corun'] = [{'form': 'per-device', 'G': 2, 'at_once': 3, 'n': 512, 'step_s': 1e-3}]" "$cal"
edit cal-corun-step "d['corun'] = [{'form': 'one-thread', 'G': 2, 'at_once': 2, 'n': 512, 'step_s': 1e9}]" "$cal"
# Hand-made thresholds files, named in the cases as $tmp/NAME.json.
thr() { # thr NAME HEAD RULE: a thresholds file with HEAD's extra keys and one rule
	printf '{"schema": "nodebw-thresholds", "version": 1, %s"rules": [%s]}\n' "$2" "$3" \
		>"$tmp/$1.json"
}
thr thr-sites '"sites": "x", ' '{"gpu": "*", "direction": "htod", "min_gbps": 1}'
thr thr-site-num '"site": 5, ' '{"gpu": "*", "direction": "htod", "min_gbps": 1}'
thr thr-api-case '' '{"gpu": "*", "api": "CUDA", "direction": "htod", "min_gbps": 1}'
thr thr-p2p-pinned '' '{"gpu": "*", "direction": "p2p", "host_mem": "pinned", "min_gbps": 999999}'
thr thr-htod-none '' '{"gpu": "*", "direction": "htod", "host_mem": "none", "min_gbps": 1}'
trim() { printf '%s' "$1" | sed 's/^ *//; s/ *$//'; }

run_case() { # STATUS PATTERN ENVIRONMENT ARGUMENTS
	want_st=$1 want=$2 envs=$3 args=$4 out="$tmp/out"
	case $args in *' >/dev/full') args=${args% >/dev/full} out=/dev/full ;; esac
	: >"$tmp/out"
	eval "set -- $args"
	# shellcheck disable=SC2086 # the environment words are split on purpose
	(cd "$tmp" && timeout 30 env $envs "$NODEBW" "$@") >"$out" 2>"$tmp/err" </dev/null
	st=$?
	lines=$(wc -l <"$tmp/err")
	what="${envs:+$envs }nodebw $args"
	[ "$out" = /dev/full ] && what="$what >/dev/full"
	if [ "$st" -eq "$want_st" ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	   grep -q "^nodebw: error: .*$want" "$tmp/err"; then
		ok "$what: exit $st, one line ($(cat "$tmp/err"))"
	else
		not_ok "$what: status $st (wanted $want_st; 124 = hung, 134 = abort), $lines stderr lines, wanted '$want'"
		sed 's/^/#   /' "$tmp/err" "$tmp/out" | head -5 | tee /dev/stderr
	fi
}

while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	st=$(trim "$(printf '%s' "$line" | cut -d'|' -f1)")
	pat=$(trim "$(printf '%s' "$line" | cut -d'|' -f2)")
	envs=$(trim "$(printf '%s' "$line" | cut -d'|' -f3)")
	args=$(trim "$(printf '%s' "$line" | cut -d'|' -f4-)")
	run_case "$st" "$pat" "$envs" "$args"
done <"$NODEBW_SOURCE/tests/hostile/cases.txt"
done_testing
