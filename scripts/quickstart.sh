#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One command for a fresh Debian 12 machine:
#   scripts/quickstart.sh run [nodebw run options]   install, build, run the main job
#   scripts/quickstart.sh test                       install, build and run the fast tier:
#                                                    every test outside the suite 'long',
#                                                    plain, with ASan+UBSan (the same build
#                                                    runs the fuzz targets, 10 s each) and
#                                                    without OpenMP offload (minutes)
#   scripts/quickstart.sh test --long                the fast tier, then the long one (suite
#                                                    'long': many kills, resource limits,
#                                                    whole runs, valgrind, the fleet under
#                                                    Slurm, longer fuzzing) and the GPU
#                                                    flavour (sm_90) packed and run in a
#                                                    Debian 13 root
# Builds go to build/, build-asan/ and (tests only) build-nooffload/ and build-gpu/; extra
# meson options can be given in NODEBW_MESON_ARGS (for example -Doffload_targets=sm_90). On
# a GPU node the default offload target (auto) is the GPUs that nvptx-arch / amdgpu-arch
# find, so the same two commands build and run nodebw for them; for NVIDIA GPUs they first
# install the CUDA 11.8 device linker that LLVM 19's runtime can load
# (scripts/cuda-nvptx-toolkit.sh, README "GPUs"). doc/testing.md says what each tier holds.
set -eu
cd "$(dirname "$0")/.."

# Every package the build and the tests use, named here: nothing may come in as a
# Recommends (apt-get runs with --no-install-recommends, as on a minimal system). clang-19
# only recommends clang-tools-19, which holds clang-offload-packager and
# clang-linker-wrapper (every OpenMP offload link runs them) and nvptx-arch/amdgpu-arch
# (offload_targets=auto). The vendor runtimes' development packages let CI compile the HIP
# and Level Zero backends (they run here without a device and record why); CUDA comes from
# /usr/local/cuda when the machine has the toolkit. Topology needs hwloc; libnuma and
# libxml2 are optional extras. procps gives the tests pgrep (a minimal Debian lacks it).
packages="clang-19 clang-tools-19 libomp-19-dev libclang-rt-19-dev meson ninja-build \
pkg-config valgrind procps \
libjansson-dev libgsl-dev libcmocka-dev python3 python3-jsonschema libamdhip64-dev libze-dev \
libhwloc-dev libnuma-dev libxml2-dev gnuplot-nox openmpi-bin libopenmpi-dev"
# The fleet's tests run a real one-node Slurm (munged, slurmctld, slurmd on localhost); the
# portable bundle is made with patchelf, xz and binutils and tried in a debootstrap root;
# llvm-19 has the symbolizer the sanitizer builds' reports use (tests/meson.build).
# bsdutils gives script(1), the terminal of tests/cli/check-run-terminal.sh.
test_packages="bsdutils slurmctld slurmd slurm-client munge patchelf xz-utils binutils debootstrap llvm-19 chromium chromium-driver python3-selenium"

install_missing() { # install_missing [extra packages]
	missing=""
	for p in $packages "$@"; do
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
	b0=$(date +%s)
	if [ ! -f "$dir/build.ninja" ]; then
		# shellcheck disable=SC2086
		CC=clang-19 meson setup "$dir" "$@" ${NODEBW_MESON_ARGS:-}
	fi
	ninja -C "$dir" || return 1
	echo "quickstart: $dir built in $(($(date +%s) - b0)) s"
}

# Counts the tests of one build from meson's log; appends to the totals. Tests run two at a
# time; those that time something are marked is_parallel: false and run alone.
passed=0
failed=0
run_tests() { # run_tests DIR [meson test options]
	dir=$1; shift
	r0=$(date +%s)
	meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || true
	echo "quickstart: meson test -C $dir $* took $(($(date +%s) - r0)) s"
	counts=$(/usr/bin/python3 - "$dir/meson-logs/testlog.json" <<'PY'
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

# The OpenMP NVPTX device link needs a CUDA toolkit older than 13 with LLVM 19 (README
# "GPUs"): installed when the build is for NVIDIA GPUs (asked for, or found by nvptx-arch).
nvptx_toolkit() { # nvptx_toolkit [always]
	if [ "${1:-}" != always ]; then
		case " ${NODEBW_MESON_ARGS:-} " in
		*sm_*) ;;
		*) /usr/lib/llvm-19/bin/nvptx-arch 2>/dev/null | grep -q '^sm_' || return 0 ;;
		esac
	fi
	scripts/cuda-nvptx-toolkit.sh
}

