#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The portable bundle: one tarball of a nodebw build with its whole library closure (Debian
# 12's C library and loader, LLVM 19's OpenMP runtime, jansson, GSL, hwloc, ...), which runs
# on any x86_64 Linux; a GPU build needs only the machine's NVIDIA (or AMD) driver there.
#
#   scripts/make-bundle.sh [TARGETS]            configure and build the GPU flavour for
#                                               TARGETS (default sm_90) in build-bundle-TARGETS,
#                                               then pack it
#   scripts/make-bundle.sh --build DIR          pack an existing build folder
#   NODEBW_BUNDLE_OUT=DIR                       where the tarball goes (default dist/)
#
# The GPU flavour leaves out what a GPU node does not run: HIP, Level Zero, MPI and the tests.
# Unpacked, bin/nodebw is the command. Nothing is exported and no library path is set for
# the machine's other programs: the real executable (libexec/nodebw) finds its libraries
# through the RUNPATH written into each binary here ($ORIGIN/../lib), and on its first run
# bin/nodebw points that executable at the bundled loader (PT_INTERP, by the bundled
# patchelf), so only nodebw's own processes use Debian 12's C library.
set -eu
cd "$(dirname "$0")/.."
top=$PWD

build=""
targets=sm_90
case "${1:-}" in
--build) build=${2:?usage: scripts/make-bundle.sh --build DIR}; [ -f "$build/build.ninja" ] ||
	{ echo "make-bundle: $build is not a build folder" >&2; exit 2; } ;;
-h | --help) sed -n '3,19p' "$0"; exit 0 ;;
"") ;;
-*) echo "make-bundle: unknown option $1 (TARGETS or --build DIR)" >&2; exit 2 ;;
*) targets=$1 ;;
esac

need() { # need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 && return 0
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$2" >/dev/null
}
need patchelf patchelf
need xz xz-utils

if [ -z "$build" ]; then
	build=build-bundle-$(echo "$targets" | tr ',' '-')
	case "$targets" in *sm_*) scripts/cuda-nvptx-toolkit.sh ;; esac
	if [ ! -f "$build/build.ninja" ]; then
		CC=clang-19 meson setup "$build" -Doffload_targets="$targets" -Dhip=disabled \
			-Dlevel_zero=disabled -Dmpi=disabled -Dtests=disabled -Dbuildtype=release \
			-Db_ndebug=false >"$build.setup.log" 2>&1 ||
			{ tail -n 20 "$build.setup.log" >&2; exit 1; }
		rm -f "$build.setup.log"
	fi
fi
ninja -C "$build" >/dev/null || { ninja -C "$build" | tail -n 20 >&2; exit 1; }
exe=$build/tools/nodebw
[ -x "$exe" ] || { echo "make-bundle: $exe was not built" >&2; exit 1; }
version=$("$exe" --version | sed -n '1s/^nodebw \([^ ,]*\).*/\1/p')
built_for=$("$exe" --version | sed -n 's/.*offload targets: \([^;)]*\).*/\1/p' | head -n 1 | tr -d ' ')
[ -n "$built_for" ] || built_for=$(echo "$targets" | tr ',' '-')
name=nodebw-$version-$(echo "$built_for" | tr ',' '-')-linux-x86_64
out=${NODEBW_BUNDLE_OUT:-dist}
mkdir -p "$out"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
b=$work/$name
mkdir -p "$b/bin" "$b/libexec" "$b/lib/nodebw" "$b/share/doc/nodebw/bundled" "$b/share/man/man1" \
	"$b/share/nodebw"

