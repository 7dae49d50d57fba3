#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One command for a fresh Debian 12 machine:
#   scripts/quickstart.sh run [nodebw run options]   install, build, run the main job
#   scripts/quickstart.sh test                       install, build, run every test twice:
#                                                    plain and with ASan+UBSan
# Builds go to build/ and build-asan/; extra meson options can be given in NODEBW_MESON_ARGS
# (for example -Doffload_targets=x86_64-pc-linux-gnu,sm_90).
set -eu
cd "$(dirname "$0")/.."

# The vendor runtimes' development packages let CI compile the HIP and Level Zero backends
# (they run here without a device and record why); CUDA comes from /usr/local/cuda when the
# machine has the toolkit. Topology needs hwloc; libnuma and libxml2 are optional extras.
packages="clang-19 libomp-19-dev libclang-rt-19-dev meson ninja-build pkg-config valgrind \
libjansson-dev libgsl-dev libcmocka-dev python3 python3-jsonschema libamdhip64-dev libze-dev \
libhwloc-dev libnuma-dev libxml2-dev gnuplot-nox"

install_missing() {
	missing=""
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "quickstart: installing$missing"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -q
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
}

build() { # build DIR [meson options]
	dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		# shellcheck disable=SC2086
		CC=clang-19 meson setup "$dir" "$@" ${NODEBW_MESON_ARGS:-}
	fi
	ninja -C "$dir"
}

# Counts the tests of one build from meson's log; appends to the totals.
passed=0
failed=0
run_tests() { # run_tests DIR
	meson test -C "$1" --print-errorlogs --num-processes 1 || true
	counts=$(/usr/bin/python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
ok = bad = 0
try:
    for line in open(sys.argv[1]):
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            ok += 1
        elif r != "SKIP":
            bad += 1
except OSError:
    bad += 1
print(ok, bad)
PY
)
	passed=$((passed + ${counts% *}))
	failed=$((failed + ${counts#* }))
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
run)
	install_missing
	build build
	exec ./build/tools/nodebw run "$@"
	;;
test)
	install_missing
	if build build; then run_tests build; else failed=$((failed + 1)); fi
	if build build-asan -Dsanitize=address,undefined; then run_tests build-asan
	else failed=$((failed + 1)); fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	;;
*)
	echo "usage: scripts/quickstart.sh run [nodebw run options] | test" >&2
	exit 2
	;;
esac