# libomptarget's CUDA plugin dlopens the unversioned libcuda.so, which a driver-only install
# may lack (only libcuda.so.1): give it one in the build folder, as the CUDA toolkit's
# development symlink would.
cuda_shim() { # cuda_shim BUILD
	command -v ldconfig >/dev/null 2>&1 || return 0
	real=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
	[ -n "$real" ] || return 0
	ldconfig -p | grep -q 'libcuda\.so ' && return 0
	mkdir -p "$1/cuda-shim" && ln -sf "$real" "$1/cuda-shim/libcuda.so"
	LD_LIBRARY_PATH="$1/cuda-shim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export LD_LIBRARY_PATH
}

# The GPU flavour for an H100/H200 (sm_90): its build checks every embedded device image as
# LLVM 19's runtime will read it; then its portable bundle runs in a Debian 13 root (newer
# glibc) beside that root's own programs (tests/bundle/check-bundle.sh). Long tier.
gpu_bundle() {
	if nvptx_toolkit always && build build-gpu -Doffload_targets=sm_90 -Dhip=disabled \
		-Dlevel_zero=disabled -Dmpi=disabled -Dtests=disabled; then
		passed=$((passed + 1))
		rm -rf build-gpu/dist
		if NODEBW_BUNDLE_XZ="-T0 -1" NODEBW_BUNDLE_OUT=build-gpu/dist \
			scripts/make-bundle.sh --build build-gpu; then
			tests/bundle/check-bundle.sh build-gpu/dist/nodebw-*.tar.xz | tee build-gpu/bundle-check.tap
			# grep -c exits 1 when it counts 0, which set -e would take for a failure.
			passed=$((passed + $(grep -c '^ok' build-gpu/bundle-check.tap || true)))
			failed=$((failed + $(grep -c '^not ok' build-gpu/bundle-check.tap || true)))
			grep -q '^1\.\.' build-gpu/bundle-check.tap || failed=$((failed + 1))
		else failed=$((failed + 1)); fi
	else failed=$((failed + 1)); fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
run)
	install_missing
	nvptx_toolkit
	build build
	cuda_shim "$PWD/build"
	exec ./build/tools/nodebw run "$@"
	;;
test)
	long=0
	case "${1:-}" in
	--long) long=1 ;;
	"") ;;
	*) echo "usage: scripts/quickstart.sh test [--long]" >&2; exit 2 ;;
	esac
	t0=$(date +%s)
	# shellcheck disable=SC2086
	install_missing $test_packages
	echo "quickstart: packages ready after $(($(date +%s) - t0)) s"
	# The plain build is the one users run. The sanitised one (ASan+UBSan, and libFuzzer's
	# coverage so that it also runs the fuzz targets) and the one without OpenMP offload
	# are built without optimisation: they compile several times faster and their tests
	# time nothing.
	built=""
	if build build; then cuda_shim "$PWD/build"; built="$built plain"
	else failed=$((failed + 1)); fi
	if build build-asan -Dfuzz=true -Doptimization=0; then built="$built asan"
	else failed=$((failed + 1)); fi
	# Without OpenMP offload, asked for explicitly: it must say so (the unit tests, the CLI
	# conformance and the no-offload check); and without MPI, whose fleet still runs over the
	# shared file system.
	if build build-nooffload -Dopenmp_offload=disabled -Dmpi=disabled -Doptimization=0 \
		-Ddebug=false; then built="$built nooffload"
	else failed=$((failed + 1)); fi
	echo "quickstart: install and builds took $(($(date +%s) - t0)) s"
	case "$built" in *plain*) run_tests build --no-suite long ;; esac
	case "$built" in *asan*) run_tests build-asan --no-suite long ;; esac
	case "$built" in *nooffload*)
		run_tests build-nooffload --suite unit --suite nooffload --no-suite long ;; esac
	echo "quickstart: fast tier: $passed passed, $failed failed in $(($(date +%s) - t0)) s"
	if [ "$long" -eq 1 ]; then
		case "$built" in *plain*) run_tests build --suite long ;; esac
		case "$built" in *asan*) run_tests build-asan --suite long ;; esac
		gpu_bundle
		echo "quickstart: long tier done after $(($(date +%s) - t0)) s"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	;;
*)
	echo "usage: scripts/quickstart.sh run [nodebw run options] | test [--long]" >&2
	exit 2
	;;
esac