# The project's own files.
cp "$exe" "$b/libexec/nodebw"
cp "$(command -v patchelf)" "$b/libexec/patchelf"
# The plugins and the two offload libraries, which nodebw opens when it needs them.
for f in "$build"/bw_native/nodebw-*.so "$build"/fleet/nodebw-*.so "$build"/bw_omp/*.so \
	"$build"/heat/*.so; do
	[ -e "$f" ] && cp "$f" "$b/lib/nodebw/"
done
[ -e "$build/tools/docs/nodebw.1" ] && cp "$build/tools/docs/nodebw.1" "$b/share/man/man1/"
cp README.md LICENSE doc/gpu.md doc/check.md doc/references.md "$b/share/doc/nodebw/"
# The published figures nodebw check judges by (found beside libexec/nodebw).
cp data/references.json doc/thresholds.schema.json "$b/share/nodebw/"

# The closure: every library that ldd resolves outside the build, by the name the binaries
# ask for; LLVM's OpenMP runtime (libomptarget holds the GPU plugins in LLVM 19) beside it.
rt=/usr/lib/llvm-19/lib
cp -L "$rt/libomptarget.so.19.1" "$rt/libomp.so.5" "$b/lib/"
for f in "$exe" "$b"/lib/nodebw/*.so "$rt/libomptarget.so.19.1" "$rt/libomp.so.5" "$(command -v patchelf)"; do
	[ -e "$f" ] || continue
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3} $1 ~ /^\/.*ld-linux/ {print "ld-linux-x86-64.so.2", $1}'
done | sort -u >"$work/closure"
if grep -q 'not found' "$work/closure"; then
	echo "make-bundle: unresolved libraries:" >&2
	grep 'not found' "$work/closure" >&2
	exit 1
fi
: >"$work/packages"
while read -r soname path; do
	case "$path" in "$top"/*) continue ;; esac
	[ -e "$b/lib/$soname" ] || cp -L "$path" "$b/lib/$soname"
	dpkg -S "$(readlink -f "$path" | sed 's|^/lib/|/usr/lib/|')" 2>/dev/null | cut -d: -f1 >>"$work/packages"
done <"$work/closure"

# libLLVM (which libomptarget needs) links the Z3 solver (23 MB) for clang's static analyzer
# alone; libomptarget never calls it. A stand-in of the same soname defines each Z3 function
# libLLVM names, and one that is called anyway stops the process with a line saying why.
if [ -e "$b/lib/libz3.so.4" ] && [ "$(cd "$b/lib" && for f in *.so*; do
	readelf -d "$f" 2>/dev/null | grep -q 'NEEDED.*\[libz3\.so' && echo "$f"; done)" = libLLVM.so.19.1 ]; then
	{
		printf '/* SPDX-License-Identifier: BSD-3-Clause */\n#include <stdio.h>\n#include <stdlib.h>\n'
		printf 'static void nbw_no_z3(const char *f)\n{\n\tfprintf(stderr, "nodebw bundle: %%s: the Z3 solver is not in the portable bundle (only clang'"'"'s static analyzer uses it)\\n", f);\n\tabort();\n}\n'
		nm -D --undefined-only "$b/lib/libLLVM.so.19.1" | awk '$2 ~ /^Z3_/ {print $2}' | sort -u |
			while read -r fn; do printf 'void %s(void);\nvoid %s(void) { nbw_no_z3("%s"); }\n' "$fn" "$fn" "$fn"; done
	} >"$work/z3.c"
	clang-19 -shared -fPIC -O1 -Wl,-soname,libz3.so.4 -o "$b/lib/libz3.so.4" "$work/z3.c"
	sed -i '/^libz3-4 /d; /^libz3/d' "$work/packages"
fi

# The project's objects without their debug sections (-gdwarf-4 is on in every build type).
strip --strip-debug "$b/libexec/nodebw" "$b"/lib/nodebw/*.so

# Library paths inside the binaries: glibc's own objects keep theirs, everything else
# looks beside itself (lib/), the plugins one folder up.
glibc='ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2 libutil.so.1 libmvec.so.1'
for f in "$b"/lib/*.so*; do
	n=$(basename "$f")
	case " $glibc " in *" $n "*) continue ;; esac
	patchelf --set-rpath '$ORIGIN' "$f"
done
for f in "$b"/lib/nodebw/*.so; do [ -e "$f" ] && patchelf --set-rpath '$ORIGIN/..' "$f"; done
patchelf --set-rpath '$ORIGIN/../lib' "$b/libexec/nodebw" "$b/libexec/patchelf"
# Until bin/nodebw has set the real loader, running libexec/nodebw by hand fails clearly
# instead of pairing the machine's loader with Debian 12's C library.
patchelf --set-interpreter /run-bin-nodebw-once-to-set-the-bundled-loader "$b/libexec/nodebw"

# libomptarget's CUDA plugin dlopens "libcuda.so", which a driver-only machine may lack (it
# has libcuda.so.1): an empty library that needs libcuda.so.1 stands in, so the driver's
# own libcuda is what the plugin's dlsym finds, wherever the machine's loader cache has it.
case "$built_for" in *sm_*)
	printf '/* SPDX-License-Identifier: BSD-3-Clause */\n' >"$work/shim.c"
	clang-19 -shared -nostdlib -o "$b/lib/libcuda.so" "$work/shim.c"
	patchelf --add-needed libcuda.so.1 "$b/lib/libcuda.so"
	patchelf --set-rpath /usr/lib/x86_64-linux-gnu:/usr/lib64:/usr/local/nvidia/lib64:/usr/lib/wsl/lib "$b/lib/libcuda.so"
	;;
