# SPDX-License-Identifier: BSD-3-Clause
# A few lines of TAP for the shell tests: ok/not ok lines, a plan at the end.
tap_n=0
tap_failed=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
# A failure also goes to stderr, which is what meson prints of a failed test
# (--print-errorlogs), so that CI's log says which check failed.
not_ok() {
	tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"
	echo "not ok $tap_n - $*" >&2
}
check() { # check "description" command...
	desc=$1; shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
diag() { echo "# $*"; }
# $sigint_default CMD...: CMD with SIGINT not ignored, for a test's Ctrl-C to a background job
# (tests/sigint-default.py says why).
sigint_default="/usr/bin/python3 $NODEBW_SOURCE/tests/sigint-default.py"
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }
# wait_bounded PID SECONDS: wait for a background child at most SECONDS, then kill it (its
# process group too when it leads one) so that no test can hang; the child's exit status
# (137 after the kill) is the return value.
wait_bounded() {
	wb_i=0
	while [ $wb_i -lt $(($2 * 10)) ] && [ -e "/proc/$1" ] &&
		[ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; do
		sleep 0.1; wb_i=$((wb_i + 1))
	done
	if [ -e "/proc/$1" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; then
		echo "# pid $1 still running after $2 s: killed"
		kill -KILL "-$1" 2>/dev/null || kill -KILL "$1" 2>/dev/null
	fi
	wait "$1"
}
# usage_error "description" nodebw-args...: nodebw must reject them as bad input: exit status
# 2, exactly one line on stderr ("nodebw: error: ..."), nothing on stdout, within 30 s (an
# input that makes it hang fails as status 124). Uses $tmp.
usage_error() {
	desc=$1; shift
	usage_error_matching "$desc" "" "$@"
}
# usage_error_matching "description" PATTERN nodebw-args...: the same, and the line must
# match PATTERN.
usage_error_matching() {
	desc=$1 want=$2; shift 2
	timeout 30 "$NODEBW" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	lines=$(wc -l <"$tmp/err")
	if [ $st -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "^nodebw: error: .*$want" "$tmp/err" &&
	   [ ! -s "$tmp/out" ]; then
		ok "$desc: exit 2, one line ($(cat "$tmp/err"))"
	else
		not_ok "$desc: status $st (124 = hung), $lines stderr lines${want:+, wanted '$want'}"
		sed 's/^/#   /' "$tmp/err" "$tmp/out" | head -5
	fi
}
