#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run-fuzz.sh TARGET CORPUS SECONDS: run a libFuzzer target for SECONDS on a copy of its
# seed corpus (the source tree is never written), one job. Exit status: libFuzzer's (0 = no
# crash, leak, timeout or sanitizer report); a crash input is left in the copy and named.
set -u
target=$1 corpus=$2 secs=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
cp "$corpus"/* "$tmp/corpus/"
cd "$tmp" || exit 1
"$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
	-print_final_stats=1 "$tmp/corpus"
st=$?
for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
	[ -e "$f" ] || continue
	echo "finding: $(basename "$f") (base64 below)"
	base64 "$f"
done
exit $st