esac

cat >"$b/bin/nodebw" <<'WRAP'
#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nodebw from its portable bundle. The first run points the real executable at the bundled
# loader (after that, it is exec'd directly: its children and /proc/self/exe are nodebw
# itself). Nothing of the environment is changed.
here=$(cd "$(dirname "$0")/.." && pwd -P) || exit 2
ld=$here/lib/ld-linux-x86-64.so.2
real=$here/libexec/nodebw
if [ "$(cat "$here/libexec/.interp" 2>/dev/null)" != "$ld" ]; then
	tmp=$real.$$
	if cp -p "$real" "$tmp" 2>/dev/null &&
		"$ld" --library-path "$here/lib" "$here/libexec/patchelf" --set-interpreter "$ld" "$tmp" &&
		mv -f "$tmp" "$real" && echo "$ld" >"$here/libexec/.interp"; then
		:
	else
		rm -f "$tmp"
		echo "nodebw: cannot set the bundled loader in $real (is $here writable?); run $0 once as the folder's owner" >&2
		exit 2
	fi
fi
exec "$real" "$@"
WRAP
chmod 755 "$b/bin/nodebw"

cat >"$b/share/nodebw/env.sh" <<'ENV'
# SPDX-License-Identifier: BSD-3-Clause
# Optional, from bash or zsh: `. DIR/share/nodebw/env.sh` puts DIR/bin on PATH (it holds
# nodebw and nothing else). Nothing else is set. From another shell: PATH=DIR/bin:$PATH.
if [ -n "${BASH_SOURCE:-}" ]; then _nbw_env=${BASH_SOURCE}
elif [ -n "${ZSH_VERSION:-}" ]; then eval '_nbw_env=${(%):-%x}'
else _nbw_env=""; fi
if [ -n "$_nbw_env" ] && _nbw_bin=$(cd "$(dirname "$_nbw_env")/../../bin" && pwd -P); then
	PATH=$_nbw_bin:$PATH
	export PATH
else
	echo "nodebw env.sh: source it from bash or zsh, or set PATH=DIR/bin:\$PATH" >&2
fi
unset _nbw_env _nbw_bin
ENV

# What is inside and under which licences: each bundled library's Debian copyright file.
sort -u "$work/packages" | while read -r p; do
	[ -n "$p" ] || continue
	pkg=${p%%:*}
	[ -f "/usr/share/doc/$pkg/copyright" ] && cp "/usr/share/doc/$pkg/copyright" "$b/share/doc/nodebw/bundled/$pkg.copyright"
	dpkg-query -W -f='${Package} ${Version}\n' "$pkg"
done >"$work/versions" 2>/dev/null
{
	echo "nodebw portable bundle $name"
	"$exe" --version
	echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
	[ -f "$build/nvptx-images.txt" ] && { echo "device images:"; sed 's/^/  /' "$build/nvptx-images.txt"; }
	echo "run: bin/nodebw (no environment needed); lib/ holds these Debian packages' libraries:"
	sed 's/^/  /' "$work/versions"
} >"$b/share/doc/nodebw/BUNDLE.txt"

# One LZMA2 stream with a dictionary larger than libLLVM (129 MB): about 3 MB smaller than
# xz -9 and slower to make; NODEBW_BUNDLE_XZ sets other xz options (e.g. -1 for a quick try).
# shellcheck disable=SC2086
tar -C "$work" --owner=0 --group=0 --sort=name -cf - "$name" |
	xz ${NODEBW_BUNDLE_XZ:--T1 --lzma2=preset=9e,dict=192MiB} >"$out/$name.tar.xz.tmp"
mv -f "$out/$name.tar.xz.tmp" "$out/$name.tar.xz"
echo "make-bundle: $out/$name.tar.xz ($(du -k "$out/$name.tar.xz" | cut -f1) KiB; unpacked $(du -sk "$b" | cut -f1) KiB)"
