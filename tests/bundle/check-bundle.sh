#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The portable bundle on a distribution with a newer C library than Debian 12's: unpacks
# TARBALL into a Debian 13 root (glibc 2.41; debootstrap, cached in $NODEBW_NEWER_ROOT,
# default /var/tmp/nodebw-trixie-root) and checks there, with TAP lines, that
#  - the bundled nodebw runs (--version, list, topo, a host probe that writes results),
#  - its process uses the bundled loader and C library, not the root's,
#  - the root's own /bin/sh, env and python3 still run after the bundle's env.sh is sourced
#    and nodebw has run, and nothing but PATH was set,
#  - the GPU check stops at its device check, with its message, in under 30 s (no GPU here).
#
#   tests/bundle/check-bundle.sh TARBALL
#
# Needs root (chroot, mount) and, the first time, Debian's mirror.
set -u
tarball=${1:?usage: check-bundle.sh TARBALL}
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (chroot)"; exit 0; }
root=${NODEBW_NEWER_ROOT:-/var/tmp/nodebw-trixie-root}
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -x "$root/usr/bin/python3" ]; then
	command -v debootstrap >/dev/null 2>&1 || {
		apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends debootstrap >/dev/null; }
	rm -rf "$root.tmp"
	debootstrap --variant=minbase --include=python3 trixie "$root.tmp" \
		"${NODEBW_MIRROR:-http://deb.debian.org/debian}" >"$root.log" 2>&1 ||
		{ echo "not ok 1 - debootstrap of Debian 13 failed ($root.log)"; exit 1; }
	mv "$root.tmp" "$root"
fi
inner=/opt/nodebw-check-$$
mkdir -p "$root$inner" "$root$inner/gpu-check"
cleanup() {
	umount "$root/proc" 2>/dev/null || umount -l "$root/proc" 2>/dev/null || true
	rm -rf "${root:?}$inner"
}
trap cleanup EXIT INT TERM
tar -C "$root$inner" -xJf "$tarball" || { echo "not ok 1 - cannot unpack $tarball"; exit 1; }
cp "$top/tests/device/gpu-check.sh" "$top/tests/device/judge-results.py" "$root$inner/gpu-check/"
mount -t proc proc "$root/proc"

cat >"$root$inner/check.sh" <<'IN'
set -u
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; }
b=$(ls -d "$1"/nodebw-*-linux-x86_64)
echo "# this root: $(. /etc/os-release && echo "$PRETTY_NAME"), $(getconf GNU_LIBC_VERSION)"
before=$(env | sort)
. "$b/share/nodebw/env.sh"
after=$(env | sort)
changed=$(printf '%s\n%s\n' "$before" "$after" | sort | uniq -u | cut -d= -f1 | sort -u | tr '\n' ' ')
[ "$changed" = "PATH " ] && ok "env.sh sets PATH only" || bad "env.sh changed: $changed"
[ "$(command -v nodebw)" = "$b/bin/nodebw" ] && ok "nodebw is on PATH" || bad "nodebw not on PATH"
v=$(nodebw --version 2>&1) && ok "nodebw --version: $v" || bad "nodebw --version: $v"
nodebw list >/tmp/list.$$ 2>&1 && grep -q '^Devices:' /tmp/list.$$ &&
	ok "nodebw list runs ($(grep -c '^  ' /tmp/list.$$) lines)" || bad "nodebw list: $(tail -n 2 /tmp/list.$$)"
grep '^  omp' /tmp/list.$$ | sed 's/^/# /'
nodebw topo >/tmp/topo.$$ 2>&1 && ok "nodebw topo runs" || bad "nodebw topo: $(tail -n 1 /tmp/topo.$$)"
nodebw probe --api host --devices 0 --probe htod --mode sync --sizes 1MiB --reps 3 \
	--output /tmp/probe.$$ >/tmp/probe-log.$$ 2>&1 && [ -s /tmp/probe.$$/results.json ] &&
	ok "nodebw probe --api host writes results.json" || bad "probe: $(tail -n 2 /tmp/probe-log.$$)"
# host memory only: nothing is judged, so NOT JUDGED (exit 3), never a pass
nodebw check /tmp/probe.$$/results.json >/tmp/check.$$ 2>&1
st=$?
[ "$st" -eq 3 ] && grep -q "^NOT JUDGED" /tmp/check.$$ &&
	grep -q "published figures: $b/share/nodebw/references.json" /tmp/check.$$ &&
	ok "nodebw check finds the bundled published figures (host memory: NOT JUDGED, exit 3)" ||
	bad "check: status $st: $(tail -n 3 /tmp/check.$$)"
# The real executable's maps while it runs: its loader and C library are the bundle's.
maps=$(LD_DEBUG=libs "$b/libexec/nodebw" list 2>&1 >/dev/null | grep 'calling init:' |
	sed 's/.*calling init: //' | while read -r f; do readlink -f "$f"; done)
echo "$maps" | grep -qx "$b/lib/libc.so.6" && [ -z "$(echo "$maps" | grep -v "^$b/lib/")" ] &&
	echo "$maps" | grep -qx "$b/lib/libomptarget.so.19.1" &&
	ok "nodebw list initialises only bundled libraries ($(echo "$maps" | wc -l), libomptarget among them)" ||
	bad "nodebw's process loaded: $(echo "$maps" | tr '\n' ' ')"
/bin/sh -c 'echo ok' | grep -q ok && ok "the root's /bin/sh runs after nodebw" || bad "/bin/sh fails"
env >/dev/null && ok "the root's env runs" || bad "env fails"
p=$(python3 -c 'import ssl, json; print("python3", json.dumps(1))' 2>&1) &&
	ok "the root's python3 runs ($p)" || bad "python3: $p"
t0=$(date +%s)
sh "$1/gpu-check/gpu-check.sh" "$b/bin/nodebw" /tmp/gc.$$ >/tmp/gc-log.$$ 2>&1
rc=$?
t=$(($(date +%s) - t0))
if [ "$rc" -eq 3 ] && grep -q 'STOP: OpenMP device 0 is not the GPU' /tmp/gc.$$/summary.txt && [ "$t" -lt 30 ]; then
	ok "gpu-check dry run stops at the device check in $t s"
else
	bad "gpu-check dry run: status $rc after $t s: $(tail -n 2 /tmp/gc-log.$$)"
fi
sed 's/^/# gpu-check: /' /tmp/gc.$$/summary.txt
rm -rf /tmp/*.$$
echo "1..$n"
IN
# bash sources env.sh (a POSIX sh cannot tell a sourced file its own path).
out=$(chroot "$root" /bin/bash "$inner/check.sh" "$inner" 2>&1)
echo "$out"
echo "# bundle: $(basename "$tarball"), $(du -k "$tarball" | cut -f1) KiB"
echo "$out" | grep -q '^not ok' && exit 1
echo "$out" | grep -q '^1\.\.[1-9]' || exit 1
exit 0
