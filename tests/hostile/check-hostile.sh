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
edit dev-pci-hex "d['devices'][0]['pci_id'] = {'vendor': '10de', 'device': '23x0'}" "$fx/results-dgx-h100-handmade.json"
edit sample-neg "d['measurements'][0]['samples_s'][0] = -1.0"
edit sample-huge "d['measurements'][0]['samples_s'][1] = 1e308"
edit sample-tiny "d['measurements'][0]['samples_s'][0] = 1e-300"
# Stored figures that disagree with the samples, numbers out of range, unlisted endpoints.
htod="for m in d['measurements']:
    if m['direction'] == 'htod' and m['concurrency'] == 'single':"
edit med-huge "$htod m['gbps']['median'] = 1e308"
edit med-neg "$htod m['gbps']['median'] = -5"
edit med-null "$htod m['gbps']['median'] = None"
edit stream-med "$htod m['streams'][0]['gbps']['median'] = 1e308"
edit red-med-huge "$htod m['gbps']['median'] = 1e308" "$fx/results-run-paired-2cpu-vm.json"
edit red-scaled "$htod
        for k in ('median', 'min', 'max'): m['gbps'][k] *= 1000" "$fx/results-run-paired-2cpu-vm.json"
th="for m in d['measurements']:
    if (m.get('theoretical') or {}).get('gbps'):"
edit th-tiny "$th m['theoretical']['gbps'] = 5e-324" "$fx/results-dgx-h100-handmade.json"
edit th-neg "$th m['theoretical']['gbps'] = -1" "$fx/results-dgx-h100-handmade.json"
edit th-huge "$th m['theoretical']['gbps'] = 1e300" "$fx/results-dgx-h100-handmade.json"
edit th-pair "d['topology']['pairs'][0]['theoretical_gbps'] = 5e-324" "$fx/results-dgx-h100-handmade.json"
edit th-link "d['topology']['devices'][0]['host_link']['theoretical_gbps'] = 1e9" \
	"$fx/results-dgx-h100-handmade.json"
edit end-unlisted "d['measurements'][0]['streams'][0]['dst'] = 9"
edit bytes-zero "d['measurements'][0]['bytes'] = 0"
edit count-neg "d['measurements'][0]['gbps']['n'] = -3; d['measurements'][0]['samples_s'] = []"
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
thr thr-site-huge '"site": "x", ' '{"gpu": "*", "direction": "htod", "min_gbps": 10000}'
thr thr-htod-none '' '{"gpu": "*", "direction": "htod", "host_mem": "none", "min_gbps": 1}'
thr thr-any-pass '' '{"gpu": "*", "direction": "htod", "min_gbps": 1e-6}'
thr thr-pci-bad '' '{"gpu": "*", "pci_ids": ["10de-2330"], "direction": "htod", "min_gbps": 1}'
# Strings with terminal escapes and spreadsheet formulas in every string field a reader shows.
esc="'\\x1b]0;PWNED\\x07\\x1b[31m=cmd|x \\u009b2J\\x7f'"
edit esc "d['devices'][0]['kind'] = $esc + 'kind'
d['devices'][0]['name'] = $esc + 'name'
for k in ('hostname', 'cpu_model', 'kernel'): d['machine'][k] = $esc + k
for m in d['measurements']: m['path'] = $esc + m['path']"
mkdir -p "$tmp/fleet-esc/a" "$tmp/fleet-esc/b"
cp "$fx/results-omp-host-2cpu-vm.json" "$tmp/fleet-esc/a/results.json"
cp "$tmp/esc.json" "$tmp/fleet-esc/b/results.json"
# A control character (C0 but LF, DEL, C1 as UTF-8) in FILE; a CSV cell starting a formula.
controls() { LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]\|\302[\200-\237]')" "$1"; }
formula() { case $1 in *.csv) grep -Eq '(^|,)"?(=|@|\+[^0-9.])' "$1" ;; *) false ;; esac; }
# Folders of node folders: one named "report" (in nodes/ and bare); none readable.
mkdir -p "$tmp/fleet-rep/nodes/report" "$tmp/fleet-rep/nodes/b" "$tmp/bare-rep/report" \
	"$tmp/fleet-bad/a" "$tmp/fleet-bad/b"
for f in fleet-rep/nodes/report fleet-rep/nodes/b bare-rep/report; do
	cp "$fx/results-omp-host-2cpu-vm.json" "$tmp/$f/results.json"
done
echo '{' >"$tmp/fleet-bad/a/results.json"
echo '{"schema": "other"}' >"$tmp/fleet-bad/b/results.json"
# Results folders that hold results already: a solver run's, and a results.json not nodebw's.
"$NODEBW" heat --n 16 --steps 2 --quiet --output "$tmp/heat-o" >/dev/null 2>&1
mkdir -p "$tmp/foreign"
echo '{"mine": true}' >"$tmp/foreign/results.json"
trim() { printf '%s' "$1" | sed 's/^ *//; s/ *$//'; }

run_case() { # STATUS PATTERN ENVIRONMENT ARGUMENTS
	want_st=$1 want=$2 envs=$3 args=$4 out="$tmp/out"
	case $args in *' >/dev/full') args=${args% >/dev/full} out=/dev/full ;; esac
	: >"$tmp/out"
	: >"$tmp/stamp"
	eval "set -- $args"
	# shellcheck disable=SC2086 # the environment words are split on purpose
	# NODEBW_TEST_ULIMIT_F=BLOCKS in ENVIRONMENT: a file-size limit, as a full disk.
	fsize=$(printf '%s\n' $envs | sed -n 's/^NODEBW_TEST_ULIMIT_F=//p')
	(ulimit -f "${fsize:-unlimited}" && cd "$tmp" && timeout 30 env $envs "$NODEBW" "$@") \
		>"$out" 2>"$tmp/err" </dev/null
	st=$?
	lines=$(wc -l <"$tmp/err")
	what="${envs:+$envs }nodebw $args"
	[ "$out" = /dev/full ] && what="$what >/dev/full"
	if [ "$want_st" -eq 0 ]; then
		clean_case
		return
	fi
	if [ "$st" -eq "$want_st" ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	   grep -q "^nodebw: error: .*$want" "$tmp/err"; then
		ok "$what: exit $st, one line ($(cat "$tmp/err"))"
	else
		not_ok "$what: status $st (wanted $want_st; 124 = hung, 134 = abort), $lines stderr lines, wanted '$want'"
		sed 's/^/#   /' "$tmp/err" "$tmp/out" | head -5 | tee /dev/stderr
	fi
}

clean_case() { # status 0: PATTERN on stdout's first line, no control byte in what it wrote
	# (stdout, stderr and the text files: pages, tables, documents)
	dirty=""
	for f in "$tmp/out" "$tmp/err" $(find "$tmp" -type f -newer "$tmp/stamp" \( -name '*.md' \
	    -o -name '*.html' -o -name '*.csv' -o -name '*.txt' -o -name '*.json' \)); do
		if controls "$f" || formula "$f"; then dirty="$dirty ${f#"$tmp/"}"; fi
	done
	first=$(grep -m 1 . "$tmp/out")
	if [ "$st" -eq 0 ] && [ -z "$dirty" ] && printf '%s\n' "$first" | grep -q "$want"; then
		ok "$what: exit 0, clean ($first)"
	else
		not_ok "$what: status $st (wanted 0), first line '$first' (wanted '$want'), control characters or formulas in:${dirty:- none}"
		sed 's/^/#   /' "$tmp/err" | head -5 | tee /dev/stderr
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
